#include "exo2/primitives/transpose.hpp"
