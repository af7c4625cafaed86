/* copy's size thresholds (capi/level1.inc), set when the library is loaded;
 * until then (a call from another library's constructor) copy runs its
 * vector loop at every size, which is as correct.
 *
 * From how many bytes copy stores past the caches (its `nontemporal`
 * kernels), the reductions no longer split off x's head except on Zen 5
 * (reduce_aligns, level1.inc) and gemv NoTrans jams eight rows (its `_large`
 * kernel, of A's bytes; level2.inc): 3/8 of the largest cache the CPU describes
 * (cpuid's deterministic cache parameters), so that x and y together fill three
 * quarters of it, or $EXO2BLAS_NONTEMPORAL_BYTES (bytes of x). Smaller
 * copies leave y in the cache for whoever reads it next; larger ones would
 * evict it anyway, and a non-temporal store saves reading each line of y before
 * writing it. The crossover, measured: scopy of 8 MiB took 269 us cached,
 * 299 us non-temporal; of 12 MiB 759 us and 507 us (32 MiB L3, AMD EPYC
 * Zen 4; docs/blas-library.md).
 *
 * Beyond how many bytes (below that) copy is one memcpy (its `block`
 * kernels, `block_copy` in exo2blas/machines/instructions.py; unless y
 * starts a few bytes after x modulo a page: memcpy_distance_ok in
 * internal.h): half the L1 data cache, past which x and y together no
 * longer fit in it, or $EXO2BLAS_BLOCK_COPY_BYTES. dcopy, 16 bytes past a
 * boundary, of 3072 / 3328 / 4096 elements (24 / 26 / 32 KiB): 109 / 289 /
 * 466 ns by vectors, 162 / 259 / 319 ns by memcpy (48 KiB L1d, AMD EPYC
 * Zen 5). */
#include <cpuid.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "internal.h"

size_t exo2blas_past_cache_bytes = SIZE_MAX;
size_t exo2blas_block_copy_bytes = SIZE_MAX;

/* The cache of `level` (0: the largest; of level 1, the data cache) that
 * cpuid `leaf` (4 on Intel, 0x8000001D on AMD) describes, in bytes; 0 where
 * it describes none. */
static size_t cache_size(unsigned leaf, unsigned level) {
  size_t found = 0;
  unsigned a, b, c, d;
  for (unsigned i = 0; i < 16 && __get_cpuid_count(leaf, i, &a, &b, &c, &d);
       i++) {
    const unsigned type = a & 31; /* 1 data, 2 instructions, 3 unified */
    if (type == 0) break;         /* no more caches */
    if (type == 2 || (level && ((a >> 5) & 7) != level)) continue;
    size_t ways = (b >> 22) + 1, partitions = ((b >> 12) & 1023) + 1;
    size_t line = (b & 4095) + 1, sets = (size_t)c + 1;
    size_t size = ways * partitions * line * sets;
    if (size > found) found = size;
  }
  return found;
}

/* $`name` as a number of bytes into *bytes (1), or 0 where it is unset or
 * not a number (reported on stderr). */
static int bytes_from_env(const char *name, size_t *bytes) {
  const char *forced = getenv(name);
  if (!forced || !*forced) return 0;
  char *end;
  unsigned long long value = strtoull(forced, &end, 10);
  if (*end == '\0') {
    *bytes = (size_t)value;
    return 1;
  }
  fprintf(stderr,
          "libexo2blas: %s=%s is not a number of bytes; using the cache's "
          "size\n",
          name, forced);
  return 0;
}

__attribute__((constructor)) static void set_copy_thresholds(void) {
  if (!bytes_from_env("EXO2BLAS_NONTEMPORAL_BYTES",
                      &exo2blas_past_cache_bytes)) {
    size_t cache = MAX(cache_size(4, 0), cache_size(0x8000001D, 0));
    if (cache) exo2blas_past_cache_bytes = cache / 8 * 3;
  }
  if (!bytes_from_env("EXO2BLAS_BLOCK_COPY_BYTES",
                      &exo2blas_block_copy_bytes)) {
    size_t l1 = MAX(cache_size(4, 1), cache_size(0x8000001D, 1));
    if (l1) exo2blas_block_copy_bytes = l1 / 2;
  }
}
