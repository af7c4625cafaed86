/* Level 2 of the CBLAS layer: level2.inc once per precision, then the
 * exo2blas_ aliases. */
#include <string.h>

#include "internal.h"

#define T float
#define WIN1 struct exo_win_1f32
#define WIN1C struct exo_win_1f32c
#define WIN2 struct exo_win_2f32
#define WIN2C struct exo_win_2f32c
#define FN(x) cblas_s##x
#define KN(x) KERNELS->s##x
#define LOCAL(x) s_##x
#include "level2.inc"
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
#include "level2.inc"

#define ALIAS(name)                               \
  extern __typeof__(cblas_##name) exo2blas_##name \
      __attribute__((alias("cblas_" #name)));
ALIAS(sgemv)
ALIAS(dgemv) ALIAS(sgbmv) ALIAS(dgbmv) ALIAS(sger) ALIAS(dger) ALIAS(ssymv)
    ALIAS(dsymv) ALIAS(ssbmv) ALIAS(dsbmv) ALIAS(ssyr) ALIAS(dsyr) ALIAS(ssyr2)
        ALIAS(dsyr2) ALIAS(strmv) ALIAS(dtrmv) ALIAS(strsv) ALIAS(dtrsv)
            ALIAS(stbmv) ALIAS(dtbmv) ALIAS(stbsv) ALIAS(dtbsv)
