//===- TgcGuardToLLVM.cpp - guard sets to native guard functions ----------===//
//
// Lowers `tgc_guard.guard_set for @f` to
//
//   int32_t tgc_guard_f(const tgc_arg_desc *args, int32_t num_args);
//
// returning -1 when every guard passes, else the index of the first failing
// guard, plus `tgc_guard_info_f`, a tgc_guard_set_info with readable guard
// metadata. The layouts are those of include/tgc/Runtime/tgc_runtime.h.
//
// Safety: every read is preceded by the checks that make it valid (the
// argument exists; a size index is below the argument's rank; sizes are in
// [0, 2^48); divisors are positive; products do not overflow), and a failed
// check fails the guard that needed the read. A guard function therefore
// never reads out of bounds and never passes on garbage, whatever the
// descriptors it is given.
//
//===----------------------------------------------------------------------===//

#include "tgc/Conversion/Passes.h"

#include "GuardTable.h"

#include "tgc/Dialect/TgcGuard/IR/TgcGuardOps.h"
#include "tgc/Dialect/TgcSym/IR/TgcSymOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/TypeSwitch.h"

#include <map>

namespace mlir::tgc {
#define GEN_PASS_DEF_TGCLOWERGUARDS
#include "tgc/Conversion/Passes.h.inc"
} // namespace mlir::tgc

using namespace mlir;
using namespace mlir::tgc;
using sym::ConstraintKind;
using namespace mlir::tgc::guard_lowering;

namespace {

int64_t elementBytes(Type t) {
  if (t.isInteger(1))
    return 1;
  return (t.getIntOrFloatBitWidth() + 7) / 8;
}

/// Builds one guard function.
class GuardFunctionBuilder {
public:
  GuardFunctionBuilder(OpBuilder &builder, LLVM::LLVMFuncOp func,
                       FunctionOpInterface target)
      : b(builder), ctx(builder.getContext()), target(target) {
    ptrTy = LLVM::LLVMPointerType::get(ctx);
    i1 = b.getI1Type();
    i8 = b.getI8Type();
    i32 = b.getI32Type();
    i64 = b.getI64Type();
    Block *entry = func.addEntryBlock(b);
    args = entry->getArgument(0);
    numArgs = entry->getArgument(1);
    failBlock = b.createBlock(&func.getBody(), func.getBody().end(), {i32},
                              {func.getLoc()});
    LLVM::ReturnOp::create(b, func.getLoc(), failBlock->getArgument(0));
    b.setInsertionPointToEnd(entry);
  }

  /// Emits the check of one guard; on failure the function returns `index`.
  LogicalResult emitGuard(Operation *op, int32_t index) {
    loc = op->getLoc();
    guardIndex = index;
    FailureOr<Value> ok =
        llvm::TypeSwitch<Operation *, FailureOr<Value>>(op)
            .Case([&](guard::RankOp g) -> FailureOr<Value> {
              Value rank = loadRank(g.getArg());
              return cmp(LLVM::ICmpPredicate::eq, rank, cst(g.getRank()));
            })
            .Case([&](guard::DtypeOp g) -> FailureOr<Value> {
              std::optional<int32_t> code = dtypeCode(g.getDtype());
              if (!code)
                return g.emitOpError("has no runtime dtype code");
              Value dtype = loadField(g.getArg(), kDtypeOffset, i32);
              return cmp(LLVM::ICmpPredicate::eq, dtype, cst32(*code));
            })
            .Case([&](guard::DeviceOp g) -> FailureOr<Value> {
              StringRef device = g.getDevice();
              Value type = loadField(g.getArg(), kDeviceTypeOffset, i32);
              bool cuda = device.starts_with("cuda");
              Value ok = cmp(LLVM::ICmpPredicate::eq, type, cst32(cuda));
              int64_t index;
              if (device.consume_front("cuda:") &&
                  !device.getAsInteger(10, index)) {
                Value idx = loadField(g.getArg(), kDeviceIndexOffset, i32);
                ok = LLVM::AndOp::create(
                    b, loc, ok,
                    cmp(LLVM::ICmpPredicate::eq, idx, cst32(index)));
              }
              return ok;
            })
            .Case([&](guard::ContiguousOp g) { return contiguous(g.getArg()); })
            .Case([&](guard::AlignedOp g) -> FailureOr<Value> {
              Value data = loadField(g.getArg(), kDataOffset, ptrTy);
              Value addr = LLVM::PtrToIntOp::create(b, loc, i64, data);
              Value low = LLVM::AndOp::create(b, loc, addr,
                                              cst(g.getAlignment() - 1));
              return cmp(LLVM::ICmpPredicate::eq, low, cst(0));
            })
            .Case([&](guard::NoAliasOp g) { return noAlias(g); })
            .Case([&](guard::NoAliasOutsOp g) { return noAliasOuts(g); })
            .Case([&](guard::RangeOp g) -> FailureOr<Value> {
              FailureOr<Value> v = valueOf(g.getSize());
              if (failed(v))
                return failure();
              Value ok = cmp(LLVM::ICmpPredicate::sge, *v, cst(g.getLower()));
              if (std::optional<int64_t> upper = g.getUpper())
                ok = LLVM::AndOp::create(
                    b, loc, ok, cmp(LLVM::ICmpPredicate::sle, *v, cst(*upper)));
              return ok;
            })
            .Case([&](guard::RelationOp g) { return relation(g); })
            .Case([&](guard::ScalarOp g) -> FailureOr<Value> {
              requireArg(g.getArg());
              Value rank = loadField(g.getArg(), kRankOffset, i64);
              checkOrFail(cmp(LLVM::ICmpPredicate::eq, rank, cst(-1)));
              Value v = loadField(g.getArg(), kScalarOffset, i64);
              Value ok = constBool(true);
              if (std::optional<int64_t> lower = g.getLower())
                ok = LLVM::AndOp::create(
                    b, loc, ok, cmp(LLVM::ICmpPredicate::sge, v, cst(*lower)));
              if (std::optional<int64_t> upper = g.getUpper())
                ok = LLVM::AndOp::create(
                    b, loc, ok, cmp(LLVM::ICmpPredicate::sle, v, cst(*upper)));
              return ok;
            })
            .Default([&](Operation *other) -> FailureOr<Value> {
              return other->emitOpError("has no lowering to a guard check");
            });
    if (failed(ok))
      return failure();
    checkOrFail(*ok);
    return success();
  }

  /// Checks the records [begin, end) of `table` with `check`; on failure
  /// the function returns the index `check` returns.
  void emitTableRun(LLVM::LLVMFuncOp check, LLVM::GlobalOp table, int64_t begin,
                    int64_t end) {
    loc = table.getLoc();
    Value tablePtr = LLVM::AddressOfOp::create(b, loc, table);
    Value failed = LLVM::CallOp::create(b, loc, check,
                                        ValueRange{args, numArgs, tablePtr,
                                                   cst(begin), cst(end)})
                       .getResult();
    Block *current = b.getInsertionBlock();
    Block *next =
        b.createBlock(current->getParent(), std::next(current->getIterator()));
    b.setInsertionPointToEnd(current);
    LLVM::CondBrOp::create(b, loc,
                           cmp(LLVM::ICmpPredicate::eq, failed, cst32(-1)),
                           next, ValueRange{}, failBlock, ValueRange{failed});
    b.setInsertionPointToEnd(next);
  }

  void finish() { LLVM::ReturnOp::create(b, loc, cst32(-1)); }

private:
  Value cst(int64_t v) { return LLVM::ConstantOp::create(b, loc, i64, v); }
  Value cst32(int64_t v) { return LLVM::ConstantOp::create(b, loc, i32, v); }
  Value constBool(bool v) { return LLVM::ConstantOp::create(b, loc, i1, v); }
  Value cmp(LLVM::ICmpPredicate p, Value l, Value r) {
    return LLVM::ICmpOp::create(b, loc, p, l, r);
  }

  /// Continues in a new block when `ok`, else returns the guard's index.
  void checkOrFail(Value ok) {
    Block *current = b.getInsertionBlock();
    Block *next = b.createBlock(current->getParent(),
                                std::next(current->getIterator()));
    b.setInsertionPointToEnd(current);
    LLVM::CondBrOp::create(b, loc, ok, next, ValueRange{}, failBlock,
                           ValueRange{cst32(guardIndex)});
    b.setInsertionPointToEnd(next);
  }

  /// The argument exists (once per argument and function).
  void requireArg(int64_t arg) {
    if (checkedArgs.count(arg))
      return;
    checkOrFail(cmp(LLVM::ICmpPredicate::slt, cst32(arg), numArgs));
    checkedArgs.insert(arg);
  }

  Value fieldPtr(int64_t arg, int64_t offset) {
    return LLVM::GEPOp::create(b, loc, ptrTy, i8, args,
                               ArrayRef<LLVM::GEPArg>{static_cast<int32_t>(
                                   arg * kDescSize + offset)});
  }
  Value loadField(int64_t arg, int64_t offset, Type type) {
    requireArg(arg);
    return LLVM::LoadOp::create(b, loc, type, fieldPtr(arg, offset));
  }
  Value loadRank(int64_t arg) { return loadField(arg, kRankOffset, i64); }

  /// sizes[dim] of an argument, after checking dim < rank and the size's
  /// range. Cached: blocks of earlier guards dominate later ones.
  Value loadSize(int64_t arg, int64_t dim) {
    auto key = std::make_pair(arg, dim);
    if (auto it = sizes.find(key); it != sizes.end())
      return it->second;
    Value rank = loadRank(arg);
    checkOrFail(cmp(LLVM::ICmpPredicate::sgt, rank, cst(dim)));
    Value base = loadField(arg, kSizesOffset, ptrTy);
    Value p = LLVM::GEPOp::create(b, loc, ptrTy, i64, base,
                                  ArrayRef<LLVM::GEPArg>{
                                      static_cast<int32_t>(dim)});
    Value size = LLVM::LoadOp::create(b, loc, i64, p);
    Value inRange = LLVM::AndOp::create(
        b, loc, cmp(LLVM::ICmpPredicate::sge, size, cst(0)),
        cmp(LLVM::ICmpPredicate::slt, size, cst(kMaxSize)));
    checkOrFail(inRange);
    sizes[key] = size;
    return size;
  }
  Value loadStride(int64_t arg, int64_t dim) {
    Value base = loadField(arg, kStridesOffset, ptrTy);
    Value p = LLVM::GEPOp::create(b, loc, ptrTy, i64, base,
                                  ArrayRef<LLVM::GEPArg>{
                                      static_cast<int32_t>(dim)});
    return LLVM::LoadOp::create(b, loc, i64, p);
  }

  /// The expected rank of a tensor argument of the target function.
  FailureOr<RankedTensorType> tensorArg(Operation *op, int64_t arg) {
    ArrayRef<Type> inputs = target.getArgumentTypes();
    if (arg < 0 || arg >= static_cast<int64_t>(inputs.size()))
      return op->emitOpError("argument ") << arg << " does not exist";
    auto t = dyn_cast<RankedTensorType>(inputs[arg]);
    if (!t)
      return op->emitOpError("argument ") << arg << " is not a ranked tensor";
    return t;
  }

  FailureOr<Value> contiguous(int64_t arg) {
    FailureOr<RankedTensorType> type = tensorArg(currentOp(), arg);
    if (failed(type))
      return failure();
    int64_t rank = type->getRank();
    checkOrFail(cmp(LLVM::ICmpPredicate::eq, loadRank(arg), cst(rank)));
    // Row-major dense strides, ignoring dims of size 1 (as PyTorch's
    // is_contiguous); any layout of an empty tensor is contiguous.
    Value ok = constBool(true);
    Value expected = cst(1);
    for (int64_t d = rank - 1; d >= 0; --d) {
      Value size = loadSize(arg, d);
      Value stride = loadStride(arg, d);
      Value dimOk = LLVM::OrOp::create(
          b, loc, cmp(LLVM::ICmpPredicate::eq, size, cst(1)),
          cmp(LLVM::ICmpPredicate::eq, stride, expected));
      ok = LLVM::AndOp::create(b, loc, ok, dimOk);
      expected = mulChecked(expected, size);
    }
    Value empty = cmp(LLVM::ICmpPredicate::eq, expected, cst(0));
    return static_cast<Value>(LLVM::OrOp::create(b, loc, ok, empty));
  }

  /// Byte extent [start, end) of a tensor argument; end == start when empty.
  /// Computed once per argument and function (the guards form one chain of
  /// blocks, so the first computation dominates every later guard): an out
  /// buffer is checked against every other argument, and recomputing both
  /// extents per pair made the guard function quadratic in the arguments
  /// (an optimizer step over 16 parameters: 280k lines of LLVM dialect).
  FailureOr<std::pair<Value, Value>> extent(int64_t arg) {
    if (auto it = extents.find(arg); it != extents.end())
      return it->second;
    FailureOr<std::pair<Value, Value>> computed = computeExtent(arg);
    if (succeeded(computed))
      extents[arg] = *computed;
    return computed;
  }

  FailureOr<std::pair<Value, Value>> computeExtent(int64_t arg) {
    FailureOr<RankedTensorType> type = tensorArg(currentOp(), arg);
    if (failed(type))
      return failure();
    int64_t rank = type->getRank();
    checkOrFail(cmp(LLVM::ICmpPredicate::eq, loadRank(arg), cst(rank)));
    Value last = cst(0), numel = cst(1);
    for (int64_t d = 0; d < rank; ++d) {
      Value size = loadSize(arg, d);
      Value stride = loadStride(arg, d);
      // Negative strides are not proven disjoint: fail.
      checkOrFail(cmp(LLVM::ICmpPredicate::sge, stride, cst(0)));
      Value span = LLVM::SubOp::create(b, loc, size, cst(1));
      last = addChecked(last, mulChecked(span, stride));
      numel = mulChecked(numel, size);
    }
    int64_t bytes = elementBytes(type->getElementType());
    Value data = loadField(arg, kDataOffset, ptrTy);
    Value start = LLVM::PtrToIntOp::create(b, loc, i64, data);
    Value length = mulChecked(addChecked(last, cst(1)), cst(bytes));
    Value empty = cmp(LLVM::ICmpPredicate::eq, numel, cst(0));
    length = LLVM::SelectOp::create(b, loc, empty, cst(0), length);
    Value end = LLVM::AddOp::create(b, loc, start, length);
    return std::make_pair(start, end);
  }

  FailureOr<Value> noAlias(guard::NoAliasOp g) {
    currentGuard = g;
    auto a = extent(g.getLhs());
    auto c = extent(g.getRhs());
    if (failed(a) || failed(c))
      return failure();
    auto [aStart, aEnd] = *a;
    auto [cStart, cEnd] = *c;
    Value aEmpty = cmp(LLVM::ICmpPredicate::eq, aStart, aEnd);
    Value cEmpty = cmp(LLVM::ICmpPredicate::eq, cStart, cEnd);
    Value before = cmp(LLVM::ICmpPredicate::ule, aEnd, cStart);
    Value after = cmp(LLVM::ICmpPredicate::ule, cEnd, aStart);
    Value ok = LLVM::OrOp::create(b, loc, aEmpty, cEmpty);
    ok = LLVM::OrOp::create(b, loc, ok, before);
    return static_cast<Value>(LLVM::OrOp::create(b, loc, ok, after));
  }

  /// Every listed out buffer is disjoint from every other tensor argument:
  /// the extents of the tensor arguments go to stack arrays (code linear in
  /// the arguments), then a loop over the pairs compares those with an out
  /// buffer in them.
  FailureOr<Value> noAliasOuts(guard::NoAliasOutsOp g) {
    currentGuard = g;
    llvm::SmallDenseSet<int64_t> outs(g.getOuts().begin(), g.getOuts().end());
    SmallVector<int64_t> tensors;
    for (auto [i, type] : llvm::enumerate(target.getArgumentTypes()))
      if (isa<RankedTensorType>(type))
        tensors.push_back(int64_t(i));
    int64_t n = int64_t(tensors.size());
    Value count = cst(n);
    Value starts = LLVM::AllocaOp::create(b, loc, ptrTy, i64, count);
    Value ends = LLVM::AllocaOp::create(b, loc, ptrTy, i64, count);
    Value flags = LLVM::AllocaOp::create(b, loc, ptrTy, i8, count);
    auto at = [&](Value base, Type type, Value index) {
      return LLVM::GEPOp::create(b, loc, ptrTy, type, base,
                                 ArrayRef<LLVM::GEPArg>{index});
    };
    for (int64_t k = 0; k < n; ++k) {
      auto e = extent(tensors[size_t(k)]);
      if (failed(e))
        return failure();
      Value index = cst(k);
      LLVM::StoreOp::create(b, loc, e->first, at(starts, i64, index));
      LLVM::StoreOp::create(b, loc, e->second, at(ends, i64, index));
      Value flag = LLVM::ConstantOp::create(
          b, loc, i8, int64_t(outs.contains(tensors[size_t(k)])));
      LLVM::StoreOp::create(b, loc, flag, at(flags, i8, index));
    }
    // for i in [0, n): for j in [i + 1, n): a pair with an out buffer in
    // it whose ranges are both non-empty and overlap fails.
    Block *before = b.getInsertionBlock();
    Region *region = before->getParent();
    auto block = [&](Block *after, ArrayRef<Type> types) {
      SmallVector<Location> locs(types.size(), loc);
      return b.createBlock(region, std::next(after->getIterator()), types,
                           locs);
    };
    Block *outer = block(before, {i64});
    Block *innerInit = block(outer, {});
    Block *inner = block(innerInit, {i64});
    Block *body = block(inner, {});
    Block *innerLatch = block(body, {});
    Block *outerLatch = block(innerLatch, {});
    Block *exit = block(outerLatch, {});
    b.setInsertionPointToEnd(before);
    LLVM::BrOp::create(b, loc, ValueRange{cst(0)}, outer);

    b.setInsertionPointToEnd(outer);
    Value i = outer->getArgument(0);
    LLVM::CondBrOp::create(b, loc, cmp(LLVM::ICmpPredicate::slt, i, count),
                           innerInit, ValueRange{}, exit, ValueRange{});
    b.setInsertionPointToEnd(innerInit);
    LLVM::BrOp::create(
        b, loc, ValueRange{LLVM::AddOp::create(b, loc, i, cst(1))}, inner);
    b.setInsertionPointToEnd(inner);
    Value j = inner->getArgument(0);
    LLVM::CondBrOp::create(b, loc, cmp(LLVM::ICmpPredicate::slt, j, count),
                           body, ValueRange{}, outerLatch, ValueRange{});

    b.setInsertionPointToEnd(body);
    auto load = [&](Value base, Type type, Value index) -> Value {
      return LLVM::LoadOp::create(b, loc, type, at(base, type, index));
    };
    Value si = load(starts, i64, i), ei = load(ends, i64, i);
    Value sj = load(starts, i64, j), ej = load(ends, i64, j);
    Value anyOut =
        LLVM::OrOp::create(b, loc, load(flags, i8, i), load(flags, i8, j));
    Value bad = cmp(LLVM::ICmpPredicate::ne, anyOut,
                    LLVM::ConstantOp::create(b, loc, i8, int64_t(0)));
    for (auto [l, r] : {std::pair{si, ei}, std::pair{sj, ej}, std::pair{si, ej},
                        std::pair{sj, ei}})
      bad =
          LLVM::AndOp::create(b, loc, bad, cmp(LLVM::ICmpPredicate::ult, l, r));
    LLVM::CondBrOp::create(b, loc, bad, failBlock,
                           ValueRange{cst32(guardIndex)}, innerLatch,
                           ValueRange{});
    b.setInsertionPointToEnd(innerLatch);
    LLVM::BrOp::create(
        b, loc, ValueRange{LLVM::AddOp::create(b, loc, j, cst(1))}, inner);
    b.setInsertionPointToEnd(outerLatch);
    LLVM::BrOp::create(
        b, loc, ValueRange{LLVM::AddOp::create(b, loc, i, cst(1))}, outer);
    b.setInsertionPointToEnd(exit);
    return constBool(true);
  }

  /// `l op r` through an overflow intrinsic; overflow fails the guard.
  template <typename OverflowOp> Value checked(Value l, Value r) {
    auto resTy = LLVM::LLVMStructType::getLiteral(ctx, {i64, i1});
    Value res = OverflowOp::create(b, loc, resTy, l, r);
    Value v = LLVM::ExtractValueOp::create(b, loc, res, 0);
    Value overflow = LLVM::ExtractValueOp::create(b, loc, res, 1);
    checkOrFail(LLVM::XOrOp::create(b, loc, overflow, constBool(true)));
    return v;
  }
  Value mulChecked(Value l, Value r) {
    return checked<LLVM::SMulWithOverflowOp>(l, r);
  }
  Value addChecked(Value l, Value r) {
    return checked<LLVM::SAddWithOverflowOp>(l, r);
  }

  /// The value of a size in the guard set (symbol, min or max op).
  FailureOr<Value> valueOf(Value size) {
    if (auto it = sizeValues.find(size); it != sizeValues.end())
      return it->second;
    Operation *def = size.getDefiningOp();
    FailureOr<Value> result =
        llvm::TypeSwitch<Operation *, FailureOr<Value>>(def)
            .Case([&](sym::SymbolOp s) -> FailureOr<Value> {
              if (!s.hasSource())
                return s.emitOpError(
                    "a guard cannot read a data-dependent size");
              return loadSize(*s.getArg(), *s.getDim());
            })
            .Case<sym::MinOp, sym::MaxOp>([&](auto m) -> FailureOr<Value> {
              FailureOr<SmallVector<Value>> vals =
                  evalMap(m.getMap(), m.getSizes());
              if (failed(vals))
                return failure();
              bool isMin = isa<sym::MinOp>(def);
              Value acc = (*vals)[0];
              for (Value v : ArrayRef<Value>(*vals).drop_front()) {
                Value pick = cmp(isMin ? LLVM::ICmpPredicate::slt
                                       : LLVM::ICmpPredicate::sgt,
                                 v, acc);
                acc = LLVM::SelectOp::create(b, loc, pick, v, acc);
              }
              return acc;
            })
            .Default([&](Operation *op) -> FailureOr<Value> {
              return op->emitOpError("is not a size the guards can read");
            });
    if (succeeded(result))
      sizeValues[size] = *result;
    return result;
  }

  FailureOr<SmallVector<Value>> evalMap(AffineMap map, ValueRange operands) {
    SmallVector<Value> syms;
    for (Value v : operands) {
      FailureOr<Value> x = valueOf(v);
      if (failed(x))
        return failure();
      syms.push_back(*x);
    }
    SmallVector<Value> out;
    for (AffineExpr e : map.getResults()) {
      FailureOr<Value> v = evalExpr(e, syms, map.getNumDims());
      if (failed(v))
        return failure();
      out.push_back(*v);
    }
    return out;
  }

  FailureOr<Value> evalExpr(AffineExpr e, ArrayRef<Value> operands,
                            unsigned numDims) {
    switch (e.getKind()) {
    case AffineExprKind::Constant:
      return cst(cast<AffineConstantExpr>(e).getValue());
    case AffineExprKind::SymbolId:
      return operands[numDims + cast<AffineSymbolExpr>(e).getPosition()];
    case AffineExprKind::DimId:
      return operands[cast<AffineDimExpr>(e).getPosition()];
    default:
      break;
    }
    auto bin = cast<AffineBinaryOpExpr>(e);
    FailureOr<Value> l = evalExpr(bin.getLHS(), operands, numDims);
    FailureOr<Value> r = evalExpr(bin.getRHS(), operands, numDims);
    if (failed(l) || failed(r))
      return failure();
    switch (e.getKind()) {
    case AffineExprKind::Add:
      return addChecked(*l, *r);
    case AffineExprKind::Mul:
      return mulChecked(*l, *r);
    default:
      break;
    }
    // floordiv, ceildiv, mod: affine semantics need a positive divisor.
    checkOrFail(cmp(LLVM::ICmpPredicate::sgt, *r, cst(0)));
    Value q = LLVM::SDivOp::create(b, loc, *l, *r);
    Value rem = LLVM::SRemOp::create(b, loc, *l, *r);
    Value nonzero = cmp(LLVM::ICmpPredicate::ne, rem, cst(0));
    Value negative = cmp(LLVM::ICmpPredicate::slt, rem, cst(0));
    switch (e.getKind()) {
    case AffineExprKind::FloorDiv: {
      Value adjust = LLVM::AndOp::create(b, loc, nonzero, negative);
      Value qm1 = LLVM::SubOp::create(b, loc, q, cst(1));
      return static_cast<Value>(LLVM::SelectOp::create(b, loc, adjust, qm1, q));
    }
    case AffineExprKind::CeilDiv: {
      Value positive = cmp(LLVM::ICmpPredicate::sgt, rem, cst(0));
      Value qp1 = LLVM::AddOp::create(b, loc, q, cst(1));
      return static_cast<Value>(
          LLVM::SelectOp::create(b, loc, positive, qp1, q));
    }
    default: { // mod
      Value adjusted = LLVM::AddOp::create(b, loc, rem, *r);
      return static_cast<Value>(
          LLVM::SelectOp::create(b, loc, negative, adjusted, rem));
    }
    }
  }

  FailureOr<Value> relation(guard::RelationOp g) {
    FailureOr<SmallVector<Value>> sides = evalMap(g.getMap(), g.getSizes());
    if (failed(sides))
      return failure();
    if (sides->size() != 2)
      return g.emitOpError("expects two sides");
    Value l = (*sides)[0], r = (*sides)[1];
    switch (g.getKind()) {
    case ConstraintKind::eq:
      return cmp(LLVM::ICmpPredicate::eq, l, r);
    case ConstraintKind::ge:
      return cmp(LLVM::ICmpPredicate::sge, l, r);
    case ConstraintKind::le:
      return cmp(LLVM::ICmpPredicate::sle, l, r);
    case ConstraintKind::divisible: {
      checkOrFail(cmp(LLVM::ICmpPredicate::sgt, r, cst(0)));
      Value rem = LLVM::SRemOp::create(b, loc, l, r);
      return cmp(LLVM::ICmpPredicate::eq, rem, cst(0));
    }
    case ConstraintKind::broadcastable: {
      Value ok = cmp(LLVM::ICmpPredicate::eq, l, r);
      ok = LLVM::OrOp::create(b, loc, ok,
                              cmp(LLVM::ICmpPredicate::eq, l, cst(1)));
      return static_cast<Value>(LLVM::OrOp::create(
          b, loc, ok, cmp(LLVM::ICmpPredicate::eq, r, cst(1))));
    }
    }
    return g.emitOpError("unknown constraint kind");
  }

  Operation *currentOp() { return currentGuard; }

public:
  void setCurrentGuard(Operation *op) { currentGuard = op; }

private:
  OpBuilder &b;
  MLIRContext *ctx;
  FunctionOpInterface target;
  Type ptrTy, i1, i8, i32, i64;
  Value args, numArgs;
  Block *failBlock;
  Location loc = UnknownLoc::get(b.getContext());
  int32_t guardIndex = 0;
  Operation *currentGuard = nullptr;
  DenseSet<int64_t> checkedArgs;
  std::map<std::pair<int64_t, int64_t>, Value> sizes;
  DenseMap<Value, Value> sizeValues;
  DenseMap<int64_t, std::pair<Value, Value>> extents;
};

Value insertAt(OpBuilder &b, Location loc, Value aggregate, Value value,
               int64_t position) {
  return LLVM::InsertValueOp::create(b, loc, aggregate, value,
                                     ArrayRef<int64_t>{position});
}

/// Input symbols (name, arg, dim) a size guard reads, for its message.
void collectValues(Value size, SmallVectorImpl<sym::SymbolOp> &out) {
  Operation *def = size.getDefiningOp();
  if (auto s = dyn_cast_or_null<sym::SymbolOp>(def)) {
    if (s.hasSource() && !llvm::is_contained(out, s))
      out.push_back(s);
    return;
  }
  if (def)
    for (Value v : def->getOperands())
      collectValues(v, out);
}

struct TgcLowerGuardsPass : tgc::impl::TgcLowerGuardsBase<TgcLowerGuardsPass> {
  using TgcLowerGuardsBase::TgcLowerGuardsBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<guard::GuardSetOp> sets(module.getOps<guard::GuardSetOp>());
    for (guard::GuardSetOp set : sets) {
      if (failed(lower(module, set)))
        return signalPassFailure();
      set.erase();
    }
  }

  LogicalResult lower(ModuleOp module, guard::GuardSetOp set) {
    MLIRContext *ctx = &getContext();
    auto target = SymbolTable::lookupNearestSymbolFrom<FunctionOpInterface>(
        set, set.getFunctionAttr());
    if (!target)
      return set.emitOpError("guards an unknown function @")
             << set.getFunction();
    std::string fnName = "tgc_guard_" + set.getFunction().str();
    if (module.lookupSymbol(fnName))
      return set.emitOpError("symbol @") << fnName << " already exists";

    OpBuilder builder(ctx);
    builder.setInsertionPointAfter(set);
    auto ptrTy = LLVM::LLVMPointerType::get(ctx);
    auto fnTy = LLVM::LLVMFunctionType::get(builder.getI32Type(),
                                            {ptrTy, builder.getI32Type()});
    auto fn = LLVM::LLVMFuncOp::create(builder, set.getLoc(), fnName, fnTy);
    builder.setInsertionPointAfter(fn);
    OpBuilder body(ctx);
    GuardFunctionBuilder gen(body, fn, target);
    SmallVector<Operation *> guards;
    for (Operation &op : *set.getBody())
      if (isa<guard::GuardOpInterface>(op))
        guards.push_back(&op);
    // A large set's rank, dtype, device, contiguity and size-range guards
    // are records of a table that one loop checks (GuardTable.h), in the
    // set's order between the guards that need code: the same first
    // failing guard, in a function whose code does not grow with them.
    SmallVector<std::optional<GuardRecord>> records;
    SmallVector<GuardRecord> table;
    for (auto [i, op] : llvm::enumerate(guards))
      if ((records.emplace_back(tableRecord(op, i, target))))
        table.push_back(*records.back());
    if (table.empty() || static_cast<int64_t>(table.size()) < tableMinGuards)
      records.assign(guards.size(), std::nullopt);
    LLVM::LLVMFuncOp check;
    LLVM::GlobalOp tableGlobal;
    if (llvm::any_of(records, [](auto &r) { return r.has_value(); })) {
      // (`tgc_guard_` first: the CPU compiler sets the guard symbols aside
      // by that prefix; a '.' after it names no guard function.)
      StringRef checkName = "tgc_guard_.check_table";
      // (Another set's, or a guard function whose function is named
      // ".check_table": that one has two arguments, the loop five.)
      Operation *existing = module.lookupSymbol(checkName);
      check = dyn_cast_or_null<LLVM::LLVMFuncOp>(existing);
      if (existing && (!check || check.getNumArguments() != 5 ||
                       check.getLinkage() != LLVM::Linkage::Internal))
        return set.emitOpError("symbol @") << checkName << " already exists";
      if (!check) {
        OpBuilder::InsertionGuard insertion(builder);
        builder.setInsertionPointToStart(module.getBody());
        check = buildGuardTableCheck(builder, set.getLoc(), checkName);
      }
      std::string tableName = fnName + ".table";
      if (module.lookupSymbol(tableName))
        return set.emitOpError("symbol @") << tableName << " already exists";
      tableGlobal = buildGuardTable(builder, set.getLoc(), tableName, table);
    }
    int64_t position = 0; // in `table`
    for (size_t i = 0; i < guards.size();) {
      if (records[i]) {
        size_t j = i;
        while (j < guards.size() && records[j])
          ++j;
        gen.emitTableRun(check, tableGlobal, position, position + (j - i));
        position += j - i;
        i = j;
        continue;
      }
      gen.setCurrentGuard(guards[i]);
      if (failed(gen.emitGuard(guards[i], i)))
        return failure();
      ++i;
    }
    gen.finish();
    emitInfo(module, builder, set, guards);
    return success();
  }

  /// `tgc_guard_info_<f>`: a tgc_guard_set_info for the runtime's messages.
  void emitInfo(ModuleOp module, OpBuilder &builder, guard::GuardSetOp set,
                ArrayRef<Operation *> guards) {
    MLIRContext *ctx = &getContext();
    Location loc = set.getLoc();
    std::string fn = set.getFunction().str();
    auto ptrTy = LLVM::LLVMPointerType::get(ctx);
    Type i32 = builder.getI32Type();
    auto valueTy = LLVM::LLVMStructType::getLiteral(ctx, {ptrTy, i32, i32});
    auto infoTy =
        LLVM::LLVMStructType::getLiteral(ctx, {ptrTy, ptrTy, i32, ptrTy});
    auto setTy = LLVM::LLVMStructType::getLiteral(ctx, {ptrTy, i32, ptrTy});
    unsigned counter = 0;
    auto global = [&](Type type, StringRef suffix,
                      function_ref<Value(OpBuilder &)> init,
                      LLVM::Linkage linkage = LLVM::Linkage::Internal) {
      std::string name = "tgc_guard_" + fn + "_" + suffix.str();
      if (suffix.empty())
        name = "tgc_guard_info_" + fn;
      auto g = LLVM::GlobalOp::create(builder, loc, type, /*isConstant=*/true,
                                      linkage, name, Attribute());
      Block *block = builder.createBlock(&g.getInitializerRegion());
      OpBuilder ib = OpBuilder::atBlockEnd(block);
      LLVM::ReturnOp::create(ib, loc, init(ib));
      builder.setInsertionPointAfter(g);
      return g;
    };
    auto string = [&](StringRef text) {
      std::string data = text.str();
      data.push_back('\0');
      auto type = LLVM::LLVMArrayType::get(builder.getI8Type(), data.size());
      std::string name = "tgc_guard_" + fn + "_str" + std::to_string(counter++);
      auto g = LLVM::GlobalOp::create(builder, loc, type, true,
                                      LLVM::Linkage::Internal, name,
                                      builder.getStringAttr(data));
      builder.setInsertionPointAfter(g);
      return g;
    };
    auto addr = [&](OpBuilder &ib, LLVM::GlobalOp g) -> Value {
      return LLVM::AddressOfOp::create(ib, loc, g);
    };

    struct GuardStrings {
      LLVM::GlobalOp text, reason, values;
      int32_t numValues;
    };
    SmallVector<GuardStrings> perGuard;
    for (auto [i, op] : llvm::enumerate(guards)) {
      auto g = cast<guard::GuardOpInterface>(op);
      GuardStrings s{string(g.describe()), string(g.getReason()), {}, 0};
      SmallVector<sym::SymbolOp> symbols;
      for (Value v : op->getOperands())
        collectValues(v, symbols);
      if (!symbols.empty()) {
        SmallVector<LLVM::GlobalOp> names;
        for (sym::SymbolOp sop : symbols)
          names.push_back(string(sop.getName()));
        auto arrTy = LLVM::LLVMArrayType::get(valueTy, symbols.size());
        s.values = global(arrTy, "values" + std::to_string(i),
                          [&](OpBuilder &ib) -> Value {
                            Value arr = LLVM::UndefOp::create(ib, loc, arrTy);
                            for (auto [k, sop] : llvm::enumerate(symbols)) {
                              Value v = LLVM::UndefOp::create(ib, loc, valueTy);
                              v = insertAt(ib, loc, v, addr(ib, names[k]), 0);
                              v = insertAt(ib, loc, v,
                                  LLVM::ConstantOp::create(ib, loc, i32,
                                                           static_cast<int64_t>(*sop.getArg())),
                                  1);
                              v = insertAt(ib, loc, v,
                                  LLVM::ConstantOp::create(ib, loc, i32,
                                                           static_cast<int64_t>(*sop.getDim())),
                                  2);
                              arr = insertAt(ib, loc, arr, v, k);
                            }
                            return arr;
                          });
        s.numValues = symbols.size();
      }
      perGuard.push_back(s);
    }
    auto guardsTy = LLVM::LLVMArrayType::get(infoTy, perGuard.size());
    LLVM::GlobalOp guardArray =
        global(guardsTy, "guards", [&](OpBuilder &ib) -> Value {
          Value arr = LLVM::UndefOp::create(ib, loc, guardsTy);
          for (auto [k, s] : llvm::enumerate(perGuard)) {
            Value v = LLVM::UndefOp::create(ib, loc, infoTy);
            v = insertAt(ib, loc, v, addr(ib, s.text), 0);
            v = insertAt(ib, loc, v, addr(ib, s.reason), 1);
            v = insertAt(ib, loc, v, LLVM::ConstantOp::create(ib, loc, i32,
                                         static_cast<int64_t>(s.numValues)),
                2);
            Value values = s.values
                               ? addr(ib, s.values)
                               : Value(LLVM::ZeroOp::create(ib, loc, ptrTy));
            v = insertAt(ib, loc, v, values, 3);
            arr = insertAt(ib, loc, arr, v, k);
          }
          return arr;
        });
    LLVM::GlobalOp fnName = string(fn);
    global(
        setTy, "",
        [&](OpBuilder &ib) -> Value {
          Value v = LLVM::UndefOp::create(ib, loc, setTy);
          v = insertAt(ib, loc, v, addr(ib, fnName), 0);
          v = insertAt(ib, loc, v,
              LLVM::ConstantOp::create(ib, loc, i32,
                                       static_cast<int64_t>(perGuard.size())), 1);
          return insertAt(ib, loc, v, addr(ib, guardArray),
                                             2);
        },
        LLVM::Linkage::External);
    (void)module;
  }
};
} // namespace
