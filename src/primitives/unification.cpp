#include "exo2/primitives/unification.hpp"
