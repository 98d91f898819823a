//===- CheckAllocations.cpp - failed or overflowing allocations end a call ===//
//
// See the pass description in Passes.td.
//
//===----------------------------------------------------------------------===//

#include "tgc/Transforms/GuardUtils.h"
#include "tgc/Transforms/Passes.h"
#include "tgc/Transforms/RuntimeCalls.h"

#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
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
  // (index has no bit width of its own: 64 bits on the hosts TGC targets;
  // asking for it crashed on a GPU shape buffer, fuzz-crash.py seed 7002168)
  if (element.isIntOrFloat())
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
      : module(module), func(func),
        successReturn(func.getBody().front().getTerminator()),
        counter(counter) {}

  /// Guards the allocations of `first` (and of the blocks it continues
  /// into) and of the blocks nested in them. `topLevel`: a failure here
  /// ends the function (the function's body).
  LogicalResult guardBlock(Block &first, bool topLevel) {
    // Buffers of this block that no guard covers (they escape a nested
    // block): freed when the next guarded allocation fails.
    SmallVector<Value> unguarded;
    Block *block = &first;
    Block::iterator it = block->begin();
    while (it != block->end()) {
      Operation *op = &*it++;
      if (auto alloc = dyn_cast<memref::AllocOp>(op)) {
        if (!canGuard(alloc, topLevel)) {
          unguarded.push_back(alloc);
          continue;
        }
        if (!topLevel)
          return guardNested(alloc, unguarded);
        FailureOr<Block *> rest = guardTopLevel(alloc);
        if (failed(rest))
          return failure();
        block = *rest;
        it = block->begin();
        continue;
      }
      // A buffer freed here, even conditionally, is not freed again by a
      // later allocation's failure.
      op->walk([&](memref::DeallocOp dealloc) {
        freedBefore.try_emplace(dealloc.getMemref(), allocations + 1);
      });
      for (Region &region : op->getRegions())
        for (Block &nested : region)
          if (failed(guardBlock(nested, /*topLevel=*/false)))
            return failure();
    }
    return success();
  }

  /// After the body is guarded: the failure paths of the top level, which
  /// free the buffers allocated before the failure (and not freed yet) and
  /// return poison, which the caller does not read.
  ///
  /// Each buffer is freed in one place: failure k enters a chain of blocks
  /// at the buffer allocated last before it, and each block of the chain
  /// frees its buffer when it was still live at the failure (the failure's
  /// number is the chain's argument), then goes on to the previous one.
  /// Freeing every live buffer on every failure path made a model's entry
  /// function quadratic in its buffers (3082 frees for the 79 results of a
  /// 6-layer transformer), and LLVM's code generation with it.
  void buildFailurePaths() {
    if (failures.empty())
      return;
    Region &body = func.getBody();
    Location loc = func.getLoc();
    OpBuilder b(func.getContext());
    Type i32 = b.getI32Type();
    auto newBlock = [&]() {
      Block *block = new Block();
      body.push_back(block);
      block->addArgument(i32, loc);
      return block;
    };
    Block *ret = newBlock();
    b.setInsertionPointToStart(ret);
    SmallVector<Value> poison;
    for (Type type : func.getResultTypes())
      poison.push_back(ub::PoisonOp::create(b, loc, type));
    func::ReturnOp::create(b, loc, poison);
    // Top-level buffer j (from 1) is live at failure i > j when the
    // failure's number comes before the buffer's free. entry[j]: where a
    // failure after buffer j starts freeing.
    int n = topBuffers.size();
    int last = failures.back().second;
    SmallVector<Block *> entry(n + 1, ret);
    for (int j = 1; j <= n; ++j) {
      Value buffer = topBuffers[j - 1];
      auto freed = freedBefore.find(buffer);
      int bound = freed == freedBefore.end() ? INT_MAX : freed->second;
      if (j == n || failures[j].second >= bound) {
        entry[j] = entry[j - 1];
        continue;
      }
      Block *block = newBlock();
      entry[j] = block;
      b.setInsertionPointToStart(block);
      Value code = block->getArgument(0);
      if (bound > last) {
        memref::DeallocOp::create(b, loc, buffer);
      } else {
        Value live = arith::CmpIOp::create(
            b, loc, arith::CmpIPredicate::slt, code,
            arith::ConstantIntOp::create(b, loc, i32, bound));
        auto branch =
            scf::IfOp::create(b, loc, live, /*withElseRegion=*/false);
        OpBuilder tb = branch.getThenBodyBuilder();
        memref::DeallocOp::create(tb, loc, buffer);
      }
      cf::BranchOp::create(b, loc, entry[j - 1], code);
    }
    for (auto [i, failure] : llvm::enumerate(failures)) {
      auto [block, number] = failure;
      b.setInsertionPointToEnd(block);
      cf::BranchOp::create(
          b, loc, entry[i],
          ValueRange{arith::ConstantIntOp::create(b, loc, i32, number)});
    }
  }

  /// After the body is guarded: reports a failure that a loop recorded.
  LogicalResult reportLoopFailures() {
    if (loopMessages.empty())
      return success();
    OpBuilder b(successReturn);
    Location loc = successReturn->getLoc();
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
  /// at the top level the failure returns poison (the caller reads no
  /// result); in a loop, the loop's values so far (scf.for) or poison
  /// scalars. Elsewhere a buffer that escapes stays unguarded: poison would
  /// be written through.
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

  /// The test after an allocation: whether it failed, and the byte count
  /// to report (-1: it overflowed).
  struct Check {
    Value failed, reported;
  };

  /// Computes the byte count with overflow checks before `alloc` (and
  /// makes it ask for 0 bytes on an overflow), and tests its pointer after
  /// it.
  FailureOr<Check> buildCheck(memref::AllocOp alloc) {
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
    return Check{failedAlloc, reported};
  }

  /// A top-level allocation: the block ends after its test with a branch
  /// to a failure block (which reports; buildFailurePaths adds the rest)
  /// or to the rest of the block, which is returned.
  FailureOr<Block *> guardTopLevel(memref::AllocOp alloc) {
    int number = ++allocations;
    Location loc = alloc.getLoc();
    FailureOr<Check> check = buildCheck(alloc);
    if (failed(check))
      return failure();
    Block *block = alloc->getBlock();
    Block *rest = block->splitBlock(
        std::next(check->reported.getDefiningOp()->getIterator()));
    Block *fail = new Block();
    func.getBody().push_back(fail);
    OpBuilder b = OpBuilder::atBlockEnd(block);
    cf::CondBranchOp::create(b, loc, check->failed, fail, ValueRange{}, rest,
                             ValueRange{});
    OpBuilder fb = OpBuilder::atBlockBegin(fail);
    if (failed(createRuntimeCall(
            fb, loc, module, kAllocFailure,
            {check->reported, stringConstant(fb, loc, describe(alloc))})))
      return failure();
    failures.push_back({fail, number});
    topBuffers.push_back(alloc);
    return rest;
  }

  /// An allocation inside a loop (a kernel's per-iteration temporary):
  /// the rest of its block is wrapped in an `scf.if` on its failure, whose
  /// failure branch sets the function's flag (the loop's other iterations
  /// and threads go on). The if's last result is the failure's code: 0, or
  /// the number of the guarded allocation that failed (this one, or one
  /// nested in the rest). After the if, the buffers of this block are
  /// freed when a failure came while they were live: each in one place.
  LogicalResult guardNested(memref::AllocOp alloc,
                            ArrayRef<Value> unguarded) {
    int number = ++allocations;
    Location loc = alloc.getLoc();
    FailureOr<Check> check = buildCheck(alloc);
    if (failed(check))
      return failure();
    Operation *lastCheck = check->reported.getDefiningOp();
    OpBuilder b(lastCheck->getContext());
    b.setInsertionPointAfter(lastCheck);

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
    Type i32 = b.getI32Type();
    types.push_back(i32);
    Value noFailure = arith::ConstantIntOp::create(b, loc, i32, 0);
    auto branch = scf::IfOp::create(b, loc, types, check->failed,
                                    /*withElseRegion=*/true);
    // (Without results the builder adds empty yields: ours replace them.)
    for (Block *body : {branch.thenBlock(), branch.elseBlock()})
      if (!body->empty())
        body->back().erase();
    // Failure.
    {
      OpBuilder fb = OpBuilder::atBlockBegin(branch.thenBlock());
      loopMessages.push_back(
          "cannot allocate " + describe(alloc) +
          " inside a kernel (out of memory, or its size in bytes does not "
          "fit in a 64-bit integer)");
      Value flag = arith::ConstantIntOp::create(fb, loc, i32,
                                                loopMessages.size());
      // Threads of a parallel loop may fail at once: any code will do.
      memref::AtomicRMWOp::create(fb, loc, arith::AtomicRMWKind::assign,
                                  flag, getLoopFlag(), ValueRange{});
      SmallVector<Value> values;
      auto loop = dyn_cast<scf::ForOp>(alloc->getParentOp());
      for (auto [i, v] : llvm::enumerate(escaping)) {
        // A loop's iteration that fails passes its carried values on.
        if (loop && isa<scf::YieldOp>(terminator)) {
          unsigned pos = llvm::find(terminator->getOperands(), v) -
                         terminator->getOperands().begin();
          values.push_back(loop.getRegionIterArgs()[pos]);
          continue;
        }
        values.push_back(ub::PoisonOp::create(fb, loc, types[i]));
      }
      values.push_back(arith::ConstantIntOp::create(fb, loc, i32, number));
      scf::YieldOp::create(fb, loc, values);
    }
    // Success: the rest of the block.
    Block *success = branch.elseBlock();
    for (Operation *op : rest)
      op->moveBefore(success, success->end());
    OpBuilder sb = OpBuilder::atBlockEnd(success);
    SmallVector<Value> yielded(escaping);
    yielded.push_back(noFailure);
    scf::YieldOp::create(sb, loc, yielded);
    codeBlocks.insert(success);
    for (auto [v, r] : llvm::zip(escaping, branch.getResults()))
      terminator->replaceUsesOfWith(v, r);
    // The failure code leaves this block too when it is an earlier
    // guard's success branch.
    Value code = branch.getResults().back();
    if (codeBlocks.contains(block))
      terminator->setOperand(terminator->getNumOperands() - 1, code);

    if (failed(guardBlock(*success, /*topLevel=*/false)))
      return failure();
    // Every later allocation and free of the chain is known now: free
    // this block's buffers on the failures that find them live.
    b.setInsertionPointAfter(branch);
    for (Value buffer : unguarded)
      freeOnFailure(b, loc, buffer, code, number);
    // (When this allocation itself failed its buffer is null or empty.)
    freeOnFailure(b, loc, alloc, code, number + 1);
    return LogicalResult::success();
  }

  /// Frees `buffer` after a guard whose failure code is `code` when an
  /// allocation numbered `first` or later failed before the buffer was
  /// freed.
  void freeOnFailure(OpBuilder &b, Location loc, Value buffer, Value code,
                     int first) {
    auto freed = freedBefore.find(buffer);
    int bound = freed == freedBefore.end() ? INT_MAX : freed->second;
    // (No allocation numbered `first` or later: none can fail.)
    if (bound <= first || first > allocations)
      return;
    Type i32 = b.getI32Type();
    Value live = arith::CmpIOp::create(
        b, loc, arith::CmpIPredicate::sge, code,
        arith::ConstantIntOp::create(b, loc, i32, first));
    if (bound != INT_MAX)
      live = arith::AndIOp::create(
          b, loc, live,
          arith::CmpIOp::create(
              b, loc, arith::CmpIPredicate::slt, code,
              arith::ConstantIntOp::create(b, loc, i32, bound)));
    auto branch = scf::IfOp::create(b, loc, live, /*withElseRegion=*/false);
    OpBuilder tb = branch.getThenBodyBuilder();
    memref::DeallocOp::create(tb, loc, buffer);
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
  /// The function's return when every allocation succeeded.
  Operation *successReturn;
  /// The top level's failure blocks with the number of their allocation
  /// (among all guarded ones), and its buffers, in program order.
  SmallVector<std::pair<Block *, int>> failures;
  SmallVector<Value> topBuffers;
  /// Guarded allocations so far, numbered from 1 in program order.
  int allocations = 0;
  /// A freed buffer -> the number of the first guarded allocation after
  /// its free.
  DenseMap<Value, int> freedBefore;
  /// The success branches of guards: their yield's last value is the
  /// failure code of the guard nested in them.
  llvm::SmallPtrSet<Block *, 16> codeBlocks;
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
                                    /*topLevel=*/true)))
        return signalPassFailure();
      if (failed(checker.reportLoopFailures()))
        return signalPassFailure();
      checker.buildFailurePaths();
    }
  }
};

} // namespace
} // namespace mlir::tgc
