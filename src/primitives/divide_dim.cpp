#include "exo2/primitives/divide_dim.hpp"
