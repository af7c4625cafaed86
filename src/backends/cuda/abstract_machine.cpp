#include "abstract_machine.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <memory>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "commit_groups.hpp"
#include "exo2/analysis/written_buffers.hpp"
#include "exo2/backends/codegen_error.hpp"
#include "exo2/backends/codegen_passes.hpp"
#include "exo2/core_ir/ir_functor.hpp"
#include "exo2/core_ir/ir_visitor.hpp"
#include "exo2/core_ir/printer.hpp"
#include "mbarriers.hpp"

namespace exo2::cuda {

namespace {

// What a later access needs an earlier record to be visible as.
enum AccessClass : uint8_t {
  kInOrder = 1,     // ordinary loads and stores, and issuing async work
  kAsyncProxy = 2,  // TMA writes and wgmma operand reads of shared memory
  kWgmmaReg = 4,    // wgmma accesses of registers (accumulators)
  kTemporal = 8,    // any later write (orders read-before-write only)
  kAllClasses = 15,
};

// How a recorded access executes.
enum class Exec { InOrder, CpAsync, TmaLoad, Wgmma };

struct Threads {
  int cta = 0;
  int lo = 0, hi = 0;  // [lo, hi)
};

struct Visible {
  int lo, hi;
  uint8_t classes;
};

struct Record {
  Threads threads;
  Exec exec = Exec::InOrder;
  bool write = false;
  std::vector<Visible> vis;
  Stmt stmt;
  int64_t task = 0;
  std::string owner;  // element text is built from the later access

  bool visible_to(const Threads& t, uint8_t classes) const {
    if (t.cta != threads.cta) return false;
    // Is [t.lo, t.hi) covered by the entries with one of `classes`?
    std::vector<std::pair<int, int>> spans;
    for (const Visible& v : vis)
      if (v.classes & classes) spans.push_back({v.lo, v.hi});
    std::sort(spans.begin(), spans.end());
    int reached = t.lo;
    for (const auto& [lo, hi] : spans) {
      if (lo > reached) break;
      reached = std::max(reached, hi);
      if (reached >= t.hi) return true;
    }
    return reached >= t.hi;
  }
  bool visible_to_any_of(const Threads& t) const {
    if (t.cta != threads.cta) return false;
    for (const Visible& v : vis)
      if (v.lo < t.hi && t.lo < v.hi) return true;
    return false;
  }
  void add(const Threads& t, uint8_t classes) {
    for (Visible& v : vis)
      if (v.lo == t.lo && v.hi == t.hi) {
        v.classes |= classes;
        return;
      }
    vis.push_back({t.lo, t.hi, classes});
  }
};
using RecordPtr = std::shared_ptr<Record>;

struct Element {
  RecordPtr write;
  std::vector<RecordPtr> reads;
};

struct Buffer {
  std::string name;
  MemKind kind = MemKind::Gmem;
  std::vector<int64_t> extents;  // physical (ring dimensions: their depth)
  std::vector<int> ring;         // depth per dimension, 0 when none
  bool tracked = true;
  std::unordered_map<int64_t, Element> elements;
};

// A name's view of a buffer: each of its dimensions is a dimension of the
// buffer shifted by an offset; points fix the other dimensions.
struct View {
  int buffer = -1;            // -1: untracked (registers, host scalars)
  std::vector<int64_t> base;  // buffer index of the view's origin
  std::vector<int> dims;      // buffer dimension of each view dimension
};

// A committed group of async work (cp.async or wgmma).
struct Group {
  int64_t index;
  std::vector<RecordPtr> records;
};

class Machine {
 public:
  Machine(const Proc& p, const std::vector<KernelAnalysis>& kernels,
          const std::map<std::string, int64_t>& sizes, int sms)
      : proc_(p), kernels_(kernels), sizes_(sizes), sms_(sms) {}

  int64_t run() {
    std::vector<std::string> missing;
    for (const FnArg& a : proc_->args) {
      if (!a.type.is_control()) continue;
      auto it = sizes_.find(a.name.name());
      if (it == sizes_.end()) {
        missing.push_back(a.name.name());
        continue;
      }
      env_[a.name] = it->second;
    }
    if (!missing.empty()) {
      std::string names;
      for (const auto& m : missing) names += (names.empty() ? "" : ", ") + m;
      throw CodegenError(CodegenError::Kind::Value,
                         fmt::format("check_parallel of {} needs a value for "
                                     "{}",
                                     proc_->name, names));
    }
    for (const FnArg& a : proc_->args)
      if (a.type.kind() == TypeKind::Size && env_[a.name] < 1)
        throw CodegenError(CodegenError::Kind::Value,
                           fmt::format("check_parallel: size {} must be "
                                       "positive, got {}",
                                       a.name.name(), env_[a.name]));
    for (const Expr& pred : proc_->preds)
      if (!eval(pred))
        throw CodegenError(CodegenError::Kind::Value,
                           fmt::format("check_parallel: the sizes violate the "
                                       "precondition {}",
                                       print_expr(pred)));
    for (const FnArg& a : proc_->args)
      if (a.type.is_numeric() && a.type.is_tensor())
        views_[a.name] =
            root_view(new_buffer(a.name.name(), mem_kind(a.mem), a.type, {}));
    HostStatement(*this).run(proc_->body);
    if (!errors_.empty()) throw parallel_check_error(std::move(errors_));
    return events_;
  }

 private:
  const Proc& proc_;
  const std::vector<KernelAnalysis>& kernels_;
  const std::map<std::string, int64_t>& sizes_;
  int sms_;
  std::unordered_map<Sym, int64_t> env_;
  std::unordered_map<Sym, View> views_;
  std::vector<Buffer> buffers_;
  std::vector<Diagnostic> errors_;
  std::set<std::string> reported_;
  int64_t events_ = 0;

  // The kernel running.
  const KernelAnalysis* ka_ = nullptr;
  std::unordered_map<const StmtNode*, int> depths_;
  int64_t task_ = 0;
  int ctas_ = 1;
  std::vector<std::vector<std::weak_ptr<Record>>> live_;  // per CTA
  std::map<std::pair<int, const StmtNode*>, int> smem_;   // (cta, alloc)
  // Commit groups of one collective and barrier buffer: those committed
  // and not yet retired (oldest first), and the indices retired.
  struct GroupQueue {
    std::vector<Group> pending;
    std::set<int64_t> retired;
  };
  // Per (cta, first thread, barrier allocation).
  std::map<std::tuple<int, int, const StmtNode*>, GroupQueue> groups_;
  std::unordered_map<Sym, const StmtNode*> barrier_allocs_;
  // mbarriers: per (cta, buffer) the running base and the elements (by
  // global index) arrived or awaited.
  struct MBarrierElement {
    int arrivals = 0;
    std::vector<RecordPtr> snapshot;
    bool awaited = false;
  };
  struct MBarrierState {
    int64_t base = 0;
    std::map<int64_t, MBarrierElement> elements;
  };
  std::map<Sym, MBarrier> mbarriers_;
  std::map<std::pair<int, Sym>, MBarrierState> mbarrier_states_;

  // ---- evaluation ---------------------------------------------------------
  static int64_t floor_div(int64_t a, int64_t b) {
    int64_t q = a / b;
    return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
  }

  // The value of a control expression under the current environment.
  class Evaluator : public ExprFunctor<int64_t()> {
   public:
    explicit Evaluator(Machine& m) : m_(m) {}

   protected:
    int64_t visit_read(const Expr& e) override {
      auto it = m_.env_.find(e->as<Read>().name);
      if (it == m_.env_.end()) return visit_expr_default(e);
      return it->second;
    }
    int64_t visit_const(const Expr& e) override {
      const auto& c = e->as<Const>();
      if (c.is_bool()) return std::get<bool>(c.value);
      if (c.is_int()) return c.int_value();
      return static_cast<int64_t>(std::get<double>(c.value));
    }
    int64_t visit_usub(const Expr& e) override {
      return -visit(e->as<USub>().arg);
    }
    int64_t visit_binop(const Expr& e) override {
      const auto& b = e->as<BinOp>();
      if (b.op == BinOpKind::And) return visit(b.lhs) && visit(b.rhs);
      if (b.op == BinOpKind::Or) return visit(b.lhs) || visit(b.rhs);
      const int64_t x = visit(b.lhs), y = visit(b.rhs);
      switch (b.op) {
        case BinOpKind::Add:
          return x + y;
        case BinOpKind::Sub:
          return x - y;
        case BinOpKind::Mul:
          return x * y;
        case BinOpKind::Div:
          return y == 0 ? 0 : floor_div(x, y);
        case BinOpKind::Mod:
          return y == 0 ? 0 : x - y * floor_div(x, y);
        case BinOpKind::Lt:
          return x < y;
        case BinOpKind::Gt:
          return x > y;
        case BinOpKind::Le:
          return x <= y;
        case BinOpKind::Ge:
          return x >= y;
        case BinOpKind::Eq:
          return x == y;
        default:
          return 0;
      }
    }
    int64_t visit_stride_expr(const Expr& e) override {
      const auto& s = e->as<StrideExpr>();
      const View& v = m_.views_.at(s.name);
      if (v.buffer < 0) return 1;
      const Buffer& b = m_.buffers_[v.buffer];
      int64_t stride = 1;
      for (size_t d = b.extents.size();
           d-- > static_cast<size_t>(v.dims.at(s.dim)) + 1;)
        stride *= b.extents[d];
      return stride;
    }
    int64_t visit_expr_default(const Expr& e) override {
      throw CodegenError(CodegenError::Kind::Value,
                         fmt::format("{}: check_parallel cannot evaluate "
                                     "{}",
                                     e->srcinfo.str(), print_expr(e)));
    }

   private:
    Machine& m_;
  };
  Evaluator evaluator_{*this};

  int64_t eval(const Expr& e) { return evaluator_.visit(e); }

  // ---- buffers ------------------------------------------------------------
  int new_buffer(const std::string& name, MemKind kind, const Type& t,
                 std::vector<int> ring) {
    Buffer b;
    b.name = name;
    b.kind = kind;
    for (size_t d = 0; d < t.shape().size(); ++d) {
      const int r = d < ring.size() ? ring[d] : 0;
      b.ring.push_back(r);
      b.extents.push_back(r ? r : eval(t.shape()[d]));
    }
    buffers_.push_back(std::move(b));
    return static_cast<int>(buffers_.size()) - 1;
  }

  View root_view(int buffer) {
    View v;
    v.buffer = buffer;
    const size_t rank = buffers_[buffer].extents.size();
    v.base.assign(rank, 0);
    for (size_t d = 0; d < rank; ++d) v.dims.push_back(static_cast<int>(d));
    return v;
  }

  View window_view(const WindowExpr& w) {
    auto it = views_.find(w.name);
    if (it == views_.end() || it->second.buffer < 0) return View{};
    const View& parent = it->second;
    View v;
    v.buffer = parent.buffer;
    v.base = parent.base;
    for (size_t d = 0; d < w.idx.size() && d < parent.dims.size(); ++d) {
      const int bd = parent.dims[d];
      v.base[bd] += eval(w.idx[d].lo);
      if (w.idx[d].is_interval) v.dims.push_back(bd);
    }
    return v;
  }

  // ---- host code ----------------------------------------------------------
  // Runs the host statements, and the kernels they launch.
  class HostStatement : public StmtFunctor<void()> {
   public:
    explicit HostStatement(Machine& m) : m_(m) {}

    void run(const Block& b) {
      for (const Stmt& s : b) visit(s);
    }

   protected:
    void visit_for(const Stmt& s) override {
      const auto& f = s->as<For>();
      const int64_t lo = m_.eval(f.lo), hi = m_.eval(f.hi);
      for (int64_t i = lo; i < hi; ++i) {
        m_.env_[f.iter] = i;
        run(f.body);
      }
    }
    void visit_if(const Stmt& s) override {
      const auto& i = s->as<If>();
      run(m_.eval(i.cond) ? i.body : i.orelse);
    }
    void visit_alloc(const Stmt& s) override {
      if (s->kind != StmtKind::Alloc) return;
      const auto& a = s->as<Alloc>();
      if (a.type.is_numeric() && a.type.is_tensor())
        m_.views_[a.name] = m_.root_view(
            m_.new_buffer(a.name.name(), mem_kind(a.mem), a.type, {}));
    }
    void visit_window_stmt(const Stmt& s) override {
      const auto& w = s->as<WindowStmt>();
      if (w.rhs->kind == ExprKind::WindowExpr)
        m_.views_[w.name] = m_.window_view(w.rhs->as<WindowExpr>());
    }
    void visit_with(const Stmt& s) override {
      for (const KernelAnalysis& ka : m_.kernels_)
        if (ka.kernel.with.get() == s.get()) m_.kernel(ka);
    }
    // Everything else of the host does not touch kernel buffers.
    void visit_stmt_default(const Stmt&) override {}

   private:
    Machine& m_;
  };

  // ---- kernels ------------------------------------------------------------
  void kernel(const KernelAnalysis& ka) {
    ka_ = &ka;
    std::vector<Diagnostic> errors;
    depths_ = commit_group_depths(ka.kernel, errors);
    mbarriers_ = mbarriers_of(ka.kernel, ka.collectives, errors);
    mbarrier_states_.clear();
    for (Diagnostic& d : errors) errors_.push_back(std::move(d));
    const Kernel& k = ka.kernel;
    // Buffers the kernel never writes cannot race: untracked.
    std::set<int> written;
    for (const KernelParam& p : k.params)
      if (p.written && views_.count(p.sym) && views_[p.sym].buffer >= 0)
        written.insert(views_[p.sym].buffer);
    for (const KernelParam& p : k.params)
      if (views_.count(p.sym) && views_[p.sym].buffer >= 0)
        buffers_[views_[p.sym].buffer].tracked =
            written.count(views_[p.sym].buffer) > 0;

    std::vector<int64_t> lo, extent;
    int64_t tasks = 1;
    for (const For* f : k.tasks) {
      lo.push_back(eval(f->lo));
      extent.push_back(std::max<int64_t>(0, eval(f->hi) - lo.back()));
      tasks *= extent.back();
    }
    ctas_ = static_cast<int>(std::max<int64_t>(
        1, std::min<int64_t>(tasks, int64_t{sms_} * k.config.blocks_per_sm)));
    live_.assign(ctas_, {});
    smem_.clear();
    groups_.clear();
    for (task_ = 0; task_ < tasks; ++task_) {
      int64_t rest = task_;
      for (size_t i = k.tasks.size(); i-- > 0;) {
        env_[k.tasks[i]->iter] = lo[i] + rest % extent[i];
        rest /= extent[i];
      }
      const int cta = static_cast<int>(task_ % ctas_);
      block(*k.body, cta);
      // Rings keep counting across the tasks of a CTA.
      for (const auto& [sym, m] : mbarriers_)
        mbarrier_state(cta, sym).base += eval(m.extent) - m.prearrive;
    }
    for (const auto& [key, queue] : groups_)
      if (!queue.pending.empty())
        error(k.with->srcinfo,
              fmt::format("kernel {} ends with {} commit groups that no "
                          "Await retires (the latest is group {})",
                          k.name, queue.pending.size(),
                          queue.pending.back().index));
    // Kernel boundaries synchronise everything.
    for (Buffer& b : buffers_) b.elements.clear();
    ka_ = nullptr;
  }

  const Collective& collective(const Stmt& s) const {
    return ka_->collectives.at(s.get());
  }

  Threads threads_of(const Collective& c, int cta) {
    int start = c.base;
    for (const ThreadCut& cut : c.cuts)
      start += static_cast<int>(env_.at(cut.loop->iter)) * cut.unit.threads;
    return {cta, start, start + c.threads};
  }

  void block(const Block& b, int cta) {
    for (const Stmt& s : b) {
      ++events_;
      kernel_statement_.visit(s, cta);
    }
  }

  // Runs a kernel statement on CTA `cta`, recording its accesses.
  class KernelStatement : public StmtFunctor<void(int)> {
   public:
    explicit KernelStatement(Machine& m) : m_(m) {}

   protected:
    void visit_assign(const Stmt& s, int cta) override {
      const auto& a = s->as<Assign>();
      const Threads t = m_.threads_of(m_.collective(s), cta);
      ReadAccesses(m_, s, t).visit(a.rhs);
      std::vector<int64_t> idx;
      for (const Expr& i : a.idx) idx.push_back(m_.eval(i));
      if (s->kind == StmtKind::Reduce)
        m_.access(a.name, idx, false, Exec::InOrder, kInOrder, s, t);
      m_.access(a.name, idx, true, Exec::InOrder, kInOrder, s, t);
    }
    void visit_if(const Stmt& s, int cta) override {
      const auto& i = s->as<If>();
      m_.block(m_.eval(i.cond) ? i.body : i.orelse, cta);
    }
    void visit_for(const Stmt& s, int cta) override {
      const auto& f = s->as<For>();
      const int64_t lo = m_.eval(f.lo), hi = m_.eval(f.hi);
      for (int64_t i = lo; i < hi; ++i) {
        m_.env_[f.iter] = i;
        m_.block(f.body, cta);
      }
    }
    void visit_with(const Stmt& s, int cta) override {
      m_.block(s->as<With>().body, cta);
    }
    void visit_alloc(const Stmt& s, int cta) override {
      if (s->kind != StmtKind::Alloc) return;
      const auto& a = s->as<Alloc>();
      const MemKind kind = mem_kind(a.mem);
      if (is_barrier_memory(kind)) {
        m_.barrier_allocs_[a.name] = s.get();
        return;
      }
      // Registers of one thread are its own; shared memory and fragments
      // (registers of a warp or warpgroup, accessed by instructions) are
      // tracked, one buffer per CTA and allocation.
      if (kind != MemKind::Smem && kind != MemKind::Fragment) {
        m_.views_[a.name] = View{};
        return;
      }
      auto key = std::make_pair(cta, s.get());
      auto it = m_.smem_.find(key);
      if (it == m_.smem_.end()) {
        std::vector<int> ring;
        for (const auto& an : a.type.dim_annotations()) {
          auto d = dim_facts(an);
          ring.push_back(d && d->is_ring ? d->depth : 0);
        }
        it = m_.smem_
                 .emplace(key, m_.new_buffer(a.name.name(), kind, a.type, ring))
                 .first;
      }
      m_.views_[a.name] = m_.root_view(it->second);
    }
    void visit_window_stmt(const Stmt& s, int) override {
      const auto& w = s->as<WindowStmt>();
      m_.views_[w.name] = m_.window_view(w.rhs->as<WindowExpr>());
    }
    void visit_call(const Stmt& s, int cta) override { m_.call(s, cta); }
    void visit_sync(const Stmt& s, int cta) override { m_.sync(s, cta); }
    // Pass; kernels write no configuration fields (the static check).
    void visit_stmt_default(const Stmt&, int) override {}

   private:
    Machine& m_;
  };
  KernelStatement kernel_statement_{*this};

  // The reads of buffer elements in a data expression of statement `s`.
  // (Extern calls, which could hide reads, are refused in kernels by the
  // static check.)
  class ReadAccesses : public IRVisitor {
   public:
    ReadAccesses(Machine& m, const Stmt& s, const Threads& t)
        : m_(m), s_(s), t_(t) {}

   protected:
    void visit_read(const Read& e) override {
      if (!e.type.is_numeric()) return;
      std::vector<int64_t> idx;
      for (const Expr& i : e.idx) idx.push_back(m_.eval(i));
      m_.access(e.name, idx, false, Exec::InOrder, kInOrder, s_, t_);
    }

   private:
    Machine& m_;
    const Stmt& s_;
    const Threads& t_;
  };

  // ---- accesses -----------------------------------------------------------
  // `owned`: the buffer is registers of the executing threads.
  RecordPtr new_record(const Threads& t, Exec exec, bool write, const Stmt& s,
                       bool owned) {
    auto r = std::make_shared<Record>();
    r->threads = t;
    r->exec = exec;
    r->write = write;
    r->stmt = s;
    r->task = task_;
    // A thread's in-order accesses are ordered before its later in-order
    // accesses; so are a collective's reads and its writes of its own
    // registers. Which thread of a collective writes a shared or global
    // element is unknown, so such writes need a Fence; async work is
    // ordered by nothing yet.
    const bool one_thread = t.hi - t.lo == 1;
    if (exec == Exec::InOrder && (one_thread || !write || owned))
      r->vis.push_back({t.lo, t.hi, kInOrder});
    // wgmma operations of a warpgroup on its accumulator run in order.
    if (exec == Exec::Wgmma && owned) r->vis.push_back({t.lo, t.hi, kWgmmaReg});
    live_[t.cta].push_back(r);
    return r;
  }

  // An access of `name[idx]` (a point) by threads `t`.
  void access(const Sym& name, const std::vector<int64_t>& idx, bool write,
              Exec exec, uint8_t cls, const Stmt& s, const Threads& t) {
    auto it = views_.find(name);
    if (it == views_.end() || it->second.buffer < 0) return;
    const View& v = it->second;
    Buffer& b = buffers_[v.buffer];
    if (!b.tracked) return;
    RecordPtr rec = new_record(t, exec, write, s, b.kind == MemKind::Fragment);
    touch(b, v, idx, rec, cls);
  }

  // The logical and physical indices of a view point.
  void touch(Buffer& b, const View& v, const std::vector<int64_t>& idx,
             const RecordPtr& rec, uint8_t cls) {
    std::vector<int64_t> logical = v.base;
    for (size_t d = 0; d < idx.size() && d < v.dims.size(); ++d)
      logical[v.dims[d]] += idx[d];
    int64_t key = 0;
    for (size_t d = 0; d < logical.size(); ++d) {
      const int64_t p = b.ring[d] ? logical[d] % b.ring[d] : logical[d];
      key = key * b.extents[d] + p;
    }
    Element& e = b.elements[key];
    check(b, logical, e, rec, cls);
    if (rec->write) {
      e.write = rec;
      e.reads.clear();
    } else if (e.reads.empty() || e.reads.back() != rec) {
      e.reads.push_back(rec);
    }
  }

  void check(const Buffer& b, const std::vector<int64_t>& logical,
             const Element& e, const RecordPtr& rec, uint8_t cls) {
    if (e.write && e.write != rec && !e.write->visible_to(rec->threads, cls))
      hazard(rec->write ? "WAW" : "RAW", b, logical, *e.write, *rec);
    if (!rec->write) return;
    for (const RecordPtr& r : e.reads)
      if (r != rec && !r->visible_to(rec->threads, kAllClasses))
        hazard("WAR", b, logical, *r, *rec);
  }

  // ---- reports ------------------------------------------------------------
  std::string threads_text(const Threads& t) const {
    const int n = t.hi - t.lo;
    std::string who;
    if (n == 1)
      who = fmt::format("thread {}", t.lo);
    else if (n == 32 && t.lo % 32 == 0)
      who = fmt::format("warp {}", t.lo / 32);
    else if (n == 128 && t.lo % 128 == 0)
      who = fmt::format("warpgroup {}", t.lo / 128);
    else if (n == ka_->kernel.config.threads)
      who = "all threads";
    else
      who = fmt::format("threads {}-{}", t.lo, t.hi - 1);
    return fmt::format("{} of CTA {}", who, t.cta);
  }

  std::string task_text(int64_t task) const {
    const Kernel& k = ka_->kernel;
    std::vector<int64_t> lo, extent;
    std::string out;
    int64_t rest = task;
    std::vector<std::string> parts(k.tasks.size());
    for (size_t i = k.tasks.size(); i-- > 0;) {
      const For& f = *k.tasks[i];
      // Bounds only use sizes, which do not change during the launch.
      const int64_t l = const_cast<Machine*>(this)->eval(f.lo);
      const int64_t e = const_cast<Machine*>(this)->eval(f.hi) - l;
      parts[i] = fmt::format("{}={}", f.iter.name(), l + rest % e);
      rest /= e;
    }
    for (size_t i = 0; i < parts.size(); ++i) out += (i ? ", " : "") + parts[i];
    return "(" + out + ")";
  }

  static std::string statement_text(const Stmt& s) {
    if (s->kind == StmtKind::Call) return s->as<Call>().f->name;
    std::string text = print_stmt(s);
    const size_t nl = text.find('\n');
    if (nl != std::string::npos) text = text.substr(0, nl);
    while (!text.empty() && text.front() == ' ') text.erase(0, 1);
    return "`" + text + "`";
  }

  void hazard(const char* kind, const Buffer& b,
              const std::vector<int64_t>& logical, const Record& first,
              const Record& second) {
    const std::string key =
        fmt::format("{}{}{}", kind, static_cast<const void*>(first.stmt.get()),
                    static_cast<const void*>(second.stmt.get()));
    if (!reported_.insert(key).second || errors_.size() >= 20) return;
    std::string element = b.name + "[";
    bool ring = false;
    for (size_t d = 0; d < logical.size(); ++d) {
      element += (d ? ", " : "") + std::to_string(logical[d]);
      ring |= b.ring[d] != 0;
    }
    element += "]";
    if (ring) {
      element += " (slot ";
      for (size_t d = 0; d < logical.size(); ++d)
        if (b.ring[d]) element += std::to_string(logical[d] % b.ring[d]);
      element += ")";
    }
    const char* first_verb = first.write ? "written" : "read";
    const char* second_verb = second.write ? "written" : "read";
    error(second.stmt->srcinfo,
          fmt::format("{} hazard on {}: {} by {} ({}) by {} in task {}; {} by "
                      "{} ({}) by {} in task {}; no synchronisation orders "
                      "them",
                      kind, element, first_verb, statement_text(first.stmt),
                      first.stmt->srcinfo.str(), threads_text(first.threads),
                      task_text(first.task), second_verb,
                      statement_text(second.stmt), second.stmt->srcinfo.str(),
                      threads_text(second.threads), task_text(second.task)));
  }

  void error(const SrcInfo& at, std::string message) {
    errors_.push_back({at, std::move(message)});
  }

  // ---- instructions -------------------------------------------------------
  static Exec exec_of(const std::string& timeline) {
    if (timeline == "cp_async") return Exec::CpAsync;
    if (timeline == "tma_load") return Exec::TmaLoad;
    if (timeline == "wgmma") return Exec::Wgmma;
    return Exec::InOrder;
  }

  // The parameters an instruction's body reads.
  static std::set<Sym> read_params(const Block& body) {
    ParamReads reads;
    reads.visit(body);
    return std::move(reads.out);
  }

  // What `read_params` counts as a read: the buffers read by expressions,
  // and the destination of a reduction, in assignments, conditions and the
  // arguments of calls (not in loop bounds, allocations or windows).
  class ParamReads : public IRVisitor {
   public:
    std::set<Sym> out;

   protected:
    void visit_read(const Read& e) override {
      out.insert(e.name);
      IRVisitor::visit_read(e);
    }
    void visit_window_expr(const WindowExpr& e) override { out.insert(e.name); }
    void visit_assign(const Assign& s) override {
      if (s.kind == StmtKind::Reduce) out.insert(s.name);
      visit(s.rhs);
    }
    void visit_for(const For& s) override { visit(s.body); }
    void visit_call(const Call& s) override { visit(s.args); }
    void visit_write_config(const WriteConfig&) override {}
    void visit_alloc(const Alloc&) override {}
    void visit_window_stmt(const WindowStmt&) override {}
    void visit_with(const With&) override {}
    void visit_sync(const Sync&) override {}
  };

  void call(const Stmt& s, int cta) {
    const auto& c = s->as<Call>();
    const Threads t = threads_of(collective(s), cta);
    const InstrFacts facts = instr_facts(*c.f);
    const Exec exec = exec_of(facts.timeline);
    const std::vector<Sym> writes = written_buffers(c.f->body);
    const std::set<Sym> readset = read_params(c.f->body);
    std::vector<RecordPtr> issued;
    for (size_t k = 0; k < c.args.size() && k < c.f->args.size(); ++k) {
      const Expr& a = c.args[k];
      const FnArg& param = c.f->args[k];
      if (!a->type.is_numeric()) continue;
      View v;
      std::vector<std::pair<int64_t, int64_t>> region;  // per view dim
      if (a->kind == ExprKind::WindowExpr) {
        v = window_view(a->as<WindowExpr>());
        for (const WindowAccess& w : a->as<WindowExpr>().idx)
          if (w.is_interval) region.push_back({0, eval(w.hi) - eval(w.lo)});
      } else {
        const auto& r = a->as<Read>();
        auto it = views_.find(r.name);
        if (it == views_.end()) continue;
        v = it->second;
        if (!r.idx.empty()) {
          View point = v;
          for (size_t d = 0; d < r.idx.size() && d < v.dims.size(); ++d)
            point.base[v.dims[d]] += eval(r.idx[d]);
          point.dims.clear();
          v = point;
        } else if (v.buffer >= 0) {
          for (int d : v.dims)
            region.push_back({0, buffers_[v.buffer].extents[d]});
        }
      }
      if (v.buffer < 0 || !buffers_[v.buffer].tracked) continue;
      const bool is_write =
          std::find(writes.begin(), writes.end(), param.name) != writes.end();
      const bool is_read = readset.count(param.name) > 0;
      const auto flags = facts.access_flags(param.name.name());
      const bool async_proxy =
          std::find(flags.begin(), flags.end(), "async_proxy") != flags.end();
      const MemKind pk = mem_kind(param.mem);
      uint8_t cls = kInOrder;
      if (async_proxy) cls = kAsyncProxy;
      if (exec == Exec::Wgmma && pk == MemKind::Fragment) cls = kWgmmaReg;
      for (const bool w : {false, true}) {
        if ((w && !is_write) || (!w && !is_read)) continue;
        RecordPtr rec = new_record(
            t, exec, w, s, buffers_[v.buffer].kind == MemKind::Fragment);
        issued.push_back(rec);
        each_point(region, [&](const std::vector<int64_t>& idx) {
          touch(buffers_[v.buffer], v, idx, rec, cls);
        });
      }
    }
    if (exec == Exec::CpAsync || exec == Exec::Wgmma)
      pending_async_[{t.cta, t.lo}].insert(pending_async_[{t.cta, t.lo}].end(),
                                           issued.begin(), issued.end());
    // The instruction itself arrives on its trailing barriers when its
    // accesses are complete.
    for (const Expr& b : c.barriers) mbarrier_arrive(s, b, t, 1, issued);
  }

  // Async work issued by a collective (keyed by CTA and first thread), not
  // yet committed to a group.
  std::map<std::pair<int, int>, std::vector<RecordPtr>> pending_async_;

  template <class F>
  static void each_point(const std::vector<std::pair<int64_t, int64_t>>& r,
                         F&& f) {
    std::vector<int64_t> idx(r.size());
    for (size_t d = 0; d < r.size(); ++d) {
      idx[d] = r[d].first;
      if (r[d].first >= r[d].second) return;
    }
    while (true) {
      f(idx);
      size_t d = r.size();
      while (d-- > 0) {
        if (++idx[d] < r[d].second) break;
        idx[d] = r[d].first;
      }
      if (d == static_cast<size_t>(-1)) return;
    }
  }

  // ---- synchronisation ----------------------------------------------------
  static uint8_t post_classes(Timeline post) {
    switch (post) {
      case Timeline::InOrder:
        return kInOrder;
      case Timeline::AsyncProxy:
        return kInOrder | kAsyncProxy;
      case Timeline::WgmmaOperands:
        return kWgmmaReg;
      case Timeline::Temporal:
        return kTemporal;
      default:
        return 0;
    }
  }

  // Whether `pre` selects record `r` for collective `t`: its own accesses
  // of that timeline, and what already happens before one of its threads.
  static bool selects(Timeline pre, const Record& r, const Threads& t) {
    const bool own =
        r.threads.cta == t.cta && t.lo <= r.threads.lo && r.threads.hi <= t.hi;
    switch (pre) {
      case Timeline::InOrder:
        return (own && r.exec == Exec::InOrder) ||
               has_class_overlap(r, t, kInOrder);
      case Timeline::CpAsync:
        return own && r.exec == Exec::CpAsync;
      case Timeline::Wgmma:
        return own && r.exec == Exec::Wgmma;
      case Timeline::Temporal:
        return !r.write && (own || r.visible_to_any_of(t));
      default:
        return false;
    }
  }

  static bool has_class_overlap(const Record& r, const Threads& t,
                                uint8_t cls) {
    if (r.threads.cta != t.cta) return false;
    for (const Visible& v : r.vis)
      if ((v.classes & cls) && v.lo < t.hi && t.lo < v.hi) return true;
    return false;
  }

  // Fence(pre, post) by `t`: what `pre` selects becomes visible to `t`
  // under `post`.
  void fence(Timeline pre, Timeline post, const Threads& t) {
    const uint8_t cls = post_classes(post);
    auto& live = live_[t.cta];
    size_t kept = 0;
    for (size_t i = 0; i < live.size(); ++i) {
      RecordPtr r = live[i].lock();
      if (!r) continue;
      if (selects(pre, *r, t)) r->add(t, cls);
      live[kept++] = live[i];
    }
    live.resize(kept);
  }

  void sync(const Stmt& s, int cta) {
    const auto& y = s->as<Sync>();
    const Threads t = threads_of(collective(s), cta);
    if (y.sync == SyncKind::Fence) {
      fence(timeline_of(y.pre), timeline_of(y.post), t);
      return;
    }
    const Expr& b = y.barriers.front();
    const Sym& g = b->as<Read>().name;
    auto alloc = barrier_allocs_.find(g);
    if (alloc == barrier_allocs_.end()) return;
    const auto& a = static_cast<const Alloc&>(*alloc->second);
    const MemKind kind = mem_kind(a.mem);
    if (kind == MemKind::CpAsyncGroup || kind == MemKind::WgmmaGroup) {
      commit_group(s, y, t, alloc->second, kind);
      return;
    }
    if (kind == MemKind::MBarrier) {
      if (y.sync == SyncKind::Await) {
        mbarrier_await(s, b, t, post_classes(timeline_of(y.post)));
        return;
      }
      // What `pre` selects, snapshotted on each element.
      std::vector<RecordPtr> selected;
      for (const auto& w : live_[t.cta])
        if (RecordPtr r = w.lock())
          if (selects(timeline_of(y.pre), *r, t)) selected.push_back(r);
      const int n = t.hi - t.lo == 1 ? 1 : (t.hi - t.lo) / 32;
      for (const Expr& target : y.barriers)
        mbarrier_arrive(s, target, t, n, selected);
      return;
    }
    error(s->srcinfo, "check_parallel does not support this barrier yet");
  }

  MBarrierState& mbarrier_state(int cta, const Sym& g) {
    auto key = std::make_pair(cta, g);
    auto it = mbarrier_states_.find(key);
    if (it != mbarrier_states_.end()) return it->second;
    MBarrierState st;
    // A prearrived ring starts with its first elements complete.
    const MBarrier& m = mbarriers_.at(g);
    for (int64_t e = 0; e < m.prearrive; ++e) {
      st.elements[e].arrivals = m.arrivals;
    }
    return mbarrier_states_.emplace(key, std::move(st)).first->second;
  }

  std::string element_text(const Expr& b, int64_t global) {
    const MBarrier& m = mbarriers_.at(b->as<Read>().name);
    return fmt::format("{} (global element {}, slot {})", print_expr(b), global,
                       global % m.depth);
  }

  void mbarrier_arrive(const Stmt& s, const Expr& b, const Threads& t, int n,
                       const std::vector<RecordPtr>& records) {
    const Sym& g = b->as<Read>().name;
    if (!mbarriers_.count(g)) return;
    const MBarrier& m = mbarriers_.at(g);
    MBarrierState& st = mbarrier_state(t.cta, g);
    const int64_t global = st.base + eval(b->as<Read>().idx.front());
    // The slot is reused: its previous element must have been awaited.
    const int64_t previous = global - m.depth;
    if (previous >= 0 && !st.elements[previous].awaited)
      error(s->srcinfo,
            fmt::format("{} arrives on {} before global element {} of the "
                        "same slot was awaited: the arrival would complete "
                        "the wrong phase",
                        statement_text(s), element_text(b, global), previous));
    MBarrierElement& e = st.elements[global];
    e.arrivals += n;
    if (e.arrivals > m.arrivals)
      error(s->srcinfo, fmt::format("{} arrives on {} once too many ({} "
                                    "arrivals, {} expected)",
                                    statement_text(s), element_text(b, global),
                                    e.arrivals, m.arrivals));
    e.snapshot.insert(e.snapshot.end(), records.begin(), records.end());
  }

  void mbarrier_await(const Stmt& s, const Expr& b, const Threads& t,
                      uint8_t cls) {
    const Sym& g = b->as<Read>().name;
    if (!mbarriers_.count(g)) return;
    const MBarrier& m = mbarriers_.at(g);
    MBarrierState& st = mbarrier_state(t.cta, g);
    const int64_t global = st.base + eval(b->as<Read>().idx.front());
    MBarrierElement& e = st.elements[global];
    // The sequential order is a legal schedule only if the element is
    // complete before it is awaited; otherwise the wait may never end.
    if (e.arrivals < m.arrivals)
      error(s->srcinfo,
            fmt::format("`{}` waits for {}, which has {} of its {} arrivals "
                        "at that point: the wait may never end",
                        print_stmt(s), element_text(b, global), e.arrivals,
                        m.arrivals));
    for (const RecordPtr& r : e.snapshot) r->add(t, cls);
    e.awaited = true;
  }

  void commit_group(const Stmt& s, const Sync& y, const Threads& t,
                    const StmtNode* alloc, MemKind kind) {
    GroupQueue& q = groups_[{t.cta, t.lo, alloc}];
    auto& queue = q.pending;
    const Expr& b = y.barriers.front();
    const int64_t index = eval(b->as<Read>().idx.back());
    const Exec exec =
        kind == MemKind::CpAsyncGroup ? Exec::CpAsync : Exec::Wgmma;
    if (y.sync == SyncKind::Arrive) {
      Group g{index, {}};
      auto& pending = pending_async_[{t.cta, t.lo}];
      std::vector<RecordPtr> rest;
      for (RecordPtr& r : pending)
        (r->exec == exec ? g.records : rest).push_back(std::move(r));
      pending = std::move(rest);
      queue.push_back(std::move(g));
      return;
    }
    auto depth = depths_.find(s.get());
    if (depth == depths_.end()) return;  // reported by the static analysis
    const size_t keep = static_cast<size_t>(depth->second);
    const uint8_t cls = post_classes(timeline_of(y.post)) | kInOrder;
    while (queue.size() > keep) {
      Group g = std::move(queue.front());
      queue.erase(queue.begin());
      q.retired.insert(g.index);
      for (const RecordPtr& r : g.records) r->add(t, cls);
    }
    if (!q.retired.count(index))
      error(s->srcinfo,
            fmt::format(
                "`{}` waits until at most {} groups are pending, but "
                "group {} is {}",
                print_stmt(s), keep, index,
                std::any_of(queue.begin(), queue.end(),
                            [&](const Group& g) { return g.index == index; })
                    ? "still pending"
                    : "not committed"));
  }
};

}  // namespace

int64_t run_abstract_machine(const Proc& p,
                             const std::vector<KernelAnalysis>& kernels,
                             const std::map<std::string, int64_t>& sizes,
                             int sms) {
  return Machine(p, kernels, sizes, sms).run();
}

}  // namespace exo2::cuda
