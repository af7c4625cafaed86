// Source locations carried by every IR node.
#pragma once

#include <memory>
#include <string>

namespace exo2 {

// Where a node came from in the user's Python file. Lines count from 1 and
// columns from 0, as in Python's `ast`; a column of -1 means "unknown".
// Nodes made by rewrites carry the location of the code they came from.
struct SrcInfo {
  std::shared_ptr<const std::string> filename;
  int line = 0;
  int col = -1;

  SrcInfo() = default;
  SrcInfo(std::string file, int line_, int col_ = -1)
      : filename(std::make_shared<const std::string>(std::move(file))),
        line(line_),
        col(col_) {}

  const std::string& file() const;
  // `file:line:col`, or `file:line` when the column is unknown.
  std::string str() const;
};

}  // namespace exo2
