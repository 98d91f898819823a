//===- EmptyReshapes.cpp - reshapes of tensors without elements -----------===//
//
// See the pass description in Passes.td.
//
//===----------------------------------------------------------------------===//

#include "tgc/Transforms/EmptyTensors.h"
#include "tgc/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"

namespace mlir::tgc {
#define GEN_PASS_DEF_TGCEMPTYRESHAPES
#include "tgc/Transforms/Memory/Passes.h.inc"
} // namespace mlir::tgc

using namespace mlir;
using namespace mlir::tgc;

namespace {

/// Whether `op` reshapes a tensor without elements: a static size 0 in its
/// source (or what the source is a cast of) or its result (an expand of
/// `?x2` into `0x?x4x2`).
bool reshapesNothing(Operation *op) {
  if (!isa<tensor::CollapseShapeOp, tensor::ExpandShapeOp, tensor::ReshapeOp>(
          op) ||
      !isa<RankedTensorType>(op->getResult(0).getType()))
    return false;
  return hasStaticZeroSize(op->getOperand(0)) ||
         hasStaticZeroSize(op->getResult(0).getType());
}

/// The sizes of `reshape`'s result: its static sizes, and the dynamic ones
/// read from its shape operand.
SmallVector<OpFoldResult> reshapeSizes(OpBuilder &b,
                                       tensor::ReshapeOp reshape) {
  Location loc = reshape.getLoc();
  auto type = cast<RankedTensorType>(reshape.getResult().getType());
  SmallVector<OpFoldResult> sizes;
  for (auto [i, size] : llvm::enumerate(type.getShape())) {
    if (!ShapedType::isDynamic(size)) {
      sizes.push_back(b.getIndexAttr(size));
      continue;
    }
    Value index = arith::ConstantIndexOp::create(b, loc, i);
    Value element =
        tensor::ExtractOp::create(b, loc, reshape.getShape(), index);
    if (!element.getType().isIndex())
      element = arith::IndexCastOp::create(b, loc, b.getIndexType(), element);
    sizes.push_back(element);
  }
  return sizes;
}

struct TgcEmptyReshapesPass
    : tgc::impl::TgcEmptyReshapesBase<TgcEmptyReshapesPass> {
  void runOnOperation() override {
    SmallVector<Operation *> reshapes;
    getOperation().walk([&](Operation *op) {
      if (reshapesNothing(op))
        reshapes.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (Operation *op : reshapes) {
      // The result's sizes, as the reshape computes them from its source
      // (an expand from its output_shape, a reshape from its shape operand).
      rewriter.setInsertionPoint(op);
      auto type = cast<RankedTensorType>(op->getResult(0).getType());
      SmallVector<OpFoldResult> sizes;
      if (auto reshape = dyn_cast<tensor::ReshapeOp>(op)) {
        sizes = reshapeSizes(rewriter, reshape);
      } else {
        ReifiedRankedShapedTypeDims reified;
        if (failed(reifyResultShapes(rewriter, op, reified)))
          continue; // (left as it is: bufferization reports what it cannot)
        sizes = reified[0];
      }
      Value empty = tensor::EmptyOp::create(rewriter, op->getLoc(), sizes,
                                            type.getElementType());
      if (empty.getType() != type)
        empty = tensor::CastOp::create(rewriter, op->getLoc(), type, empty);
      rewriter.replaceOp(op, empty);
    }
  }
};

} // namespace
