/* Scratchpad allocator of exo2's Gemmini model (include/gemmini.h): a stack
 * of 16-byte rows (exo2 frees buffers in the reverse order of allocation). */
#ifndef EXO2_GEMM_MALLOC_H
#define EXO2_GEMM_MALLOC_H
#include <stdint.h>
static uint32_t exo2_spad_next;
static inline uint64_t gemm_malloc(unsigned long bytes) {
  uint32_t row = exo2_spad_next;
  exo2_spad_next += (uint32_t)((bytes + 15) / 16);
  return row;
}
static inline void gemm_free(uint64_t addr) { exo2_spad_next = (uint32_t)addr; }
#endif
