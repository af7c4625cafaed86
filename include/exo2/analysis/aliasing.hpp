// NoAlias (docs/reference/primitives.md, "Safety conditions"): no call passes
// one buffer, directly or through windows, to two data parameters of the
// callee.
#pragma once

#include <optional>
#include <string>

#include "exo2/core_ir/proc.hpp"

namespace exo2 {

struct AliasedCall {
  std::string buffer;  // the buffer passed twice
  std::string callee;
  SrcInfo srcinfo;  // the call
  // Exo's text: `Cannot Pass the same buffer 'x' via multiple arguments in
  // call to f, since doing so would introduce aliased arguments. ...`
  std::string message() const;
};

// The first call in `p` that passes a buffer twice, if any.
std::optional<AliasedCall> find_aliased_call(const Proc& p);

}  // namespace exo2
