// bind_config (docs/primitives-subprocs-configs.md): passes a value through a
// config field.
//
// Rewrite: for a read `e` of a scalar data variable or a bool, in statement
// `s`: `s[e]` becomes `C.f = e; s[C.f]`.
// Safety: ConfigInvisible(C.f = e), checked before `e` is replaced (the
// read that replaces it is the intended one): the old value of `C.f` is not
// read by code after the new write (`Cannot change configuration value of
// <C_f> at <loc>; the new (and different) values might be read later in
// this procedure`); then NoAlias. Bad types raise ConfigTypeError with the
// texts of docs/primitives-subprocs-configs.md (`expected a cursor to a single
// variable Read`, `cannot bind non-real-scalar non-boolean value <e> ...`,
// `expected type of expression to bind (<t>) to match type of Config variable
// (<t>)`). [fix] A call argument is refused (`cannot bind a call argument to a
// configuration field`): calls take buffers there. Forwarding: everything
// survives; `e`'s cursor names the config read.
#pragma once

#include <string>

#include "exo2/primitives/write_config.hpp"

namespace exo2::primitives {

// `expr` is a Read expression.
ConfigEditResult bind_config(const Proc& proc, const cursors::Location& expr,
                             const ConfigPtr& config, const std::string& field);

}  // namespace exo2::primitives
