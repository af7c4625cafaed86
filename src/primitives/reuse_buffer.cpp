#include "exo2/primitives/reuse_buffer.hpp"
