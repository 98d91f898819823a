//===- LoopExtents.cpp - Which loops of two generics run equally far ------===//

#include "tgc/Transforms/LoopExtents.h"

#include "tgc/Dialect/TgcGuard/IR/TgcGuardOps.h"
#include "tgc/Dialect/TgcSym/IR/TgcSymOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

using namespace mlir;
using namespace mlir::tgc;

namespace {

/// The `dim`-th dynamic size operand among `sizes` for a type whose
/// dimension `dim` is dynamic.
Value dynamicOperand(ShapedType type, ValueRange sizes, int64_t dim) {
  int64_t index = 0;
  for (int64_t d = 0; d < dim; ++d)
    index += type.isDynamicDim(d);
  return index < static_cast<int64_t>(sizes.size()) ? sizes[index] : Value();
}

Extent fromFoldResult(OpFoldResult r, const ArgSizeClasses *classes) {
  if (std::optional<int64_t> c = getConstantIntValue(r))
    return Extent{*c, Value(), -1};
  return getIndexExtent(cast<Value>(r), classes);
}

/// The (argument, dim) a size operand of a guard is read from.
std::optional<std::pair<int64_t, int64_t>> argSizeOf(Value size) {
  auto symbol = size.getDefiningOp<sym::SymbolOp>();
  if (!symbol || !symbol.getArg() || !symbol.getDim())
    return std::nullopt;
  return std::make_pair(static_cast<int64_t>(*symbol.getArg()),
                        static_cast<int64_t>(*symbol.getDim()));
}

/// The size operand a result of a size map is, when it is one alone.
Value sizeOperand(AffineExpr e, ValueRange sizes, unsigned numDims) {
  if (auto d = dyn_cast<AffineDimExpr>(e))
    return d.getPosition() < sizes.size() ? sizes[d.getPosition()] : Value();
  if (auto s = dyn_cast<AffineSymbolExpr>(e))
    return numDims + s.getPosition() < sizes.size()
               ? sizes[numDims + s.getPosition()]
               : Value();
  return Value();
}

} // namespace

ArgSizeClasses::ArgSizeClasses(func::FuncOp func) {
  auto module = func->getParentOfType<ModuleOp>();
  if (!module)
    return;
  for (auto set : module.getOps<guard::GuardSetOp>()) {
    if (set.getFunction() != func.getSymName())
      continue;
    set.walk([&](guard::RelationOp rel) {
      AffineMap map = rel.getMap();
      if (rel.getKind() != sym::ConstraintKind::eq || map.getNumResults() != 2)
        return;
      ValueRange sizes = rel.getSizes();
      Value a = sizeOperand(map.getResult(0), sizes, map.getNumDims());
      Value b = sizeOperand(map.getResult(1), sizes, map.getNumDims());
      std::optional<std::pair<int64_t, int64_t>> x = a ? argSizeOf(a)
                                                       : std::nullopt;
      std::optional<std::pair<int64_t, int64_t>> y = b ? argSizeOf(b)
                                                       : std::nullopt;
      if (x && y)
        join(*x, *y);
    });
  }
}

std::pair<int64_t, int64_t> ArgSizeClasses::find(int64_t arg,
                                                 int64_t dim) const {
  std::pair<int64_t, int64_t> at{arg, dim};
  for (auto it = parent.find(at); it != parent.end() && it->second != at;
       it = parent.find(at))
    at = it->second;
  return at;
}

void ArgSizeClasses::join(std::pair<int64_t, int64_t> a,
                          std::pair<int64_t, int64_t> b) {
  a = find(a.first, a.second);
  b = find(b.first, b.second);
  if (a == b)
    return;
  // The smaller pair represents the class: the same for every order of
  // the relations.
  if (b < a)
    std::swap(a, b);
  parent[b] = a;
  parent.try_emplace(a, a);
}

Extent mlir::tgc::getIndexExtent(Value index, const ArgSizeClasses *classes) {
  if (!index)
    return {};
  if (std::optional<int64_t> c = getConstantIntValue(index))
    return Extent{*c, Value(), -1};
  if (auto dim = index.getDefiningOp<memref::DimOp>())
    if (std::optional<int64_t> d = dim.getConstantIndex())
      return getDimExtent(dim.getSource(), *d, classes);
  if (auto dim = index.getDefiningOp<tensor::DimOp>())
    if (std::optional<int64_t> d = dim.getConstantIndex())
      return getDimExtent(dim.getSource(), *d, classes);
  return Extent{ShapedType::kDynamic, index, -1};
}

Extent mlir::tgc::getDimExtent(Value shaped, int64_t dim,
                               const ArgSizeClasses *classes) {
  auto type = dyn_cast<ShapedType>(shaped.getType());
  if (!type || !type.hasRank() || dim < 0 || dim >= type.getRank())
    return {};
  if (!type.isDynamicDim(dim))
    return Extent{type.getDimSize(dim), Value(), -1};
  // A function argument's size: its class's representative.
  if (auto arg = dyn_cast<BlockArgument>(shaped)) {
    auto func = dyn_cast<func::FuncOp>(arg.getOwner()->getParentOp());
    if (classes && func && arg.getOwner()->isEntryBlock()) {
      auto [argNo, argDim] = classes->find(arg.getArgNumber(), dim);
      return Extent{ShapedType::kDynamic, func.getArgument(argNo), argDim};
    }
    return Extent{ShapedType::kDynamic, shaped, dim};
  }
  Operation *def = shaped.getDefiningOp();
  if (auto alloc = dyn_cast_or_null<memref::AllocOp>(def))
    return getIndexExtent(dynamicOperand(type, alloc.getDynamicSizes(), dim),
                          classes);
  if (auto alloc = dyn_cast_or_null<memref::AllocaOp>(def))
    return getIndexExtent(dynamicOperand(type, alloc.getDynamicSizes(), dim),
                          classes);
  if (auto view = dyn_cast_or_null<memref::ViewOp>(def))
    return getIndexExtent(dynamicOperand(type, view.getSizes(), dim), classes);
  if (auto empty = dyn_cast_or_null<tensor::EmptyOp>(def))
    return getIndexExtent(dynamicOperand(type, empty.getDynamicSizes(), dim),
                          classes);
  if (auto cast = dyn_cast_or_null<memref::CastOp>(def))
    return getDimExtent(cast.getSource(), dim, classes);
  if (auto cast = dyn_cast_or_null<tensor::CastOp>(def))
    return getDimExtent(cast.getSource(), dim, classes);
  if (auto expand = dyn_cast_or_null<memref::ExpandShapeOp>(def))
    return fromFoldResult(expand.getMixedOutputShape()[dim], classes);
  if (auto collapse = dyn_cast_or_null<memref::CollapseShapeOp>(def)) {
    // One dynamic source dimension among static 1s is that dimension.
    auto source = cast<MemRefType>(collapse.getSrc().getType());
    std::optional<int64_t> only;
    SmallVector<ReassociationIndices> groups =
        collapse.getReassociationIndices();
    for (int64_t d : groups[dim]) {
      if (source.getDimSize(d) == 1)
        continue;
      if (only)
        return Extent{ShapedType::kDynamic, shaped, dim};
      only = d;
    }
    if (only)
      return getDimExtent(collapse.getSrc(), *only, classes);
  }
  if (auto subview = dyn_cast_or_null<memref::SubViewOp>(def)) {
    if (subview.getSourceType().getRank() == type.getRank())
      return fromFoldResult(subview.getMixedSizes()[dim], classes);
  }
  return Extent{ShapedType::kDynamic, shaped, dim};
}

SmallVector<Extent> mlir::tgc::getLoopExtents(linalg::GenericOp op,
                                              const ArgSizeClasses *classes) {
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  SmallVector<Extent> extents(op.getNumLoops());
  for (auto [d, range] : llvm::enumerate(ranges)) {
    if (!ShapedType::isDynamic(range)) {
      extents[d] = Extent{range, Value(), -1};
      continue;
    }
    for (OpOperand &operand : op->getOpOperands()) {
      AffineMap map = op.getMatchingIndexingMap(&operand);
      for (auto [i, e] : llvm::enumerate(map.getResults())) {
        auto dimExpr = dyn_cast<AffineDimExpr>(e);
        if (dimExpr && dimExpr.getPosition() == d) {
          extents[d] = getDimExtent(operand.get(), static_cast<int64_t>(i),
                                    classes);
          break;
        }
      }
      if (extents[d].isKnown())
        break;
    }
  }
  return extents;
}
