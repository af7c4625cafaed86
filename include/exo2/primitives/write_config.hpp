// write_config (docs/primitives-subprocs-configs.md): inserts a config write.
//
// Rewrite: inserts `C.f = rhs` at a gap. `rhs` (typed in the scope before
// the gap's anchor) must be a read of a scalar data variable or a bool, a
// stride expression or a literal, of a type the field accepts (data for
// data fields, index-like for size/index fields, stride or index-like for
// stride fields, bool for bool fields); otherwise ConfigTypeError
// (Python: TypeError) with `expected the rhs to be read, stride
// expression, or constant`, `cannot write non-real-scalar non-boolean value
// <e> to configuration states, since index and size expressions may depend
// on loop iteration`, or `expected type of expression to write (<t>) to
// match type of Config variable (<t>)`.
// Safety: ConfigInvisible(new write): nothing after it reads `C.f` before
// overwriting it (`Cannot change configuration value of <C_f> at <loc>;
// the new (and different) values might be read later in this procedure`).
// Forwarding: everything survives; the new statement sits at the gap.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

#include "exo2/analysis/effects.hpp"
#include "exo2/cursors/edits.hpp"

namespace exo2::primitives {

// A config primitive's result: the edit, and the config fields whose final
// value may differ (the new procedure is equivalent modulo these).
struct ConfigEditResult {
  cursors::EditResult edit;
  std::vector<Location> visible_fields;
};

// An argument of the wrong type for a config field (Python: TypeError).
class ConfigTypeError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// `gap` is a gap location; `rhs` is untyped.
ConfigEditResult write_config(const Proc& proc, const cursors::Location& gap,
                              const ConfigPtr& config, const std::string& field,
                              const Expr& rhs);

// Refuses unless ConfigInvisible holds for the `count` statements at
// `first` (a statement path) in `proc`; returns the fields visible at the
// end. Shared by the config primitives.
std::vector<Location> require_config_invisible(const Proc& proc,
                                               const cursors::Path& first,
                                               size_t count);

}  // namespace exo2::primitives
