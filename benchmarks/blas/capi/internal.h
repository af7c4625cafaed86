/* Shared by the C layer of libexo2blas: the active kernel table, argument
 * checks, and building exo2 windows from BLAS pointers and increments.
 *
 * Conventions (docs/blas-library.md): the generated kernels are row-major;
 * a column-major call is mapped onto the row-major problem of the
 * transposed matrices. A BLAS vector of n elements and increment inc is
 * the window whose data pointer is its logical first element -- for a
 * negative increment x + (n - 1) |inc| -- and whose stride is inc. */
#ifndef EXO2BLAS_INTERNAL_H
#define EXO2BLAS_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "exo2blas/cblas.h"
#include "exo2blas/kernel_table.h"

/* The kernels of the ISA chosen when the library was loaded (isa.c): one
 * load per call (a pthread_once call per call cost some 4 ns, a quarter of
 * a level-1 call on a few elements). Hidden, so that the load does not go
 * through the global offset table. */
#define EXO2BLAS_HIDDEN __attribute__((visibility("hidden")))
EXO2BLAS_HIDDEN extern const struct exo2blas_kernels *exo2blas_active;
EXO2BLAS_HIDDEN const struct exo2blas_kernels *exo2blas_choose_kernels(void);
static inline const struct exo2blas_kernels *exo2blas_active_kernels(void) {
  const struct exo2blas_kernels *k =
      __atomic_load_n(&exo2blas_active, __ATOMIC_ACQUIRE);
  return k ? k : exo2blas_choose_kernels();
}
#define KERNELS (exo2blas_active_kernels())

/* A vector of this many bytes or more, with a second as large, no longer
 * stays in the caches: copy stores past them, reductions leave the head of
 * x in the kernel's call (except on Zen 5), dot and axpy on Zen 4 call their
 * `narrow` kernels, and gemv NoTrans and ger of a matrix this large their
 * `_large` ones (copy_thresholds.c, level1.inc, level2.inc). */
EXO2BLAS_HIDDEN extern size_t exo2blas_past_cache_bytes;
/* copy of more than this many bytes, and fewer than
 * exo2blas_past_cache_bytes, is one memcpy: its `block` kernel
 * (copy_thresholds.c). */
EXO2BLAS_HIDDEN extern size_t exo2blas_block_copy_bytes;

/* 1 on CPUs that run a 512-bit vector as two 256-bit halves (Zen 4): they
 * convert 512-bit vectors of f32 to f64 at half the rate of 256-bit ones,
 * so the routines that widen call their `narrow` kernels at every size, and
 * dot and axpy stream from DRAM faster in 256-bit vectors (isa.c,
 * level1.inc, level1_isa.inc). */
EXO2BLAS_HIDDEN extern int exo2blas_split_512;

/* 1 where the reductions split off x's head past the caches too (Zen 5's
 * 512-bit loads, reduce_aligns in level1.inc; isa.c). */
EXO2BLAS_HIDDEN extern int exo2blas_reduce_aligns_past_cache;

/* ger of a matrix past the caches (and syr of a triangle) runs one row at
 * a time where its rows lie at most this many bytes apart: 8 KiB, 16 KiB
 * on Zen 5 (ger_large and syr_large in level2.inc; isa.c). */
EXO2BLAS_HIDDEN extern size_t exo2blas_large_ld_bytes;

/* An update in place of a unit-stride vector longer than this many bytes
 * runs its elements before the first 64-byte boundary as a call of their
 * own (align_head, level1.inc): one vector's 64 bytes, ALIGN_HEAD_WHOLE_BYTES
 * on Intel, on AMD from Zen 5 and with the AVX2 kernels (isa.c). */
EXO2BLAS_HIDDEN extern int exo2blas_align_head_bytes;
#define ALIGN_HEAD_WHOLE_BYTES 192

/* 1 where memcpy copies from x to y at its speed: y does not start 1 to
 * 63 bytes after x modulo a 4 KiB page. glibc's memcpy copies with `rep
 * movsb` from a few KiB up to about the L2's size, and AMD's `rep movsb`
 * stalls on such a short distance: dcopy of 8192 elements (64 KiB), y 16
 * bytes after x modulo 4 KiB, took 34.6 us by memcpy, 1.7 us by MKL (AMD
 * EPYC Zen 3, glibc 2.36; from 1 to 31 bytes 1.3-3 GB/s, from 32 on 35-55
 * GB/s). Two arrays of whole pages malloc'd one after the other lie 16
 * bytes apart so (docs/blas-library.md). */
static inline int memcpy_distance_ok(const void *x, const void *y) {
  const uintptr_t distance = ((uintptr_t)y - (uintptr_t)x) & 4095;
  return distance == 0 || distance >= 64;
}

#define MAX(a, b) ((a) > (b) ? (a) : (b))
#define STR_(x) #x
#define STR(x) STR_(x)

/* Reports argument `pos` of `routine` as invalid when `bad` holds, and
 * makes the routine return. Checks run in argument order, so the first
 * invalid argument is the one reported, as in netlib's CBLAS. */
#define CHECK(bad, pos, routine)          \
  do {                                    \
    if (bad) {                            \
      cblas_xerbla((pos), (routine), ""); \
      return;                             \
    }                                     \
  } while (0)

#define VALID_LAYOUT(l) ((l) == CblasRowMajor || (l) == CblasColMajor)
#define VALID_TRANS(t) \
  ((t) == CblasNoTrans || (t) == CblasTrans || (t) == CblasConjTrans)
#define VALID_UPLO(u) ((u) == CblasUpper || (u) == CblasLower)
#define VALID_DIAG(d) ((d) == CblasNonUnit || (d) == CblasUnit)
#define VALID_SIDE(s) ((s) == CblasLeft || (s) == CblasRight)

/* The logical first element of a vector of n elements with increment inc. */
#define FIRST(p, n, inc) ((inc) < 0 ? (p) - (ptrdiff_t)((n)-1) * (inc) : (p))

/* Window literals: vectors (any increment) and row-major matrices (leading
 * dimension ld, unit inner stride). */
#define VEC(WIN, p, n, inc) ((WIN){FIRST((p), (n), (inc)), {(inc)}})
#define MAT(WIN, p, ld) ((WIN){(p), {(ld), 1}})

#endif
