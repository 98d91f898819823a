//===- InferShapes.cpp - propagate symbolic shapes ------------------------===//

#include "tgc/Transforms/Passes.h"

#include "tgc/Analysis/ShapeInference.h"
#include "tgc/Analysis/SymbolicIR.h"
#include "tgc/Dialect/Tgc/IR/TgcOps.h"
#include "tgc/Dialect/TgcSym/IR/TgcSymOps.h"

#include "mlir/IR/Builders.h"

namespace mlir::tgc {
#define GEN_PASS_DEF_TGCINFERSHAPES
#include "tgc/Transforms/Frontend/Passes.h.inc"
} // namespace mlir::tgc

using namespace mlir;
using namespace mlir::tgc;

namespace {

/// Removes what a previous run added: binds of non-argument values,
/// constraints, and min/max/unbacked symbols.
void eraseInferredIR(func::FuncOp func) {
  SmallVector<Operation *> toErase;
  func.walk([&](Operation *op) {
    if (auto bind = dyn_cast<sym::BindOp>(op)) {
      if (!isa<BlockArgument>(bind.getTensor()))
        toErase.push_back(op);
    } else if (isa<sym::ConstrainOp>(op)) {
      toErase.push_back(op);
    }
  });
  for (Operation *op : toErase)
    op->erase();
  toErase.clear();
  func.walk([&](Operation *op) {
    if (isa<sym::MinOp, sym::MaxOp>(op))
      toErase.push_back(op);
    else if (auto s = dyn_cast<sym::SymbolOp>(op); s && !s.hasSource())
      toErase.push_back(op);
  });
  // Users come after their operands: erase in reverse.
  for (Operation *op : llvm::reverse(toErase))
    if (op->use_empty())
      op->erase();
}

struct TgcInferShapesPass : tgc::impl::TgcInferShapesBase<TgcInferShapesPass> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal())
      return;
    eraseInferredIR(func);

    ShapeEnv env(&getContext());
    SymbolicIR ir(env);
    ShapeInferenceContext ctx(env);
    Block &entry = func.front();
    ir.addSymbolOps(entry);
    for (Operation &op : entry)
      if (auto bind = dyn_cast<sym::BindOp>(op))
        if (isa<BlockArgument>(bind.getTensor()))
          ctx.setShape(bind.getTensor(),
                       ir.exprsOf(bind.getShape(), bind.getSizes()));

    // Shape functions, in program order.
    SmallVector<Operation *> producers;
    bool failedAny = false;
    func.walk<WalkOrder::PreOrder>([&](Operation *op) {
      if (op == func || op->getDialect() ==
                            getContext().getLoadedDialect<sym::TgcSymDialect>())
        return WalkResult::advance();
      ctx.setCurrentOp(op);
      if (auto iface = dyn_cast<SymbolicShapeOpInterface>(op)) {
        if (failed(iface.inferSymbolicShapes(ctx))) {
          failedAny = true;
          return WalkResult::interrupt();
        }
        if (failed(checkAgainstTypes(op, ctx))) {
          failedAny = true;
          return WalkResult::interrupt();
        }
      }
      // Every visited op, in program order (binds and constraints are
      // emitted after the ones that need them).
      producers.push_back(op);
      // A fusion group ran its ops' shape functions itself.
      return isa<FusionGroupOp>(op) ? WalkResult::skip()
                                    : WalkResult::advance();
    });
    if (failedAny)
      return signalPassFailure();

    // Make the result visible: binds after each producer, then the
    // constraints it required.
    DenseMap<Operation *, SmallVector<const ShapeInferenceContext::Required *>>
        constraintsOf;
    for (const ShapeInferenceContext::Required &r : ctx.getRequired()) {
      // Inside an (isolated) fusion group, a constraint is emitted after
      // the outermost group.
      Operation *anchor = r.op;
      while (anchor)
        if (auto group = anchor->getParentOfType<FusionGroupOp>())
          anchor = group;
        else
          break;
      constraintsOf[anchor].push_back(&r);
    }
    // Symbols the binds need that no op defines yet (unbacked sizes,
    // min/max) go at the function's entry, after the argument binds: a
    // symbol first needed inside a region may be used outside it too.
    Operation *firstOther = nullptr;
    for (Operation &op : entry)
      if (op.getDialect() !=
              getContext().getLoadedDialect<sym::TgcSymDialect>() ||
          isa<sym::ConstrainOp>(op)) {
        firstOther = &op;
        break;
      }
    ir.setSymbolInsertionPoint(firstOther ? firstOther : entry.getTerminator());
    OpBuilder builder(&getContext());
    auto emitAfter = [&](Operation *op) {
      builder.setInsertionPointAfter(op);
      for (Value result : op->getResults()) {
        if (!isa<RankedTensorType>(result.getType()))
          continue;
        auto [operands, map] =
            ir.materialize(builder, op->getLoc(), ctx.getShape(result));
        sym::BindOp::create(builder, op->getLoc(), result, operands, map);
      }
      for (const ShapeInferenceContext::Required *r : constraintsOf[op]) {
        const SizeConstraint &c = r->constraint;
        auto [operands, map] = ir.materialize(builder, c.loc, {c.lhs, c.rhs},
                                              /*canonicalize=*/false);
        sym::ConstrainOp::create(builder, c.loc, c.kind, operands, map,
                                 c.reason);
      }
    };
    for (Operation *op : producers)
      if (llvm::any_of(op->getResultTypes(),
                       llvm::IsaPred<RankedTensorType>) ||
          constraintsOf.count(op))
        emitAfter(op);
  }

  /// A result type that is static where the shape function computed an
  /// expression: the expression must equal that size.
  static LogicalResult checkAgainstTypes(Operation *op,
                                         ShapeInferenceContext &ctx) {
    for (Value result : op->getResults()) {
      auto type = dyn_cast<RankedTensorType>(result.getType());
      if (!type)
        continue;
      if (!ctx.hasShape(result))
        return op->emitOpError("symbolic shape function set no shape for ")
               << "result " << cast<OpResult>(result).getResultNumber();
      SymShape shape = ctx.getShape(result);
      if (static_cast<int64_t>(shape.size()) != type.getRank())
        return op->emitOpError("symbolic shape function gave rank ")
               << shape.size() << " for a result of rank " << type.getRank();
      for (int64_t d = 0; d < type.getRank(); ++d) {
        if (type.isDynamicDim(d))
          continue;
        if (failed(ctx.require(
                ConstraintKind::eq, shape[d],
                ctx.getEnv().constant(type.getDimSize(d)),
                Twine(op->getName().getStringRef()) + " result " +
                    Twine(cast<OpResult>(result).getResultNumber()) +
                    " is declared with size " + Twine(type.getDimSize(d)) +
                    " in dim " + Twine(d))))
          return failure();
      }
    }
    return success();
  }
};
} // namespace
