#include "exo2/primitives/mult_dim.hpp"
