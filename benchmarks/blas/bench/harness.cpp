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
// row-major with unit increments and tight leading dimensions. Every
// library runs one thread: the harness sets OMP_NUM_THREADS and the
// libraries' own variables to 1 where the environment does not
// (one_thread).
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
//
// --drift FILE [--drift-every SECONDS]: drift sentinels. At the start, every
// SECONDS (default 600) between benchmarks, and at the end, two fixed cases
// of the first library other than exo2blas (whose code does not change
// from run to run) -- sdot of 2^20 elements and sgemm of 1024 -- are timed
// outside Google Benchmark's loops (the median of 5 calls after one) and
// appended to FILE as `SECONDS_SINCE_START NAME MEDIAN_SECONDS` lines: a
// clock or load change during the run shows there.
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <type_traits>
#include <utility>
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

// FNV-1a of `text`: a seed that is the same in every run and library.
uint32_t fnv1a(const std::string &text) {
  uint32_t h = 2166136261u;
  for (unsigned char ch : text) h = (h ^ ch) * 16777619u;
  return h;
}

// The operands of case `c`, uniform in [-1, 1], drawn from a generator
// seeded by the case's id and `seed` (the set's number): every library
// gets the same data, and each case its own. (With one seed for all cases
// every size's x began with the same values, and the largest |x_i| of
// every iamax of up to 256 elements was x[0]: all asked for index 0.)
template <class T>
void fill(Operands<T> &o, const Case &c, unsigned seed) {
  Shape s = shape_of(c);
  std::seed_seq seeds{seed, fnv1a(c.id)};
  std::mt19937 rng(seeds);
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

// One call of a library's routine on a set of operands; `it` alternates
// the constants that keep the data bounded.
template <class T>
using Call = std::function<void(Operands<T> &, long)>;

// The call of case `c` to library `l`. Everything the case's words decide
// (the routine, its flags, sizes and leading dimensions, the function
// pointer) is decided here, once: the timed loop runs the routine and
// nothing else of the case (string comparisons and map lookups per call
// cost some 100 ns, as much as a whole level-1 call of 64 elements).
template <class T>
Call<T> bind_call(const Blas &l, const Case &c) {
  using R = Routines<T>;
  using O = Operands<T>;
  const std::string &r = c.routine;
  const int m = c.m, n = c.n, k = c.k, kl = c.kl, ku = c.ku;
  const char t = c.flag("trans", 'N'), tb = c.flag("trans_b", 'N');
  const CBLAS_TRANSPOSE ta = tr(t), tB = tr(tb);
  const CBLAS_UPLO u = up(c.flag("uplo", 'U'));
  const CBLAS_DIAG d = dg(c.flag("diag", 'N'));
  const CBLAS_SIDE s = sd(c.flag("side", 'L'));
  const int ld_n = std::max(n, 1);
  const int ld_sq = std::max(c.flag("side", 'L') == 'L' ? m : n, 1);
  const int ld_nk = std::max(t == 'T' ? n : k, 1);
  const T half = T(0.5), one = T(1), small = T(1e-3);
  auto sign = [](long it) { return (it & 1) ? T(-1) : T(1); };
  if constexpr (std::is_same_v<T, float>) {
    if (c.p == "ds")
      return [f = l.dsdot, n](O &o, long) {
        o.result[0] += f(n, o.x.data(), 1, o.y.data(), 1);
      };
    if (c.p == "sds")
      return [f = l.sdsdot, n](O &o, long) {
        o.result[0] += f(n, 0.5f, o.x.data(), 1, o.y.data(), 1);
      };
  }
  if (r == "dot")
    return [f = l.*R::dot, n](O &o, long) {
      o.result[0] += f(n, o.x.data(), 1, o.y.data(), 1);
    };
  if (r == "asum")
    return
        [f = l.*R::asum, n](O &o, long) { o.result[0] += f(n, o.x.data(), 1); };
  if (r == "nrm2")
    return
        [f = l.*R::nrm2, n](O &o, long) { o.result[0] += f(n, o.x.data(), 1); };
  if (r == "iamax")
    return [f = l.*R::amax, n](O &o, long) {
      o.result[0] = double(f(n, o.x.data(), 1));
    };
  if (r == "axpy")
    return [f = l.*R::axpy, n, half, sign](O &o, long it) {
      f(n, sign(it) * half, o.x.data(), 1, o.y.data(), 1);
    };
  if (r == "copy")
    return
        [f = l.*R::copy, n](O &o, long) { f(n, o.x.data(), 1, o.y.data(), 1); };
  if (r == "swap")
    return
        [f = l.*R::swap, n](O &o, long) { f(n, o.x.data(), 1, o.y.data(), 1); };
  if (r == "scal")
    return [f = l.*R::scal, n](O &o, long it) {
      f(n, (it & 1) ? T(0.5) : T(2), o.x.data(), 1);
    };
  if (r == "rot")
    return [f = l.*R::rot, n](O &o, long) {
      f(n, o.x.data(), 1, o.y.data(), 1, T(0.6), T(0.8));
    };
  if (r == "rotm") {
    // A rotation for flag -1, the identity's entries for 0, a quarter turn
    // for 1.
    const int flag = c.num("flag");
    std::array<T, 5> P = {T(flag), T(0.6), T(-0.8), T(0.8), T(0.6)};
    if (flag == 0) P[2] = P[3] = 0;
    if (flag == 1) P[1] = P[4] = 0;
    return [f = l.*R::rotm, n, P](O &o, long) {
      f(n, o.x.data(), 1, o.y.data(), 1, P.data());
    };
  }
  if (r == "gemv")
    return [f = l.*R::gemv, ta, m, n, half, ld_n](O &o, long) {
      f(RM, ta, m, n, half, o.a.data(), ld_n, o.x.data(), 1, half, o.y.data(),
        1);
    };
  if (r == "gbmv")
    return [f = l.*R::gbmv, ta, m, n, kl, ku, half](O &o, long) {
      f(RM, ta, m, n, kl, ku, half, o.a.data(), kl + ku + 1, o.x.data(), 1,
        half, o.y.data(), 1);
    };
  if (r == "ger")
    return [f = l.*R::ger, m, n, small, ld_n, sign](O &o, long it) {
      f(RM, m, n, sign(it) * small, o.x.data(), 1, o.y.data(), 1, o.a.data(),
        ld_n);
    };
  if (r == "symv")
    return [f = l.*R::symv, u, n, half, ld_n](O &o, long) {
      f(RM, u, n, half, o.a.data(), ld_n, o.x.data(), 1, half, o.y.data(), 1);
    };
  if (r == "sbmv")
    return [f = l.*R::sbmv, u, n, k, half](O &o, long) {
      f(RM, u, n, k, half, o.a.data(), k + 1, o.x.data(), 1, half, o.y.data(),
        1);
    };
  if (r == "syr")
    return [f = l.*R::syr, u, n, small, ld_n, sign](O &o, long it) {
      f(RM, u, n, sign(it) * small, o.x.data(), 1, o.a.data(), ld_n);
    };
  if (r == "syr2")
    return [f = l.*R::syr2, u, n, small, ld_n, sign](O &o, long it) {
      f(RM, u, n, sign(it) * small, o.x.data(), 1, o.y.data(), 1, o.a.data(),
        ld_n);
    };
  if (r == "trmv" || r == "trsv") {
    auto f = r == "trmv" ? l.*R::trmv : l.*R::trsv;
    return [f, u, ta, d, n, ld_n](O &o, long) {
      f(RM, u, ta, d, n, o.a.data(), ld_n, o.x.data(), 1);
    };
  }
  if (r == "tbmv" || r == "tbsv") {
    auto f = r == "tbmv" ? l.*R::tbmv : l.*R::tbsv;
    return [f, u, ta, d, n, k](O &o, long) {
      f(RM, u, ta, d, n, k, o.a.data(), k + 1, o.x.data(), 1);
    };
  }
  if (r == "gemm") {
    const int lda = std::max(t == 'T' ? m : k, 1);
    const int ldb = std::max(tb == 'T' ? k : n, 1);
    return [f = l.*R::gemm, ta, tB, m, n, k, half, lda, ldb, ld_n](O &o, long) {
      f(RM, ta, tB, m, n, k, half, o.a.data(), lda, o.b.data(), ldb, half,
        o.c.data(), ld_n);
    };
  }
  if (r == "symm")
    return [f = l.*R::symm, s, u, m, n, half, ld_sq, ld_n](O &o, long) {
      f(RM, s, u, m, n, half, o.a.data(), ld_sq, o.b.data(), ld_n, half,
        o.c.data(), ld_n);
    };
  if (r == "syrk")
    return [f = l.*R::syrk, u, ta, n, k, half, ld_nk, ld_n](O &o, long) {
      f(RM, u, ta, n, k, half, o.a.data(), ld_nk, half, o.c.data(), ld_n);
    };
  if (r == "syr2k")
    return [f = l.*R::syr2k, u, ta, n, k, half, ld_nk, ld_n](O &o, long) {
      f(RM, u, ta, n, k, half, o.a.data(), ld_nk, o.b.data(), ld_nk, half,
        o.c.data(), ld_n);
    };
  if (r == "trmm" || r == "trsm") {
    auto f = r == "trmm" ? l.*R::trmm : l.*R::trsm;
    return [f, s, u, ta, d, m, n, one, ld_sq, ld_n](O &o, long) {
      f(RM, s, u, ta, d, m, n, one, o.a.data(), ld_sq, o.b.data(), ld_n);
    };
  }
  std::fprintf(stderr, "harness: unknown routine '%s'\n", r.c_str());
  std::exit(2);
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
  std::string drift_path;
  double drift_every = 600;
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

// The drift sentinels (--drift): timed when `due()`.
class Sentinels {
 public:
  void start(const Blas *library, const std::string &path, double every) {
    library_ = library;
    out_.open(path);
    every_ = every;
    dot_.c = parse("id=sdot_1048576 routine=dot p=s n=1048576 cache=warm");
    gemm_.c =
        parse("id=sgemm_1024 routine=gemm p=s m=1024 n=1024 k=1024 cache=warm");
    for (Sentinel *s : {&dot_, &gemm_}) {
      fill(s->operands, s->c, 1);
      s->call = bind_call<float>(*library_, s->c);
    }
    begin_ = last_ = std::chrono::steady_clock::now();
    run();
  }
  bool due() const {
    return library_ &&
           seconds(last_, std::chrono::steady_clock::now()) >= every_;
  }
  void run() {
    if (!library_) return;
    for (Sentinel *s : {&dot_, &gemm_}) {
      std::vector<double> times;
      for (int i = 0; i < 6; i++) {
        auto t0 = std::chrono::steady_clock::now();
        s->call(s->operands, i);
        if (i > 0)
          times.push_back(seconds(t0, std::chrono::steady_clock::now()));
      }
      std::nth_element(times.begin(), times.begin() + 2, times.end());
      out_ << seconds(begin_, std::chrono::steady_clock::now()) << " "
           << library_->name << "/" << s->c.id << " " << times[2] << "\n";
    }
    out_.flush();
    last_ = std::chrono::steady_clock::now();
  }

 private:
  struct Sentinel {
    Case c;
    Operands<float> operands;
    Call<float> call;
  };
  static double seconds(std::chrono::steady_clock::time_point a,
                        std::chrono::steady_clock::time_point b) {
    return std::chrono::duration<double>(b - a).count();
  }
  const Blas *library_ = nullptr;
  std::ofstream out_;
  double every_ = 600;
  Sentinel dot_, gemm_;
  std::chrono::steady_clock::time_point begin_, last_;
};

Sentinels sentinels;

template <class T>
void register_case(const Options &opt, const Case &c, std::ofstream &status,
                   std::map<std::string, long> &timed_out) {
  const Blas *exo = nullptr;
  for (const Blas &l : opt.libraries)
    if (l.name == "exo2blas") exo = &l;
  Operands<T> reference;
  if (exo) {
    fill(reference, c, 1);
    bind_call<T>(*exo, c)(reference, 0);
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
    Call<T> bound = bind_call<T>(lib, c);
    auto t0 = std::chrono::steady_clock::now();
    bound(once, 0);
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
    Case cc = c;
    std::string name = lib.name + "/" + c.id;
    auto *registered = benchmark::RegisterBenchmark(
        name.c_str(), [bound, cc, name](benchmark::State &st) {
          // Cold: enough sets to cover the pool, used in turn.
          Shape s = shape_of(cc);
          size_t set_bytes =
              (s.a + s.b + s.c + s.x + s.y + 5) * sizeof(T) + 4096 + 64;
          size_t pool = size_t(std::max(cc.num("pool_mib"), 1)) << 20;
          size_t sets = cc.cold ? std::max<size_t>(1, pool / set_bytes) : 1;
          sets = std::min<size_t>(sets, 4096);
          std::vector<Operands<T>> ops(sets);
          for (size_t i = 0; i < sets; i++) fill(ops[i], cc, unsigned(i + 1));
          if (sentinels.due()) sentinels.run();  // outside the timed loop
          long it = 0;
          size_t set = 0;
          auto start = std::chrono::steady_clock::now();
          for (auto _ : st) {
            Operands<T> &o = ops[set];
            bound(o, it++);
            if (++set == sets) set = 0;
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
    // the case's own count (benchcases.py gives large cases more), else
    // --benchmark_repetitions
    if (c.num("repetitions") > 0) registered->Repetitions(c.num("repetitions"));
  }
}

// One thread per library, as exo2blas/run.py's ONE_THREAD sets for the
// runs it starts; a value the environment already holds is kept. Set
// before any library is loaded, which is when they read them. With MKL
// loaded at its default (an OpenMP thread per core) its threads kept
// spinning on the harness's core after each call, and every library's
// time doubled (isamax of 16 elements 12.6 -> 25 ns on the Intel Xeon VM,
// MKL, OpenBLAS and BLIS loaded beside libexo2blas). The settings are in
// the JSON output's context (`threads`).
const std::array<std::pair<const char *, const char *>, 5> kOneThread = {{
    {"OMP_NUM_THREADS", "1"},
    {"OPENBLAS_NUM_THREADS", "1"},
    {"BLIS_NUM_THREADS", "1"},
    {"MKL_NUM_THREADS", "1"},
    {"MKL_THREADING_LAYER", "SEQUENTIAL"},
}};

std::string one_thread() {
  std::string settings;
  for (const auto &[name, value] : kOneThread) {
    setenv(name, value, 0);
    settings += std::string(settings.empty() ? "" : " ") + name + "=" +
                std::getenv(name);
  }
  return settings;
}

}  // namespace

int main(int argc, char **argv) {
  const std::string threads = one_thread();
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
    else if (a == "--drift")
      opt.drift_path = value("--drift");
    else if (a == "--drift-every")
      opt.drift_every = std::atof(value("--drift-every"));
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
  benchmark::AddCustomContext("threads", threads);
  if (benchmark::ReportUnrecognizedArguments(bargc, rest.data())) return 2;
  progress_fd = opt.progress_fd;
  if (!opt.drift_path.empty())
    for (const Blas &l : opt.libraries)
      if (l.name != "exo2blas") {
        sentinels.start(&l, opt.drift_path, opt.drift_every);
        break;
      }
  benchmark::RunSpecifiedBenchmarks();
  sentinels.run();
  benchmark::Shutdown();
  return 0;
}
