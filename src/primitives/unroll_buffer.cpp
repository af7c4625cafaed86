#include "exo2/primitives/unroll_buffer.hpp"
