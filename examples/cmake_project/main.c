// Calls the generated kernels and checks their results.
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
  return result == 20.0f ? 0 : 1;
}
