/* Which kernel each level-2 CBLAS routine calls (capi/level2.inc): the
 * routines compiled here with every kernel replaced by a stub that records
 * its name, and called on both sides of the skinny thresholds in both
 * layouts. The library inlines its kernels into the routines
 * (capi/level2_isa.inc), so this is where the choice can be observed;
 * abi_test checks the results.
 *
 * gemv and ger call `_skinny` when the row-major problem's short dimension
 * (gemv NoTrans's and ger's rows, gemv Trans's outputs) is at most the
 * ISA's threshold and the increments are 1, `_stride_1` otherwise, and
 * `_stride_any` for other increments (one column with lda 1 is the other
 * transposition's one row); ger and gemv NoTrans call `_large`
 * instead of `_stride_1` for a matrix of exo2blas_past_cache_bytes or more
 * (fixed here at 12 MiB), ger only with its rows at most
 * exo2blas_large_ld_bytes apart; syr calls `_large` for a triangle of
 * three quarters of exo2blas_past_cache_bytes or more, its rows as close.
 * symv calls `_short` for rows of at
 * most 2 KiB with increments 1. sbmv calls symv's kernels where its band
 * holds the whole triangle (k >= n - 1), its own otherwise. tbmv calls
 * `_diagonals` for the row-major problem's Trans with increment 1 and a
 * band of at most 24 (stbmv) or 16 (dtbmv) off-diagonals. trmv and trsv
 * call `_short` (AVX2's vectors) when compiled for AVX-512 with increment
 * 1 and rows of at most 1 KiB
 * (TRIANGLE_SHORT_BYTES); the test is built once more with the library's
 * AVX-512 flags to see it (level2_dispatch_avx512, skipped where the CPU
 * lacks AVX-512). Exit status 0 when every call chose as expected, 1
 * otherwise, 77 for the AVX-512 build on a CPU without it. */
#include <stdio.h>
#include <string.h>

#include "internal.h"

/* The library sets it from the largest cache when it loads
 * (copy_thresholds.c); the routines here read this one. */
size_t exo2blas_past_cache_bytes = (size_t)12 << 20;
/* isa.c sets it per CPU; CHECK_GER_LARGE and CHECK_SYR_LARGE try both
 * values. */
size_t exo2blas_large_ld_bytes = 8192;

static const char *called; /* the last kernel's name, without precision */
static void record(const char *name) { called = name; }
static void stub(void *ctxt, ...) { (void)ctxt; }

#define ROUTINE static __attribute__((unused))
#define KN(x) (record(#x), stub)

#define T float
#define WIN1 struct exo_win_1f32
#define WIN1C struct exo_win_1f32c
#define WIN2 struct exo_win_2f32
#define WIN2C struct exo_win_2f32c
#define FN(x) test_s##x
#define NAME(x) cblas_s##x
#define SKINNY (exo2blas_kernels_avx2.sskinny)
#define LOCAL(x) s_##x
#include "level2.inc"
#undef T
#undef WIN1
#undef WIN1C
#undef WIN2
#undef WIN2C
#undef FN
#undef NAME
#undef SKINNY
#undef LOCAL

#define T double
#define WIN1 struct exo_win_1f64
#define WIN1C struct exo_win_1f64c
#define WIN2 struct exo_win_2f64
#define WIN2C struct exo_win_2f64c
#define FN(x) test_d##x
#define NAME(x) cblas_d##x
#define SKINNY (exo2blas_kernels_avx2.dskinny)
#define LOCAL(x) d_##x
#include "level2.inc"

static int failures;

static void expect(const char *want, const char *what, int rows, int cols,
                   int layout, int inc) {
  if (called && strcmp(called, want) == 0) return;
  printf("FAIL %s %d x %d, %s, increments %d: called %s, expected %s\n", what,
         rows, cols, layout == CblasRowMajor ? "row-major" : "column-major",
         inc, called ? called : "nothing", want);
  failures++;
}

/* The kernel that `kernel` (gemv_n, gemv_t, ger) should be: `short_` is
 * the row-major problem's short dimension, its columns. */
static const char *choice(const char *kernel, int short_, int top, int inc) {
  static char name[64];
  snprintf(name, sizeof name, "%s_%s", kernel,
           inc != 1        ? "stride_any"
           : short_ <= top ? "skinny"
                           : "stride_1");
  return name;
}

#define CHECK_PRECISION(P, T, TOP)                                            \
  for (int s = 0; s < nsides; s++)                                            \
    for (int wide = 0; wide < 2; wide++)                                      \
      for (int l = 0; l < 2; l++)                                             \
        for (int inc = 1; inc <= 2; inc++) {                                  \
          const int layout = l ? CblasColMajor : CblasRowMajor;               \
          const int rows = wide ? 5 : sides[s], cols = wide ? sides[s] : 5;   \
          /* the row-major problem: a column-major A is its transpose */      \
          const int c = l ? rows : cols;                                      \
          static T A[512 * 512], x[1024], y[1024];                            \
          const int lda = l ? rows : cols;                                    \
          for (int t = 0; t < 2; t++) {                                       \
            called = NULL;                                                    \
            test_##P##gemv(layout, t ? CblasTrans : CblasNoTrans, rows, cols, \
                           1, A, lda, x, inc, 1, y, inc);                     \
            /* row-major: NoTrans is gemv_n; a transposed A swaps them */     \
            const int trans = t != l;                                         \
            expect(choice(trans ? "gemv_t" : "gemv_n", c, TOP, inc),          \
                   #P "gemv", rows, cols, layout, inc);                       \
          }                                                                   \
          called = NULL;                                                      \
          test_##P##ger(layout, rows, cols, 1, x, inc, y, inc, A, lda);       \
          expect(choice("ger", c, TOP, inc), #P "ger", rows, cols, layout,    \
                 inc);                                                        \
        }

/* sbmv of n = 6 in both layouts and triangles, with bands narrower than,
 * as wide as and wider than the triangle. */
static void check_sbmv(void) {
  static float A[64], x[8], y[8];
  for (int k = 3; k <= 7; k++)
    for (int l = 0; l < 2; l++)
      for (int u = 0; u < 2; u++) {
        const int layout = l ? CblasColMajor : CblasRowMajor;
        const int uplo = u ? CblasUpper : CblasLower;
        called = NULL;
        test_ssbmv(layout, uplo, 6, k, 1, A, k + 1, x, 1, 1, y, 1);
        /* the row-major problem's triangle: column-major flips it */
        const char *half = (u != l) ? "u" : "l";
        char want[32];
        snprintf(want, sizeof want, "%s_%s_%s", k >= 5 ? "symv" : "sbmv", half,
                 k >= 5 ? "short" : "stride_1");
        expect(want, "ssbmv (n x k)", 6, k, layout, 1);
      }
}

/* symv on both sides of SYMV_SHORT_BYTES (2048) in both precisions,
 * layouts and triangles, with increments 1 and 2. */
#define CHECK_SYMV(P, T)                                                     \
  for (int big = 0; big < 2; big++)                                          \
    for (int l = 0; l < 2; l++)                                              \
      for (int u = 0; u < 2; u++)                                            \
        for (int inc = 1; inc <= 2; inc++) {                                 \
          static T A[1], x[1], y[1];                                         \
          const int n = 2048 / (int)sizeof(T) + big;                         \
          const int layout = l ? CblasColMajor : CblasRowMajor;              \
          called = NULL;                                                     \
          test_##P##symv(layout, u ? CblasUpper : CblasLower, n, 1, A, n, x, \
                         inc, 1, y, inc);                                    \
          char want[32];                                                     \
          snprintf(want, sizeof want, "symv_%s_%s", (u != l) ? "u" : "l",    \
                   inc != 1 ? "stride_any"                                   \
                   : big    ? "stride_1"                                     \
                            : "short");                                         \
          expect(want, #P "symv (n x n)", n, n, layout, inc);                \
        }

/* gemv of one column with lda 1 (row-major long x 1, column-major 1 x
 * long), both transpositions, increments 1 and 2: the other transposition's
 * kernel for the 1 x long row-major matrix it is. */
#define CHECK_GEMV_ONE_COLUMN(P, T, TOP)                                       \
  for (int s = 0; s < nsides; s++)                                             \
    for (int l = 0; l < 2; l++)                                                \
      for (int t = 0; t < 2; t++)                                              \
        for (int inc = 1; inc <= 2; inc++) {                                   \
          static T A[1024], x[1024], y[1024];                                  \
          const int layout = l ? CblasColMajor : CblasRowMajor;                \
          const int M = l ? 1 : sides[s], N = l ? sides[s] : 1;                \
          called = NULL;                                                       \
          test_##P##gemv(layout, t ? CblasTrans : CblasNoTrans, M, N, 1, A, 1, \
                         x, inc, 1, y, inc);                                   \
          const int trans = t != l; /* of the long x 1 row-major matrix */     \
          expect(choice(trans ? "gemv_n" : "gemv_t", sides[s], TOP, inc),      \
                 #P "gemv (one column)", M, N, layout, inc);                   \
        }

/* ger on both sides of exo2blas_past_cache_bytes in both precisions and
 * layouts, with increments 1 and 2, rows of exactly
 * exo2blas_large_ld_bytes (8 or 16 KiB) or one element longer:
 * `_large` from the bound on with increments 1 and the shorter rows. The
 * stubs read no element, so A can be smaller than its shape. */
#define CHECK_GER_LARGE(P, T)                                           \
  for (size_t ld = 8192; ld <= 16384; ld *= 2)                          \
    for (int big = 0; big < 2; big++)                                   \
      for (int far = 0; far < 2; far++)                                 \
        for (int l = 0; l < 2; l++)                                     \
          for (int inc = 1; inc <= 2; inc++) {                          \
            static T A[1], x[1], y[1];                                  \
            exo2blas_large_ld_bytes = ld;                               \
            const int cols = (int)(ld / sizeof(T)) + far;               \
            const size_t past = exo2blas_past_cache_bytes / sizeof(T);  \
            const int rows = (int)((past + cols - 1) / cols) - 1 + big; \
            const int layout = l ? CblasColMajor : CblasRowMajor;       \
            const int M = l ? cols : rows, N = l ? rows : cols;         \
            called = NULL;                                              \
            test_##P##ger(layout, M, N, 1, x, inc, y, inc, A, cols);    \
            expect(inc != 1      ? "ger_stride_any"                     \
                   : big && !far ? "ger_large"                          \
                                 : "ger_stride_1",                      \
                   #P "ger (m x n)", M, N, layout, inc);                \
          }

/* syr of n = N0 - 1 and N0 rows, N0 the fewest whose triangle (n^2 / 2
 * elements) holds three quarters of exo2blas_past_cache_bytes (2173 floats,
 * 1536 doubles at 12 MiB), in both layouts and triangles, with increments 1
 * and 2, rows n elements apart or (at least n) one element more than
 * exo2blas_large_ld_bytes (8 or 16 KiB): `_large` for N0 rows with
 * increment 1 and rows close enough (only 16 KiB holds them). */
#define CHECK_SYR_LARGE(P, T, N0)                                              \
  for (size_t ld = 8192; ld <= 16384; ld *= 2)                                 \
    for (int big = 0; big < 2; big++)                                          \
      for (int far = 0; far < 2; far++)                                        \
        for (int l = 0; l < 2; l++)                                            \
          for (int u = 0; u < 2; u++)                                          \
            for (int inc = 1; inc <= 2; inc++) {                               \
              static T A[1], x[1];                                             \
              exo2blas_large_ld_bytes = ld;                                    \
              const int n = (N0)-1 + big;                                      \
              const int lda = far ? MAX(n, (int)(ld / sizeof(T)) + 1) : n;     \
              const int layout = l ? CblasColMajor : CblasRowMajor;            \
              called = NULL;                                                   \
              test_##P##syr(layout, u ? CblasUpper : CblasLower, n, 1, x, inc, \
                            A, lda);                                           \
              char want[32];                                                   \
              snprintf(want, sizeof want, "syr_%s_%s", u != l ? "u" : "l",     \
                       inc != 1                               ? "stride_any"   \
                       : big && (size_t)lda * sizeof(T) <= ld ? "large"        \
                                                              : "stride_1");   \
              expect(want, #P "syr (n x n)", n, lda, layout, inc);             \
            }

/* gemv on both sides of exo2blas_past_cache_bytes in both precisions,
 * layouts and transpositions, with increments 1 and 2, rows of 1024
 * elements: `_large` from the bound on for the row-major problem's NoTrans
 * with increments 1. */
#define CHECK_GEMV_LARGE(P, T)                                               \
  for (int big = 0; big < 2; big++)                                          \
    for (int l = 0; l < 2; l++)                                              \
      for (int t = 0; t < 2; t++)                                            \
        for (int inc = 1; inc <= 2; inc++) {                                 \
          static T A[1], x[1], y[1];                                         \
          const int cols = 1024;                                             \
          const int rows =                                                   \
              (int)(exo2blas_past_cache_bytes / sizeof(T) / cols) - 1 + big; \
          const int layout = l ? CblasColMajor : CblasRowMajor;              \
          const int M = l ? cols : rows, N = l ? rows : cols;                \
          const int trans = t != l;                                          \
          called = NULL;                                                     \
          test_##P##gemv(layout, t ? CblasTrans : CblasNoTrans, M, N, 1, A,  \
                         cols, x, inc, 1, y, inc);                           \
          char want[32];                                                     \
          snprintf(want, sizeof want, "gemv_%s_%s", trans ? "t" : "n",       \
                   inc != 1        ? "stride_any"                            \
                   : !trans && big ? "large"                                 \
                                   : "stride_1");                            \
          expect(want, #P "gemv (m x n)", M, N, layout, inc);                \
        }

/* tbmv of n = 6 on both sides of its diagonals' band (24 off-diagonals
 * for stbmv, 16 for dtbmv: EXO2BLAS_{S,D}TBMV_DIAGONALS_MAX_K) in both
 * layouts, triangles, transpositions and diagonals, with increments 1 and
 * 2. */
#define CHECK_TBMV(P, T, max_k)                                               \
  for (int k = (max_k); k <= (max_k) + 1; k++)                                \
    for (int l = 0; l < 2; l++)                                               \
      for (int u = 0; u < 2; u++)                                             \
        for (int t = 0; t < 2; t++)                                           \
          for (int d = 0; d < 2; d++)                                         \
            for (int inc = 1; inc <= 2; inc++) {                              \
              static T A[6 * ((max_k) + 2)], x[12];                           \
              const int layout = l ? CblasColMajor : CblasRowMajor;           \
              called = NULL;                                                  \
              test_##P##tbmv(layout, u ? CblasUpper : CblasLower,             \
                             t ? CblasTrans : CblasNoTrans,                   \
                             d ? CblasUnit : CblasNonUnit, 6, k, A, k + 1, x, \
                             inc);                                            \
              /* the row-major problem: column-major flips the triangle and   \
               * the transposition */                                         \
              const char *half = (u != l) ? "u" : "l", *diag = d ? "u" : "n"; \
              const int trans = t != l;                                       \
              char want[48];                                                  \
              if (trans && inc == 1 && k <= (max_k))                          \
                snprintf(want, sizeof want, "tbmv_diagonals_%s%s_stride_1",   \
                         half, diag);                                         \
              else                                                            \
                snprintf(want, sizeof want, "tbmv_%s%s%s_%s", half,           \
                         trans ? "t" : "n", diag,                             \
                         inc == 1 ? "stride_1" : "stride_any");               \
              expect(want, #P "tbmv (n x k)", 6, k, layout, inc);             \
            }

/* trmv and trsv on both sides of TRIANGLE_SHORT_BYTES (1 KiB; 0 without
 * AVX-512) in both precisions, layouts, triangles, transpositions and
 * diagonals, with increments 1 and 2. The stubs read no element. */
#ifdef __AVX512F__
enum { TRIANGLE_SHORT = 1024 };
#else
enum { TRIANGLE_SHORT = 0 };
#endif
#define CHECK_TRIANGLE(P, T, kind)                                            \
  for (int big = 0; big < 2; big++)                                           \
    for (int l = 0; l < 2; l++)                                               \
      for (int u = 0; u < 2; u++)                                             \
        for (int t = 0; t < 2; t++)                                           \
          for (int d = 0; d < 2; d++)                                         \
            for (int inc = 1; inc <= 2; inc++) {                              \
              static T A[1], x[1];                                            \
              const int n = MAX(1, TRIANGLE_SHORT / (int)sizeof(T)) + big;    \
              called = NULL;                                                  \
              test_##P##kind(l ? CblasColMajor : CblasRowMajor,               \
                             u ? CblasUpper : CblasLower,                     \
                             t ? CblasTrans : CblasNoTrans,                   \
                             d ? CblasUnit : CblasNonUnit, n, A, n, x, inc);  \
              /* the row-major problem: column-major flips the triangle and   \
               * the transposition */                                         \
              char want[32];                                                  \
              snprintf(want, sizeof want, #kind "_%s%s%s_%s",                 \
                       u != l ? "u" : "l", t != l ? "t" : "n", d ? "u" : "n", \
                       inc != 1 ? "stride_any"                                \
                       : (size_t)n * sizeof(T) <= TRIANGLE_SHORT              \
                           ? "short"                                          \
                           : "stride_1");                                     \
              expect(want, #P #kind " (n x n)", n, n,                         \
                     l ? CblasColMajor : CblasRowMajor, inc);                 \
            }

static int run_checks(void) {
  const int ss = exo2blas_kernels_avx2.sskinny,
            ds = exo2blas_kernels_avx2.dskinny;
  /* no dimension of 1: a single row or column reads as either layout */
  const int sides[] = {2, ds, ds + 1, ss, ss + 1};
  const int nsides = sizeof sides / sizeof *sides;
  CHECK_PRECISION(s, float, ss)
  CHECK_PRECISION(d, double, ds)
  CHECK_SYMV(s, float)
  CHECK_SYMV(d, double)
  CHECK_GEMV_ONE_COLUMN(s, float, ss)
  CHECK_GEMV_ONE_COLUMN(d, double, ds)
  CHECK_GER_LARGE(s, float)
  CHECK_GER_LARGE(d, double)
  CHECK_GEMV_LARGE(s, float)
  CHECK_GEMV_LARGE(d, double)
  CHECK_SYR_LARGE(s, float, 2173)
  CHECK_SYR_LARGE(d, double, 1536)
  check_sbmv();
  CHECK_TBMV(s, float, 24)
  CHECK_TBMV(d, double, 16)
  CHECK_TRIANGLE(s, float, trmv)
  CHECK_TRIANGLE(d, double, trmv)
  CHECK_TRIANGLE(s, float, trsv)
  CHECK_TRIANGLE(d, double, trsv)
  if (failures) return 1;
  printf("every call chose its kernel as expected\n");
  return 0;
}

/* The checks run in a function of their own: built for AVX-512, main
 * must reach the CPU test before any AVX-512 instruction. */
int main(void) {
#ifdef __AVX512F__
  __builtin_cpu_init();
  if (!__builtin_cpu_supports("avx512f")) {
    printf("skipped: this CPU has no AVX-512\n");
    return 77;
  }
#endif
  return run_checks();
}
