#include "exo2/primitives/resize_dim.hpp"
