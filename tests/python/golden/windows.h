
#pragma once
#ifndef WINDOWS_H
#define WINDOWS_H

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


#ifndef EXO_WIN_1F32C
#define EXO_WIN_1F32C
struct exo_win_1f32c{
    const float * const data;
    const int_fast32_t strides[1];
};
#endif
#ifndef EXO_WIN_2F32C
#define EXO_WIN_2F32C
struct exo_win_2f32c{
    const float * const data;
    const int_fast32_t strides[2];
};
#endif
// nested_window(
//     n : size,
//     X : f32[n, 4, 4] @DRAM,
//     y : f32[n] @DRAM
// )
void nested_window( void *ctxt, int_fast32_t n, const float* X, float* y );

// row_sums(
//     m : size,
//     n : size,
//     X : f32[m, n] @DRAM,
//     s : f32[m] @DRAM
// )
void row_sums( void *ctxt, int_fast32_t m, int_fast32_t n, const float* X, float* s );



#ifdef __cplusplus
}
#endif
#endif  // WINDOWS_H
