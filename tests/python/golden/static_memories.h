
#pragma once
#ifndef STATIC_MEMORIES_H
#define STATIC_MEMORIES_H

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



// static_buffers(
//     n : size,
//     x : f32[n, 4] @DRAM,
//     y : f32[n, 4] @DRAM
// )
void static_buffers( void *ctxt, int_fast32_t n, const float* x, float* y );



#ifdef __cplusplus
}
#endif
#endif  // STATIC_MEMORIES_H
