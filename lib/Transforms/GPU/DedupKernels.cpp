//===- DedupKernels.cpp - one kernel for identical ones --------------------===//
//
// tgc-gpu-dedup-kernels: the kernels of a gpu.module that are identical but
// for their names and locations become one (see Passes.td). Kernels are
// bucketed by signature and op sequence, then compared structurally
// (OperationEquivalence: ops, attributes, types and uses, locations
// ignored).
//
//===----------------------------------------------------------------------===//

#include "tgc/Transforms/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Location.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/raw_ostream.h"

namespace mlir::tgc {
#define GEN_PASS_DEF_TGCGPUDEDUPKERNELS
#include "tgc/Transforms/GPU/Passes.h.inc"
} // namespace mlir::tgc

using namespace mlir;
using namespace mlir::tgc;

namespace {

/// Whether two kernels are the same code: signature, attributes but the
/// name, and bodies structurally equal (OperationEquivalence, locations
/// ignored).
bool sameKernel(gpu::GPUFuncOp a, gpu::GPUFuncOp b) {
  if (a.getFunctionType() != b.getFunctionType())
    return false;
  NamedAttrList attrsA(a->getAttrDictionary()), attrsB(b->getAttrDictionary());
  attrsA.erase(SymbolTable::getSymbolAttrName());
  attrsB.erase(SymbolTable::getSymbolAttrName());
  if (attrsA.getDictionary(a->getContext()) !=
      attrsB.getDictionary(b->getContext()))
    return false;
  return OperationEquivalence::isRegionEquivalentTo(
      &a.getBody(), &b.getBody(), OperationEquivalence::IgnoreLocations);
}

/// A cheap key that identical kernels share: the signature and the ops in
/// order.
std::string bucketKey(gpu::GPUFuncOp kernel) {
  std::string key;
  llvm::raw_string_ostream os(key);
  os << kernel.getFunctionType();
  kernel.walk([&](Operation *op) { os << ' ' << op->getName(); });
  return key;
}

/// Gives each op of `kept` the locations of the op at the same place in
/// `copy` too (the two have the same structure).
void fuseLocations(gpu::GPUFuncOp kept, gpu::GPUFuncOp copy) {
  SmallVector<Operation *> keptOps, copyOps;
  kept->walk<WalkOrder::PreOrder>([&](Operation *op) { keptOps.push_back(op); });
  copy->walk<WalkOrder::PreOrder>([&](Operation *op) { copyOps.push_back(op); });
  if (keptOps.size() != copyOps.size())
    return;
  for (auto [a, b] : llvm::zip(keptOps, copyOps))
    if (a->getLoc() != b->getLoc())
      a->setLoc(FusedLoc::get(a->getContext(), {a->getLoc(), b->getLoc()}));
}

struct TgcGpuDedupKernelsPass
    : tgc::impl::TgcGpuDedupKernelsBase<TgcGpuDedupKernelsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    // Removed kernel -> kept kernel, per gpu.module.
    DenseMap<Attribute, SymbolRefAttr> replacement;
    for (auto gpuModule : module.getOps<gpu::GPUModuleOp>()) {
      // The kernels kept so far, by bucket.
      llvm::StringMap<SmallVector<gpu::GPUFuncOp>> kept;
      SmallVector<gpu::GPUFuncOp> removed;
      auto symbol = [&](gpu::GPUFuncOp f) {
        return SymbolRefAttr::get(
            gpuModule.getSymNameAttr(),
            {FlatSymbolRefAttr::get(SymbolTable::getSymbolName(f))});
      };
      for (auto kernel : gpuModule.getOps<gpu::GPUFuncOp>()) {
        if (!kernel.isKernel())
          continue;
        SmallVector<gpu::GPUFuncOp> &bucket = kept[bucketKey(kernel)];
        auto same = llvm::find_if(bucket, [&](gpu::GPUFuncOp k) {
          return sameKernel(k, kernel);
        });
        if (same == bucket.end()) {
          bucket.push_back(kernel);
          continue;
        }
        fuseLocations(*same, kernel);
        replacement[symbol(kernel)] = symbol(*same);
        removed.push_back(kernel);
      }
      for (gpu::GPUFuncOp kernel : removed)
        kernel.erase();
    }
    if (replacement.empty())
      return;
    module.walk([&](gpu::LaunchFuncOp launch) {
      if (SymbolRefAttr kept = replacement.lookup(launch.getKernel()))
        launch.setKernelAttr(kept);
    });
  }
};

} // namespace
