//===- TgcToLinalg.cpp - the tgc-to-linalg pass ---------------------------===//

#include "tgc/Conversion/Passes.h"
#include "tgc/Conversion/TgcToLinalg/TgcToLinalg.h"

#include "tgc/Dialect/Tgc/IR/TgcOps.h"
#include "tgc/Dialect/TgcGuard/IR/TgcGuardDialect.h"
#include "tgc/Dialect/TgcSym/IR/TgcSymOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/DialectConversion.h"

namespace mlir::tgc {
#define GEN_PASS_DEF_TGCTOLINALG
#include "tgc/Conversion/Passes.h.inc"
} // namespace mlir::tgc

using namespace mlir;
using namespace mlir::tgc;

void mlir::tgc::populateTgcToLinalgPatterns(RewritePatternSet &patterns) {
  populateTgcElementwiseToLinalgPatterns(patterns);
  populateTgcShapeToLinalgPatterns(patterns);
  populateTgcIndexingToLinalgPatterns(patterns);
  populateTgcReductionToLinalgPatterns(patterns);
  populateTgcLinearAlgebraToLinalgPatterns(patterns);
  populateTgcNNToLinalgPatterns(patterns);
}

namespace {

/// `tgc.write_out %v into %out` lands %v in the caller's buffer: the
/// argument's buffer, written in place (one-shot bufferization with
/// function boundaries makes %out a memref argument).
struct WriteOutLowering : OpRewritePattern<WriteOutOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(WriteOutOp op,
                                PatternRewriter &rewriter) const override {
    auto outType = op.getOut().getType();
    auto memrefType =
        MemRefType::get(outType.getShape(), outType.getElementType());
    Value dest = bufferization::ToBufferOp::create(rewriter, op.getLoc(),
                                                   memrefType, op.getOut());
    auto materialize = bufferization::MaterializeInDestinationOp::create(
        rewriter, op.getLoc(), TypeRange{}, op.getValue(), dest);
    materialize.setRestrict(true);
    materialize.setWritable(true);
    rewriter.eraseOp(op);
    return success();
  }
};

/// Symbolic shape annotations have served their purpose (guards were
/// generated from them); linalg lowering does not understand them.
void stripSymbolicShapes(func::FuncOp func) {
  SmallVector<Operation *> annotations, symbols;
  func.walk([&](Operation *op) {
    if (isa<sym::BindOp, sym::ConstrainOp>(op))
      annotations.push_back(op);
    else if (isa<sym::SymbolOp, sym::MinOp, sym::MaxOp>(op))
      symbols.push_back(op);
  });
  for (Operation *op : annotations)
    op->erase();
  for (Operation *op : llvm::reverse(symbols))
    if (op->use_empty())
      op->erase();
}

struct TgcToLinalgPass : tgc::impl::TgcToLinalgBase<TgcToLinalgPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    for (auto func : module.getOps<func::FuncOp>())
      stripSymbolicShapes(func);

    ConversionTarget target(getContext());
    target.addLegalDialect<arith::ArithDialect, bufferization::BufferizationDialect,
                           cf::ControlFlowDialect, func::FuncDialect,
                           linalg::LinalgDialect, math::MathDialect,
                           memref::MemRefDialect, scf::SCFDialect,
                           tensor::TensorDialect, sym::TgcSymDialect,
                           guard::TgcGuardDialect>();
    target.addIllegalDialect<TgcDialect>();
    RewritePatternSet patterns(&getContext());
    populateTgcToLinalgPatterns(patterns);
    patterns.add<WriteOutLowering>(&getContext());
    if (failed(applyPartialConversion(module, target, std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
