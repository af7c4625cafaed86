// A CBLAS as a table of function pointers, one per routine of
// exo2blas/cblas.h: the ABI tests and the benchmark harness call every
// library through it, so several CBLAS live in one process.
#pragma once

#include <dlfcn.h>

#include <cstdio>
#include <string>

#include "exo2blas/cblas.h"

struct Blas {
  std::string name;
#define EXO2BLAS_FIELD(routine) decltype(&cblas_##routine) routine = nullptr;
  EXO2BLAS_ROUTINES(EXO2BLAS_FIELD)
#undef EXO2BLAS_FIELD
};

// The CBLAS in `path`, loaded with dlopen; `deep` binds its own symbols
// first (RTLD_DEEPBIND), so that libraries defining the same Fortran
// symbols (sgemm_) do not resolve each other's. Returns false, with a
// message on stderr, if it cannot be loaded or lacks a routine.
inline bool load_blas(const char *path, Blas &blas, bool deep = true) {
  void *handle =
      dlopen(path, RTLD_NOW | RTLD_LOCAL | (deep ? RTLD_DEEPBIND : 0));
  if (!handle) {
    std::fprintf(stderr, "cannot load %s: %s\n", path, dlerror());
    return false;
  }
#define EXO2BLAS_LOAD(routine)                                    \
  blas.routine = reinterpret_cast<decltype(blas.routine)>(        \
      dlsym(handle, "cblas_" #routine));                          \
  if (!blas.routine) {                                            \
    std::fprintf(stderr, "%s has no cblas_" #routine "\n", path); \
    return false;                                                 \
  }
  EXO2BLAS_ROUTINES(EXO2BLAS_LOAD)
#undef EXO2BLAS_LOAD
  // One thread, whatever the library's default (the runner also sets the
  // environment variables each library reads).
  if (auto f = reinterpret_cast<void (*)(int)>(
          dlsym(handle, "openblas_set_num_threads")))
    f(1);
  if (auto f = reinterpret_cast<void (*)(long)>(
          dlsym(handle, "bli_thread_set_num_threads")))
    f(1);
  if (auto f = reinterpret_cast<int (*)(int)>(
          dlsym(handle, "MKL_Set_Num_Threads_Local")))
    f(1);
  if (auto f =
          reinterpret_cast<void (*)(int)>(dlsym(handle, "MKL_Set_Num_Threads")))
    f(1);
  return true;
}

// The routines of one precision, as members of the table:
// `blas.*Routines<float>::gemv` is `blas.sgemv`.
template <class T>
struct Routines;
#define EXO2BLAS_PRECISION(p)                                            \
  static constexpr auto dot = &Blas::p##dot, asum = &Blas::p##asum,      \
                        nrm2 = &Blas::p##nrm2;                           \
  static constexpr auto amax = &Blas::i##p##amax, axpy = &Blas::p##axpy, \
                        copy = &Blas::p##copy, swap = &Blas::p##swap;    \
  static constexpr auto scal = &Blas::p##scal, rot = &Blas::p##rot,      \
                        rotm = &Blas::p##rotm, rotg = &Blas::p##rotg;    \
  static constexpr auto rotmg = &Blas::p##rotmg, gemv = &Blas::p##gemv,  \
                        gbmv = &Blas::p##gbmv, ger = &Blas::p##ger;      \
  static constexpr auto symv = &Blas::p##symv, sbmv = &Blas::p##sbmv,    \
                        syr = &Blas::p##syr, syr2 = &Blas::p##syr2;      \
  static constexpr auto trmv = &Blas::p##trmv, trsv = &Blas::p##trsv,    \
                        tbmv = &Blas::p##tbmv, tbsv = &Blas::p##tbsv;    \
  static constexpr auto gemm = &Blas::p##gemm, symm = &Blas::p##symm,    \
                        syrk = &Blas::p##syrk, syr2k = &Blas::p##syr2k;  \
  static constexpr auto trmm = &Blas::p##trmm, trsm = &Blas::p##trsm;
template <>
struct Routines<float> {
  EXO2BLAS_PRECISION(s)
};
template <>
struct Routines<double> {
  EXO2BLAS_PRECISION(d)
};
#undef EXO2BLAS_PRECISION
