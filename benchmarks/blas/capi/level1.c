/* Level 1 of the CBLAS layer: level1.inc once per precision, then the
 * routines with explicit types (dsdot, sdsdot, nrm2) and the aliases. */
#include <math.h>

#include "internal.h"

#define T float
#define WIN1 struct exo_win_1f32
#define WIN1C struct exo_win_1f32c
#define FN(x) cblas_s##x
#define KN(x) KERNELS->s##x
#define IAMAX cblas_isamax
#define IAMAX_FIRST isamax_first
#define IAMAX_BLOCKS isamax_blocks
#define IAMAX_LANE isamax_lane
#define IAMAX_K(x) isamax##x
#define IAMAX_LANES isamax_lanes
#include "level1.inc"
#undef T
#undef WIN1
#undef WIN1C
#undef FN
#undef KN
#undef IAMAX
#undef IAMAX_FIRST
#undef IAMAX_BLOCKS
#undef IAMAX_LANE
#undef IAMAX_K
#undef IAMAX_LANES

#define T double
#define WIN1 struct exo_win_1f64
#define WIN1C struct exo_win_1f64c
#define FN(x) cblas_d##x
#define KN(x) KERNELS->d##x
#define IAMAX cblas_idamax
#define IAMAX_FIRST idamax_first
#define IAMAX_BLOCKS idamax_blocks
#define IAMAX_LANE idamax_lane
#define IAMAX_K(x) idamax##x
#define IAMAX_LANES idamax_lanes
#include "level1.inc"

#define UNIT_PAIR(incx, incy) \
  (((incx) == 1 && (incy) == 1) || ((incx) == -1 && (incy) == -1))

double cblas_dsdot(const int N, const float *X, const int incX, const float *Y,
                   const int incY) {
  double result = 0;
  if (N <= 0) return 0;
  if (UNIT_PAIR(incX, incY))
    KERNELS->dsdot_stride_1(NULL, N, VEC(struct exo_win_1f32c, X, N, 1),
                            VEC(struct exo_win_1f32c, Y, N, 1), &result);
  else
    KERNELS->dsdot_stride_any(NULL, N, VEC(struct exo_win_1f32c, X, N, incX),
                              VEC(struct exo_win_1f32c, Y, N, incY), &result);
  return result;
}

float cblas_sdsdot(const int N, const float alpha, const float *X,
                   const int incX, const float *Y, const int incY) {
  float result = alpha;
  if (N <= 0) return alpha;
  if (UNIT_PAIR(incX, incY))
    KERNELS->sdsdot_stride_1(NULL, N, &alpha,
                             VEC(struct exo_win_1f32c, X, N, 1),
                             VEC(struct exo_win_1f32c, Y, N, 1), &result);
  else
    KERNELS->sdsdot_stride_any(NULL, N, &alpha,
                               VEC(struct exo_win_1f32c, X, N, incX),
                               VEC(struct exo_win_1f32c, Y, N, incY), &result);
  return result;
}

/* nrm2 follows the reference BLAS since LAPACK 3.10: any increment, the
 * elements of a negative one in reverse order (the norm is the same), the
 * first element n times for 0. */

/* The f64 sum of squares, its square root rounded once to f32. */
float cblas_snrm2(const int N, const float *X, const int incX) {
  double ssq = 0;
  if (N <= 0) return 0;
  if (incX == 1 || incX == -1)
    KERNELS->snrm2_stride_1(NULL, N, VEC(struct exo_win_1f32c, X, N, 1), &ssq);
  else
    KERNELS->snrm2_stride_any(NULL, N, VEC(struct exo_win_1f32c, X, N, incX),
                              &ssq);
  return (float)sqrt(ssq);
}

/* First the plain sum of squares, ddot of x with itself: when it is finite
 * and at least 2^-900, no square overflowed, and the squares that
 * underflowed (each below 2^-1022, at most 2^31 of them) change it by less
 * than 2^-91 of its value, far below its rounding; the reference sums the
 * squares of such medium values unscaled too. Otherwise (an overflow, a
 * norm near the underflow threshold, an Inf or NaN), Blue's sums (small,
 * medium, big) combined as the reference dnrm2 does
 * (exo2blas/kernels/level1/nrm2.py has the thresholds): three select
 * chains per element, some five times the plain pass's time. */
double cblas_dnrm2(const int N, const double *X, const int incX) {
  const double ssml = 0x1p537, sbig = 0x1p-538;
  double sums[3];
  if (N <= 0) return 0;
  const double ssq = cblas_ddot(N, X, incX, X, incX);
  if (isfinite(ssq) && ssq >= 0x1p-900) return sqrt(ssq);
  if (incX == 1 || incX == -1)
    KERNELS->dnrm2_stride_1(NULL, N, VEC(struct exo_win_1f64c, X, N, 1), sums);
  else
    KERNELS->dnrm2_stride_any(NULL, N, VEC(struct exo_win_1f64c, X, N, incX),
                              sums);
  double asml = sums[0], amed = sums[1], abig = sums[2], scl, sumsq;
  int med = amed > 0 || amed != amed;
  if (abig > 0) {
    if (med) abig += (amed * sbig) * sbig;
    scl = 1 / sbig;
    sumsq = abig;
  } else if (asml > 0) {
    if (med) {
      amed = sqrt(amed);
      asml = sqrt(asml) / ssml;
      double ymin = asml > amed ? amed : asml, ymax = asml > amed ? asml : amed;
      scl = 1;
      sumsq = ymax * ymax * (1 + (ymin / ymax) * (ymin / ymax));
    } else {
      scl = 1 / ssml;
      sumsq = asml;
    }
  } else {
    scl = 1;
    sumsq = amed;
  }
  return scl * sqrt(sumsq);
}

#define ALIAS(name)                               \
  extern __typeof__(cblas_##name) exo2blas_##name \
      __attribute__((alias("cblas_" #name)));
ALIAS(sdot)
ALIAS(ddot) ALIAS(sasum) ALIAS(dasum) ALIAS(saxpy) ALIAS(daxpy) ALIAS(scopy)
    ALIAS(dcopy) ALIAS(sswap) ALIAS(dswap) ALIAS(sscal) ALIAS(dscal) ALIAS(srot)
        ALIAS(drot) ALIAS(srotm) ALIAS(drotm) ALIAS(isamax) ALIAS(idamax)
            ALIAS(dsdot) ALIAS(sdsdot) ALIAS(snrm2) ALIAS(dnrm2)
