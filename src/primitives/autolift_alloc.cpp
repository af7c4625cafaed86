#include "exo2/primitives/autolift_alloc.hpp"
