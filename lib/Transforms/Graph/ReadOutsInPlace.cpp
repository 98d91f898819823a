//===- ReadOutsInPlace.cpp - in-place elementwise updates of out buffers --===//
//
// tgc-read-outs-in-place: `x.add_(y)` reads an argument it also writes
// (tgc.write_out). tgc-to-linalg reads such an argument from a copy taken
// on entry, so that no kernel reads memory an earlier one overwrote. When
// the only reader of the copy is one elementwise generic that reads it
// through the identity map, and nothing writes the argument between the
// copy and that generic except the generic itself through identity maps,
// the generic may read the argument directly: each point reads its
// element before it writes it, in the same thread of the same kernel.
// The copy and its buffer go (see Passes.td).
//
//===----------------------------------------------------------------------===//

#include "tgc/Transforms/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

namespace mlir::tgc {
#define GEN_PASS_DEF_TGCREADOUTSINPLACE
#include "tgc/Transforms/Graph/Passes.h.inc"
} // namespace mlir::tgc

using namespace mlir;
using namespace mlir::tgc;

namespace {

/// The memref a view (or a chain of views) is taken of.
Value viewSource(Value v) {
  while (auto view = v.getDefiningOp<ViewLikeOpInterface>())
    v = view.getViewSource();
  return v;
}

/// Whether `op` may write memory of the argument `arg` (a view of it, or
/// memory it cannot name).
bool mayWrite(Operation *op, Value arg) {
  auto effects = dyn_cast<MemoryEffectOpInterface>(op);
  if (!effects)
    return op->getNumRegions() > 0 || !isMemoryEffectFree(op);
  SmallVector<MemoryEffects::EffectInstance> list;
  effects.getEffects(list);
  for (const MemoryEffects::EffectInstance &e : list) {
    if (!isa<MemoryEffects::Write>(e.getEffect()))
      continue;
    Value written = e.getValue();
    if (!written || viewSource(written) == arg)
      return true;
  }
  return false;
}

/// Whether `generic` reads and writes `arg` (or views of it) only as `arg`
/// itself through the identity map (each point its own element).
bool touchesArgAtOwnPoints(linalg::GenericOp generic, Value arg) {
  for (OpOperand &operand : generic->getOpOperands())
    if (viewSource(operand.get()) == arg &&
        (operand.get() != arg ||
         !generic.getMatchingIndexingMap(&operand).isIdentity()))
      return false;
  return true;
}

/// The copy-in `memref.copy %arg, %alloc` of `alloc`, whose one reader is
/// an elementwise generic that may read %arg instead; or null.
memref::CopyOp redundantCopy(memref::AllocOp alloc, linalg::GenericOp &reader) {
  memref::CopyOp copy;
  reader = {};
  for (OpOperand &use : alloc->getUses()) {
    Operation *user = use.getOwner();
    if (auto c = dyn_cast<memref::CopyOp>(user)) {
      if (copy || c.getTarget() != alloc.getResult())
        return {};
      copy = c;
      continue;
    }
    if (isa<memref::DeallocOp>(user))
      continue;
    auto generic = dyn_cast<linalg::GenericOp>(user);
    if (!generic || (reader && generic != reader) ||
        !generic.isDpsInput(&use) ||
        !generic.getMatchingIndexingMap(&use).isIdentity())
      return {};
    reader = generic;
  }
  if (!copy || !reader || !reader.hasPureBufferSemantics() ||
      reader.getNumParallelLoops() != reader.getNumLoops())
    return {};
  auto arg = dyn_cast<BlockArgument>(copy.getSource());
  if (!arg || copy->getBlock() != reader->getBlock() ||
      !copy->isBeforeInBlock(reader) ||
      copy.getSource().getType() != alloc.getType())
    return {};
  // Nothing writes the argument between the copy and the reader, and the
  // reader reads or writes it only at the points it reads the copy.
  for (Operation *op = copy->getNextNode(); op != reader.getOperation();
       op = op->getNextNode())
    if (mayWrite(op, arg))
      return {};
  if (!touchesArgAtOwnPoints(reader, arg))
    return {};
  return copy;
}

struct TgcReadOutsInPlacePass
    : tgc::impl::TgcReadOutsInPlaceBase<TgcReadOutsInPlacePass> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    SmallVector<memref::AllocOp> allocs;
    func.walk([&](memref::AllocOp a) { allocs.push_back(a); });
    for (memref::AllocOp alloc : allocs) {
      linalg::GenericOp reader;
      memref::CopyOp copy = redundantCopy(alloc, reader);
      if (!copy)
        continue;
      Value arg = copy.getSource();
      copy.erase();
      for (OpOperand &use : llvm::make_early_inc_range(alloc->getUses())) {
        if (isa<memref::DeallocOp>(use.getOwner()))
          use.getOwner()->erase();
        else
          use.set(arg);
      }
      alloc.erase();
    }
  }
};

} // namespace
