// Types of the object language.
#pragma once

#include <memory>
#include <string>
#include <vector>

namespace exo2 {

class ExprNode;
using Expr = std::shared_ptr<const ExprNode>;
class DimAnnotation;

enum class TypeKind {
  // Data types (precisions).
  R,
  F16,
  BF16,
  F32,
  F64,
  I8,
  UI8,
  UI16,
  I32,
  // Control types.
  Bool,
  Int,  // integer literals in control positions
  Index,
  Size,
  Stride,
  // Synchronisation (reserved for the CUDA backend).
  Barrier,
  // A dense tensor or a window (strided view) of data elements.
  Tensor,
  // Not yet known: expressions built by the frontend before typechecking.
  Unknown,
  // The type of an expression that failed to typecheck.
  Error,
};

// The shape part of a tensor or window type.
struct TensorShape;

// A value type: a scalar kind, or a tensor/window with an element type and a
// shape of control expressions. Cheap to copy (shares the shape).
class Type {
 public:
  Type() : kind_(TypeKind::Unknown) {}
  explicit Type(TypeKind kind) : kind_(kind) {}
  // A tensor (`f32[n, 4]`) or window (`[f32][n, 4]`) type.
  static Type tensor(
      Type elem, std::vector<Expr> shape, bool is_window,
      std::vector<std::shared_ptr<const DimAnnotation>> dim_annotations = {});

  TypeKind kind() const { return kind_; }
  bool is_tensor() const { return kind_ == TypeKind::Tensor; }
  bool is_window() const;
  // Element type of a tensor, the type itself otherwise.
  Type basetype() const;
  // Dimensions of a tensor; empty for scalars.
  const std::vector<Expr>& shape() const;
  // Per-dimension annotations (null entries mean none); empty when unused.
  const std::vector<std::shared_ptr<const DimAnnotation>>& dim_annotations()
      const;

  // Predicates named as in Exo.
  bool is_numeric() const;      // data scalar or tensor of data
  bool is_real_scalar() const;  // data scalar
  bool is_indexable() const;    // int, index, size, stride
  bool is_bool() const { return kind_ == TypeKind::Bool; }
  bool is_stride() const { return kind_ == TypeKind::Stride; }
  bool is_control() const;  // bool or indexable
  bool is_unknown() const { return kind_ == TypeKind::Unknown; }
  bool is_error() const { return kind_ == TypeKind::Error; }

  // The C type of the element (`float`, `int_fast32_t`); `R` maps to
  // `float` (precision analysis lowers R before code generation).
  const char* ctype() const;

  // The printed form: `f32`, `size`, `f32[n, 4]`, `[f32][n, 4]`.
  std::string str() const;

 private:
  TypeKind kind_;
  std::shared_ptr<const TensorShape> tensor_;
};

struct TensorShape {
  Type elem;
  std::vector<Expr> shape;
  bool is_window = false;
  std::vector<std::shared_ptr<const DimAnnotation>> dim_annotations;
};

// The keyword of a scalar type (`f32`, `index`, ...).
const char* type_kind_name(TypeKind kind);
// Parses a scalar type keyword; returns false when `name` is not one.
bool type_kind_from_name(const std::string& name, TypeKind* kind);
bool is_data_kind(TypeKind kind);

}  // namespace exo2
