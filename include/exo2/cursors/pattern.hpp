// Pattern matching for `find` (spec/cursors.md §6). Python parses a
// pattern string into these descriptions (exo2.frontend.pattern_match);
// the search runs here.
#pragma once

#include <optional>
#include <stdexcept>
#include <string>
#include <variant>
#include <vector>

#include "exo2/core_ir/proc.hpp"
#include "exo2/cursors/location.hpp"

namespace exo2::cursors {

// Names are compared as strings; "_" matches any name.
struct ExprPattern {
  enum class Kind { Hole, Read, Const, USub, BinOp, Extern, Stride, Config };
  Kind kind = Kind::Hole;
  // Read, Stride: the variable. Extern: the function. Config: the config.
  std::string name;
  std::string field;  // Config
  // Read: indices (compared pairwise up to the shorter list). USub: the
  // operand. BinOp: lhs, rhs. Extern: arguments (pairwise).
  std::vector<ExprPattern> children;
  double value = 0;  // Const, compared numerically (True == 1)
  BinOpKind op = BinOpKind::Add;
  std::optional<int> dim;  // Stride; none (or 0, as in Exo) matches any
};

struct StmtPattern {
  enum class Kind {
    Hole,  // a run of statements
    Assign,
    Reduce,
    Alloc,
    For,
    If,
    Call,
    WriteConfig,
    Pass,
    With,  // `with _: body`
    Sync   // `Fence(_, _)`, `Arrive(_) >> _`, `Await(_, _)`
  };
  Kind kind = Kind::Hole;
  // Assign/Reduce/Alloc: the buffer. For: the iterator. Call: the callee.
  // WriteConfig: the config. Sync: "Fence", "Arrive" or "Await".
  std::string name;
  std::string field;  // WriteConfig
  // Assign/Reduce: indices then rhs. Alloc: sizes. For: lo, hi. If: cond.
  std::vector<ExprPattern> exprs;
  std::vector<StmtPattern> body, orelse;  // For, If, With (empty orelse: any)
};

// An expression pattern, or a sequence of statement patterns.
using Pattern = std::variant<ExprPattern, std::vector<StmtPattern>>;

// A pattern that is only a hole.
class PatternMatchError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// The matches of `pattern` within `scope` (the procedure's empty-path node,
// a statement, a block or an expression), in pre-order. A statement
// pattern matches blocks (one statement: still a block); an expression
// pattern matches expression nodes. With `match_no`, only that match (or
// none) is returned, and the search stops there.
std::vector<Location> find_matches(const Proc& proc, const Location& scope,
                                   const Pattern& pattern,
                                   std::optional<int> match_no);

}  // namespace exo2::cursors
