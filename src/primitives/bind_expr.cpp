#include "exo2/primitives/bind_expr.hpp"
