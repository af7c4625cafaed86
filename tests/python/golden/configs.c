#include "configs.h"

#include <stdio.h>
#include <stdlib.h>

// config_count(
//     n : size,
//     x : f32[n] @DRAM
// )
void config_count( configs_Context *ctxt, int_fast32_t n, float* x ) {
ctxt->ScaleCfg.count = n;
for (int_fast32_t i = 0; i < n; i++) {
  x[i] = 1.0f;
}
}

// config_scale(
//     n : size,
//     x : f32[n] @DRAM
// )
void config_scale( configs_Context *ctxt, int_fast32_t n, float* x ) {
for (int_fast32_t i = 0; i < n; i++) {
  x[i] = ctxt->ScaleCfg.alpha * x[i];
}
}

