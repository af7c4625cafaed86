/* Which ISA's kernels the library calls: chosen once, when the library is
 * loaded (a constructor), or on the first call if that comes first (from
 * another library's constructor; pthread_once): AVX-512 (F, VL, DQ) when the
 * CPU runs it (as GCC's __builtin_cpu_supports reports it, which includes the
 * OS saving the registers), else AVX2 with FMA. $EXO2BLAS_ISA=avx2|avx512
 * forces one; forcing one the CPU cannot run is a fatal error with a message,
 * as is a CPU without AVX2 and FMA. */
#include <cpuid.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "routine_tables.h"

const struct exo2blas_kernels *exo2blas_active;
const struct exo2blas_level1 *exo2blas_active_level1;
const struct exo2blas_level2 *exo2blas_active_level2;
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

/* The kernels to call, or NULL with the message that makes the first call
 * fatal written to `why`. */
static const struct exo2blas_kernels *chosen(char *why, size_t size) {
  const char *forced = getenv("EXO2BLAS_ISA");
  if (forced && *forced) {
    const struct exo2blas_kernels *table =
        strcmp(forced, "avx512") == 0 ? &exo2blas_kernels_avx512
        : strcmp(forced, "avx2") == 0 ? &exo2blas_kernels_avx2
                                      : NULL;
    if (!table)
      snprintf(why, size, "EXO2BLAS_ISA=%s: expected avx2 or avx512", forced);
    else if (!cpu_runs(forced))
      snprintf(why, size, "EXO2BLAS_ISA=%s, but this CPU does not run %s",
               forced, forced);
    else
      return table;
    return NULL;
  }
  if (cpu_runs("avx512")) return &exo2blas_kernels_avx512;
  if (cpu_runs("avx2")) return &exo2blas_kernels_avx2;
  snprintf(why, size, "this CPU runs neither AVX2 with FMA nor AVX-512");
  return NULL;
}

int exo2blas_split_512;
int exo2blas_reduce_aligns_past_cache;
size_t exo2blas_large_ld_bytes = 8192;
int exo2blas_align_head_bytes = 64;

/* Whether the CPU's vendor string (cpuid leaf 0) reads `b`, `d`, `c`. */
static int vendor_is(unsigned b, unsigned d, unsigned c) {
  unsigned eax, ebx, ecx, edx;
  return __get_cpuid(0, &eax, &ebx, &ecx, &edx) && ebx == b && edx == d &&
         ecx == c;
}

/* The CPU's family if it is an AMD (AuthenticAMD), else 0: 19h is Zen 3
 * and Zen 4, 1Ah Zen 5. */
static unsigned amd_family(void) {
  unsigned eax, ebx, ecx, edx;
  const int amd = vendor_is(0x68747541, 0x69746e65, 0x444d4163);
  if (!amd || !__get_cpuid(1, &eax, &ebx, &ecx, &edx)) return 0;
  unsigned family = (eax >> 8) & 0xf;
  if (family == 0xf) family += (eax >> 20) & 0xff;
  return family;
}

/* The kernels `table` and its ISA's routines of levels 1 and 2 made
 * active. */
static void activate(const struct exo2blas_kernels *table) {
  const int avx512 = table == &exo2blas_kernels_avx512;
  const unsigned family = amd_family();
  /* Zen 4 runs a 512-bit vector as two 256-bit halves: its 512-bit
   * `vcvtps2pd` takes two cycles for the one cycle of its 256-bit form (of
   * family 19h only Zen 4 runs AVX-512) */
  const int zen5_or_later = family >= 0x1a;
  exo2blas_split_512 = family == 0x19;
  /* Zen 5 streams from DRAM faster in 512-bit loads that cross no cache
   * line, x and y 16 bytes past a boundary: ddot of 2^22 elements 1.67 ->
   * 1.34 ms, dasum of 2^22 0.84 -> 0.57 ms, idamax of 2^22 0.79 -> 0.61 ms
   * (OpenBLAS 1.48, 0.81, MKL 0.91 ms); with the AVX2 kernels no better
   * (docs/blas-library.md) */
  exo2blas_reduce_aligns_past_cache = zen5_or_later && avx512;
  /* Zen 5: sger of 2048 x 4096 (rows of 16 KiB) 1.36 ms jammed, 1.02 ms
   * one row at a time (ger_large, level2.inc); of 1024 x 8192 1.23 and
   * 1.30 ms */
  if (zen5_or_later) exo2blas_large_ld_bytes = 16384;
  /* GenuineIntel, Zen 5, and the AVX2 kernels on any CPU (a 256-bit store
   * crosses a line at every other vector): the head's call costs more there
   * than the crossings of up to ALIGN_HEAD_WHOLE_BYTES (align_head,
   * level1.inc). srot of 24 / 32 / 48 elements, x 16 bytes past a boundary:
   * 22.1 / 24.0 / 25.2 ns split, 14.7 / 15.3 / 19.5 ns whole (AVX2 on the
   * AMD EPYC Zen 3 machine) */
  if (vendor_is(0x756e6547, 0x49656e69, 0x6c65746e) || zen5_or_later || !avx512)
    exo2blas_align_head_bytes = ALIGN_HEAD_WHOLE_BYTES;
  __atomic_store_n(&exo2blas_active_level1,
                   avx512 ? &exo2blas_level1_avx512 : &exo2blas_level1_avx2,
                   __ATOMIC_RELEASE);
  __atomic_store_n(&exo2blas_active_level2,
                   avx512 ? &exo2blas_level2_avx512 : &exo2blas_level2_avx2,
                   __ATOMIC_RELEASE);
  __atomic_store_n(&exo2blas_active, table, __ATOMIC_RELEASE);
}

static void choose(void) {
  char why[160];
  const struct exo2blas_kernels *table = chosen(why, sizeof why);
  if (!table) {
    fprintf(stderr, "libexo2blas: %s\n", why);
    abort();
  }
  activate(table);
}

const struct exo2blas_kernels *exo2blas_choose_kernels(void) {
  pthread_once(&once, choose);
  return exo2blas_active;
}

const struct exo2blas_level1 *exo2blas_choose_level1(void) {
  pthread_once(&once, choose);
  return exo2blas_active_level1;
}

const struct exo2blas_level2 *exo2blas_choose_level2(void) {
  pthread_once(&once, choose);
  return exo2blas_active_level2;
}

/* Loading chooses when it can; a fatal choice waits for the first call, so
 * that loading the library does not abort a program that never calls it (a
 * test that skips on this CPU). */
__attribute__((constructor)) static void choose_on_load(void) {
  char why[160];
  const struct exo2blas_kernels *table = chosen(why, sizeof why);
  if (table) activate(table);
}

const char *exo2blas_isa(void) { return exo2blas_active_kernels()->isa; }
