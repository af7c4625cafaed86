#include "exo2/primitives/inline_window.hpp"
