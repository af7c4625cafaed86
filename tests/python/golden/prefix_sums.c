#include "prefix_sums.h"

#include <stdio.h>
#include <stdlib.h>

// prefix_sum_row(
//     n : size,
//     x : [f32][n] @DRAM,
//     y : [f32][n] @DRAM
// )
static void prefix_sum_row( void *ctxt, int_fast32_t n, struct exo_win_1f32c x, struct exo_win_1f32 y );

// prefix_sum_row(
//     n : size,
//     x : [f32][n] @DRAM,
//     y : [f32][n] @DRAM
// )
static void prefix_sum_row( void *ctxt, int_fast32_t n, struct exo_win_1f32c x, struct exo_win_1f32 y ) {
y.data[0] = x.data[0];
for (int_fast32_t i = 1; i < n; i++) {
  y.data[i * y.strides[0]] = y.data[(i - 1) * y.strides[0]] + x.data[i * x.strides[0]];
}
}

// prefix_sums(
//     m : size,
//     n : size,
//     X : f32[m, n] @DRAM,
//     Y : f32[m, n] @DRAM
// )
void prefix_sums( void *ctxt, int_fast32_t m, int_fast32_t n, const float* X, float* Y ) {
for (int_fast32_t i = 0; i < m; i++) {
  prefix_sum_row(ctxt,n,(struct exo_win_1f32c){ &X[(i) * n], { 1 } },(struct exo_win_1f32){ &Y[(i) * n], { 1 } });
}
}

