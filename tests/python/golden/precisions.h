
#pragma once
#ifndef PRECISIONS_H
#define PRECISIONS_H

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



// add_i8(
//     n : size,
//     x : i8[n] @DRAM,
//     y : i8[n] @DRAM
// )
void add_i8( void *ctxt, int_fast32_t n, const int8_t* x, int8_t* y );

// mean_f64_acc(
//     n : size,
//     x : f32[n] @DRAM,
//     result : f32 @DRAM
// )
void mean_f64_acc( void *ctxt, int_fast32_t n, const float* x, float* result );

// narrow_f64_to_f32(
//     n : size,
//     x : f64[n] @DRAM,
//     y : f32[n] @DRAM
// )
void narrow_f64_to_f32( void *ctxt, int_fast32_t n, const double* x, float* y );



#ifdef __cplusplus
}
#endif
#endif  // PRECISIONS_H
