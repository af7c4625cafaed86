#include "blur2d.h"

#include <stdio.h>
#include <stdlib.h>

// blur2d(
//     n : size,
//     m : size,
//     inp : f32[n + 2, m + 2] @DRAM,
//     out : f32[n, m] @DRAM
// )
void blur2d( void *ctxt, int_fast32_t n, int_fast32_t m, const float* inp, float* out ) {
for (int_fast32_t i = 0; i < n; i++) {
  for (int_fast32_t j = 0; j < m; j++) {
    float tmp;
    tmp = 0.0f;
    for (int_fast32_t di = 0; di < 3; di++) {
      for (int_fast32_t dj = 0; dj < 3; dj++) {
        tmp += inp[(i + di) * (m + 2) + j + dj];
      }
    }
    out[i * m + j] = tmp / 9.0f;
  }
}
}

