//===- PlanMemory.cpp - intermediate buffers in one arena -----------------===//
//
// Liveness-based arena planning over symbolic sizes. See the pass
// description in Passes.td.
//
//===----------------------------------------------------------------------===//

#include "tgc/Transforms/Passes.h"

#include "tgc/Analysis/ShapeEnv.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/ADT/TypeSwitch.h"

#include <map>

namespace mlir::tgc {
#define GEN_PASS_DEF_TGCPLANMEMORY
#include "tgc/Transforms/Memory/Passes.h.inc"
} // namespace mlir::tgc

using namespace mlir;
using namespace mlir::tgc;

namespace {

constexpr int64_t kAlignment = 64;

struct Buffer {
  memref::AllocOp alloc;
  int64_t start, end; // op positions in the block, inclusive
  AffineExpr bytes;   // aligned size
  unsigned slot = 0;
};

/// Sizes of the function's memref arguments as ShapeEnv symbols, and index
/// values as expressions of them.
class SizeModel {
public:
  SizeModel(ShapeEnv &env, func::FuncOp func) : env(env), func(func) {}

  /// The expression of an index value, or null when it depends on something
  /// computed in the body (not known at the function's entry).
  AffineExpr exprOf(Value v) {
    if (auto it = cache.find(v); it != cache.end())
      return it->second;
    AffineExpr e = compute(v);
    cache[v] = e;
    return e;
  }

  AffineExpr argDim(unsigned arg, int64_t dim) {
    auto key = std::make_pair(arg, dim);
    if (auto it = argDims.find(key); it != argDims.end())
      return it->second;
    SymbolInfo info;
    info.name = "arg" + std::to_string(arg) + "_dim" + std::to_string(dim);
    info.kind = SymbolKind::Input;
    info.range = {0, std::nullopt};
    info.arg = arg;
    info.dim = dim;
    AffineExpr e = env.addSymbol(info);
    argDims[key] = e;
    order.push_back(key);
    return e;
  }

  /// (arg, dim) of each symbol, in symbol order.
  ArrayRef<std::pair<unsigned, int64_t>> symbolOrigins() const { return order; }

  /// Materializes `e` with arith ops at `b` (memref.dim of the arguments
  /// for the symbols).
  Value materialize(OpBuilder &b, Location loc, AffineExpr e) {
    switch (e.getKind()) {
    case AffineExprKind::Constant:
      return arith::ConstantIndexOp::create(
          b, loc, cast<AffineConstantExpr>(e).getValue());
    case AffineExprKind::SymbolId: {
      unsigned pos = cast<AffineSymbolExpr>(e).getPosition();
      auto [arg, dim] = order[pos];
      if (auto it = dimValues.find(pos); it != dimValues.end())
        return it->second;
      Value v = memref::DimOp::create(b, loc, func.getArgument(arg), dim);
      dimValues[pos] = v;
      return v;
    }
    default:
      break;
    }
    auto bin = cast<AffineBinaryOpExpr>(e);
    Value l = materialize(b, loc, bin.getLHS());
    Value r = materialize(b, loc, bin.getRHS());
    switch (e.getKind()) {
    case AffineExprKind::Add:
      return arith::AddIOp::create(b, loc, l, r);
    case AffineExprKind::Mul:
      return arith::MulIOp::create(b, loc, l, r);
    default:
      return division(b, loc, e.getKind(), l, r);
    }
  }

  /// `e` computed in i64 with signed overflow checks: as an index, or -1
  /// when a step overflowed or the byte count comes out negative. Terms may
  /// be negative on the way (`s1 * -2 + s0 * s1`, the normal form of
  /// `(s0 - 2) * s1`): only the whole must be >= 0. (Before 2026-11-30 a
  /// negative term counted as an overflow, and a slice `x[:, 1:T-1]` of a
  /// dynamic `T` could not allocate its arena.)
  Value materializeChecked(OpBuilder &b, Location loc, AffineExpr e) {
    Value overflow = arith::ConstantIntOp::create(b, loc, b.getI1Type(), 0);
    Value v = checked(b, loc, e, overflow);
    overflow = arith::OrIOp::create(
        b, loc, overflow,
        arith::CmpIOp::create(
            b, loc, arith::CmpIPredicate::slt, v,
            arith::ConstantIntOp::create(b, loc, b.getI64Type(), 0)));
    Value minusOne = arith::ConstantIntOp::create(b, loc, b.getI64Type(), -1);
    v = arith::SelectOp::create(b, loc, overflow, minusOne, v);
    return arith::IndexCastOp::create(b, loc, b.getIndexType(), v);
  }

private:
  Value checked(OpBuilder &b, Location loc, AffineExpr e, Value &overflow) {
    Type i64 = b.getI64Type();
    Value zero = arith::ConstantIntOp::create(b, loc, i64, 0);
    auto orIf = [&](arith::CmpIPredicate pred, Value x) {
      overflow = arith::OrIOp::create(
          b, loc, overflow, arith::CmpIOp::create(b, loc, pred, x, zero));
    };
    auto bin = dyn_cast<AffineBinaryOpExpr>(e);
    if (!bin)
      return arith::IndexCastOp::create(b, loc, i64, materialize(b, loc, e));
    Value l = checked(b, loc, bin.getLHS(), overflow);
    Value r = checked(b, loc, bin.getRHS(), overflow);
    switch (e.getKind()) {
    case AffineExprKind::Add: {
      Value sum = arith::AddIOp::create(b, loc, l, r);
      // Signed overflow: both operands differ in sign from the sum.
      orIf(arith::CmpIPredicate::slt,
           arith::AndIOp::create(b, loc, arith::XOrIOp::create(b, loc, l, sum),
                                 arith::XOrIOp::create(b, loc, r, sum)));
      return sum;
    }
    case AffineExprKind::Mul: {
      // Signed overflow: the high half is not the low half's sign.
      auto product = arith::MulSIExtendedOp::create(b, loc, l, r);
      Value sign =
          arith::ShRSIOp::create(b, loc, product.getLow(),
                                 arith::ConstantIntOp::create(b, loc, i64, 63));
      overflow = arith::OrIOp::create(
          b, loc, overflow,
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne,
                                product.getHigh(), sign));
      return product.getLow();
    }
    default:
      return division(b, loc, e.getKind(), l, r);
    }
  }

  /// floordiv, ceildiv or mod (the divisor is a positive constant or size:
  /// no overflow to check). An affine `mod` is a floor modulo, never
  /// negative: `(-6) mod 4` is 2. (arith.remsi alone gave -2, and the
  /// arena of `F.pad(x, (0, (-W) % 4))` came out too small: a heap
  /// overflow, before 2026-11-30.)
  static Value division(OpBuilder &b, Location loc, AffineExprKind kind,
                        Value l, Value r) {
    switch (kind) {
    case AffineExprKind::FloorDiv:
      return arith::FloorDivSIOp::create(b, loc, l, r);
    case AffineExprKind::CeilDiv:
      return arith::CeilDivSIOp::create(b, loc, l, r);
    default: {
      Value rem = arith::RemSIOp::create(b, loc, l, r);
      Value zero =
          arith::ConstantOp::create(b, loc, b.getZeroAttr(rem.getType()));
      Value negative =
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, rem, zero);
      return arith::SelectOp::create(
          b, loc, negative, arith::AddIOp::create(b, loc, rem, r), rem);
    }
    }
  }

  AffineExpr exprOf(OpFoldResult r) {
    if (auto v = dyn_cast<Value>(r))
      return exprOf(v);
    return env.constant(cast<IntegerAttr>(cast<Attribute>(r)).getInt());
  }

  /// Size `index` of the memref `m`: a function argument's size, or the
  /// size a view or allocation was given (through casts and reshapes).
  AffineExpr dimOf(Value m, int64_t index) {
    auto type = dyn_cast<MemRefType>(m.getType());
    if (!type || index < 0 || index >= type.getRank())
      return {};
    if (!type.isDynamicDim(index))
      return env.constant(type.getDimSize(index));
    if (auto arg = dyn_cast<BlockArgument>(m))
      return arg.getOwner() == &func.front() ? argDim(arg.getArgNumber(), index)
                                             : AffineExpr();
    Operation *def = m.getDefiningOp();
    auto dynamicOperand = [&](ValueRange operands) -> AffineExpr {
      int64_t pos = 0;
      for (int64_t d = 0; d < index; ++d)
        pos += type.isDynamicDim(d);
      return exprOf(operands[pos]);
    };
    return llvm::TypeSwitch<Operation *, AffineExpr>(def)
        .Case([&](memref::AllocOp a) {
          return dynamicOperand(a.getDynamicSizes());
        })
        .Case([&](memref::ViewOp v) { return dynamicOperand(v.getSizes()); })
        .Case([&](memref::CastOp c) { return dimOf(c.getSource(), index); })
        .Case([&](memref::ExpandShapeOp e) {
          return exprOf(e.getMixedOutputShape()[index]);
        })
        .Case([&](memref::CollapseShapeOp c) {
          AffineExpr product = env.constant(1);
          for (int64_t d : c.getReassociationIndices()[index]) {
            AffineExpr e = dimOf(c.getSrc(), d);
            if (!e)
              return AffineExpr();
            product = product * e;
          }
          return product;
        })
        .Case([&](memref::SubViewOp v) {
          // Rank-reducing subviews drop unit dims.
          llvm::SmallBitVector dropped = v.getDroppedDims();
          SmallVector<OpFoldResult> sizes = v.getMixedSizes();
          int64_t kept = 0;
          for (auto [d, size] : llvm::enumerate(sizes)) {
            if (dropped.test(d))
              continue;
            if (kept++ == index)
              return exprOf(size);
          }
          return AffineExpr();
        })
        .Default([](Operation *) { return AffineExpr(); });
  }

  AffineExpr compute(Value v) {
    APInt cst;
    if (matchPattern(v, m_ConstantInt(&cst)))
      return env.constant(cst.getSExtValue());
    Operation *def = v.getDefiningOp();
    if (!def)
      return {};
    if (auto dim = dyn_cast<memref::DimOp>(def)) {
      std::optional<int64_t> index = dim.getConstantIndex();
      return index ? dimOf(dim.getSource(), *index) : AffineExpr();
    }
    auto binary = [&]() -> std::pair<AffineExpr, AffineExpr> {
      return {exprOf(def->getOperand(0)), exprOf(def->getOperand(1))};
    };
    return llvm::TypeSwitch<Operation *, AffineExpr>(def)
        .Case([&](arith::IndexCastOp c) { return exprOf(c.getIn()); })
        .Case([&](arith::AddIOp) {
          auto [a, b] = binary();
          return a && b ? a + b : AffineExpr();
        })
        .Case([&](arith::SubIOp) {
          auto [a, b] = binary();
          return a && b ? a - b : AffineExpr();
        })
        .Case([&](arith::MulIOp) {
          auto [a, b] = binary();
          return a && b ? a * b : AffineExpr();
        })
        .Case<arith::FloorDivSIOp, arith::CeilDivSIOp, arith::DivSIOp,
              arith::DivUIOp>([&](Operation *op) {
          auto [a, b] = binary();
          auto c = b ? dyn_cast<AffineConstantExpr>(b) : AffineConstantExpr();
          if (!a || !c || c.getValue() <= 0)
            return AffineExpr();
          // Sizes are non-negative: truncating division is floor division.
          return isa<arith::CeilDivSIOp>(op) ? a.ceilDiv(c) : a.floorDiv(c);
        })
        .Default([](Operation *) { return AffineExpr(); });
  }

  ShapeEnv &env;
  func::FuncOp func;
  DenseMap<Value, AffineExpr> cache;
  std::map<std::pair<unsigned, int64_t>, AffineExpr> argDims;
  std::vector<std::pair<unsigned, int64_t>> order;
  DenseMap<unsigned, Value> dimValues;
};

/// Ancestor of `op` in `block`, if any.
Operation *ancestorIn(Block &block, Operation *op) {
  while (op && op->getBlock() != &block)
    op = op->getParentOp();
  return op;
}

struct TgcPlanMemoryPass : tgc::impl::TgcPlanMemoryBase<TgcPlanMemoryPass> {
  using TgcPlanMemoryBase::TgcPlanMemoryBase;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal())
      return;
    Block &block = func.front();
    DenseMap<Operation *, int64_t> position;
    int64_t n = 0;
    for (Operation &op : block)
      position[&op] = n++;
    // Kernel spans: on the GPU path, tgc-gpu-form-kernels makes one kernel
    // of each run of consecutive generics (and copies) of one fusion group
    // and runs their ops interleaved, row by row or element by element. A
    // buffer that any op of such a run uses is alive from the run's first
    // op to its last: a buffer allocated in the run must not take the
    // memory of one whose last use is earlier in the same run (the stats
    // of a layer norm over the pieces of the concat it normalizes).
    // Elsewhere the runs are single ops or loop nests, and this changes
    // nothing.
    DenseMap<Operation *, std::pair<int64_t, int64_t>> span;
    {
      SmallVector<Operation *> run;
      std::optional<int64_t> runGroup;
      auto close = [&]() {
        if (run.size() > 1)
          for (Operation *op : run)
            span[op] = {position[run.front()], position[run.back()]};
        run.clear();
      };
      for (Operation &op : block) {
        if (!isa<linalg::GenericOp, memref::CopyOp>(op))
          continue; // allocations and views do not end a kernel
        std::optional<int64_t> group = getKernelFusionGroup(&op);
        if (!group || group != runGroup)
          close();
        runGroup = group;
        if (group)
          run.push_back(&op);
      }
      close();
    }
    auto spanOf = [&](Operation *op) -> std::pair<int64_t, int64_t> {
      if (auto it = span.find(op); it != span.end())
        return it->second;
      return {position[op], position[op]};
    };

    ShapeEnv env(&getContext());
    SizeModel sizes(env, func);
    std::vector<Buffer> buffers;
    for (Operation &op : block) {
      auto alloc = dyn_cast<memref::AllocOp>(op);
      if (!alloc || !alloc.getType().getLayout().isIdentity() ||
          !alloc.getSymbolOperands().empty())
        continue;
      MemRefType type = alloc.getType();
      if (!type.getElementType().isIntOrFloat())
        continue;
      // Size in bytes.
      int64_t elem = std::max<int64_t>(
          1, (type.getElementType().getIntOrFloatBitWidth() + 7) / 8);
      AffineExpr bytes = env.constant(elem);
      unsigned dyn = 0;
      bool known = true;
      // A buffer whose static sizes alone overflow a byte count stays out
      // of the plan: tgc-check-allocations rejects its type.
      int64_t staticBytes = elem;
      for (int64_t s : type.getShape())
        if (!ShapedType::isDynamic(s) &&
            __builtin_mul_overflow(staticBytes, s, &staticBytes))
          known = false;
      for (int64_t d = 0; known && d < type.getRank(); ++d) {
        if (!type.isDynamicDim(d)) {
          bytes = bytes * type.getDimSize(d);
          continue;
        }
        AffineExpr e = sizes.exprOf(alloc.getDynamicSizes()[dyn++]);
        if (!e) {
          known = false;
          break;
        }
        bytes = bytes * e;
      }
      if (!known)
        continue;
      // Lifetime: the last use of the buffer or of a view of it; a
      // returned (or otherwise escaping) buffer is not planned.
      int64_t start = position[alloc], end = start;
      bool escapes = false;
      SmallVector<Value> worklist = {alloc.getResult()};
      while (!worklist.empty() && !escapes) {
        Value v = worklist.pop_back_val();
        for (OpOperand &use : v.getUses()) {
          Operation *user = use.getOwner();
          if (isa<func::ReturnOp>(user) ||
              (isa<memref::StoreOp>(user) && use.getOperandNumber() == 0)) {
            escapes = true;
            break;
          }
          if (isa<ViewLikeOpInterface>(user) ||
              isa<memref::CollapseShapeOp, memref::ExpandShapeOp,
                  memref::CastOp, memref::ReinterpretCastOp>(user))
            for (Value r : user->getResults())
              worklist.push_back(r);
          Operation *top = ancestorIn(block, user);
          if (!top) {
            escapes = true;
            break;
          }
          auto [first, last] = spanOf(top);
          start = std::min(start, first);
          end = std::max(end, last);
        }
      }
      if (escapes)
        continue;
      AffineExpr aligned =
          env.canonicalize(bytes.ceilDiv(kAlignment) * kAlignment);
      buffers.push_back({alloc, start, end, aligned});
    }
    if (buffers.empty())
      return;

    // Slots: first fit among free slots that are large enough for every
    // argument size.
    struct Slot {
      AffineExpr bytes;
      int64_t busyUntil;
    };
    std::vector<Slot> slots;
    Location loc = func.getLoc();
    for (Buffer &b : buffers) {
      bool placed = false;
      for (auto [i, s] : llvm::enumerate(slots)) {
        if (s.busyUntil >= b.start)
          continue;
        if (env.implies({}, {ConstraintKind::ge, s.bytes, b.bytes, loc, ""})) {
          b.slot = i;
          s.busyUntil = b.end;
          placed = true;
          break;
        }
      }
      if (!placed) {
        b.slot = slots.size();
        slots.push_back({b.bytes, b.end});
      }
    }
    std::vector<AffineExpr> offsets;
    AffineExpr total = env.constant(0);
    for (Slot &s : slots) {
      offsets.push_back(env.canonicalize(total));
      total = total + s.bytes;
    }
    total = env.canonicalize(total);

    // Peak of live bytes: at each buffer's allocation, the buffers alive.
    SmallVector<AffineExpr> peaks;
    for (const Buffer &b : buffers) {
      AffineExpr live = env.constant(0);
      for (const Buffer &o : buffers)
        if (o.start <= b.start && o.end >= b.start)
          live = live + o.bytes;
      peaks.push_back(env.canonicalize(live));
    }

    if (check && failed(verifyPlan(func, env, buffers, offsets, total)))
      return signalPassFailure();

    // Rewrite: the arena at the entry, a view per buffer.
    OpBuilder builder(&getContext());
    builder.setInsertionPointToStart(&block);
    // A static arena as a static alloc: the canonicalizer would rebuild a
    // dynamic alloc of a constant size without the tgc.arena tag (which
    // tgc-lower-arena and diagnostics read).
    auto constantTotal = dyn_cast<AffineConstantExpr>(total);
    Value arena;
    if (constantTotal && constantTotal.getValue() >= 0) {
      arena = memref::AllocOp::create(
          builder, loc,
          MemRefType::get({constantTotal.getValue()}, builder.getI8Type()),
          ValueRange{}, builder.getI64IntegerAttr(kAlignment));
    } else {
      // -1 when the size overflows: tgc-check-allocations then fails the
      // call instead of allocating a wrapped-around size.
      Value arenaBytes = checkedSize
                             ? sizes.materializeChecked(builder, loc, total)
                             : sizes.materialize(builder, loc, total);
      arena = memref::AllocOp::create(
          builder, loc,
          MemRefType::get({ShapedType::kDynamic}, builder.getI8Type()),
          ValueRange{arenaBytes}, builder.getI64IntegerAttr(kAlignment));
    }
    // Named for diagnostics (tgc-check-allocations).
    arena.getDefiningOp()->setAttr("tgc.arena", builder.getUnitAttr());
    std::vector<Value> offsetValues;
    for (AffineExpr o : offsets)
      offsetValues.push_back(sizes.materialize(builder, loc, o));
    for (Buffer &b : buffers) {
      builder.setInsertionPoint(b.alloc);
      Value view = memref::ViewOp::create(
          builder, b.alloc.getLoc(), b.alloc.getType(), arena,
          offsetValues[b.slot], b.alloc.getDynamicSizes());
      b.alloc.replaceAllUsesWith(view);
      // The buffer's own deallocation (if any) now frees nothing.
      for (Operation *user : llvm::make_early_inc_range(view.getUsers()))
        if (isa<memref::DeallocOp>(user))
          user->erase();
      b.alloc.erase();
    }

    // Record the plan: maps over the argument sizes the plan uses.
    SmallVector<int64_t> dims;
    for (auto [arg, dim] : sizes.symbolOrigins()) {
      dims.push_back(arg);
      dims.push_back(dim);
    }
    unsigned numSymbols = env.getNumSymbols();
    auto mapOf = [&](AffineExpr e) {
      return AffineMapAttr::get(AffineMap::get(0, numSymbols, e));
    };
    SmallVector<Attribute> peakMaps;
    for (AffineExpr p : peaks)
      peakMaps.push_back(mapOf(p));
    // Each buffer's place and lifetime (offset, bytes, first and last op
    // position), for reports (tgc::arenaLayout).
    SmallVector<Attribute> layout;
    for (const Buffer &b : buffers)
      layout.push_back(builder.getArrayAttr(
          {mapOf(offsets[b.slot]), mapOf(b.bytes),
           builder.getI64IntegerAttr(b.start),
           builder.getI64IntegerAttr(b.end)}));
    NamedAttrList plan;
    plan.append("buffers", builder.getI64IntegerAttr(buffers.size()));
    plan.append("slots", builder.getI64IntegerAttr(slots.size()));
    plan.append("arena_bytes", mapOf(total));
    plan.append("peak_bytes", builder.getArrayAttr(peakMaps));
    plan.append("dims", builder.getDenseI64ArrayAttr(dims));
    plan.append("layout", builder.getArrayAttr(layout));
    func->setAttr("tgc.memory_plan", plan.getDictionary(&getContext()));
    if (report)
      func.emitRemark() << "tgc-plan-memory: " << buffers.size()
                        << " intermediate buffers in " << slots.size()
                        << " slots; arena " << env.str(total) << " bytes";
  }

  /// Every two buffers alive at once occupy disjoint bytes, and every
  /// buffer lies inside the arena, for all argument sizes.
  LogicalResult verifyPlan(func::FuncOp func, ShapeEnv &env,
                           ArrayRef<Buffer> buffers,
                           ArrayRef<AffineExpr> offsets, AffineExpr total) {
    Location loc = func.getLoc();
    auto holds = [&](AffineExpr l, AffineExpr r) {
      return env.implies({}, {ConstraintKind::le, l, r, loc, ""});
    };
    for (auto [i, a] : llvm::enumerate(buffers)) {
      memref::AllocOp aAlloc = a.alloc;
      AffineExpr aEnd = offsets[a.slot] + a.bytes;
      if (!holds(aEnd, total))
        return aAlloc.emitError("tgc-plan-memory check: buffer may extend "
                                "past the arena (")
               << env.str(env.canonicalize(aEnd)) << " > " << env.str(total)
               << ")";
      for (const Buffer &b : buffers.drop_front(i + 1)) {
        bool overlapInTime = a.start <= b.end && b.start <= a.end;
        if (!overlapInTime)
          continue;
        AffineExpr bEnd = offsets[b.slot] + b.bytes;
        if (!holds(aEnd, offsets[b.slot]) && !holds(bEnd, offsets[a.slot]))
          return aAlloc.emitError("tgc-plan-memory check: this buffer and "
                                  "the one at ")
                 << memref::AllocOp(b.alloc).getLoc()
                 << " are alive at the same time and may overlap";
      }
    }
    return success();
  }
};

} // namespace
