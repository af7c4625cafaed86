#include "exo2/primitives/add_assertion.hpp"
