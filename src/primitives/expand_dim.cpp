#include "exo2/primitives/expand_dim.hpp"
