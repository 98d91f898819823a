//===- MarkResultBuffers.cpp - returned heap buffers get their position ---===//
//
// See the pass description in Passes.td.
//
//===----------------------------------------------------------------------===//

#include "tgc/Transforms/CPU/Passes.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/IR/SymbolTable.h"

namespace mlir::tgc {
#define GEN_PASS_DEF_TGCMARKRESULTBUFFERS
#include "tgc/Transforms/CPU/Passes.h.inc"
namespace {

constexpr StringLiteral kResultIndex = "tgc.result_index";

/// Whether something other than `ret` may free or reallocate `buffer`.
bool mayBeFreed(Value buffer) {
  for (Operation *user : buffer.getUsers())
    if (isa<memref::DeallocOp, memref::ReallocOp, bufferization::DeallocOp>(
            user))
      return true;
  return false;
}

struct TgcMarkResultBuffersPass
    : impl::TgcMarkResultBuffersBase<TgcMarkResultBuffersPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTableCollection tables;
    SymbolUserMap users(tables, module);
    for (auto func : module.getOps<func::FuncOp>()) {
      // Only an entry point: a callee's result positions are not the
      // caller's.
      if (func.isExternal() || func.isPrivate() ||
          !users.getUsers(func).empty() || !func.getBody().hasOneBlock())
        continue;
      auto ret = dyn_cast<func::ReturnOp>(func.getBody().front().getTerminator());
      if (!ret)
        continue;
      for (auto [i, value] : llvm::enumerate(ret.getOperands())) {
        auto alloc = value.getDefiningOp<memref::AllocOp>();
        if (!alloc || alloc->getBlock() != ret->getBlock() ||
            alloc->hasAttr(kResultIndex) || alloc->hasAttr("tgc.arena") ||
            alloc.getType() != func.getResultTypes()[i] ||
            !alloc.getType().getLayout().isIdentity() || mayBeFreed(alloc))
          continue;
        alloc->setAttr(kResultIndex,
                       IntegerAttr::get(IntegerType::get(&getContext(), 32),
                                        static_cast<int64_t>(i)));
      }
    }
  }
};

} // namespace
} // namespace mlir::tgc
