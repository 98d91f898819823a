//===- UnshareInits.cpp - out-buffer chains own their inits ---------------===//
//
// See the pass description in Passes.td.
//
//===----------------------------------------------------------------------===//

#include "tgc/Transforms/Passes.h"

#include "mlir/Analysis/SliceAnalysis.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/DestinationStyleOpInterface.h"

namespace mlir::tgc {
#define GEN_PASS_DEF_TGCUNSHAREINITS
#include "tgc/Transforms/Memory/Passes.h.inc"
} // namespace mlir::tgc

using namespace mlir;
using namespace mlir::tgc;

namespace {

/// The value `v` is computed in, the way empty-tensor elimination follows
/// it: the init a DPS op's result is tied to (linalg ops, scf.forall
/// shared_outs), a cast's source. Null where the chain stops.
Value destinationOf(Value v) {
  auto result = dyn_cast<OpResult>(v);
  if (!result)
    return {};
  Operation *op = result.getOwner();
  if (auto dps = dyn_cast<DestinationStyleOpInterface>(op))
    if (OpOperand *init = dps.getTiedOpOperand(result))
      return init->get();
  if (auto cast = dyn_cast<tensor::CastOp>(op))
    return cast.getSource();
  return {};
}

/// Ops that are cheap to repeat: an empty tensor, a cast, and a fill (a
/// linalg op that writes its one init from scalars only).
bool isCheap(Operation *op) {
  if (isa<tensor::EmptyOp, tensor::CastOp>(op))
    return true;
  auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
  return linalgOp && linalgOp.getNumDpsInits() == 1 &&
         linalgOp->getNumResults() == 1 &&
         llvm::none_of(linalgOp.getDpsInputOperands(),
                       [](OpOperand *in) {
                         return isa<ShapedType>(in->get().getType());
                       }) &&
         !linalgOp.payloadUsesValueFromOperand(linalgOp.getDpsInitOperand(0));
}

/// `op` or one of its ancestors is in `slice`.
bool inSlice(Operation *op, const SetVector<Operation *> &slice) {
  for (; op; op = op->getParentOp())
    if (slice.contains(op))
      return true;
  return false;
}

/// Makes the chain that `materialize` writes into its out buffer its own:
/// after empty-tensor elimination its root becomes the out buffer.
void isolate(bufferization::MaterializeInDestinationOp materialize) {
  // chain[i] is computed in chain[i + 1]; uses[i] is chain[i]'s use by the
  // chain (the materialize for chain[0]).
  SmallVector<Value> chain = {materialize.getSource()};
  SmallVector<OpOperand *> uses = {&materialize.getSourceMutable()};
  while (Value next = destinationOf(chain.back())) {
    auto owner = cast<OpResult>(chain.back()).getOwner();
    OpOperand *use = nullptr;
    for (OpOperand &o : owner->getOpOperands())
      if (o.get() == next && (!isa<DestinationStyleOpInterface>(owner) ||
                              cast<DestinationStyleOpInterface>(owner)
                                  .isDpsInit(&o)))
        use = &o;
    chain.push_back(next);
    uses.push_back(use);
  }
  if (!chain.back().getDefiningOp<tensor::EmptyOp>())
    return; // nothing for empty-tensor elimination to replace

  // What the value depends on may share its buffer (a fill and a matmul
  // whose bias epilogue is the value): they all run before it.
  SetVector<Operation *> slice;
  BackwardSliceOptions options;
  options.omitBlockArguments = true;
  options.omitUsesFromAbove = false;
  if (Operation *def = chain.front().getDefiningOp()) {
    slice.insert(def);
    (void)getBackwardSlice(def, &slice, options);
  }
  // The first link another op shares: the source used as another op's init
  // (written in place after the out buffer got its value), or an init used
  // by an op the value does not depend on (a sibling reduction that CSE
  // gave the same init).
  std::optional<size_t> shared;
  for (auto [i, v] : llvm::enumerate(chain)) {
    for (OpOperand &use : v.getUses()) {
      if (&use == uses[i])
        continue;
      Operation *user = use.getOwner();
      bool bad = i == 0 ? isa<DestinationStyleOpInterface>(user) &&
                              cast<DestinationStyleOpInterface>(user)
                                  .isDpsInit(&use)
                        : !inSlice(user, slice);
      if (bad) {
        shared = i;
        break;
      }
    }
    if (shared)
      break;
  }
  if (!shared)
    return;
  // Copies of chain[shared..] for this chain alone, where they are cheap;
  // otherwise the out buffer gets a copy of the value (no elimination).
  for (size_t i = *shared; i < chain.size(); ++i)
    if (!isCheap(chain[i].getDefiningOp())) {
      materialize.setRestrict(false);
      return;
    }
  OpBuilder builder(materialize);
  IRMapping map;
  for (size_t i = chain.size(); i-- > *shared;) {
    Operation *def = chain[i].getDefiningOp();
    builder.setInsertionPoint(def);
    map.map(chain[i], builder.clone(*def, map)->getResult(0));
  }
  uses[*shared]->set(map.lookup(chain[*shared]));
}

struct TgcUnshareInitsPass
    : tgc::impl::TgcUnshareInitsBase<TgcUnshareInitsPass> {
  void runOnOperation() override {
    SmallVector<bufferization::MaterializeInDestinationOp> outs;
    getOperation().walk([&](bufferization::MaterializeInDestinationOp m) {
      if (m.getRestrict() && isa<BaseMemRefType>(m.getDest().getType()))
        outs.push_back(m);
    });
    for (auto m : outs)
      isolate(m);
  }
};

} // namespace
