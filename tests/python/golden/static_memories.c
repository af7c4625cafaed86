#include "static_memories.h"

#include <stdio.h>
#include <stdlib.h>

#include <stdio.h>
#include <stdlib.h>

#include <stdio.h>
#include <stdlib.h>

// static_buffers(
//     n : size,
//     x : f32[n, 4] @DRAM,
//     y : f32[n, 4] @DRAM
// )
void static_buffers( void *ctxt, int_fast32_t n, const float* x, float* y ) {
for (int_fast32_t i = 0; i < n; i++) {
  static float s[4];
  float t[4];
  for (int_fast32_t j = 0; j < 4; j++) {
    s[j] = x[i * 4 + j];
  }
  for (int_fast32_t j = 0; j < 4; j++) {
    t[j] = s[j] + 1.0f;
  }
  for (int_fast32_t j = 0; j < 4; j++) {
    y[i * 4 + j] = t[j];
  }
}
}

