#include "exo2/primitives/delete_buffer.hpp"
