/* From how many bytes copy stores past the caches (its `nontemporal`
 * kernels; capi/level1.inc): 3/8 of the largest cache the CPU describes
 * (cpuid's deterministic cache parameters), so that x and y together fill
 * three quarters of it, or $EXO2BLAS_NONTEMPORAL_BYTES (bytes of x). Smaller
 * copies leave y in the cache for whoever reads it next; larger ones would
 * evict it anyway, and a non-temporal store saves reading each line of y before
 * writing it. The crossover, measured: scopy of 8 MiB took 269 us cached,
 * 299 us non-temporal; of 12 MiB 759 us and 507 us (32 MiB L3, AMD EPYC
 * Zen 4; docs/blas-library.md).
 *
 * Set when the library is loaded; until then (a call from another
 * library's constructor) copy never streams, which is as correct. */
#include <cpuid.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "internal.h"

size_t exo2blas_nontemporal_bytes = SIZE_MAX;

/* The largest cache that cpuid `leaf` (4 on Intel, 0x8000001D on AMD)
 * describes, in bytes; 0 where it describes none. */
static size_t largest_cache(unsigned leaf) {
  size_t largest = 0;
  unsigned a, b, c, d;
  for (unsigned i = 0; i < 16 && __get_cpuid_count(leaf, i, &a, &b, &c, &d);
       i++) {
    if ((a & 31) == 0) break; /* no more caches */
    size_t ways = (b >> 22) + 1, partitions = ((b >> 12) & 1023) + 1;
    size_t line = (b & 4095) + 1, sets = (size_t)c + 1;
    size_t size = ways * partitions * line * sets;
    if (size > largest) largest = size;
  }
  return largest;
}

__attribute__((constructor)) static void set_nontemporal_bytes(void) {
  const char *forced = getenv("EXO2BLAS_NONTEMPORAL_BYTES");
  if (forced && *forced) {
    char *end;
    unsigned long long bytes = strtoull(forced, &end, 10);
    if (*end == '\0') {
      exo2blas_nontemporal_bytes = (size_t)bytes;
      return;
    }
    fprintf(stderr,
            "libexo2blas: EXO2BLAS_NONTEMPORAL_BYTES=%s is not a number of "
            "bytes; using the cache's size\n",
            forced);
  }
  size_t cache = MAX(largest_cache(4), largest_cache(0x8000001D));
  if (cache) exo2blas_nontemporal_bytes = cache / 8 * 3;
}
