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
#include "mlir/IR/IRMapping.h"
#include "mlir/Transforms/DialectConversion.h"

namespace mlir::tgc {
#define GEN_PASS_DEF_TGCTOLINALG
#include "tgc/Conversion/Passes.h.inc"
} // namespace mlir::tgc

using namespace mlir;
using namespace mlir::tgc;

void mlir::tgc::populateTgcToLinalgPatterns(
    RewritePatternSet &patterns, bool softmaxExpOnce,
    const ConvolutionLowering &convolutions, bool indexChecksInKernels) {
  populateTgcElementwiseToLinalgPatterns(patterns);
  populateTgcShapeToLinalgPatterns(patterns);
  populateTgcIndexingToLinalgPatterns(patterns, indexChecksInKernels);
  populateTgcRandomToLinalgPatterns(patterns);
  populateTgcReductionToLinalgPatterns(patterns);
  populateTgcLinearAlgebraToLinalgPatterns(patterns);
  populateTgcNNToLinalgPatterns(patterns, softmaxExpOnce,
                                convolutions.im2colPads);
  populateTgcConvolutionToLinalgPatterns(patterns, convolutions);
  populateTgcConvolutionBackwardToLinalgPatterns(patterns, convolutions);
}

namespace {

/// `tgc.write_out %v into %out` lands %v in the caller's buffer: the
/// argument's buffer, written in place (one-shot bufferization with
/// function boundaries makes %out a memref argument). `restrict` promises
/// that no other tensor aliases that buffer, which lets empty-tensor
/// elimination compute %v straight into it; readOutArgumentsFromCopies
/// makes the promise true.
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

/// Every op that becomes a kernel and is in no fusion group gets a group
/// of its own, so that after lowering each op knows which kernel it
/// belongs to.
void wrapUngroupedOps(func::FuncOp func) {
  SmallVector<Operation *> ops;
  for (Operation &op : func.getBody().getOps())
    if (op.getDialect() && isa<TgcDialect>(op.getDialect()) &&
        !isa<FusionGroupOp, ConstantOp, WriteOutOp>(op) &&
        op.getNumResults() > 0)
      ops.push_back(&op);
  for (Operation *op : ops) {
    OpBuilder b(op);
    auto group = FusionGroupOp::create(b, op->getLoc(), "single",
                                       op->getOperands(),
                                       op->getResultTypes());
    Block &body = group.getBody().front();
    OpBuilder inner = OpBuilder::atBlockEnd(&body);
    IRMapping mapping;
    mapping.map(op->getOperands(), body.getArguments());
    Operation *clone = inner.clone(*op, mapping);
    YieldOp::create(inner, op->getLoc(), clone->getResults());
    op->replaceAllUsesWith(group.getResults());
    op->erase();
  }
}

/// After conversion: tags the ops of each group with its id and kind, and
/// inlines the group.
void inlineGroups(func::FuncOp func, int64_t &nextId) {
  SmallVector<FusionGroupOp> groups;
  func.walk([&](FusionGroupOp g) { groups.push_back(g); });
  for (FusionGroupOp g : groups) {
    int64_t id = nextId++;
    Block &body = g.getBody().front();
    auto idAttr = IntegerAttr::get(IntegerType::get(g.getContext(), 64), id);
    auto kindAttr = g.getKindAttr();
    for (Operation &op : body.without_terminator()) {
      op.setAttr("tgc.group", idAttr);
      op.setAttr("tgc.group_kind", kindAttr);
    }
    Operation *terminator = body.getTerminator();
    for (auto [arg, input] : llvm::zip(body.getArguments(), g.getInputs()))
      arg.replaceAllUsesWith(input);
    // After the arguments are replaced: a group may yield an argument.
    SmallVector<Value> yielded(terminator->getOperands());
    terminator->erase();
    g->getBlock()->getOperations().splice(g->getIterator(),
                                          body.getOperations());
    g->replaceAllUsesWith(yielded);
    g.erase();
  }
}

/// An out argument the function also reads (`x.add_(y)` is a read of x and
/// a write_out into it) is read from a copy taken on entry, so that the
/// reads never alias the buffer the results are written into.
void readOutArgumentsFromCopies(func::FuncOp func) {
  llvm::SetVector<Value> outs;
  func.walk([&](WriteOutOp w) { outs.insert(w.getOut()); });
  for (Value out : outs) {
    bool read = llvm::any_of(out.getUsers(), [](Operation *u) {
      return !isa<WriteOutOp>(u);
    });
    if (!read)
      continue;
    OpBuilder b(func.getContext());
    if (auto arg = dyn_cast<BlockArgument>(out))
      b.setInsertionPointToStart(arg.getOwner());
    else
      b.setInsertionPointAfterValue(out);
    auto copy = bufferization::AllocTensorOp::create(
        b, out.getLoc(), cast<RankedTensorType>(out.getType()),
        /*dynamicSizes=*/ValueRange{}, /*copy=*/out);
    out.replaceUsesWithIf(copy.getResult(), [&](OpOperand &use) {
      return !isa<WriteOutOp>(use.getOwner()) && use.getOwner() != copy;
    });
  }
}

struct TgcToLinalgPass : tgc::impl::TgcToLinalgBase<TgcToLinalgPass> {
  using TgcToLinalgBase::TgcToLinalgBase;
  void runOnOperation() override {
    ModuleOp module = getOperation();
    for (auto func : module.getOps<func::FuncOp>()) {
      readOutArgumentsFromCopies(func);
      stripSymbolicShapes(func);
      wrapUngroupedOps(func);
    }

    ConversionTarget target(getContext());
    target.addLegalDialect<arith::ArithDialect, bufferization::BufferizationDialect,
                           cf::ControlFlowDialect, func::FuncDialect,
                           linalg::LinalgDialect, math::MathDialect,
                           memref::MemRefDialect, scf::SCFDialect,
                           tensor::TensorDialect, sym::TgcSymDialect,
                           guard::TgcGuardDialect>();
    target.addIllegalDialect<TgcDialect>();
    // Groups stay until their contents are converted.
    target.addLegalOp<FusionGroupOp, YieldOp>();
    RewritePatternSet patterns(&getContext());
    ConvolutionLowering convolutions;
    convolutions.im2colPads = im2colPads;
    convolutions.library = libraryConvolutions;
    convolutions.batchColumns = im2colBatchColumns;
    convolutions.direct = directConvolutions;
    populateTgcToLinalgPatterns(patterns, softmaxExpOnce, convolutions,
                                indexChecksInKernels);
    patterns.add<WriteOutLowering>(&getContext());
    if (failed(applyPartialConversion(module, target, std::move(patterns))))
      return signalPassFailure();
    int64_t nextId = 0;
    for (auto func : module.getOps<func::FuncOp>())
      inlineGroups(func, nextId);
  }
};

} // namespace
