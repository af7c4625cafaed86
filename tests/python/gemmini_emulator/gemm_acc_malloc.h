/* Accumulator allocator of exo2's Gemmini model (include/gemmini.h): a stack
 * of 64-byte rows (16 i32), addresses with bit 31 set. */
#ifndef EXO2_GEMM_ACC_MALLOC_H
#define EXO2_GEMM_ACC_MALLOC_H
#include <stdint.h>
static uint32_t exo2_acc_next;
static inline uint32_t gemm_acc_malloc(unsigned long bytes) {
  uint32_t row = exo2_acc_next;
  exo2_acc_next += (uint32_t)((bytes + 63) / 64);
  return 0x80000000u | row;
}
static inline void gemm_acc_free(uint32_t addr) {
  exo2_acc_next = addr & 0x1fffffffu;
}
#endif
