// A small kernel for the cursor tests, whose statements are told apart by
// the literal on their right-hand side:
//
//   def f(n: size, x: f32[n]):
//       x[0] = 0.0                   # [(Body,0)]
//       for i in seq(0, n):          # [(Body,1)]
//           x[i] = 1.0               # [(Body,1), (Body,0)]
//           x[i] = 2.0
//           x[i] = 3.0
//       if n < 3:                    # [(Body,2)]
//           x[0] = 4.0
//       else:
//           x[0] = 5.0               # [(Body,2), (Orelse,0)]
//       x[0] = 6.0
//       x[0] = 7.0
#pragma once

#include <gtest/gtest.h>

#include "exo2/cursors/forwarding.hpp"
#include "exo2/cursors/navigation.hpp"

namespace exo2::cursors::testing {

inline const Type kF32(TypeKind::F32);
inline const Type kSize(TypeKind::Size);
inline const Type kIndex(TypeKind::Index);

struct TestKernel {
  Sym n{"n"}, x{"x"}, i{"i"};

  Expr read(const Sym& s, Type t = Type(TypeKind::Index)) {
    return make_read(s, {}, {}, t);
  }
  // `x[idx] = value`, labelled by `value`.
  Stmt assign(double value, Expr idx = nullptr) {
    if (!idx) idx = make_int(0);
    return make_assign(x, kF32, {idx},
                       make_const(ConstValue(value), {}, Type(TypeKind::R)),
                       {});
  }
  Stmt loop(Block body) {
    return make_for(i, make_int(0), read(n, kSize), std::move(body),
                    LoopMode::seq(), {});
  }
  Proc proc() {
    Block loop_body = {assign(1, read(i)), assign(2, read(i)),
                       assign(3, read(i))};
    Stmt branch = make_if(make_binop(BinOpKind::Lt, read(n, kSize), make_int(3),
                                     {}, Type(TypeKind::Bool)),
                          {assign(4)}, {assign(5)}, {});
    std::vector<FnArg> args = {
        {n, kSize, nullptr, {}},
        {x, Type::tensor(kF32, {read(n, kSize)}, false), nullptr, {}}};
    return make_proc(
        "f", std::move(args), {},
        {assign(0), loop(std::move(loop_body)), branch, assign(6), assign(7)},
        std::nullopt, {});
  }
};

// The label of the assignment at `path`, or -1 for another statement.
inline double label(const Proc& p, const Path& path) {
  Stmt s = resolve_stmt(p, path);
  if (s->kind != StmtKind::Assign) return -1;
  return std::get<double>(s->as<Assign>().rhs->as<Const>().value);
}

inline Path body(int i) { return {Step{Slot::Body, i}}; }
inline Path body(int i, int j) {
  return {Step{Slot::Body, i}, Step{Slot::Body, j}};
}
inline Path orelse(int i, int j) {
  return {Step{Slot::Body, i}, Step{Slot::Orelse, j}};
}
inline Path with(Path p, Step s) {
  p.push_back(s);
  return p;
}

// Expects forwarding `loc` to throw InvalidCursorError with `message`.
#define EXPECT_FORWARD_FAILS(fwd, loc, message)                            \
  do {                                                                     \
    try {                                                                  \
      (fwd)(loc);                                                          \
      ADD_FAILURE() << "forwarding " << to_string(loc) << " did not fail"; \
    } catch (const InvalidCursorError& e) {                                \
      EXPECT_STREQ(e.what(), message);                                     \
    }                                                                      \
  } while (0)

}  // namespace exo2::cursors::testing
