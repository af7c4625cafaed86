#include "exo2/primitives/autofission.hpp"
