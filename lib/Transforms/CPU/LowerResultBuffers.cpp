//===- LowerResultBuffers.cpp - results in the caller's memory ------------===//
//
// See the pass description in Passes.td.
//
//===----------------------------------------------------------------------===//

#include "tgc/Transforms/CPU/Passes.h"
#include "tgc/Transforms/RuntimeCalls.h"

#include "mlir/Conversion/LLVMCommon/ConversionTarget.h"
#include "mlir/Conversion/LLVMCommon/Pattern.h"
#include "mlir/Conversion/LLVMCommon/TypeConverter.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Analysis/DataLayoutAnalysis.h"
#include "mlir/Transforms/DialectConversion.h"

namespace mlir::tgc {
#define GEN_PASS_DEF_TGCLOWERRESULTBUFFERS
#include "tgc/Transforms/CPU/Passes.h.inc"
namespace {

constexpr StringLiteral kResultIndex = "tgc.result_index";
constexpr StringLiteral kResultBuffer = "tgc_result_buffer";

struct ResultAllocLowering : ConvertOpToLLVMPattern<memref::AllocOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;

  LogicalResult
  matchAndRewrite(memref::AllocOp alloc, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto index = alloc->getAttrOfType<IntegerAttr>(kResultIndex);
    MemRefType type = alloc.getType();
    if (!index || !isConvertibleAndHasIdentityMaps(type))
      return rewriter.notifyMatchFailure(alloc, "not a result buffer");
    Location loc = alloc.getLoc();
    auto module = alloc->getParentOfType<ModuleOp>();
    MLIRContext *ctx = rewriter.getContext();
    auto i32 = rewriter.getI32Type();
    auto i64 = rewriter.getI64Type();
    auto ptr = LLVM::LLVMPointerType::get(ctx);
    Type indexType = getIndexType();

    SmallVector<Value> sizes, strides;
    Value bytes;
    getMemRefDescriptorSizes(loc, type, adaptor.getDynamicSizes(), rewriter,
                             sizes, strides, bytes, /*sizeInBytes=*/true);
    auto toI64 = [&](Value v) -> Value {
      if (v.getType() == i64)
        return v;
      return LLVM::ZExtOp::create(rewriter, loc, i64, v);
    };

    // The sizes in an array on the stack, for the runtime.
    int64_t rank = type.getRank();
    Value one = LLVM::ConstantOp::create(rewriter, loc, i64, 1);
    auto arrayType = LLVM::LLVMArrayType::get(i64, std::max<int64_t>(rank, 1));
    Value array = LLVM::AllocaOp::create(rewriter, loc, ptr, arrayType, one);
    for (auto [d, size] : llvm::enumerate(sizes)) {
      Value slot = LLVM::GEPOp::create(
          rewriter, loc, ptr, arrayType, array,
          ArrayRef<LLVM::GEPArg>{0, static_cast<int32_t>(d)});
      LLVM::StoreOp::create(rewriter, loc, toI64(size), slot);
    }
    Value bufferSlot = LLVM::AllocaOp::create(rewriter, loc, ptr, ptr, one);
    Value null = LLVM::ZeroOp::create(rewriter, loc, ptr);
    LLVM::StoreOp::create(rewriter, loc, null, bufferSlot);

    // status = &tgc_result_buffer ? tgc_result_buffer(...) : 0
    FailureOr<LLVM::LLVMFuncOp> decl = declareRuntimeFunction(
        module, loc, kResultBuffer,
        LLVM::LLVMFunctionType::get(i32, {i32, i64, ptr, i64, ptr}));
    if (failed(decl))
      return failure();
    Value address =
        LLVM::AddressOfOp::create(rewriter, loc, ptr, kResultBuffer);
    Value present = LLVM::ICmpOp::create(rewriter, loc, LLVM::ICmpPredicate::ne,
                                         address, null);
    auto call = scf::IfOp::create(rewriter, loc, TypeRange{i32}, present,
                                  /*withElseRegion=*/true);
    {
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.setInsertionPointToStart(call.thenBlock());
      Value status =
          LLVM::CallOp::create(
              rewriter, loc, decl->getFunctionType(),
              ValueRange{address,
                         LLVM::ConstantOp::create(rewriter, loc, i32,
                                                  index.getInt()),
                         LLVM::ConstantOp::create(rewriter, loc, i64, rank),
                         array, toI64(bytes), bufferSlot})
              .getResult();
      scf::YieldOp::create(rewriter, loc, status);
      rewriter.setInsertionPointToStart(call.elseBlock());
      scf::YieldOp::create(rewriter, loc,
                           ValueRange{LLVM::ConstantOp::create(rewriter, loc,
                                                               i32, 0)});
    }
    Value provided = LLVM::ICmpOp::create(
        rewriter, loc, LLVM::ICmpPredicate::ne, call.getResult(0),
        LLVM::ConstantOp::create(rewriter, loc, i32, 0));

    // The caller's memory (allocated pointer null: nobody frees it), or
    // malloc'd and aligned as finalize-memref-to-llvm does.
    auto buffers = scf::IfOp::create(rewriter, loc, TypeRange{ptr, ptr},
                                     provided, /*withElseRegion=*/true);
    {
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.setInsertionPointToStart(buffers.thenBlock());
      Value given = LLVM::LoadOp::create(rewriter, loc, ptr, bufferSlot);
      scf::YieldOp::create(rewriter, loc, ValueRange{null, given});

      rewriter.setInsertionPointToStart(buffers.elseBlock());
      FailureOr<std::pair<Value, Value>> own =
          createAlignedMalloc(rewriter, loc, module, indexType, bytes,
                              alloc.getAlignment().value_or(0));
      if (failed(own))
        return failure();
      scf::YieldOp::create(rewriter, loc, ValueRange{own->first, own->second});
    }
    Value descriptor =
        createMemRefDescriptor(loc, type, buffers.getResult(0),
                               buffers.getResult(1), sizes, strides, rewriter);
    rewriter.replaceOp(alloc, descriptor);
    return success();
  }
};

struct TgcLowerResultBuffersPass
    : impl::TgcLowerResultBuffersBase<TgcLowerResultBuffersPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    bool any = false;
    module.walk([&](memref::AllocOp alloc) {
      any |= alloc->hasAttr(kResultIndex);
    });
    if (!any)
      return;
    MLIRContext *ctx = &getContext();
    const auto &layout = getAnalysis<DataLayoutAnalysis>();
    LowerToLLVMOptions options(ctx, layout.getAtOrAbove(module));
    LLVMTypeConverter converter(ctx, options, &layout);
    ConversionTarget target(*ctx);
    target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
    target.addDynamicallyLegalOp<memref::AllocOp>(
        [](memref::AllocOp alloc) { return !alloc->hasAttr(kResultIndex); });
    RewritePatternSet patterns(ctx);
    patterns.add<ResultAllocLowering>(converter);
    if (failed(applyPartialConversion(module, target, std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
} // namespace mlir::tgc
