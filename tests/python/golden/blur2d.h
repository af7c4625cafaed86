
#pragma once
#ifndef BLUR2D_H
#define BLUR2D_H

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



// blur2d(
//     n : size,
//     m : size,
//     inp : f32[n + 2, m + 2] @DRAM,
//     out : f32[n, m] @DRAM
// )
void blur2d( void *ctxt, int_fast32_t n, int_fast32_t m, const float* inp, float* out );



#ifdef __cplusplus
}
#endif
#endif  // BLUR2D_H
