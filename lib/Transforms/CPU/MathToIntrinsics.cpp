//===- MathToIntrinsics.cpp - math ops with exact LLVM intrinsics --------===//
//
// A partial conversion with upstream's MathToLLVM patterns: only the ops
// listed below are illegal, so the ones whose LLVM lowering would lose
// accuracy (expm1 as exp(x) - 1, log1p as log(1 + x)) stay for libm.
//
//===----------------------------------------------------------------------===//

#include "tgc/Transforms/Passes.h"

#include "mlir/Conversion/LLVMCommon/TypeConverter.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Transforms/DialectConversion.h"

namespace mlir::tgc {
#define GEN_PASS_DEF_TGCMATHTOINTRINSICS
#include "tgc/Transforms/CPU/Passes.h.inc"
namespace {
struct TgcMathToIntrinsicsPass
    : impl::TgcMathToIntrinsicsBase<TgcMathToIntrinsicsPass> {
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    LLVMTypeConverter converter(ctx);
    RewritePatternSet patterns(ctx);
    populateMathToLLVMConversionPatterns(converter, patterns);
    ConversionTarget target(*ctx);
    target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
    target.addLegalDialect<LLVM::LLVMDialect>();
    target.addIllegalOp<math::FmaOp, math::FloorOp, math::CeilOp,
                        math::TruncOp, math::RoundOp, math::RoundEvenOp,
                        math::AbsFOp, math::CopySignOp, math::SqrtOp,
                        math::ExpOp, math::Exp2Op, math::LogOp, math::Log2Op,
                        math::Log10Op, math::SinOp, math::CosOp,
                        math::PowFOp, math::RsqrtOp>();
    if (failed(applyPartialConversion(getOperation(), target,
                                      std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
} // namespace mlir::tgc
