#include "exo2/primitives/extract_subproc.hpp"
