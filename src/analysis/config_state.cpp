#include "exo2/analysis/config_state.hpp"

#include <optional>
#include <unordered_set>

#include "exo2/core_ir/ir_visitor.hpp"

namespace exo2 {

namespace {

void add_once(std::vector<Location>& fields, const Location& f) {
  for (const Location& known : fields)
    if (known.same_as(f)) return;
  fields.push_back(f);
}

// The fields a body writes, callees included (each callee once).
class WriteCollector : public IRVisitor {
 public:
  explicit WriteCollector(std::vector<Location>& out)
      : IRVisitor(Visits::StatementsOnly), out_(out) {}

 protected:
  void visit_write_config(const WriteConfig& w) override {
    add_once(out_, Location{Sym(), w.config, w.field});
  }
  void visit_call(const Call& c) override {
    if (c.f && callees_.insert(c.f.get()).second) visit(c.f->body);
  }

 private:
  std::vector<Location>& out_;
  std::unordered_set<const ProcNode*> callees_;
};

// The fields an expression reads, each once, at its first read.
class ReadCollector : public IRVisitor {
 public:
  explicit ReadCollector(std::vector<ConfigRead>& out) : out_(out) {}

 protected:
  void visit_read_config(const ReadConfig& r) override {
    Location f{Sym(), r.config, r.field};
    for (const ConfigRead& known : out_)
      if (known.field.same_as(f)) return;
    out_.push_back(ConfigRead{std::move(f), r.srcinfo});
  }

 private:
  std::vector<ConfigRead>& out_;
};

std::vector<Location> control_fields(std::vector<Location> fields) {
  std::vector<Location> out;
  for (Location& f : fields)
    if (is_control_field(f)) out.push_back(std::move(f));
  return out;
}

z3::expr fresh_value(SmtEncoder& enc, const Location& field) {
  const std::string hint = field.config->name() + "." + field.field;
  return field.config->lookup_type(field.field).is_bool() ? enc.fresh_bool(hint)
                                                          : enc.fresh_int(hint);
}

std::vector<z3::expr> current_values(SmtEncoder& enc,
                                     const std::vector<Location>& fields) {
  std::vector<z3::expr> values;
  for (const Location& f : fields)
    values.push_back(enc.config_field(*f.config, f.field));
  return values;
}

// The values of `fields` after running `code`, leaving `enc` as it was.
std::vector<z3::expr> values_after(SmtEncoder& enc, const Block& code,
                                   const std::vector<Location>& fields) {
  enc.push();
  for (const Stmt& s : code) advance_config_state(enc, *s);
  std::vector<z3::expr> values = current_values(enc, fields);
  enc.pop();
  return values;
}

// Binds the strides of a callee's data parameter to those of the buffer
// its argument views: dimension d of a window `x[i, lo:hi]` is the d-th
// interval dimension of x.
void bind_parameter_strides(SmtEncoder& enc, const FnArg& param,
                            const Expr& arg) {
  const size_t rank = param.type.is_tensor() ? param.type.shape().size() : 0;
  for (size_t d = 0; d < rank; ++d) {
    std::optional<z3::expr> stride;
    if (arg->kind == ExprKind::Read && arg->as<Read>().idx.empty()) {
      stride = enc.stride(arg->as<Read>().name, static_cast<int>(d));
    } else if (arg->kind == ExprKind::WindowExpr) {
      const auto& w = arg->as<WindowExpr>();
      size_t seen = 0;
      for (size_t k = 0; k < w.idx.size() && !stride; ++k)
        if (w.idx[k].is_interval && seen++ == d)
          stride = enc.stride(w.name, static_cast<int>(k));
    }
    enc.bind_stride(param.name, static_cast<int>(d),
                    stride ? *stride : enc.fresh_int("stride"));
  }
}

void advance_over_call(SmtEncoder& enc, const Call& c) {
  const std::vector<Location> written =
      control_fields(config_fields_written(c.f->body));
  if (written.empty()) return;
  enc.push();
  for (size_t k = 0; k < c.args.size() && k < c.f->args.size(); ++k) {
    const FnArg& param = c.f->args[k];
    const Expr& arg = c.args[k];
    if (param.type.is_control()) {
      enc.bind(param.name,
               SmtEncoder::is_encodable(arg)
                   ? enc.encode(arg)
                   : (param.type.is_bool() ? enc.fresh_bool(param.name.name())
                                           : enc.fresh_int(param.name.name())));
    } else {
      bind_parameter_strides(enc, param, arg);
    }
  }
  for (const Stmt& s : c.f->body) advance_config_state(enc, *s);
  const std::vector<z3::expr> values = current_values(enc, written);
  enc.pop();
  for (size_t k = 0; k < written.size(); ++k)
    enc.bind_config(*written[k].config, written[k].field, values[k]);
}

}  // namespace

std::vector<Location> config_fields_written(const Block& code) {
  std::vector<Location> out;
  WriteCollector(out).visit(code);
  return out;
}

std::vector<Location> config_fields_written(const Stmt& s) {
  return config_fields_written(Block{s});
}

std::vector<ConfigRead> config_fields_read(const Expr& e) {
  std::vector<ConfigRead> out;
  ReadCollector(out).visit(e);
  return out;
}

bool reads_any_field(const Expr& e, const std::vector<Location>& fields) {
  if (fields.empty()) return false;
  for (const ConfigRead& r : config_fields_read(e))
    for (const Location& f : fields)
      if (f.same_as(r.field)) return true;
  return false;
}

bool is_control_field(const Location& field) {
  return field.is_config() && field.config->has_field(field.field) &&
         field.config->lookup_type(field.field).is_control();
}

void advance_config_state(SmtEncoder& enc, const StmtNode& s) {
  switch (s.kind) {
    case StmtKind::WriteConfig: {
      const auto& w = s.as<WriteConfig>();
      const Location field{Sym(), w.config, w.field};
      if (!is_control_field(field)) return;
      enc.bind_config(*w.config, w.field,
                      SmtEncoder::is_encodable(w.rhs)
                          ? enc.encode(w.rhs)
                          : fresh_value(enc, field));
      return;
    }
    case StmtKind::If: {
      const auto& i = s.as<If>();
      std::vector<Location> written = config_fields_written(i.body);
      for (const Location& f : config_fields_written(i.orelse))
        add_once(written, f);
      written = control_fields(std::move(written));
      if (written.empty()) return;
      if (!SmtEncoder::is_encodable(i.cond) || !i.cond->type.is_bool()) {
        forget_config_values(enc, written);
        return;
      }
      const z3::expr cond = enc.encode(i.cond);
      const std::vector<z3::expr> taken = values_after(enc, i.body, written);
      const std::vector<z3::expr> other = values_after(enc, i.orelse, written);
      for (size_t k = 0; k < written.size(); ++k)
        enc.bind_config(*written[k].config, written[k].field,
                        z3::ite(cond, taken[k], other[k]));
      return;
    }
    case StmtKind::For:
      forget_config_values(enc, config_fields_written(s.as<For>().body));
      return;
    case StmtKind::With:
      for (const Stmt& inner : s.as<With>().body)
        advance_config_state(enc, *inner);
      return;
    case StmtKind::Call:
      advance_over_call(enc, s.as<Call>());
      return;
    default:
      return;
  }
}

void forget_config_values(SmtEncoder& enc,
                          const std::vector<Location>& fields) {
  for (const Location& f : fields)
    if (is_control_field(f))
      enc.bind_config(*f.config, f.field, fresh_value(enc, f));
}

}  // namespace exo2
