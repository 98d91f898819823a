//===- GpuHostFunction.cpp - the host side of tgc-gpu-form-kernels --------===//
//
// What tgc-gpu-form-kernels does to the host function around emitting
// kernels: results made buffers of their own, strided views read directly,
// copies as generics; after emission, the host ops the launch plan can
// express (sizes, shape buffers, flag checks that follow the kernels that
// write their flags), integer powers as loops and shared divisors as
// reciprocals in the kernels.
//
//===----------------------------------------------------------------------===//

#include "GpuHostFunction.h"

#include "tgc/Transforms/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace mlir::tgc;

namespace mlir::tgc::gpu_kernels {

/// Results that are not buffers of their own (a constant, an argument, a
/// buffer returned twice) are returned as a copy in a new allocation: the
/// caller owns each result, and the launch plan allocates one per result.
void freshResults(func::FuncOp func) {
  auto ret = cast<func::ReturnOp>(func.getBody().front().getTerminator());
  DenseSet<Value> seen;
  for (OpOperand &operand : ret->getOpOperands()) {
    Value base = resultBase(operand.get());
    if (base.getDefiningOp<memref::AllocOp>() && seen.insert(base).second)
      continue;
    auto type = dyn_cast<MemRefType>(operand.get().getType());
    if (!type || !type.getLayout().isIdentity())
      continue; // the launch plan reports it
    OpBuilder b(ret);
    Location loc = ret.getLoc();
    SmallVector<Value> sizes;
    for (auto [d, size] : llvm::enumerate(type.getShape()))
      if (ShapedType::isDynamic(size))
        sizes.push_back(memref::DimOp::create(b, loc, operand.get(), d));
    auto alloc =
        memref::AllocOp::create(b, loc, type, sizes, b.getI64IntegerAttr(64));
    memref::CopyOp::create(b, loc, operand.get(), alloc);
    operand.set(alloc);
  }
}

/// Generics and copies read a `memref.cast` of a strided view to the
/// identity layout (bufferization's, for a slice with a step) through the
/// view itself. The cast keeps the view's strides at run time, but its type
/// claims a contiguous buffer, and a kernel that trusts the type (a flat,
/// vectorized one) read the rows of `x[::3]` as if they were adjacent.
void readStridedViewsDirectly(func::FuncOp func) {
  SmallVector<memref::CastOp> casts;
  func.walk([&](memref::CastOp cast) {
    auto from = dyn_cast<MemRefType>(cast.getSource().getType());
    auto to = dyn_cast<MemRefType>(cast.getType());
    if (from && to && !from.getLayout().isIdentity() &&
        to.getLayout().isIdentity())
      casts.push_back(cast);
  });
  for (memref::CastOp cast : casts) {
    for (OpOperand &use : llvm::make_early_inc_range(cast->getUses()))
      if (isa<linalg::GenericOp, memref::CopyOp>(use.getOwner()))
        use.set(cast.getSource());
    if (cast->use_empty())
      cast->erase();
  }
}

/// memref.copy as an elementwise generic (a copy kernel).
void copiesToGenerics(func::FuncOp func) {
  // A copy bufferization put inside a group (an accumulator's init read by
  // two reductions) belongs to that group, so that it does not split the
  // group's kernel; any other copy is a kernel of its own. The rule is
  // tgc-plan-memory's too (getKernelFusionGroup), which keeps the buffers
  // a kernel uses alive over all of it; it is applied to every copy before
  // any becomes a generic.
  SmallVector<std::pair<memref::CopyOp, NamedAttrList>> copies;
  func.walk([&](memref::CopyOp op) {
    NamedAttrList tags;
    if (getKernelFusionGroup(op)) {
      Operation *next = op->getNextNode();
      while (!isa<linalg::GenericOp>(next))
        next = next->getNextNode();
      for (StringRef name : {"tgc.group", "tgc.group_kind"})
        if (Attribute a = next->getAttr(name))
          tags.set(name, a);
    }
    copies.push_back({op, tags});
  });
  for (auto &[copy, tags] : copies) {
    OpBuilder b(copy);
    auto type = cast<MemRefType>(copy.getTarget().getType());
    SmallVector<AffineMap> maps(2, b.getMultiDimIdentityMap(type.getRank()));
    SmallVector<utils::IteratorType> iterators(type.getRank(),
                                               utils::IteratorType::parallel);
    auto generic = linalg::GenericOp::create(
        b, copy.getLoc(), ValueRange{copy.getSource()},
        ValueRange{copy.getTarget()}, maps, iterators,
        [](OpBuilder &nb, Location l, ValueRange args) {
          linalg::YieldOp::create(nb, l, args[0]);
        });
    for (NamedAttribute a : tags)
      generic->setAttr(a.getName(), a.getValue());
    copy->erase();
  }
}

/// A host buffer of sizes for memref.reshape (a reshape whose `?` sizes
/// are not the input's own, e.g. heads split with the batch and sequence
/// sizes of another tensor): a static 1-D index alloc that is only stored
/// to and loaded from at constant positions (a `memref.dim` of the reshape
/// folds to such a load) and read as reshapes' shape. The launch plan
/// reads the stored values as the reshape's sizes.
bool isShapeBuffer(Value v) {
  auto alloc = v.getDefiningOp<memref::AllocOp>();
  if (!alloc || alloc.getType().getRank() != 1 ||
      !alloc.getType().hasStaticShape() ||
      !alloc.getType().getElementType().isIndex())
    return false;
  return llvm::all_of(alloc->getUses(), [](OpOperand &use) {
    Operation *user = use.getOwner();
    if (auto store = dyn_cast<memref::StoreOp>(user))
      return use.getOperandNumber() == 1 &&
             getConstantIntValue(store.getIndices().front()).has_value();
    if (auto load = dyn_cast<memref::LoadOp>(user))
      return getConstantIntValue(load.getIndices().front()).has_value();
    auto reshape = dyn_cast<memref::ReshapeOp>(user);
    return reshape && reshape.getShape() == use.get();
  });
}

/// The host read of a flag the kernels computed, only for a `cf.assert`
/// (a gather's indices in range, no integer division by zero): the launch
/// plan copies the flag back and checks it after the call.
bool isFlagCheck(Operation *op) {
  auto load = dyn_cast<memref::LoadOp>(op);
  // Read by the assert directly, or as `flag || size == 0`.
  auto checked = [](Operation *user) {
    if (user->getName().getStringRef() == "cf.assert")
      return true;
    return isa<arith::OrIOp>(user) && !user->use_empty() &&
           llvm::all_of(user->getUsers(), [](Operation *assert) {
             return assert->getName().getStringRef() == "cf.assert";
           });
  };
  return load && load.getMemRefType().getRank() == 0 &&
         load.getType().isInteger(1) && !load->use_empty() &&
         llvm::all_of(load->getUsers(), checked);
}

/// Moves each flag check (the host read of a flag and the asserts on it)
/// after the last kernel that writes the flag. A check sits where the
/// generic computing its flag was, and a kernel is launched where the last
/// generic of its segment was: when the flag's generic and the checked op
/// (a gather's indices, a division's divisors) share a kernel, the launch
/// plan read the flag before the kernel wrote it, a byte of whatever the
/// arena held there ("index out of range" for valid indices).
/// The flag a check reads and the views of it (the same bytes).
SmallPtrSet<Value, 4> flagViews(memref::LoadOp load) {
  SmallPtrSet<Value, 4> flag;
  SmallVector<Value> work = {load.getMemRef()};
  while (!work.empty()) {
    Value v = work.pop_back_val();
    if (!flag.insert(v).second)
      continue;
    for (Operation *user : v.getUsers())
      if (isa<ViewLikeOpInterface, memref::ExpandShapeOp,
              memref::CollapseShapeOp, memref::CastOp>(user))
        for (Value r : user->getResults())
          work.push_back(r);
  }
  return flag;
}

/// The generics before each flag check that write its flag: the check must
/// read the flag after the kernels they become.
DenseMap<Operation *, SmallVector<linalg::GenericOp>>
flagProducers(func::FuncOp func) {
  DenseMap<Operation *, SmallVector<linalg::GenericOp>> producers;
  for (Operation &op : func.getBody().front()) {
    if (!isFlagCheck(&op))
      continue;
    SmallPtrSet<Value, 4> flag = flagViews(cast<memref::LoadOp>(op));
    for (Operation *prev = op.getPrevNode(); prev; prev = prev->getPrevNode())
      if (auto generic = dyn_cast<linalg::GenericOp>(prev))
        if (llvm::any_of(generic.getDpsInits(),
                         [&](Value v) { return flag.contains(v); }))
          producers[&op].push_back(generic);
  }
  return producers;
}

/// A kernel is launched where the last generic of its segment was, so a
/// flag check (the host's read of a flag that a gather's or division's
/// kernel computes) can come before the kernel that writes its flag, when
/// the flag and the checked op share a kernel. Each such check, with what
/// reads it, moves right after the last kernel made from a generic that
/// wrote its flag before it (`flagKernels`). Only those kernels count: a
/// later kernel taking the same view (the planner reuses the flag's bytes
/// once the check has read it, and CSE merges equal views) writes other
/// data there.
void checksAfterTheirKernels(
    func::FuncOp func, const DenseMap<Operation *, Operation *> &flagKernels) {
  SmallVector<memref::LoadOp> checks;
  for (Operation &op : func.getBody().front())
    if (isFlagCheck(&op))
      checks.push_back(cast<memref::LoadOp>(op));
  for (memref::LoadOp load : checks) {
    Operation *last = flagKernels.lookup(load);
    if (!last || last->getBlock() != load->getBlock() ||
        last->isBeforeInBlock(load))
      continue;
    // The load, then its users (`flag || size == 0`, the asserts) and
    // theirs, in their order; what they read besides is defined earlier.
    SmallVector<Operation *> chain = {load};
    for (size_t i = 0; i < chain.size(); ++i)
      for (Operation *user : chain[i]->getUsers())
        if (!llvm::is_contained(chain, user))
          chain.push_back(user);
    llvm::sort(chain, [](Operation *a, Operation *b) {
      return a->isBeforeInBlock(b);
    });
    Operation *after = last;
    for (Operation *op : chain) {
      op->moveAfter(after);
      after = op;
    }
  }
}

/// A store into or a load from a reshape's shape buffer (host sizes).
bool isShapeAccess(Operation *op) {
  if (auto store = dyn_cast<memref::StoreOp>(op))
    return isShapeBuffer(store.getMemRef());
  if (auto load = dyn_cast<memref::LoadOp>(op))
    return isShapeBuffer(load.getMemRef());
  return false;
}

bool isHostOp(Operation *op) {
  if (isShapeAccess(op) || isFlagCheck(op))
    return true;
  // Size checks (cf.assert on sizes) become guards of the launch plan.
  if (op->getName().getStringRef() == "cf.assert")
    return true;
  if (isa<func::ReturnOp, gpu::LaunchFuncOp, memref::AllocOp, memref::DeallocOp,
          memref::GetGlobalOp, memref::ReshapeOp, memref::ViewOp,
          memref::SubViewOp, memref::DimOp, memref::CollapseShapeOp,
          memref::ExpandShapeOp, memref::CastOp, affine::AffineApplyOp,
          affine::AffineMinOp, affine::AffineMaxOp>(op))
    return true;
  if (auto generic = dyn_cast<linalg::GenericOp>(op))
    return generic->hasAttr(tgc_gpu::TgcGpuDialect::kGemmAttrName) ||
           generic->hasAttr(tgc_gpu::TgcGpuDialect::kGemmEpilogueOfAttrName) ||
           generic->hasAttr(tgc_gpu::TgcGpuDialect::kConvAttrName);
  // Index and scalar arithmetic (sizes, offsets, constants).
  return op->getDialect() && op->getDialect()->getNamespace() == "arith";
}

/// math.ipowi (integer pow; tgc-to-linalg only gives it non-negative
/// exponents) as exponentiation by squaring inside the kernel: the CPU's
/// math-to-funcs would put the helper function outside the gpu.module.
struct IPowIToLoop : OpRewritePattern<math::IPowIOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(math::IPowIOp op,
                                PatternRewriter &rewriter) const override {
    auto type = dyn_cast<IntegerType>(op.getType());
    if (!type)
      return failure(); // vectors: none in kernels
    Location loc = op.getLoc();
    Value zero = arith::ConstantIntOp::create(rewriter, loc, type, 0);
    Value one = arith::ConstantIntOp::create(rewriter, loc, type, 1);
    SmallVector<Type> types(3, type);
    auto loop = scf::WhileOp::create(
        rewriter, loc, types, ValueRange{one, op.getLhs(), op.getRhs()},
        [&](OpBuilder &b, Location l, ValueRange args) {
          Value more = arith::CmpIOp::create(b, l, arith::CmpIPredicate::sgt,
                                             args[2], zero);
          scf::ConditionOp::create(b, l, more, args);
        },
        [&](OpBuilder &b, Location l, ValueRange args) {
          Value odd = arith::CmpIOp::create(
              b, l, arith::CmpIPredicate::ne,
              arith::AndIOp::create(b, l, args[2], one), zero);
          Value times = arith::MulIOp::create(b, l, args[0], args[1]);
          Value result = arith::SelectOp::create(b, l, odd, times, args[0]);
          Value square = arith::MulIOp::create(b, l, args[1], args[1]);
          Value half = arith::ShRUIOp::create(b, l, args[2], one);
          scf::YieldOp::create(b, l, ValueRange{result, square, half});
        });
    rewriter.replaceOp(op, loop.getResult(0));
    return success();
  }
};

/// Divisions by one value in one block (softmax's 32 elements per lane by
/// the row sum): one IEEE reciprocal, then multiplications (an IEEE f32
/// division costs about ten instructions; the product is within 1.5 ulp of
/// the quotient, as Triton's default division). f32 only.
void divisionsToReciprocals(gpu::GPUModuleOp module) {
  module.walk([](Block *block) {
    llvm::MapVector<Value, SmallVector<arith::DivFOp>> byDivisor;
    for (Operation &op : *block)
      if (auto div = dyn_cast<arith::DivFOp>(op))
        if (div.getType().isF32())
          byDivisor[div.getRhs()].push_back(div);
    for (auto &[divisor, divs] : byDivisor) {
      if (divs.size() < 2)
        continue;
      OpBuilder b(divs.front());
      Location loc = divs.front().getLoc();
      Value one = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(1.0));
      Value reciprocal = arith::DivFOp::create(b, loc, one, divisor);
      for (arith::DivFOp div : divs) {
        b.setInsertionPoint(div);
        div.replaceAllUsesWith(
            arith::MulFOp::create(b, div.getLoc(), div.getLhs(), reciprocal)
                .getResult());
        div.erase();
      }
    }
  });
}

void populateIPowIToLoopPatterns(RewritePatternSet &patterns) {
  patterns.add<IPowIToLoop>(patterns.getContext());
}

} // namespace mlir::tgc::gpu_kernels
