// Construction and structural equality of the IR.
#include <gtest/gtest.h>

#include "exo2/core_ir/equality.hpp"
#include "exo2/core_ir/proc.hpp"
#include "exo2/core_ir/symbol_table.hpp"

namespace exo2 {
namespace {

const Type kIndex(TypeKind::Index);
const Type kSize(TypeKind::Size);
const Type kF32(TypeKind::F32);

Expr read(const Sym& s, std::vector<Expr> idx = {}, Type t = kIndex) {
  return make_read(s, std::move(idx), {}, t);
}

TEST(Sym, FreshSymbolsAreDistinctEvenWithOneName) {
  Sym a("i"), b("i");
  EXPECT_NE(a, b);
  EXPECT_EQ(a.name(), b.name());
  EXPECT_EQ(a, a);
  EXPECT_NE(a.copy(), a);
  EXPECT_EQ(a.copy().name(), "i");
}

TEST(Type, TensorKeepsShapeAndElement) {
  Sym n("n");
  Type t = Type::tensor(kF32, {read(n, {}, kSize), make_int(4)}, false);
  EXPECT_TRUE(t.is_tensor());
  EXPECT_FALSE(t.is_window());
  EXPECT_TRUE(t.is_numeric());
  EXPECT_FALSE(t.is_real_scalar());
  EXPECT_EQ(t.basetype().kind(), TypeKind::F32);
  EXPECT_EQ(t.shape().size(), 2u);
  EXPECT_EQ(t.str(), "f32[n, 4]");
  EXPECT_EQ(Type::tensor(kF32, t.shape(), true).str(), "[f32][n, 4]");
}

TEST(Type, PredicatesFollowExo) {
  EXPECT_TRUE(Type(TypeKind::Stride).is_indexable());
  EXPECT_TRUE(Type(TypeKind::Int).is_indexable());
  EXPECT_FALSE(Type(TypeKind::Bool).is_indexable());
  EXPECT_TRUE(Type(TypeKind::R).is_real_scalar());
  EXPECT_TRUE(Type(TypeKind::UI16).is_numeric());
  EXPECT_FALSE(Type(TypeKind::Size).is_numeric());
}

TEST(Type, CTypesOfElements) {
  EXPECT_STREQ(Type(TypeKind::F64).ctype(), "double");
  EXPECT_STREQ(Type(TypeKind::UI16).ctype(), "uint16_t");
  EXPECT_STREQ(Type(TypeKind::Size).ctype(), "int_fast32_t");
  EXPECT_STREQ(Type::tensor(Type(TypeKind::I8), {make_int(4)}, true).ctype(),
               "int8_t");
}

TEST(Type, NamesRoundTrip) {
  for (const char* name :
       {"R", "f16", "bf16", "f32", "f64", "i8", "ui8", "ui16", "i32", "bool",
        "index", "size", "stride", "barrier"}) {
    TypeKind k;
    ASSERT_TRUE(type_kind_from_name(name, &k)) << name;
    EXPECT_STREQ(type_kind_name(k), name);
  }
  TypeKind k;
  EXPECT_FALSE(type_kind_from_name("int", &k));
  EXPECT_FALSE(type_kind_from_name("float", &k));
}

TEST(Equality, ComparesSymbolsByIdentity) {
  Sym i("i"), j("i");
  EXPECT_TRUE(equal(read(i), read(i)));
  EXPECT_FALSE(equal(read(i), read(j)));
}

TEST(Equality, ComparesStructureNotPointers) {
  Sym x("x"), i("i");
  auto build = [&](double c) {
    return make_assign(x, kF32, {read(i)}, make_const(ConstValue(c), {}, kF32),
                       {});
  };
  EXPECT_TRUE(equal(build(1.0), build(1.0)));
  EXPECT_FALSE(equal(build(1.0), build(2.0)));
}

TEST(Equality, DistinguishesIntAndFloatLiterals) {
  EXPECT_FALSE(equal(make_const(ConstValue(int64_t{0}), {}, kF32),
                     make_const(ConstValue(0.0), {}, kF32)));
}

TEST(Equality, ComparesLoopModesAndBodies) {
  Sym i("i"), n("n"), x("x");
  Block body = {make_pass({})};
  auto loop = [&](LoopModePtr mode) {
    return make_for(i, make_int(0), read(n, {}, kSize), body, mode, {});
  };
  EXPECT_TRUE(equal(loop(LoopMode::seq()), loop(LoopMode::seq())));
  EXPECT_FALSE(equal(loop(LoopMode::seq()), loop(LoopMode::par())));
}

TEST(Equality, ProcsWithSameSymbolsAreEqual) {
  Sym n("n"), x("x"), i("i");
  Type xt = Type::tensor(kF32, {read(n, {}, kSize)}, false);
  auto build = [&] {
    Block body = {
        make_for(i, make_int(0), read(n, {}, kSize),
                 {make_assign(x, kF32, {read(i)},
                              make_const(ConstValue(0.0), {}, kF32), {})},
                 LoopMode::seq(), {})};
    return make_proc(
        "zero",
        {FnArg{n, kSize, nullptr, {}}, FnArg{x, xt, NamedMemory::dram(), {}}},
        {}, body, std::nullopt, {});
  };
  EXPECT_TRUE(equal(build(), build()));
  Proc other = make_proc("zero", {}, {}, {make_pass({})}, std::nullopt, {});
  EXPECT_FALSE(equal(build(), other));
}

TEST(Equality, SharedSubtreesAreReused) {
  Sym i("i");
  Expr e = read(i);
  Stmt s = make_pass({});
  Block b1 = {s, s};
  EXPECT_EQ(b1[0].get(), b1[1].get());
  EXPECT_TRUE(equal(b1, Block{s, make_pass({})}));
  EXPECT_EQ(with_type(e, kSize)->type.kind(), TypeKind::Size);
  EXPECT_EQ(e->type.kind(), TypeKind::Index);
}

TEST(SymbolTable, ListsArgumentsThenBodyInPreOrder) {
  Sym n("n"), t("t"), i("i"), w("w");
  Type tt = Type::tensor(kF32, {read(n, {}, kSize)}, false);
  Expr win = make_window_expr(
      t, {WindowAccess::interval(make_int(0), read(n, {}, kSize))}, {},
      Type::tensor(kF32, {read(n, {}, kSize)}, true));
  Block body = {make_alloc(t, tt, NamedMemory::dram(), {}),
                make_for(i, make_int(0), read(n, {}, kSize),
                         {make_window_stmt(w, win, {})}, LoopMode::seq(), {})};
  Proc p = make_proc("p", {FnArg{n, kSize, nullptr, {}}}, {}, body,
                     std::nullopt, {});
  auto table = symbol_table(p);
  ASSERT_EQ(table.size(), 4u);
  EXPECT_EQ(table[0].sym, n);
  EXPECT_EQ(table[0].kind, SymbolInfo::Kind::Argument);
  EXPECT_EQ(table[1].sym, t);
  EXPECT_EQ(table[1].mem->name(), "DRAM");
  EXPECT_EQ(table[2].kind, SymbolInfo::Kind::LoopIterator);
  EXPECT_EQ(table[2].type.kind(), TypeKind::Index);
  EXPECT_EQ(table[3].kind, SymbolInfo::Kind::Window);
  EXPECT_EQ(table[3].type.str(), "[f32][n]");
  EXPECT_STREQ(symbol_kind_name(table[3].kind), "window");
}

TEST(SrcInfo, PrintsFileLineColumn) {
  EXPECT_EQ(SrcInfo("k.py", 12, 8).str(), "k.py:12:8");
  EXPECT_EQ(SrcInfo("k.py", 3).str(), "k.py:3");
}

}  // namespace
}  // namespace exo2
