/* Which ISA's kernels the library calls: chosen once, on the first call
 * (pthread_once): AVX-512 (F, VL, DQ) when the CPU runs it (as GCC's
 * __builtin_cpu_supports reports it, which includes the OS saving the
 * registers), else AVX2 with FMA. $EXO2BLAS_ISA=avx2|avx512 forces one; forcing
 * one the CPU cannot run is a fatal error with a message, as is a CPU without
 * AVX2 and FMA. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

static const struct exo2blas_kernels *active;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static int cpu_runs(const char *isa) {
  __builtin_cpu_init();
  if (strcmp(isa, "avx2") == 0)
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  if (strcmp(isa, "avx512") == 0)
    return __builtin_cpu_supports("avx512f") &&
           __builtin_cpu_supports("avx512vl") &&
           __builtin_cpu_supports("avx512dq") && cpu_runs("avx2");
  return 0;
}

static void choose(void) {
  const char *forced = getenv("EXO2BLAS_ISA");
  if (forced && *forced) {
    const struct exo2blas_kernels *table =
        strcmp(forced, "avx512") == 0 ? &exo2blas_kernels_avx512
        : strcmp(forced, "avx2") == 0 ? &exo2blas_kernels_avx2
                                      : NULL;
    if (!table) {
      fprintf(stderr, "libexo2blas: EXO2BLAS_ISA=%s: expected avx2 or avx512\n",
              forced);
      abort();
    }
    if (!cpu_runs(forced)) {
      fprintf(stderr,
              "libexo2blas: EXO2BLAS_ISA=%s, but this CPU does not run %s\n",
              forced, forced);
      abort();
    }
    active = table;
  } else if (cpu_runs("avx512")) {
    active = &exo2blas_kernels_avx512;
  } else if (cpu_runs("avx2")) {
    active = &exo2blas_kernels_avx2;
  } else {
    fprintf(stderr,
            "libexo2blas: this CPU runs neither AVX2 with FMA nor AVX-512\n");
    abort();
  }
}

const struct exo2blas_kernels *exo2blas_active_kernels(void) {
  pthread_once(&once, choose);
  return active;
}

const char *exo2blas_isa(void) { return exo2blas_active_kernels()->isa; }
