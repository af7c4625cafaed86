// The C backend on small hand-built procedures: the exact function text of
// procedure-and-codegen.md §4, the floor-division helper, and the
// compile-time checks of §5.
#include <gtest/gtest.h>

#include <string>

#include "exo2/backends/c_codegen.hpp"
#include "exo2/backends/codegen_error.hpp"
#include "exo2/core_ir/typecheck.hpp"

namespace exo2 {
namespace {

const Type kSize(TypeKind::Size);
const Type kF32(TypeKind::F32);

SrcInfo at(int line) { return SrcInfo("k.py", line, 4); }
Expr var(const Sym& s) { return make_read(s, {}, at(1)); }
Expr lit(int64_t v) { return make_const(ConstValue(v), at(1)); }
Expr bin(BinOpKind op, Expr a, Expr b) {
  return make_binop(op, std::move(a), std::move(b), at(1));
}

// for i in <mode>(0, n): y[i] += alpha * x[<index(i)>]
Proc loop_proc(const std::string& name, LoopModePtr mode, bool window_x,
               Expr (*index)(const Sym&)) {
  Sym n("n"), alpha("alpha"), x("x"), y("y"), i("i");
  const MemoryPtr dram = NamedMemory::dram();
  Type xt = Type::tensor(kF32, {var(n)}, window_x);
  std::vector<FnArg> args = {
      {n, kSize, nullptr, at(1)},
      {alpha, kF32, dram, at(1)},
      {x, xt, dram, at(1)},
      {y, Type::tensor(kF32, {var(n)}, false), dram, at(1)}};
  std::vector<Expr> preds;
  if (window_x)
    preds.push_back(bin(BinOpKind::Eq, make_stride_expr(x, 0, at(1)), lit(1)));
  Stmt body = make_reduce(
      y, Type(), {index(i)},
      bin(BinOpKind::Mul, var(alpha), make_read(x, {var(i)}, at(3))), at(3));
  Stmt loop = make_for(i, lit(0), var(n), {body}, std::move(mode), at(2));
  return typecheck(make_proc(name, args, preds, {loop}, std::nullopt, at(1)));
}

Expr identity(const Sym& i) { return var(i); }
Expr zero(const Sym&) { return lit(0); }

TEST(Codegen, AxpyHasTheSpecifiedShape) {
  Proc p = loop_proc("axpy", LoopMode::seq(), true, identity);
  CLibrary lib = compile_library("lib", {p});
  EXPECT_NE(lib.decls.find("void axpy( void *ctxt, int_fast32_t n, const "
                           "float* alpha, struct exo_win_1f32c x, float* y );"),
            std::string::npos);
  const std::string def =
      "// axpy(\n//     n : size,\n//     alpha : f32 @DRAM,\n//     x : "
      "[f32][n] @DRAM,\n//     y : f32[n] @DRAM\n// )\nvoid axpy( void "
      "*ctxt, int_fast32_t n, const float* alpha, struct exo_win_1f32c x, "
      "float* y ) {\n(void)ctxt;\n// assert stride(x, 0) == 1\nfor "
      "(int_fast32_t i = 0; i "
      "< n; i++) {\n  y[i] += *alpha * x.data[i];\n}\n}\n";
  EXPECT_EQ(lib.body,
            "#include <stdio.h>\n#include <stdlib.h>\n\n" + def + "\n");
}

TEST(Codegen, HeaderHasGuardsNamedAfterTheLibrary) {
  Proc p = loop_proc("axpy", LoopMode::seq(), true, identity);
  auto [c_text, h_text] = compile_procs_to_strings({p}, "my-lib.h");
  EXPECT_EQ(c_text.rfind("#include \"my-lib.h\"\n\n", 0), 0u);
  EXPECT_EQ(
      h_text.rfind("\n#pragma once\n#ifndef MY_LIB_H\n#define MY_LIB_H\n", 0),
      0u);
  EXPECT_NE(h_text.find("#endif  // MY_LIB_H\n"), std::string::npos);
}

TEST(Codegen, ParallelLoopGetsOpenMpPragma) {
  Proc p = loop_proc("par_axpy", LoopMode::par(), false, identity);
  CLibrary lib = compile_library("lib", {p});
  EXPECT_NE(lib.body.find("#pragma omp parallel for\nfor (int_fast32_t i"),
            std::string::npos);
}

TEST(Codegen, RacingParallelLoopIsRejected) {
  Proc p = loop_proc("racy", LoopMode::par(), false, zero);
  try {
    compile_library("lib", {p});
    FAIL() << "expected a race";
  } catch (const CodegenError& e) {
    EXPECT_EQ(e.kind(), CodegenError::Kind::Type);
    EXPECT_STREQ(e.what(),
                 "Errors occurred during precision checking:\nk.py:2:4: "
                 "parallel loop's body is not parallelizable because of "
                 "potential data races");
  }
}

TEST(Codegen, DivisionOfPossiblyNegativeIndexUsesFloorHelper) {
  Expr (*shifted)(const Sym&) = [](const Sym& i) {
    return bin(BinOpKind::Div, bin(BinOpKind::Sub, var(i), lit(1)), lit(2));
  };
  Proc p = loop_proc("shifted", LoopMode::seq(), false, shifted);
  CLibrary lib = compile_library("lib", {p});
  EXPECT_EQ(lib.body.rfind("\nstatic inline int64_t exo_floor_div(int64_t "
                           "num, int64_t quot) {",
                           0),
            0u);
  EXPECT_NE(lib.body.find("y[exo_floor_div(i - 1, 2)]"), std::string::npos)
      << lib.body;
  EXPECT_EQ(lib.body.find("exo_floor_mod"), std::string::npos);

  Expr (*halved)(const Sym&) = [](const Sym& i) {
    return bin(BinOpKind::Div, var(i), lit(2));
  };
  CLibrary plain =
      compile_library("lib", {loop_proc("h", LoopMode::seq(), false, halved)});
  EXPECT_EQ(plain.body.find("exo_floor_div"), std::string::npos);
  EXPECT_NE(plain.body.find("y[(i / 2)]"), std::string::npos);
}

}  // namespace
}  // namespace exo2
