/* The CBLAS interface of libexo2blas: the prototypes of the C interface to
 * the BLAS (netlib's CBLAS) for every real routine the library exports,
 * with netlib's enum values, `int` sizes (LP64) and `CBLAS_INDEX` for the
 * i?amax results, so that code written for any CBLAS compiles and links
 * against it unchanged. Every routine is also exported as exo2blas_<name>
 * (declared below), to share a process with another CBLAS. Needs GCC or
 * Clang (the aliases are declared with __typeof__).
 *
 * Not provided (see benchmarks/blas/README.md): complex routines, packed
 * storage (?spmv, ?tpmv, ?tpsv, ?spr, ?spr2) and the Fortran interface.
 */
#ifndef EXO2BLAS_CBLAS_H
#define EXO2BLAS_CBLAS_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define CBLAS_INDEX size_t

typedef enum CBLAS_LAYOUT {
  CblasRowMajor = 101,
  CblasColMajor = 102
} CBLAS_LAYOUT;
typedef enum CBLAS_TRANSPOSE {
  CblasNoTrans = 111,
  CblasTrans = 112,
  CblasConjTrans = 113
} CBLAS_TRANSPOSE;
typedef enum CBLAS_UPLO { CblasUpper = 121, CblasLower = 122 } CBLAS_UPLO;
typedef enum CBLAS_DIAG { CblasNonUnit = 131, CblasUnit = 132 } CBLAS_DIAG;
typedef enum CBLAS_SIDE { CblasLeft = 141, CblasRight = 142 } CBLAS_SIDE;
typedef CBLAS_LAYOUT CBLAS_ORDER; /* the older name */

/* Level 1 */
float cblas_sdsdot(const int N, const float alpha, const float *X,
                   const int incX, const float *Y, const int incY);
double cblas_dsdot(const int N, const float *X, const int incX, const float *Y,
                   const int incY);
float cblas_sdot(const int N, const float *X, const int incX, const float *Y,
                 const int incY);
double cblas_ddot(const int N, const double *X, const int incX, const double *Y,
                  const int incY);
float cblas_snrm2(const int N, const float *X, const int incX);
float cblas_sasum(const int N, const float *X, const int incX);
double cblas_dnrm2(const int N, const double *X, const int incX);
double cblas_dasum(const int N, const double *X, const int incX);
CBLAS_INDEX cblas_isamax(const int N, const float *X, const int incX);
CBLAS_INDEX cblas_idamax(const int N, const double *X, const int incX);

void cblas_sswap(const int N, float *X, const int incX, float *Y,
                 const int incY);
void cblas_scopy(const int N, const float *X, const int incX, float *Y,
                 const int incY);
void cblas_saxpy(const int N, const float alpha, const float *X, const int incX,
                 float *Y, const int incY);
void cblas_dswap(const int N, double *X, const int incX, double *Y,
                 const int incY);
void cblas_dcopy(const int N, const double *X, const int incX, double *Y,
                 const int incY);
void cblas_daxpy(const int N, const double alpha, const double *X,
                 const int incX, double *Y, const int incY);

void cblas_srotg(float *a, float *b, float *c, float *s);
void cblas_srotmg(float *d1, float *d2, float *b1, const float b2, float *P);
void cblas_srot(const int N, float *X, const int incX, float *Y, const int incY,
                const float c, const float s);
void cblas_srotm(const int N, float *X, const int incX, float *Y,
                 const int incY, const float *P);
void cblas_drotg(double *a, double *b, double *c, double *s);
void cblas_drotmg(double *d1, double *d2, double *b1, const double b2,
                  double *P);
void cblas_drot(const int N, double *X, const int incX, double *Y,
                const int incY, const double c, const double s);
void cblas_drotm(const int N, double *X, const int incX, double *Y,
                 const int incY, const double *P);

void cblas_sscal(const int N, const float alpha, float *X, const int incX);
void cblas_dscal(const int N, const double alpha, double *X, const int incX);

/* Level 2 */
void cblas_sgemv(const CBLAS_LAYOUT layout, const CBLAS_TRANSPOSE TransA,
                 const int M, const int N, const float alpha, const float *A,
                 const int lda, const float *X, const int incX,
                 const float beta, float *Y, const int incY);
void cblas_sgbmv(const CBLAS_LAYOUT layout, const CBLAS_TRANSPOSE TransA,
                 const int M, const int N, const int KL, const int KU,
                 const float alpha, const float *A, const int lda,
                 const float *X, const int incX, const float beta, float *Y,
                 const int incY);
void cblas_strmv(const CBLAS_LAYOUT layout, const CBLAS_UPLO Uplo,
                 const CBLAS_TRANSPOSE TransA, const CBLAS_DIAG Diag,
                 const int N, const float *A, const int lda, float *X,
                 const int incX);
void cblas_stbmv(const CBLAS_LAYOUT layout, const CBLAS_UPLO Uplo,
                 const CBLAS_TRANSPOSE TransA, const CBLAS_DIAG Diag,
                 const int N, const int K, const float *A, const int lda,
                 float *X, const int incX);
void cblas_strsv(const CBLAS_LAYOUT layout, const CBLAS_UPLO Uplo,
                 const CBLAS_TRANSPOSE TransA, const CBLAS_DIAG Diag,
                 const int N, const float *A, const int lda, float *X,
                 const int incX);
void cblas_stbsv(const CBLAS_LAYOUT layout, const CBLAS_UPLO Uplo,
                 const CBLAS_TRANSPOSE TransA, const CBLAS_DIAG Diag,
                 const int N, const int K, const float *A, const int lda,
                 float *X, const int incX);
void cblas_ssymv(const CBLAS_LAYOUT layout, const CBLAS_UPLO Uplo, const int N,
                 const float alpha, const float *A, const int lda,
                 const float *X, const int incX, const float beta, float *Y,
                 const int incY);
void cblas_ssbmv(const CBLAS_LAYOUT layout, const CBLAS_UPLO Uplo, const int N,
                 const int K, const float alpha, const float *A, const int lda,
                 const float *X, const int incX, const float beta, float *Y,
                 const int incY);
void cblas_sger(const CBLAS_LAYOUT layout, const int M, const int N,
                const float alpha, const float *X, const int incX,
                const float *Y, const int incY, float *A, const int lda);
void cblas_ssyr(const CBLAS_LAYOUT layout, const CBLAS_UPLO Uplo, const int N,
                const float alpha, const float *X, const int incX, float *A,
                const int lda);
void cblas_ssyr2(const CBLAS_LAYOUT layout, const CBLAS_UPLO Uplo, const int N,
                 const float alpha, const float *X, const int incX,
                 const float *Y, const int incY, float *A, const int lda);

void cblas_dgemv(const CBLAS_LAYOUT layout, const CBLAS_TRANSPOSE TransA,
                 const int M, const int N, const double alpha, const double *A,
                 const int lda, const double *X, const int incX,
                 const double beta, double *Y, const int incY);
void cblas_dgbmv(const CBLAS_LAYOUT layout, const CBLAS_TRANSPOSE TransA,
                 const int M, const int N, const int KL, const int KU,
                 const double alpha, const double *A, const int lda,
                 const double *X, const int incX, const double beta, double *Y,
                 const int incY);
void cblas_dtrmv(const CBLAS_LAYOUT layout, const CBLAS_UPLO Uplo,
                 const CBLAS_TRANSPOSE TransA, const CBLAS_DIAG Diag,
                 const int N, const double *A, const int lda, double *X,
                 const int incX);
void cblas_dtbmv(const CBLAS_LAYOUT layout, const CBLAS_UPLO Uplo,
                 const CBLAS_TRANSPOSE TransA, const CBLAS_DIAG Diag,
                 const int N, const int K, const double *A, const int lda,
                 double *X, const int incX);
void cblas_dtrsv(const CBLAS_LAYOUT layout, const CBLAS_UPLO Uplo,
                 const CBLAS_TRANSPOSE TransA, const CBLAS_DIAG Diag,
                 const int N, const double *A, const int lda, double *X,
                 const int incX);
void cblas_dtbsv(const CBLAS_LAYOUT layout, const CBLAS_UPLO Uplo,
                 const CBLAS_TRANSPOSE TransA, const CBLAS_DIAG Diag,
                 const int N, const int K, const double *A, const int lda,
                 double *X, const int incX);
void cblas_dsymv(const CBLAS_LAYOUT layout, const CBLAS_UPLO Uplo, const int N,
                 const double alpha, const double *A, const int lda,
                 const double *X, const int incX, const double beta, double *Y,
                 const int incY);
void cblas_dsbmv(const CBLAS_LAYOUT layout, const CBLAS_UPLO Uplo, const int N,
                 const int K, const double alpha, const double *A,
                 const int lda, const double *X, const int incX,
                 const double beta, double *Y, const int incY);
void cblas_dger(const CBLAS_LAYOUT layout, const int M, const int N,
                const double alpha, const double *X, const int incX,
                const double *Y, const int incY, double *A, const int lda);
void cblas_dsyr(const CBLAS_LAYOUT layout, const CBLAS_UPLO Uplo, const int N,
                const double alpha, const double *X, const int incX, double *A,
                const int lda);
void cblas_dsyr2(const CBLAS_LAYOUT layout, const CBLAS_UPLO Uplo, const int N,
                 const double alpha, const double *X, const int incX,
                 const double *Y, const int incY, double *A, const int lda);

/* Level 3 */
void cblas_sgemm(const CBLAS_LAYOUT layout, const CBLAS_TRANSPOSE TransA,
                 const CBLAS_TRANSPOSE TransB, const int M, const int N,
                 const int K, const float alpha, const float *A, const int lda,
                 const float *B, const int ldb, const float beta, float *C,
                 const int ldc);
void cblas_ssymm(const CBLAS_LAYOUT layout, const CBLAS_SIDE Side,
                 const CBLAS_UPLO Uplo, const int M, const int N,
                 const float alpha, const float *A, const int lda,
                 const float *B, const int ldb, const float beta, float *C,
                 const int ldc);
void cblas_ssyrk(const CBLAS_LAYOUT layout, const CBLAS_UPLO Uplo,
                 const CBLAS_TRANSPOSE Trans, const int N, const int K,
                 const float alpha, const float *A, const int lda,
                 const float beta, float *C, const int ldc);
void cblas_ssyr2k(const CBLAS_LAYOUT layout, const CBLAS_UPLO Uplo,
                  const CBLAS_TRANSPOSE Trans, const int N, const int K,
                  const float alpha, const float *A, const int lda,
                  const float *B, const int ldb, const float beta, float *C,
                  const int ldc);
void cblas_strmm(const CBLAS_LAYOUT layout, const CBLAS_SIDE Side,
                 const CBLAS_UPLO Uplo, const CBLAS_TRANSPOSE TransA,
                 const CBLAS_DIAG Diag, const int M, const int N,
                 const float alpha, const float *A, const int lda, float *B,
                 const int ldb);
void cblas_strsm(const CBLAS_LAYOUT layout, const CBLAS_SIDE Side,
                 const CBLAS_UPLO Uplo, const CBLAS_TRANSPOSE TransA,
                 const CBLAS_DIAG Diag, const int M, const int N,
                 const float alpha, const float *A, const int lda, float *B,
                 const int ldb);

void cblas_dgemm(const CBLAS_LAYOUT layout, const CBLAS_TRANSPOSE TransA,
                 const CBLAS_TRANSPOSE TransB, const int M, const int N,
                 const int K, const double alpha, const double *A,
                 const int lda, const double *B, const int ldb,
                 const double beta, double *C, const int ldc);
void cblas_dsymm(const CBLAS_LAYOUT layout, const CBLAS_SIDE Side,
                 const CBLAS_UPLO Uplo, const int M, const int N,
                 const double alpha, const double *A, const int lda,
                 const double *B, const int ldb, const double beta, double *C,
                 const int ldc);
void cblas_dsyrk(const CBLAS_LAYOUT layout, const CBLAS_UPLO Uplo,
                 const CBLAS_TRANSPOSE Trans, const int N, const int K,
                 const double alpha, const double *A, const int lda,
                 const double beta, double *C, const int ldc);
void cblas_dsyr2k(const CBLAS_LAYOUT layout, const CBLAS_UPLO Uplo,
                  const CBLAS_TRANSPOSE Trans, const int N, const int K,
                  const double alpha, const double *A, const int lda,
                  const double *B, const int ldb, const double beta, double *C,
                  const int ldc);
void cblas_dtrmm(const CBLAS_LAYOUT layout, const CBLAS_SIDE Side,
                 const CBLAS_UPLO Uplo, const CBLAS_TRANSPOSE TransA,
                 const CBLAS_DIAG Diag, const int M, const int N,
                 const double alpha, const double *A, const int lda, double *B,
                 const int ldb);
void cblas_dtrsm(const CBLAS_LAYOUT layout, const CBLAS_SIDE Side,
                 const CBLAS_UPLO Uplo, const CBLAS_TRANSPOSE TransA,
                 const CBLAS_DIAG Diag, const int M, const int N,
                 const double alpha, const double *A, const int lda, double *B,
                 const int ldb);

/* Every routine above under a second name, exo2blas_<name> (e.g.
 * exo2blas_sgemm), the same function. */
#define EXO2BLAS_ROUTINES(X)                                                   \
  X(sdsdot)                                                                    \
  X(dsdot) X(sdot) X(ddot) X(snrm2) X(dnrm2) X(sasum) X(dasum) X(isamax)       \
      X(idamax) X(sswap) X(dswap) X(scopy) X(dcopy) X(saxpy) X(daxpy) X(srotg) \
          X(drotg) X(srotmg) X(drotmg) X(srot) X(drot) X(srotm) X(drotm)       \
              X(sscal) X(dscal) X(sgemv) X(dgemv) X(sgbmv) X(dgbmv) X(strmv)   \
                  X(dtrmv) X(stbmv) X(dtbmv) X(strsv) X(dtrsv) X(stbsv)        \
                      X(dtbsv) X(ssymv) X(dsymv) X(ssbmv) X(dsbmv) X(sger)     \
                          X(dger) X(ssyr) X(dsyr) X(ssyr2) X(dsyr2) X(sgemm)   \
                              X(dgemm) X(ssymm) X(dsymm) X(ssyrk) X(dsyrk)     \
                                  X(ssyr2k) X(dsyr2k) X(strmm) X(dtrmm)        \
                                      X(strsm) X(dtrsm)
#define EXO2BLAS_DECLARE_ALIAS(name) \
  extern __typeof__(cblas_##name) exo2blas_##name;
EXO2BLAS_ROUTINES(EXO2BLAS_DECLARE_ALIAS)
#undef EXO2BLAS_DECLARE_ALIAS

/* Called with the 1-based position of the first invalid argument (the
 * layout is argument 1) and the routine's name, as netlib's CBLAS does.
 * The library's definition is weak: define your own to handle errors. The
 * default prints the message to stderr and returns; the routine then
 * returns without computing. */
void cblas_xerbla(int p, const char *rout, const char *form, ...);

/* The ISA the library dispatches to: "avx512" or "avx2" (the widest the
 * CPU runs, or $EXO2BLAS_ISA). */
const char *exo2blas_isa(void);

#ifdef __cplusplus
}
#endif

#endif
