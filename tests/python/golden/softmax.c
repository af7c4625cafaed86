#include "softmax.h"

#include <stdio.h>
#include <stdlib.h>

#include <math.h>
#include <math.h>
// softmax(
//     n : size,
//     x : f32[n] @DRAM,
//     y : f32[n] @DRAM
// )
void softmax( void *ctxt, int_fast32_t n, const float* x, float* y ) {
float mx;
mx = x[0];
for (int_fast32_t i = 0; i < n; i++) {
  mx = fmaxf((float)(mx), (float)(x[i]));
}
float total;
total = 0.0f;
for (int_fast32_t i = 0; i < n; i++) {
  y[i] = expf((float)(x[i] - mx));
  total += y[i];
}
for (int_fast32_t i = 0; i < n; i++) {
  y[i] = y[i] / total;
}
}

