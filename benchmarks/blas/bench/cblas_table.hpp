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
