#include "par_loops.h"

#include <stdio.h>
#include <stdlib.h>

// axpy_win(
//     n : size,
//     alpha : f32 @DRAM,
//     x : [f32][n] @DRAM,
//     y : [f32][n] @DRAM
// )
static void axpy_win( void *ctxt, int_fast32_t n, const float* alpha, struct exo_win_1f32c x, struct exo_win_1f32 y );

// axpy_win(
//     n : size,
//     alpha : f32 @DRAM,
//     x : [f32][n] @DRAM,
//     y : [f32][n] @DRAM
// )
static void axpy_win( void *ctxt, int_fast32_t n, const float* alpha, struct exo_win_1f32c x, struct exo_win_1f32 y ) {
for (int_fast32_t i = 0; i < n; i++) {
  y.data[i * y.strides[0]] += *alpha * x.data[i * x.strides[0]];
}
}

// par_rows_axpy(
//     m : size,
//     n : size,
//     alpha : f32 @DRAM,
//     X : f32[m, n] @DRAM,
//     Y : f32[m, n] @DRAM
// )
void par_rows_axpy( void *ctxt, int_fast32_t m, int_fast32_t n, const float* alpha, const float* X, float* Y ) {
#pragma omp parallel for
for (int_fast32_t i = 0; i < m; i++) {
  axpy_win(ctxt,n,alpha,(struct exo_win_1f32c){ &X[(i) * n], { 1 } },(struct exo_win_1f32){ &Y[(i) * n], { 1 } });
}
}

// par_scale(
//     n : size,
//     alpha : f32 @DRAM,
//     x : f32[n] @DRAM
// )
void par_scale( void *ctxt, int_fast32_t n, const float* alpha, float* x ) {
#pragma omp parallel for
for (int_fast32_t i = 0; i < n; i++) {
  x[i] = *alpha * x[i];
}
}

