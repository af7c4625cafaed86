/* Level 2 of the CBLAS layer: each exported routine calls the active
 * ISA's (level2_isa.inc, which inlines its kernels), and its exo2blas_
 * alias. */
#include "routine_tables.h"

void cblas_sgemv(const CBLAS_LAYOUT layout, const CBLAS_TRANSPOSE TransA,
                 const int M, const int N, const float alpha, const float *A,
                 const int lda, const float *X, const int incX,
                 const float beta, float *Y, const int incY) {
  EXO2BLAS_CALL(level2, sgemv, layout, TransA, M, N, alpha, A, lda, X, incX,
                beta, Y, incY);
}

void cblas_dgemv(const CBLAS_LAYOUT layout, const CBLAS_TRANSPOSE TransA,
                 const int M, const int N, const double alpha, const double *A,
                 const int lda, const double *X, const int incX,
                 const double beta, double *Y, const int incY) {
  EXO2BLAS_CALL(level2, dgemv, layout, TransA, M, N, alpha, A, lda, X, incX,
                beta, Y, incY);
}

void cblas_sgbmv(const CBLAS_LAYOUT layout, const CBLAS_TRANSPOSE TransA,
                 const int M, const int N, const int KL, const int KU,
                 const float alpha, const float *A, const int lda,
                 const float *X, const int incX, const float beta, float *Y,
                 const int incY) {
  EXO2BLAS_CALL(level2, sgbmv, layout, TransA, M, N, KL, KU, alpha, A, lda, X,
                incX, beta, Y, incY);
}

void cblas_dgbmv(const CBLAS_LAYOUT layout, const CBLAS_TRANSPOSE TransA,
                 const int M, const int N, const int KL, const int KU,
                 const double alpha, const double *A, const int lda,
                 const double *X, const int incX, const double beta, double *Y,
                 const int incY) {
  EXO2BLAS_CALL(level2, dgbmv, layout, TransA, M, N, KL, KU, alpha, A, lda, X,
                incX, beta, Y, incY);
}

void cblas_sger(const CBLAS_LAYOUT layout, const int M, const int N,
                const float alpha, const float *X, const int incX,
                const float *Y, const int incY, float *A, const int lda) {
  EXO2BLAS_CALL(level2, sger, layout, M, N, alpha, X, incX, Y, incY, A, lda);
}

void cblas_dger(const CBLAS_LAYOUT layout, const int M, const int N,
                const double alpha, const double *X, const int incX,
                const double *Y, const int incY, double *A, const int lda) {
  EXO2BLAS_CALL(level2, dger, layout, M, N, alpha, X, incX, Y, incY, A, lda);
}

void cblas_ssymv(const CBLAS_LAYOUT layout, const CBLAS_UPLO Uplo, const int N,
                 const float alpha, const float *A, const int lda,
                 const float *X, const int incX, const float beta, float *Y,
                 const int incY) {
  EXO2BLAS_CALL(level2, ssymv, layout, Uplo, N, alpha, A, lda, X, incX, beta, Y,
                incY);
}

void cblas_dsymv(const CBLAS_LAYOUT layout, const CBLAS_UPLO Uplo, const int N,
                 const double alpha, const double *A, const int lda,
                 const double *X, const int incX, const double beta, double *Y,
                 const int incY) {
  EXO2BLAS_CALL(level2, dsymv, layout, Uplo, N, alpha, A, lda, X, incX, beta, Y,
                incY);
}

void cblas_ssbmv(const CBLAS_LAYOUT layout, const CBLAS_UPLO Uplo, const int N,
                 const int K, const float alpha, const float *A, const int lda,
                 const float *X, const int incX, const float beta, float *Y,
                 const int incY) {
  EXO2BLAS_CALL(level2, ssbmv, layout, Uplo, N, K, alpha, A, lda, X, incX, beta,
                Y, incY);
}

void cblas_dsbmv(const CBLAS_LAYOUT layout, const CBLAS_UPLO Uplo, const int N,
                 const int K, const double alpha, const double *A,
                 const int lda, const double *X, const int incX,
                 const double beta, double *Y, const int incY) {
  EXO2BLAS_CALL(level2, dsbmv, layout, Uplo, N, K, alpha, A, lda, X, incX, beta,
                Y, incY);
}

void cblas_ssyr(const CBLAS_LAYOUT layout, const CBLAS_UPLO Uplo, const int N,
                const float alpha, const float *X, const int incX, float *A,
                const int lda) {
  EXO2BLAS_CALL(level2, ssyr, layout, Uplo, N, alpha, X, incX, A, lda);
}

void cblas_dsyr(const CBLAS_LAYOUT layout, const CBLAS_UPLO Uplo, const int N,
                const double alpha, const double *X, const int incX, double *A,
                const int lda) {
  EXO2BLAS_CALL(level2, dsyr, layout, Uplo, N, alpha, X, incX, A, lda);
}

void cblas_ssyr2(const CBLAS_LAYOUT layout, const CBLAS_UPLO Uplo, const int N,
                 const float alpha, const float *X, const int incX,
                 const float *Y, const int incY, float *A, const int lda) {
  EXO2BLAS_CALL(level2, ssyr2, layout, Uplo, N, alpha, X, incX, Y, incY, A,
                lda);
}

void cblas_dsyr2(const CBLAS_LAYOUT layout, const CBLAS_UPLO Uplo, const int N,
                 const double alpha, const double *X, const int incX,
                 const double *Y, const int incY, double *A, const int lda) {
  EXO2BLAS_CALL(level2, dsyr2, layout, Uplo, N, alpha, X, incX, Y, incY, A,
                lda);
}

void cblas_strmv(const CBLAS_LAYOUT layout, const CBLAS_UPLO Uplo,
                 const CBLAS_TRANSPOSE TransA, const CBLAS_DIAG Diag,
                 const int N, const float *A, const int lda, float *X,
                 const int incX) {
  EXO2BLAS_CALL(level2, strmv, layout, Uplo, TransA, Diag, N, A, lda, X, incX);
}

void cblas_dtrmv(const CBLAS_LAYOUT layout, const CBLAS_UPLO Uplo,
                 const CBLAS_TRANSPOSE TransA, const CBLAS_DIAG Diag,
                 const int N, const double *A, const int lda, double *X,
                 const int incX) {
  EXO2BLAS_CALL(level2, dtrmv, layout, Uplo, TransA, Diag, N, A, lda, X, incX);
}

void cblas_strsv(const CBLAS_LAYOUT layout, const CBLAS_UPLO Uplo,
                 const CBLAS_TRANSPOSE TransA, const CBLAS_DIAG Diag,
                 const int N, const float *A, const int lda, float *X,
                 const int incX) {
  EXO2BLAS_CALL(level2, strsv, layout, Uplo, TransA, Diag, N, A, lda, X, incX);
}

void cblas_dtrsv(const CBLAS_LAYOUT layout, const CBLAS_UPLO Uplo,
                 const CBLAS_TRANSPOSE TransA, const CBLAS_DIAG Diag,
                 const int N, const double *A, const int lda, double *X,
                 const int incX) {
  EXO2BLAS_CALL(level2, dtrsv, layout, Uplo, TransA, Diag, N, A, lda, X, incX);
}

void cblas_stbmv(const CBLAS_LAYOUT layout, const CBLAS_UPLO Uplo,
                 const CBLAS_TRANSPOSE TransA, const CBLAS_DIAG Diag,
                 const int N, const int K, const float *A, const int lda,
                 float *X, const int incX) {
  EXO2BLAS_CALL(level2, stbmv, layout, Uplo, TransA, Diag, N, K, A, lda, X,
                incX);
}

void cblas_dtbmv(const CBLAS_LAYOUT layout, const CBLAS_UPLO Uplo,
                 const CBLAS_TRANSPOSE TransA, const CBLAS_DIAG Diag,
                 const int N, const int K, const double *A, const int lda,
                 double *X, const int incX) {
  EXO2BLAS_CALL(level2, dtbmv, layout, Uplo, TransA, Diag, N, K, A, lda, X,
                incX);
}

void cblas_stbsv(const CBLAS_LAYOUT layout, const CBLAS_UPLO Uplo,
                 const CBLAS_TRANSPOSE TransA, const CBLAS_DIAG Diag,
                 const int N, const int K, const float *A, const int lda,
                 float *X, const int incX) {
  EXO2BLAS_CALL(level2, stbsv, layout, Uplo, TransA, Diag, N, K, A, lda, X,
                incX);
}

void cblas_dtbsv(const CBLAS_LAYOUT layout, const CBLAS_UPLO Uplo,
                 const CBLAS_TRANSPOSE TransA, const CBLAS_DIAG Diag,
                 const int N, const int K, const double *A, const int lda,
                 double *X, const int incX) {
  EXO2BLAS_CALL(level2, dtbsv, layout, Uplo, TransA, Diag, N, K, A, lda, X,
                incX);
}

#define ALIAS(name)                               \
  extern __typeof__(cblas_##name) exo2blas_##name \
      __attribute__((alias("cblas_" #name)));
EXO2BLAS_LEVEL2_ROUTINES(ALIAS)
