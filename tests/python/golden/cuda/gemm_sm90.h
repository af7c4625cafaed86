
#pragma once
#ifndef GEMM_SM90_H
#define GEMM_SM90_H

#ifdef __cplusplus
extern "C" {
#endif



#include <stdint.h>
#include <stdbool.h>

// Compiler feature macros adapted from Hedley (public domain)
// https://github.com/nemequ/hedley

#if defined(__has_builtin)
#  define EXO_HAS_BUILTIN(builtin) __has_builtin(builtin)
#else
#  define EXO_HAS_BUILTIN(builtin) (0)
#endif

#if EXO_HAS_BUILTIN(__builtin_assume)
#  define EXO_ASSUME(expr) __builtin_assume(expr)
#elif EXO_HAS_BUILTIN(__builtin_unreachable)
#  define EXO_ASSUME(expr) \
      ((void)((expr) ? 1 : (__builtin_unreachable(), 1)))
#else
#  define EXO_ASSUME(expr) ((void)(expr))
#endif


#ifndef EXO_WIN_2BF16C
#define EXO_WIN_2BF16C
struct exo_win_2bf16c{
    const uint16_t * const data;
    const int_fast32_t strides[2];
};
#endif
// gemm_sm90(
//     M : size,
//     N : size,
//     K : size,
//     A : bf16[M, K] @CUDA_GMEM,
//     B : bf16[N, K] @CUDA_GMEM,
//     C : f32[M, N] @CUDA_GMEM
// )
void gemm_sm90( void *ctxt, int_fast32_t M, int_fast32_t N, int_fast32_t K, const uint16_t* A, const uint16_t* B, float* C );


// The stream of every launch (default 0, the legacy stream).
void gemm_sm90_set_cuda_stream(void *stream);
// The first CUDA error since the last call (a cudaError_t), or 0.
int gemm_sm90_cuda_last_error(void);

#ifdef __cplusplus
}
#endif
#endif  // GEMM_SM90_H
