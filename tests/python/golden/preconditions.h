
#pragma once
#ifndef PRECONDITIONS_H
#define PRECONDITIONS_H

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



// gemv_blocked(
//     m : size,
//     n : size,
//     A : f32[m, n] @DRAM,
//     x : f32[n] @DRAM,
//     y : f32[m] @DRAM
// )
void gemv_blocked( void *ctxt, int_fast32_t m, int_fast32_t n, const float* A, const float* x, float* y );

// shift_from(
//     n : size,
//     off : index,
//     x : f32[n] @DRAM,
//     y : f32[n] @DRAM
// )
void shift_from( void *ctxt, int_fast32_t n, int_fast32_t off, const float* x, float* y );



#ifdef __cplusplus
}
#endif
#endif  // PRECONDITIONS_H
