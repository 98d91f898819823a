//===- LowerArena.cpp - the arena from the runtime's per-thread cache -----===//
//
// See the pass description in Passes.td.
//
//===----------------------------------------------------------------------===//

#include "tgc/Transforms/CPU/Passes.h"
#include "tgc/Transforms/RuntimeCalls.h"

#include "mlir/Analysis/DataLayoutAnalysis.h"
#include "mlir/Conversion/LLVMCommon/ConversionTarget.h"
#include "mlir/Conversion/LLVMCommon/MemRefBuilder.h"
#include "mlir/Conversion/LLVMCommon/Pattern.h"
#include "mlir/Conversion/LLVMCommon/TypeConverter.h"
#include "mlir/Dialect/LLVMIR/FunctionCallUtils.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Transforms/DialectConversion.h"

namespace mlir::tgc {
#define GEN_PASS_DEF_TGCLOWERARENA
#include "tgc/Transforms/CPU/Passes.h.inc"
namespace {

constexpr StringLiteral kArena = "tgc.arena";
constexpr StringLiteral kAcquire = "tgc_arena_acquire";
constexpr StringLiteral kRelease = "tgc_arena_release";

/// `&name != null`, for an extern_weak runtime function.
Value isPresent(OpBuilder &b, Location loc, StringRef name) {
  auto ptr = LLVM::LLVMPointerType::get(b.getContext());
  Value address = LLVM::AddressOfOp::create(b, loc, ptr, name);
  return LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::ne, address,
                              LLVM::ZeroOp::create(b, loc, ptr));
}

struct ArenaAllocLowering : ConvertOpToLLVMPattern<memref::AllocOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;

  LogicalResult
  matchAndRewrite(memref::AllocOp alloc, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    MemRefType type = alloc.getType();
    if (!alloc->hasAttr(kArena) || !isConvertibleAndHasIdentityMaps(type))
      return rewriter.notifyMatchFailure(alloc, "not the arena");
    Location loc = alloc.getLoc();
    auto module = alloc->getParentOfType<ModuleOp>();
    auto ptr = LLVM::LLVMPointerType::get(rewriter.getContext());
    auto i64 = rewriter.getI64Type();
    Type indexType = getIndexType();
    SmallVector<Value> sizes, strides;
    Value bytes;
    getMemRefDescriptorSizes(loc, type, adaptor.getDynamicSizes(), rewriter,
                             sizes, strides, bytes, /*sizeInBytes=*/true);
    FailureOr<LLVM::LLVMFuncOp> acquire = declareRuntimeFunction(
        module, loc, kAcquire, LLVM::LLVMFunctionType::get(ptr, {i64}));
    if (failed(acquire) ||
        failed(declareRuntimeFunction(
            module, loc, kRelease,
            LLVM::LLVMFunctionType::get(
                LLVM::LLVMVoidType::get(rewriter.getContext()), {ptr}))))
      return failure();
    // (allocated, aligned) = runtime ? (p, p) : aligned malloc
    auto branch = scf::IfOp::create(rewriter, loc, TypeRange{ptr, ptr},
                                    isPresent(rewriter, loc, kAcquire),
                                    /*withElseRegion=*/true);
    {
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.setInsertionPointToStart(branch.thenBlock());
      Value request = bytes;
      if (request.getType() != i64)
        request = LLVM::ZExtOp::create(rewriter, loc, i64, request);
      Value address = LLVM::AddressOfOp::create(rewriter, loc, ptr, kAcquire);
      Value memory = LLVM::CallOp::create(rewriter, loc,
                                          acquire->getFunctionType(),
                                          ValueRange{address, request})
                         .getResult();
      scf::YieldOp::create(rewriter, loc, ValueRange{memory, memory});
      rewriter.setInsertionPointToStart(branch.elseBlock());
      FailureOr<std::pair<Value, Value>> own =
          createAlignedMalloc(rewriter, loc, module, indexType, bytes,
                              alloc.getAlignment().value_or(0));
      if (failed(own))
        return failure();
      scf::YieldOp::create(rewriter, loc, ValueRange{own->first, own->second});
    }
    Value descriptor =
        createMemRefDescriptor(loc, type, branch.getResult(0),
                               branch.getResult(1), sizes, strides, rewriter);
    rewriter.replaceOp(alloc, descriptor);
    return success();
  }
};

struct ArenaDeallocLowering : ConvertOpToLLVMPattern<memref::DeallocOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;

  LogicalResult
  matchAndRewrite(memref::DeallocOp dealloc, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!dealloc->hasAttr(kArena))
      return rewriter.notifyMatchFailure(dealloc, "not the arena's");
    Location loc = dealloc.getLoc();
    auto module = dealloc->getParentOfType<ModuleOp>();
    auto ptr = LLVM::LLVMPointerType::get(rewriter.getContext());
    Value allocated =
        MemRefDescriptor(adaptor.getMemref()).allocatedPtr(rewriter, loc);
    auto branch = scf::IfOp::create(rewriter, loc,
                                    isPresent(rewriter, loc, kRelease),
                                    /*withElseRegion=*/true);
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPointToStart(branch.thenBlock());
    Value address = LLVM::AddressOfOp::create(rewriter, loc, ptr, kRelease);
    LLVM::CallOp::create(
        rewriter, loc,
        LLVM::LLVMFunctionType::get(
            LLVM::LLVMVoidType::get(rewriter.getContext()), {ptr}),
        ValueRange{address, allocated});
    rewriter.setInsertionPointToStart(branch.elseBlock());
    FailureOr<LLVM::LLVMFuncOp> free =
        LLVM::lookupOrCreateFreeFn(rewriter, module);
    if (failed(free))
      return failure();
    LLVM::CallOp::create(rewriter, loc, *free, ValueRange{allocated});
    rewriter.eraseOp(dealloc);
    return success();
  }
};

struct TgcLowerArenaPass : impl::TgcLowerArenaBase<TgcLowerArenaPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    // The arena's deallocations, tagged like it (the conversion below
    // sees their operand as a descriptor, no longer the alloc).
    bool any = false;
    module.walk([&](memref::AllocOp alloc) {
      if (!alloc->hasAttr(kArena))
        return;
      any = true;
      for (Operation *user : alloc->getUsers())
        if (isa<memref::DeallocOp>(user))
          user->setAttr(kArena, UnitAttr::get(&getContext()));
    });
    if (!any)
      return;
    MLIRContext *ctx = &getContext();
    const auto &layout = getAnalysis<DataLayoutAnalysis>();
    LowerToLLVMOptions options(ctx, layout.getAtOrAbove(module));
    LLVMTypeConverter converter(ctx, options, &layout);
    ConversionTarget target(*ctx);
    target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
    target.addDynamicallyLegalOp<memref::AllocOp, memref::DeallocOp>(
        [](Operation *op) { return !op->hasAttr(kArena); });
    RewritePatternSet patterns(ctx);
    patterns.add<ArenaAllocLowering, ArenaDeallocLowering>(converter);
    if (failed(applyPartialConversion(module, target, std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
} // namespace mlir::tgc
