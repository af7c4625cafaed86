#include "exo2/primitives/stage_mem.hpp"
