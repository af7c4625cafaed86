/* Level 3 of the CBLAS layer: level3.inc once per precision, then the
 * exo2blas_ aliases. */
#include "internal.h"

/* The part of C that scale_matrix scales. */
enum { FULL, UPPER_TRIANGLE, LOWER_TRIANGLE };

#define T float
#define WIN1 struct exo_win_1f32
#define WIN1C struct exo_win_1f32c
#define WIN2 struct exo_win_2f32
#define WIN2C struct exo_win_2f32c
#define FN(x) cblas_s##x
#define KN(x) KERNELS->s##x
#define LOCAL(x) s_##x
#include "level3.inc"
#undef T
#undef WIN1
#undef WIN1C
#undef WIN2
#undef WIN2C
#undef FN
#undef KN
#undef LOCAL

#define T double
#define WIN1 struct exo_win_1f64
#define WIN1C struct exo_win_1f64c
#define WIN2 struct exo_win_2f64
#define WIN2C struct exo_win_2f64c
#define FN(x) cblas_d##x
#define KN(x) KERNELS->d##x
#define LOCAL(x) d_##x
#include "level3.inc"

#define ALIAS(name)                               \
  extern __typeof__(cblas_##name) exo2blas_##name \
      __attribute__((alias("cblas_" #name)));
ALIAS(sgemm)
ALIAS(dgemm) ALIAS(ssymm) ALIAS(dsymm) ALIAS(ssyrk) ALIAS(dsyrk) ALIAS(ssyr2k)
    ALIAS(dsyr2k) ALIAS(strmm) ALIAS(dtrmm) ALIAS(strsm) ALIAS(dtrsm)
