// Config fields as mutable state: which fields code writes or reads, and
// the values the fields hold after code runs.
//
// Config fields are the only mutable state that control expressions (loop
// bounds, if conditions, indices, callee preconditions) can read: sizes,
// iterators and strides keep their value in their scope. Hence:
// - an expression evaluated again at a later point means the same there
//   exactly when the code in between writes no config field it reads;
// - a fact proven at one point (the condition of an enclosing if) still
//   holds at a later point until a field it mentions is written.
// Primitives that move, copy or split code use the first; the query
// contexts of queries.hpp use the second, by advancing the values of the
// fields in their SmtEncoder over the code between the points.
// docs/internals/effect-analysis.md describes both.
#pragma once

#include <vector>

#include "exo2/analysis/effects.hpp"
#include "exo2/analysis/z3_encoding.hpp"

namespace exo2 {

// The config fields `code` may write, callees included: each once, in
// program order.
std::vector<Location> config_fields_written(const Block& code);
std::vector<Location> config_fields_written(const Stmt& s);

// The config fields an expression reads, each once, with the first read of
// each (for messages). Reads inside window expressions are included.
struct ConfigRead {
  Location field;
  SrcInfo srcinfo;
};
std::vector<ConfigRead> config_fields_read(const Expr& e);

// Whether `e` reads one of `fields`.
bool reads_any_field(const Expr& e, const std::vector<Location>& fields);

// Whether a config field of type `t` is control state (encoded in Z3):
// index, size, int, stride and bool fields.
bool is_control_field(const Location& field);

// Advances the values of the control config fields held in `enc` (by
// SmtEncoder::bind_config) over one run of `s`: a write stores its
// right-hand side evaluated before the write; an if stores, per field, the
// value its taken branch leaves; a call what the callee's body leaves, its
// control parameters bound to the arguments; a loop, which may run any
// number of times, leaves the fields its body writes unknown.
void advance_config_state(SmtEncoder& enc, const StmtNode& s);

// Forgets the values of `fields` in `enc`: each gets a fresh, unconstrained
// term (at the head of a loop body, whose earlier iterations may have
// written them).
void forget_config_values(SmtEncoder& enc, const std::vector<Location>& fields);

}  // namespace exo2
