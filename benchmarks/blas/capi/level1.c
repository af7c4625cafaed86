/* Level 1 of the CBLAS layer: each exported routine calls the active
 * ISA's (level1_isa.inc, which inlines its kernels), and its exo2blas_
 * alias. */
#include "routine_tables.h"

float cblas_sdot(const int N, const float *X, const int incX, const float *Y,
                 const int incY) {
  EXO2BLAS_RETURN(level1, sdot, N, X, incX, Y, incY);
}
double cblas_ddot(const int N, const double *X, const int incX, const double *Y,
                  const int incY) {
  EXO2BLAS_RETURN(level1, ddot, N, X, incX, Y, incY);
}
float cblas_sdsdot(const int N, const float alpha, const float *X,
                   const int incX, const float *Y, const int incY) {
  EXO2BLAS_RETURN(level1, sdsdot, N, alpha, X, incX, Y, incY);
}
double cblas_dsdot(const int N, const float *X, const int incX, const float *Y,
                   const int incY) {
  EXO2BLAS_RETURN(level1, dsdot, N, X, incX, Y, incY);
}
float cblas_sasum(const int N, const float *X, const int incX) {
  EXO2BLAS_RETURN(level1, sasum, N, X, incX);
}
double cblas_dasum(const int N, const double *X, const int incX) {
  EXO2BLAS_RETURN(level1, dasum, N, X, incX);
}
float cblas_snrm2(const int N, const float *X, const int incX) {
  EXO2BLAS_RETURN(level1, snrm2, N, X, incX);
}
double cblas_dnrm2(const int N, const double *X, const int incX) {
  EXO2BLAS_RETURN(level1, dnrm2, N, X, incX);
}
CBLAS_INDEX cblas_isamax(const int N, const float *X, const int incX) {
  EXO2BLAS_RETURN(level1, isamax, N, X, incX);
}
CBLAS_INDEX cblas_idamax(const int N, const double *X, const int incX) {
  EXO2BLAS_RETURN(level1, idamax, N, X, incX);
}
void cblas_saxpy(const int N, const float alpha, const float *X, const int incX,
                 float *Y, const int incY) {
  EXO2BLAS_CALL(level1, saxpy, N, alpha, X, incX, Y, incY);
}
void cblas_daxpy(const int N, const double alpha, const double *X,
                 const int incX, double *Y, const int incY) {
  EXO2BLAS_CALL(level1, daxpy, N, alpha, X, incX, Y, incY);
}
void cblas_scopy(const int N, const float *X, const int incX, float *Y,
                 const int incY) {
  EXO2BLAS_CALL(level1, scopy, N, X, incX, Y, incY);
}
void cblas_dcopy(const int N, const double *X, const int incX, double *Y,
                 const int incY) {
  EXO2BLAS_CALL(level1, dcopy, N, X, incX, Y, incY);
}
void cblas_sswap(const int N, float *X, const int incX, float *Y,
                 const int incY) {
  EXO2BLAS_CALL(level1, sswap, N, X, incX, Y, incY);
}
void cblas_dswap(const int N, double *X, const int incX, double *Y,
                 const int incY) {
  EXO2BLAS_CALL(level1, dswap, N, X, incX, Y, incY);
}
void cblas_sscal(const int N, const float alpha, float *X, const int incX) {
  EXO2BLAS_CALL(level1, sscal, N, alpha, X, incX);
}
void cblas_dscal(const int N, const double alpha, double *X, const int incX) {
  EXO2BLAS_CALL(level1, dscal, N, alpha, X, incX);
}
void cblas_srot(const int N, float *X, const int incX, float *Y, const int incY,
                const float c, const float s) {
  EXO2BLAS_CALL(level1, srot, N, X, incX, Y, incY, c, s);
}
void cblas_drot(const int N, double *X, const int incX, double *Y,
                const int incY, const double c, const double s) {
  EXO2BLAS_CALL(level1, drot, N, X, incX, Y, incY, c, s);
}
void cblas_srotm(const int N, float *X, const int incX, float *Y,
                 const int incY, const float *P) {
  EXO2BLAS_CALL(level1, srotm, N, X, incX, Y, incY, P);
}
void cblas_drotm(const int N, double *X, const int incX, double *Y,
                 const int incY, const double *P) {
  EXO2BLAS_CALL(level1, drotm, N, X, incX, Y, incY, P);
}

#define ALIAS(name)                               \
  extern __typeof__(cblas_##name) exo2blas_##name \
      __attribute__((alias("cblas_" #name)));
EXO2BLAS_LEVEL1_ROUTINES(ALIAS)
