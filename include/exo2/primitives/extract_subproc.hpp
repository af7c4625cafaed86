// extract_subproc (primitives.md §8): moves a block into a new procedure and
// calls it.
//
// Rewrite: the block becomes `name(args)`. The new procedure's body is the
// block; its parameters are the variables visible at the block that it
// mentions, plus those used in their shapes: parameters of `proc` first (in
// order), then enclosing loop iterators (as `index`), allocations and window
// statements, outer to inner, with their types and memories (a window
// statement's memory is its buffer's). With `include_asserts`, its
// preconditions are `proc`'s, then `lo <= i` and `i < hi` for enclosing
// loops and `cond == True` / `cond == False` for enclosing ifs (innermost
// first), keeping those that mention only parameters; one that reads a
// config field is kept only when it provably holds at the block (the field
// may have been written since the entry, loop or if that stated it). [fix]
// Without, only those the new procedure needs to be safe on its own (each
// dropped, in order, when it stays safe without it); Exo keeps none, and
// the procedure it returns can be called out of bounds by new code.
// Safety: NoAlias on `proc` first (Exo's message). [fix] The new procedure
// passes the definition-time checks with its preconditions (`Cannot
// extract the block at <loc> into <name>: the new procedure would not be
// safe on its own: x is read out-of-bounds`), and the call passes them
// where it stands (call_checks.hpp). [fix] An allocation or
// window statement of the block used after it is refused (`Cannot extract
// the block at <loc>: x is used after it`); Exo leaves the use dangling.
// Forwarding: the block (and a block equal to it) names the call; cursors
// inside it die. The new procedure has no provenance.
#pragma once

#include <string>

#include "exo2/cursors/edits.hpp"

namespace exo2::primitives {

struct ExtractedSubproc {
  cursors::EditResult edit;
  Proc subproc;
};

ExtractedSubproc extract_subproc(const Proc& proc,
                                 const cursors::Location& block,
                                 const std::string& subproc_name,
                                 bool include_asserts);

}  // namespace exo2::primitives
