#include "exo2/primitives/write_config.hpp"
