//===- TgcConvBackwardOps.cpp - tgc.conv2d's gradient ops -----------------===//
//
// The size rules of tgc.conv2d_backward_input and tgc.conv2d_backward_weight
// (aten.convolution_backward's two gradients): PyTorch's checks of a
// convolution, on the sizes the types know. The input gradient's spatial
// sizes are static and stated by its type, since a stride above 1 leaves
// them ambiguous from the output's; the window formula must give the
// output gradient's sizes from them.
//
//===----------------------------------------------------------------------===//

#include "tgc/Dialect/Tgc/IR/ShapeRules.h"
#include "tgc/Dialect/Tgc/IR/TgcOps.h"

#include "mlir/IR/Builders.h"

using namespace mlir;
using namespace mlir::tgc;

namespace {

/// The checks both gradients share: rank-4 operands of one element type,
/// window attributes, groups, and the output gradient's channels against
/// the groups.
LogicalResult checkGradient(std::optional<Location> loc, StringRef name,
                            RankedTensorType dy, RankedTensorType other,
                            ArrayRef<int64_t> stride, ArrayRef<int64_t> padding,
                            ArrayRef<int64_t> dilation, int64_t groups) {
  if (dy.getRank() != 4 || other.getRank() != 4)
    return emitOptionalError(loc, name, " operands must have rank 4, got ",
                             dy.getRank(), " and ", other.getRank());
  if (dy.getElementType() != other.getElementType())
    return emitOptionalError(loc, name,
                             " operands must have one element "
                             "type, got ",
                             dy.getElementType(), " and ",
                             other.getElementType());
  if (failed(checkWindowPair(loc, "stride", stride, 1)) ||
      failed(checkWindowPair(loc, "padding", padding, 0)) ||
      failed(checkWindowPair(loc, "dilation", dilation, 1)))
    return failure();
  if (groups < 1)
    return emitOptionalError(loc, "groups must be >= 1, got ", groups);
  int64_t o = dy.getDimSize(1);
  if (!ShapedType::isDynamic(o) && o % groups != 0)
    return emitOptionalError(loc, "output channels (", o,
                             ") are not divisible by groups (", groups, ")");
  return success();
}

/// The output gradient's spatial sizes must be the window's over `input`.
LogicalResult checkWindowOutputs(std::optional<Location> loc, StringRef name,
                                 ArrayRef<int64_t> input,
                                 ArrayRef<int64_t> kernel, RankedTensorType dy,
                                 ArrayRef<int64_t> stride,
                                 ArrayRef<int64_t> padding,
                                 ArrayRef<int64_t> dilation) {
  for (int i = 0; i < 2; ++i) {
    std::string error;
    std::optional<int64_t> out =
        windowOutputSize(input[i], kernel[i], stride[i], padding[i],
                         dilation[i], /*ceilMode=*/false, error);
    if (!out)
      return emitOptionalError(loc, name, ": ", error);
    if (!sizesCompatible(*out, dy.getDimSize(2 + i)))
      return emitOptionalError(loc, name, ": the output gradient's size ",
                               dy.getDimSize(2 + i), " along dim ", 2 + i,
                               " is not the convolution's output size ", *out);
  }
  return success();
}

} // namespace

LogicalResult Conv2dBackwardInputOp::verify() {
  std::optional<Location> loc = getLoc();
  auto dy = getGradOutput().getType();
  auto w = getWeight().getType();
  auto result = getResult().getType();
  int64_t groups = static_cast<int64_t>(getGroups());
  if (failed(checkGradient(loc, "conv2d_backward_input", dy, w, getStride(),
                           getPadding(), getDilation(), groups)))
    return failure();
  if (result.getRank() != 4 || result.getElementType() != dy.getElementType())
    return emitOpError("result must be a rank-4 tensor of ")
           << dy.getElementType() << ", got " << result;
  ArrayRef<int64_t> shape = result.getShape();
  if (ShapedType::isDynamic(shape[2]) || ShapedType::isDynamic(shape[3]))
    return emitOpError("result's spatial sizes must be static (the input's "
                       "H and W), got ")
           << result;
  if (!sizesCompatible(shape[0], dy.getDimSize(0)))
    return emitOpError("result's batch ")
           << shape[0] << " is not the output gradient's " << dy.getDimSize(0);
  if (!sizesCompatible(w.getDimSize(0), dy.getDimSize(1)))
    return emitOpError("weight has ")
           << w.getDimSize(0) << " output channels but the output gradient "
           << dy.getDimSize(1);
  if (!ShapedType::isDynamic(w.getDimSize(1)) &&
      !sizesCompatible(shape[1], w.getDimSize(1) * groups))
    return emitOpError("result's channels ")
           << shape[1] << " are not the weight's " << w.getDimSize(1)
           << " times groups (" << groups << ")";
  if (ShapedType::isDynamic(w.getDimSize(2)) ||
      ShapedType::isDynamic(w.getDimSize(3)))
    return emitOpError("kernel sizes must be static");
  return checkWindowOutputs(loc, "conv2d_backward_input", shape.drop_front(2),
                            w.getShape().drop_front(2), dy, getStride(),
                            getPadding(), getDilation());
}

LogicalResult Conv2dBackwardWeightOp::inferReturnTypes(
    MLIRContext *, std::optional<Location> loc, Adaptor adaptor,
    SmallVectorImpl<Type> &types) {
  auto dy = cast<RankedTensorType>(adaptor.getGradOutput().getType());
  auto x = cast<RankedTensorType>(adaptor.getInput().getType());
  int64_t groups = static_cast<int64_t>(adaptor.getGroups());
  if (failed(checkGradient(loc, "conv2d_backward_weight", dy, x,
                           adaptor.getStride(), adaptor.getPadding(),
                           adaptor.getDilation(), groups)) ||
      failed(checkWindowPair(loc, "kernel", adaptor.getKernel(), 1)))
    return failure();
  if (!sizesCompatible(x.getDimSize(0), dy.getDimSize(0)))
    return emitOptionalError(loc, "conv2d_backward_weight: the input's batch ",
                             x.getDimSize(0), " is not the output gradient's ",
                             dy.getDimSize(0));
  int64_t c = x.getDimSize(1);
  if (!ShapedType::isDynamic(c) && c % groups != 0)
    return emitOptionalError(loc, "input channels (", c,
                             ") are not divisible by groups (", groups, ")");
  if (failed(checkWindowOutputs(loc, "conv2d_backward_weight",
                                x.getShape().drop_front(2), adaptor.getKernel(),
                                dy, adaptor.getStride(), adaptor.getPadding(),
                                adaptor.getDilation())))
    return failure();
  ArrayRef<int64_t> kernel = adaptor.getKernel();
  types.push_back(RankedTensorType::get(
      {dy.getDimSize(1), ShapedType::isDynamic(c) ? c : c / groups, kernel[0],
       kernel[1]},
      dy.getElementType()));
  return success();
}
