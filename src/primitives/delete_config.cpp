#include "exo2/primitives/delete_config.hpp"
