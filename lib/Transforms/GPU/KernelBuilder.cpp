//===- KernelBuilder.cpp - what every GPU kernel strategy builds with -----===//
//
// See KernelBuilder.h.
//
//===----------------------------------------------------------------------===//

#include "KernelBuilder.h"
#include "GpuGemmMatching.h"

#include "mlir/Analysis/SliceAnalysis.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Transforms/RegionUtils.h"

using namespace mlir;
using namespace mlir::tgc;
using namespace mlir::tgc::gpu_kernels;

/// Moves the vector stores of an unrolled elementwise loop body after all
/// its loads (keeping their order), so that every chunk's loads are in
/// flight together: the back end cannot hoist a load above a store to a
/// buffer that may alias it. Each chunk reads and writes only its own
/// elements (an in-place output is the same element of its input), so the
/// chunks commute.
void gpu_kernels::sinkStores(Block *body) {
  Operation *end = body->getTerminator();
  SmallVector<vector::StoreOp> stores(body->getOps<vector::StoreOp>());
  for (vector::StoreOp store : stores)
    store->moveBefore(end);
}

bool gpu_kernels::isZeroFill(linalg::GenericOp op) {
  if (!isScalarFill(op))
    return false;
  Attribute value;
  if (!matchPattern(op.getDpsInputOperand(0)->get(), m_Constant(&value)))
    return false;
  if (auto f = dyn_cast<FloatAttr>(value))
    return f.getValue().isZero() && !f.getValue().isNegative();
  if (auto i = dyn_cast<IntegerAttr>(value))
    return i.getValue().isZero();
  return false;
}

/// The value of a splat constant tensor (a scalar such as softmax's
/// epsilon, after bufferization a memref.get_global), if `v` is one.
std::optional<TypedAttr> gpu_kernels::splatGlobal(Value v) {
  auto get = v.getDefiningOp<memref::GetGlobalOp>();
  if (!get)
    return std::nullopt;
  auto global = SymbolTable::lookupNearestSymbolFrom<memref::GlobalOp>(
      get, get.getNameAttr());
  auto init =
      global ? dyn_cast_or_null<DenseElementsAttr>(global.getInitialValueAttr())
             : DenseElementsAttr();
  if (!init || !init.isSplat())
    return std::nullopt;
  return init.getSplatValue<TypedAttr>();
}

std::optional<Combiner> gpu_kernels::matchCombiner(linalg::GenericOp op) {
  if (op.getNumDpsInits() != 1)
    return std::nullopt;
  SmallVector<Operation *> combiners;
  SmallVector<BlockArgument> outs(op.getRegionOutputArgs());
  if (!matchReduction(outs, 0, combiners) || combiners.size() != 1)
    return std::nullopt;
  Operation *c = combiners.front();
  if (c->getNumOperands() != 2 || c->getNumResults() != 1)
    return std::nullopt;
  std::optional<TypedAttr> neutral = arith::getNeutralElement(c);
  if (!neutral)
    return std::nullopt;
  return Combiner{c, *neutral};
}

//===----------------------------------------------------------------------===//
// KernelBuilder
//===----------------------------------------------------------------------===//

/// Registers a host value the kernel reads; constants are rematerialized
/// inside the kernel instead.
LogicalResult KernelBuilder::addOperand(Value v, Operation *user) {
  if (llvm::is_contained(hostOperands, v) || splatGlobal(v))
    return success();
  if (isa<MemRefType>(v.getType()) || v.getType().isIndex()) {
    if (v.getType().isIndex() && getConstantIntValue(v))
      return success();
    hostOperands.push_back(v);
    return success();
  }
  if (matchPattern(v, m_Constant()))
    return success();
  // A scalar computed from sizes on the host (a mean's element count as
  // a float): the kernel recomputes it from the sizes.
  Operation *def = v.getDefiningOp();
  if (def && def->getDialect() &&
      def->getDialect()->getNamespace() == "arith" && isPure(def) &&
      def->getNumRegions() == 0) {
    for (Value operand : def->getOperands())
      if (failed(addOperand(operand, user)))
        return failure();
    return success();
  }
  return user->emitOpError()
         << "reads a scalar computed on the host; not supported on the "
            "GPU yet";
}

/// Registers the operands of `op` and the values its regions capture.
LogicalResult KernelBuilder::addOperands(Operation *op) {
  for (Value v : op->getOperands())
    if (failed(addOperand(v, op)))
      return failure();
  SetVector<Value> captured;
  getUsedValuesDefinedAbove(op->getRegions(), captured);
  for (Value v : captured)
    if (failed(addOperand(v, op)))
      return failure();
  return success();
}

/// The loop sizes of `op` as host index values (before `op`).
SmallVector<Value> KernelBuilder::hostLoopSizes(OpBuilder &b,
                                                linalg::GenericOp op) {
  SmallVector<Value> sizes;
  for (Range r : cast<linalg::LinalgOp>(op.getOperation())
                     .createLoopRanges(b, op.getLoc()))
    sizes.push_back(getValueOrCreateConstantIndexOp(b, op.getLoc(), r.size));
  return sizes;
}

/// The loop sizes of `op` (host values before `hb`'s point), registered
/// as kernel operands with `op`'s operands and captured values.
LogicalResult
KernelBuilder::addLoopSizesAndOperands(OpBuilder &hb, linalg::GenericOp op,
                                       SmallVectorImpl<Value> &sizes) {
  sizes.assign(hostLoopSizes(hb, op));
  for (Value s : sizes)
    if (failed(addOperand(s, op)))
      return failure();
  return addOperands(op);
}

/// Creates the kernel for the registered operands and maps them to its
/// arguments. The caller builds the body at the returned builder.
OpBuilder KernelBuilder::startKernel(Location loc, StringRef kind) {
  SmallVector<Type> types;
  for (Value v : hostOperands)
    types.push_back(v.getType());
  OpBuilder mb = OpBuilder::atBlockEnd(gpuModule.getBody());
  std::string name =
      (func.getSymName() + "_" + kind + "_" + Twine(ctx.counter++)).str();
  kernel = gpu::GPUFuncOp::create(mb, loc, name, mb.getFunctionType(types, {}));
  kernel->setAttr(gpu::GPUDialect::getKernelFuncAttrName(), mb.getUnitAttr());
  toKernel.clear();
  for (auto [host, arg] :
       llvm::zip(hostOperands, kernel.getBody().front().getArguments()))
    toKernel.map(host, arg);
  OpBuilder kb = OpBuilder::atBlockEnd(&kernel.getBody().front());
  anchor = arith::ConstantIndexOp::create(kb, loc, 0);
  return kb;
}

/// The kernel's value of a host value (`b` is unused: rematerialized
/// values go to the top of the kernel).
Value KernelBuilder::kval(OpBuilder &, Value host) {
  if (Value v = toKernel.lookupOrNull(host))
    return v;
  OpBuilder b(anchor);
  if (std::optional<int64_t> c = getConstantIntValue(host);
      c && host.getType().isIndex()) {
    Value v = arith::ConstantIndexOp::create(b, host.getLoc(), *c);
    toKernel.map(host, v);
    return v;
  }
  // A constant or an arith op over sizes (see addOperand): cloned.
  Operation *def = host.getDefiningOp();
  assert(def && "unregistered operand");
  IRMapping operands;
  for (Value operand : def->getOperands())
    operands.map(operand, kval(b, operand));
  Operation *copy = b.clone(*def, operands);
  for (auto [from, to] : llvm::zip(def->getResults(), copy->getResults()))
    toKernel.map(from, to);
  return toKernel.lookup(host);
}

/// How a kernel uses a buffer argument (TgcGpuDialect::kAccess* bits),
/// through its views; 0 when a use is not understood (a buffer passed on
/// to a call or a region).
static int32_t bufferAccess(Value buffer) {
  int32_t access = 0;
  SmallVector<Value> worklist{buffer};
  while (!worklist.empty()) {
    Value v = worklist.pop_back_val();
    for (OpOperand &use : v.getUses()) {
      Operation *op = use.getOwner();
      auto effects = dyn_cast<MemoryEffectOpInterface>(op);
      if (!effects)
        return 0;
      SmallVector<SideEffects::EffectInstance<MemoryEffects::Effect>> list;
      effects.getEffectsOnValue(v, list);
      for (auto &e : list) {
        if (isa<MemoryEffects::Read>(e.getEffect()))
          access |= tgc_gpu::TgcGpuDialect::kAccessRead;
        if (isa<MemoryEffects::Write>(e.getEffect()))
          access |= tgc_gpu::TgcGpuDialect::kAccessWrite;
      }
      // A view (no effect of its own): what is done through it counts.
      if (list.empty())
        for (Value r : op->getResults())
          if (isa<BaseMemRefType>(r.getType()))
            worklist.push_back(r);
    }
  }
  return access;
}

void KernelBuilder::finishKernel(OpBuilder &kb, OpBuilder &hb, Location loc,
                                 Value grid, int64_t threads) {
  gpu::ReturnOp::create(kb, loc);
  anchor->erase();
  Value one = arith::ConstantIndexOp::create(hb, loc, 1);
  Value block = arith::ConstantIndexOp::create(hb, loc, threads);
  ctx.lastLaunch = gpu::LaunchFuncOp::create(
      hb, loc, kernel, gpu::KernelDim3{grid, one, one},
      gpu::KernelDim3{block, one, one},
      /*dynamicSharedMemorySize=*/Value(), hostOperands);
  SmallVector<int32_t> access;
  // (The body's first arguments: workgroup buffers follow them.)
  for (BlockArgument arg : kernel.getArguments().take_front(
           kernel.getFunctionType().getNumInputs()))
    access.push_back(isa<BaseMemRefType>(arg.getType()) ? bufferAccess(arg)
                                                        : 0);
  ctx.lastLaunch->setAttr(tgc_gpu::TgcGpuDialect::kOperandAccessAttrName,
                          hb.getDenseI32ArrayAttr(access));
  hostOperands.clear();
}

SmallVector<Value> KernelBuilder::applyMap(OpBuilder &b, Location loc,
                                           AffineMap map, ValueRange ivs) {
  SmallVector<Value> idx;
  for (AffineExpr e : map.getResults()) {
    if (auto d = dyn_cast<AffineDimExpr>(e)) {
      idx.push_back(ivs[d.getPosition()]);
    } else if (auto c = dyn_cast<AffineConstantExpr>(e)) {
      idx.push_back(arith::ConstantIndexOp::create(b, loc, c.getValue()));
    } else {
      idx.push_back(affine::AffineApplyOp::create(
          b, loc, AffineMap::get(map.getNumDims(), 0, e), ivs));
    }
  }
  return idx;
}

/// The values `op`'s body yields at loop indices `ivs`; `accs` (when not
/// empty) replace the reads of the outputs they are set for.
SmallVector<Value> KernelBuilder::emitBody(OpBuilder &b, linalg::GenericOp op,
                                           ValueRange ivs, ValueRange accs,
                                           ArrayRef<Value> given) {
  Location loc = op.getLoc();
  Block *body = op.getBody();
  IRMapping map;
  unsigned numInputs = op.getNumDpsInputs();
  for (OpOperand &operand : op->getOpOperands()) {
    BlockArgument arg = body->getArgument(operand.getOperandNumber());
    if (arg.use_empty())
      continue;
    unsigned number = operand.getOperandNumber();
    if (number >= numInputs && !accs.empty() && accs[number - numInputs]) {
      map.map(arg, accs[number - numInputs]);
      continue;
    }
    if (number < given.size() && given[number]) {
      map.map(arg, given[number]);
      continue;
    }
    if (std::optional<TypedAttr> splat = splatGlobal(operand.get())) {
      map.map(arg, arith::ConstantOp::create(b, loc, *splat));
      continue;
    }
    Value buffer = kval(b, operand.get());
    if (!isa<MemRefType>(buffer.getType())) {
      map.map(arg, buffer);
      continue;
    }
    SmallVector<Value> idx =
        applyMap(b, loc, op.getMatchingIndexingMap(&operand), ivs);
    map.map(arg, memref::LoadOp::create(b, loc, buffer, idx));
  }
  for (Operation &inner : body->without_terminator()) {
    if (auto index = dyn_cast<linalg::IndexOp>(inner)) {
      map.map(index.getResult(), ivs[index.getDim()]);
      continue;
    }
    cloneInKernel(b, inner, op.getRegion(), map);
  }
  SmallVector<Value> results;
  for (Value v : body->getTerminator()->getOperands()) {
    // A yielded value from outside the body (a fill's constant).
    if (!map.contains(v) && !op.getRegion().isAncestor(v.getParentRegion()))
      map.map(v, kval(b, v));
    results.push_back(map.lookupOrDefault(v));
  }
  return results;
}

/// Clones `op` (from `region`) at `b`, the host values it or the ops
/// nested in it read (a gather's guarded load) mapped to the kernel's.
void KernelBuilder::cloneInKernel(OpBuilder &b, Operation &op, Region &region,
                                  IRMapping &map) {
  op.walk([&](Operation *nested) {
    for (Value v : nested->getOperands())
      if (!map.contains(v) && !region.isAncestor(v.getParentRegion()))
        map.map(v, kval(b, v));
  });
  b.clone(op, map);
}

/// Stores `values` into the outputs (those selected by `only`, if set).
void KernelBuilder::storeOutputs(OpBuilder &b, linalg::GenericOp op,
                                 ValueRange ivs, ArrayRef<Value> values,
                                 ArrayRef<bool> only) {
  for (auto [i, init] : llvm::enumerate(op.getDpsInitsMutable())) {
    if (!only.empty() && !only[i])
      continue;
    Value value = values[i];
    SmallVector<Value> idx =
        applyMap(b, op.getLoc(), op.getMatchingIndexingMap(&init), ivs);
    memref::StoreOp::create(b, op.getLoc(), value, kval(b, init.get()), idx);
  }
}

/// Row-major indices of `linear` in `sizes`.
SmallVector<Value> KernelBuilder::delinearize(OpBuilder &b, Location loc,
                                              Value linear,
                                              ArrayRef<Value> sizes) {
  SmallVector<Value> ivs(sizes.size());
  for (int64_t i = static_cast<int64_t>(sizes.size()) - 1; i >= 0; --i) {
    if (i == 0) {
      ivs[i] = linear;
      break;
    }
    ivs[i] = arith::RemUIOp::create(b, loc, linear, sizes[i]);
    linear = arith::DivUIOp::create(b, loc, linear, sizes[i]);
  }
  return ivs;
}

/// A grid-stride loop's first index (this thread's global id) and step
/// (the threads of the grid).
std::pair<Value, Value> KernelBuilder::gridStride(OpBuilder &b, Location loc) {
  Value bid = gpu::BlockIdOp::create(b, loc, gpu::Dimension::x);
  Value tid = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  Value bdim = arith::ConstantIndexOp::create(b, loc, blockSize);
  Value gdim = gpu::GridDimOp::create(b, loc, gpu::Dimension::x);
  Value start = arith::AddIOp::create(
      b, loc, arith::MulIOp::create(b, loc, bid, bdim), tid);
  return {start, arith::MulIOp::create(b, loc, gdim, bdim)};
}

Value KernelBuilder::product(OpBuilder &b, Location loc,
                             ArrayRef<Value> values) {
  Value p = arith::ConstantIndexOp::create(b, loc, 1);
  for (Value v : values)
    p = arith::MulIOp::create(b, loc, p, v);
  return p;
}

/// Blocks for `total` items of work, `perBlock` per block:
/// max(min(ceildiv(total, perBlock), cap), 1) (no cap when 0). A grid of
/// at least one block: a launch of none is invalid.
Value KernelBuilder::gridSize(OpBuilder &hb, Location loc, Value total,
                              int64_t perBlock, int64_t cap) {
  Value blocks = arith::CeilDivSIOp::create(
      hb, loc, total, arith::ConstantIndexOp::create(hb, loc, perBlock));
  if (cap)
    blocks = arith::MinSIOp::create(
        hb, loc, blocks, arith::ConstantIndexOp::create(hb, loc, cap));
  return arith::MaxSIOp::create(hb, loc, blocks,
                                arith::ConstantIndexOp::create(hb, loc, 1));
}

Value KernelBuilder::combine(OpBuilder &b, Operation *combiner, Value x,
                             Value y) {
  Operation *c = b.clone(*combiner);
  c->setOperands({x, y});
  return c->getResult(0);
}

Value KernelBuilder::warpReduce(OpBuilder &b, Location loc, Operation *combiner,
                                Value v) {
  for (int64_t off = target.warpSize / 2; off > 0; off /= 2)
    v = combine(b, combiner, v, target.shuffleXor(b, loc, v, off));
  return v;
}

/// Every thread's partial `v` combined over the block; every thread gets
/// the total. `scratch` holds one value per warp.
Value KernelBuilder::blockReduce(OpBuilder &b, Location loc, const Combiner &c,
                                 Value v, Value tid, Value scratch) {
  v = warpReduce(b, loc, c.op, v);
  int64_t warps = blockSize / target.warpSize;
  if (warps == 1)
    return v;
  Value warpSize = arith::ConstantIndexOp::create(b, loc, target.warpSize);
  Value lane = arith::RemUIOp::create(b, loc, tid, warpSize);
  Value warp = arith::DivUIOp::create(b, loc, tid, warpSize);
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value isLeader =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, lane, zero);
  auto store = scf::IfOp::create(b, loc, isLeader, /*withElse=*/false);
  {
    OpBuilder sb = store.getThenBodyBuilder();
    memref::StoreOp::create(sb, loc, v, scratch, ValueRange{warp});
  }
  target.barrier(b, loc);
  Value numWarps = arith::ConstantIndexOp::create(b, loc, warps);
  Value valid =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, lane, numWarps);
  Value last = arith::ConstantIndexOp::create(b, loc, warps - 1);
  Value slot = arith::MinUIOp::create(b, loc, lane, last);
  Value partial = memref::LoadOp::create(b, loc, scratch, ValueRange{slot});
  Value neutral = arith::ConstantOp::create(b, loc, c.neutral);
  Value w = arith::SelectOp::create(b, loc, valid, partial, neutral);
  return warpReduce(b, loc, c.op, w);
}
