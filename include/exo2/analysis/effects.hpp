// Memory effects of statements: which locations a piece of code reads,
// writes and reduces into, as symbolic regions that the queries of
// queries.hpp encode in Z3.
//
// An access is one syntactic read, write or reduction together with
// everything that decides which elements it touches when the code runs:
// - its location: a buffer (windows and callee parameters resolved to the
//   buffer they view) or a config field (a global location without indices);
// - its indices in the coordinates of that buffer, as control expressions
//   over the loop iterators, sizes and other control values in scope (window
//   offsets added, callee parameters replaced by the call's arguments);
// - the loops of the analysed code around it (iterator and range): every
//   iteration is one instance of the access;
// - the conditions of the ifs of the analysed code around it.
// Control values are immutable and carry no effects; only data buffers and
// config fields do. A config field read by an index, bound or condition is
// translated into its value relative to the start of the analysed code: the
// read itself when the analysed code has not written the field before it,
// the written value after a write, or an unknown value (one of the access's
// `unknowns`) after code that may have written it in a way not tracked
// (a loop, an if, a callee, or an earlier iteration of an enclosing loop). Data
// reads cannot occur inside indices (indices are control expressions). Buffers
// allocated inside the analysed code are fresh on every execution and never
// interfere with anything outside it, so their accesses are left out.
#pragma once

#include <string>
#include <unordered_map>
#include <vector>

#include "exo2/core_ir/proc.hpp"

namespace exo2 {

// Every element of one buffer, or one config field.
struct Location {
  Sym buffer;        // valid when `config` is null
  ConfigPtr config;  // the config of a field location
  std::string field;

  bool is_config() const { return config != nullptr; }
  bool same_as(const Location& other) const;
  // `x`, or `Cfg.field`.
  std::string str() const;
};

enum class AccessKind { Read, Write, Reduce };
// "read", "written", "reduced" (as in "x[i] written at k.py:3:8").
const char* access_kind_participle(AccessKind kind);

// A loop of the analysed code: each iteration is one instance of the
// accesses inside it. `id` tells the loops of one analysis apart (numbered
// in program order; -1 when not made by it): two sibling loops may bind the
// same iterator, as after `fission`.
struct LoopRange {
  Sym iter;
  Expr lo, hi;
  // A callee's loops analysed at two calls are two loops (two ids).
  int id = -1;
};

// The condition of an enclosing if; `holds` is false in the else branch.
struct Guard {
  Expr cond;
  bool holds = true;
};

struct Access {
  AccessKind kind = AccessKind::Read;
  Location location;
  // Indices into the location's buffer; empty for scalars and config fields.
  std::vector<Expr> idx;
  // Enclosing loops of the analysed code, outermost first.
  std::vector<LoopRange> loops;
  std::vector<Guard> guards;
  // Where the access is written: the read expression, the assignment, or
  // the call statement for accesses of a callee's body.
  SrcInfo srcinfo;
  // The access as printed for messages: `x[i + 1]`, `Cfg.field`. Accesses
  // through windows and callees print in the coordinates of the buffer.
  std::string text;
  // Variables (reads of fresh symbols) standing for config values the
  // analysed code may have changed before the access in untracked ways;
  // the indices, loops and guards may mention them. Each instance of the
  // access takes its own values for them.
  std::vector<Expr> unknowns;
  // For a write by an assignment or config write of the analysed code itself
  // (not of a callee's body): the value it stores, as written. Null when
  // unknown, or when evaluating it reads a buffer the analysed code
  // allocates (those reads are left out, so the accesses would not show
  // everything the value depends on).
  Expr value;
  // For a read made evaluating such a value: the position of the write, in
  // the vector effects_of returned (the reads come just before it). -1
  // otherwise.
  int value_of = -1;

  bool modifies() const { return kind != AccessKind::Read; }
};

// How a window statement or a data parameter of a callee views its buffer:
// one entry per buffer dimension, a fixed point or the offset of a viewed
// dimension (the viewed dimensions in order are the view's dimensions).
struct BufferView {
  Sym buffer;
  std::vector<WindowAccess> dims;  // intervals: `lo` is the offset
};
// The window statements in scope, by the name they define.
using WindowEnv = std::unordered_map<Sym, BufferView>;

// The view a window expression `x[...]` denotes, through the windows of
// `env` that `x` may itself name.
BufferView resolve_window(const WindowExpr& w, const WindowEnv& env);

// The effects of code run where the window statements of `env` are in scope,
// in program order. `unknown_at_start` lists config fields whose value when
// the code starts is not the one of the query context: the code is (part
// of) a loop body, and earlier iterations may have written them.
std::vector<Access> effects_of(
    const Block& block, const WindowEnv& env = {},
    const std::vector<Location>& unknown_at_start = {});
std::vector<Access> effects_of(const Stmt& stmt, const WindowEnv& env = {});

}  // namespace exo2
