#include "exo2/primitives/set_precision.hpp"
