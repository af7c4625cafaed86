#include "axpy.h"

#include <stdio.h>
#include <stdlib.h>

// axpy(
//     n : size,
//     alpha : f32 @DRAM,
//     x : [f32][n] @DRAM,
//     y : f32[n] @DRAM
// )
void axpy( void *ctxt, int_fast32_t n, const float* alpha, struct exo_win_1f32c x, float* y ) {
// assert stride(x, 0) == 1
for (int_fast32_t i = 0; i < n; i++) {
  y[i] += *alpha * x.data[i];
}
}

