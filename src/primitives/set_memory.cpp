#include "exo2/primitives/set_memory.hpp"
