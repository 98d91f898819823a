//===- MarkResultBuffers.cpp - returned heap buffers get their position ---===//
//
// See the pass description in Passes.td.
//
//===----------------------------------------------------------------------===//

#include "tgc/Transforms/CPU/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
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

/// One size of `alloc`: its constant or its dynamic size operand.
Value allocSize(OpBuilder &b, memref::AllocOp alloc, int64_t d) {
  MemRefType type = alloc.getType();
  if (!type.isDynamicDim(d))
    return arith::ConstantIndexOp::create(b, alloc.getLoc(),
                                          type.getDimSize(d));
  return alloc.getDynamicSizes()[type.getDynamicDimIndex(d)];
}

/// A returned reshape of a fresh buffer (a model's `logits.view(B, T, V)`):
/// `alloc` becomes an allocation of the returned shape `resultType`, seen
/// by its other users through the inverse reshape, so that the caller's
/// memory is the allocation and no copy is needed. Returns the new
/// allocation, or null when the reshape is not a plain expand or collapse
/// of `alloc` with identity layouts.
memref::AllocOp allocateReturnedShape(memref::AllocOp alloc, Operation *reshape,
                                      MemRefType resultType) {
  auto expand = dyn_cast<memref::ExpandShapeOp>(reshape);
  auto collapse = dyn_cast<memref::CollapseShapeOp>(reshape);
  if ((!expand && !collapse) || reshape->getOperand(0) != alloc.getResult() ||
      !resultType.getLayout().isIdentity() ||
      !alloc.getType().getLayout().isIdentity())
    return {};
  SmallVector<ReassociationIndices> groups =
      expand ? expand.getReassociationIndices()
             : collapse.getReassociationIndices();
  // The expanded side may have one dynamic size per group: its size is
  // then the collapsed one over the static ones (memref's strided-metadata
  // expansion takes no more either).
  MemRefType expanded = expand ? resultType : alloc.getType();
  for (const ReassociationIndices &group : groups)
    if (llvm::count_if(group,
                       [&](int64_t d) { return expanded.isDynamicDim(d); }) > 1)
      return {};
  OpBuilder b(alloc);
  Location loc = alloc.getLoc();
  // The returned shape's dynamic sizes from the buffer's: a collapsed dim
  // is the product of its group, an expanded group's one dynamic dim the
  // buffer's size over the group's static ones.
  SmallVector<Value> sizes;
  for (auto [k, group] : llvm::enumerate(groups)) {
    if (collapse) {
      if (!resultType.isDynamicDim(k))
        continue;
      Value product;
      for (int64_t d : group) {
        Value n = allocSize(b, alloc, d);
        product = product ? arith::MulIOp::create(b, loc, product, n) : n;
      }
      sizes.push_back(product);
      continue;
    }
    int64_t known = 1;
    for (int64_t d : group)
      if (!resultType.isDynamicDim(d))
        known *= resultType.getDimSize(d);
    for (int64_t d : group) {
      if (!resultType.isDynamicDim(d))
        continue;
      Value n = allocSize(b, alloc, static_cast<int64_t>(k));
      sizes.push_back(
          known == 1
              ? n
              : arith::DivUIOp::create(
                    b, loc, n, arith::ConstantIndexOp::create(b, loc, known)));
    }
  }
  auto fresh = memref::AllocOp::create(b, loc, resultType, sizes,
                                       alloc.getAlignmentAttr());
  Value back =
      expand
          ? memref::CollapseShapeOp::create(b, loc, fresh, groups).getResult()
          : memref::ExpandShapeOp::create(b, loc, alloc.getType(), fresh,
                                          groups, alloc.getMixedSizes())
                .getResult();
  alloc.getResult().replaceAllUsesWith(back);
  alloc.erase();
  return fresh;
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
        Operation *reshape = nullptr;
        if (!alloc &&
            isa_and_nonnull<memref::ExpandShapeOp, memref::CollapseShapeOp>(
                value.getDefiningOp())) {
          reshape = value.getDefiningOp();
          alloc = reshape->getOperand(0).getDefiningOp<memref::AllocOp>();
        }
        if (!alloc || alloc->getBlock() != ret->getBlock() ||
            alloc->hasAttr(kResultIndex) || alloc->hasAttr("tgc.arena") ||
            (!reshape && alloc.getType() != func.getResultTypes()[i]) ||
            !alloc.getType().getLayout().isIdentity() || mayBeFreed(alloc))
          continue;
        if (reshape) {
          alloc = allocateReturnedShape(
              alloc, reshape, cast<MemRefType>(func.getResultTypes()[i]));
          if (!alloc)
            continue;
        }
        alloc->setAttr(kResultIndex,
                       IntegerAttr::get(IntegerType::get(&getContext(), 32),
                                        static_cast<int64_t>(i)));
      }
    }
  }
};

} // namespace
} // namespace mlir::tgc
