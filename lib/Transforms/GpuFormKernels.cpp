//===- GpuFormKernels.cpp - one GPU kernel per fusion group ---------------===//
//
// Runs on bufferized functions whose linalg ops carry their fusion group.
// Each group becomes kernels in a gpu.module (one block per row for row
// groups, a grid-stride loop with one thread per output element for the
// rest), launched with gpu.launch_func; contractions that cuBLASLt can run
// are tagged for the launch plan. Sizes are kernel operands, so a kernel
// serves every size of the specialization. GEMM matching is in
// GpuGemmMatching.cpp, the host function's preparation and clean-up in
// GpuHostFunction.cpp, which fusions are safe in LoopExtents.cpp.
//
//===----------------------------------------------------------------------===//

#include "GpuGemmMatching.h"
#include "GpuHostFunction.h"
#include "tgc/Transforms/LoopExtents.h"
#include "tgc/Transforms/Passes.h"
#include "tgc/Conversion/TgcToLinalg/TgcToLinalg.h"

#include "mlir/Analysis/SliceAnalysis.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "mlir/Transforms/RegionUtils.h"

namespace mlir::tgc {
#define GEN_PASS_DEF_TGCGPUFORMKERNELS
#include "tgc/Transforms/Passes.h.inc"
} // namespace mlir::tgc

using namespace mlir;
using namespace mlir::tgc;
using namespace mlir::tgc::gpu_kernels;

namespace {

constexpr int64_t kWarpSize = 32;
/// Rows of a static length up to this get one warp each (a block of 256
/// threads would leave most idle). Measured on an H100: rows of 1024 f32
/// are faster with a block per row (softmax 62 us) than a warp (68 us).
constexpr int64_t kWarpRowLimit = 256;
/// Longer static rows of at most this many bytes also get a warp each when
/// the warp reads them in 16-byte chunks, all in registers. Measured on an
/// H100 (device time, back to back): rows of 1024 bf16 (2 KiB), softmax
/// 14.2 us with a warp against 17.1 with a block of 128, layer norm 11.7
/// against 13.2; rows of 1024 f32 (4 KiB) are faster with a block (27.4
/// against 28.5).
constexpr int64_t kWarpRowBytes = 2048;
/// Row elements per thread that a row kernel keeps in registers.
constexpr int64_t kRegisterRowSlots = 32;
/// 1-D reductions (rows = 0) of a static length up to this run as one
/// block (a row kernel); longer or dynamic ones as a two-stage tree.
constexpr int64_t kSingleBlockRow = 16384;

// Two-stage tree reductions. The first stage's threads each read about
// kTreeUnroll elements per loop step: kTreeWorkers threads keep enough
// loads in flight for an H100's bandwidth (its 132 SMs full).
// Their partial results, at most kTreePartials, go to a scratch region of
// kTreePartials * 8 bytes at the end of the arena.
constexpr int64_t kTreeWorkers = 262144;
constexpr int64_t kTreePartials = 262144;
constexpr int64_t kTreeUnroll = 8;
/// Threads of a block of the second stage.
constexpr int64_t kTreeFinalThreads = 1024;
/// At most this many partials per output when a thread reads each
/// output's column (a thread of the second stage combines every 32nd).
constexpr int64_t kTreeColumnSplit = 256;

/// Moves the vector stores of an unrolled elementwise loop body after all
/// its loads (keeping their order), so that every chunk's loads are in
/// flight together: the back end cannot hoist a load above a store to a
/// buffer that may alias it. Each chunk reads and writes only its own
/// elements (an in-place output is the same element of its input), so the
/// chunks commute.
void sinkStores(Block *body) {
  Operation *end = body->getTerminator();
  SmallVector<vector::StoreOp> stores(body->getOps<vector::StoreOp>());
  for (vector::StoreOp store : stores)
    store->moveBefore(end);
}

/// A generic that writes one scalar (an input that is not a shaped value,
/// or a rank-0 one) to every element of its output.
bool isFill(linalg::GenericOp op) {
  if (op.getNumDpsInputs() != 1 || op.getNumDpsInits() != 1 ||
      !isAllParallel(op))
    return false;
  Value in = op.getDpsInputOperand(0)->get();
  if (auto shaped = dyn_cast<ShapedType>(in.getType()))
    if (shaped.getRank() != 0)
      return false;
  auto yield = cast<linalg::YieldOp>(op.getBody()->getTerminator());
  return yield.getNumOperands() == 1 &&
         yield.getOperand(0) == op.getBody()->getArgument(0);
}

bool isZeroFill(linalg::GenericOp op) {
  if (!isFill(op))
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
std::optional<TypedAttr> splatGlobal(Value v) {
  auto get = v.getDefiningOp<memref::GetGlobalOp>();
  if (!get)
    return std::nullopt;
  auto global = SymbolTable::lookupNearestSymbolFrom<memref::GlobalOp>(
      get, get.getNameAttr());
  auto init = global ? dyn_cast_or_null<DenseElementsAttr>(
                           global.getInitialValueAttr())
                     : DenseElementsAttr();
  if (!init || !init.isSplat())
    return std::nullopt;
  return init.getSplatValue<TypedAttr>();
}

//===----------------------------------------------------------------------===//
// Kernel emission
//===----------------------------------------------------------------------===//

/// The single combiner of a reduction generic (`out = combine(out, f(in))`)
/// and its neutral element, if it has one.
struct Combiner {
  Operation *op = nullptr;
  TypedAttr neutral;
};

std::optional<Combiner> matchCombiner(linalg::GenericOp op) {
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

class KernelEmitter {
public:
  KernelEmitter(func::FuncOp func, gpu::GPUModuleOp gpuModule,
                int64_t blockSize, int64_t rowBlockSize, int64_t maxBlocks,
                bool vectorize, bool rowRegisters)
      : func(func), gpuModule(gpuModule), blockSize(blockSize),
        rowBlockSize(rowBlockSize), maxBlocks(maxBlocks),
        vectorize(vectorize), rowRegisters(rowRegisters), sizeClasses(func) {}

  /// Emits the ops of one group segment (no GEMMs) as kernels and erases
  /// them.
  LogicalResult emit(ArrayRef<linalg::GenericOp> ops) {
    if (ops.empty())
      return success();
    if (isRowGroup(ops) && !isLongVectorGroup(ops)) {
      int64_t saved = blockSize;
      blockSize = rowBlockSize;
      LogicalResult built = emitRowKernel(ops);
      blockSize = saved;
      if (failed(built))
        return failure();
      for (linalg::GenericOp op : ops)
        kernelOf[op] = lastLaunch;
    } else {
      for (size_t i = 0; i < ops.size(); ++i) {
        // A reduction (with the fill of its output before it, and the
        // elementwise ops after it that read it at its own points) as a
        // two-stage tree.
        size_t at = i;
        std::optional<Tree> tree;
        if (i + 1 < ops.size() && isFill(ops[i]) &&
            (tree = matchTree(ops[i + 1])) && fillCovered(ops[i], ops[i + 1]))
          tree->fill = ops[at++];
        else
          tree = matchTree(ops[i]); // (a fill is never a tree)
        if (tree) {
          tree->epilogues = treeEpilogues(*tree, ops.drop_front(at + 1));
          if (failed(emitTree(*tree)))
            return failure();
          // (The last launch is the final stage's, after the first's.)
          for (size_t j = i; j <= at + tree->epilogues.size(); ++j)
            kernelOf[ops[j]] = lastLaunch;
          i = at + tree->epilogues.size();
          continue;
        }
        linalg::GenericOp op = ops[i];
        unsigned width = vectorize ? flatVectorWidth(op) : 0;
        if (failed(width ? emitFlatKernel(op, width) : emitElementKernel(op)))
          return failure();
        kernelOf[op] = lastLaunch;
      }
    }
    for (linalg::GenericOp op : llvm::reverse(ops))
      op->erase();
    return success();
  }

  /// The launch of the kernel each emitted generic became (the last one,
  /// for a tree's two stages). Keys are erased ops: compare, never use.
  DenseMap<Operation *, Operation *> kernelOf;

  /// Emits a sequential host loop nest (topk, cholesky) as one kernel and
  /// erases it. Its outer loops marked tgc.parallel (from 0 by 1, without
  /// results, each but the last holding only the next) become one thread
  /// per iteration in a grid-stride loop; the rest runs in each thread as
  /// it ran on the host. Without such loops the kernel is one thread.
  LogicalResult emitLoopKernel(scf::ForOp loop) {
    Location loc = loop.getLoc();
    Region &nest = loop.getRegion();
    SmallVector<scf::ForOp> par;
    for (scf::ForOp l = loop; l;) {
      Value ub = l.getUpperBound();
      if (!l->hasAttr(kParallelLoopAttrName) || l.getNumResults() != 0 ||
          !isConstantIntValue(l.getLowerBound(), 0) ||
          !isConstantIntValue(l.getStep(), 1) ||
          (l != loop && nest.isAncestor(ub.getParentRegion())))
        break;
      par.push_back(l);
      Block *body = l.getBody();
      l = body->getOperations().size() == 2 ? dyn_cast<scf::ForOp>(body->front())
                                            : scf::ForOp();
    }
    if (failed(addOperands(loop)))
      return failure();

    OpBuilder hb(loop);
    OpBuilder kb = startKernel(loc, par.empty() ? "serial" : "loop");
    IRMapping map;
    if (par.empty()) {
      cloneInKernel(kb, *loop, nest, map);
      finishKernel(kb, hb, loc, arith::ConstantIndexOp::create(hb, loc, 1), 1);
      return success();
    }
    SmallVector<Value> sizes, hostSizes;
    for (scf::ForOp l : par) {
      hostSizes.push_back(l.getUpperBound());
      sizes.push_back(kval(kb, l.getUpperBound()));
    }
    Value total = product(kb, loc, sizes);
    auto [start, step] = gridStride(kb, loc);
    auto threads = scf::ForOp::create(kb, loc, start, total, step);
    OpBuilder lb = OpBuilder::atBlockBegin(threads.getBody());
    for (auto [l, iv] : llvm::zip(
             par, delinearize(lb, loc, threads.getInductionVar(), sizes)))
      map.map(l.getInductionVar(), iv);
    for (Operation &op : par.back().getBody()->without_terminator())
      cloneInKernel(lb, op, nest, map);
    finishKernel(kb, hb, loc,
                 gridSize(hb, loc, product(hb, loc, hostSizes), blockSize,
                          maxBlocks),
                 blockSize);
    return success();
  }

private:
  func::FuncOp func;
  gpu::GPUModuleOp gpuModule;
  /// Threads per block: grid-stride kernels use `blockSize`; row kernels
  /// set it to `rowBlockSize` while they are built.
  int64_t blockSize, rowBlockSize, maxBlocks;
  bool vectorize, rowRegisters;
  /// Argument sizes the guards check equal: loops over them run equally
  /// far (getLoopExtents).
  ArgSizeClasses sizeClasses;
  int64_t counter = 0;

  // Per kernel.
  SmallVector<Value> hostOperands;
  IRMapping toKernel;
  gpu::GPUFuncOp kernel;
  /// Values kval rematerializes go before this op at the top of the
  /// kernel, so that they dominate every use.
  Operation *anchor = nullptr;
  gpu::LaunchFuncOp lastLaunch;
  SmallVector<scf::ForOp> rowLoops;

  // Per function: the scratch region of tree reductions (see
  // partialsBuffer).
  memref::AllocOp scratchArena;
  Value scratchAt;
  DenseMap<Type, Value> partialViews;

  //--- Classification -----------------------------------------------------

  /// Row stages: every op has R or R+1 loops, the first R parallel, and the
  /// last loop of an R+1-loop op is parallel or a reduction with one
  /// combiner; at least one op reduces its row.
  bool isRowGroup(ArrayRef<linalg::GenericOp> ops) {
    unsigned loops = 0;
    for (linalg::GenericOp op : ops)
      loops = std::max(loops, op.getNumLoops());
    if (loops == 0)
      return false;
    unsigned rows = loops - 1;
    bool reduces = false;
    for (linalg::GenericOp op : ops) {
      unsigned n = op.getNumLoops();
      if (n != rows && n != loops)
        return false;
      SmallVector<utils::IteratorType> it = op.getIteratorTypesArray();
      for (unsigned i = 0; i < rows; ++i)
        if (it[i] != utils::IteratorType::parallel)
          return false;
      if (n == loops && it.back() == utils::IteratorType::reduction) {
        if (!matchCombiner(op))
          return false;
        reduces = true;
      }
    }
    if (!reduces)
      return false;
    // Every stage runs over the same rows: the grid has one block (or
    // warp) per row of the group. A stage over other rows (the sum of a
    // 1x1 tensor with an add over ?x7 that broadcasts it) is no stage of
    // this group: the add's rows past the first were never computed.
    // Dynamic rows are the same only when provably the same size.
    std::optional<SmallVector<Extent>> rowExtents;
    for (linalg::GenericOp op : ops) {
      SmallVector<Extent> extents = getLoopExtents(op, &sizeClasses);
      extents.resize(rows);
      if (!rowExtents)
        rowExtents = extents;
      else if (extents != *rowExtents)
        return false;
    }
    // A stage that reads what an earlier stage wrote must read the same
    // row (its map starts with the row loops, in order): other rows belong
    // to other blocks, which may not have written them yet. Views of one
    // buffer are the buffer (a reduction's keepdim output read through
    // another reshape of it).
    auto bufferOf = [](Value v) {
      while (Operation *def = v.getDefiningOp()) {
        if (isa<memref::ExpandShapeOp, memref::CollapseShapeOp,
                memref::CastOp>(def))
          v = def->getOperand(0);
        else
          break;
      }
      return v;
    };
    DenseSet<Value> written;
    for (linalg::GenericOp op : ops) {
      for (OpOperand &operand : op->getOpOperands()) {
        if (!written.contains(bufferOf(operand.get())))
          continue;
        AffineMap map = op.getMatchingIndexingMap(&operand);
        if (map.getNumResults() < rows)
          return false;
        for (unsigned d = 0; d < rows; ++d) {
          auto dim = dyn_cast<AffineDimExpr>(map.getResult(d));
          if (!dim || dim.getPosition() != d)
            return false;
        }
      }
      for (Value init : op.getDpsInits())
        written.insert(bufferOf(init));
    }
    return true;
  }

  /// A row group without row loops (a whole 1-D vector is the row) whose
  /// length is dynamic or above kSingleBlockRow: one block would read it
  /// alone, so its reductions run as trees instead.
  bool isLongVectorGroup(ArrayRef<linalg::GenericOp> ops) {
    if (llvm::any_of(ops, [](linalg::GenericOp op) {
          return op.getNumLoops() > 1;
        }))
      return false;
    for (linalg::GenericOp op : ops) {
      if (op.getNumLoops() == 1) {
        int64_t length = op.getStaticLoopRanges().front();
        if (ShapedType::isDynamic(length) || length > kSingleBlockRow)
          return true;
      }
    }
    return false;
  }

  //--- Kernel operands ----------------------------------------------------

  /// Registers a host value the kernel reads; constants are rematerialized
  /// inside the kernel instead.
  LogicalResult addOperand(Value v, Operation *user) {
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
  LogicalResult addOperands(Operation *op) {
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
  SmallVector<Value> hostLoopSizes(OpBuilder &b, linalg::GenericOp op) {
    SmallVector<Value> sizes;
    for (Range r : cast<linalg::LinalgOp>(op.getOperation())
                       .createLoopRanges(b, op.getLoc()))
      sizes.push_back(getValueOrCreateConstantIndexOp(b, op.getLoc(), r.size));
    return sizes;
  }

  /// The loop sizes of `op` (host values before `hb`'s point), registered
  /// as kernel operands with `op`'s operands and captured values.
  FailureOr<SmallVector<Value>> addLoopSizesAndOperands(OpBuilder &hb,
                                                        linalg::GenericOp op) {
    SmallVector<Value> sizes = hostLoopSizes(hb, op);
    for (Value s : sizes)
      if (failed(addOperand(s, op)))
        return failure();
    if (failed(addOperands(op)))
      return failure();
    return sizes;
  }

  /// Creates the kernel for the registered operands and maps them to its
  /// arguments. The caller builds the body at the returned builder.
  OpBuilder startKernel(Location loc, StringRef kind) {
    SmallVector<Type> types;
    for (Value v : hostOperands)
      types.push_back(v.getType());
    OpBuilder mb = OpBuilder::atBlockEnd(gpuModule.getBody());
    std::string name =
        (func.getSymName() + "_" + kind + "_" + Twine(counter++)).str();
    kernel = gpu::GPUFuncOp::create(mb, loc, name,
                                    mb.getFunctionType(types, {}));
    kernel->setAttr(gpu::GPUDialect::getKernelFuncAttrName(),
                    mb.getUnitAttr());
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
  Value kval(OpBuilder &, Value host) {
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

  void finishKernel(OpBuilder &kb, OpBuilder &hb, Location loc, Value grid,
                    int64_t threads) {
    gpu::ReturnOp::create(kb, loc);
    anchor->erase();
    Value one = arith::ConstantIndexOp::create(hb, loc, 1);
    Value block = arith::ConstantIndexOp::create(hb, loc, threads);
    lastLaunch = gpu::LaunchFuncOp::create(
        hb, loc, kernel, gpu::KernelDim3{grid, one, one},
        gpu::KernelDim3{block, one, one},
        /*dynamicSharedMemorySize=*/Value(), hostOperands);
    hostOperands.clear();
  }

  //--- Body emission ------------------------------------------------------

  SmallVector<Value> applyMap(OpBuilder &b, Location loc, AffineMap map,
                              ValueRange ivs) {
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
  SmallVector<Value> emitBody(OpBuilder &b, linalg::GenericOp op,
                              ValueRange ivs, ValueRange accs = {},
                              ArrayRef<Value> given = {}) {
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
  void cloneInKernel(OpBuilder &b, Operation &op, Region &region,
                     IRMapping &map) {
    op.walk([&](Operation *nested) {
      for (Value v : nested->getOperands())
        if (!map.contains(v) && !region.isAncestor(v.getParentRegion()))
          map.map(v, kval(b, v));
    });
    b.clone(op, map);
  }

  /// Stores `values` into the outputs (those selected by `only`, if set).
  void storeOutputs(OpBuilder &b, linalg::GenericOp op, ValueRange ivs,
                    ArrayRef<Value> values, ArrayRef<bool> only = {}) {
    for (auto [i, init] : llvm::enumerate(op.getDpsInitsMutable())) {
      if (!only.empty() && !only[i])
        continue;
      Value value = values[i];
      SmallVector<Value> idx =
          applyMap(b, op.getLoc(), op.getMatchingIndexingMap(&init), ivs);
      memref::StoreOp::create(b, op.getLoc(), value, kval(b, init.get()),
                              idx);
    }
  }

  /// Row-major indices of `linear` in `sizes`.
  SmallVector<Value> delinearize(OpBuilder &b, Location loc, Value linear,
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
  std::pair<Value, Value> gridStride(OpBuilder &b, Location loc) {
    Value bid = gpu::BlockIdOp::create(b, loc, gpu::Dimension::x);
    Value tid = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
    Value bdim = arith::ConstantIndexOp::create(b, loc, blockSize);
    Value gdim = gpu::GridDimOp::create(b, loc, gpu::Dimension::x);
    Value start = arith::AddIOp::create(
        b, loc, arith::MulIOp::create(b, loc, bid, bdim), tid);
    return {start, arith::MulIOp::create(b, loc, gdim, bdim)};
  }

  Value product(OpBuilder &b, Location loc, ArrayRef<Value> values) {
    Value p = arith::ConstantIndexOp::create(b, loc, 1);
    for (Value v : values)
      p = arith::MulIOp::create(b, loc, p, v);
    return p;
  }

  /// Blocks for `total` items of work, `perBlock` per block:
  /// max(min(ceildiv(total, perBlock), cap), 1) (no cap when 0). A grid of
  /// at least one block: a launch of none is invalid.
  Value gridSize(OpBuilder &hb, Location loc, Value total, int64_t perBlock,
                 int64_t cap = 0) {
    Value blocks = arith::CeilDivSIOp::create(
        hb, loc, total, arith::ConstantIndexOp::create(hb, loc, perBlock));
    if (cap)
      blocks = arith::MinSIOp::create(
          hb, loc, blocks, arith::ConstantIndexOp::create(hb, loc, cap));
    return arith::MaxSIOp::create(hb, loc, blocks,
                                  arith::ConstantIndexOp::create(hb, loc, 1));
  }

  //--- Flat vectorized elementwise kernels ---------------------------------

  /// Elements per 16-byte access when `op` is elementwise over contiguous
  /// buffers that all index its loops directly (no broadcast, no
  /// transpose, no linalg.index), all of one element width; else 0.
  unsigned flatVectorWidth(linalg::GenericOp op) {
    if (!isAllParallel(op) || op.getNumLoops() == 0)
      return 0;
    bool usesIndex = false;
    op.getBody()->walk([&](linalg::IndexOp) { usesIndex = true; });
    if (usesIndex)
      return 0;
    unsigned bytes = 0;
    for (OpOperand &operand : op->getOpOperands()) {
      auto type = dyn_cast<MemRefType>(operand.get().getType());
      if (!type) {
        if (isa<ShapedType>(operand.get().getType()))
          return 0;
        continue; // a scalar
      }
      if (splatGlobal(operand.get()))
        continue;
      if (!type.getLayout().isIdentity() ||
          !op.getMatchingIndexingMap(&operand).isIdentity())
        return 0;
      Type element = type.getElementType();
      if (!element.isIntOrFloat() || element.isInteger(1))
        return 0;
      unsigned b = element.getIntOrFloatBitWidth() / 8;
      if (bytes && b != bytes)
        return 0;
      bytes = b;
    }
    if (bytes != 2 && bytes != 4 && bytes != 8)
      return 0;
    return 16 / bytes;
  }

  /// One grid-stride loop over chunks of `width` elements, read and written
  /// with 16-byte vector accesses (the body runs once per lane), then the
  /// remainder element by element. The launch carries `tgc.vector_align`:
  /// the launch plan guards the argument buffers' alignment.
  LogicalResult emitFlatKernel(linalg::GenericOp op, unsigned width) {
    Location loc = op.getLoc();
    OpBuilder hb(op);
    FailureOr<SmallVector<Value>> registered = addLoopSizesAndOperands(hb, op);
    if (failed(registered))
      return failure();
    SmallVector<Value> hostSizes = *registered;
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
        auto vt = VectorType::get({int64_t(width)},
                                  lanes[i].front().getType());
        Value vec = vector::FromElementsOp::create(lb, loc, vt, lanes[i]);
        vector::StoreOp::create(lb, loc, vec, flat[init.get()],
                                ValueRange{base}, /*nontemporal=*/false,
                                llvm::MaybeAlign(align));
      }
    }
    // Several chunks per thread and iteration, for loads in flight.
    if (succeeded(loopUnrollByFactor(vloop, 4)))
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
    lastLaunch->setAttr("tgc.vector_align", hb.getI64IntegerAttr(align));
    return success();
  }

  //--- Thread-per-element kernels -----------------------------------------

  /// One thread per point of the parallel loops (grid-stride); reduction
  /// loops run inside the thread with the outputs in registers.
  LogicalResult emitElementKernel(linalg::GenericOp op) {
    Location loc = op.getLoc();
    OpBuilder hb(op);
    FailureOr<SmallVector<Value>> registered = addLoopSizesAndOperands(hb, op);
    if (failed(registered))
      return failure();
    SmallVector<Value> hostSizes = *registered;
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
    finishKernel(kb, hb, loc,
                 gridSize(hb, loc, product(hb, loc, hostParSizes), blockSize,
                          maxBlocks),
                 blockSize);
    return success();
  }

  /// The reduction loops `red[level:]` around `op`'s body; `accs` are the
  /// carried outputs (`carried`), the rest are stored per iteration.
  SmallVector<Value> emitReductionLoops(OpBuilder &b, linalg::GenericOp op,
                                        SmallVector<Value> ivs,
                                        ArrayRef<unsigned> red,
                                        ArrayRef<Value> sizes, size_t level,
                                        ValueRange accs,
                                        ArrayRef<bool> carried) {
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
    SmallVector<Value> inner =
        emitReductionLoops(lb, op, ivs, red, sizes, level + 1,
                           loop.getRegionIterArgs(), carried);
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

  //--- Tree reductions ----------------------------------------------------

  /// A reduction that runs as a two-stage tree: the first kernel's workers
  /// each combine a chunk of one output's reduction into a partial result,
  /// the second combines each output's partials with the output's initial
  /// value. When every output has one chunk, the first kernel finishes the
  /// outputs itself and the second is not launched (its grid is 0).
  struct Tree {
    linalg::GenericOp op;
    Combiner combiner;
    SmallVector<unsigned> par, red;
    /// The output's indexing map over the parallel loops alone (dim i is
    /// par[i]).
    AffineMap outMap;
    /// Threads along the outputs, each reading a chunk of its output's
    /// column (the inputs' innermost index is a parallel loop); otherwise
    /// a warp per output and chunk, its lanes along the reduction.
    bool columns = false;
    /// The fill of the output before the reduction: the final stage uses
    /// its value instead of reading the output, and it is not launched.
    linalg::GenericOp fill;
    /// Elementwise ops after the reduction run in the final stage at each
    /// output point, reading what the tree wrote there from registers.
    SmallVector<linalg::GenericOp> epilogues;
  };

  std::optional<Tree> matchTree(linalg::GenericOp op) {
    if (op.getNumReductionLoops() == 0 || op.getNumDpsInits() != 1)
      return std::nullopt;
    std::optional<Combiner> combiner = matchCombiner(op);
    OpOperand *init = op.getDpsInitOperand(0);
    if (!combiner || !isa<MemRefType>(init->get().getType()) ||
        !op.getMatchingBlockArgument(init).hasOneUse())
      return std::nullopt;
    Tree t;
    t.op = op;
    t.combiner = *combiner;
    for (auto [i, it] : llvm::enumerate(op.getIteratorTypesArray()))
      (it == utils::IteratorType::parallel ? t.par : t.red)
          .push_back(static_cast<unsigned>(i));
    // The output: each parallel loop indexes it once (other indices are
    // constant 0s), so each output point has one worker.
    AffineMap map = op.getMatchingIndexingMap(init);
    if (llvm::any_of(t.red, [&](unsigned d) { return map.isFunctionOfDim(d); }))
      return std::nullopt;
    MLIRContext *ctx = op.getContext();
    SmallVector<AffineExpr> replacement(op.getNumLoops(),
                                        getAffineConstantExpr(0, ctx));
    for (auto [i, d] : llvm::enumerate(t.par))
      replacement[d] = getAffineDimExpr(i, ctx);
    t.outMap = map.replaceDimsAndSymbols(replacement, {}, t.par.size(), 0);
    SmallVector<bool> indexed(t.par.size(), false);
    for (AffineExpr e : t.outMap.getResults()) {
      if (auto d = dyn_cast<AffineDimExpr>(e)) {
        if (indexed[d.getPosition()])
          return std::nullopt;
        indexed[d.getPosition()] = true;
      } else if (auto c = dyn_cast<AffineConstantExpr>(e);
                 !c || c.getValue() != 0) {
        return std::nullopt;
      }
    }
    if (llvm::is_contained(indexed, false))
      return std::nullopt;
    // Inputs indexed by the loops themselves (windows, as convolutions and
    // pooling read, keep a thread per output); the innermost index of the
    // input of the highest rank says which way the threads go.
    unsigned rank = 0;
    std::optional<unsigned> innermost;
    for (OpOperand *in : op.getDpsInputOperands()) {
      Value v = in->get();
      if (v == init->get())
        return std::nullopt;
      if (!isa<MemRefType>(v.getType()) || splatGlobal(v))
        continue;
      AffineMap m = op.getMatchingIndexingMap(in);
      if (!m.isProjectedPermutation(/*allowZeroInResults=*/true))
        return std::nullopt;
      if (m.getNumResults() == 0 || m.getNumResults() < rank)
        continue;
      if (auto last = dyn_cast<AffineDimExpr>(m.getResults().back())) {
        rank = m.getNumResults();
        innermost = last.getPosition();
      }
    }
    if (!innermost)
      return std::nullopt;
    t.columns = llvm::is_contained(t.par, *innermost);
    // A short static reduction along the lanes would leave most of a warp
    // idle: a thread per output reads it better.
    if (!t.columns) {
      SmallVector<int64_t> ranges = op.getStaticLoopRanges();
      int64_t k = 1;
      for (unsigned d : t.red)
        k = ShapedType::isDynamic(ranges[d]) || ShapedType::isDynamic(k)
                ? ShapedType::kDynamic
                : k * ranges[d];
      if (!ShapedType::isDynamic(k) && k <= kWarpSize)
        return std::nullopt;
    }
    return t;
  }

  /// Whether the tree of `op` writes every element `fill` fills (indices
  /// of the output that no loop reaches have extent 1).
  bool fillCovered(linalg::GenericOp fill, linalg::GenericOp op) {
    Value out = op.getDpsInitOperand(0)->get();
    if (fill.getDpsInitOperand(0)->get() != out)
      return false;
    auto type = cast<MemRefType>(out.getType());
    AffineMap map = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
    for (auto [i, e] : llvm::enumerate(map.getResults()))
      if (isa<AffineConstantExpr>(e) && type.getDimSize(i) != 1)
        return false;
    return true;
  }

  /// Whether `a` and `b` may be the same memory: the same buffer, or views
  /// of one buffer, unless both are arena views of static extent that do
  /// not overlap. (Arena slots are reused: a view written after a
  /// reduction may hold the bytes of an input whose life ended there.)
  static bool mayShareMemory(Value a, Value b) {
    auto va = a.getDefiningOp<memref::ViewOp>();
    auto vb = b.getDefiningOp<memref::ViewOp>();
    if (va && vb && va.getSource() == vb.getSource()) {
      std::optional<int64_t> sa = getConstantIntValue(va.getByteShift());
      std::optional<int64_t> sb = getConstantIntValue(vb.getByteShift());
      MemRefType ta = va.getType(), tb = vb.getType();
      if (!sa || !sb || !ta.hasStaticShape() || !tb.hasStaticShape())
        return true;
      int64_t ea = *sa + ta.getNumElements() * ta.getElementTypeBitWidth() / 8;
      int64_t eb = *sb + tb.getNumElements() * tb.getElementTypeBitWidth() / 8;
      return *sa < eb && *sb < ea;
    }
    auto base = [](Value v) {
      while (auto view = v.getDefiningOp<ViewLikeOpInterface>())
        v = view.getViewSource();
      return v;
    };
    return base(a) == base(b);
  }

  /// Whether the buffer `u` (the arena view it is, or is a view of) is used
  /// at or after `at`, an op of the function's block: the arena planner
  /// then gave a buffer allocated at `at` other bytes (a slot is reused
  /// only after its last buffer's last use).
  bool usedFrom(Value u, Operation *at) {
    Block &block = func.getBody().front();
    if (!at || at->getBlock() != &block)
      return false;
    while (!u.getDefiningOp<memref::ViewOp>())
      if (auto view = u.getDefiningOp<ViewLikeOpInterface>())
        u = view.getViewSource();
      else
        return false;
    SmallVector<Value> worklist{u};
    while (!worklist.empty()) {
      Value v = worklist.pop_back_val();
      for (Operation *user : v.getUsers()) {
        Operation *top = block.findAncestorOpInBlock(*user);
        if (top && !top->isBeforeInBlock(at))
          return true;
        if (isa<ViewLikeOpInterface>(user))
          llvm::append_range(worklist, user->getResults());
      }
    }
    return false;
  }

  /// The ops at the front of `rest` that run in `t`'s final stage: all
  /// parallel over the tree's outputs, reading what the tree (or an
  /// earlier one of them) wrote only at the point being finished, and
  /// writing at that point buffers that nothing else in the tree touches.
  SmallVector<linalg::GenericOp> treeEpilogues(Tree &t,
                                               ArrayRef<linalg::GenericOp> rest) {
    SmallVector<linalg::GenericOp> fused;
    Value out = t.op.getDpsInitOperand(0)->get();
    DenseSet<Value> held{out};
    SmallVector<Value> touched{out};
    for (OpOperand *in : t.op.getDpsInputOperands())
      touched.push_back(in->get());
    SmallVector<Extent> treeExtents = getLoopExtents(t.op, &sizeClasses),
                        outExtents;
    for (unsigned d : t.par)
      outExtents.push_back(treeExtents[d]);
    for (linalg::GenericOp e : rest) {
      // An epilogue runs at the tree's output points: over the same
      // extents (an op over more points, a broadcast the consumer reads,
      // would be computed at the first ones only).
      if (!isAllParallel(e) || e.getNumLoops() != t.par.size() ||
          getLoopExtents(e, &sizeClasses) != outExtents)
        break;
      bool ok = true;
      for (OpOperand &operand : e->getOpOperands()) {
        Value v = operand.get();
        AffineMap m = e.getMatchingIndexingMap(&operand);
        if (held.contains(v)) {
          ok &= m == t.outMap;
          continue;
        }
        if (!e.isDpsInit(&operand))
          continue;
        ok &= m == t.outMap && isa<MemRefType>(v.getType()) &&
              llvm::none_of(touched, [&](Value u) {
                return isa<MemRefType>(u.getType()) && mayShareMemory(u, v) &&
                       !usedFrom(u, v.getDefiningOp());
              });
      }
      if (!ok)
        break;
      fused.push_back(e);
      for (OpOperand &operand : e->getOpOperands())
        touched.push_back(operand.get());
      for (Value v : e.getDpsInits())
        held.insert(v);
    }
    return fused;
  }

  /// A view of kTreePartials elements of `type` in a scratch region after
  /// the arena's planned buffers (the arena grows by kTreePartials * 8
  /// bytes, or is created). Every tree of the function uses the same
  /// region: kernels run one after another on the stream.
  Value partialsBuffer(Type type) {
    if (Value v = partialViews.lookup(type))
      return v;
    Location loc = func.getLoc();
    if (!scratchArena) {
      memref::AllocOp arena;
      func.walk([&](memref::AllocOp a) {
        if (!a->use_empty() &&
            llvm::all_of(a->getUsers(),
                         [](Operation *u) { return isa<memref::ViewOp>(u); }))
          arena = a;
      });
      constexpr int64_t extra = kTreePartials * 8;
      Type i8 = IntegerType::get(func.getContext(), 8);
      auto alignment =
          IntegerAttr::get(IntegerType::get(func.getContext(), 64), 64);
      if (!arena) {
        OpBuilder b = OpBuilder::atBlockBegin(&func.getBody().front());
        scratchAt = arith::ConstantIndexOp::create(b, loc, 0);
        scratchArena = memref::AllocOp::create(
            b, loc, MemRefType::get({extra}, i8), alignment);
      } else {
        OpBuilder b(arena);
        MemRefType type = arena.getType();
        if (type.hasStaticShape()) {
          int64_t old = llvm::alignTo(type.getNumElements(), 64);
          scratchAt = arith::ConstantIndexOp::create(b, loc, old);
          scratchArena = memref::AllocOp::create(
              b, loc, MemRefType::get({old + extra}, i8), alignment);
        } else {
          // The planner's size is a multiple of 64 (a product by 64).
          scratchAt = arena.getDynamicSizes()[0];
          auto mul = scratchAt.getDefiningOp<arith::MulIOp>();
          if (!mul || getConstantIntValue(mul.getRhs()) != 64) {
            Value c64 = arith::ConstantIndexOp::create(b, loc, 64);
            scratchAt = arith::MulIOp::create(
                b, loc, arith::CeilDivSIOp::create(b, loc, scratchAt, c64),
                c64);
          }
          Value total = arith::AddIOp::create(
              b, loc, scratchAt, arith::ConstantIndexOp::create(b, loc, extra));
          scratchArena = memref::AllocOp::create(b, loc, type,
                                                 ValueRange{total}, alignment);
        }
        for (OpOperand &use : llvm::make_early_inc_range(arena->getUses()))
          use.set(scratchArena);
        arena.erase();
      }
    }
    OpBuilder b(scratchArena->getBlock(),
                std::next(Block::iterator(scratchArena)));
    Value view = memref::ViewOp::create(
        b, loc, MemRefType::get({kTreePartials}, type), scratchArena,
        scratchAt, ValueRange{});
    partialViews[type] = view;
    return view;
  }

  /// The partials per output (host values): enough workers for the
  /// device's bandwidth, at most kTreePartials in all, and chunks of at
  /// least kTreeUnroll elements per thread.
  Value treeSplit(OpBuilder &b, Location loc, Tree &t, Value outputs,
                  Value length) {
    auto c = [&](int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); };
    Value p = arith::MaxSIOp::create(b, loc, outputs, c(1));
    int64_t workers = t.columns ? kTreeWorkers : kTreeWorkers / kWarpSize;
    Value s = arith::CeilDivSIOp::create(b, loc, c(workers), p);
    s = arith::MinSIOp::create(b, loc, s,
                               arith::DivSIOp::create(b, loc, c(kTreePartials), p));
    int64_t chunk = t.columns ? kTreeUnroll : kWarpSize * kTreeUnroll;
    s = arith::MinSIOp::create(b, loc, s,
                               arith::CeilDivSIOp::create(b, loc, length, c(chunk)));
    if (t.columns)
      s = arith::MinSIOp::create(b, loc, s, c(kTreeColumnSplit));
    return arith::MaxSIOp::create(b, loc, s, c(1));
  }

  /// `acc` folded by `step(builder, position, acc)` over positions first,
  /// first + stride, ... below `end`: kTreeUnroll positions per iteration
  /// of a main loop (their loads are independent of each other), then the
  /// rest one at a time.
  Value accumulate(OpBuilder &b, Location loc, Value first, Value end,
                   int64_t stride, Value acc,
                   function_ref<Value(OpBuilder &, Value, Value)> step) {
    auto c = [&](int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); };
    Value span = arith::MaxSIOp::create(
        b, loc, arith::SubIOp::create(b, loc, end, first), c(0));
    Value count = arith::CeilDivSIOp::create(b, loc, span, c(stride));
    Value mainEnd = arith::AddIOp::create(
        b, loc, first,
        arith::MulIOp::create(
            b, loc, arith::DivSIOp::create(b, loc, count, c(kTreeUnroll)),
            c(stride * kTreeUnroll)));
    auto main = scf::ForOp::create(b, loc, first, mainEnd,
                                   c(stride * kTreeUnroll), ValueRange{acc});
    {
      OpBuilder lb = OpBuilder::atBlockBegin(main.getBody());
      Value a = main.getRegionIterArgs()[0];
      for (int64_t u = 0; u < kTreeUnroll; ++u) {
        Value at = main.getInductionVar();
        if (u)
          at = arith::AddIOp::create(
              lb, loc, at, arith::ConstantIndexOp::create(lb, loc, u * stride));
        a = step(lb, at, a);
      }
      scf::YieldOp::create(lb, loc, a);
    }
    auto rest = scf::ForOp::create(b, loc, mainEnd, end, c(stride),
                                   main.getResults());
    {
      OpBuilder lb = OpBuilder::atBlockBegin(rest.getBody());
      scf::YieldOp::create(
          lb, loc,
          step(lb, rest.getInductionVar(), rest.getRegionIterArgs()[0]));
    }
    return rest.getResult(0);
  }

  /// Finishes output point `pivs` with the combined `total`: stores
  /// combine(initial value, total), then runs the epilogues there.
  void finishTree(OpBuilder &b, Tree &t, ValueRange pivs, Value total) {
    Location loc = t.op.getLoc();
    Value zero = arith::ConstantIndexOp::create(b, loc, 0);
    SmallVector<Value> ivs(t.op.getNumLoops(), zero);
    for (auto [d, iv] : llvm::zip(t.par, pivs))
      ivs[d] = iv;
    OpOperand *init = t.op.getDpsInitOperand(0);
    Value out = kval(b, init->get());
    SmallVector<Value> idx =
        applyMap(b, loc, t.op.getMatchingIndexingMap(init), ivs);
    Value initial =
        t.fill ? emitBody(b, t.fill,
                          SmallVector<Value>(t.fill.getNumLoops(), zero))[0]
               : memref::LoadOp::create(b, loc, out, idx).getResult();
    Value value = combine(b, t.combiner.op, initial, total);
    memref::StoreOp::create(b, loc, value, out, idx);
    DenseMap<Value, Value> held{{init->get(), value}};
    for (linalg::GenericOp e : t.epilogues) {
      SmallVector<Value> given(e->getNumOperands());
      for (OpOperand &operand : e->getOpOperands())
        given[operand.getOperandNumber()] = held.lookup(operand.get());
      SmallVector<Value> values = emitBody(b, e, pivs, {}, given);
      storeOutputs(b, e, pivs, values);
      for (auto [v, result] : llvm::zip(e.getDpsInits(), values))
        held[v] = result;
    }
  }

  LogicalResult emitTree(Tree &t) {
    linalg::GenericOp op = t.op;
    Location loc = op.getLoc();
    // Host code goes before the last op: the epilogues' outputs are
    // allocated in between.
    OpBuilder hb(t.epilogues.empty() ? op.getOperation()
                                     : t.epilogues.back().getOperation());
    SmallVector<Value> hostSizes = hostLoopSizes(hb, op);
    SmallVector<Value> hostPar, hostRed;
    for (unsigned d : t.par)
      hostPar.push_back(hostSizes[d]);
    for (unsigned d : t.red)
      hostRed.push_back(hostSizes[d]);
    Value hostP = product(hb, loc, hostPar);
    Value hostSplit =
        treeSplit(hb, loc, t, hostP, product(hb, loc, hostRed));
    Type accType = t.combiner.op->getResult(0).getType();
    Value partials = partialsBuffer(accType);
    auto c = [&](OpBuilder &b, int64_t v) {
      return arith::ConstantIndexOp::create(b, loc, v);
    };
    // Both kernels read the same operands.
    auto addAll = [&]() -> LogicalResult {
      for (Value s : hostSizes)
        if (failed(addOperand(s, op)))
          return failure();
      if (failed(addOperand(hostSplit, op)) || failed(addOperands(op)) ||
          failed(addOperand(partials, op)) ||
          (t.fill && failed(addOperands(t.fill))))
        return failure();
      for (linalg::GenericOp e : t.epilogues)
        if (failed(addOperands(e)))
          return failure();
      return success();
    };
    struct Setup {
      SmallVector<Value> parSizes, redSizes;
      Value outputs, length, split, partials, bid, tid;
    };
    auto setup = [&](OpBuilder &kb) {
      Setup s;
      for (unsigned d : t.par)
        s.parSizes.push_back(kval(kb, hostSizes[d]));
      for (unsigned d : t.red)
        s.redSizes.push_back(kval(kb, hostSizes[d]));
      s.outputs = product(kb, loc, s.parSizes);
      s.length = product(kb, loc, s.redSizes);
      s.split = kval(kb, hostSplit);
      s.partials = kval(kb, partials);
      s.bid = gpu::BlockIdOp::create(kb, loc, gpu::Dimension::x);
      s.tid = gpu::ThreadIdOp::create(kb, loc, gpu::Dimension::x);
      return s;
    };
    auto neutralValue = [&](OpBuilder &b) {
      return arith::ConstantOp::create(b, loc, t.combiner.neutral);
    };
    // Inputs whose indices by the reduction loops are one run of
    // consecutive dims, in the loops' order, over a dense buffer: read
    // through a view with that run collapsed into one dim, indexed by the
    // linear reduction position, so that no position is divided back into
    // the loops' indices (64-bit divisions would dominate the kernel).
    bool usesRedIndex = false;
    op.getBody()->walk([&](linalg::IndexOp index) {
      usesRedIndex |= llvm::is_contained(t.red, index.getDim());
    });
    SmallVector<std::optional<unsigned>> runAt(op.getNumDpsInputs());
    bool collapseAll = !usesRedIndex;
    for (OpOperand *in : op.getDpsInputOperands()) {
      auto type = dyn_cast<MemRefType>(in->get().getType());
      if (!type || splatGlobal(in->get()))
        continue;
      AffineMap m = op.getMatchingIndexingMap(in);
      ArrayRef<AffineExpr> results = m.getResults();
      std::optional<unsigned> at;
      for (unsigned r = 0; r + t.red.size() <= results.size() && !at; ++r)
        if (areDims(results.slice(r, t.red.size()), t.red))
          at = r;
      bool others = at && llvm::all_of(llvm::enumerate(results), [&](auto e) {
        return (e.index() >= *at && e.index() < *at + t.red.size()) ||
               llvm::none_of(t.red, [&](unsigned d) {
                 return e.value().isFunctionOfDim(d);
               });
      });
      if (!at || !others || !type.getLayout().isIdentity())
        collapseAll = false;
      else
        runAt[in->getOperandNumber()] = at;
    }
    // Warps read 16-byte vectors when every input is collapsed with its
    // run innermost (contiguous along the reduction) and all have one
    // element width; at run time only if the reduction length is a
    // multiple of the vector (so rows start aligned), behind the launch
    // plan's alignment guard, as flat kernels.
    int64_t treeVec = 0;
    if (vectorize && !t.columns && collapseAll) {
      for (OpOperand *in : op.getDpsInputOperands()) {
        unsigned n = in->getOperandNumber();
        if (!runAt[n])
          continue;
        auto type = cast<MemRefType>(in->get().getType());
        unsigned bits = type.getElementTypeBitWidth();
        int64_t width = (bits == 16 || bits == 32 || bits == 64)
                            ? 128 / bits
                            : 0;
        if (!type.getElementType().isIntOrFloat() || !width ||
            *runAt[n] + t.red.size() != static_cast<size_t>(type.getRank()) ||
            (treeVec && treeVec != width)) {
          treeVec = 0;
          break;
        }
        treeVec = width;
      }
    }
    // The partial of output `pivs` over reduction positions first, first +
    // stride, ... below end.
    // With `vec` > 1, positions are chunks of `vec` elements, each input
    // read with one vector load per chunk.
    auto reduceChunk = [&](OpBuilder &b, const Setup &s, ValueRange pivs,
                           Value first, Value end, int64_t stride,
                           int64_t vec = 1) {
      Value zero = arith::ConstantIndexOp::create(b, loc, 0);
      SmallVector<Value> ivs(op.getNumLoops(), zero);
      for (auto [d, iv] : llvm::zip(t.par, pivs))
        ivs[d] = iv;
      // The collapsed views, and the indices other than the run.
      SmallVector<Value> views(op.getNumDpsInputs());
      SmallVector<SmallVector<Value>> indices(op.getNumDpsInputs());
      if (collapseAll) {
        for (OpOperand *in : op.getDpsInputOperands()) {
          unsigned n = in->getOperandNumber();
          if (!runAt[n])
            continue;
          unsigned at = *runAt[n], run = t.red.size();
          auto type = cast<MemRefType>(in->get().getType());
          SmallVector<ReassociationIndices> groups;
          for (unsigned r = 0; r < type.getRank(); ++r)
            if (r < at || r >= at + run)
              groups.push_back({static_cast<int64_t>(r)});
            else if (r == at)
              groups.push_back(llvm::to_vector(llvm::seq<int64_t>(at, at + run)));
          views[n] = run == 1 ? kval(b, in->get())
                              : memref::CollapseShapeOp::create(
                                    b, loc, kval(b, in->get()), groups)
                                    .getResult();
          indices[n] = applyMap(b, loc, op.getMatchingIndexingMap(in), ivs);
          indices[n].erase(indices[n].begin() + at,
                           indices[n].begin() + at + run);
        }
      }
      return accumulate(
          b, loc, first, end, stride, neutralValue(b),
          [&](OpBuilder &lb, Value k, Value acc) {
            SmallVector<Value> at(ivs);
            SmallVector<Value> given(op->getNumOperands());
            // Input n's element (or chunk of `vec`) at linear position
            // `first` of the collapsed run.
            auto load = [&](size_t n, Value first) -> Value {
              SmallVector<Value> idx(indices[n]);
              idx.insert(idx.begin() + *runAt[n], first);
              if (vec == 1)
                return memref::LoadOp::create(lb, loc, views[n], idx);
              auto type = VectorType::get(
                  {vec},
                  cast<MemRefType>(views[n].getType()).getElementType());
              return vector::LoadOp::create(lb, loc, type, views[n], idx,
                                            /*nontemporal=*/false,
                                            llvm::MaybeAlign(16));
            };
            if (vec > 1) {
              Value k0 = arith::MulIOp::create(
                  lb, loc, k, arith::ConstantIndexOp::create(lb, loc, vec));
              SmallVector<Value> chunks(views.size());
              for (auto [n, view] : llvm::enumerate(views))
                if (view)
                  chunks[n] = load(n, k0);
              for (int64_t e = 0; e < vec; ++e) {
                for (auto [n, chunk] : llvm::enumerate(chunks))
                  if (chunk)
                    given[n] = vector::ExtractOp::create(lb, loc, chunk, e);
                acc = emitBody(lb, op, at, ValueRange{acc}, given)[0];
              }
              return acc;
            }
            if (collapseAll) {
              for (auto [n, view] : llvm::enumerate(views))
                if (view)
                  given[n] = load(n, k);
            } else {
              for (auto [d, iv] :
                   llvm::zip(t.red, delinearize(lb, loc, k, s.redSizes)))
                at[d] = iv;
            }
            return emitBody(lb, op, at, ValueRange{acc}, given)[0];
          });
    };

    // Stage 1: partials[w] for worker w = (output, chunk).
    if (failed(addAll()))
      return failure();
    {
      OpBuilder kb = startKernel(loc, "tree");
      Setup s = setup(kb);
      Value workers = arith::MulIOp::create(kb, loc, s.outputs, s.split);
      Value direct = arith::CmpIOp::create(kb, loc, arith::CmpIPredicate::eq,
                                           s.split, c(kb, 1));
      Value w, lane;
      if (t.columns) {
        w = arith::AddIOp::create(
            kb, loc, arith::MulIOp::create(kb, loc, s.bid, c(kb, blockSize)),
            s.tid);
      } else {
        w = arith::AddIOp::create(
            kb, loc,
            arith::MulIOp::create(kb, loc, s.bid,
                                  c(kb, blockSize / kWarpSize)),
            arith::DivUIOp::create(kb, loc, s.tid, c(kb, kWarpSize)));
        lane = arith::RemUIOp::create(kb, loc, s.tid, c(kb, kWarpSize));
      }
      Value inRange = arith::CmpIOp::create(kb, loc, arith::CmpIPredicate::ult,
                                            w, workers);
      auto guard = scf::IfOp::create(kb, loc, inRange, /*withElse=*/false);
      OpBuilder b = guard.getThenBodyBuilder();
      // Columns: consecutive threads take consecutive outputs (coalesced
      // reads of a row); warps: consecutive warps take one output's
      // consecutive chunks.
      Value p = t.columns
                    ? arith::RemUIOp::create(b, loc, w, s.outputs).getResult()
                    : arith::DivUIOp::create(b, loc, w, s.split).getResult();
      Value chunk =
          t.columns
              ? arith::DivUIOp::create(b, loc, w, s.outputs).getResult()
              : arith::RemUIOp::create(b, loc, w, s.split).getResult();
      Value per = arith::CeilDivSIOp::create(b, loc, s.length, s.split);
      if (!t.columns) {
        // Chunks of whole warp-wide unrolled steps (of vectors).
        Value step = c(b, kWarpSize * kTreeUnroll * std::max<int64_t>(treeVec, 1));
        per = arith::MulIOp::create(
            b, loc, arith::CeilDivSIOp::create(b, loc, per, step), step);
      }
      Value begin = arith::MinSIOp::create(
          b, loc, arith::MulIOp::create(b, loc, chunk, per), s.length);
      Value end = arith::MinSIOp::create(
          b, loc, arith::AddIOp::create(b, loc, begin, per), s.length);
      SmallVector<Value> pivs = delinearize(b, loc, p, s.parSizes);
      Value partial;
      if (t.columns) {
        partial = reduceChunk(b, s, pivs, begin, end, 1);
      } else {
        auto scalar = [&](OpBuilder &sb) {
          return reduceChunk(sb, s, pivs,
                             arith::AddIOp::create(sb, loc, begin, lane), end,
                             kWarpSize);
        };
        if (treeVec) {
          // Chunks begin at multiples of the vector; so does the end when
          // the length is one.
          Value aligned = arith::CmpIOp::create(
              b, loc, arith::CmpIPredicate::eq,
              arith::RemUIOp::create(b, loc, s.length, c(b, treeVec)),
              c(b, 0));
          auto branch = scf::IfOp::create(b, loc, TypeRange{accType}, aligned,
                                          /*withElse=*/true);
          OpBuilder vb = branch.getThenBodyBuilder();
          Value vecs = c(vb, treeVec);
          scf::YieldOp::create(
              vb, loc,
              reduceChunk(vb, s, pivs,
                          arith::AddIOp::create(
                              vb, loc,
                              arith::DivUIOp::create(vb, loc, begin, vecs),
                              lane),
                          arith::DivUIOp::create(vb, loc, end, vecs),
                          kWarpSize, treeVec));
          OpBuilder eb = branch.getElseBodyBuilder();
          scf::YieldOp::create(eb, loc, scalar(eb));
          partial = branch.getResult(0);
        } else {
          partial = scalar(b);
        }
        partial = warpReduce(b, loc, t.combiner.op, partial);
      }
      Value writer = t.columns
                         ? Value(arith::ConstantIntOp::create(b, loc, 1, 1))
                         : Value(arith::CmpIOp::create(
                               b, loc, arith::CmpIPredicate::eq, lane,
                               c(b, 0)));
      auto write = scf::IfOp::create(b, loc, writer, /*withElse=*/false);
      OpBuilder wb = write.getThenBodyBuilder();
      auto mode = scf::IfOp::create(wb, loc, direct, /*withElse=*/true);
      OpBuilder db = mode.getThenBodyBuilder();
      finishTree(db, t, pivs, partial);
      OpBuilder pb = mode.getElseBodyBuilder();
      memref::StoreOp::create(pb, loc, partial, s.partials, ValueRange{w});
      Value threads = arith::MulIOp::create(hb, loc, hostP, hostSplit);
      if (!t.columns)
        threads = arith::MulIOp::create(hb, loc, threads, c(hb, kWarpSize));
      finishKernel(kb, hb, loc,
                   arith::CeilDivSIOp::create(hb, loc, threads,
                                              c(hb, blockSize)),
                   blockSize);
      if (treeVec)
        lastLaunch->setAttr("tgc.vector_align", hb.getI64IntegerAttr(16));
    }

    // Stage 2: each output's partials combined (not launched when every
    // output had one chunk), by blocks of kTreeFinalThreads: each thread
    // combines every 32nd partial (a few loads in flight at once, instead
    // of a long chain in one thread).
    if (failed(addAll()))
      return failure();
    {
      int64_t saved = blockSize;
      blockSize = kTreeFinalThreads;
      OpBuilder kb = startKernel(loc, "tree_final");
      auto space = gpu::AddressSpaceAttr::get(
          kb.getContext(), gpu::GPUDialect::getWorkgroupAddressSpace());
      int64_t warps = kTreeFinalThreads / kWarpSize;
      Value scratch = kernel.addWorkgroupAttribution(
          MemRefType::get({t.columns ? kTreeFinalThreads : warps}, accType,
                          MemRefLayoutAttrInterface(), space),
          loc);
      Setup s = setup(kb);
      auto loadPartial = [&](OpBuilder &lb, Value at, Value acc) {
        Value v = memref::LoadOp::create(lb, loc, s.partials, ValueRange{at});
        return combine(lb, t.combiner.op, acc, v);
      };
      if (t.columns) {
        // 32 consecutive outputs per block (partials at chunk * outputs +
        // output: coalesced), one per lane; warp w combines chunks w,
        // w + 32, ...; then warp 0 combines the warps' results.
        Value lane = arith::RemUIOp::create(kb, loc, s.tid, c(kb, kWarpSize));
        Value warp = arith::DivUIOp::create(kb, loc, s.tid, c(kb, kWarpSize));
        Value p = arith::AddIOp::create(
            kb, loc, arith::MulIOp::create(kb, loc, s.bid, c(kb, kWarpSize)),
            lane);
        Value inRange = arith::CmpIOp::create(
            kb, loc, arith::CmpIPredicate::ult, p, s.outputs);
        auto part = scf::IfOp::create(kb, loc, TypeRange{accType}, inRange,
                                      /*withElse=*/true);
        {
          OpBuilder b = part.getThenBodyBuilder();
          Value partial = accumulate(
              b, loc, warp, s.split, warps, neutralValue(b),
              [&](OpBuilder &lb, Value chunk, Value acc) {
                return loadPartial(
                    lb,
                    arith::AddIOp::create(
                        lb, loc,
                        arith::MulIOp::create(lb, loc, chunk, s.outputs), p),
                    acc);
              });
          scf::YieldOp::create(b, loc, partial);
          OpBuilder eb = part.getElseBodyBuilder();
          scf::YieldOp::create(eb, loc, ValueRange{neutralValue(eb)});
        }
        memref::StoreOp::create(kb, loc, part.getResult(0), scratch,
                                ValueRange{s.tid});
        gpu::BarrierOp::create(kb, loc);
        Value first = arith::CmpIOp::create(
            kb, loc, arith::CmpIPredicate::eq, warp, c(kb, 0));
        Value finish = arith::AndIOp::create(kb, loc, first, inRange);
        auto write = scf::IfOp::create(kb, loc, finish, /*withElse=*/false);
        OpBuilder b = write.getThenBodyBuilder();
        Value total = accumulate(
            b, loc, lane, c(b, kTreeFinalThreads), kWarpSize, neutralValue(b),
            [&](OpBuilder &lb, Value at, Value acc) {
              Value v = memref::LoadOp::create(lb, loc, scratch, ValueRange{at});
              return combine(lb, t.combiner.op, acc, v);
            });
        finishTree(b, t, delinearize(b, loc, p, s.parSizes), total);
      } else {
        // A block per output (partials at output * split + chunk); the
        // grid is the outputs, so every block has one.
        Value p = s.bid;
        OpBuilder &b = kb;
        Value base = arith::MulIOp::create(b, loc, p, s.split);
        Value partial = accumulate(
            b, loc, s.tid, s.split, kTreeFinalThreads, neutralValue(b),
            [&](OpBuilder &lb, Value chunk, Value acc) {
              return loadPartial(
                  lb, arith::AddIOp::create(lb, loc, base, chunk), acc);
            });
        Value total =
            blockReduce(b, loc, t.combiner, partial, s.tid, scratch);
        Value first = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                            s.tid, c(b, 0));
        auto write = scf::IfOp::create(b, loc, first, /*withElse=*/false);
        OpBuilder wb = write.getThenBodyBuilder();
        finishTree(wb, t, delinearize(wb, loc, p, s.parSizes), total);
      }
      blockSize = saved;
      // Launched only when some output has several chunks: the grid is
      // multiplied by min(split - 1, 1).
      Value several = arith::MinSIOp::create(
          hb, loc, arith::SubIOp::create(hb, loc, hostSplit, c(hb, 1)),
          c(hb, 1));
      Value blocks = t.columns ? arith::CeilDivSIOp::create(
                                     hb, loc, hostP, c(hb, kWarpSize))
                                     .getResult()
                               : hostP;
      finishKernel(kb, hb, loc, arith::MulIOp::create(hb, loc, blocks, several),
                   kTreeFinalThreads);
    }
    return success();
  }

  //--- Row kernels --------------------------------------------------------

  Value combine(OpBuilder &b, Operation *combiner, Value x, Value y) {
    Operation *c = b.clone(*combiner);
    c->setOperands({x, y});
    return c->getResult(0);
  }

  /// A butterfly shuffle of `v` (32-bit lanes; narrower values travel
  /// widened, 64-bit ones split by the shuffle rewrite patterns).
  Value shuffleXor(OpBuilder &b, Location loc, Value v, int64_t offset) {
    Type type = v.getType();
    Value x = v;
    if (type.isIndex())
      x = arith::IndexCastOp::create(b, loc, b.getI64Type(), v);
    else if (auto f = dyn_cast<FloatType>(type); f && f.getWidth() < 32)
      x = arith::ExtFOp::create(b, loc, b.getF32Type(), v);
    else if (auto i = dyn_cast<IntegerType>(type); i && i.getWidth() < 32)
      x = arith::ExtSIOp::create(b, loc, b.getI32Type(), v);
    Value off = arith::ConstantIntOp::create(b, loc, offset, 32);
    Value width = arith::ConstantIntOp::create(b, loc, kWarpSize, 32);
    Value s = gpu::ShuffleOp::create(b, loc, x, off, width,
                                     gpu::ShuffleMode::XOR)
                  .getShuffleResult();
    if (type.isIndex())
      return arith::IndexCastOp::create(b, loc, type, s);
    if (auto f = dyn_cast<FloatType>(type); f && f.getWidth() < 32)
      return arith::TruncFOp::create(b, loc, type, s);
    if (auto i = dyn_cast<IntegerType>(type); i && i.getWidth() < 32)
      return arith::TruncIOp::create(b, loc, type, s);
    return s;
  }

  Value warpReduce(OpBuilder &b, Location loc, Operation *combiner, Value v) {
    for (int64_t off = kWarpSize / 2; off > 0; off /= 2)
      v = combine(b, combiner, v, shuffleXor(b, loc, v, off));
    return v;
  }

  /// Every thread's partial `v` combined over the block; every thread gets
  /// the total. `scratch` holds one value per warp.
  Value blockReduce(OpBuilder &b, Location loc, const Combiner &c, Value v,
                    Value tid, Value scratch) {
    v = warpReduce(b, loc, c.op, v);
    int64_t warps = blockSize / kWarpSize;
    if (warps == 1)
      return v;
    Value warpSize = arith::ConstantIndexOp::create(b, loc, kWarpSize);
    Value lane = arith::RemUIOp::create(b, loc, tid, warpSize);
    Value warp = arith::DivUIOp::create(b, loc, tid, warpSize);
    Value zero = arith::ConstantIndexOp::create(b, loc, 0);
    Value isLeader = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                           lane, zero);
    auto store = scf::IfOp::create(b, loc, isLeader, /*withElse=*/false);
    {
      OpBuilder sb = store.getThenBodyBuilder();
      memref::StoreOp::create(sb, loc, v, scratch, ValueRange{warp});
    }
    gpu::BarrierOp::create(b, loc);
    Value numWarps = arith::ConstantIndexOp::create(b, loc, warps);
    Value valid = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                        lane, numWarps);
    Value last = arith::ConstantIndexOp::create(b, loc, warps - 1);
    Value slot = arith::MinUIOp::create(b, loc, lane, last);
    Value partial = memref::LoadOp::create(b, loc, scratch, ValueRange{slot});
    Value neutral = arith::ConstantOp::create(b, loc, c.neutral);
    Value w = arith::SelectOp::create(b, loc, valid, partial, neutral);
    return warpReduce(b, loc, c.op, w);
  }

  /// One block per row (the points of the first R loops); threads stride
  /// over the row loop of each stage; stages are separated by barriers.
  LogicalResult emitRowKernel(ArrayRef<linalg::GenericOp> ops) {
    linalg::GenericOp first = ops.front();
    Location loc = first.getLoc();
    // Host code goes before the last stage: every operand (arena views
    // included) is defined by then, and only host ops lie in between.
    OpBuilder hb(ops.back());
    unsigned loops = 0;
    for (linalg::GenericOp op : ops)
      loops = std::max(loops, op.getNumLoops());
    unsigned rows = loops - 1;
    SmallVector<SmallVector<Value>> hostSizes;
    for (linalg::GenericOp op : ops) {
      FailureOr<SmallVector<Value>> registered =
          addLoopSizesAndOperands(hb, op);
      if (failed(registered))
        return failure();
      hostSizes.push_back(*registered);
    }
    // The row sizes: from the first op with the row loop.
    size_t rowSource = 0;
    for (size_t i = 0; i < ops.size(); ++i)
      if (linalg::GenericOp(ops[i]).getNumLoops() == loops) {
        rowSource = i;
        break;
      }
    SmallVector<Value> hostRowSizes(hostSizes[rowSource].begin(),
                                    hostSizes[rowSource].begin() + rows);

    // Rows of a static length up to kWarpRowLimit get a warp each (8 rows
    // per block of 256 threads, reductions within the warp only); longer
    // or dynamic rows a block each.
    std::optional<int64_t> rowLength =
        getConstantIntValue(hostSizes[rowSource].back());
    // Whether `operand` of `op` reaches its row contiguously: a dense
    // buffer (an integer or float element of 1 to 8 bytes) whose last
    // index is the row loop and whose other indices do not use it, and
    // whose rows start at multiples of `width` elements.
    auto rowContiguous = [&](linalg::GenericOp op, OpOperand &operand,
                             int64_t width) {
      auto type = dyn_cast<MemRefType>(operand.get().getType());
      if (!type || !type.getLayout().isIdentity() || splatGlobal(operand.get()))
        return false;
      Type element = type.getElementType();
      if (!element.isIntOrFloat() || element.getIntOrFloatBitWidth() < 8 ||
          element.getIntOrFloatBitWidth() % 8 != 0)
        return false;
      if (type.getRank() > 1 &&
          (type.isDynamicDim(type.getRank() - 1) ||
           type.getShape().back() % width != 0))
        return false;
      AffineMap map = op.getMatchingIndexingMap(&operand);
      if (map.getNumResults() == 0)
        return false;
      auto last = dyn_cast<AffineDimExpr>(map.getResults().back());
      if (!last || last.getPosition() != rows)
        return false;
      return llvm::none_of(map.getResults().drop_back(), [&](AffineExpr e) {
        return e.isFunctionOfDim(rows);
      });
    };
    // The widest element of a row-contiguous buffer, in bytes (0: none).
    unsigned widest = 0;
    for (linalg::GenericOp op : ops) {
      if (op.getNumLoops() != loops)
        continue;
      for (OpOperand &operand : op->getOpOperands())
        if (rowContiguous(op, operand, 1))
          widest = std::max(
              widest,
              cast<MemRefType>(operand.get().getType()).getElementTypeBitWidth() /
                  8);
    }
    bool warpPerRow =
        rowLength &&
        (*rowLength <= kWarpRowLimit ||
         (vectorize && rowRegisters && widest &&
          *rowLength * widest <= kWarpRowBytes &&
          *rowLength % (kWarpSize * (16 / widest)) == 0 &&
          *rowLength / kWarpSize <= kRegisterRowSlots));
    int64_t rowsPerBlock = warpPerRow ? blockSize / kWarpSize : 1;

    // Rows of one static length of at most kRegisterRowSlots elements per
    // thread ("slots"): each thread owns the same positions of the row in
    // every stage, and the row's elements of buffers the kernel only reads
    // are loaded once and kept in registers for every stage (softmax reads
    // its input once instead of three times).
    int64_t strideValue = warpPerRow ? kWarpSize : blockSize;
    std::optional<int64_t> slots;
    for (size_t i = 0; i < ops.size(); ++i) {
      if (linalg::GenericOp(ops[i]).getNumLoops() != loops)
        continue;
      std::optional<int64_t> len = getConstantIntValue(hostSizes[i].back());
      if (!len || (slots && *len != *rowLength)) {
        slots.reset();
        break;
      }
      slots = (*len + strideValue - 1) / strideValue;
    }
    if (slots && (!rowRegisters || *slots < 1 || *slots > kRegisterRowSlots))
      slots.reset();
    // With slots and a row length that is a multiple of the threads of a
    // row times `vecWidth` ("full rows"): no position is past the row end,
    // so loads need no bounds check, and each thread's positions are
    // chunks of `vecWidth` consecutive elements, read and written with one
    // vector access (16 bytes for the widest element) where the buffer is
    // row-contiguous. The launch then guards its argument buffers'
    // alignment, as flat kernels do.
    int64_t vecWidth = 1;
    bool fullRows = false;
    if (slots) {
      if (vectorize && widest)
        vecWidth = 16 / widest;
      while (vecWidth > 1 && *rowLength % (strideValue * vecWidth) != 0)
        vecWidth /= 2;
      fullRows = *rowLength % (strideValue * vecWidth) == 0;
    }

    OpBuilder kb = startKernel(loc, warpPerRow ? "warp_rows" : "rows");
    // One scratch slot per warp for each reduction (block rows): a
    // reduction's scratch is not reused, so no barrier is needed between
    // one block reduction's reads and the next one's writes.
    DenseMap<Operation *, Value> scratch;
    for (linalg::GenericOp op : ops) {
      if (warpPerRow || op.getNumLoops() != loops ||
          op.getIteratorTypesArray().back() != utils::IteratorType::reduction)
        continue;
      Type t = matchCombiner(op)->op->getResult(0).getType();
      auto space = gpu::AddressSpaceAttr::get(
          kb.getContext(), gpu::GPUDialect::getWorkgroupAddressSpace());
      auto type = MemRefType::get({std::max<int64_t>(blockSize / kWarpSize, 1)},
                                  t, MemRefLayoutAttrInterface(), space);
      scratch[op] = kernel.addWorkgroupAttribution(type, loc);
    }
    SmallVector<Value> rowSizes;
    for (Value s : hostRowSizes)
      rowSizes.push_back(kval(kb, s));
    Value numRows = product(kb, loc, rowSizes);
    Value bid = gpu::BlockIdOp::create(kb, loc, gpu::Dimension::x);
    Value tid = gpu::ThreadIdOp::create(kb, loc, gpu::Dimension::x);
    Value zero = arith::ConstantIndexOp::create(kb, loc, 0);
    // Full rows load without bounds checks from the clamped row below,
    // which exists unless there are no rows: then the block does nothing
    // (a uniform branch, so barriers inside it are reached by all).
    scf::IfOp nonEmpty;
    if (fullRows) {
      nonEmpty = scf::IfOp::create(
          kb, loc,
          arith::CmpIOp::create(kb, loc, arith::CmpIPredicate::ugt, numRows,
                                zero),
          /*withElse=*/false);
      kb.setInsertionPoint(nonEmpty.thenBlock()->getTerminator());
    }
    // The row, the thread's first element of it and the stride.
    Value row = bid, lane = tid;
    Value stride = arith::ConstantIndexOp::create(kb, loc, blockSize);
    if (warpPerRow) {
      Value warpSize = arith::ConstantIndexOp::create(kb, loc, kWarpSize);
      Value perBlock = arith::ConstantIndexOp::create(kb, loc, rowsPerBlock);
      row = arith::AddIOp::create(
          kb, loc, arith::MulIOp::create(kb, loc, bid, perBlock),
          arith::DivUIOp::create(kb, loc, tid, warpSize));
      lane = arith::RemUIOp::create(kb, loc, tid, warpSize);
      stride = warpSize;
    }
    // Rows past the end (the last block's spare warps) do no work but
    // reach every barrier.
    Value inRange = arith::CmpIOp::create(kb, loc, arith::CmpIPredicate::ult,
                                          row, numRows);
    Value lastRow = arith::SubIOp::create(
        kb, loc, arith::MaxUIOp::create(
                     kb, loc, numRows,
                     arith::ConstantIndexOp::create(kb, loc, 1)),
        arith::ConstantIndexOp::create(kb, loc, 1));
    Value safeRow = arith::MinUIOp::create(kb, loc, row, lastRow);
    OpBuilder &b = kb;
    SmallVector<Value> rivs = delinearize(b, loc, safeRow, rowSizes);
    Value isFirst = arith::AndIOp::create(
        b, loc, inRange,
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, lane, zero));

    DenseSet<Value> writtenInKernel;
    for (linalg::GenericOp op : ops)
      for (Value init : op.getDpsInits())
        writtenInKernel.insert(init);
    // Slot k of a thread is element k % vecWidth of its chunk k / vecWidth,
    // which starts at (lane + chunk * stride) * vecWidth.
    SmallVector<Value> chunkStarts, positions, valid;
    DenseMap<std::tuple<Value, AffineMap, int64_t>, Value> cached;
    // With slots: the row's element of per-row buffers this kernel writes
    // (reduction results, rows-only stages), held by every thread of the
    // row with the map it was written through, so that later stages read
    // registers instead of reloading it after a barrier.
    DenseMap<Value, std::pair<AffineMap, Value>> rowValues;
    auto rowMap = [&](AffineMap map) -> std::optional<AffineMap> {
      if (map.getNumDims() > loops || map.getNumSymbols() != 0)
        return std::nullopt;
      for (AffineExpr e : map.getResults())
        if (e.isFunctionOfDim(rows))
          return std::nullopt;
      return AffineMap::get(loops, 0, map.getResults(), map.getContext());
    };
    // The register value of `operand` of `op` for this row, or null.
    auto rowRegister = [&](linalg::GenericOp op, OpOperand &operand) -> Value {
      auto found = rowValues.find(operand.get());
      if (found == rowValues.end())
        return Value();
      std::optional<AffineMap> map =
          rowMap(op.getMatchingIndexingMap(&operand));
      return map && *map == found->second.first ? found->second.second
                                                : Value();
    };
    if (slots) {
      Value len = arith::ConstantIndexOp::create(b, loc, *rowLength);
      Value laneStart = arith::MulIOp::create(
          b, loc, lane, arith::ConstantIndexOp::create(b, loc, vecWidth));
      for (int64_t k = 0; k < *slots; ++k) {
        int64_t chunk = k / vecWidth, element = k % vecWidth;
        if (element == 0)
          chunkStarts.push_back(arith::AddIOp::create(
              b, loc, laneStart,
              arith::ConstantIndexOp::create(b, loc,
                                             chunk * strideValue * vecWidth)));
        Value c = element == 0
                      ? chunkStarts.back()
                      : arith::AddIOp::create(
                            b, loc, chunkStarts.back(),
                            arith::ConstantIndexOp::create(b, loc, element));
        positions.push_back(c);
        valid.push_back(
            fullRows ? inRange
                     : arith::AndIOp::create(
                           b, loc, inRange,
                           arith::CmpIOp::create(
                               b, loc, arith::CmpIPredicate::ult, c, len)));
      }
    }
    // Whether the stages after `i` read `buffer` only from the registers
    // holding it with map `map`, and write it, if at all, only from the
    // row's first thread (rows-only stages and reductions of the row,
    // which read their start from registers or from that same thread).
    auto onlyRegisterReads = [&](size_t i, Value buffer, AffineMap map) {
      return llvm::all_of(ops.drop_front(i + 1), [&](linalg::GenericOp later) {
        bool firstThreadWrites =
            later.getNumLoops() == rows ||
            later.getIteratorTypesArray().back() ==
                utils::IteratorType::reduction;
        for (OpOperand &o : later->getOpOperands())
          if (o.get() == buffer &&
              ((later.isDpsInit(&o) && !firstThreadWrites) ||
               rowMap(later.getMatchingIndexingMap(&o)) != map))
            return false;
        return true;
      });
    };
    // A thread's partial of a reducing stage combined over the row (warp
    // or block), then into the row's output by its first thread. Returns
    // whether the result is in registers for every later reader.
    auto finishReduction = [&](size_t i, const Combiner &c, Value partial,
                               ArrayRef<Value> rowIvs) {
      linalg::GenericOp op = ops[i];
      Value total = warpPerRow
                        ? warpReduce(b, loc, c.op, partial)
                        : blockReduce(b, loc, c, partial, tid, scratch[op]);
      OpOperand &out = op.getDpsInitsMutable()[0];
      std::optional<AffineMap> outMap =
          slots ? rowMap(op.getMatchingIndexingMap(&out)) : std::nullopt;
      if (outMap) {
        // Every thread has the total: the row's result in registers, its
        // start from registers too when this kernel wrote it.
        Value start = rowRegister(op, out);
        SmallVector<Value> oivs(rowIvs);
        oivs.push_back(zero);
        if (!start)
          start = memref::LoadOp::create(
              b, loc, kval(b, out.get()),
              applyMap(b, loc, op.getMatchingIndexingMap(&out), oivs));
        Value result = combine(b, c.op, start, total);
        rowValues[out.get()] = {*outMap, result};
        auto once = scf::IfOp::create(b, loc, isFirst, /*withElse=*/false);
        OpBuilder ob = once.getThenBodyBuilder();
        memref::StoreOp::create(
            ob, loc, result, kval(ob, out.get()),
            applyMap(ob, loc, op.getMatchingIndexingMap(&out), oivs));
        return onlyRegisterReads(i, out.get(), *outMap);
      }
      auto once = scf::IfOp::create(b, loc, isFirst, /*withElse=*/false);
      OpBuilder ob = once.getThenBodyBuilder();
      SmallVector<Value> oivs(rowIvs);
      oivs.push_back(zero);
      OpOperand &init = op.getDpsInitsMutable()[0];
      SmallVector<Value> idx =
          applyMap(ob, loc, op.getMatchingIndexingMap(&init), oivs);
      Value buffer = kval(ob, init.get());
      Value start = memref::LoadOp::create(ob, loc, buffer, idx);
      memref::StoreOp::create(ob, loc, combine(ob, c.op, start, total), buffer,
                              idx);
      return false;
    };
    // Row-stage indices of slot k: the row's and the slot's position.
    auto slotIvs = [&](int64_t k) {
      SmallVector<Value> kivs(rivs);
      kivs.push_back(positions[k]);
      return kivs;
    };
    // The element at slot k of a read-only operand (cached: loaded once
    // per kernel, a vector chunk at a time where row-contiguous), or null.
    // Without full rows only operands read through the stage's own loops
    // are cached, each load behind its bounds check.
    auto cachedElement = [&](linalg::GenericOp op, OpOperand &operand,
                             int64_t k) -> Value {
      Value buffer = operand.get();
      if (Value reg = rowRegister(op, operand))
        return reg;
      AffineMap map = op.getMatchingIndexingMap(&operand);
      if (!isa<MemRefType>(buffer.getType()) ||
          writtenInKernel.contains(buffer) || splatGlobal(buffer) ||
          (!fullRows && !map.isIdentity()))
        return Value();
      bool vector = vecWidth > 1 && rowContiguous(op, operand, vecWidth);
      int64_t chunk = vector ? k / vecWidth : k;
      auto key = std::make_tuple(buffer, map, chunk);
      Value loaded = cached.lookup(key);
      Type element = cast<MemRefType>(buffer.getType()).getElementType();
      if (!loaded && fullRows) {
        SmallVector<Value> idx = applyMap(b, loc, map, slotIvs(k));
        if (vector) {
          idx.back() = chunkStarts[chunk];
          loaded = vector::LoadOp::create(
              b, loc, VectorType::get({vecWidth}, element), kval(b, buffer),
              idx, /*nontemporal=*/false,
              llvm::MaybeAlign(vecWidth * element.getIntOrFloatBitWidth() / 8));
        } else {
          loaded = memref::LoadOp::create(b, loc, kval(b, buffer), idx);
        }
      } else if (!loaded) {
        auto guarded = scf::IfOp::create(b, loc, TypeRange{element}, valid[k],
                                         /*withElseRegion=*/true);
        OpBuilder tb = guarded.getThenBodyBuilder();
        scf::YieldOp::create(tb, loc,
                             ValueRange{memref::LoadOp::create(
                                 tb, loc, kval(tb, buffer), slotIvs(k))});
        OpBuilder eb = guarded.getElseBodyBuilder();
        // Never used: slots past the row end feed no stage.
        Value none = arith::ConstantOp::create(
            eb, loc, cast<TypedAttr>(eb.getZeroAttr(element)));
        scf::YieldOp::create(eb, loc, ValueRange{none});
        loaded = guarded.getResult(0);
      }
      cached[key] = loaded;
      if (!vector)
        return loaded;
      return vector::ExtractOp::create(b, loc, loaded,
                                       ArrayRef<int64_t>{k % vecWidth});
    };
    // Full rows: the outputs of a parallel stage, every slot computed,
    // stored for rows in range, a vector chunk at a time where
    // row-contiguous.
    auto storeSlots = [&](linalg::GenericOp op,
                          ArrayRef<SmallVector<Value>> values) {
      auto guard = scf::IfOp::create(b, loc, inRange, /*withElse=*/false);
      OpBuilder sb = guard.getThenBodyBuilder();
      for (auto [i, init] : llvm::enumerate(op.getDpsInitsMutable())) {
        if (vecWidth == 1 || !rowContiguous(op, init, vecWidth)) {
          for (int64_t k = 0; k < *slots; ++k) {
            SmallVector<Value> idx = applyMap(
                sb, loc, op.getMatchingIndexingMap(&init), slotIvs(k));
            memref::StoreOp::create(sb, loc, values[k][i],
                                    kval(sb, init.get()), idx);
          }
          continue;
        }
        Type element = values[0][i].getType();
        for (int64_t chunk = 0; chunk * vecWidth < *slots; ++chunk) {
          SmallVector<Value> lanes;
          for (int64_t e = 0; e < vecWidth; ++e)
            lanes.push_back(values[chunk * vecWidth + e][i]);
          Value vec = vector::FromElementsOp::create(
              sb, loc, VectorType::get({vecWidth}, element), lanes);
          SmallVector<Value> idx =
              applyMap(sb, loc, op.getMatchingIndexingMap(&init),
                       slotIvs(chunk * vecWidth));
          idx.back() = chunkStarts[chunk];
          vector::StoreOp::create(
              sb, loc, vec, kval(sb, init.get()), idx, /*nontemporal=*/false,
              llvm::MaybeAlign(vecWidth * element.getIntOrFloatBitWidth() /
                               8));
        }
      }
    };
    for (size_t i = 0; i < ops.size(); ++i) {
      linalg::GenericOp op = ops[i];
      // The barrier after this stage: the kernel's last stage needs none.
      bool last = i + 1 == ops.size();
      SmallVector<Value> ivs(rivs);
      if (slots && op.getNumLoops() == loops) {
        // Each thread's slots, unrolled; inputs from registers when
        // cached, all of a stage's loads before its arithmetic.
        bool reduction =
            op.getIteratorTypesArray().back() == utils::IteratorType::reduction;
        SmallVector<SmallVector<Value>> given(*slots);
        for (int64_t k = 0; k < *slots; ++k) {
          given[k].resize(op.getNumDpsInputs());
          for (OpOperand *in : op.getDpsInputOperands())
            if (!op.getBody()->getArgument(in->getOperandNumber()).use_empty())
              given[k][in->getOperandNumber()] = cachedElement(op, *in, k);
        }
        std::optional<Combiner> c;
        Value acc;
        if (reduction) {
          c = matchCombiner(op);
          acc = arith::ConstantOp::create(b, loc, c->neutral);
        }
        SmallVector<SmallVector<Value>> values;
        for (int64_t k = 0; k < *slots; ++k) {
          if (fullRows) {
            // Rows out of range compute on the clamped row; nothing of
            // theirs is stored.
            SmallVector<Value> v =
                emitBody(b, op, slotIvs(k),
                         reduction ? ValueRange{acc} : ValueRange{}, given[k]);
            if (reduction)
              acc = v.front();
            else
              values.push_back(v);
          } else if (reduction) {
            auto step = scf::IfOp::create(b, loc, TypeRange{acc.getType()},
                                          valid[k], /*withElseRegion=*/true);
            OpBuilder tb = step.getThenBodyBuilder();
            SmallVector<Value> next =
                emitBody(tb, op, slotIvs(k), ValueRange{acc}, given[k]);
            scf::YieldOp::create(tb, loc, ValueRange{next.front()});
            OpBuilder eb = step.getElseBodyBuilder();
            scf::YieldOp::create(eb, loc, ValueRange{acc});
            acc = step.getResult(0);
          } else {
            auto step = scf::IfOp::create(b, loc, valid[k],
                                          /*withElseRegion=*/false);
            OpBuilder tb = step.getThenBodyBuilder();
            storeOutputs(tb, op, slotIvs(k),
                         emitBody(tb, op, slotIvs(k), {}, given[k]));
          }
        }
        if (fullRows && !reduction)
          storeSlots(op, values);
        // A reduction whose result every later stage reads from registers
        // needs no barrier (its scratch is its own).
        bool registers = reduction && finishReduction(i, *c, acc, ivs);
        if (!last && !registers)
          gpu::BarrierOp::create(b, loc);
        continue;
      }
      if (op.getNumLoops() == rows && slots) {
        // A rows-only stage (a fill, layer norm's rstd) in every thread,
        // from and into registers when what it reads is in them or not
        // written here; its first thread stores the result. No barrier:
        // later stages read the registers.
        SmallVector<Value> given(op.getNumDpsInputs());
        bool registers = op.getNumDpsInits() == 1;
        for (OpOperand *in : op.getDpsInputOperands()) {
          if (op.getBody()->getArgument(in->getOperandNumber()).use_empty())
            continue;
          given[in->getOperandNumber()] = rowRegister(op, *in);
          if (!given[in->getOperandNumber()] &&
              writtenInKernel.contains(in->get()))
            registers = false;
        }
        OpOperand &out = op.getDpsInitsMutable()[0];
        std::optional<AffineMap> outMap =
            registers ? rowMap(op.getMatchingIndexingMap(&out)) : std::nullopt;
        if (outMap && op.getBody()
                          ->getArgument(op.getNumDpsInputs())
                          .use_empty()) {
          SmallVector<Value> values = emitBody(b, op, ivs, {}, given);
          rowValues[out.get()] = {*outMap, values.front()};
          auto once = scf::IfOp::create(b, loc, isFirst, /*withElse=*/false);
          OpBuilder ob = once.getThenBodyBuilder();
          storeOutputs(ob, op, ivs, values);
          // A later stage that reads the result through another map reads
          // the stored element: then the barrier stays.
          if (!last && !onlyRegisterReads(i, out.get(), *outMap))
            gpu::BarrierOp::create(b, loc);
          continue;
        }
      }
      if (op.getNumLoops() == rows) {
        auto once = scf::IfOp::create(b, loc, isFirst, /*withElse=*/false);
        OpBuilder ob = once.getThenBodyBuilder();
        storeOutputs(ob, op, ivs, emitBody(ob, op, ivs));
        if (!last)
          gpu::BarrierOp::create(b, loc);
        continue;
      }
      Value length = kval(b, hostSizes[i].back());
      // Out-of-range rows loop over nothing.
      length = arith::SelectOp::create(b, loc, inRange, length, zero);
      if (op.getIteratorTypesArray().back() == utils::IteratorType::parallel) {
        auto loop = scf::ForOp::create(b, loc, lane, length, stride);
        OpBuilder lb = OpBuilder::atBlockBegin(loop.getBody());
        ivs.push_back(loop.getInductionVar());
        storeOutputs(lb, op, ivs, emitBody(lb, op, ivs));
        rowLoops.push_back(loop);
        if (!last)
          gpu::BarrierOp::create(b, loc);
        continue;
      }
      Combiner c = *matchCombiner(op);
      Value neutral = arith::ConstantOp::create(b, loc, c.neutral);
      auto loop = scf::ForOp::create(b, loc, lane, length, stride,
                                     ValueRange{neutral});
      {
        OpBuilder lb = OpBuilder::atBlockBegin(loop.getBody());
        SmallVector<Value> livs(ivs);
        livs.push_back(loop.getInductionVar());
        SmallVector<Value> next =
            emitBody(lb, op, livs, loop.getRegionIterArgs());
        scf::YieldOp::create(lb, loc, next);
        rowLoops.push_back(loop);
      }
      finishReduction(i, c, loop.getResult(0), ivs);
      if (!last)
        gpu::BarrierOp::create(b, loc);
    }
    if (nonEmpty)
      kb.setInsertionPointAfter(nonEmpty);
    // Four row elements per thread and iteration: their loads are
    // independent, so more of them are in flight (one load per thread at
    // a time leaves the memory system mostly idle).
    for (scf::ForOp loop : rowLoops)
      (void)loopUnrollByFactor(loop, 4);
    rowLoops.clear();
    finishKernel(kb, hb, loc,
                 gridSize(hb, loc, product(hb, loc, hostRowSizes),
                          rowsPerBlock),
                 blockSize);
    if (vecWidth > 1) {
      // The widest vector access among the buffers read as vectors.
      unsigned vectorBytes = 0;
      for (linalg::GenericOp op : ops)
        for (OpOperand &operand : op->getOpOperands())
          if (op.getNumLoops() == loops &&
              rowContiguous(op, operand, vecWidth))
            vectorBytes = std::max<unsigned>(
                vectorBytes, vecWidth * cast<MemRefType>(operand.get().getType())
                                            .getElementTypeBitWidth() /
                                 8);
      lastLaunch->setAttr("tgc.vector_align",
                          hb.getI64IntegerAttr(vectorBytes));
    }
    return success();
  }
};

} // namespace

Value mlir::tgc::resultBase(Value result) {
  Value base = result;
  while (Operation *def = base.getDefiningOp()) {
    if (auto e = dyn_cast<memref::ExpandShapeOp>(def))
      base = e.getSrc();
    else if (auto c = dyn_cast<memref::CollapseShapeOp>(def))
      base = c.getSrc();
    else if (auto c = dyn_cast<memref::CastOp>(def))
      base = c.getSource();
    else
      break;
  }
  return base;
}

namespace {
struct TgcGpuFormKernelsPass
    : tgc::impl::TgcGpuFormKernelsBase<TgcGpuFormKernelsPass> {
  using TgcGpuFormKernelsBase::TgcGpuFormKernelsBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    for (auto [name, size] : {std::make_pair("block-size", int64_t(blockSize)),
                              std::make_pair("row-block-size",
                                             int64_t(rowBlockSize))})
      if (size <= 0 || size % kWarpSize != 0 || size > 1024) {
        module.emitError() << name
                           << " must be a multiple of 32 in [32, 1024], got "
                           << size;
        return signalPassFailure();
      }
    SmallVector<func::FuncOp> funcs(module.getOps<func::FuncOp>());
    for (func::FuncOp func : funcs)
      if (!func.isExternal() && failed(runOnFunction(module, func)))
        return signalPassFailure();
    // 64-bit shuffles (f64 sums of f32 rows) become pairs of 32-bit ones;
    // integer powers become loops.
    RewritePatternSet patterns(&getContext());
    populateGpuShufflePatterns(patterns);
    populateIPowIToLoopPatterns(patterns);
    FrozenRewritePatternSet frozen(std::move(patterns));
    for (auto gpuModule : module.getOps<gpu::GPUModuleOp>()) {
      if (failed(applyPatternsGreedily(gpuModule, frozen)))
        return signalPassFailure();
      if (!exactDivision)
        divisionsToReciprocals(gpuModule);
    }
  }

  LogicalResult runOnFunction(ModuleOp module, func::FuncOp func) {
    if (!func.getBody().hasOneBlock())
      return func.emitOpError() << "has control flow; the GPU path needs a "
                                   "straight-line function";
    freshResults(func);
    readStridedViewsDirectly(func);
    copiesToGenerics(func);
    // Ops that must stay on the host but cannot: reject before building.
    // Constants other than scalars read by kernels: their data becomes a
    // global of the kernel module, which kernels and GEMMs read through
    // the plan (cuModuleGetGlobal), with no copy per call.
    SmallVector<memref::GlobalOp> deviceGlobals;
    SmallVector<scf::ForOp> hostLoops;
    for (Operation &op : func.getBody().front()) {
      if (auto get = dyn_cast<memref::GetGlobalOp>(op)) {
        bool scalarUse =
            splatGlobal(get.getResult()) &&
            llvm::all_of(get.getResult().getUses(), [](OpOperand &use) {
              auto g = dyn_cast<linalg::GenericOp>(use.getOwner());
              return g && g.isDpsInput(&use);
            });
        auto global = SymbolTable::lookupNearestSymbolFrom<memref::GlobalOp>(
            get, get.getNameAttr());
        if (!scalarUse) {
          if (!global || !global.getConstant() ||
              !isa_and_nonnull<ElementsAttr>(global.getInitialValueAttr()))
            return get.emitOpError()
                   << "reads a global that is not an initialized constant; "
                      "the GPU path only has constants";
          for (OpOperand &use : get.getResult().getUses())
            if (auto g = dyn_cast<linalg::GenericOp>(use.getOwner());
                g && !g.isDpsInput(&use))
              return use.getOwner()->emitOpError()
                     << "writes a constant; not supported on the GPU";
          if (!llvm::is_contained(deviceGlobals, global))
            deviceGlobals.push_back(global);
        }
      }
      if (auto loop = dyn_cast<scf::ForOp>(op)) {
        // A sequential loop nest (topk, cholesky): a kernel of its own.
        // Everything in it must be able to run in a kernel.
        WalkResult legal = loop.walk([](Operation *nested) {
          if (isa<memref::AllocOp, memref::AllocaOp, memref::DeallocOp,
                  func::CallOp>(nested) ||
              nested->getName().getDialectNamespace() == "cf") {
            nested->emitOpError() << "inside a sequential loop cannot run "
                                     "in a GPU kernel; not supported on the "
                                     "GPU yet";
            return WalkResult::interrupt();
          }
          return WalkResult::advance();
        });
        if (legal.wasInterrupted())
          return failure();
        if (!loop->use_empty())
          return loop.emitOpError()
                 << "is a sequential loop whose results the host reads; not "
                    "supported on the GPU yet";
        hostLoops.push_back(loop);
        continue;
      }
      if (op.getNumRegions() != 0 && !isa<linalg::GenericOp>(op))
        return op.emitOpError()
               << "is control flow on the host; not supported on the GPU yet";
      if (isShapeAccess(&op) || isFlagCheck(&op))
        continue;
      if (isa<memref::LoadOp, memref::StoreOp>(op))
        return op.emitOpError()
               << "reads or writes device memory from the host; not "
                  "supported on the GPU";
    }

    OpBuilder mb = OpBuilder::atBlockEnd(module.getBody());
    auto gpuModule = gpu::GPUModuleOp::create(
        mb, func.getLoc(), (func.getSymName() + "_kernels").str());
    module->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                    mb.getUnitAttr());
    // Public, so that the module keeps it and the runtime finds it by name;
    // aligned for the kernels' 16-byte vector loads.
    OpBuilder gb = OpBuilder::atBlockBegin(gpuModule.getBody());
    for (memref::GlobalOp global : deviceGlobals) {
      auto copy = cast<memref::GlobalOp>(gb.clone(*global));
      SymbolTable::setSymbolVisibility(copy, SymbolTable::Visibility::Public);
      copy.setAlignment(
          std::max<uint64_t>(global.getAlignment().value_or(1), 16));
    }

    // Segments: runs of consecutive generics of one group, cut at GEMMs.
    SmallVector<SmallVector<linalg::GenericOp>> segments;
    std::optional<int64_t> current;
    bool open = false;
    unsigned loopsBefore = 0;
    SmallVector<linalg::GenericOp> generics;
    for (Operation &op : func.getBody().front())
      if (auto g = dyn_cast<linalg::GenericOp>(op))
        generics.push_back(g);
    DenseSet<Operation *> fusedEpilogues;
    for (size_t i = 0; i < generics.size(); ++i) {
      linalg::GenericOp op = generics[i];
      if (fusedEpilogues.contains(op))
        continue;
      bool transA = false, transB = false;
      SmallVector<unsigned> batch, m;
      unsigned n = 0, k = 0;
      if (matchGemm(op, transA, transB, batch, m, n, k)) {
        OpBuilder b(op);
        auto loops = [&](ArrayRef<unsigned> ds) {
          return b.getDenseI64ArrayAttr(
              SmallVector<int64_t>(ds.begin(), ds.end()));
        };
        op->setAttr("tgc.gemm", b.getUnitAttr());
        op->setAttr("tgc.gemm_trans_a", b.getBoolAttr(transA));
        op->setAttr("tgc.gemm_trans_b", b.getBoolAttr(transB));
        // The loops of each role, for the launch plan.
        op->setAttr("tgc.gemm_batch", loops(batch));
        op->setAttr("tgc.gemm_m", loops(m));
        op->setAttr("tgc.gemm_n", loops({n}));
        op->setAttr("tgc.gemm_k", loops({k}));
        // The GEMM overwrites its output: a zero fill right before it is
        // dead.
        if (i > 0 && !segments.empty() && !segments.back().empty() &&
            segments.back().back() == generics[i - 1]) {
          linalg::GenericOp prev = segments.back().back();
          if (isZeroFill(prev) && prev.getDpsInitOperand(0)->get() ==
                                      op.getDpsInitOperand(0)->get()) {
            segments.back().pop_back();
            prev->erase();
          }
        }
        // The elementwise op after it as cuBLASLt's epilogue (bias,
        // ReLU, tanh GELU, the rounding to a 16-bit output): the GEMM then
        // writes that op's output, and the op is only read by the launch
        // plan.
        if (gemmEpilogues && i + 1 < generics.size()) {
          linalg::GenericOp next = generics[i + 1];
          Value bias;
          StringRef kind = matchGemmEpilogue(op, next, bias);
          if (kind.empty() && onlyEpilogueReads(op, next))
            if (auto split = splitGemmEpilogue(op, next)) {
              generics[i + 1] = next = split->first;
              generics.insert(generics.begin() + i + 2, split->second);
              kind = matchGemmEpilogue(op, next, bias);
            }
          if (!kind.empty() && onlyEpilogueReads(op, next)) {
            op->setAttr("tgc.gemm_epilogue", b.getStringAttr(kind));
            next->setAttr("tgc.gemm_epilogue_of", b.getUnitAttr());
            fusedEpilogues.insert(next);
          }
        }
        open = false;
        continue;
      }
      std::optional<int64_t> group = getFusionGroup(op);
      // A loop nest between two generics ends the segment: one kernel
      // cannot run both across it.
      unsigned loops = llvm::count_if(hostLoops, [&](scf::ForOp loop) {
        return loop->isBeforeInBlock(op);
      });
      if (loops != loopsBefore)
        open = false;
      loopsBefore = loops;
      if (!open || !group || group != current) {
        segments.emplace_back();
        open = group.has_value();
      }
      current = group;
      segments.back().push_back(op);
    }
    KernelEmitter emitter(func, gpuModule, blockSize, rowBlockSize, maxBlocks,
                          vectorize, rowRegisters);
    // The generics that write each check's flag; a check follows the
    // kernels they become.
    DenseMap<Operation *, SmallVector<linalg::GenericOp>> producers =
        flagProducers(func);
    for (ArrayRef<linalg::GenericOp> segment : segments)
      if (failed(emitter.emit(segment)))
        return failure();
    DenseMap<Operation *, Operation *> flagKernels;
    for (auto &[check, gens] : producers) {
      for (linalg::GenericOp g : gens) {
        Operation *launch = emitter.kernelOf.lookup(g.getOperation());
        Operation *&last = flagKernels[check];
        if (launch && (!last || last->isBeforeInBlock(launch)))
          last = launch;
      }
    }
    for (scf::ForOp loop : hostLoops) {
      if (failed(emitter.emitLoopKernel(loop)))
        return failure();
      loop->erase();
    }
    checksAfterTheirKernels(func, flagKernels);
    for (Operation &op : llvm::make_early_inc_range(func.getBody().front()))
      if (isa<memref::GetGlobalOp>(op) && op.use_empty())
        op.erase(); // splat constants, now inside the kernels
    for (Operation &op : func.getBody().front())
      if (!isHostOp(&op))
        return op.emitOpError() << "cannot run on the GPU path";
    return success();
  }
};

} // namespace
