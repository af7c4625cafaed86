// Calls the generated kernels and checks their results; the AVX2 kernel
// runs only where the CPU has AVX2 and FMA.
#include <stdio.h>

#include "kernels.h"

int main(void) {
  float x[4] = {1, 2, 3, 4};
  float y[4] = {1, 1, 1, 1};
  float alpha = 2.0f;
  float result = 0.0f;
  scale(NULL, 4, &alpha, x);
  dot(NULL, 4, x, y, &result);
  printf("dot = %g\n", result);
  if (result != 20.0f) return 1;
  float A[3][5] = {{0}};
  fill_rows(NULL, 3, 5, &A[0][0]);
  if (A[2][4] != 1.0f) return 1;
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
    float z[11] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
    scale_avx2(NULL, 11, &alpha, z);
    for (int i = 0; i < 11; i++) {
      if (z[i] != 2.0f * i) return 1;
    }
  }
  return 0;
}
