#include "exo2/core_ir/srcinfo.hpp"

#include <fmt/format.h>

namespace exo2 {

const std::string& SrcInfo::file() const {
  static const std::string unknown = "<unknown>";
  return filename ? *filename : unknown;
}

std::string SrcInfo::str() const {
  if (col < 0) return fmt::format("{}:{}", file(), line);
  return fmt::format("{}:{}:{}", file(), line, col);
}

}  // namespace exo2
