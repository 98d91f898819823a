//===- HoistChecks.cpp - checks of the inputs first -----------------------===//
//
// tgc-hoist-checks: a `cf.assert` computed from the function's arguments
// alone moves, with its computation, to the start of the function (see
// Passes.td). The GPU launch plan waits for a call's device-side checks
// after its last check step; with the checks of the inputs first, that is
// one wait before the call's kernels instead of one after them, and the
// host goes on issuing while the device runs (docs/gpu-runtime.md).
//
//===----------------------------------------------------------------------===//

#include "tgc/Transforms/Passes.h"

#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

namespace mlir::tgc {
#define GEN_PASS_DEF_TGCHOISTCHECKS
#include "tgc/Transforms/Graph/Passes.h.inc"
} // namespace mlir::tgc

using namespace mlir;
using namespace mlir::tgc;

namespace {

/// At most this many ops move with one check (a range check is a handful;
/// more means a computation, which stays where the function has it).
constexpr size_t kMaxSliceOps = 32;

/// An op that may move with a check although other ops use its results:
/// it computes nothing costly (a view, a size, a constant, a fill, a pad,
/// an elementwise op of the inputs). (A pad: Hugging Face's causal-LM
/// loss pads the labels, which the training forward also returns; its
/// target check stayed after the whole forward, and the call waited.)
bool cheapToShare(Operation *op) {
  if (isa<tensor::EmptyOp, tensor::ExtractSliceOp, tensor::CollapseShapeOp,
          tensor::ExpandShapeOp, tensor::CastOp, tensor::DimOp,
          tensor::ReshapeOp, tensor::PadOp, linalg::FillOp>(op))
    return true;
  if (op->getNumRegions() == 0 && isMemoryEffectFree(op) &&
      !isa<linalg::LinalgOp>(op))
    return true; // arith, index and affine arithmetic, constants
  if (auto generic = dyn_cast<linalg::GenericOp>(op))
    return generic.getNumLoops() == generic.getNumParallelLoops();
  return false;
}

/// The ops that compute `assert`'s condition, in block order, when they
/// read only the function's arguments and may move (see Passes.td);
/// std::nullopt otherwise.
std::optional<SmallVector<Operation *>> checkSlice(Operation *assert,
                                                   Block &body) {
  SetVector<Operation *> slice;
  SmallVector<Value> work(assert->getOperands());
  while (!work.empty()) {
    Value v = work.pop_back_val();
    if (auto arg = dyn_cast<BlockArgument>(v)) {
      if (arg.getOwner() != &body)
        return std::nullopt;
      continue;
    }
    Operation *def = v.getDefiningOp();
    if (def->getBlock() != &body)
      return std::nullopt;
    if (!slice.insert(def))
      continue;
    if (slice.size() > kMaxSliceOps)
      return std::nullopt;
    // Pure ops only (linalg on tensors, views, arithmetic); the values an
    // op's regions read from outside count as its operands.
    bool pure = isMemoryEffectFree(def) ||
                (isa<linalg::LinalgOp>(def) &&
                 cast<linalg::LinalgOp>(def).hasPureTensorSemantics());
    if (!pure)
      return std::nullopt;
    for (Value operand : def->getOperands())
      work.push_back(operand);
    bool outside = false;
    def->walk([&](Operation *nested) {
      for (Value operand : nested->getOperands())
        if (Operation *d = operand.getDefiningOp();
            d && d->getBlock() == &body) {
          work.push_back(operand);
        } else if (auto arg = dyn_cast<BlockArgument>(operand);
                   arg && !def->isAncestor(arg.getOwner()->getParentOp()) &&
                   arg.getOwner() != &body) {
          outside = true;
        }
    });
    if (outside)
      return std::nullopt;
  }
  // An op other ops use as well moves only when that costs nothing.
  for (Operation *op : slice)
    for (Operation *user : op->getUsers())
      if (user != assert && !slice.contains(user) && !cheapToShare(op))
        return std::nullopt;
  SmallVector<Operation *> ordered(slice.begin(), slice.end());
  llvm::sort(ordered,
             [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
  return ordered;
}

struct HoistChecks : tgc::impl::TgcHoistChecksBase<HoistChecks> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal() || !func.getBody().hasOneBlock())
      return;
    Block &body = func.getBody().front();
    SmallVector<Operation *> asserts;
    for (Operation &op : body)
      if (isa<cf::AssertOp>(op))
        asserts.push_back(&op);
    // Hoisted checks keep their order, after the ones hoisted before.
    Operation *anchor = nullptr;
    for (Operation *assert : asserts) {
      std::optional<SmallVector<Operation *>> slice = checkSlice(assert, body);
      if (!slice)
        continue;
      slice->push_back(assert);
      for (Operation *op : *slice) {
        if (op->getBlock() != &body)
          continue;
        // Already where it belongs (a view shared with an earlier check).
        if (anchor && (op == anchor || op->isBeforeInBlock(anchor)))
          continue;
        if (anchor)
          op->moveAfter(anchor);
        else
          op->moveBefore(&body, body.begin());
        anchor = op;
      }
    }
  }
};

} // namespace
