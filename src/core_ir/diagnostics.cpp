#include "exo2/core_ir/diagnostics.hpp"

#include <fmt/format.h>

namespace exo2 {

std::string Diagnostic::str() const {
  return fmt::format("{}: {}", srcinfo.str(), message);
}

namespace {
std::string check_error_text(const std::string& heading,
                             const std::vector<Diagnostic>& diagnostics) {
  std::string text = heading;
  for (const auto& d : diagnostics) text += "\n" + d.str();
  return text;
}
}  // namespace

CheckError::CheckError(std::string heading, std::vector<Diagnostic> diagnostics)
    : UserError(check_error_text(heading, diagnostics)),
      heading_(std::move(heading)),
      diagnostics_(std::move(diagnostics)) {}

CheckError typecheck_error(std::vector<Diagnostic> diagnostics) {
  return CheckError("Errors occurred during typechecking:",
                    std::move(diagnostics));
}

CheckError effect_check_error(std::vector<Diagnostic> diagnostics) {
  return CheckError("Errors occurred during effect checking:",
                    std::move(diagnostics));
}

}  // namespace exo2
