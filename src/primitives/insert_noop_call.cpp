#include "exo2/primitives/insert_noop_call.hpp"
