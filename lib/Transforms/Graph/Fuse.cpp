//===- Fuse.cpp - fusion groups with a cost model -------------------------===//
//
// Greedy fusion in the spirit of Inductor's scheduler: ops are classified
// (elementwise, reduction, row-wise, matmul), producers and consumers merge
// into groups when the merged group still compiles to one kernel, siblings
// reading one input merge horizontally, and each group of two or more ops
// becomes a tgc.fusion_group region. Fusion decides performance, not
// semantics: the lowering of any grouping is correct.
//
//===----------------------------------------------------------------------===//

#include "tgc/Transforms/Passes.h"

#include "Pointwise.h"
#include "tgc/Dialect/Tgc/IR/TgcOps.h"
#include "tgc/Dialect/TgcSym/IR/TgcSymOps.h"

#include "mlir/Analysis/TopologicalSortUtils.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/EquivalenceClasses.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/TypeSwitch.h"

#include <map>

namespace mlir::tgc {
#define GEN_PASS_DEF_TGCFUSE
#include "tgc/Transforms/Graph/Passes.h.inc"
} // namespace mlir::tgc

using namespace mlir;
using namespace mlir::tgc;

namespace {

enum class Kind { Elementwise, Reduction, Rows, Matmul, Convolution, None };

StringRef kindName(Kind k) {
  switch (k) {
  case Kind::Elementwise:
    return "elementwise";
  case Kind::Reduction:
    return "reduction";
  case Kind::Rows:
    return "rows";
  case Kind::Matmul:
    return "matmul";
  case Kind::Convolution:
    return "convolution";
  case Kind::None:
    return "single";
  }
  return "single";
}

bool isElementwise(Operation *op) {
  return isPointwiseOp(op) || isa<ExpandOp, PhiloxUniformOp>(op);
}

/// The dims a reduction reduces, if `op` is one.
std::optional<SmallVector<int64_t>> reducedDims(Operation *op) {
  return llvm::TypeSwitch<Operation *, std::optional<SmallVector<int64_t>>>(op)
      .Case<SumOp, MeanOp, AmaxOp, AminOp, VarOp, NormOp>(
          [](auto r) -> std::optional<SmallVector<int64_t>> {
            return SmallVector<int64_t>(r.getDims());
          })
      .Case<ArgmaxOp, ArgminOp, MaxOp, MinOp>(
          [](auto r) -> std::optional<SmallVector<int64_t>> {
            return SmallVector<int64_t>{static_cast<int64_t>(r.getDim())};
          })
      .Default([](Operation *) { return std::nullopt; });
}

/// Whether a reduction reduces exactly the trailing dims of its input
/// (so that it works row by row).
bool isRowReduction(Operation *op) {
  std::optional<SmallVector<int64_t>> dims = reducedDims(op);
  if (!dims || dims->empty())
    return false;
  int64_t rank =
      cast<RankedTensorType>(op->getOperand(0).getType()).getRank();
  SmallVector<int64_t> sorted(*dims);
  llvm::sort(sorted);
  for (auto [i, d] : llvm::enumerate(llvm::reverse(sorted)))
    if (d != rank - 1 - static_cast<int64_t>(i))
      return false;
  return true;
}

bool isRowOp(Operation *op) {
  if (auto s = dyn_cast<SoftmaxOp>(op))
    return static_cast<int64_t>(s.getDim()) ==
           s.getInput().getType().getRank() - 1;
  if (auto s = dyn_cast<LogSoftmaxOp>(op))
    return static_cast<int64_t>(s.getDim()) ==
           s.getInput().getType().getRank() - 1;
  return isa<LayerNormOp, RmsNormOp>(op);
}

/// A permute that joins groups as elementwise work (option `permutes`):
/// any but a swap of the last two dims that a matmul reads, directly or
/// through a reshape (a GEMM reads such a transpose itself, also under a
/// collapse of batch dims: tgc-gpu-fold-gemm-transposes). A head merge
/// ([0, 2, 1, 3]) before a projection is a copy either way.
bool isFusiblePermute(Operation *op) {
  auto permute = dyn_cast<PermuteOp>(op);
  if (!permute)
    return false;
  ArrayRef<int64_t> perm = permute.getPermutation();
  int64_t rank = static_cast<int64_t>(perm.size());
  bool lastTwoSwapped =
      rank >= 2 && perm[rank - 1] == rank - 2 && perm[rank - 2] == rank - 1;
  for (int64_t i = 0; i + 2 < rank; ++i)
    lastTwoSwapped &= perm[i] == i;
  if (!lastTwoSwapped)
    return true;
  auto isMatmul = [](Operation *user) {
    return isa<MatmulOp, BmmOp, LinearOp>(user);
  };
  return llvm::none_of(op->getUsers(), [&](Operation *user) {
    return isMatmul(user) ||
           (isa<ReshapeOp>(user) && llvm::any_of(user->getUsers(), isMatmul));
  });
}

Kind classify(Operation *op, bool permutes) {
  if (isElementwise(op) || (permutes && isFusiblePermute(op)))
    return Kind::Elementwise;
  if (isRowOp(op))
    return Kind::Rows;
  if (reducedDims(op))
    return isRowReduction(op) ? Kind::Rows : Kind::Reduction;
  if (isa<MatmulOp, BmmOp, LinearOp>(op))
    return Kind::Matmul;
  if (isa<Conv2dOp>(op))
    return Kind::Convolution;
  return Kind::None;
}

/// The leading (row) shape of a row-wise op: its input without the
/// reduced/normalized trailing dims.
SmallVector<int64_t> rowShape(Operation *op) {
  auto in = cast<RankedTensorType>(op->getOperand(0).getType());
  int64_t trailing = 1;
  if (auto ln = dyn_cast<LayerNormOp>(op))
    trailing = ln.getNormalizedRank();
  else if (auto rn = dyn_cast<RmsNormOp>(op))
    trailing = rn.getNormalizedRank();
  else if (std::optional<SmallVector<int64_t>> dims = reducedDims(op))
    trailing = dims->size();
  return SmallVector<int64_t>(in.getShape().drop_back(trailing));
}

/// Shapes agree for fusion purposes (`?` matches anything: fusion is a
/// performance decision, the lowering is correct for any grouping).
bool shapesAgree(ArrayRef<int64_t> a, ArrayRef<int64_t> b) {
  if (a.size() != b.size())
    return false;
  for (auto [x, y] : llvm::zip(a, b))
    if (x != y && !ShapedType::isDynamic(x) && !ShapedType::isDynamic(y))
      return false;
  return true;
}

ArrayRef<int64_t> shapeOf(Value v) {
  return cast<RankedTensorType>(v.getType()).getShape();
}

/// The users of `v` that compute with it: shape annotations (tgc_sym.bind)
/// are not, and those of values that move into a group are dropped.
auto computeUsers(Value v) {
  return llvm::make_filter_range(
      v.getUsers(), [](Operation *u) { return !isa<sym::BindOp>(u); });
}

/// The number of users of `v` that compute with it.
int64_t countComputeUsers(Value v) {
  auto users = computeUsers(v);
  return std::distance(users.begin(), users.end());
}

struct Group {
  Kind kind;
  SmallVector<Operation *> ops; // program order
  /// For rows groups: the row shape.
  SmallVector<int64_t> rows;
};

class Fuser {
public:
  Fuser(Block &block, unsigned maxGroupSize, bool permutes)
      : block(block), maxGroupSize(maxGroupSize), siblingViews(permutes) {
    int64_t n = 0;
    for (Operation &op : block) {
      position[&op] = n++;
      Kind k = classify(&op, permutes);
      if (k == Kind::None || op.getNumResults() == 0)
        continue;
      // A group's inputs are tensors: an op with size operands (a dynamic
      // expand) stays a kernel of its own.
      if (llvm::any_of(op.getOperandTypes(),
                       [](Type t) { return !isa<RankedTensorType>(t); }))
        continue;
      unsigned id = groups.size();
      Group g{k, {&op}, {}};
      if (k == Kind::Rows)
        g.rows = rowShape(&op);
      groups.push_back(g);
      groupOf[&op] = id;
    }
  }

  void run() {
    // Vertical: each consumer tries to absorb its producers' groups.
    for (Operation &op : block) {
      if (!groupOf.count(&op))
        continue;
      for (Value operand : op.getOperands()) {
        Operation *producer = operand.getDefiningOp();
        if (!producer || !groupOf.count(producer))
          continue;
        unsigned pg = find(producer), cg = find(&op);
        if (pg == cg)
          continue;
        if (std::optional<Group> merged =
                mergeVertical(groups[pg], groups[cg], producer, &op, operand))
          merge(pg, cg, *merged);
      }
    }
    // Horizontal: groups that read one value (an argument or a result)
    // over the same space.
    SmallVector<Value> values(block.getArguments().begin(),
                              block.getArguments().end());
    for (Operation &op : block)
      llvm::append_range(values, op.getResults());
    {
      // With `permutes` (the GPU's fusion), groups that read views
      // (slices, reshapes) of one value read that value: a fused QKV
      // projection's q, k and v head splits, which
      // tgc-fuse-group-elementwise then makes one kernel.
      llvm::MapVector<Value, SmallVector<unsigned>> readersOf;
      for (Value result : values) {
        Value base = siblingViews ? viewBase(result) : result;
        SmallVector<unsigned> &readers = readersOf[base];
        for (Operation *user : result.getUsers())
          if (groupOf.count(user) && !llvm::is_contained(readers, find(user)))
            readers.push_back(find(user));
      }
      for (auto &[base, readers] : readersOf) {
        for (size_t i = 0; i < readers.size(); ++i)
          for (size_t j = i + 1; j < readers.size(); ++j) {
            unsigned a = find(groups[readers[i]].ops.front());
            unsigned b = find(groups[readers[j]].ops.front());
            if (a == b)
              continue;
            if (std::optional<Group> merged =
                    mergeHorizontal(groups[a], groups[b]))
              merge(a, b, *merged);
          }
      }
    }
  }

  /// The groups of at least two ops, each as a list of ops in program order.
  std::vector<Group> finalGroups() {
    std::map<unsigned, Group> byRoot;
    for (Operation &op : block) {
      if (!groupOf.count(&op))
        continue;
      unsigned g = find(&op);
      auto [it, inserted] = byRoot.try_emplace(g, Group{groups[g].kind, {}, {}});
      it->second.ops.push_back(&op);
    }
    std::vector<Group> out;
    for (auto &[id, g] : byRoot)
      if (g.ops.size() >= 2)
        out.push_back(g);
    return out;
  }

private:
  unsigned find(Operation *op) {
    unsigned g = groupOf[op];
    while (parent.count(g))
      g = parent[g];
    return g;
  }

  void merge(unsigned a, unsigned b, const Group &merged) {
    // Keep `b`'s id as the representative.
    parent[a] = b;
    groups[b] = merged;
    spans.clear();
  }

  /// The last position a path into `to` can pass: every edge outside a
  /// group goes forward in program order, so a path drops back only by
  /// entering a group of several ops at a later member and leaving at an
  /// earlier one. From the last op of `to`, extended by each such group
  /// that starts at or before the limit, to a fixed point: an op after
  /// the limit reaches only ops after it (a group it enters starts after
  /// the limit too), never `to`.
  int64_t reachLimit(const Group &to) {
    if (spans.empty()) {
      for (unsigned g = 0; g < groups.size(); ++g)
        if (!parent.count(g) && groups[g].ops.size() > 1)
          spans.push_back({position[groups[g].ops.front()],
                           position[groups[g].ops.back()]});
      llvm::sort(spans);
      spans.push_back({INT64_MAX, INT64_MAX}); // not empty once computed
    }
    int64_t limit = position[to.ops.back()];
    for (auto [first, last] : spans) {
      if (first > limit)
        break;
      limit = std::max(limit, last);
    }
    return limit;
  }

  /// Merging `a` and `b` would create a cycle: a path from one to the other
  /// through an op in neither. Groups formed so far are single nodes of the
  /// graph the materialized function will have, so the walk steps from any
  /// member of a third group to the users of all its members (a path that
  /// enters a group at one member may leave it at another, which may come
  /// earlier in program order: no walk can stop at the target's position).
  bool wouldCycle(const Group &a, const Group &b) {
    // (Membership in a and b, and what a walk has seen, by position: these
    // walks are most of the pass on a deep model, whose sibling merges try
    // every pair of a value's readers, and hashing was most of them.)
    if (side.empty()) {
      side.assign(position.size(), 0);
      seenStamp.assign(position.size(), 0);
      groupStamp.assign(groups.size(), 0);
    }
    for (Operation *op : a.ops)
      side[position.lookup(op)] = 1;
    for (Operation *op : b.ops)
      side[position.lookup(op)] = 2;
    auto reachesThroughOutside = [&](const Group &from, uint8_t to) {
      int64_t limit = reachLimit(to == 2 ? b : a);
      if (++stamp == 0) { // (after 2^32 walks: the marks start again)
        llvm::fill(seenStamp, 0);
        llvm::fill(groupStamp, 0);
        stamp = 1;
      }
      SmallVector<Operation *> work;
      // Pushes the users of `op` that lie outside both groups; true when
      // one of them is in `to`.
      auto pushUsers = [&](Operation *op) {
        for (Operation *user : op->getUsers()) {
          user = block.findAncestorOpInBlock(*user);
          if (!user)
            continue;
          int64_t at = position.lookup(user);
          if (side[at] == to)
            return true;
          if (at <= limit && side[at] == 0)
            work.push_back(user);
        }
        return false;
      };
      for (Operation *op : from.ops)
        for (Operation *user : op->getUsers()) {
          user = block.findAncestorOpInBlock(*user);
          if (!user)
            continue;
          int64_t at = position.lookup(user);
          if (at <= limit && side[at] == 0)
            work.push_back(user);
        }
      while (!work.empty()) {
        Operation *op = work.pop_back_val();
        uint32_t &seen = seenStamp[position.lookup(op)];
        if (seen == stamp)
          continue;
        seen = stamp;
        auto grouped = groupOf.find(op);
        if (grouped == groupOf.end()) {
          if (pushUsers(op))
            return true;
          continue;
        }
        unsigned g = find(op);
        if (groupStamp[g] == stamp)
          continue;
        groupStamp[g] = stamp;
        for (Operation *member : groups[g].ops) {
          seenStamp[position.lookup(member)] = stamp;
          if (pushUsers(member))
            return true;
        }
      }
      return false;
    };
    bool cycle = reachesThroughOutside(a, 2) || reachesThroughOutside(b, 1);
    for (Operation *op : a.ops)
      side[position.lookup(op)] = 0;
    for (Operation *op : b.ops)
      side[position.lookup(op)] = 0;
    return cycle;
  }

  std::optional<Group> combine(const Group &a, const Group &b, Kind kind) {
    if (a.ops.size() + b.ops.size() > maxGroupSize)
      return std::nullopt;
    // A permute (option `permutes`) is elementwise work only beside
    // elementwise work: in a rows or reduction group it would read or
    // write across rows, and the group would no longer be one row kernel.
    auto hasPermute = [](const Group &g) {
      return llvm::any_of(g.ops,
                          [](Operation *op) { return isa<PermuteOp>(op); });
    };
    if ((kind == Kind::Rows || kind == Kind::Reduction) &&
        (hasPermute(a) || hasPermute(b)))
      return std::nullopt;
    if (wouldCycle(a, b))
      return std::nullopt;
    Group g{kind, {}, {}};
    llvm::append_range(g.ops, a.ops);
    llvm::append_range(g.ops, b.ops);
    llvm::sort(g.ops, [&](Operation *x, Operation *y) {
      return position[x] < position[y];
    });
    g.rows = !a.rows.empty() ? a.rows : b.rows;
    return g;
  }

  /// `producer` (in group `p`) feeds `consumer` (in group `c`) through
  /// `value`.
  std::optional<Group> mergeVertical(const Group &p, const Group &c,
                                     Operation *producer, Operation *consumer,
                                     Value value) {
    Kind pk = p.kind, ck = c.kind;
    // Elementwise producers fuse into anything but a matmul or a
    // convolution (GEMM libraries take no prologue, and an im2col would
    // recompute one per window element): chains, reduction prologues, rows.
    if (pk == Kind::Elementwise && ck != Kind::Matmul &&
        ck != Kind::Convolution) {
      if (ck == Kind::Rows && !p.rows.empty() && !c.rows.empty() &&
          !shapesAgree(p.rows, c.rows))
        return std::nullopt;
      return combine(p, c, ck);
    }
    // Epilogues: elementwise consumers of a reduction, rows or matmul
    // group.
    if (ck == Kind::Elementwise) {
      ArrayRef<int64_t> produced = shapeOf(value);
      ArrayRef<int64_t> space = shapeOf(consumer->getResult(0));
      if (pk == Kind::Matmul || pk == Kind::Convolution) {
        // cuBLASLt-style epilogue: the product's only user, over its
        // space (a convolution's bias and ReLU: one pass over its output
        // instead of two). A permute is no epilogue (it moves elements).
        if (isa<PermuteOp>(consumer) || countComputeUsers(value) != 1 ||
            !shapesAgree(produced, space))
          return std::nullopt;
        return combine(p, c, pk);
      }
      if (pk == Kind::Reduction) {
        if (!shapesAgree(produced, space))
          return std::nullopt; // broadcast back over reduced dims: 2 passes
        return combine(p, c, Kind::Reduction);
      }
      if (pk == Kind::Rows) {
        // Row-wise: the consumer's space is the rows, or the rows with
        // trailing dims (a keepdim result broadcast back along them).
        if (space.size() < p.rows.size() ||
            !shapesAgree(space.take_front(p.rows.size()), p.rows))
          return std::nullopt;
        return combine(p, c, Kind::Rows);
      }
      return std::nullopt;
    }
    // Row-wise ops over the same rows (softmax then entropy, softmax then
    // layer norm). A multi-pass row op (layer norm: mean, variance, then
    // normalize) reads the producer's row several times; tgc-form-kernels
    // computes that row once per iteration into a temporary (until
    // 2026-11-28 each pass recomputed it, four exps per element, and this
    // rule kept such ops apart: a row written to memory and read back).
    if (pk == Kind::Rows && ck == Kind::Rows && shapesAgree(p.rows, c.rows))
      return combine(p, c, Kind::Rows);
    return std::nullopt;
  }

  std::optional<Group> mergeHorizontal(const Group &a, const Group &b) {
    if (a.kind != b.kind || a.kind == Kind::Matmul ||
        a.kind == Kind::Convolution)
      return std::nullopt;
    if (a.kind == Kind::Rows && !shapesAgree(a.rows, b.rows))
      return std::nullopt;
    if (a.kind != Kind::Rows) {
      // Same iteration space: the last ops' results agree.
      ArrayRef<int64_t> sa = shapeOf(a.ops.back()->getResult(0));
      ArrayRef<int64_t> sb = shapeOf(b.ops.back()->getResult(0));
      if (!shapesAgree(sa, sb))
        return std::nullopt;
    }
    return combine(a, b, a.kind);
  }

  /// The value `v` is a view of: through slices and reshapes that are not
  /// in a group (they stay views of their input).
  Value viewBase(Value v) {
    while (Operation *def = v.getDefiningOp()) {
      if (!isa<SliceOp, ReshapeOp>(def) || groupOf.count(def))
        break;
      v = def->getOperand(0);
    }
    return v;
  }

  Block &block;
  unsigned maxGroupSize;
  /// Horizontal merges through views (option `permutes`).
  bool siblingViews;
  DenseMap<Operation *, int64_t> position;
  std::vector<Group> groups;
  DenseMap<Operation *, unsigned> groupOf;
  DenseMap<unsigned, unsigned> parent;
  /// (first, last) positions of the groups of several ops, sorted, for
  /// reachLimit; emptied by each merge.
  std::vector<std::pair<int64_t, int64_t>> spans;
  /// wouldCycle's state by position: 1 in the first group, 2 in the
  /// second, else 0; the walk's stamp where it has seen an op, by group id
  /// where it has seen a group.
  std::vector<uint8_t> side;
  std::vector<uint32_t> seenStamp, groupStamp;
  uint32_t stamp = 0;
};

/// Whether `v` is a matmul's result, or a bias add of one, that nothing
/// but its next op reads: a GEMM epilogue can extend it (an add of a
/// product read elsewhere too stays out of the GEMM's group, and then a
/// reshape moved below it would only end the next group).
bool fromMatmul(Value v) {
  Operation *def = v.getDefiningOp();
  if (!def || countComputeUsers(v) != 1)
    return false;
  if (isa<MatmulOp, BmmOp, LinearOp>(def))
    return true;
  return isa<AddOp>(def) && llvm::any_of(def->getOperands(), [](Value operand) {
           return isa_and_present<MatmulOp, BmmOp, LinearOp>(
                      operand.getDefiningOp()) &&
                  countComputeUsers(operand) == 1;
         });
}

/// `add(reshape(x), y)` with x a matmul's result (or its bias add's), the
/// reshape static and read only there, and y of the add's own static type
/// (no broadcast): `reshape(add(x, reshape(y)))`. The add then reads the
/// product over its own space and joins the matmul's group as its
/// epilogue (GPT-2's residual after its `addmm`'s view). Operand order is
/// kept.
void sinkReshapesBelowAdds(Block &block) {
  SmallVector<AddOp> adds;
  for (Operation &op : block)
    if (auto add = dyn_cast<AddOp>(op))
      adds.push_back(add);
  for (AddOp add : adds) {
    auto type = dyn_cast<RankedTensorType>(add.getType());
    if (!type || !type.hasStaticShape())
      continue;
    for (unsigned side = 0; side < 2; ++side) {
      auto reshape = add->getOperand(side).getDefiningOp<ReshapeOp>();
      Value other = add->getOperand(1 - side);
      if (!reshape || !reshape.getDynamicSizes().empty() ||
          countComputeUsers(reshape.getResult()) != 1 ||
          other.getType() != type || reshape.getType() != type ||
          !fromMatmul(reshape.getInput()))
        continue;
      auto inner = cast<RankedTensorType>(reshape.getInput().getType());
      if (!inner.hasStaticShape())
        continue;
      OpBuilder b(add);
      Location loc = add.getLoc();
      Value y = ReshapeOp::create(b, loc, inner, other, ValueRange{});
      Value x = reshape.getInput();
      Value sum = side == 0 ? AddOp::create(b, loc, inner, x, y).getResult()
                            : AddOp::create(b, loc, inner, y, x).getResult();
      Value back = ReshapeOp::create(b, loc, type, sum, ValueRange{});
      add.getResult().replaceAllUsesWith(back);
      add->erase();
      // (Its annotations described a value that no longer exists.)
      for (Operation *user : llvm::make_early_inc_range(reshape->getUsers()))
        if (isa<sym::BindOp>(user))
          user->erase();
      reshape->erase();
      break;
    }
  }
}

/// Wraps `ops` (program order, one block) into a tgc.fusion_group.
void materialize(const Group &group) {
  SetVector<Operation *> members(group.ops.begin(), group.ops.end());
  SetVector<Value> inputs, outputs;
  for (Operation *op : group.ops) {
    for (Value v : op->getOperands()) {
      Operation *def = v.getDefiningOp();
      if (!def || !members.contains(def))
        inputs.insert(v);
    }
    for (Value r : op->getResults())
      for (Operation *user : computeUsers(r))
        if (!members.contains(user)) {
          outputs.insert(r);
          break;
        }
  }
  Operation *last = group.ops.back();
  OpBuilder builder(last);
  SmallVector<Type> resultTypes;
  for (Value v : outputs)
    resultTypes.push_back(v.getType());
  auto fused = FusionGroupOp::create(builder, last->getLoc(),
                                     kindName(group.kind),
                                     inputs.getArrayRef(), resultTypes);
  Block &body = fused.getBody().front();
  IRMapping mapping;
  for (auto [v, arg] : llvm::zip(inputs, body.getArguments()))
    mapping.map(v, arg);
  OpBuilder inner = OpBuilder::atBlockEnd(&body);
  for (Operation *op : group.ops)
    inner.clone(*op, mapping);
  SmallVector<Value> yielded;
  for (Value v : outputs)
    yielded.push_back(mapping.lookup(v));
  YieldOp::create(inner, last->getLoc(), yielded);
  for (auto [i, v] : llvm::enumerate(outputs)) {
    Value original = v;
    original.replaceAllUsesWith(fused.getResult(i));
  }
  // Annotations of values now inside the group go (they described values
  // that no longer exist outside); then the original ops.
  for (Operation *op : llvm::reverse(group.ops)) {
    for (Value r : op->getResults())
      for (Operation *user : llvm::make_early_inc_range(r.getUsers()))
        if (isa<sym::BindOp>(user))
          user->erase();
    op->erase();
  }
}

struct TgcFusePass : tgc::impl::TgcFuseBase<TgcFusePass> {
  using TgcFuseBase::TgcFuseBase;
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal() || !func.getBody().hasOneBlock())
      return;
    Block &block = func.front();
    if (reshapes)
      sinkReshapesBelowAdds(block);
    Fuser fuser(block, maxGroupSize, permutes);
    fuser.run();
    for (const Group &g : fuser.finalGroups())
      materialize(g);
    // Users of a group's results that came before its last member now
    // follow it.
    if (!sortTopologically(&block))
      func.emitError("tgc-fuse: fusion created a cycle (internal error)");
  }
};

} // namespace
