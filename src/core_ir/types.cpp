#include "exo2/core_ir/types.hpp"

#include <array>
#include <utility>

#include "exo2/core_ir/printer.hpp"

namespace exo2 {

namespace {
constexpr std::array<std::pair<TypeKind, const char*>, 15> kTypeNames = {{
    {TypeKind::R, "R"},
    {TypeKind::F16, "f16"},
    {TypeKind::BF16, "bf16"},
    {TypeKind::F32, "f32"},
    {TypeKind::F64, "f64"},
    {TypeKind::I8, "i8"},
    {TypeKind::UI8, "ui8"},
    {TypeKind::UI16, "ui16"},
    {TypeKind::I32, "i32"},
    {TypeKind::Bool, "bool"},
    {TypeKind::Int, "int"},
    {TypeKind::Index, "index"},
    {TypeKind::Size, "size"},
    {TypeKind::Stride, "stride"},
    {TypeKind::Barrier, "barrier"},
}};

const std::vector<Expr>& empty_shape() {
  static const std::vector<Expr> empty;
  return empty;
}
}  // namespace

const char* type_kind_name(TypeKind kind) {
  for (const auto& [k, name] : kTypeNames)
    if (k == kind) return name;
  switch (kind) {
    case TypeKind::Tensor:
      return "tensor";
    case TypeKind::Unknown:
      return "<unknown>";
    default:
      return "<error>";
  }
}

bool type_kind_from_name(const std::string& name, TypeKind* kind) {
  for (const auto& [k, n] : kTypeNames) {
    if (name == n && k != TypeKind::Int) {
      *kind = k;
      return true;
    }
  }
  return false;
}

bool is_data_kind(TypeKind kind) {
  switch (kind) {
    case TypeKind::R:
    case TypeKind::F16:
    case TypeKind::BF16:
    case TypeKind::F32:
    case TypeKind::F64:
    case TypeKind::I8:
    case TypeKind::UI8:
    case TypeKind::UI16:
    case TypeKind::I32:
      return true;
    default:
      return false;
  }
}

Type Type::tensor(Type elem, std::vector<Expr> shape, bool is_window,
                  std::vector<std::shared_ptr<const DimAnnotation>> annots) {
  Type t(TypeKind::Tensor);
  t.tensor_ = std::make_shared<const TensorShape>(TensorShape{
      std::move(elem), std::move(shape), is_window, std::move(annots)});
  return t;
}

bool Type::is_window() const { return tensor_ && tensor_->is_window; }

Type Type::basetype() const { return tensor_ ? tensor_->elem : *this; }

const std::vector<Expr>& Type::shape() const {
  return tensor_ ? tensor_->shape : empty_shape();
}

const std::vector<std::shared_ptr<const DimAnnotation>>& Type::dim_annotations()
    const {
  static const std::vector<std::shared_ptr<const DimAnnotation>> none;
  return tensor_ ? tensor_->dim_annotations : none;
}

bool Type::is_numeric() const { return is_data_kind(basetype().kind()); }
bool Type::is_real_scalar() const { return is_data_kind(kind_); }

bool Type::is_indexable() const {
  return kind_ == TypeKind::Int || kind_ == TypeKind::Index ||
         kind_ == TypeKind::Size || kind_ == TypeKind::Stride;
}

bool Type::is_control() const { return is_bool() || is_indexable(); }

const char* Type::ctype() const {
  switch (basetype().kind()) {
    case TypeKind::R:
    case TypeKind::F32:
      return "float";
    case TypeKind::F16:
      return "_Float16";
    case TypeKind::BF16:
      return "uint16_t";
    case TypeKind::F64:
      return "double";
    case TypeKind::I8:
      return "int8_t";
    case TypeKind::UI8:
      return "uint8_t";
    case TypeKind::UI16:
      return "uint16_t";
    case TypeKind::I32:
      return "int32_t";
    case TypeKind::Bool:
      return "bool";
    case TypeKind::Int:
    case TypeKind::Index:
    case TypeKind::Size:
    case TypeKind::Stride:
      return "int_fast32_t";
    default:
      return "void";
  }
}

std::string Type::str() const { return print_type(*this); }

}  // namespace exo2
