#include "exo2/primitives/replace.hpp"
