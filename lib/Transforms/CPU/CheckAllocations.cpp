//===- CheckAllocations.cpp - failed or overflowing allocations end a call ===//
//
// See the pass description in Passes.td.
//
//===----------------------------------------------------------------------===//

#include "tgc/Transforms/GuardUtils.h"
#include "tgc/Transforms/Passes.h"
#include "tgc/Transforms/RuntimeCalls.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/UB/IR/UBOps.h"
#include "mlir/IR/Builders.h"

namespace mlir::tgc {
#define GEN_PASS_DEF_TGCCHECKALLOCATIONS
#include "tgc/Transforms/CPU/Passes.h.inc"
namespace {

constexpr StringLiteral kAllocFailure = "tgc_report_alloc_failure";
constexpr StringLiteral kCheckFailure = "tgc_report_check_failure";

/// Bytes of one element of a memref (i1 is stored in a byte).
int64_t elementBytes(MemRefType type) {
  Type element = type.getElementType();
  if (element.isIntOrIndexOrFloat())
    return std::max<int64_t>(1, (element.getIntOrFloatBitWidth() + 7) / 8);
  return 8;
}

/// "a 4x?xf32 buffer at f.mlir:3:8" (or "the arena of intermediate values").
std::string describe(memref::AllocOp alloc) {
  MemRefType type = alloc.getType();
  if (alloc->hasAttr("tgc.arena"))
    return "the arena of intermediate values";
  std::string text = "a ";
  llvm::raw_string_ostream os(text);
  for (int64_t s : type.getShape()) {
    if (ShapedType::isDynamic(s))
      os << "?";
    else
      os << s;
    os << "x";
  }
  os << type.getElementType() << " buffer";
  std::string where = formatLocation(alloc.getLoc());
  if (where != "unknown location")
    os << " at " << where;
  return text;
}

class AllocationChecker {
public:
  AllocationChecker(ModuleOp module, func::FuncOp func, int &counter)
      : module(module), func(func), counter(counter) {}

  /// Guards the allocations of `block` and of the blocks nested in it.
  /// `topLevel`: a failure here ends the function (the block is the
  /// function's body or the success branch of an earlier guard). `live`:
  /// the buffers this block (and the blocks it continues) allocated and
  /// has not freed yet: a failure frees them.
  LogicalResult guardBlock(Block &block, bool topLevel,
                           SmallVector<Value> live) {
    for (auto it = block.begin(); it != block.end(); ++it) {
      Operation *op = &*it;
      if (auto alloc = dyn_cast<memref::AllocOp>(op)) {
        if (canGuard(alloc, topLevel))
          return guardAllocation(alloc, topLevel, live);
        live.push_back(alloc);
        continue;
      }
      // A buffer freed here, even conditionally, is not freed again.
      op->walk([&](memref::DeallocOp dealloc) {
        llvm::erase(live, dealloc.getMemref());
      });
      for (Region &region : op->getRegions())
        for (Block &nested : region)
          if (failed(guardBlock(nested, /*topLevel=*/false, {})))
            return failure();
    }
    return success();
  }

  /// After the body is guarded: reports a failure that a loop recorded.
  LogicalResult reportLoopFailures() {
    if (loopMessages.empty())
      return success();
    Operation *ret = func.getBody().front().getTerminator();
    OpBuilder b(ret);
    Location loc = ret->getLoc();
    Value code = memref::LoadOp::create(b, loc, loopFlag, ValueRange{});
    for (auto [i, message] : llvm::enumerate(loopMessages)) {
      Value is = arith::CmpIOp::create(
          b, loc, arith::CmpIPredicate::eq, code,
          arith::ConstantIntOp::create(b, loc, b.getI32Type(), i + 1));
      auto branch = scf::IfOp::create(b, loc, is, /*withElse=*/false);
      OpBuilder tb = branch.getThenBodyBuilder();
      if (failed(createRuntimeCall(tb, loc, module, kCheckFailure,
                                   {stringConstant(tb, loc, message)})))
        return failure();
    }
    return success();
  }

private:
  /// The values of the rest of the block after `op` that its terminator
  /// uses.
  static SmallVector<Value> escapingAfter(Operation *op) {
    Operation *terminator = op->getBlock()->getTerminator();
    SmallVector<Value> escaping;
    for (Value v : terminator->getOperands()) {
      Operation *def = v.getDefiningOp();
      if (def && def->getBlock() == op->getBlock() &&
          op->isBeforeInBlock(def) && !llvm::is_contained(escaping, v))
        escaping.push_back(v);
    }
    return escaping;
  }

  /// Whether the failure path has values to give the block's terminator:
  /// poison at the top level (the caller reads no result); in a loop, the
  /// loop's values so far (scf.for) or poison scalars. Elsewhere a buffer
  /// that escapes stays unguarded: poison would be written through.
  static bool canGuard(memref::AllocOp alloc, bool topLevel) {
    if (topLevel)
      return true;
    SmallVector<Value> escaping = escapingAfter(alloc);
    if (escaping.empty() || isa<scf::ForOp>(alloc->getParentOp()))
      return true;
    return llvm::none_of(escaping, [](Value v) {
      return isa<BaseMemRefType>(v.getType());
    });
  }

  LogicalResult guardAllocation(memref::AllocOp alloc, bool topLevel,
                                SmallVector<Value> live) {
    Location loc = alloc.getLoc();
    MemRefType type = alloc.getType();
    OpBuilder b(alloc);
    Type i64 = b.getI64Type();
    // The byte count: static sizes folded here, dynamic ones multiplied
    // with overflow checks.
    int64_t staticBytes = elementBytes(type);
    for (int64_t s : type.getShape())
      if (!ShapedType::isDynamic(s) &&
          __builtin_mul_overflow(staticBytes, s, &staticBytes))
        return alloc.emitError("a buffer of ")
               << type << " needs more bytes than a 64-bit integer holds";
    Value bytes = arith::ConstantIntOp::create(b, loc, i64, staticBytes);
    Value zero = arith::ConstantIntOp::create(b, loc, i64, 0);
    Value overflow = arith::ConstantIntOp::create(b, loc, b.getI1Type(), 0);
    auto orOverflow = [&](Value cond) {
      overflow = arith::OrIOp::create(b, loc, overflow, cond);
    };
    for (Value size : alloc.getDynamicSizes()) {
      Value s = arith::IndexCastOp::create(b, loc, i64, size);
      orOverflow(
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, s, zero));
      auto product = arith::MulSIExtendedOp::create(b, loc, bytes, s);
      // Both factors are >= 0 (a negative size is an overflow already):
      // the product fits when the high half is 0 and the low half >= 0.
      orOverflow(arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne,
                                       product.getHigh(), zero));
      orOverflow(arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt,
                                       product.getLow(), zero));
      bytes = product.getLow();
    }
    // With an overflow the allocation asks for nothing: a wrapped size
    // would hand out a buffer smaller than the code writes.
    if (!alloc.getDynamicSizes().empty()) {
      Value none = arith::ConstantIndexOp::create(b, loc, 0);
      SmallVector<Value> sizes;
      for (Value size : alloc.getDynamicSizes())
        sizes.push_back(arith::SelectOp::create(b, loc, overflow, none, size));
      alloc.getDynamicSizesMutable().assign(sizes);
    }
    b.setInsertionPointAfter(alloc);
    Value pointer =
        memref::ExtractAlignedPointerAsIndexOp::create(b, loc, alloc);
    Value isNull = arith::CmpIOp::create(
        b, loc, arith::CmpIPredicate::eq, pointer,
        arith::ConstantIndexOp::create(b, loc, 0));
    // malloc(0) may return null; a buffer of no bytes is never written.
    Value nonEmpty = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne,
                                           bytes, zero);
    Value failedAlloc = arith::OrIOp::create(
        b, loc, overflow, arith::AndIOp::create(b, loc, isNull, nonEmpty));
    Value reported = arith::SelectOp::create(
        b, loc, overflow, arith::ConstantIntOp::create(b, loc, i64, -1),
        bytes);
    Operation *lastCheck = reported.getDefiningOp();

    // The rest of the block runs only when the allocation succeeded.
    Block *block = alloc->getBlock();
    Operation *terminator = block->getTerminator();
    SmallVector<Operation *> rest;
    for (auto it = std::next(lastCheck->getIterator());
         &*it != terminator; ++it)
      rest.push_back(&*it);
    // Values of the rest that the terminator uses leave through the if.
    SmallVector<Value> escaping = escapingAfter(lastCheck);
    SmallVector<Type> types;
    for (Value v : escaping)
      types.push_back(v.getType());
    auto branch = scf::IfOp::create(b, loc, types, failedAlloc,
                                    /*withElseRegion=*/true);
    // (Without results the builder adds empty yields: ours replace them.)
    for (Block *body : {branch.thenBlock(), branch.elseBlock()})
      if (!body->empty())
        body->back().erase();
    // Failure.
    {
      OpBuilder fb = OpBuilder::atBlockBegin(branch.thenBlock());
      std::string what = describe(alloc);
      if (topLevel) {
        if (failed(createRuntimeCall(
                fb, loc, module, kAllocFailure,
                {reported, stringConstant(fb, loc, what)})))
          return failure();
      } else {
        loopMessages.push_back(
            "cannot allocate " + what +
            " inside a kernel (out of memory, or its size in bytes does not "
            "fit in a 64-bit integer)");
        Value code = arith::ConstantIntOp::create(fb, loc, fb.getI32Type(),
                                                  loopMessages.size());
        // Threads of a parallel loop may fail at once: any code will do.
        memref::AtomicRMWOp::create(fb, loc, arith::AtomicRMWKind::assign,
                                    code, getLoopFlag(), ValueRange{});
      }
      for (Value buffer : live)
        memref::DeallocOp::create(fb, loc, buffer);
      SmallVector<Value> values;
      auto loop = dyn_cast<scf::ForOp>(alloc->getParentOp());
      for (auto [i, v] : llvm::enumerate(escaping)) {
        // A loop's iteration that fails passes its carried values on.
        if (!topLevel && loop && isa<scf::YieldOp>(terminator)) {
          unsigned pos = llvm::find(terminator->getOperands(), v) -
                         terminator->getOperands().begin();
          values.push_back(loop.getRegionIterArgs()[pos]);
          continue;
        }
        values.push_back(ub::PoisonOp::create(fb, loc, types[i]));
      }
      scf::YieldOp::create(fb, loc, values);
    }
    // Success: the rest of the block.
    Block *success = branch.elseBlock();
    for (Operation *op : rest)
      op->moveBefore(success, success->end());
    OpBuilder sb = OpBuilder::atBlockEnd(success);
    scf::YieldOp::create(sb, loc, escaping);
    for (auto [v, r] : llvm::zip(escaping, branch.getResults()))
      terminator->replaceUsesOfWith(v, r);

    live.push_back(alloc);
    return guardBlock(*success, topLevel, live);
  }

  /// A rank-0 i32 on the function's stack: 0, or the number of the first
  /// loop allocation that failed.
  Value getLoopFlag() {
    if (loopFlag)
      return loopFlag;
    Block &entry = func.getBody().front();
    OpBuilder b = OpBuilder::atBlockBegin(&entry);
    Location loc = func.getLoc();
    loopFlag = memref::AllocaOp::create(
        b, loc, MemRefType::get({}, b.getI32Type()));
    memref::StoreOp::create(
        b, loc, arith::ConstantIntOp::create(b, loc, b.getI32Type(), 0),
        loopFlag, ValueRange{});
    return loopFlag;
  }

  Value stringConstant(OpBuilder &b, Location loc, StringRef text) {
    return createStringConstant(b, loc,
                                ("__tgc_alloc_" + Twine(counter++)).str(),
                                text);
  }

  ModuleOp module;
  func::FuncOp func;
  Value loopFlag;
  std::vector<std::string> loopMessages;
  int &counter; // of the module's message globals
};

struct TgcCheckAllocationsPass
    : impl::TgcCheckAllocationsBase<TgcCheckAllocationsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<func::FuncOp> funcs(module.getOps<func::FuncOp>());
    int counter = 0;
    for (func::FuncOp func : funcs) {
      if (func.isExternal() || !func.getBody().hasOneBlock())
        continue;
      AllocationChecker checker(module, func, counter);
      if (failed(checker.guardBlock(func.getBody().front(),
                                    /*topLevel=*/true, {})))
        return signalPassFailure();
      if (failed(checker.reportLoopFailures()))
        return signalPassFailure();
    }
  }
};

} // namespace
} // namespace mlir::tgc
