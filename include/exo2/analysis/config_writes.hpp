// Which config fields code writes and expressions read. Config fields are
// the only control values that can change while a procedure runs (sizes,
// index arguments and loop iterators never do), so these two questions
// decide when a fact about a control expression may go stale.
#pragma once

#include <set>
#include <string>
#include <utility>

#include "exo2/core_ir/proc.hpp"

namespace exo2 {

// A config field, by the identity of its config.
using ConfigField = std::pair<const Config*, std::string>;

// The fields `block` writes, including inside the procedures it calls
// (instruction bodies too).
std::set<ConfigField> config_writes(const Block& block);

// Whether `e` reads one of `fields`.
bool reads_any(const Expr& e, const std::set<ConfigField>& fields);

}  // namespace exo2
