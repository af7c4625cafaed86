// Errors the core reports to users. The bindings translate each class into
// the documented Python exception (spec/errors.md) in one place.
#pragma once

#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "exo2/core_ir/srcinfo.hpp"

namespace exo2 {

// One problem found in a user's kernel.
struct Diagnostic {
  SrcInfo srcinfo;
  std::string message;
  // `loc: message`, the line users see.
  std::string str() const;
};

// Base of the errors that carry a user-facing message.
class UserError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// All problems found in one check of one procedure, raised together. Shows
// as `<heading>\n<loc>: <message>\n...`. Python: TypeError.
class CheckError : public UserError {
 public:
  CheckError(std::string heading, std::vector<Diagnostic> diagnostics);
  const std::string& heading() const { return heading_; }
  const std::vector<Diagnostic>& diagnostics() const { return diagnostics_; }

 private:
  std::string heading_;
  std::vector<Diagnostic> diagnostics_;
};

// "Errors occurred during typechecking:"
CheckError typecheck_error(std::vector<Diagnostic> diagnostics);
// "Errors occurred during effect checking:"
CheckError effect_check_error(std::vector<Diagnostic> diagnostics);

// An impossible or unprovable rewrite, or aliased call arguments.
// Python: SchedulingError.
class SchedulingError : public UserError {
 public:
  using UserError::UserError;
};

}  // namespace exo2
