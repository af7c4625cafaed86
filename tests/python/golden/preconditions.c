#include "preconditions.h"

#include <stdio.h>
#include <stdlib.h>

// gemv_blocked(
//     m : size,
//     n : size,
//     A : f32[m, n] @DRAM,
//     x : f32[n] @DRAM,
//     y : f32[m] @DRAM
// )
void gemv_blocked( void *ctxt, int_fast32_t m, int_fast32_t n, const float* A, const float* x, float* y ) {
EXO_ASSUME(n % 4 == 0);
for (int_fast32_t i = 0; i < m; i++) {
  y[i] = 0.0f;
  for (int_fast32_t jo = 0; jo < ((n) / (4)); jo++) {
    for (int_fast32_t ji = 0; ji < 4; ji++) {
      y[i] += A[i * n + 4 * jo + ji] * x[4 * jo + ji];
    }
  }
}
}

// shift_from(
//     n : size,
//     off : index,
//     x : f32[n] @DRAM,
//     y : f32[n] @DRAM
// )
void shift_from( void *ctxt, int_fast32_t n, int_fast32_t off, const float* x, float* y ) {
EXO_ASSUME(off >= 0);
EXO_ASSUME(off < n);
for (int_fast32_t i = 0; i < n - off; i++) {
  y[i] = x[i + off];
}
}

