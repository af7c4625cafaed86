
#pragma once
#ifndef REVERSE_BLOCKS_H
#define REVERSE_BLOCKS_H

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



// producer_warps(
//     n : size,
//     x : f32[n] @CUDA_GMEM,
//     y : f32[n] @CUDA_GMEM
// )
void producer_warps( void *ctxt, int_fast32_t n, const float* x, float* y );

// reverse_blocks(
//     n : size,
//     x : f32[n] @CUDA_GMEM,
//     y : f32[n] @CUDA_GMEM
// )
void reverse_blocks( void *ctxt, int_fast32_t n, const float* x, float* y );

// reverse_within_warps(
//     n : size,
//     x : f32[n] @CUDA_GMEM,
//     y : f32[n] @CUDA_GMEM
// )
void reverse_within_warps( void *ctxt, int_fast32_t n, const float* x, float* y );


// The stream of every launch (default 0, the legacy stream).
void reverse_blocks_set_cuda_stream(void *stream);
// The first CUDA error since the last call (a cudaError_t), or 0.
int reverse_blocks_cuda_last_error(void);

#ifdef __cplusplus
}
#endif
#endif  // REVERSE_BLOCKS_H
