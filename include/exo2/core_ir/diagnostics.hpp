// Errors the core reports to users. The bindings translate each class into
// the documented Python exception (docs/errors.md) in one place.
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

// An argument of a primitive of the wrong kind or value that the core's own
// checks caught: the Python layer checks arguments first, this is the
// defence behind it (a cursor of the wrong kind of node, a block of the
// wrong size). Python: ValueError, or TypeError for Kind::Type.
class ArgumentError : public UserError {
 public:
  enum class Kind { Type, Value };
  explicit ArgumentError(const std::string& message, Kind kind = Kind::Value)
      : UserError(message), kind_(kind) {}
  Kind kind() const { return kind_; }

 private:
  Kind kind_;
};

// What a primitive knows about why it refused a rewrite
// (docs/errors.md). Every field is optional.
struct SchedulingReport {
  // The node the failure is about (its location is shown with its source
  // line and a caret). Unset (no filename) when unknown.
  SrcInfo srcinfo = {};
  // The safety condition in words, e.g. `Divisible(n, 4)`, and as a formula
  // over program variables, e.g. `n % 4 == 0`.
  std::string condition = {};
  std::string formula = {};
  // ` n = 9, i = 3`, as Z3 produced it.
  std::string counterexample = {};
  // The two accesses of a failed Commute/FissionSafe/ReorderSafe condition,
  // e.g. `x[i] written at k.py:14:12`.
  std::vector<std::string> conflicting_accesses = {};
  // A suggested fix.
  std::string hint = {};
};

// An impossible or unprovable rewrite, or aliased call arguments.
// `what()` is the message of primitives.md (without the `<<<unknown
// directive>>>: ` prefix, which the Python class adds). Python:
// SchedulingError, with the report as attributes and notes.
class SchedulingError : public UserError {
 public:
  explicit SchedulingError(const std::string& message,
                           SchedulingReport report = {})
      : UserError(message), report_(std::move(report)) {}
  const SchedulingReport& report() const { return report_; }

 private:
  SchedulingReport report_;
};

}  // namespace exo2
