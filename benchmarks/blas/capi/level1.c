/* Level 1 of the CBLAS layer: each exported routine calls the active
 * ISA's (level1_isa.inc, which inlines its kernels), and its exo2blas_
 * alias. */
#include "level1_table.h"

float cblas_sdot(const int N, const float *X, const int incX, const float *Y,
                 const int incY) {
  EXO2BLAS_LEVEL1_RETURN(sdot, N, X, incX, Y, incY);
}
double cblas_ddot(const int N, const double *X, const int incX, const double *Y,
                  const int incY) {
  EXO2BLAS_LEVEL1_RETURN(ddot, N, X, incX, Y, incY);
}
float cblas_sdsdot(const int N, const float alpha, const float *X,
                   const int incX, const float *Y, const int incY) {
  EXO2BLAS_LEVEL1_RETURN(sdsdot, N, alpha, X, incX, Y, incY);
}
double cblas_dsdot(const int N, const float *X, const int incX, const float *Y,
                   const int incY) {
  EXO2BLAS_LEVEL1_RETURN(dsdot, N, X, incX, Y, incY);
}
float cblas_sasum(const int N, const float *X, const int incX) {
  EXO2BLAS_LEVEL1_RETURN(sasum, N, X, incX);
}
double cblas_dasum(const int N, const double *X, const int incX) {
  EXO2BLAS_LEVEL1_RETURN(dasum, N, X, incX);
}
float cblas_snrm2(const int N, const float *X, const int incX) {
  EXO2BLAS_LEVEL1_RETURN(snrm2, N, X, incX);
}
double cblas_dnrm2(const int N, const double *X, const int incX) {
  EXO2BLAS_LEVEL1_RETURN(dnrm2, N, X, incX);
}
CBLAS_INDEX cblas_isamax(const int N, const float *X, const int incX) {
  EXO2BLAS_LEVEL1_RETURN(isamax, N, X, incX);
}
CBLAS_INDEX cblas_idamax(const int N, const double *X, const int incX) {
  EXO2BLAS_LEVEL1_RETURN(idamax, N, X, incX);
}
void cblas_saxpy(const int N, const float alpha, const float *X, const int incX,
                 float *Y, const int incY) {
  EXO2BLAS_LEVEL1_CALL(saxpy, N, alpha, X, incX, Y, incY);
}
void cblas_daxpy(const int N, const double alpha, const double *X,
                 const int incX, double *Y, const int incY) {
  EXO2BLAS_LEVEL1_CALL(daxpy, N, alpha, X, incX, Y, incY);
}
void cblas_scopy(const int N, const float *X, const int incX, float *Y,
                 const int incY) {
  EXO2BLAS_LEVEL1_CALL(scopy, N, X, incX, Y, incY);
}
void cblas_dcopy(const int N, const double *X, const int incX, double *Y,
                 const int incY) {
  EXO2BLAS_LEVEL1_CALL(dcopy, N, X, incX, Y, incY);
}
void cblas_sswap(const int N, float *X, const int incX, float *Y,
                 const int incY) {
  EXO2BLAS_LEVEL1_CALL(sswap, N, X, incX, Y, incY);
}
void cblas_dswap(const int N, double *X, const int incX, double *Y,
                 const int incY) {
  EXO2BLAS_LEVEL1_CALL(dswap, N, X, incX, Y, incY);
}
void cblas_sscal(const int N, const float alpha, float *X, const int incX) {
  EXO2BLAS_LEVEL1_CALL(sscal, N, alpha, X, incX);
}
void cblas_dscal(const int N, const double alpha, double *X, const int incX) {
  EXO2BLAS_LEVEL1_CALL(dscal, N, alpha, X, incX);
}
void cblas_srot(const int N, float *X, const int incX, float *Y, const int incY,
                const float c, const float s) {
  EXO2BLAS_LEVEL1_CALL(srot, N, X, incX, Y, incY, c, s);
}
void cblas_drot(const int N, double *X, const int incX, double *Y,
                const int incY, const double c, const double s) {
  EXO2BLAS_LEVEL1_CALL(drot, N, X, incX, Y, incY, c, s);
}
void cblas_srotm(const int N, float *X, const int incX, float *Y,
                 const int incY, const float *P) {
  EXO2BLAS_LEVEL1_CALL(srotm, N, X, incX, Y, incY, P);
}
void cblas_drotm(const int N, double *X, const int incX, double *Y,
                 const int incY, const double *P) {
  EXO2BLAS_LEVEL1_CALL(drotm, N, X, incX, Y, incY, P);
}

#define ALIAS(name)                               \
  extern __typeof__(cblas_##name) exo2blas_##name \
      __attribute__((alias("cblas_" #name)));
EXO2BLAS_LEVEL1_ROUTINES(ALIAS)
