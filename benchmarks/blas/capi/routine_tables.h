/* The CBLAS routines of levels 1 and 2 for one ISA (level1_isa.inc,
 * level2_isa.inc), which the exported cblas_* routines call (level1.c,
 * level2.c): a table per level and ISA, the active ones chosen with the
 * kernel table (isa.c). */
#ifndef EXO2BLAS_ROUTINE_TABLES_H
#define EXO2BLAS_ROUTINE_TABLES_H

#include "internal.h"

/* The routines of each level, both precisions side by side. */
/* clang-format off */
#define EXO2BLAS_LEVEL1_ROUTINES(X)                                   \
  X(sdot) X(ddot) X(sdsdot) X(dsdot) X(sasum) X(dasum)                \
  X(snrm2) X(dnrm2) X(isamax) X(idamax) X(saxpy) X(daxpy)             \
  X(scopy) X(dcopy) X(sswap) X(dswap) X(sscal) X(dscal)               \
  X(srot) X(drot) X(srotm) X(drotm)

#define EXO2BLAS_LEVEL2_ROUTINES(X)                                   \
  X(sgemv) X(dgemv) X(sgbmv) X(dgbmv) X(sger) X(dger)                 \
  X(ssymv) X(dsymv) X(ssbmv) X(dsbmv) X(ssyr) X(dsyr)                 \
  X(ssyr2) X(dsyr2) X(strmv) X(dtrmv) X(strsv) X(dtrsv)               \
  X(stbmv) X(dtbmv) X(stbsv) X(dtbsv)
/* clang-format on */

#ifdef EXO2BLAS_ISA
/* In a level's translation unit for one ISA (level1_isa.inc,
 * level2_isa.inc): the ISA's kernel `name` (exo2_avx512_sdot_stride_1),
 * its kernel table, and the routines' storage class and attributes. */
#define CAT_(a, b) a##b
#define CAT(a, b) CAT_(a, b)
#define KERNEL(name) CAT(CAT(exo2_, EXO2BLAS_ISA), CAT(_, name))
#define ISA_KERNELS CAT(exo2blas_kernels_, EXO2BLAS_ISA)
#define ROUTINE static __attribute__((flatten))
#endif

#define EXO2BLAS_ROUTINE_FIELD(name) __typeof__(cblas_##name) *name;
struct exo2blas_level1 {
  EXO2BLAS_LEVEL1_ROUTINES(EXO2BLAS_ROUTINE_FIELD)
};
struct exo2blas_level2 {
  EXO2BLAS_LEVEL2_ROUTINES(EXO2BLAS_ROUTINE_FIELD)
};
#undef EXO2BLAS_ROUTINE_FIELD

EXO2BLAS_HIDDEN extern const struct exo2blas_level1 exo2blas_level1_avx2;
EXO2BLAS_HIDDEN extern const struct exo2blas_level1 exo2blas_level1_avx512;
EXO2BLAS_HIDDEN extern const struct exo2blas_level2 exo2blas_level2_avx2;
EXO2BLAS_HIDDEN extern const struct exo2blas_level2 exo2blas_level2_avx512;

/* The active ISA's routines, chosen on the first call if no constructor
 * chose them (isa.c). */
EXO2BLAS_HIDDEN extern const struct exo2blas_level1 *exo2blas_active_level1;
EXO2BLAS_HIDDEN extern const struct exo2blas_level2 *exo2blas_active_level2;
EXO2BLAS_HIDDEN const struct exo2blas_level1 *exo2blas_choose_level1(void);
EXO2BLAS_HIDDEN const struct exo2blas_level2 *exo2blas_choose_level2(void);

/* Returns what the active ISA's routine `name` of `level` (level1, level2)
 * returns for the arguments that follow: one load and a jump, the choice
 * on a path of its own (a call on the path that joined the jump made every
 * call save the arguments). */
#define EXO2BLAS_RETURN(level, name, ...)                            \
  do {                                                               \
    const struct exo2blas_##level *l =                               \
        __atomic_load_n(&exo2blas_active_##level, __ATOMIC_ACQUIRE); \
    if (__builtin_expect(l != NULL, 1)) return l->name(__VA_ARGS__); \
    return exo2blas_choose_##level()->name(__VA_ARGS__);             \
  } while (0)

/* The same for a routine that returns nothing. */
#define EXO2BLAS_CALL(level, name, ...)                              \
  do {                                                               \
    const struct exo2blas_##level *l =                               \
        __atomic_load_n(&exo2blas_active_##level, __ATOMIC_ACQUIRE); \
    if (__builtin_expect(l != NULL, 1)) {                            \
      l->name(__VA_ARGS__);                                          \
      return;                                                        \
    }                                                                \
    exo2blas_choose_##level()->name(__VA_ARGS__);                    \
  } while (0)

#endif
