/* The default error handler: weak, so that a program's own cblas_xerbla
 * replaces it. Like OpenBLAS's and MKL's, it prints and returns (netlib's
 * exits); the routine then returns without computing. */
#include <stdarg.h>
#include <stdio.h>

#include "internal.h"

__attribute__((weak)) void cblas_xerbla(int p, const char *rout,
                                        const char *form, ...) {
  va_list args;
  va_start(args, form);
  if (p) fprintf(stderr, "Parameter %d to routine %s was incorrect\n", p, rout);
  vfprintf(stderr, form, args);
  va_end(args);
}
