/* rotg and rotmg: scalar, plain C (rotg.inc), not generated. */
#include <float.h>
#include <math.h>

#include "internal.h"

#define MIN(a, b) ((a) < (b) ? (a) : (b))

#define T float
#define FN(x) cblas_s##x
#define ABS fabsf
#define SQRT sqrtf
#define SAFMIN FLT_MIN
#define GAM 4096.0f
#define GAMSQ 1.67772e7f
#define RGAMSQ 5.96046e-8f
#include "rotg.inc"
#undef T
#undef FN
#undef ABS
#undef SQRT
#undef SAFMIN
#undef GAM
#undef GAMSQ
#undef RGAMSQ

#define T double
#define FN(x) cblas_d##x
#define ABS fabs
#define SQRT sqrt
#define SAFMIN DBL_MIN
#define GAM 4096.0
#define GAMSQ 16777216.0
#define RGAMSQ 5.9604645e-8
#include "rotg.inc"

#define ALIAS(name)                               \
  extern __typeof__(cblas_##name) exo2blas_##name \
      __attribute__((alias("cblas_" #name)));
ALIAS(srotg) ALIAS(drotg) ALIAS(srotmg) ALIAS(drotmg)
