//===- SpecializeTypes.cpp - specialized sizes become static types -------===//
//
// See the pass description in Passes.td.
//
//===----------------------------------------------------------------------===//

#include "tgc/Transforms/Passes.h"

#include "tgc/Dialect/Tgc/IR/TgcOps.h"
#include "tgc/Dialect/TgcSym/IR/TgcSymOps.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"

namespace mlir::tgc {
#define GEN_PASS_DEF_TGCSPECIALIZETYPES
#include "tgc/Transforms/Frontend/Passes.h.inc"
namespace {

/// `type` with each `?` that `other` has static taken from `other` (same
/// rank), or null when they do not fit together.
RankedTensorType refine(RankedTensorType type, RankedTensorType other) {
  if (!other || type.getRank() != other.getRank())
    return {};
  SmallVector<int64_t> shape(type.getShape());
  for (auto [d, s] : llvm::enumerate(other.getShape())) {
    if (ShapedType::isDynamic(shape[d]))
      shape[d] = s;
    else if (!ShapedType::isDynamic(s) && s != shape[d])
      return {};
  }
  return RankedTensorType::get(shape, type.getElementType(),
                               type.getEncoding());
}

/// The result types `op` has with its current operand types, as refined as
/// its type rule gives them; empty when the op has no rule this pass
/// knows (its operands then keep their old types).
SmallVector<Type> refinedResultTypes(Operation *op) {
  if (op->getDialect() != op->getContext()->getLoadedDialect<TgcDialect>() ||
      op->getNumRegions() != 0 || op->getNumResults() == 0)
    return {};
  SmallVector<Type> inferred;
  if (auto infer = dyn_cast<InferTypeOpInterface>(op)) {
    if (failed(infer.inferReturnTypes(
            op->getContext(), op->getLoc(), op->getOperands(),
            op->getRawDictionaryAttrs(), op->getPropertiesStorage(),
            op->getRegions(), inferred)))
      return {};
  } else if (op->hasTrait<OpTrait::SameOperandsAndResultType>()) {
    inferred.assign(op->getNumResults(), op->getOperand(0).getType());
  } else if (isa<LayerNormOp, RmsNormOp>(op)) {
    inferred.push_back(op->getOperand(0).getType());
  } else if (auto reshape = dyn_cast<ReshapeOp>(op)) {
    // PyTorch's -1 (one `?`, no size operands) over a static input is a
    // number; a reshape with size operands keeps its type.
    auto in = reshape.getInput().getType();
    RankedTensorType type = reshape.getType();
    if (!reshape.getDynamicSizes().empty() || !in.hasStaticShape() ||
        llvm::count_if(type.getShape(), ShapedType::isDynamic) != 1)
      return {};
    int64_t known = 1;
    for (int64_t s : type.getShape())
      if (!ShapedType::isDynamic(s))
        known *= s;
    if (known == 0 || in.getNumElements() % known != 0)
      return {};
    SmallVector<int64_t> shape(type.getShape());
    for (int64_t &s : shape)
      if (ShapedType::isDynamic(s))
        s = in.getNumElements() / known;
    inferred.push_back(type.clone(shape));
  } else if (auto convert = dyn_cast<ConvertOp>(op)) {
    inferred.push_back(
        cast<RankedTensorType>(convert.getInput().getType())
            .clone(convert.getType().getElementType()));
  } else {
    return {};
  }
  SmallVector<Type> out;
  for (auto [result, type] : llvm::zip(op->getResults(), inferred)) {
    RankedTensorType refined =
        refine(cast<RankedTensorType>(result.getType()),
               dyn_cast<RankedTensorType>(type));
    if (!refined)
      return {};
    out.push_back(refined);
  }
  return out;
}

/// `type` with the sizes `bind` gives as numbers, where the type has `?`.
RankedTensorType withBoundSizes(RankedTensorType type, sym::BindOp bind) {
  ArrayRef<AffineExpr> sizes = bind.getShape().getResults();
  if (static_cast<int64_t>(sizes.size()) != type.getRank())
    return type;
  SmallVector<int64_t> shape(type.getShape());
  for (auto [d, e] : llvm::enumerate(sizes))
    if (auto c = dyn_cast<AffineConstantExpr>(e);
        c && ShapedType::isDynamic(shape[d]) && c.getValue() >= 0)
      shape[d] = c.getValue();
  return RankedTensorType::get(shape, type.getElementType(),
                               type.getEncoding());
}

/// A size the type rule made a number is that number in the bind too: a
/// bmm's batch taken from the operand whose batch is static, a broadcast of
/// a static size against a `?`. The symbolic rule kept the other operand's
/// expression ((s0 - 1) ceildiv 3, s0 * 2), equal to the number only by a
/// constraint the guards check, and a static dim must be bound to its
/// number.
void bindStaticSizes(sym::BindOp bind, RankedTensorType type) {
  AffineMap map = bind.getShape();
  if (static_cast<int64_t>(map.getNumResults()) != type.getRank())
    return;
  SmallVector<AffineExpr> sizes(map.getResults());
  bool changed = false;
  for (auto [d, e] : llvm::enumerate(sizes)) {
    if (type.isDynamicDim(d))
      continue;
    AffineExpr c = getAffineConstantExpr(type.getDimSize(d), map.getContext());
    if (e != c) {
      e = c;
      changed = true;
    }
  }
  if (changed)
    bind.setShape(AffineMap::get(0, map.getNumSymbols(), sizes,
                                 map.getContext()));
}

struct TgcSpecializeTypesPass
    : impl::TgcSpecializeTypesBase<TgcSpecializeTypesPass> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal())
      return;
    Block &entry = func.front();
    // What tgc-infer-shapes proved of each value's sizes.
    DenseMap<Value, sym::BindOp> binds;
    func.walk([&](sym::BindOp bind) { binds.try_emplace(bind.getTensor(), bind); });
    // Old types of the values whose types change: users that do not follow
    // get a tensor.cast back to them.
    DenseMap<Value, Type> oldTypes;
    // The type the bind of `v` gives it, when more static than its own.
    auto boundType = [&](Value v) -> RankedTensorType {
      auto type = dyn_cast<RankedTensorType>(v.getType());
      auto bind = binds.lookup(v);
      if (!type || !bind)
        return {};
      RankedTensorType refined = withBoundSizes(type, bind);
      return refined == type ? RankedTensorType() : refined;
    };

    // Arguments: the sizes their binds give as numbers.
    for (BlockArgument arg : entry.getArguments()) {
      RankedTensorType refined = boundType(arg);
      if (!refined)
        continue;
      oldTypes[arg] = arg.getType();
      arg.setType(refined);
    }

    // Ops in program order: results refined by their type rules, then by
    // what their binds say (a size computed from others that is a number
    // for every allowed input: a slice of 2 with step 2 is 1), through a
    // cast after the op where its type rule does not give it.
    DenseSet<Operation *> followed;
    OpBuilder builder(&getContext());
    func.walk<WalkOrder::PreOrder>([&](Operation *op) {
      if (op == func || isa<sym::BindOp>(op))
        return WalkResult::advance();
      bool operandChanged = llvm::any_of(op->getOperands(), [&](Value v) {
        return oldTypes.count(v);
      });
      if (operandChanged) {
        SmallVector<Type> types = refinedResultTypes(op);
        if (!types.empty()) {
          followed.insert(op);
          for (auto [result, type] : llvm::zip(op->getResults(), types))
            if (type != result.getType()) {
              oldTypes.try_emplace(result, result.getType());
              result.setType(type);
              if (auto bind = binds.lookup(result))
                bindStaticSizes(bind, cast<RankedTensorType>(type));
            }
        }
      }
      if (op->getDialect() != getContext().getLoadedDialect<TgcDialect>())
        return WalkResult::advance();
      for (Value result : op->getResults()) {
        RankedTensorType refined = boundType(result);
        if (!refined)
          continue;
        builder.setInsertionPointAfter(op);
        auto cast = tensor::CastOp::create(builder, op->getLoc(), refined, result);
        result.replaceUsesWithIf(cast.getResult(), [&](OpOperand &use) {
          return use.getOwner() != cast && !isa<sym::BindOp>(use.getOwner());
        });
        // Users that do not follow read the value's type before this pass
        // (the result's type may already be refined by its type rule), and
        // the cast itself takes any type.
        Type original = oldTypes.lookup(result);
        oldTypes[cast.getResult()] = original ? original : result.getType();
        followed.insert(cast);
      }
      return WalkResult::advance();
    });
    if (oldTypes.empty())
      return; // nothing was specialized: every type stays

    // Uses whose owner did not take the new type (an op without a type
    // rule here, a return, a region's terminator) read a cast back to the
    // old one, so that every op still verifies.
    for (auto &[value, oldType] : oldTypes) {
      if (value.getType() == oldType)
        continue;
      SmallVector<OpOperand *> uses;
      for (OpOperand &use : value.getUses()) {
        Operation *owner = use.getOwner();
        // An annotation of the value itself; an out buffer (it must stay
        // the argument, and write_out relates the value's and the
        // buffer's sizes whatever their types).
        if (isa<sym::BindOp, WriteOutOp>(owner))
          continue;
        // An op with a type rule took its new result types in the walk.
        if (!followed.contains(owner))
          uses.push_back(&use);
      }
      for (OpOperand *use : uses) {
        builder.setInsertionPoint(use->getOwner());
        Value cast = tensor::CastOp::create(builder, value.getLoc(), oldType,
                                            value);
        use->set(cast);
      }
    }
    func.setType(FunctionType::get(&getContext(), entry.getArgumentTypes(),
                                   func.getResultTypes()));
  }
};

} // namespace
} // namespace mlir::tgc
