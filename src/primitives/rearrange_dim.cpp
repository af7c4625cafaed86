#include "exo2/primitives/rearrange_dim.hpp"
