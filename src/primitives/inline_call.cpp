#include "exo2/primitives/inline_call.hpp"
