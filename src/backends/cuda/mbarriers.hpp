// mbarriers of a kernel (docs/cuda.md, "The constructs"): each CUDA_MBARRIER
// allocation is physically `depth` mbarriers in shared memory (its ring
// depth, or its literal extent), initialised once per CTA with the number
// of arrivals each element receives, and kept across tasks: logical
// element j of the running task is global element base + j, stored in slot
// (base + j) % depth with phase parity ((base + j) / depth) & 1, and `base`
// advances by the logical extent at the end of every task.
#pragma once

#include <map>

#include "collectives.hpp"

namespace exo2::cuda {

struct MBarrier {
  const Alloc* alloc = nullptr;
  int depth = 1;      // physical slots
  Expr extent;        // logical extent (elements per task)
  int arrivals = 0;   // arrivals per element
  int prearrive = 0;  // CUDA_MBARRIER(prearrive=P)
};

// Every mbarrier allocation of the kernel's task body, by buffer. Each
// statement that signals the buffer arrives once per warp of an Arrive's
// collective (a single thread arrives itself) or once per trailing barrier
// of an instruction. Statements in the same element loop (the innermost
// seq loop whose iterator the element index uses; none for a fixed
// element, as in a peeled first iteration) signal the same elements, so
// their arrivals add up; every element loop must give the same count,
// which is the count the mbarriers are initialised with (tier B checks
// each element's actual arrivals). Malformed allocations (more than one
// dimension, no ring and a non-literal extent) and unequal counts get
// errors.
std::map<Sym, MBarrier> mbarriers_of(const Kernel& k, const CollectiveMap& cm,
                                     std::vector<Diagnostic>& errors);

}  // namespace exo2::cuda
