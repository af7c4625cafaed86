// The benchmark harness: times BLAS routines of several CBLAS libraries in
// one process with Google Benchmark (python -m exo2blas.run writes its case
// list and reads its results).
//
//   harness --cases FILE --library exo2blas=PATH --library mkl=PATH ...
//           [--progress-fd N] [--status FILE] [--max-call SECONDS]
//           [Google Benchmark flags]
//
// Every library is loaded with dlopen(RTLD_LOCAL | RTLD_DEEPBIND) and called
// through the same table of CBLAS function pointers (cblas_table.hpp). A
// case is one line of `key=value` words: id, routine, p (s, d; ds for dsdot,
// sds for sdsdot), the sizes m n k kl ku, the flags trans trans_b uplo diag
// side (N T, U L, N U, L R), flag (rotm), cache (warm or cold). Operands are
// row-major with unit increments and tight leading dimensions.
//
// Before timing, each (library, case) runs once on fresh inputs and its
// output is compared with libexo2blas's (the library named exo2blas)
// within gamma_{K+2} (|alpha| K max|A| max|x| + |beta| max|y0|), K the inner
// length; a wrong result is not timed. A call longer than --max-call seconds
// marks the case and the larger sizes of that (library, routine) `timeout`.
// Statuses go to --status FILE as `library id status detail` lines.
//
// Data stay normal over millions of calls: axpy alternates alpha and
// -alpha, scal multiplies by 2 and 0.5, rot and rotm are rotations, and the
// triangular operators are I + E with |E| <= 2^-30, which grows an
// in-place operand by at most (1 + n 2^-30) per call. After timing, any
// subnormal, Inf or NaN in an output sets the counter `invalid`.
//
// Warm cache: one set of operands. Cold cache: iterations rotate through
// as many sets as fill `pool_mib` (the runner passes at least 4x the
// last-level cache and 256 MiB, at most a quarter of the memory).
//
// --progress-fd N: one line per finished repetition, `done NAME SECONDS`,
// for the runner's progress bar.
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "cblas_table.hpp"

namespace {

struct Case {
  std::map<std::string, std::string> kv;
  std::string id, routine, p;
  int m = 0, n = 0, k = 0, kl = 0, ku = 0;
  bool cold = false;

  char flag(const char *key, char fallback) const {
    auto it = kv.find(key);
    return it == kv.end() || it->second.empty() ? fallback : it->second[0];
  }
  int num(const char *key) const {
    auto it = kv.find(key);
    return it == kv.end() ? 0 : std::stoi(it->second);
  }
  long size() const {
    return long(std::max(m, 1)) * std::max(n, 1) * std::max(k, 1);
  }
};

Case parse(const std::string &line) {
  Case c;
  std::istringstream in(line);
  std::string word;
  while (in >> word) {
    auto eq = word.find('=');
    if (eq != std::string::npos) c.kv[word.substr(0, eq)] = word.substr(eq + 1);
  }
  c.id = c.kv["id"], c.routine = c.kv["routine"], c.p = c.kv["p"];
  c.m = c.num("m"), c.n = c.num("n"), c.k = c.num("k"), c.kl = c.num("kl"),
  c.ku = c.num("ku");
  c.cold = c.kv["cache"] == "cold";
  return c;
}

CBLAS_TRANSPOSE tr(char c) { return c == 'T' ? CblasTrans : CblasNoTrans; }
CBLAS_UPLO up(char c) { return c == 'L' ? CblasLower : CblasUpper; }
CBLAS_DIAG dg(char c) { return c == 'U' ? CblasUnit : CblasNonUnit; }
CBLAS_SIDE sd(char c) { return c == 'R' ? CblasRight : CblasLeft; }
const auto RM = CblasRowMajor;

bool triangular(const std::string &r) {
  return r == "trmv" || r == "trsv" || r == "tbmv" || r == "tbsv" ||
         r == "trmm" || r == "trsm";
}

// The operands of one call, as element counts per buffer.
struct Shape {
  size_t a = 0, b = 0, c = 0, x = 0, y = 0;
};

Shape shape_of(const Case &c) {
  const std::string &r = c.routine;
  size_t m = c.m, n = c.n, k = c.k, mn = std::max(m, n);
  if (r == "gemv") return {m * n, 0, 0, mn, mn};
  if (r == "gbmv") return {m * (c.kl + c.ku + 1), 0, 0, mn, mn};
  if (r == "ger") return {m * n, 0, 0, m, n};
  if (r == "symv" || r == "syr" || r == "syr2" || r == "trmv" || r == "trsv")
    return {n * n, 0, 0, n, n};
  if (r == "sbmv" || r == "tbmv" || r == "tbsv")
    return {n * (k + 1), 0, 0, n, n};
  if (r == "gemm") return {m * k, k * n, m * n, 0, 0};
  if (r == "symm" || r == "trmm" || r == "trsm") {
    size_t order = c.flag("side", 'L') == 'L' ? m : n;
    return {order * order, m * n, m * n, 0, 0};
  }
  if (r == "syrk" || r == "syr2k") return {n * k, n * k, n * n, 0, 0};
  return {0, 0, 0, n, n};  // level 1
}

// The inner length K of the error bound.
long inner(const Case &c) {
  const std::string &r = c.routine;
  if (r == "gemv" || r == "gbmv")
    return c.flag("trans", 'N') == 'T' ? c.m : c.n;
  if (r == "gemm" || r == "syrk") return c.k;
  if (r == "syr2k") return 2L * c.k;
  if (r == "symm" || r == "trmm" || r == "trsm")
    return c.flag("side", 'L') == 'L' ? c.m : c.n;
  if (r == "symv" || r == "sbmv" || r == "trmv" || r == "tbmv" || r == "trsv" ||
      r == "tbsv" || r == "dot" || r == "asum" || r == "nrm2" || r == "dsdot" ||
      r == "sdsdot")
    return std::max(c.n, 1);
  return 1;
}

template <class T>
struct Operands {
  std::vector<T> a, b, c, x, y;
  double result[2] = {0, 0};
};

template <class T>
void fill(Operands<T> &o, const Case &c, unsigned seed) {
  Shape s = shape_of(c);
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  auto init = [&](std::vector<T> &v, size_t n) {
    v.resize(std::max<size_t>(n, 1));
    for (auto &e : v) e = T(u(rng));
  };
  init(o.a, s.a), init(o.b, s.b), init(o.c, s.c), init(o.x, s.x),
      init(o.y, s.y);
  if (triangular(c.routine)) {
    // I + E, |E| <= 2^-30: the diagonal is the first band column for
    // upper band storage, column k for lower, the diagonal otherwise.
    bool band = c.routine == "tbmv" || c.routine == "tbsv";
    size_t rows = band ? c.n
                  : (c.routine == "trmm" || c.routine == "trsm")
                      ? (c.flag("side", 'L') == 'L' ? c.m : c.n)
                      : c.n;
    size_t cols = band ? c.k + 1 : rows;
    size_t diag_col = c.flag("uplo", 'U') == 'L' ? c.k : 0;
    for (size_t i = 0; i < rows; i++)
      for (size_t j = 0; j < cols; j++)
        o.a[i * cols + j] =
            (band ? j == diag_col : j == i) ? T(1) : T(std::ldexp(u(rng), -30));
  }
}

// One call of routine `c` of library `l` on `o`; `it` alternates the
// constants that keep the data bounded.
template <class T>
void call(const Blas &l, const Case &c, Operands<T> &o, long it);

template <>
void call<float>(const Blas &l, const Case &c, Operands<float> &o, long it) {
  const std::string &r = c.routine;
  int m = c.m, n = c.n, k = c.k;
  float *A = o.a.data(), *B = o.b.data(), *C = o.c.data(), *x = o.x.data(),
        *y = o.y.data();
  float sign = (it & 1) ? -1.0f : 1.0f;
  char t = c.flag("trans", 'N'), u = c.flag("uplo", 'U'),
       d = c.flag("diag", 'N');
  char s = c.flag("side", 'L'), tb = c.flag("trans_b", 'N');
  int lda_sq = s == 'L' ? m : n;
  if (c.p == "ds")
    o.result[0] += l.dsdot(n, x, 1, y, 1);
  else if (c.p == "sds")
    o.result[0] += l.sdsdot(n, 0.5f, x, 1, y, 1);
  else if (r == "dot")
    o.result[0] += l.sdot(n, x, 1, y, 1);
  else if (r == "asum")
    o.result[0] += l.sasum(n, x, 1);
  else if (r == "nrm2")
    o.result[0] += l.snrm2(n, x, 1);
  else if (r == "iamax")
    o.result[0] = double(l.isamax(n, x, 1));
  else if (r == "axpy")
    l.saxpy(n, sign * 0.5f, x, 1, y, 1);
  else if (r == "copy")
    l.scopy(n, x, 1, y, 1);
  else if (r == "swap")
    l.sswap(n, x, 1, y, 1);
  else if (r == "scal")
    l.sscal(n, (it & 1) ? 0.5f : 2.0f, x, 1);
  else if (r == "rot")
    l.srot(n, x, 1, y, 1, 0.6f, 0.8f);
  else if (r == "rotm") {
    int f = c.num("flag");
    float P[5] = {float(f), 0.6f, -0.8f, 0.8f, 0.6f};  // a rotation for flag -1
    if (f == 0) P[2] = P[3] = 0;                       // the identity's entries
    if (f == 1) P[1] = P[4] = 0;                       // a quarter turn
    l.srotm(n, x, 1, y, 1, P);
  } else if (r == "gemv")
    l.sgemv(RM, tr(t), m, n, 0.5f, A, std::max(n, 1), x, 1, 0.5f, y, 1);
  else if (r == "gbmv")
    l.sgbmv(RM, tr(t), m, n, c.kl, c.ku, 0.5f, A, c.kl + c.ku + 1, x, 1, 0.5f,
            y, 1);
  else if (r == "ger")
    l.sger(RM, m, n, sign * 1e-3f, x, 1, y, 1, A, std::max(n, 1));
  else if (r == "symv")
    l.ssymv(RM, up(u), n, 0.5f, A, std::max(n, 1), x, 1, 0.5f, y, 1);
  else if (r == "sbmv")
    l.ssbmv(RM, up(u), n, k, 0.5f, A, k + 1, x, 1, 0.5f, y, 1);
  else if (r == "syr")
    l.ssyr(RM, up(u), n, sign * 1e-3f, x, 1, A, std::max(n, 1));
  else if (r == "syr2")
    l.ssyr2(RM, up(u), n, sign * 1e-3f, x, 1, y, 1, A, std::max(n, 1));
  else if (r == "trmv")
    l.strmv(RM, up(u), tr(t), dg(d), n, A, std::max(n, 1), x, 1);
  else if (r == "trsv")
    l.strsv(RM, up(u), tr(t), dg(d), n, A, std::max(n, 1), x, 1);
  else if (r == "tbmv")
    l.stbmv(RM, up(u), tr(t), dg(d), n, k, A, k + 1, x, 1);
  else if (r == "tbsv")
    l.stbsv(RM, up(u), tr(t), dg(d), n, k, A, k + 1, x, 1);
  else if (r == "gemm")
    l.sgemm(RM, tr(t), tr(tb), m, n, k, 0.5f, A, std::max(t == 'T' ? m : k, 1),
            B, std::max(tb == 'T' ? k : n, 1), 0.5f, C, std::max(n, 1));
  else if (r == "symm")
    l.ssymm(RM, sd(s), up(u), m, n, 0.5f, A, std::max(lda_sq, 1), B,
            std::max(n, 1), 0.5f, C, std::max(n, 1));
  else if (r == "syrk")
    l.ssyrk(RM, up(u), tr(t), n, k, 0.5f, A, std::max(t == 'T' ? n : k, 1),
            0.5f, C, std::max(n, 1));
  else if (r == "syr2k")
    l.ssyr2k(RM, up(u), tr(t), n, k, 0.5f, A, std::max(t == 'T' ? n : k, 1), B,
             std::max(t == 'T' ? n : k, 1), 0.5f, C, std::max(n, 1));
  else if (r == "trmm")
    l.strmm(RM, sd(s), up(u), tr(t), dg(d), m, n, 1.0f, A, std::max(lda_sq, 1),
            B, std::max(n, 1));
  else if (r == "trsm")
    l.strsm(RM, sd(s), up(u), tr(t), dg(d), m, n, 1.0f, A, std::max(lda_sq, 1),
            B, std::max(n, 1));
}

template <>
void call<double>(const Blas &l, const Case &c, Operands<double> &o, long it) {
  const std::string &r = c.routine;
  int m = c.m, n = c.n, k = c.k;
  double *A = o.a.data(), *B = o.b.data(), *C = o.c.data(), *x = o.x.data(),
         *y = o.y.data();
  double sign = (it & 1) ? -1.0 : 1.0;
  char t = c.flag("trans", 'N'), u = c.flag("uplo", 'U'),
       d = c.flag("diag", 'N');
  char s = c.flag("side", 'L'), tb = c.flag("trans_b", 'N');
  int lda_sq = s == 'L' ? m : n;
  if (r == "dot")
    o.result[0] += l.ddot(n, x, 1, y, 1);
  else if (r == "asum")
    o.result[0] += l.dasum(n, x, 1);
  else if (r == "nrm2")
    o.result[0] += l.dnrm2(n, x, 1);
  else if (r == "iamax")
    o.result[0] = double(l.idamax(n, x, 1));
  else if (r == "axpy")
    l.daxpy(n, sign * 0.5, x, 1, y, 1);
  else if (r == "copy")
    l.dcopy(n, x, 1, y, 1);
  else if (r == "swap")
    l.dswap(n, x, 1, y, 1);
  else if (r == "scal")
    l.dscal(n, (it & 1) ? 0.5 : 2.0, x, 1);
  else if (r == "rot")
    l.drot(n, x, 1, y, 1, 0.6, 0.8);
  else if (r == "rotm") {
    int f = c.num("flag");
    double P[5] = {double(f), 0.6, -0.8, 0.8, 0.6};
    if (f == 0) P[2] = P[3] = 0;
    if (f == 1) P[1] = P[4] = 0;
    l.drotm(n, x, 1, y, 1, P);
  } else if (r == "gemv")
    l.dgemv(RM, tr(t), m, n, 0.5, A, std::max(n, 1), x, 1, 0.5, y, 1);
  else if (r == "gbmv")
    l.dgbmv(RM, tr(t), m, n, c.kl, c.ku, 0.5, A, c.kl + c.ku + 1, x, 1, 0.5, y,
            1);
  else if (r == "ger")
    l.dger(RM, m, n, sign * 1e-3, x, 1, y, 1, A, std::max(n, 1));
  else if (r == "symv")
    l.dsymv(RM, up(u), n, 0.5, A, std::max(n, 1), x, 1, 0.5, y, 1);
  else if (r == "sbmv")
    l.dsbmv(RM, up(u), n, k, 0.5, A, k + 1, x, 1, 0.5, y, 1);
  else if (r == "syr")
    l.dsyr(RM, up(u), n, sign * 1e-3, x, 1, A, std::max(n, 1));
  else if (r == "syr2")
    l.dsyr2(RM, up(u), n, sign * 1e-3, x, 1, y, 1, A, std::max(n, 1));
  else if (r == "trmv")
    l.dtrmv(RM, up(u), tr(t), dg(d), n, A, std::max(n, 1), x, 1);
  else if (r == "trsv")
    l.dtrsv(RM, up(u), tr(t), dg(d), n, A, std::max(n, 1), x, 1);
  else if (r == "tbmv")
    l.dtbmv(RM, up(u), tr(t), dg(d), n, k, A, k + 1, x, 1);
  else if (r == "tbsv")
    l.dtbsv(RM, up(u), tr(t), dg(d), n, k, A, k + 1, x, 1);
  else if (r == "gemm")
    l.dgemm(RM, tr(t), tr(tb), m, n, k, 0.5, A, std::max(t == 'T' ? m : k, 1),
            B, std::max(tb == 'T' ? k : n, 1), 0.5, C, std::max(n, 1));
  else if (r == "symm")
    l.dsymm(RM, sd(s), up(u), m, n, 0.5, A, std::max(lda_sq, 1), B,
            std::max(n, 1), 0.5, C, std::max(n, 1));
  else if (r == "syrk")
    l.dsyrk(RM, up(u), tr(t), n, k, 0.5, A, std::max(t == 'T' ? n : k, 1), 0.5,
            C, std::max(n, 1));
  else if (r == "syr2k")
    l.dsyr2k(RM, up(u), tr(t), n, k, 0.5, A, std::max(t == 'T' ? n : k, 1), B,
             std::max(t == 'T' ? n : k, 1), 0.5, C, std::max(n, 1));
  else if (r == "trmm")
    l.dtrmm(RM, sd(s), up(u), tr(t), dg(d), m, n, 1.0, A, std::max(lda_sq, 1),
            B, std::max(n, 1));
  else if (r == "trsm")
    l.dtrsm(RM, sd(s), up(u), tr(t), dg(d), m, n, 1.0, A, std::max(lda_sq, 1),
            B, std::max(n, 1));
}

// The outputs of a call: the written buffer (or the scalar result).
template <class T>
std::vector<double> outputs(const Case &c, const Operands<T> &o) {
  const std::string &r = c.routine;
  auto as = [](const std::vector<T> &v) {
    return std::vector<double>(v.begin(), v.end());
  };
  if (r == "dot" || r == "asum" || r == "nrm2" || r == "iamax" ||
      r == "dsdot" || r == "sdsdot" || c.p == "ds" || c.p == "sds")
    return {o.result[0]};
  if (r == "scal" || r == "trmv" || r == "trsv" || r == "tbmv" || r == "tbsv")
    return as(o.x);
  if (r == "swap" || r == "rot" || r == "rotm") {
    auto v = as(o.x), w = as(o.y);
    v.insert(v.end(), w.begin(), w.end());
    return v;
  }
  if (r == "axpy" || r == "copy" || r == "gemv" || r == "gbmv" || r == "symv" ||
      r == "sbmv")
    return as(o.y);
  if (r == "ger" || r == "syr" || r == "syr2") return as(o.a);
  if (r == "trmm" || r == "trsm") return as(o.b);
  return as(o.c);
}

struct Options {
  std::vector<Blas> libraries;
  std::vector<Case> cases;
  int progress_fd = -1;
  std::string status_path;
  double max_call = 5.0;
};

// "" when `got` agrees with exo2blas's `want`, else what differs.
std::string compare(const Case &c, const std::vector<double> &got,
                    const std::vector<double> &want, bool single) {
  double u = single ? 0x1p-24 : 0x1p-53;
  double K = double(inner(c)), gamma = (K + 2) * u / (1 - (K + 2) * u);
  double scale = 0;
  for (double v : want) scale = std::max(scale, std::fabs(v));
  // |alpha| K max|A| max|x| + |beta| max|y0| with |alpha|, |beta|, the
  // inputs <= 1, and the outputs' own size for the norms and solvers.
  double bound = 4 * gamma * (K + 1 + scale) + 1e-30;
  bool exact =
      c.routine == "iamax" || c.routine == "copy" || c.routine == "swap";
  for (size_t i = 0; i < got.size() && i < want.size(); i++) {
    double err = std::fabs(got[i] - want[i]);
    if (exact ? !(got[i] == want[i]) : !(err <= bound)) {
      char buf[160];
      std::snprintf(buf, sizeof buf,
                    "element %zu: %.9g, exo2blas %.9g (bound %.3g)", i, got[i],
                    want[i], exact ? 0.0 : bound);
      return buf;
    }
  }
  return "";
}

bool abnormal(double v) { return v != 0 && !std::isnormal(v); }

// Where finished runs are announced (--progress-fd), or -1.
int progress_fd = -1;

// One line per finished run (a repetition of one library and case):
// written from the run itself, since with random interleaving Google
// Benchmark reports a benchmark only after its last repetition.
void announce(const std::string &name, double seconds) {
  if (progress_fd < 0) return;
  std::string line = "done " + name + " " + std::to_string(seconds) + "\n";
  ssize_t written = write(progress_fd, line.data(), line.size());
  (void)written;
}

template <class T>
void register_case(const Options &opt, const Case &c, std::ofstream &status,
                   std::map<std::string, long> &timed_out) {
  const Blas *exo = nullptr;
  for (const Blas &l : opt.libraries)
    if (l.name == "exo2blas") exo = &l;
  Operands<T> reference;
  if (exo) {
    fill(reference, c, 1);
    call(*exo, c, reference, 0);
  }
  for (const Blas &lib : opt.libraries) {
    auto variant = c.kv.find("variant");
    std::string key =
        lib.name + "/" + (variant == c.kv.end() ? c.routine : variant->second);
    auto limit = timed_out.find(key);
    if (limit != timed_out.end() && c.size() >= limit->second) {
      status << lib.name << " " << c.id
             << " timeout larger than a case over the limit\n";
      continue;
    }
    Operands<T> once;
    fill(once, c, 1);
    auto t0 = std::chrono::steady_clock::now();
    call(lib, c, once, 0);
    double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0)
            .count();
    if (exo && &lib != exo) {
      std::string wrong =
          compare(c, outputs(c, once), outputs(c, reference), sizeof(T) == 4);
      if (!wrong.empty()) {
        status << lib.name << " " << c.id << " wrong " << wrong << "\n";
        continue;
      }
    }
    if (seconds > opt.max_call) {
      status << lib.name << " " << c.id << " timeout " << seconds
             << " s per call\n";
      timed_out[key] = c.size();
      continue;
    }
    status << lib.name << " " << c.id << " ok\n";
    const Blas *l = &lib;
    Case cc = c;
    std::string name = lib.name + "/" + c.id;
    benchmark::RegisterBenchmark(
        name.c_str(), [l, cc, name](benchmark::State &st) {
          // Cold: enough sets to cover the pool, used in turn.
          Shape s = shape_of(cc);
          size_t set_bytes =
              (s.a + s.b + s.c + s.x + s.y + 5) * sizeof(T) + 4096 + 64;
          size_t pool = size_t(std::max(cc.num("pool_mib"), 1)) << 20;
          size_t sets = cc.cold ? std::max<size_t>(1, pool / set_bytes) : 1;
          sets = std::min<size_t>(sets, 4096);
          std::vector<Operands<T>> ops(sets);
          for (size_t i = 0; i < sets; i++) fill(ops[i], cc, unsigned(i + 1));
          long it = 0;
          auto start = std::chrono::steady_clock::now();
          for (auto _ : st) {
            Operands<T> &o = ops[size_t(it) % sets];
            call(*l, cc, o, it++);
            benchmark::DoNotOptimize(o.result[0]);
            benchmark::ClobberMemory();
          }
          bool bad = false;
          for (auto &o : ops)
            for (double v : outputs(cc, o)) bad |= abnormal(v);
          st.counters["invalid"] = bad ? 1 : 0;
          announce(name, std::chrono::duration<double>(
                             std::chrono::steady_clock::now() - start)
                             .count());
        });
  }
}

}  // namespace

int main(int argc, char **argv) {
  Options opt;
  std::vector<char *> rest = {argv[0]};
  std::string cases_path;
  for (int i = 1; i < argc; i++) {
    std::string a = argv[i];
    auto value = [&](const char *flag) -> const char * {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "%s needs a value\n", flag);
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--cases")
      cases_path = value("--cases");
    else if (a == "--library") {
      std::string spec = value("--library");
      auto eq = spec.find('=');
      Blas b;
      b.name = spec.substr(0, eq);
      if (eq == std::string::npos || !load_blas(spec.substr(eq + 1).c_str(), b))
        return 2;
      opt.libraries.push_back(b);
    } else if (a == "--progress-fd")
      opt.progress_fd = std::atoi(value("--progress-fd"));
    else if (a == "--status")
      opt.status_path = value("--status");
    else if (a == "--max-call")
      opt.max_call = std::atof(value("--max-call"));
    else
      rest.push_back(argv[i]);
  }
  std::ifstream in(cases_path);
  if (!in) {
    std::fprintf(
        stderr,
        "usage: %s --cases FILE --library NAME=PATH ... [benchmark flags]\n",
        argv[0]);
    return 2;
  }
  for (std::string line; std::getline(in, line);)
    if (!line.empty() && line[0] != '#') opt.cases.push_back(parse(line));
  // Smaller cases first, so that a timeout skips the larger ones.
  std::stable_sort(
      opt.cases.begin(), opt.cases.end(),
      [](const Case &a, const Case &b) { return a.size() < b.size(); });
  std::ofstream status(opt.status_path.empty() ? "/dev/null" : opt.status_path);
  std::map<std::string, long> timed_out;
  for (const Case &c : opt.cases) {
    if (c.p == "d")
      register_case<double>(opt, c, status, timed_out);
    else
      register_case<float>(opt, c, status, timed_out);
  }
  status.flush();
  int bargc = int(rest.size());
  benchmark::Initialize(&bargc, rest.data());
  if (benchmark::ReportUnrecognizedArguments(bargc, rest.data())) return 2;
  progress_fd = opt.progress_fd;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
