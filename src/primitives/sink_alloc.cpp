#include "exo2/primitives/sink_alloc.hpp"
