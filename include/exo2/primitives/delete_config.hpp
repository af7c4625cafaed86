// delete_config (primitives.md §7): deletes a config write.
//
// Rewrite: deletes the statement (a config write; as in Exo, any statement
// that modifies only config fields is accepted, [fix] except declarations:
// an allocation or window statement modifies nothing but its uses would be
// left unbound: `Cannot delete the statement at <loc> with delete_config:
// it is the allocation of t, not a configuration write`).
// Safety: ConfigInvisible(statement): it modifies no buffer (`Cannot delete
// or insert statements at <loc> because they may modify non-configuration
// data`), and no field it writes is read afterwards before being
// overwritten (`Cannot change configuration value of <C_f> at <loc>; the
// new (and different) values might be read later in this procedure`).
// Forwarding: the statement dies; everything else survives.
#pragma once

#include "exo2/primitives/write_config.hpp"

namespace exo2::primitives {

ConfigEditResult delete_config(const Proc& proc, const cursors::Location& stmt);

}  // namespace exo2::primitives
