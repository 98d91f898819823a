//===- LaunchPlanGuards.cpp - guards and checks of a launch plan ----------===//
//
// The guard set (tgc_guard ops) as declarative plan guards, and host
// asserts as plan guards (on sizes) or device-side checks (on flags that a
// kernel computes).
//
//===----------------------------------------------------------------------===//

#include "PlanBuilder.h"

#include "tgc/Analysis/ShapeEnv.h"
#include "tgc/Analysis/SymbolicIR.h"
#include "tgc/Conversion/TgcToLinalg/TgcToLinalg.h"
#include "tgc/Dialect/TgcGuard/IR/TgcGuardOps.h"
#include "tgc/Dialect/TgcSym/IR/TgcSymOps.h"
#include "tgc/Transforms/GuardUtils.h"

using namespace mlir;
using namespace mlir::tgc;

namespace mlir::tgc::plan_detail {

LogicalResult addGuards(PlanBuilder &b, ModuleOp module, func::FuncOp func) {
  guard::GuardSetOp set;
  for (auto s : module.getOps<guard::GuardSetOp>())
    if (s.getFunction() == func.getSymName())
      set = s;
  if (!set)
    return func.emitOpError() << "has no guard set; run the frontend first";
  ShapeEnv env(module.getContext());
  SymbolicIR ir(env);
  ir.addSymbolOps(*set.getBody(), /*actualSizes=*/true);
  SmallVector<int64_t> symbols;
  for (unsigned i = 0; i < env.getNumSymbols(); ++i) {
    const SymbolInfo &info = env.getSymbol(i);
    if (info.kind != SymbolKind::Input || !info.arg || !info.dim)
      symbols.push_back(-1); // min/max: expanded below
    else
      symbols.push_back(b.argDim(*info.arg, *info.dim));
    if (symbols.back() >= 0)
      b.plan.symbols.emplace_back(info.name, symbols.back());
  }
  for (unsigned i = 0; i < env.getNumSymbols(); ++i) {
    const SymbolInfo &info = env.getSymbol(i);
    if (symbols[i] >= 0)
      continue;
    if (info.kind == SymbolKind::Unbacked || info.operands.empty())
      return set.emitOpError() << "has a data-dependent size " << info.name
                               << "; GPU launch plans cannot guard it yet";
    std::optional<int64_t> r;
    for (AffineExpr e : info.operands) {
      FailureOr<int64_t> n = b.expr(e, {}, symbols, set);
      if (failed(n))
        return failure();
      r = r ? b.binary(info.kind == SymbolKind::Min ? rt::ExprKind::Min
                                                    : rt::ExprKind::Max,
                       *r, *n)
            : *n;
    }
    symbols[i] = *r;
  }
  for (Operation &op : *set.getBody()) {
    auto g = dyn_cast<guard::GuardOpInterface>(op);
    if (!g)
      continue;
    rt::PlanGuard pg;
    pg.text = g.describe();
    pg.reason = (g.getReason() + " at " + formatLocation(op.getLoc())).str();
    if (auto r = dyn_cast<guard::RankOp>(op)) {
      pg.kind = rt::GuardKind::Rank;
      pg.arg = r.getArg();
      pg.value = r.getRank();
    } else if (auto d = dyn_cast<guard::DtypeOp>(op)) {
      std::optional<int32_t> dt = d.getDtype().isUnsignedInteger(8)
                                      ? std::optional<int32_t>(TGC_DTYPE_U8)
                                      : dtypeOf(d.getDtype());
      if (!dt)
        return op.emitOpError() << "guards a dtype the runtime lacks";
      pg.kind = rt::GuardKind::Dtype;
      pg.arg = d.getArg();
      pg.value = *dt;
    } else if (auto d = dyn_cast<guard::DeviceOp>(op)) {
      pg.kind = rt::GuardKind::Device;
      pg.arg = d.getArg();
      pg.value = d.getDevice() == "cpu" ? TGC_DEVICE_CPU : TGC_DEVICE_CUDA;
    } else if (auto c = dyn_cast<guard::ContiguousOp>(op)) {
      pg.kind = rt::GuardKind::Contiguous;
      pg.arg = c.getArg();
    } else if (auto a = dyn_cast<guard::AlignedOp>(op)) {
      pg.kind = rt::GuardKind::Aligned;
      pg.arg = a.getArg();
      pg.value = a.getAlignment();
    } else if (auto n = dyn_cast<guard::NoAliasOp>(op)) {
      pg.kind = rt::GuardKind::NoAlias;
      pg.arg = n.getLhs();
      pg.value = n.getRhs();
    } else if (auto n = dyn_cast<guard::NoAliasOutsOp>(op)) {
      pg.kind = rt::GuardKind::NoAliasOuts;
      for (int64_t o : n.getOuts())
        pg.args.push_back(int32_t(o));
    } else if (isa<guard::RangeOp, guard::RelationOp>(op)) {
      for (const SizeConstraint &c : constraintsOfGuard(&op, ir)) {
        FailureOr<int64_t> l = b.expr(c.lhs, {}, symbols, &op);
        FailureOr<int64_t> r = b.expr(c.rhs, {}, symbols, &op);
        if (failed(l) || failed(r))
          return failure();
        rt::PlanGuard one = pg;
        switch (c.kind) {
        case sym::ConstraintKind::eq:
          one.kind = rt::GuardKind::Equal;
          one.lhs = *l;
          one.rhs = *r;
          break;
        case sym::ConstraintKind::ge:
          one.kind = rt::GuardKind::Range;
          one.lhs = b.binary(rt::ExprKind::Sub, *l, *r);
          one.lo = 0;
          one.hi = -1;
          break;
        case sym::ConstraintKind::le:
          one.kind = rt::GuardKind::Range;
          one.lhs = b.binary(rt::ExprKind::Sub, *r, *l);
          one.lo = 0;
          one.hi = -1;
          break;
        case sym::ConstraintKind::divisible: {
          auto k = dyn_cast<AffineConstantExpr>(c.rhs);
          if (!k)
            return op.emitOpError()
                   << "divides by a symbolic size; not in GPU plans yet";
          one.kind = rt::GuardKind::Divisible;
          one.lhs = *l;
          one.value = k.getValue();
          break;
        }
        default:
          return op.emitOpError() << "is a broadcastable guard, which GPU "
                                     "launch plans cannot check yet";
        }
        b.plan.guards.push_back(one);
      }
      continue;
    } else {
      return op.emitOpError() << "is a guard GPU launch plans cannot check "
                                 "yet; not supported on the GPU yet";
    }
    b.plan.guards.push_back(pg);
  }
  return success();
}

/// A size check on the host (`cf.assert` of `size != 0` terms, as
/// reductions without identity emit, and `a == b` terms, as reshapes emit,
/// joined by `and`) as plan guards.
LogicalResult addAssert(PlanBuilder &b, cf::AssertOp op) {
  // `flag || size == 0`: the flag, checked for nonempty sizes only.
  Value flagValue = op.getArg();
  std::optional<int64_t> when;
  if (auto orOp = flagValue.getDefiningOp<arith::OrIOp>()) {
    for (auto [f, c] : {std::make_pair(orOp.getLhs(), orOp.getRhs()),
                        std::make_pair(orOp.getRhs(), orOp.getLhs())}) {
      auto cmp = c.getDefiningOp<arith::CmpIOp>();
      if (!f.getDefiningOp<memref::LoadOp>() || !cmp ||
          cmp.getPredicate() != arith::CmpIPredicate::eq ||
          getConstantIntValue(cmp.getRhs()) != 0)
        continue;
      FailureOr<int64_t> size = b.node(cmp.getLhs());
      if (failed(size))
        return failure();
      when = *size;
      flagValue = f;
      break;
    }
  }
  if (auto load = flagValue.getDefiningOp<memref::LoadOp>()) {
    // A flag the kernels computed (tgc-gpu-form-kernels left the load on
    // the host only for this): checked once the call has run.
    if (load.getMemRefType().getRank() != 0)
      return op.emitOpError() << "checks an element of a device buffer; "
                                 "only a scalar flag can be checked";
    // One check per flag and message (CSE shares a flag among asserts).
    if (!b.checked
             .insert({load.getMemRef().getAsOpaquePointer(), op.getMsg().str()})
             .second)
      return success();
    FailureOr<Layout> flag = b.layout(load.getMemRef());
    if (failed(flag))
      return failure();
    rt::PlanStep step;
    step.kind = rt::PlanStep::Check;
    step.check.flag = b.pointerOf(*flag, load.getMemRefType().getElementType());
    step.check.when = when.value_or(-1);
    step.check.index = op->hasAttr(kIndexCheckAttrName);
    step.check.message =
        (op.getMsg() + " at " + formatLocation(op.getLoc())).str();
    b.plan.steps.push_back(std::move(step));
    return success();
  }
  SmallVector<Value> worklist{op.getArg()};
  while (!worklist.empty()) {
    Value v = worklist.pop_back_val();
    if (auto a = v.getDefiningOp<arith::AndIOp>()) {
      worklist.push_back(a.getLhs());
      worklist.push_back(a.getRhs());
      continue;
    }
    auto cmp = v.getDefiningOp<arith::CmpIOp>();
    if (cmp && cmp.getPredicate() == arith::CmpIPredicate::eq) {
      // Two sizes that must agree (a reshape's element counts).
      FailureOr<int64_t> lhs = b.node(cmp.getLhs());
      FailureOr<int64_t> rhs = b.node(cmp.getRhs());
      if (failed(lhs) || failed(rhs))
        return failure();
      rt::PlanGuard g;
      g.kind = rt::GuardKind::Equal;
      g.lhs = *lhs;
      g.rhs = *rhs;
      g.text = "sizes agree";
      g.reason = (op.getMsg() + " at " + formatLocation(op.getLoc())).str();
      b.plan.guards.push_back(g);
      continue;
    }
    if (cmp && cmp.getPredicate() != arith::CmpIPredicate::eq &&
        cmp.getPredicate() != arith::CmpIPredicate::ne) {
      // An order between two sizes (a gather's index no larger than its
      // input): the difference's range.
      using P = arith::CmpIPredicate;
      P p = cmp.getPredicate();
      bool lessSide = p == P::sle || p == P::slt || p == P::ule || p == P::ult;
      bool strict = p == P::slt || p == P::sgt || p == P::ult || p == P::ugt;
      FailureOr<int64_t> lhs = b.node(cmp.getLhs());
      FailureOr<int64_t> rhs = b.node(cmp.getRhs());
      if (failed(lhs) || failed(rhs))
        return failure();
      rt::PlanGuard g;
      g.kind = rt::GuardKind::Range;
      g.lhs = lessSide ? b.binary(rt::ExprKind::Sub, *rhs, *lhs)
                       : b.binary(rt::ExprKind::Sub, *lhs, *rhs);
      g.lo = strict ? 1 : 0;
      g.hi = -1;
      g.text = "sizes in order";
      g.reason = (op.getMsg() + " at " + formatLocation(op.getLoc())).str();
      b.plan.guards.push_back(g);
      continue;
    }
    std::optional<int64_t> zero =
        cmp ? getConstantIntValue(cmp.getRhs()) : std::nullopt;
    if (!cmp || cmp.getPredicate() != arith::CmpIPredicate::ne || zero != 0)
      return op.emitOpError()
             << "checks a condition GPU launch plans cannot express";
    FailureOr<int64_t> size = b.node(cmp.getLhs());
    if (failed(size))
      return failure();
    rt::PlanGuard g;
    g.kind = rt::GuardKind::Range;
    g.lhs = *size;
    g.lo = 1;
    g.hi = -1;
    g.text = "size != 0";
    g.reason = (op.getMsg() + " at " + formatLocation(op.getLoc())).str();
    b.plan.guards.push_back(g);
  }
  return success();
}

} // namespace mlir::tgc::plan_detail
