// Errors of code generation (docs/reference/generated-c.md, "Compile-time
// checks"). The bindings raise each kind as the documented Python exception.
#pragma once

#include <string>

#include "exo2/core_ir/diagnostics.hpp"

namespace exo2 {

class CodegenError : public UserError {
 public:
  enum class Kind {
    Type,    // TypeError: precision, races, windows and memories at calls
    Value,   // ValueError: call cycles
    MemGen,  // MemGenError: a memory cannot do what the code needs
    Config,  // ConfigError: access to a config that is not materialised
  };
  CodegenError(Kind kind, const std::string& message)
      : UserError(message), kind_(kind) {}
  Kind kind() const { return kind_; }

 private:
  Kind kind_;
};

}  // namespace exo2
