// The ABI tests: every routine of libexo2blas called through its cblas_*
// symbol, as a C program linked against any CBLAS would call it, and
// compared with netlib's reference CBLAS (loaded with dlopen from the path
// given as argv[1]) on the same inputs: both layouts, every enum value,
// sizes 0..17, increments 1, 2, -1, -3 (and 0 where the reference allows
// it), padded leading dimensions, alpha and beta in {0, 1, -2, 3}.
//
// Data are small integers (|v| <= 4), so every product and sum is exact
// and the results must match bit for bit whatever the summation order --
// except for the solvers, nrm2 and the scalar rotations, which are compared
// within a relative tolerance. Invalid arguments must call cblas_xerbla
// with the argument's 1-based position and leave the outputs untouched.
//
// Exit status: 0 when everything matches, 1 otherwise, 77 (skipped) when
// $EXO2BLAS_ISA names an ISA this CPU does not run.
#include <dlfcn.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "cblas_table.hpp"

static Blas ours() {
  Blas b;
#define OURS(name) b.name = &cblas_##name;
  EXO2BLAS_ROUTINES(OURS)
#undef OURS
  return b;
}

// The error handler both libraries call: records the first report since
// xerbla_position was last reset (netlib's cblas_sgemv goes on after an
// invalid transpose and may report again from its Fortran routine).
static int xerbla_position = 0;
static std::string xerbla_routine;
extern "C" void cblas_xerbla(int p, const char *rout, const char *, ...) {
  if (xerbla_position != 0) return;
  xerbla_position = p;
  xerbla_routine = rout;
}

static int failures = 0;
static std::map<std::string, int> compared;  // routine -> cases compared

template <class... A>
static void fail(const char *fmt, A... args) {
  if (++failures <= 400) {
    std::fprintf(stderr, fmt, args...);
    std::fputc('\n', stderr);
  }
}

static std::mt19937 rng(20);

template <class T>
static std::vector<T> ints(size_t n) {
  std::uniform_int_distribution<int> d(-4, 4);
  std::vector<T> v(n);
  for (auto &x : v) x = T(d(rng));
  return v;
}

// Elements a vector of n elements and increment inc spans.
static size_t span(int n, int inc) {
  return n == 0 ? 1 : 1 + size_t(n - 1) * std::abs(inc);
}

template <class T>
static bool same(const std::vector<T> &a, const std::vector<T> &b, double rel) {
  for (size_t i = 0; i < a.size(); i++) {
    // Exact: equal values (the sign of a zero depends on the order of the
    // operations), or both NaN.
    if (rel == 0 ? !(a[i] == b[i] || (a[i] != a[i] && b[i] != b[i]))
                 : !(std::fabs(double(a[i]) - double(b[i])) <=
                     rel * (1 + std::fabs(double(b[i])))))
      return false;
  }
  return true;
}

// Per-precision names of the routines (cblas_table.hpp), with the
// precision's letter and the tolerance of the inexact comparisons.
template <class T>
struct R;
template <>
struct R<float> : Routines<float> {
  static constexpr const char *p = "s";
  static constexpr double tol = 2e-4;
};
template <>
struct R<double> : Routines<double> {
  static constexpr const char *p = "d";
  static constexpr double tol = 1e-12;
};

static const int sizes[] = {0, 1, 2, 3, 7, 17};
static const int incs[] = {1, 2, -1, -3};
static const CBLAS_LAYOUT layouts[] = {CblasRowMajor, CblasColMajor};
static const CBLAS_TRANSPOSE transes[] = {CblasNoTrans, CblasTrans,
                                          CblasConjTrans};
static const CBLAS_UPLO uplos[] = {CblasUpper, CblasLower};
static const CBLAS_DIAG diags[] = {CblasNonUnit, CblasUnit};
static const CBLAS_SIDE sides[] = {CblasLeft, CblasRight};
static const double scalars[] = {0, 1, -2, 3};

// Runs `call(blas, outputs...)` on copies of `outputs` for both libraries
// and compares the copies.
template <class T, class F>
static void compare(const std::string &what, Blas &a, Blas &b, double rel,
                    std::vector<std::vector<T>> outputs, F call) {
  auto ra = outputs, rb = outputs;
  call(a, ra);
  call(b, rb);
  compared[what.substr(0, what.find(' '))]++;
  for (size_t i = 0; i < ra.size(); i++)
    if (!same(ra[i], rb[i], rel)) {
      fail("%s: output %zu differs from the reference", what.c_str(), i);
      return;
    }
}

template <class T>
static void level1(Blas &a, Blas &b) {
  using Q = R<T>;
  const std::string p = Q::p;
  for (int n : {0, 1, 2, 3, 7, 17, 100, 5000})
    for (int incx : {1, 2, -1, -3, 0})
      for (int incy : {1, 2, -1, -3, 0}) {
        auto x = ints<T>(span(n, incx)), y = ints<T>(span(n, incy));
        char buf[96];
        std::snprintf(buf, sizeof buf, " n=%d incx=%d incy=%d", n, incx, incy);
        std::string at = buf;
        compare<T>(p + "dot" + at, a, b, 0, {x, y, {0}}, [&](Blas &l, auto &o) {
          o[2][0] = (l.*Q::dot)(n, o[0].data(), incx, o[1].data(), incy);
        });
        for (double alpha : scalars) {
          compare<T>(p + "axpy" + at, a, b, 0, {x, y}, [&](Blas &l, auto &o) {
            (l.*Q::axpy)(n, T(alpha), o[0].data(), incx, o[1].data(), incy);
          });
        }
        compare<T>(p + "copy" + at, a, b, 0, {x, y}, [&](Blas &l, auto &o) {
          (l.*Q::copy)(n, o[0].data(), incx, o[1].data(), incy);
        });
        compare<T>(p + "swap" + at, a, b, 0, {x, y}, [&](Blas &l, auto &o) {
          (l.*Q::swap)(n, o[0].data(), incx, o[1].data(), incy);
        });
        compare<T>(p + "rot" + at, a, b, 0, {x, y}, [&](Blas &l, auto &o) {
          (l.*Q::rot)(n, o[0].data(), incx, o[1].data(), incy, T(3), T(-2));
        });
        for (T flag : {T(-1), T(0), T(1), T(-2)}) {
          std::vector<T> param = {flag, 2, -3, 1, 4};
          compare<T>(p + "rotm" + at, a, b, 0, {x, y}, [&](Blas &l, auto &o) {
            (l.*Q::rotm)(n, o[0].data(), incx, o[1].data(), incy, param.data());
          });
        }
        if (incy != 1) continue;  // one-vector routines: once per incx
        compare<T>(p + "asum" + at, a, b, 0, {x, {0}}, [&](Blas &l, auto &o) {
          o[1][0] = (l.*Q::asum)(n, o[0].data(), incx);
        });
        compare<T>(p + "nrm2" + at, a, b, Q::tol, {x, {0}},
                   [&](Blas &l, auto &o) {
                     o[1][0] = (l.*Q::nrm2)(n, o[0].data(), incx);
                   });
        compare<T>(p + "amax" + at, a, b, 0, {x, {0}}, [&](Blas &l, auto &o) {
          o[1][0] = T((l.*Q::amax)(n, o[0].data(), incx));
        });
        for (double alpha : scalars)
          compare<T>(p + "scal" + at, a, b, 0, {x}, [&](Blas &l, auto &o) {
            (l.*Q::scal)(n, T(alpha), o[0].data(), incx);
          });
      }
  // rotg and rotmg: scalar, within the tolerance.
  const T pairs[][2] = {{3, 4}, {-4, 3},          {0, 2}, {2, 0},
                        {0, 0}, {1e-30f, 2e-30f}, {5, -1}};
  for (auto &pr : pairs) {
    compare<T>(p + "rotg", a, b, Q::tol, {{pr[0], pr[1], 0, 0}},
               [&](Blas &l, auto &o) {
                 (l.*Q::rotg)(&o[0][0], &o[0][1], &o[0][2], &o[0][3]);
               });
  }
  // rotmg's defining property: H (b1, b2) = (b1', 0). Netlib 3.11 breaks it
  // when both d1 and d2 are rescaled (its second rescaling loop resets h12
  // to 1 after the first one scaled it), so that case is only checked
  // against the property.
  const T quads[][4] = {{1, 2, 3, 4},        {2, 1, -1, 3},   {-1, 2, 3, 4},
                        {1, 1, 1e-5f, 3},    {4096, 1, 3, 0}, {3, 5, 2, -7},
                        {1e-9f, 1e-9f, 1, 1}};
  for (auto &q : quads) {
    T d1 = q[0], d2 = q[1], b1 = q[2], P[5];
    (a.*Q::rotmg)(&d1, &d2, &b1, q[3], P);
    T h11 = P[0] == 0 ? 1 : P[1], h21 = P[0] == 1 ? -1 : P[2];
    T h12 = P[0] == 1 ? 1 : P[3], h22 = P[0] == 0 ? 1 : P[4];
    double first = double(h11) * q[2] + double(h12) * q[3];
    double second = double(h21) * q[2] + double(h22) * q[3];
    if (P[0] != -2 && q[0] >= 0 &&
        (std::fabs(first - b1) > Q::tol * (1 + std::fabs(b1)) ||
         std::fabs(second) > Q::tol * (std::fabs(q[2]) + std::fabs(q[3]))))
      fail("%srotmg(%g, %g, %g, %g): H (b1, b2) = (%g, %g), expected (%g, 0)",
           Q::p, double(q[0]), double(q[1]), double(q[2]), double(q[3]), first,
           second, double(b1));
    compared[p + "rotmg"]++;
    if (q[0] == T(1e-9f)) continue;
    compare<T>(p + "rotmg", a, b, Q::tol, {{q[0], q[1], q[2], 0, 0, 0, 0, 0}},
               [&](Blas &l, auto &o) {
                 auto &v = o[0];
                 (l.*Q::rotmg)(&v[0], &v[1], &v[2], q[3], &v[3]);
                 // Only the entries the flag uses are defined.
                 T flag = v[3];
                 if (flag == -2) v[4] = v[5] = v[6] = v[7] = 0;
                 if (flag == 0) v[4] = v[7] = 0;
                 if (flag == 1) v[5] = v[6] = 0;
               });
  }
  // Ties and +-max pairs: the first index of the largest |x| wins.
  for (int n : {5, 4096, 4097, 9000}) {
    std::vector<T> x(n, T(1));
    x[n / 3] = T(-3);
    x[n - 1] = T(3);
    compare<T>(p + "amax ties", a, b, 0, {x, {0}}, [&](Blas &l, auto &o) {
      o[1][0] = T((l.*Q::amax)(n, o[0].data(), 1));
    });
  }
}

// A row- or column-major matrix of r x c with leading dimension ld.
template <class T>
static std::vector<T> matrix(CBLAS_LAYOUT layout, int r, int c, int ld) {
  return ints<T>(size_t(std::max(1, layout == CblasRowMajor ? r : c)) * ld);
}

// A well-conditioned triangular matrix for the solvers: the diagonal in
// +-[1, 2], the rest divided by n (stored in full; only the triangle is
// read).
template <class T>
static std::vector<T> solvable(int n, int ld) {
  std::uniform_real_distribution<double> d(-1, 1);
  std::vector<T> A(size_t(std::max(1, n)) * ld);
  for (int i = 0; i < n; i++)
    for (int j = 0; j < ld; j++) {
      double v = d(rng);
      A[size_t(i) * ld + j] =
          T(i == j ? (v < 0 ? -1 : 1) * (1 + std::fabs(v)) : v / n);
    }
  return A;
}

template <class T>
static void level2(Blas &a, Blas &b) {
  using Q = R<T>;
  const std::string p = Q::p;
  char buf[128];
  for (auto layout : layouts)
    for (int m : sizes)
      for (int n : sizes)
        for (int inc : incs) {
          int incy = inc == 1 ? 1 : -inc / std::abs(inc) * 2;  // 1, -2, 2, 2
          std::snprintf(buf, sizeof buf, " layout=%d m=%d n=%d incx=%d incy=%d",
                        layout, m, n, inc, incy);
          std::string at = buf;
          int row = layout == CblasRowMajor,
              lda = std::max(1, row ? n : m) + (inc < 0 ? 3 : 0);
          for (auto t : transes)
            for (double alpha : scalars)
              for (double beta : {0.0, 1.0, 3.0}) {
                int lx = t == CblasNoTrans ? n : m,
                    ly = t == CblasNoTrans ? m : n;
                auto A = matrix<T>(layout, m, n, lda);
                auto x = ints<T>(span(lx, inc));
                compare<T>(p + "gemv" + at, a, b, 0, {ints<T>(span(ly, incy))},
                           [&](Blas &l, auto &o) {
                             (l.*Q::gemv)(layout, t, m, n, T(alpha), A.data(),
                                          lda, x.data(), inc, T(beta),
                                          o[0].data(), incy);
                           });
                for (int kl : {0, 1, 3})
                  for (int ku : {0, 2}) {
                    int ldb = kl + ku + 1 + (inc < 0 ? 2 : 0);
                    auto AB = ints<T>(size_t(std::max(1, row ? m : n)) * ldb);
                    auto x = ints<T>(span(lx, inc));
                    compare<T>(p + "gbmv" + at, a, b, 0,
                               {ints<T>(span(ly, incy))},
                               [&](Blas &l, auto &o) {
                                 (l.*Q::gbmv)(layout, t, m, n, kl, ku, T(alpha),
                                              AB.data(), ldb, x.data(), inc,
                                              T(beta), o[0].data(), incy);
                               });
                  }
              }
          auto A = matrix<T>(layout, m, n, lda);
          auto x = ints<T>(span(m, inc)), y = ints<T>(span(n, incy));
          compare<T>(p + "ger" + at, a, b, 0, {A}, [&](Blas &l, auto &o) {
            (l.*Q::ger)(layout, m, n, T(-2), x.data(), inc, y.data(), incy,
                        o[0].data(), lda);
          });
          if (m != n) continue;  // square routines
          for (auto uplo : uplos) {
            compare<T>(p + "symv" + at, a, b, 0, {ints<T>(span(n, incy))},
                       [&](Blas &l, auto &o) {
                         (l.*Q::symv)(layout, uplo, n, T(3), A.data(), lda,
                                      x.data(), inc, T(-2), o[0].data(), incy);
                       });
            compare<T>(p + "syr" + at, a, b, 0, {A}, [&](Blas &l, auto &o) {
              (l.*Q::syr)(layout, uplo, n, T(-2), x.data(), inc, o[0].data(),
                          lda);
            });
            compare<T>(p + "syr2" + at, a, b, 0, {A}, [&](Blas &l, auto &o) {
              (l.*Q::syr2)(layout, uplo, n, T(3), x.data(), inc, y.data(), incy,
                           o[0].data(), lda);
            });
            for (int k : {0, 1, 2, 5}) {
              int ldb = k + 1 + (inc < 0 ? 1 : 0);
              auto AB = ints<T>(size_t(std::max(1, n)) * ldb);
              compare<T>(p + "sbmv" + at, a, b, 0, {ints<T>(span(n, incy))},
                         [&](Blas &l, auto &o) {
                           (l.*Q::sbmv)(layout, uplo, n, k, T(-2), AB.data(),
                                        ldb, x.data(), inc, T(3), o[0].data(),
                                        incy);
                         });
              auto S = solvable<T>(n, ldb);
              for (auto t : transes)
                for (auto diag : diags) {
                  compare<T>(p + "tbmv" + at, a, b, 0, {x},
                             [&](Blas &l, auto &o) {
                               (l.*Q::tbmv)(layout, uplo, t, diag, n, k,
                                            AB.data(), ldb, o[0].data(), inc);
                             });
                  compare<T>(p + "tbsv" + at, a, b, Q::tol, {x},
                             [&](Blas &l, auto &o) {
                               // A solvable band: the diagonal (stored at
                               // offset 0 of each line for row-major upper and
                               // column-major lower, else at k) in
                               // +-[1.25, 1.5], the rest small.
                               std::vector<T> band(AB.size());
                               int dcol = (uplo == CblasUpper) == row ? 0 : k;
                               for (int i = 0; i < n; i++)
                                 for (int j = 0; j < ldb; j++)
                                   band[size_t(i) * ldb + j] =
                                       j == dcol ? T(i % 2 ? -1.5 : 1.25)
                                                 : AB[size_t(i) * ldb + j] /
                                                       T(4 * (k + 1));
                               (l.*Q::tbsv)(layout, uplo, t, diag, n, k,
                                            band.data(), ldb, o[0].data(), inc);
                             });
                }
            }
            auto S = solvable<T>(n, lda);
            for (auto t : transes)
              for (auto diag : diags) {
                compare<T>(p + "trmv" + at, a, b, 0, {x},
                           [&](Blas &l, auto &o) {
                             (l.*Q::trmv)(layout, uplo, t, diag, n, A.data(),
                                          lda, o[0].data(), inc);
                           });
                compare<T>(p + "trsv" + at, a, b, Q::tol, {x},
                           [&](Blas &l, auto &o) {
                             (l.*Q::trsv)(layout, uplo, t, diag, n, S.data(),
                                          lda, o[0].data(), inc);
                           });
              }
          }
        }
}

template <class T>
static void level3(Blas &a, Blas &b) {
  using Q = R<T>;
  const std::string p = Q::p;
  const int dims[] = {0, 1, 3, 5, 17};
  char buf[128];
  for (auto layout : layouts)
    for (int m : dims)
      for (int n : dims)
        for (int k : dims)
          for (int pad : {0, 3}) {
            std::snprintf(buf, sizeof buf, " layout=%d m=%d n=%d k=%d pad=%d",
                          layout, m, n, k, pad);
            std::string at = buf;
            bool row = layout == CblasRowMajor;
            // Matrices of up to 17 x 17 with any leading dimension used.
            int ld = 17 + pad;
            auto big = [&] { return ints<T>(size_t(17) * ld); };
            auto A = big(), B = big(), C = big();
            for (auto ta : transes)
              for (auto tb : {CblasNoTrans, CblasTrans})
                for (double alpha : {0.0, 1.0, -2.0})
                  for (double beta : {0.0, 1.0, 3.0})
                    compare<T>(p + "gemm" + at, a, b, 0, {C},
                               [&](Blas &l, auto &o) {
                                 (l.*Q::gemm)(layout, ta, tb, m, n, k, T(alpha),
                                              A.data(), ld, B.data(), ld,
                                              T(beta), o[0].data(), ld);
                               });
            if (k == 0 || k == 5) {  // routines without k: fewer cases
              for (auto side : sides)
                for (auto uplo : uplos) {
                  for (double beta : {0.0, 1.0, 3.0})
                    compare<T>(
                        p + "symm" + at, a, b, 0, {C}, [&](Blas &l, auto &o) {
                          (l.*Q::symm)(layout, side, uplo, m, n,
                                       T(k == 0 ? 0 : 3), A.data(), ld,
                                       B.data(), ld, T(beta), o[0].data(), ld);
                        });
                  auto S = solvable<T>(17, ld);
                  for (auto t : transes)
                    for (auto diag : diags) {
                      compare<T>(p + "trmm" + at, a, b, 0, {B},
                                 [&](Blas &l, auto &o) {
                                   (l.*Q::trmm)(layout, side, uplo, t, diag, m,
                                                n, T(k == 0 ? 0 : -2), A.data(),
                                                ld, o[0].data(), ld);
                                 });
                      compare<T>(p + "trsm" + at, a, b, Q::tol, {B},
                                 [&](Blas &l, auto &o) {
                                   (l.*Q::trsm)(layout, side, uplo, t, diag, m,
                                                n, T(k == 0 ? 0 : 3), S.data(),
                                                ld, o[0].data(), ld);
                                 });
                    }
                }
            }
            if (m == n)
              for (auto uplo : uplos)
                for (auto t : transes)
                  for (double beta : {0.0, 1.0, 3.0}) {
                    compare<T>(
                        p + "syrk" + at, a, b, 0, {C}, [&](Blas &l, auto &o) {
                          (l.*Q::syrk)(layout, uplo, t, n, k, T(3), A.data(),
                                       ld, T(beta), o[0].data(), ld);
                        });
                    compare<T>(p + "syr2k" + at, a, b, 0, {C},
                               [&](Blas &l, auto &o) {
                                 (l.*Q::syr2k)(layout, uplo, t, n, k, T(-2),
                                               A.data(), ld, B.data(), ld,
                                               T(beta), o[0].data(), ld);
                               });
                  }
            (void)row;
          }
}

// An invalid call must report the argument's position and change nothing.
struct BadCall {
  const char *routine;
  int position;
  bool reference_agrees;  // netlib reports the same position to a replaced
                          // handler (column-major calls; netlib maps
                          // row-major positions inside its own handler)
  std::function<void(Blas &, float *)> call;
};

static void errors(Blas &a, Blas &b) {
  const auto R = CblasRowMajor, C = CblasColMajor;
  const auto N = CblasNoTrans;
  const auto U = CblasUpper;
  const auto L = CblasLeft;
  const auto D = CblasNonUnit;
  const float al = 2;
  std::vector<BadCall> calls = {
      {"cblas_sgemv", 1, true,
       [&](Blas &l, float *z) {
         l.sgemv(CBLAS_LAYOUT(7), N, 2, 2, al, z, 2, z, 1, 0, z, 1);
       }},
      {"cblas_sgemv", 2, true,
       [&](Blas &l, float *z) {
         l.sgemv(C, CBLAS_TRANSPOSE(7), 2, 2, al, z, 2, z, 1, 0, z, 1);
       }},
      {"cblas_sgemv", 3, true,
       [&](Blas &l, float *z) {
         l.sgemv(C, N, -1, 2, al, z, 2, z, 1, 0, z, 1);
       }},
      {"cblas_sgemv", 4, true,
       [&](Blas &l, float *z) {
         l.sgemv(C, N, 2, -1, al, z, 2, z, 1, 0, z, 1);
       }},
      {"cblas_sgemv", 3, false,
       [&](Blas &l, float *z) {
         l.sgemv(R, N, -1, 2, al, z, 2, z, 1, 0, z, 1);
       }},
      {"cblas_sgemv", 7, true,
       [&](Blas &l, float *z) {
         l.sgemv(R, N, 2, 3, al, z, 2, z, 1, 0, z, 1);
       }},
      {"cblas_sgemv", 9, true,
       [&](Blas &l, float *z) {
         l.sgemv(C, N, 2, 2, al, z, 2, z, 0, 0, z, 1);
       }},
      {"cblas_sgemv", 12, true,
       [&](Blas &l, float *z) {
         l.sgemv(C, N, 2, 2, al, z, 2, z, 1, 0, z, 0);
       }},
      {"cblas_sgbmv", 5, true,
       [&](Blas &l, float *z) {
         l.sgbmv(C, N, 2, 2, -1, 0, al, z, 2, z, 1, 0, z, 1);
       }},
      {"cblas_sgbmv", 9, true,
       [&](Blas &l, float *z) {
         l.sgbmv(C, N, 2, 2, 1, 1, al, z, 2, z, 1, 0, z, 1);
       }},
      {"cblas_sger", 2, true,
       [&](Blas &l, float *z) { l.sger(C, -1, 2, al, z, 1, z, 1, z, 2); }},
      {"cblas_sger", 10, true,
       [&](Blas &l, float *z) { l.sger(C, 3, 2, al, z, 1, z, 1, z, 2); }},
      {"cblas_ssymv", 2, true,
       [&](Blas &l, float *z) {
         l.ssymv(C, CBLAS_UPLO(7), 2, al, z, 2, z, 1, 0, z, 1);
       }},
      {"cblas_ssyr2", 8, true,
       [&](Blas &l, float *z) { l.ssyr2(C, U, 2, al, z, 1, z, 0, z, 2); }},
      {"cblas_strsv", 4, true,
       [&](Blas &l, float *z) {
         l.strsv(C, U, N, CBLAS_DIAG(7), 2, z, 2, z, 1);
       }},
      {"cblas_stbsv", 6, true,
       [&](Blas &l, float *z) { l.stbsv(C, U, N, D, 2, -1, z, 2, z, 1); }},
      {"cblas_stbmv", 8, true,
       [&](Blas &l, float *z) { l.stbmv(C, U, N, D, 2, 3, z, 3, z, 1); }},
      {"cblas_sgemm", 4, true,
       [&](Blas &l, float *z) {
         l.sgemm(C, N, N, -1, 2, 2, al, z, 2, z, 2, 0, z, 2);
       }},
      {"cblas_sgemm", 4, false,
       [&](Blas &l, float *z) {
         l.sgemm(R, N, N, -1, 2, 2, al, z, 2, z, 2, 0, z, 2);
       }},
      {"cblas_sgemm", 9, true,
       [&](Blas &l, float *z) {
         l.sgemm(C, N, N, 3, 2, 2, al, z, 2, z, 2, 0, z, 3);
       }},
      {"cblas_sgemm", 11, false,
       [&](Blas &l, float *z) {
         l.sgemm(R, N, N, 2, 3, 2, al, z, 2, z, 2, 0, z, 3);
       }},
      {"cblas_ssymm", 2, true,
       [&](Blas &l, float *z) {
         l.ssymm(C, CBLAS_SIDE(7), U, 2, 2, al, z, 2, z, 2, 0, z, 2);
       }},
      {"cblas_ssyrk", 8, true,
       [&](Blas &l, float *z) { l.ssyrk(C, U, N, 3, 2, al, z, 2, 0, z, 3); }},
      {"cblas_ssyr2k", 13, true,
       [&](Blas &l, float *z) {
         l.ssyr2k(C, U, N, 3, 2, al, z, 3, z, 3, 0, z, 2);
       }},
      {"cblas_strmm", 7, true,
       [&](Blas &l, float *z) {
         l.strmm(C, L, U, N, D, 2, -1, al, z, 2, z, 2);
       }},
      {"cblas_strsm", 12, true,
       [&](Blas &l, float *z) {
         l.strsm(C, L, U, N, D, 3, 2, al, z, 3, z, 2);
       }},
      {"cblas_strsm", 6, false,
       [&](Blas &l, float *z) {
         l.strsm(R, L, U, N, D, -1, 2, al, z, 2, z, 2);
       }},
  };
  for (auto &c : calls) {
    for (Blas *lib : {&a, &b}) {
      if (lib == &b && !c.reference_agrees) continue;
      std::vector<float> z(64, 7.0f);
      xerbla_position = 0;
      c.call(*lib, z.data());
      const char *who = lib == &a ? "libexo2blas" : "the reference";
      if (xerbla_position != c.position)
        fail("%s: %s reported argument %d, expected %d", c.routine, who,
             xerbla_position, c.position);
      if (lib == &a && xerbla_routine != c.routine)
        fail("%s: reported as routine %s", c.routine, xerbla_routine.c_str());
      // Only libexo2blas is held to leaving its outputs alone when the
      // handler returns: netlib's relies on its own handler exiting, and
      // after ours returns its column-major cblas_sgemv goes on with the
      // transpose character it never set (it wrote y in about one run in
      // twenty, as the stack happened to hold 'N' or 'T').
      if (lib == &b) continue;
      for (size_t i = 0; i < z.size(); i++)
        if (z[i] != 7.0f) {
          fail(
              "%s (argument %d invalid): libexo2blas wrote its outputs after "
              "an invalid argument (element %zu is %g)",
              c.routine, c.position, i, double(z[i]));
          break;
        }
    }
    compared["errors"]++;
  }
}

int main(int argc, char **argv) {
  const char *isa = std::getenv("EXO2BLAS_ISA");
  if (isa && std::strcmp(isa, "avx512") == 0 &&
      !__builtin_cpu_supports("avx512f")) {
    std::printf("skipped: this CPU does not run AVX-512\n");
    return 77;
  }
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s PATH_OF_THE_REFERENCE_CBLAS\n", argv[0]);
    return 2;
  }
  Blas mine = ours(), reference;
  if (!load_blas(argv[1], reference, false)) return 2;
    // The exo2blas_ names are the cblas_ functions themselves.
#define SAME(name)                                  \
  if (reinterpret_cast<void *>(&exo2blas_##name) != \
      reinterpret_cast<void *>(&cblas_##name))      \
    fail("exo2blas_" #name " is not cblas_" #name);
  EXO2BLAS_ROUTINES(SAME)
#undef SAME
  level1<float>(mine, reference);
  level1<double>(mine, reference);
  level2<float>(mine, reference);
  level2<double>(mine, reference);
  level3<float>(mine, reference);
  level3<double>(mine, reference);
  errors(mine, reference);
  std::printf("ISA %s:", exo2blas_isa());
  for (auto &[routine, n] : compared) std::printf(" %s %d", routine.c_str(), n);
  std::printf("\n%d failure(s)\n", failures);
  return failures == 0 ? 0 : 1;
}
