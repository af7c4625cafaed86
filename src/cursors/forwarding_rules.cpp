// The forwarding rule of each edit (docs/cursors.md "Forwarding across
// rewrites", Exo's internal_cursors.py). Statement-list edits share one
// skeleton: a node whose path passes through the edited list has that one step
// rewritten; a block directly in the list has its range rewritten; everything
// else is untouched, except blocks nested deeper, which follow their owner.
#include <algorithm>

#include "exo2/cursors/forwarding.hpp"

namespace exo2::cursors {

namespace {

constexpr const char* kNodeGone = "node no longer exists";
constexpr const char* kBlockGone = "block no longer exists";
constexpr const char* kParentGone = "block no longer exists (parent deleted)";
constexpr const char* kMoveSplit =
    "move cannot forward block because exactly one endpoint intersects with "
    "moved block";

Path concat(const Path& a, const Path& b) {
  Path out = a;
  out.insert(out.end(), b.begin(), b.end());
  return out;
}

// Whether `path` goes through statement list `list`; `depth` is then the
// position of the step into it.
bool passes_through(const Path& path, const ListAddress& list) {
  const size_t depth = list.owner.size();
  return path.size() > depth && starts_with(path, list.owner) &&
         path[depth].slot == list.slot;
}

bool directly_in(const Location& block, const ListAddress& list) {
  return block.path.size() == list.owner.size() + 1 &&
         passes_through(block.path, list);
}

// A block outside an edited list keeps its range and follows its owner.
Location follow_owner(const Location& block, const ForwardingStep& fwd) {
  Path owner(block.path.begin(), block.path.end() - 1);
  if (owner.empty()) return block;
  Location new_owner;
  try {
    new_owner = fwd.forward(Location::node(std::move(owner)));
  } catch (const InvalidCursorError&) {
    throw InvalidCursorError(kParentGone);
  }
  new_owner.path.push_back(block.path.back());
  return Location::block(std::move(new_owner.path), block.hi);
}

// The skeleton of statement-list edits.
class ListEditForwarding : public ForwardingStep {
 public:
  explicit ListEditForwarding(ListAddress list) : list_(std::move(list)) {}

  Location forward(const Location& loc) const final {
    switch (loc.kind) {
      case LocationKind::Gap:
        return Location::gap(forward(Location::node(loc.path)).path, loc.side);
      case LocationKind::Block:
        return forward_block(loc);
      case LocationKind::Node:
        break;
    }
    if (!passes_through(loc.path, list_)) return loc;
    const size_t depth = list_.owner.size();
    Path out(loc.path.begin(), loc.path.begin() + depth);
    const Path middle = forward_index(loc.path[depth].index);
    out.insert(out.end(), middle.begin(), middle.end());
    out.insert(out.end(), loc.path.begin() + depth + 1, loc.path.end());
    return Location::node(std::move(out));
  }

 protected:
  // The steps that replace step (list.slot, index) of a node path.
  virtual Path forward_index(int index) const = 0;
  // Block [lo, hi) of the list, with its path relative to the list's owner.
  virtual Location forward_range(int lo, int hi) const = 0;

  Step step(int index) const { return Step{list_.slot, index}; }

  ListAddress list_;

 private:
  Location forward_block(const Location& block) const {
    if (directly_in(block, list_)) {
      Location rel = forward_range(block.lo(), block.hi);
      return Location::block(concat(list_.owner, rel.path), rel.hi);
    }
    return follow_owner(block, *this);
  }
};

class InsertForwarding : public ListEditForwarding {
 public:
  InsertForwarding(ListAddress list, int at, int count)
      : ListEditForwarding(std::move(list)), at_(at), count_(count) {}

 protected:
  int shift(int i) const { return i >= at_ ? i + count_ : i; }
  Path forward_index(int index) const override { return {step(shift(index))}; }
  // A block grows only when the gap lies strictly inside it.
  Location forward_range(int lo, int hi) const override {
    return Location::block({step(shift(lo))}, shift(hi - 1) + 1);
  }

 private:
  int at_, count_;
};

class ReplaceForwarding : public ListEditForwarding {
 public:
  ReplaceForwarding(ListAddress list, int lo, int hi, int count)
      : ListEditForwarding(std::move(list)), lo_(lo), hi_(hi), count_(count) {}

 protected:
  int shift(int i) const { return i >= hi_ ? i + count_ - (hi_ - lo_) : i; }
  Path forward_index(int index) const override {
    if (lo_ <= index && index < hi_) throw InvalidCursorError(kNodeGone);
    return {step(shift(index))};
  }
  Location forward_range(int lo, int hi) const override {
    const bool disjoint = hi <= lo_ || hi_ <= lo;
    const bool covers = lo <= lo_ && hi_ <= hi;
    if (!disjoint && !covers) throw InvalidCursorError(kBlockGone);
    const int new_lo = shift(lo), new_hi = shift(hi);
    if (new_lo >= new_hi) throw InvalidCursorError(kBlockGone);
    return Location::block({step(new_lo)}, new_hi);
  }

 private:
  int lo_, hi_, count_;
};

class WrapForwarding : public ListEditForwarding {
 public:
  WrapForwarding(ListAddress list, int lo, int hi, Slot wrapper_slot)
      : ListEditForwarding(std::move(list)),
        lo_(lo),
        hi_(hi),
        wrapper_slot_(wrapper_slot) {}

 protected:
  Path forward_index(int index) const override {
    if (index >= hi_) return {step(index - (hi_ - lo_ - 1))};
    if (index >= lo_) return {step(lo_), Step{wrapper_slot_, index - lo_}};
    return {step(index)};
  }
  Location forward_range(int lo, int hi) const override {
    if (lo >= hi_)
      return Location::block({step(lo - (hi_ - lo_ - 1))},
                             hi - (hi_ - lo_ - 1));
    if (hi <= lo_) return Location::block({step(lo)}, hi);
    if (lo_ <= lo && hi <= hi_)
      return Location::block({step(lo_), Step{wrapper_slot_, lo - lo_}},
                             hi - lo_);
    if (lo <= lo_ && hi_ <= hi)
      return Location::block({step(lo)}, hi - (hi_ - lo_) + 1);
    throw InvalidCursorError(kBlockGone);
  }

 private:
  int lo_, hi_;
  Slot wrapper_slot_;
};

class MoveForwarding : public ForwardingStep {
 public:
  MoveForwarding(ListAddress list, int lo, int hi, Path destination,
                 Forwarding others)
      : list_(std::move(list)),
        lo_(lo),
        hi_(hi),
        destination_(std::move(destination)),
        others_(std::move(others)) {}

  Location forward(const Location& loc) const override {
    switch (loc.kind) {
      case LocationKind::Gap:
        return Location::gap(forward(Location::node(loc.path)).path, loc.side);
      case LocationKind::Block:
        return forward_block(loc);
      case LocationKind::Node:
        break;
    }
    if (!moved(loc.path)) return others_(loc);
    const size_t depth = list_.owner.size();
    Path out = destination_;
    out.back().index += loc.path[depth].index - lo_;
    out.insert(out.end(), loc.path.begin() + depth + 1, loc.path.end());
    return Location::node(std::move(out));
  }

 private:
  bool moved(const Path& path) const {
    if (!passes_through(path, list_)) return false;
    const int index = path[list_.owner.size()].index;
    return lo_ <= index && index < hi_;
  }

  // A block keeps its first and last statements, which must both move or
  // both stay.
  Location forward_block(const Location& block) const {
    if (directly_in(block, list_)) {
      const bool first_in = lo_ <= block.lo() && block.lo() < hi_;
      const bool last_in = lo_ <= block.hi - 1 && block.hi - 1 < hi_;
      if (first_in != last_in) throw InvalidCursorError(kMoveSplit);
    }
    Path last = block.path;
    last.back().index = block.hi - 1;
    Location first = forward(Location::node(block.path));
    const int new_last = forward(Location::node(last)).path.back().index;
    return Location::block(std::move(first.path), new_last + 1);
  }

  ListAddress list_;
  int lo_, hi_;
  Path destination_;
  Forwarding others_;
};

class ExprReplaceForwarding : public ForwardingStep {
 public:
  explicit ExprReplaceForwarding(Path replaced)
      : replaced_(std::move(replaced)) {}

  Location forward(const Location& loc) const override {
    if (loc.kind == LocationKind::Node && loc.path.size() > replaced_.size() &&
        starts_with(loc.path, replaced_))
      throw InvalidCursorError(kNodeGone);
    return loc;
  }

 private:
  Path replaced_;
};

class StmtUpdateForwarding : public ForwardingStep {
 public:
  StmtUpdateForwarding(Path stmt, std::vector<Step> kept_slots)
      : stmt_(std::move(stmt)), kept_slots_(std::move(kept_slots)) {}

  Location forward(const Location& loc) const override {
    const size_t depth = stmt_.size();
    if (loc.kind != LocationKind::Node || loc.path.size() <= depth ||
        !starts_with(loc.path, stmt_) ||
        is_statement_slot(loc.path[depth].slot))
      return loc;
    const bool kept = loc.path.size() == depth + 1 &&
                      std::find(kept_slots_.begin(), kept_slots_.end(),
                                loc.path[depth]) != kept_slots_.end();
    if (!kept) throw InvalidCursorError(kNodeGone);
    return loc;
  }

 private:
  Path stmt_;
  std::vector<Step> kept_slots_;
};

// A statement rewritten apart (statement_rewrite.hpp): the local procedure
// is `[pass, statement, pass]`, so that a block reaching past the statement
// on either side meets the local edits as it would in the real list. A
// location through the statement, or a block holding it, is translated
// into the local procedure, forwarded there, and translated back;
// statements after it shift by `count - 1`.
class StatementRewriteForwarding : public ForwardingStep {
 public:
  StatementRewriteForwarding(Path stmt, int count, Forwarding local)
      : list_(list_of(stmt)),
        index_(stmt.back().index),
        count_(count),
        local_(std::move(local)) {}

  Location forward(const Location& loc) const override {
    if (loc.kind == LocationKind::Block && directly_in(loc, list_))
      return forward_block(loc);
    if (!passes_through(loc.path, list_)) return loc;
    const size_t depth = list_.owner.size();
    const int index = loc.path[depth].index;
    if (index != index_) {
      Location out = loc;
      if (index > index_) out.path[depth].index += count_ - 1;
      return out;
    }
    Location local = loc;
    local.path = Path{Step{Slot::Body, 1}};
    local.path.insert(local.path.end(), loc.path.begin() + depth + 1,
                      loc.path.end());
    return from_local(local_(local));
  }

 private:
  // A local location back in the real procedure. Local statements 1 ..
  // count are the real statements index_ .. index_ + count - 1.
  Location from_local(Location local) const {
    Path out = list_.owner;
    out.push_back(Step{list_.slot, index_ + local.path[0].index - 1});
    out.insert(out.end(), local.path.begin() + 1, local.path.end());
    if (local.kind == LocationKind::Block && local.path.size() == 1)
      local.hi += index_ - 1;
    local.path = std::move(out);
    return local;
  }

  Location forward_block(const Location& block) const {
    const int lo = block.lo(), hi = block.hi;
    if (hi <= index_) return block;
    if (lo > index_) {
      Location out = block;
      out.path.back().index += count_ - 1;
      out.hi += count_ - 1;
      return out;
    }
    // The block holds the statement: the sentinels stand for the
    // statements it holds on either side.
    const int local_lo = lo < index_ ? 0 : 1;
    const int local_hi = hi > index_ + 1 ? 3 : 2;
    Location local =
        local_(Location::block({Step{Slot::Body, local_lo}}, local_hi));
    if (local.path.size() != 1) return from_local(std::move(local));
    const int new_lo =
        local.path[0].index == 0 ? lo : index_ + local.path[0].index - 1;
    const int new_hi =
        local.hi == count_ + 2 ? hi + count_ - 1 : index_ + local.hi - 1;
    Path path = list_.owner;
    path.push_back(Step{list_.slot, new_lo});
    return Location::block(std::move(path), new_hi);
  }

  ListAddress list_;
  int index_, count_;
  Forwarding local_;
};

}  // namespace

Forwarding forward_through_insert(const ListAddress& list, int at, int count) {
  return Forwarding(std::make_shared<InsertForwarding>(list, at, count));
}

Forwarding forward_through_replace(const ListAddress& list, int lo, int hi,
                                   int count) {
  return Forwarding(std::make_shared<ReplaceForwarding>(list, lo, hi, count));
}

Forwarding forward_through_wrap(const ListAddress& list, int lo, int hi,
                                Slot wrapper_slot) {
  return Forwarding(
      std::make_shared<WrapForwarding>(list, lo, hi, wrapper_slot));
}

Forwarding forward_through_move(const ListAddress& list, int lo, int hi,
                                Path destination, Forwarding others) {
  return Forwarding(std::make_shared<MoveForwarding>(
      list, lo, hi, std::move(destination), std::move(others)));
}

Forwarding forward_through_expr_replace(Path replaced) {
  return Forwarding(
      std::make_shared<ExprReplaceForwarding>(std::move(replaced)));
}

Forwarding forward_through_statement_rewrite(Path stmt, int count,
                                             Forwarding local) {
  return Forwarding(std::make_shared<StatementRewriteForwarding>(
      std::move(stmt), count, std::move(local)));
}

Forwarding forward_through_stmt_update(Path stmt,
                                       std::vector<Step> kept_slots) {
  return Forwarding(std::make_shared<StmtUpdateForwarding>(
      std::move(stmt), std::move(kept_slots)));
}

}  // namespace exo2::cursors
