//===- TgcScatterOps.cpp - result types of tgc.scatter_add ----------------===//
//
// tgc.scatter_add has two forms that share one lowering: torch.scatter_add
// (an index of src's rank, element by element) and torch.index_add (a
// rank-1 index picking whole slices). The rules below are PyTorch's size
// checks of the two, on the sizes the types know; the ones the types do not
// know are asserted at run time by the lowering.
//
//===----------------------------------------------------------------------===//

#include "tgc/Dialect/Tgc/IR/TgcOps.h"

#include "mlir/IR/Builders.h"

using namespace mlir;
using namespace mlir::tgc;

/// True when both sizes are static and `a > b`.
static bool surelyGreater(int64_t a, int64_t b) {
  return !ShapedType::isDynamic(a) && !ShapedType::isDynamic(b) && a > b;
}

/// True when both sizes are static and differ.
static bool surelyDiffer(int64_t a, int64_t b) {
  return !ShapedType::isDynamic(a) && !ShapedType::isDynamic(b) && a != b;
}

LogicalResult ScatterAddOp::inferReturnTypes(MLIRContext *,
                                             std::optional<Location> loc,
                                             Adaptor adaptor,
                                             SmallVectorImpl<Type> &types) {
  auto base = cast<RankedTensorType>(adaptor.getBase().getType());
  auto index = cast<RankedTensorType>(adaptor.getIndex().getType());
  auto src = cast<RankedTensorType>(adaptor.getSrc().getType());
  int64_t rank = base.getRank();
  int64_t dim = static_cast<int64_t>(adaptor.getDim());
  if (rank == 0)
    return emitOptionalError(loc, "base must have rank >= 1 (a 0-d tensor "
                                  "is scattered into as a 1-element vector)");
  if (dim < 0 || dim >= rank)
    return emitOptionalError(loc, "dim ", dim, " is out of range for rank ",
                             rank);
  if (src.getElementType() != base.getElementType())
    return emitOptionalError(loc, "src's element type ", src.getElementType(),
                             " differs from base's ", base.getElementType());
  if (src.getRank() != rank)
    return emitOptionalError(loc, "src's rank (", src.getRank(),
                             ") differs from base's (", rank, ")");
  bool sliceForm = index.getRank() == 1 && rank > 1;
  if (sliceForm) {
    // torch.index_add: src is base with the index's size along dim.
    if (surelyDiffer(src.getDimSize(dim), index.getDimSize(0)))
      return emitOptionalError(
          loc, "src's size ", src.getDimSize(dim), " along dim ", dim,
          " differs from the index's length ", index.getDimSize(0));
    for (int64_t d = 0; d < rank; ++d)
      if (d != dim && surelyDiffer(src.getDimSize(d), base.getDimSize(d)))
        return emitOptionalError(loc, "src's size ", src.getDimSize(d),
                                 " in dimension ", d, " differs from base's ",
                                 base.getDimSize(d));
  } else {
    // torch.scatter_add: the index's sizes bound the positions visited.
    if (index.getRank() != rank)
      return emitOptionalError(loc, "index rank (", index.getRank(),
                               ") must be 1 or base's rank (", rank, ")");
    for (int64_t d = 0; d < rank; ++d) {
      if (surelyGreater(index.getDimSize(d), src.getDimSize(d)))
        return emitOptionalError(loc, "index size ", index.getDimSize(d),
                                 " in dimension ", d, " exceeds src's size ",
                                 src.getDimSize(d));
      if (d != dim && surelyGreater(index.getDimSize(d), base.getDimSize(d)))
        return emitOptionalError(loc, "index size ", index.getDimSize(d),
                                 " in dimension ", d, " exceeds base's size ",
                                 base.getDimSize(d));
    }
  }
  types.push_back(base);
  return success();
}
