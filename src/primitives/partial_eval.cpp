#include "exo2/primitives/partial_eval.hpp"
