#include "exo2/primitives/bind_config.hpp"
