// Liveness of configuration fields: whether the value a piece of code leaves
// in a config field can be observed afterwards. This decides ConfigInvisible
// (docs/reference/primitives.md, "Safety conditions") for the config primitives
// and call_eqv.
//
// "Afterwards" is everything that may run after the statements: the rest of
// their block, the whole body again when they sit in a loop (later
// iterations), and so on up to the end of the procedure. A field's value is
// observed when it is read there before a statement that certainly
// overwrites it: a write in straight-line code, in both branches of an if,
// or in the body of a loop proven to run at least once (callees included;
// a callee's preconditions read the fields they mention at the call).
// A value that survives to the end of the procedure is not observed inside
// it, but the caller sees it: the procedure is then only equivalent modulo
// that field.
#pragma once

#include <optional>
#include <vector>

#include "exo2/analysis/effects.hpp"
#include "exo2/analysis/queries.hpp"

namespace exo2 {

// What happens, after some statements, to the value they leave in a field.
struct FieldAfter {
  enum class Fate { Read, Overwritten, VisibleAtEnd };
  Fate fate = Fate::VisibleAtEnd;
  // The read, when `fate` is Read.
  SrcInfo read_at;
};

// The fate of `field` (a config location) after the `count` statements
// starting at `first`. The statements themselves are not taken as
// overwriting the field when they run again in later loop iterations (they
// are the code being inserted or deleted), but their reads count.
FieldAfter config_field_after(const Proc& p, const cursors::Path& first,
                              size_t count, const Location& field);

// ConfigInvisible(S) for the `count` statements starting at `first`. A
// field the statements provably leave with the value it held before them
// (the value written is the one it holds, proven in Z3 for control fields;
// for a data field, the last earlier write stored the same expression and
// nothing since changed the field or what the expression reads) is not
// changed, wherever it is read.
struct ConfigInvisibility {
  // A modification of something other than a config field, if any.
  std::optional<Access> data_write;
  // A written field read afterwards, and the read.
  std::optional<Location> read_field;
  SrcInfo read_at;
  // The written fields whose value may survive to the end of the
  // procedure: the new procedure is equivalent modulo these.
  std::vector<Location> visible_fields;

  bool proven() const { return !data_write && !read_field; }
};
ConfigInvisibility check_config_invisible(const Proc& p,
                                          const cursors::Path& first,
                                          size_t count);

// `Cfg_field`: how messages name a config field (as Exo does).
std::string config_field_name(const Location& field);

}  // namespace exo2
