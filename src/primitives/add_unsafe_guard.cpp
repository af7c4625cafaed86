#include "exo2/primitives/add_unsafe_guard.hpp"
