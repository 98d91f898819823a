//===- TgcReductionOps.cpp - verifiers of the tgc reductions --------------===//
//
// Result types of the reductions come from inferReduceResult (ShapeRules);
// what is checked here is what the types cannot say: a reduction without
// an identity (amax, max, argmax, an infinite or negative norm) over a
// dimension of size 0 is an error in PyTorch ("Expected reduction dim 0 to
// have non-zero size"), so it is one here, instead of an op that fails to
// lower or returns a made-up value.
//
//===----------------------------------------------------------------------===//

#include "tgc/Dialect/Tgc/IR/TgcOps.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/STLExtras.h"

#include <cmath>

using namespace mlir;
using namespace mlir::tgc;

/// Fails when one of `dims` of `input` has the static size 0. A 0-d input
/// reduces over its one element ("dim 0"), which always exists.
static LogicalResult verifyNonEmptyDims(Operation *op, Value input,
                                        ArrayRef<int64_t> dims,
                                        StringRef why) {
  auto type = cast<RankedTensorType>(input.getType());
  for (int64_t d : dims)
    if (d >= 0 && d < type.getRank() && type.getDimSize(d) == 0)
      return op->emitOpError("cannot reduce dimension ")
             << d << " of size 0 of " << type << ": " << why;
  return success();
}

static constexpr StringLiteral kNoIdentity =
    "the reduction has no identity (PyTorch raises an error too)";

LogicalResult AmaxOp::verify() {
  return verifyNonEmptyDims(*this, getInput(), getDims(), kNoIdentity);
}

LogicalResult AminOp::verify() {
  return verifyNonEmptyDims(*this, getInput(), getDims(), kNoIdentity);
}

LogicalResult ArgmaxOp::verify() {
  return verifyNonEmptyDims(*this, getInput(),
                            {static_cast<int64_t>(getDim())}, kNoIdentity);
}

LogicalResult ArgminOp::verify() {
  return verifyNonEmptyDims(*this, getInput(),
                            {static_cast<int64_t>(getDim())}, kNoIdentity);
}

LogicalResult MaxOp::verify() {
  return verifyNonEmptyDims(*this, getInput(),
                            {static_cast<int64_t>(getDim())}, kNoIdentity);
}

LogicalResult MinOp::verify() {
  return verifyNonEmptyDims(*this, getInput(),
                            {static_cast<int64_t>(getDim())}, kNoIdentity);
}

LogicalResult NormOp::verify() {
  double p = getP().convertToDouble();
  if (std::isnan(p))
    return emitOpError("p must be a number, got nan");
  if (p >= 0 && !std::isinf(p))
    return success(); // sum of |x|^p: 0 for no elements
  return verifyNonEmptyDims(*this, getInput(), getDims(),
                            "a norm with p = " + std::to_string(p) +
                                " has no identity (PyTorch raises an error "
                                "too)");
}

LogicalResult TopkOp::inferReturnTypes(MLIRContext *ctx,
                                       std::optional<Location> loc,
                                       Adaptor adaptor,
                                       SmallVectorImpl<Type> &types) {
  auto in = cast<RankedTensorType>(adaptor.getInput().getType());
  int64_t k = static_cast<int64_t>(adaptor.getK());
  int64_t dim = static_cast<int64_t>(adaptor.getDim());
  int64_t rank = in.getRank();
  // PyTorch treats a 0-d input as a 1-element vector.
  if (dim < 0 || dim >= std::max<int64_t>(rank, 1))
    return emitOptionalError(
        loc, "dim ", dim, " is out of range for rank ", rank,
        " (expected 0 <= dim < ", std::max<int64_t>(rank, 1),
        "; negative dims are normalized by the importer)");
  if (k < 0)
    return emitOptionalError(loc, "k must be non-negative, got ", k);
  int64_t size = rank == 0 ? 1 : in.getDimSize(dim);
  if (!ShapedType::isDynamic(size) && k > size)
    return emitOptionalError(loc, "k (", k, ") is larger than the size (",
                             size, ") of dimension ", dim);
  SmallVector<int64_t> shape(in.getShape());
  if (rank > 0)
    shape[dim] = k;
  types.push_back(RankedTensorType::get(shape, in.getElementType()));
  types.push_back(RankedTensorType::get(shape, IntegerType::get(ctx, 64)));
  return success();
}
