#include "exo2/primitives/set_window.hpp"
