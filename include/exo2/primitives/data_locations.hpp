// Which data locations (buffers, config fields) an expression reads or an
// assignment writes, seen through the window statements in scope: what
// primitives that move an expression past a write (split_write,
// merge_writes, inline_assign) must compare, and the syntactic match of a
// read against a write.
#pragma once

#include <vector>

#include "exo2/analysis/effects.hpp"

namespace exo2::primitives {

// The locations `e` reads, in order (with repeats).
std::vector<Location> locations_read(const Expr& e, const WindowEnv& env);
// The location an assignment or reduction modifies.
Location location_written(const Stmt& write, const WindowEnv& env);
// Whether one of `locations` is `loc`.
bool contains(const std::vector<Location>& locations, const Location& loc);
// Whether `e` is a read of exactly the element `write` (an assignment or
// reduction) writes, as written: the same buffer and structurally equal
// indices (fold_into_reduce's `a = a + e`, inline_assign's later reads).
bool reads_written_element(const Expr& e, const Stmt& write);

}  // namespace exo2::primitives
