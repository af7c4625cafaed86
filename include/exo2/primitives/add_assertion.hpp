// add_assertion (primitives.md): TO BE WRITTEN.
#pragma once

#include "exo2/cursors/edits.hpp"

namespace exo2::primitives {}  // namespace exo2::primitives
