/* The level-1 routines of one ISA (level1_isa.inc), which the exported
 * cblas_* routines call (level1.c): a table per ISA, the active one chosen
 * with the kernel table (isa.c). */
#ifndef EXO2BLAS_LEVEL1_TABLE_H
#define EXO2BLAS_LEVEL1_TABLE_H

#include "internal.h"

#define EXO2BLAS_LEVEL1_ROUTINES(X)                                           \
  X(sdot)                                                                     \
  X(ddot)                                                                     \
  X(sdsdot) X(dsdot) X(sasum) X(dasum) X(snrm2) X(dnrm2) X(isamax) X(idamax)  \
      X(saxpy) X(daxpy) X(scopy) X(dcopy) X(sswap) X(dswap) X(sscal) X(dscal) \
          X(srot) X(drot) X(srotm) X(drotm)

struct exo2blas_level1 {
#define EXO2BLAS_LEVEL1_FIELD(name) __typeof__(cblas_##name) *name;
  EXO2BLAS_LEVEL1_ROUTINES(EXO2BLAS_LEVEL1_FIELD)
#undef EXO2BLAS_LEVEL1_FIELD
};

EXO2BLAS_HIDDEN extern const struct exo2blas_level1 exo2blas_level1_avx2;
EXO2BLAS_HIDDEN extern const struct exo2blas_level1 exo2blas_level1_avx512;

/* The active ISA's routines, chosen on the first call if no constructor
 * chose them (isa.c). */
EXO2BLAS_HIDDEN extern const struct exo2blas_level1 *exo2blas_active_level1;
EXO2BLAS_HIDDEN const struct exo2blas_level1 *exo2blas_choose_level1(void);

/* Returns what the active ISA's routine `name` returns for the arguments
 * that follow: one load and a jump, the choice on a path of its own (a
 * call on the path that joined the jump made every call save the
 * arguments). */
#define EXO2BLAS_LEVEL1_RETURN(name, ...)                            \
  do {                                                               \
    const struct exo2blas_level1 *l =                                \
        __atomic_load_n(&exo2blas_active_level1, __ATOMIC_ACQUIRE);  \
    if (__builtin_expect(l != NULL, 1)) return l->name(__VA_ARGS__); \
    return exo2blas_choose_level1()->name(__VA_ARGS__);              \
  } while (0)

/* The same for a routine that returns nothing. */
#define EXO2BLAS_LEVEL1_CALL(name, ...)                             \
  do {                                                              \
    const struct exo2blas_level1 *l =                               \
        __atomic_load_n(&exo2blas_active_level1, __ATOMIC_ACQUIRE); \
    if (__builtin_expect(l != NULL, 1)) {                           \
      l->name(__VA_ARGS__);                                         \
      return;                                                       \
    }                                                               \
    exo2blas_choose_level1()->name(__VA_ARGS__);                    \
  } while (0)

#endif
