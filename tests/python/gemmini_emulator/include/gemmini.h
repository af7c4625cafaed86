/* A software model of the Gemmini functions exo2.platforms.gemmini calls,
 * written for exo2's tests (tests/python/test_platform_gemmini.py): enough
 * of the accelerator to run a scheduled kernel on any machine and compare
 * it with NumPy. Not Gemmini's header, and not a model of its timing.
 *
 * Addresses are row numbers: the scratchpad holds rows of 16 i8, the
 * accumulator rows of 16 i32 (addresses with bit 31 set). Bit 30 of an
 * accumulator address asks to add to it; bit 29, on a store, to write the
 * full i32 instead of scaling to i8. */
#ifndef EXO2_GEMMINI_EMULATOR_H
#define EXO2_GEMMINI_EMULATOR_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#define EXO2_GEMMINI_ROWS 1024
#define EXO2_ACC_BIT 0x80000000u
#define EXO2_ACCUMULATE_BIT 0x40000000u
#define EXO2_FULL_BIT 0x20000000u
#define EXO2_ROW(addr) ((uint32_t)(addr)&0x1fffffffu)

#define WS 1
#define ACC_SCALE(x, scale) ((float)(x) * (scale))

static int8_t exo2_spad[EXO2_GEMMINI_ROWS][16];
static int32_t exo2_acc[EXO2_GEMMINI_ROWS][16];

/* Per load unit: source stride in bytes, whether i8 rows go to the
 * accumulator ("shrunk"). */
static uint64_t exo2_ld_stride[3];
static int exo2_ld_shrunk[3];
static uint64_t exo2_st_stride;
static int exo2_st_act;
static float exo2_st_scale = 1.0f;
static uint32_t exo2_preload_b, exo2_preload_c;
static int exo2_preload_m;

static inline void gemmini_extended4_config_ld(uint64_t stride, float scale,
                                               int shrunk, int rows, int id) {
  (void)scale;
  (void)rows;
  exo2_ld_stride[id] = stride;
  exo2_ld_shrunk[id] = shrunk;
}

static inline void gemmini_extended3_config_ld(uint64_t stride, float scale,
                                               int shrunk, int id) {
  gemmini_extended4_config_ld(stride, scale, shrunk, 0, id);
}

static inline void exo2_mvin(int id, uint64_t src, uint64_t dst, int cols,
                             int rows) {
  const uint32_t d = (uint32_t)dst;
  for (int block = 0; block * 16 < cols; block++) {
    const int width = cols - block * 16 < 16 ? cols - block * 16 : 16;
    for (int i = 0; i < rows; i++) {
      const uint32_t row = EXO2_ROW(d) + block * rows + i;
      for (int j = 0; j < width; j++) {
        const int col = block * 16 + j;
        if (d & EXO2_ACC_BIT) {
          int32_t v = 0;
          if (src && exo2_ld_shrunk[id])
            v = ((const int8_t *)(uintptr_t)(src +
                                             i * exo2_ld_stride[id]))[col];
          else if (src)
            v = ((const int32_t *)(uintptr_t)(src +
                                              i * exo2_ld_stride[id]))[col];
          exo2_acc[row][j] = v;
        } else {
          exo2_spad[row][j] =
              src ? ((const int8_t *)(uintptr_t)(src +
                                                 i * exo2_ld_stride[id]))[col]
                  : 0;
        }
      }
    }
  }
}

#define gemmini_extended_mvin(src, dst, cols, rows) \
  exo2_mvin(0, (uint64_t)(uintptr_t)(src), (uint64_t)(dst), (cols), (rows))
#define gemmini_extended_mvin2(src, dst, cols, rows) \
  exo2_mvin(1, (uint64_t)(uintptr_t)(src), (uint64_t)(dst), (cols), (rows))
#define gemmini_extended_mvin3(src, dst, cols, rows) \
  exo2_mvin(2, (uint64_t)(uintptr_t)(src), (uint64_t)(dst), (cols), (rows))

static inline void gemmini_extended_config_st(uint64_t stride, int act,
                                              float scale) {
  exo2_st_stride = stride;
  exo2_st_act = act;
  exo2_st_scale = scale;
}

static inline void exo2_mvout(uint64_t dst, uint32_t src, int cols, int rows) {
  for (int i = 0; i < rows; i++)
    for (int j = 0; j < cols; j++) {
      char *out = (char *)(uintptr_t)(dst + i * exo2_st_stride);
      const uint32_t row = EXO2_ROW(src) + i;
      if (!(src & EXO2_ACC_BIT)) {
        ((int8_t *)out)[j] = exo2_spad[row][j];
      } else if (src & EXO2_FULL_BIT) {
        ((int32_t *)out)[j] = exo2_acc[row][j];
      } else {
        float v = ACC_SCALE(exo2_acc[row][j], exo2_st_scale);
        v = v > 127.0f ? 127.0f : v;
        v = v < -128.0f ? -128.0f : v;
        int8_t r = (int8_t)v;
        ((int8_t *)out)[j] = exo2_st_act && r < 0 ? 0 : r;
      }
    }
}

#define gemmini_extended_mvout(dst, src, cols, rows) \
  exo2_mvout((uint64_t)(dst), (uint32_t)(src), (cols), (rows))

static inline void gemmini_extended_config_ex(int dataflow, int act, int a,
                                              int b, int c, int d) {
  (void)dataflow, (void)act, (void)a, (void)b, (void)c, (void)d;
}

/* Weight stationary: preload B (K rows of M) and the output C; compute
 * multiplies A (N rows of K) by B into C's N rows of M. */
static inline void gemmini_extended_preload(uint32_t b, uint32_t c, int b_cols,
                                            int b_rows, int c_cols,
                                            int c_rows) {
  (void)b_rows, (void)c_cols, (void)c_rows;
  exo2_preload_b = b;
  exo2_preload_c = c;
  exo2_preload_m = b_cols;
}

static inline void gemmini_extended_compute_preloaded(uint32_t a, uint32_t d,
                                                      int a_cols, int a_rows,
                                                      int d_cols, int d_rows) {
  (void)d, (void)d_cols, (void)d_rows;
  for (int i = 0; i < a_rows; i++)
    for (int j = 0; j < exo2_preload_m; j++) {
      int32_t sum = 0;
      for (int k = 0; k < a_cols; k++)
        sum += (int32_t)exo2_spad[EXO2_ROW(a) + i][k] *
               (int32_t)exo2_spad[EXO2_ROW(exo2_preload_b) + k][j];
      int32_t *out = &exo2_acc[EXO2_ROW(exo2_preload_c) + i][j];
      *out = (exo2_preload_c & EXO2_ACCUMULATE_BIT) ? *out + sum : sum;
    }
}

#endif
