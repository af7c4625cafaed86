#include "exo2/primitives/lift_alloc.hpp"
