#include "exo2/primitives/call_eqv.hpp"
