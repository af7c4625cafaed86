#include "exo2/core_ir/sym.hpp"

#include <atomic>

namespace exo2 {

namespace {
std::atomic<uint64_t> next_sym_id{1};
}

Sym::Sym(std::string name)
    : name_(std::make_shared<const std::string>(std::move(name))),
      id_(next_sym_id.fetch_add(1)) {}

std::shared_ptr<const std::string> Sym::empty_name() {
  static const auto empty = std::make_shared<const std::string>();
  return empty;
}

}  // namespace exo2
