//===- FlatKernels.cpp - elementwise and thread-per-point kernels
//-----------===//
//
// The flat strategy: an elementwise op over contiguous buffers as a
// grid-stride loop over 16-byte vector chunks, then the remainder element
// by element. The element strategy: a thread per point of the parallel
// loops, reduction loops inside the thread.
//
//===----------------------------------------------------------------------===//

#include "Strategies.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace mlir::tgc;
using namespace mlir::tgc::gpu_kernels;

namespace {

class FlatKernelEmitter : public KernelBuilder {
public:
  using KernelBuilder::KernelBuilder;

  /// Whether the body calls a function that is more than a few
  /// instructions on the GPU (exp, log, tanh, erf, pow, sin, ...: libdevice
  /// calls); square roots, rounding, absolute values and fused
  /// multiply-adds are single instructions.
  static bool hasTranscendental(linalg::GenericOp op) {
    return op.getBody()
        ->walk([](Operation *inner) {
          if (inner->getDialect() !=
                  inner->getContext()->getLoadedDialect<math::MathDialect>() ||
              isa<math::AbsFOp, math::AbsIOp, math::CopySignOp, math::FmaOp,
                  math::SqrtOp, math::RsqrtOp, math::FloorOp, math::CeilOp,
                  math::RoundOp, math::RoundEvenOp, math::TruncOp,
                  math::IsNaNOp, math::IsInfOp, math::IsFiniteOp>(inner))
            return WalkResult::advance();
          return WalkResult::interrupt();
        })
        .wasInterrupted();
  }

  /// One grid-stride loop over chunks of `width` elements, read and written
  /// with 16-byte vector accesses (the body runs once per lane), then the
  /// remainder element by element. The launch carries `tgc_gpu.vector_align`:
  /// the launch plan guards the argument buffers' alignment.
  LogicalResult emitFlatKernel(linalg::GenericOp op, unsigned width) {
    Location loc = op.getLoc();
    OpBuilder hb(op);
    SmallVector<Value> hostSizes;
    if (failed(addLoopSizesAndOperands(hb, op, hostSizes)))
      return failure();
    OpBuilder kb = startKernel(loc, "elementwise");
    SmallVector<Value> sizes;
    for (Value s : hostSizes)
      sizes.push_back(kval(kb, s));
    Value total = product(kb, loc, sizes);
    // 1-D views of the buffers.
    DenseMap<Value, Value> flat;
    for (OpOperand &operand : op->getOpOperands()) {
      Value v = operand.get();
      if (!isa<MemRefType>(v.getType()) || splatGlobal(v) || flat.count(v))
        continue;
      Value k = kval(kb, v);
      auto type = cast<MemRefType>(k.getType());
      ReassociationIndices all;
      for (int64_t d = 0; d < type.getRank(); ++d)
        all.push_back(d);
      flat[v] = type.getRank() == 1
                    ? k
                    : memref::CollapseShapeOp::create(
                          kb, loc, k, ArrayRef<ReassociationIndices>{all});
    }
    auto [start, step] = gridStride(kb, loc);
    Value w = arith::ConstantIndexOp::create(kb, loc, width);
    Value chunks = arith::DivUIOp::create(kb, loc, total, w);
    unsigned numInputs = op.getNumDpsInputs();
    Block *body = op.getBody();
    auto used = [&](unsigned number) {
      return !body->getArgument(number).use_empty();
    };
    int64_t align = 16;
    // Vector chunks.
    auto vloop = scf::ForOp::create(kb, loc, start, chunks, step);
    {
      OpBuilder lb = OpBuilder::atBlockBegin(vloop.getBody());
      Value base = arith::MulIOp::create(lb, loc, vloop.getInductionVar(), w);
      SmallVector<Value> vectors(op->getNumOperands());
      for (OpOperand &operand : op->getOpOperands()) {
        unsigned number = operand.getOperandNumber();
        Value v = operand.get();
        if (!flat.count(v) || !used(number))
          continue;
        auto vt = VectorType::get(
            {int64_t(width)}, cast<MemRefType>(v.getType()).getElementType());
        vectors[number] = vector::LoadOp::create(
            lb, loc, vt, flat[v], ValueRange{base}, /*nontemporal=*/false,
            llvm::MaybeAlign(align));
      }
      SmallVector<SmallVector<Value>> lanes(op.getNumDpsInits());
      for (unsigned lane = 0; lane < width; ++lane) {
        SmallVector<Value> given(op->getNumOperands());
        for (unsigned i = 0; i < op->getNumOperands(); ++i)
          if (vectors[i])
            given[i] = vector::ExtractOp::create(lb, loc, vectors[i],
                                                 ArrayRef<int64_t>{lane});
        SmallVector<Value> accs(given.begin() + numInputs, given.end());
        bool anyAcc = llvm::any_of(accs, [](Value a) { return bool(a); });
        SmallVector<Value> values =
            emitBody(lb, op, {}, anyAcc ? ValueRange(accs) : ValueRange(),
                     ArrayRef<Value>(given).take_front(numInputs));
        for (auto [i, value] : llvm::enumerate(values))
          lanes[i].push_back(value);
      }
      for (auto [i, init] : llvm::enumerate(op.getDpsInitsMutable())) {
        auto vt = VectorType::get({int64_t(width)}, lanes[i].front().getType());
        Value vec = vector::FromElementsOp::create(lb, loc, vt, lanes[i]);
        vector::StoreOp::create(lb, loc, vec, flat[init.get()],
                                ValueRange{base}, /*nontemporal=*/false,
                                llvm::MaybeAlign(align));
      }
    }
    // Several chunks per thread and iteration, for loads in flight.
    // Several chunks per thread and iteration, for loads in flight, where
    // the body is light. A body with transcendental functions (libdevice
    // calls, tens of instructions a lane) is not unrolled: on the H200 a
    // 8192x8192 erf GELU took 144 us unrolled by 4 against 130 (the
    // copy-bandwidth time of x * 2 + 1, unrolled or not), silu(x) * x 154
    // against 131, and ptxas compiled it in 23 ms instead of 71 (BERT's
    // largest kernel; utils/device/unroll_probe.py).
    if (!hasTranscendental(op) && succeeded(loopUnrollByFactor(vloop, 4)))
      sinkStores(vloop.getBody());
    // The remainder: total mod width elements.
    Value tailStart = arith::AddIOp::create(
        kb, loc, arith::MulIOp::create(kb, loc, chunks, w), start);
    auto sloop = scf::ForOp::create(kb, loc, tailStart, total, step);
    {
      OpBuilder lb = OpBuilder::atBlockBegin(sloop.getBody());
      Value i = sloop.getInductionVar();
      SmallVector<Value> given(op->getNumOperands());
      for (OpOperand &operand : op->getOpOperands()) {
        unsigned number = operand.getOperandNumber();
        if (flat.count(operand.get()) && used(number))
          given[number] = memref::LoadOp::create(lb, loc, flat[operand.get()],
                                                 ValueRange{i});
      }
      SmallVector<Value> accs(given.begin() + numInputs, given.end());
      bool anyAcc = llvm::any_of(accs, [](Value a) { return bool(a); });
      SmallVector<Value> values =
          emitBody(lb, op, {}, anyAcc ? ValueRange(accs) : ValueRange(),
                   ArrayRef<Value>(given).take_front(numInputs));
      for (auto [k, init] : llvm::enumerate(op.getDpsInitsMutable()))
        memref::StoreOp::create(lb, loc, values[k], flat[init.get()],
                                ValueRange{i});
    }
    finishKernel(kb, hb, loc,
                 gridSize(hb, loc, product(hb, loc, hostSizes),
                          blockSize * width, maxBlocks),
                 blockSize);
    ctx.lastLaunch->setAttr(tgc_gpu::TgcGpuDialect::kVectorAlignAttrName,
                            hb.getI64IntegerAttr(align));
    return success();
  }

  /// One thread per point of the parallel loops (grid-stride); reduction
  /// loops run inside the thread with the outputs in registers.
  LogicalResult emitElementKernel(linalg::GenericOp op) {
    Location loc = op.getLoc();
    OpBuilder hb(op);
    SmallVector<Value> hostSizes;
    if (failed(addLoopSizesAndOperands(hb, op, hostSizes)))
      return failure();
    SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
    SmallVector<unsigned> par, red;
    for (auto [i, t] : llvm::enumerate(iterators))
      (t == utils::IteratorType::parallel ? par : red).push_back(i);

    OpBuilder kb = startKernel(loc, red.empty() ? "elementwise" : "loops");
    SmallVector<Value> sizes;
    for (Value s : hostSizes)
      sizes.push_back(kval(kb, s));
    SmallVector<Value> parSizes, hostParSizes;
    for (unsigned d : par) {
      parSizes.push_back(sizes[d]);
      hostParSizes.push_back(hostSizes[d]);
    }
    Value total = product(kb, loc, parSizes);
    auto [start, step] = gridStride(kb, loc);
    auto loop = scf::ForOp::create(kb, loc, start, total, step);
    {
      OpBuilder lb = OpBuilder::atBlockBegin(loop.getBody());
      SmallVector<Value> pivs =
          delinearize(lb, loc, loop.getInductionVar(), parSizes);
      Value zero = arith::ConstantIndexOp::create(lb, loc, 0);
      SmallVector<Value> ivs(iterators.size(), zero);
      for (auto [d, iv] : llvm::zip(par, pivs))
        ivs[d] = iv;
      if (red.empty()) {
        storeOutputs(lb, op, ivs, emitBody(lb, op, ivs));
      } else {
        // Outputs indexed by the parallel loops alone stay in registers
        // across the reduction loops; the others (a fused producer's
        // value) are read and written per iteration.
        SmallVector<bool> carried;
        SmallVector<Value> accs;
        for (OpOperand &init : op.getDpsInitsMutable()) {
          AffineMap m = op.getMatchingIndexingMap(&init);
          bool invariant = llvm::none_of(
              red, [&](unsigned d) { return m.isFunctionOfDim(d); });
          carried.push_back(invariant);
          if (!invariant)
            continue;
          SmallVector<Value> idx = applyMap(lb, loc, m, ivs);
          accs.push_back(
              memref::LoadOp::create(lb, loc, kval(lb, init.get()), idx));
        }
        SmallVector<Value> result =
            emitReductionLoops(lb, op, ivs, red, sizes, 0, accs, carried);
        storeOutputs(lb, op, ivs, result, carried);
      }
    }
    finishKernel(
        kb, hb, loc,
        gridSize(hb, loc, product(hb, loc, hostParSizes), blockSize, maxBlocks),
        blockSize);
    return success();
  }

  /// The reduction loops `red[level:]` around `op`'s body; `accs` are the
  /// carried outputs (`carried`), the rest are stored per iteration.
  SmallVector<Value>
  emitReductionLoops(OpBuilder &b, linalg::GenericOp op, SmallVector<Value> ivs,
                     ArrayRef<unsigned> red, ArrayRef<Value> sizes,
                     size_t level, ValueRange accs, ArrayRef<bool> carried) {
    Location loc = op.getLoc();
    if (level == red.size()) {
      SmallVector<Value> all;
      auto it = accs.begin();
      for (bool c : carried)
        all.push_back(c ? *it++ : Value());
      SmallVector<Value> values = emitBody(b, op, ivs, all);
      SmallVector<bool> perIteration;
      for (bool c : carried)
        perIteration.push_back(!c);
      storeOutputs(b, op, ivs, values, perIteration);
      SmallVector<Value> next;
      for (auto [v, c] : llvm::zip(values, carried))
        if (c)
          next.push_back(v);
      return next;
    }
    Value zero = arith::ConstantIndexOp::create(b, loc, 0);
    Value one = arith::ConstantIndexOp::create(b, loc, 1);
    auto loop = scf::ForOp::create(b, loc, zero, sizes[red[level]], one, accs);
    OpBuilder lb = OpBuilder::atBlockBegin(loop.getBody());
    ivs[red[level]] = loop.getInductionVar();
    SmallVector<Value> inner = emitReductionLoops(
        lb, op, ivs, red, sizes, level + 1, loop.getRegionIterArgs(), carried);
    scf::YieldOp::create(lb, loc, inner);
    if (level > 0)
      return SmallVector<Value>(loop.getResults());
    // Back to one value per output (null for those stored in the loop).
    SmallVector<Value> all;
    auto it = loop.getResults().begin();
    for (bool c : carried)
      all.push_back(c ? *it++ : Value());
    return all;
  }
};

} // namespace

LogicalResult gpu_kernels::emitFlatKernel(KernelContext &ctx,
                                          linalg::GenericOp op,
                                          tgc_gpu::StrategyAttr strategy) {
  return FlatKernelEmitter(ctx, strategy)
      .emitFlatKernel(op, strategy.getVector());
}

LogicalResult gpu_kernels::emitElementKernel(KernelContext &ctx,
                                             linalg::GenericOp op,
                                             tgc_gpu::StrategyAttr strategy) {
  return FlatKernelEmitter(ctx, strategy).emitElementKernel(op);
}
