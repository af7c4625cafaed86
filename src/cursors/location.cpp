#include "exo2/cursors/location.hpp"

#include <fmt/format.h>

namespace exo2::cursors {

const char* slot_name(Slot slot) {
  switch (slot) {
    case Slot::Body:
      return "Body";
    case Slot::Orelse:
      return "Orelse";
    case Slot::Param:
      return "Param";
    case Slot::Cond:
      return "Cond";
    case Slot::Lo:
      return "Lo";
    case Slot::Hi:
      return "Hi";
    case Slot::Rhs:
      return "Rhs";
    case Slot::Lhs:
      return "Lhs";
    case Slot::Operand:
      return "Operand";
    case Slot::Idx:
      return "Idx";
    case Slot::Arg:
      return "Arg";
    case Slot::WindowLo:
      return "WindowLo";
    case Slot::WindowHi:
      return "WindowHi";
    case Slot::Shape:
      return "Shape";
    case Slot::Barrier:
      return "Barrier";
  }
  return "?";
}

bool starts_with(const Path& path, const Path& prefix) {
  if (prefix.size() > path.size()) return false;
  for (size_t i = 0; i < prefix.size(); i++)
    if (!(path[i] == prefix[i])) return false;
  return true;
}

std::string to_string(const Path& path) {
  std::string out = "[";
  for (size_t i = 0; i < path.size(); i++) {
    if (i) out += ", ";
    out += fmt::format("({},{})", slot_name(path[i].slot), path[i].index);
  }
  return out + "]";
}

std::string to_string(const Location& loc) {
  switch (loc.kind) {
    case LocationKind::Node:
      return "Node " + to_string(loc.path);
    case LocationKind::Block:
      return fmt::format("Block {}..{}", to_string(loc.path), loc.hi);
    case LocationKind::Gap:
      return fmt::format("Gap {} {}",
                         loc.side == GapSide::Before ? "Before" : "After",
                         to_string(loc.path));
  }
  return "?";
}

}  // namespace exo2::cursors
