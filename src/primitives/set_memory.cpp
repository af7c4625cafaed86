#include "exo2/primitives/set_memory.hpp"

#include "exo2/primitives/buffer_uses.hpp"
#include "exo2/primitives/refusal.hpp"

namespace exo2::primitives {

cursors::EditResult set_memory(const Proc& proc, const cursors::Location& decl,
                               MemoryPtr mem) {
  if (!mem) throw ArgumentError("set_memory: expected a memory");
  const Declaration d = declaration_at(proc, decl);
  // Barriers (spec/cuda.md) have memories too.
  if (d.type.basetype().is_control())
    refuse("cannot set the precision or memory of a control value",
           {.srcinfo = d.srcinfo});
  return {redeclare(proc, d, d.type, std::move(mem)), cursors::Forwarding()};
}

}  // namespace exo2::primitives
