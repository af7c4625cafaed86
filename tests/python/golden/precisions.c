#include "precisions.h"

#include <stdio.h>
#include <stdlib.h>

// add_i8(
//     n : size,
//     x : i8[n] @DRAM,
//     y : i8[n] @DRAM
// )
void add_i8( void *ctxt, int_fast32_t n, const int8_t* x, int8_t* y ) {
for (int_fast32_t i = 0; i < n; i++) {
  y[i] += x[i];
}
}

// mean_f64_acc(
//     n : size,
//     x : f32[n] @DRAM,
//     result : f32 @DRAM
// )
void mean_f64_acc( void *ctxt, int_fast32_t n, const float* x, float* result ) {
double acc;
acc = 0.0;
for (int_fast32_t i = 0; i < n; i++) {
  acc += (double)(x[i]);
}
*result = (float)(acc);
}

// narrow_f64_to_f32(
//     n : size,
//     x : f64[n] @DRAM,
//     y : f32[n] @DRAM
// )
void narrow_f64_to_f32( void *ctxt, int_fast32_t n, const double* x, float* y ) {
for (int_fast32_t i = 0; i < n; i++) {
  y[i] = (float)(x[i]);
}
}

