#include "windows.h"

#include <stdio.h>
#include <stdlib.h>

// nested_window(
//     n : size,
//     X : f32[n, 4, 4] @DRAM,
//     y : f32[n] @DRAM
// )
void nested_window( void *ctxt, int_fast32_t n, const float* X, float* y ) {
for (int_fast32_t i = 0; i < n; i++) {
  struct exo_win_2f32c plane = (struct exo_win_2f32c){ &X[(i) * (16)], { 4, 1 } };
  struct exo_win_1f32c diag = (struct exo_win_1f32c){ &plane.data[plane.strides[0] + (2) * (plane.strides[1])], { plane.strides[0] } };
  y[i] = diag.data[0] + diag.data[diag.strides[0]];
}
}

// row_sums(
//     m : size,
//     n : size,
//     X : f32[m, n] @DRAM,
//     s : f32[m] @DRAM
// )
void row_sums( void *ctxt, int_fast32_t m, int_fast32_t n, const float* X, float* s ) {
for (int_fast32_t i = 0; i < m; i++) {
  struct exo_win_1f32c row = (struct exo_win_1f32c){ &X[(i) * n], { 1 } };
  s[i] = 0.0f;
  for (int_fast32_t j = 0; j < n; j++) {
    s[i] += row.data[j * row.strides[0]];
  }
}
}

