//===- FormKernels.cpp - one parallel loop nest per fusion group ----------===//

#include "IdenticalGroups.h"

#include "tgc/Conversion/TgcToLinalg/TgcToLinalg.h"
#include "tgc/Transforms/EmptyTensors.h"
#include "tgc/Transforms/Fills.h"
#include "tgc/Transforms/Passes.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/Dominance.h"
#include "mlir/Transforms/CSE.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "mlir/Interfaces/TilingInterface.h"
#include "mlir/Interfaces/ValueBoundsOpInterface.h"

namespace mlir::tgc {
#define GEN_PASS_DEF_TGCFORMKERNELS
#include "tgc/Transforms/CPU/Passes.h.inc"
} // namespace mlir::tgc

using namespace mlir;
using namespace mlir::tgc;

std::optional<int64_t> mlir::tgc::getFusionGroup(Operation *op) {
  if (auto a = op->getAttrOfType<IntegerAttr>("tgc.group"))
    return a.getInt();
  return std::nullopt;
}

std::optional<int64_t> mlir::tgc::getKernelFusionGroup(Operation *op) {
  if (isa<linalg::GenericOp>(op))
    return getFusionGroup(op);
  if (!isa<memref::CopyOp>(op))
    return std::nullopt;
  // The nearest generics before and after the copy (other copies and
  // non-kernel ops such as allocations and views in between).
  auto nearest = [](Operation *from, bool forward) -> Operation * {
    for (Operation *o = forward ? from->getNextNode() : from->getPrevNode(); o;
         o = forward ? o->getNextNode() : o->getPrevNode())
      if (isa<linalg::GenericOp>(o))
        return o;
    return nullptr;
  };
  Operation *before = nearest(op, false), *after = nearest(op, true);
  if (!before || !after)
    return std::nullopt;
  std::optional<int64_t> group = getFusionGroup(after);
  if (group && getFusionGroup(before) == group)
    return group;
  return std::nullopt;
}

void mlir::tgc::generalizeTaggedLinalgOps(func::FuncOp func) {
  IRRewriter rewriter(func.getContext());
  SmallVector<linalg::LinalgOp> named;
  func.walk([&](linalg::LinalgOp op) {
    if (!isa<linalg::GenericOp>(op) && getFusionGroup(op))
      named.push_back(op);
  });
  for (linalg::LinalgOp op : named) {
    SmallVector<NamedAttribute> tags;
    for (NamedAttribute a : op->getDiscardableAttrs())
      tags.push_back(a);
    rewriter.setInsertionPoint(op);
    FailureOr<linalg::GenericOp> generic =
        linalg::generalizeNamedOp(rewriter, op);
    if (succeeded(generic))
      for (NamedAttribute a : tags)
        (*generic)->setAttr(a.getName(), a.getValue());
  }
}

namespace {

/// Whether `op` iterates over nothing along some loop (a static size 0):
/// it does no work, and upstream's tiling and producer fusion divide by such
/// extents. It stays a loop nest of its own, whose loops run zero times.
bool hasEmptyLoop(Operation *op) {
  if (auto linalgOp = dyn_cast<linalg::LinalgOp>(op))
    if (llvm::is_contained(linalgOp.getStaticLoopRanges(), 0))
      return true;
  // A static size 0 of any operand (or of what it is a cast of: a
  // broadcast of a cast of a tensor<1x?x0xf32> to tensor<?x?x?xf32> crashed
  // upstream's tile-size computation once its sizes folded to the cast's 0,
  // fuzz-crash.py seed 6000555) or result: some loop runs over it (a size a
  // loop does not index is a broadcast, of size 1).
  return llvm::any_of(op->getOperands(),
                      [](Value v) { return hasStaticZeroSize(v); }) ||
         llvm::any_of(op->getResultTypes(),
                      [](Type t) { return hasStaticZeroSize(t); });
}

/// The destination of a tiled root (its `shared_outs` init) is often a fill
/// (the zero accumulator of a matmul, the -inf of a max): a whole pass over
/// the output before the kernel. Each iteration reads the slice it owns, so
/// filling that slice inside the iteration is the same; the loop then starts
/// from the fill's own destination.
void fuseDestinationFills(scf::ForallOp loop) {
  OpBuilder builder(loop.getContext());
  for (auto [init, arg] :
       llvm::zip(loop.getOutputsMutable(), loop.getRegionIterArgs())) {
    Operation *fill = init.get().getDefiningOp();
    if (!fill || !isScalarFill(fill) || !fill->hasOneUse())
      continue;
    SmallVector<tensor::ExtractSliceOp> slices;
    bool onlySlices = llvm::all_of(arg.getUsers(), [&](Operation *user) {
      if (auto slice = dyn_cast<tensor::ExtractSliceOp>(user)) {
        slices.push_back(slice);
        return true;
      }
      return isa<tensor::ParallelInsertSliceOp>(user);
    });
    if (!onlySlices)
      continue;
    auto dps = cast<DestinationStyleOpInterface>(fill);
    for (tensor::ExtractSliceOp slice : slices) {
      builder.setInsertionPointAfter(slice);
      IRMapping map;
      map.map(dps.getDpsInitOperand(0)->get(), slice.getResult());
      Operation *local = builder.clone(*fill, map);
      slice.getResult().replaceAllUsesExcept(local->getResult(0), local);
    }
    init.set(dps.getDpsInitOperand(0)->get());
    fill->erase();
  }
}

/// Merges elementwise producers into their consumers inside each kernel
/// (upstream's elementwise fusion), but only where nothing is recomputed:
/// the consumer reads the producer through a permutation of its own loops,
/// no more of them. Upstream's default would also fuse the normalized
/// probabilities of an attention into the P x V contraction, recomputing
/// exp and the division once per output column.
void fuseElementwiseWithoutRecompute(func::FuncOp func) {
  RewritePatternSet patterns(func.getContext());
  linalg::ControlFusionFn control = [](OpOperand *use) {
    auto consumer = dyn_cast<linalg::LinalgOp>(use->getOwner());
    auto producer = use->get().getDefiningOp<linalg::LinalgOp>();
    if (!consumer || !producer || !use->get().hasOneUse())
      return false;
    return consumer.getNumLoops() == producer.getNumLoops() &&
           consumer.getMatchingIndexingMap(use).isPermutation();
  };
  linalg::populateElementwiseOpsFusionPatterns(patterns, control);
  (void)applyPatternsGreedily(func, std::move(patterns));
}

/// Marks an op that is a kernel of its own: never fused into a consumer's
/// loop, always a root.
constexpr llvm::StringLiteral kOwnKernel = "tgc.own_kernel";

/// A distinct value per elementwise clone that is cheaper to recompute in
/// each consumer than to keep in a temporary (CSE leaves them apart).
constexpr llvm::StringLiteral kRecompute = "tgc.recompute";

/// Whether a generic's body has an op that costs more to compute again
/// than a temporary's store and loads: a transcendental function, a
/// division, or an index-based mask. (Reductions are merged either way:
/// they are never fused into a consumer.)
bool costlyToRecompute(linalg::GenericOp op) {
  if (op.getNumReductionLoops() > 0)
    return true;
  bool costly = false;
  op.getBody()->walk([&](Operation *inner) {
    // A mask from the iteration's indices (causal attention): fused into
    // a reduction's loop, its compare and select kept LLVM from
    // vectorizing the reduction (a 4x8x256x64 attention 8.2 -> 14 ms).
    if (isa<arith::DivFOp, arith::DivSIOp, arith::DivUIOp, arith::RemFOp,
            linalg::IndexOp>(inner))
      costly = true;
    if (inner->getDialect() &&
        inner->getDialect()->getNamespace() == "math" &&
        !isa<math::AbsFOp, math::AbsIOp, math::FmaOp, math::CopySignOp>(inner))
      costly = true;
  });
  return costly;
}

/// A `tensor.pad` (a convolution's or pool's padded input) as an
/// elementwise generic over the padded shape that reads the input at the
/// clamped position and selects the pad value outside it. Tiled and fused
/// as a producer, the pad became per tile an `scf.if` and a copy of a
/// dynamically shaped window through the runtime's generic `memrefCopy`
/// (an im2col convolution spent most of its time there); as its own kernel
/// it is one parallel pass over the padded tensor.
void rewritePadsAsGenerics(func::FuncOp func) {
  SmallVector<tensor::PadOp> pads;
  func.walk([&](tensor::PadOp pad) {
    if (getFusionGroup(pad) && pad.getConstantPaddingValue() &&
        !pad.getNofold())
      pads.push_back(pad);
  });
  IRRewriter b(func.getContext());
  for (tensor::PadOp pad : pads) {
    Location loc = pad.getLoc();
    b.setInsertionPoint(pad);
    Value source = pad.getSource();
    Value padValue = pad.getConstantPaddingValue();
    auto type = pad.getResultType();
    int64_t rank = type.getRank();
    SmallVector<Value> low, extent, dynamicSizes;
    for (int64_t d = 0; d < rank; ++d) {
      low.push_back(
          getValueOrCreateConstantIndexOp(b, loc, pad.getMixedLowPad()[d]));
      extent.push_back(tensor::DimOp::create(b, loc, source, d));
      if (!type.isDynamicDim(d))
        continue;
      Value high =
          getValueOrCreateConstantIndexOp(b, loc, pad.getMixedHighPad()[d]);
      dynamicSizes.push_back(arith::AddIOp::create(
          b, loc, arith::AddIOp::create(b, loc, extent[d], low[d]), high));
    }
    Value empty = tensor::EmptyOp::create(b, loc, type, dynamicSizes);
    // Whether a padded dim of the source may have size 0.
    bool mayBeEmpty = false;
    for (int64_t d = 0; d < rank; ++d) {
      bool padded = !isConstantIntValue(pad.getMixedLowPad()[d], 0) ||
                    !isConstantIntValue(pad.getMixedHighPad()[d], 0);
      int64_t size = pad.getSourceType().getDimSize(d);
      mayBeEmpty |= padded && (ShapedType::isDynamic(size) || size == 0);
    }
    SmallVector<utils::IteratorType> parallel(rank,
                                              utils::IteratorType::parallel);
    auto generic = linalg::GenericOp::create(
        b, loc, TypeRange{type}, ValueRange{}, ValueRange{empty},
        ArrayRef<AffineMap>{b.getMultiDimIdentityMap(rank)}, parallel,
        [&](OpBuilder &nb, Location nl, ValueRange) {
          Value inside;
          SmallVector<Value> at;
          Value zero = arith::ConstantIndexOp::create(nb, nl, 0);
          for (int64_t d = 0; d < rank; ++d) {
            Value i = linalg::IndexOp::create(nb, nl, d);
            if (isConstantIntValue(pad.getMixedLowPad()[d], 0) &&
                isConstantIntValue(pad.getMixedHighPad()[d], 0)) {
              at.push_back(i);
              continue;
            }
            Value src = arith::SubIOp::create(nb, nl, i, low[d]);
            Value ok = createIndexInBounds(nb, nl, src, extent[d]);
            inside = inside ? arith::AndIOp::create(nb, nl, inside, ok)
                                  .getResult()
                            : ok;
            at.push_back(arith::SelectOp::create(nb, nl, ok, src, zero));
          }
          // A constant yielded from inside the pad's region moves along.
          Value value = padValue;
          if (inside && value.getParentRegion() == &pad.getRegion())
            value = nb.clone(*value.getDefiningOp())->getResult(0);
          Value v;
          if (!inside) {
            v = tensor::ExtractOp::create(nb, nl, source, at);
          } else if (!mayBeEmpty) {
            // The clamped position is in bounds: a select (vectorizes).
            v = arith::SelectOp::create(
                nb, nl, inside, tensor::ExtractOp::create(nb, nl, source, at),
                value);
          } else {
            // A padded dim of the source may be 0: no position is in
            // bounds, so read only inside.
            auto branch = scf::IfOp::create(nb, nl, TypeRange{value.getType()},
                                            inside, /*withElse=*/true);
            OpBuilder tb = branch.getThenBodyBuilder();
            scf::YieldOp::create(
                tb, nl, ValueRange{tensor::ExtractOp::create(tb, nl, source, at)});
            OpBuilder eb = branch.getElseBodyBuilder();
            scf::YieldOp::create(eb, nl, ValueRange{value});
            v = branch.getResult(0);
          }
          linalg::YieldOp::create(nb, nl, v);
        });
    for (NamedAttribute a : pad->getDiscardableAttrs())
      generic->setAttr(a.getName(), a.getValue());
    generic->setAttr(kOwnKernel, b.getUnitAttr());
    b.replaceOp(pad, generic.getResults());
  }
}

/// Bytes of one element in memory (an i1 takes a byte; 4 for a type of no
/// fixed width).
int64_t elementBytes(Type element) {
  if (!element.isIntOrFloat())
    return 4;
  return std::max<int64_t>(1, element.getIntOrFloatBitWidth() / 8);
}

/// The constant a tile's size never exceeds (`affine.min(n - i, 8)`, what
/// tiling emits for a last partial tile, or sizes derived from it).
std::optional<int64_t> tileSizeBound(OpFoldResult size) {
  FailureOr<int64_t> ub = ValueBoundsConstraintSet::computeConstantBound(
      presburger::BoundType::UB, {size}, nullptr, /*closedUB=*/true);
  if (failed(ub))
    return std::nullopt;
  return *ub;
}

/// A per-iteration temporary whose size is a tile's (`min(8, n - i)` rows of
/// a matrix product's accumulator) as a slice of one of the tile's full,
/// static size: the static buffer goes on the stack
/// (promote-buffers-to-stack), where a dynamic one was a heap allocation
/// per iteration.
void boundTileTemporaries(scf::ForallOp loop) {
  // The temporaries: empty tensors in the loop, and slices of empty tensors
  // (what tile-and-fuse makes of a fused producer's init; canonicalization
  // folds them into empty tensors of the slice's size).
  // Not the destination chains of the loop's results: empty-tensor
  // elimination makes those the slices of the loop's output that the
  // iteration writes (in place); a stack buffer there would be computed
  // into and copied out.
  llvm::SmallPtrSet<Operation *, 8> results;
  loop.getTerminator().walk([&](tensor::ParallelInsertSliceOp insert) {
    Value v = insert.getSource();
    while (Operation *def = v.getDefiningOp()) {
      results.insert(def);
      auto dps = dyn_cast<DestinationStyleOpInterface>(def);
      if (!dps || !dps.hasPureTensorSemantics())
        break;
      v = dps.getTiedOpOperand(cast<OpResult>(v))->get();
    }
  });
  SmallVector<Operation *> temporaries;
  loop.getBody()->walk([&](Operation *op) {
    if (results.contains(op))
      return;
    if (auto e = dyn_cast<tensor::EmptyOp>(op)) {
      if (!e.getType().hasStaticShape())
        temporaries.push_back(op);
    } else if (auto slice = dyn_cast<tensor::ExtractSliceOp>(op)) {
      if (slice.getSource().getDefiningOp<tensor::EmptyOp>() &&
          !slice.getResultType().hasStaticShape())
        temporaries.push_back(op);
    }
  });
  OpBuilder b(loop.getContext());
  for (Operation *op : temporaries) {
    auto type = cast<RankedTensorType>(op->getResult(0).getType());
    SmallVector<OpFoldResult> sizes =
        isa<tensor::EmptyOp>(op) ? cast<tensor::EmptyOp>(op).getMixedSizes()
                                 : cast<tensor::ExtractSliceOp>(op).getMixedSizes();
    if (auto slice = dyn_cast<tensor::ExtractSliceOp>(op)) {
      // Rank-reducing slices keep their own shape.
      if (slice.getSourceType().getRank() != type.getRank())
        continue;
    }
    if (!type.getElementType().isIntOrFloat())
      continue;
    int64_t bytes = elementBytes(type.getElementType());
    SmallVector<int64_t> bound(type.getShape());
    bool bounded = true;
    for (int64_t d = 0; d < type.getRank() && bounded; ++d) {
      if (type.isDynamicDim(d)) {
        std::optional<int64_t> ub = tileSizeBound(sizes[d]);
        bounded = ub && *ub > 0 && *ub <= kMaxStackBufferBytes;
        if (bounded)
          bound[d] = *ub;
      }
      // (Every factor is at most kMaxStackBufferBytes: no overflow.)
      bytes *= bound[d];
      bounded = bounded && bytes <= kMaxStackBufferBytes;
    }
    if (!bounded)
      continue;
    b.setInsertionPoint(op);
    // (An alloc_tensor: canonicalization folds a slice of a tensor.empty
    // back into a dynamic tensor.empty.)
    Value full = bufferization::AllocTensorOp::create(
        b, op->getLoc(), RankedTensorType::get(bound, type.getElementType()),
        ValueRange{});
    SmallVector<OpFoldResult> offsets(type.getRank(), b.getIndexAttr(0));
    SmallVector<OpFoldResult> strides(type.getRank(), b.getIndexAttr(1));
    Value slice = tensor::ExtractSliceOp::create(b, op->getLoc(), type, full,
                                                 offsets, sizes, strides);
    op->getResult(0).replaceAllUsesWith(slice);
    op->erase();
  }
}

/// Rows and columns of a 2-D block of a large matrix product.
constexpr int64_t kBlockRows = 64;
constexpr int64_t kBlockColumns = 256;
/// Rows of a large product's blocks where it has at least twice as many
/// (the columns then half of kBlockColumns).
constexpr int64_t kTallBlockRows = 2 * kBlockRows;
/// A product of at least 2 kBlockRows rows and kNarrowColumns up to
/// twice a large block's columns (511 in f32, 255 in f64: kBlockColumns
/// bounded by the stack), read along its columns (an im2col
/// convolution's over small images: 256 x 2304 x 196 in ResNet-18's layer
/// 3 at 112x112): blocks of kNarrowBlockRows x kNarrowBlockColumns.
constexpr int64_t kNarrowColumns = 128;
constexpr int64_t kNarrowBlockRows = kBlockRows;
constexpr int64_t kNarrowBlockColumns = 64;

/// The first op with reduction loops that `root` is or reads through
/// ops of its group that are not kernels of their own, if any.
linalg::LinalgOp firstGroupReduction(Operation *root) {
  std::optional<int64_t> group = getFusionGroup(root);
  SmallVector<Operation *> work{root};
  llvm::SmallPtrSet<Operation *, 8> seen;
  while (!work.empty()) {
    Operation *op = work.pop_back_val();
    if (!seen.insert(op).second)
      continue;
    auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
    if (linalgOp && linalgOp.getNumReductionLoops() > 0)
      return linalgOp;
    for (Value v : op->getOperands()) {
      auto producer = v.getDefiningOp<linalg::LinalgOp>();
      if (producer && getFusionGroup(producer) == group &&
          !producer->hasAttr(kOwnKernel))
        work.push_back(producer);
    }
  }
  return {};
}

/// The op with reduction loops that `root` is, or that `root` reads
/// through ops of its group that are not kernels of their own (an
/// epilogue: a linear layer's bias, a convolution's bias and activation),
/// if its result has `root`'s type: `root`'s loops are then its parallel
/// loops. Null otherwise.
linalg::LinalgOp groupReduction(Operation *root) {
  if (root->getNumResults() != 1)
    return {};
  linalg::LinalgOp reduction = firstGroupReduction(root);
  if (!reduction ||
      reduction->getResult(0).getType() != root->getResult(0).getType())
    return {};
  return reduction;
}

/// Whether the contraction `product` reads the operand that has its
/// columns (loop `jd`) along them, `B[.., k, j]` (a `x W`, an im2col
/// product), not along k (`x W^T`, whose blocks tgc-vectorize-contractions
/// packs transposed).
bool readsAlongColumns(linalg::LinalgOp product, unsigned jd) {
  if (!product || jd >= product.getNumLoops())
    return false;
  for (OpOperand *in : product.getDpsInputOperands()) {
    AffineMap map = product.getMatchingIndexingMap(in);
    if (map.isFunctionOfDim(jd))
      return map.getNumResults() > 0 &&
             map.getResults().back() ==
                 getAffineDimExpr(jd, product->getContext());
  }
  return false;
}

/// Whether `root` is a matrix product or its epilogue: a root of a `matmul`
/// group, or a contraction (a multiply-add body with one reduction loop)
/// or its epilogue (groupReduction). A linear layer alone is one tgc op, a
/// group of kind "single" whose root is its bias: taken one row per
/// iteration, each row read all of W.
bool isMatrixProduct(Operation *root, StringAttr kind) {
  if (kind && kind.getValue() == "matmul")
    return true;
  linalg::LinalgOp product = groupReduction(root);
  return product && product.getNumReductionLoops() == 1 &&
         linalg::isaContractionOpInterface(product);
}

/// Whether `op` is a tileable op of a fusion group that computes something.
bool isGroupOp(Operation *op) {
  return isa<TilingInterface>(op) && getFusionGroup(op) &&
         op->getNumResults() > 0 && !hasEmptyLoop(op);
}

/// An iteration of an elementwise root (every parallel dim but the
/// innermost tiled by 1) has at least this many elements where its static
/// sizes allow (kMinIterations iterations kept): an im2col convolution's
/// patches over 7x7 images were 64,512 iterations of 7 elements each, a
/// padded copy iterations of 9, each paying the parallel loop's per
/// iteration work.
constexpr int64_t kMinIterationElements = 512;
constexpr int64_t kMinIterations = 64;
/// ... and at most this many (a fused producer's temporaries stay small).
constexpr int64_t kMaxIterationElements = 4096;

/// Untiles the innermost tiled dims of `op` (tiled by 1, `tiled` of the
/// `parallel` dims, in `sizes`) while an iteration has fewer than
/// kMinIterationElements elements and enough iterations stay.
void coarsenSmallIterations(Operation *op, ArrayRef<int64_t> parallel,
                            size_t tiled,
                            SmallVectorImpl<OpFoldResult> &sizes) {
  auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
  if (!linalgOp || tiled == 0)
    return;
  SmallVector<int64_t> ranges = linalgOp.getStaticLoopRanges();
  if (llvm::any_of(ranges, ShapedType::isDynamic))
    return;
  // (A static shape of more than 2^63 elements, which a later pass
  // rejects, is left alone.)
  int64_t inner = 1, iterations = 1;
  for (size_t i = tiled; i < parallel.size(); ++i)
    if (llvm::MulOverflow(inner, ranges[parallel[i]], inner))
      return;
  for (size_t i = 0; i < tiled; ++i) {
    if (!isConstantIntValue(sizes[parallel[i]], 1))
      return; // another rule's tiles
    if (llvm::MulOverflow(iterations, ranges[parallel[i]], iterations))
      return;
  }
  if (inner == 0)
    return;
  for (size_t i = tiled; i-- > 0 && inner < kMinIterationElements;) {
    int64_t extent = ranges[parallel[i]];
    int64_t grown;
    if (iterations / std::max<int64_t>(extent, 1) < kMinIterations ||
        llvm::MulOverflow(inner, extent, grown) ||
        grown > kMaxIterationElements)
      break;
    sizes[parallel[i]] = OpBuilder(op).getIndexAttr(0);
    inner = grown;
    iterations /= std::max<int64_t>(extent, 1);
  }
}

/// Whether a group op's result leaves its group, or reaches a group op
/// through something tile-and-fuse cannot fuse across (a reshape: an
/// im2col convolution's windows are collapsed into a matrix, its product
/// expanded back). Without the second rule such an op and all its
/// producers stayed one serial loop nest.
bool leavesGroup(Operation *op) {
  std::optional<int64_t> group = getFusionGroup(op);
  return llvm::any_of(op->getUsers(), [&](Operation *user) {
    if (getFusionGroup(user) != group)
      return true;
    // (A tensor.dim reads only the sizes.)
    return !isa<TilingInterface>(user) &&
           llvm::any_of(user->getResultTypes(), llvm::IsaPred<TensorType>);
  });
}

/// The most copies of one producer that tile-and-fuse may make (the
/// tests' models reach 36: a row's softmax fused into the layer norm and
/// the reductions after it).
constexpr int64_t kMaxClones = 64;

/// Tile-and-fuse clones a producer into the loop once per path from a
/// root down to it: a chain of ops each read by the next two (a max pool
/// with indices walks its window as `v' = where(x > v, x, v)`, `i' =
/// where(x > v, k, i)`) has 2^depth paths, and a 4x4 window never finished
/// compiling. Walking each block backwards (users before producers), an op
/// that would be cloned more than kMaxClones times becomes a kernel of its
/// own (`tgc.own_kernel`): computed once into a temporary, a root whose
/// consumers read it.
void boundClones(func::FuncOp func) {
  llvm::DenseMap<Operation *, int64_t> clones;
  Block &body = func.getBody().front();
  for (Operation &op : llvm::reverse(body)) {
    if (!isGroupOp(&op))
      continue;
    std::optional<int64_t> group = getFusionGroup(&op);
    int64_t count = op.hasAttr(kOwnKernel) || leavesGroup(&op) ? 1 : 0;
    llvm::SmallPtrSet<Operation *, 4> seen;
    for (Operation *user : op.getUsers())
      if (getFusionGroup(user) == group && seen.insert(user).second)
        count += clones.lookup(user) * llvm::count_if(
                     user->getOperands(),
                     [&](Value v) { return v.getDefiningOp() == &op; });
    if (count > kMaxClones) {
      op.setAttr(kOwnKernel, UnitAttr::get(op.getContext()));
      count = 1;
    }
    clones[&op] = count;
  }
}

struct TgcFormKernelsPass
    : tgc::impl::TgcFormKernelsBase<TgcFormKernelsPass> {
  using TgcFormKernelsBase::TgcFormKernelsBase;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal())
      return;
    generalizeTaggedLinalgOps(func);
    rewritePadsAsGenerics(func);
    boundClones(func);
    // Roots: tileable ops whose results leave their group, in program
    // order (a root's consumers are tiled after it).
    SmallVector<TilingInterface> roots;
    for (Operation &op : func.getBody().getOps()) {
      auto tileable = dyn_cast<TilingInterface>(op);
      if (isGroupOp(&op) && (leavesGroup(&op) || op.hasAttr(kOwnKernel)))
        roots.push_back(tileable);
    }
    IRRewriter rewriter(&getContext());
    // A model's repeated layers: a root of a group identical to an earlier
    // one gets a clone of the earlier group's kernel (IdenticalGroups.h).
    std::optional<IdenticalGroups> identical;
    if (reuseIdenticalGroups)
      identical.emplace(func);
    for (TilingInterface root : roots) {
      Operation *op = root.getOperation();
      if (identical) {
        FailureOr<SmallVector<Value>> reused = identical->reuse(rewriter, op);
        if (succeeded(reused)) {
          for (auto [v, r] : llvm::zip(op->getResults(), *reused))
            if (r)
              rewriter.replaceAllUsesWith(v, r);
          if (op->use_empty()) {
            identical->erasing(op);
            rewriter.eraseOp(op);
          }
          continue;
        }
        identical->aboutToForm(op);
      }
      if (failed(
              tileAndFuse(rewriter, root, identical ? &*identical : nullptr)))
        ; // Not tileable this way: the op stays a loop nest of its own.
    }
    if (remarkReused)
      func.emitRemark() << (identical ? identical->reusedCount() : 0)
                        << " kernels cloned from identical groups'";
    func.walk([](scf::ForallOp loop) {
      if (loop->hasAttr("tgc.group")) {
        fuseDestinationFills(loop);
      }
    });
    // Tile-and-fuse clones a producer into every consumer slice of an
    // iteration: a row's softmax for each pass of the layer norm after it
    // (its max and sum, the mean, the variance, the output). Clones that
    // are costly to recompute (exp, log, tanh, a division) are merged:
    // one stays, its result read by all (the row is computed once, into a
    // temporary), and the elementwise fusion below leaves a producer with
    // several users alone. Cheap ones (the residual add before a layer
    // norm) stay one per consumer and fuse into it: a row temporary cost
    // more than adding again (15-25% on a 4096 x 1024 layer norm).
    SmallVector<linalg::GenericOp> cheapClones;
    func.walk([&](linalg::GenericOp op) {
      // (Fills of a reduction's accumulator, without tensor inputs, are
      // merged: the reductions that read them must be.)
      bool readsTensor = llvm::any_of(op.getDpsInputs(), [](Value v) {
        return isa<RankedTensorType>(v.getType());
      });
      if (op->getParentOfType<scf::ForallOp>() && readsTensor &&
          !costlyToRecompute(op))
        cheapClones.push_back(op);
    });
    for (auto [i, op] : llvm::enumerate(cheapClones))
      op->setAttr(kRecompute, rewriter.getI64IntegerAttr(i));
    {
      DominanceInfo dominance(func);
      eliminateCommonSubExpressions(rewriter, dominance, func);
    }
    if (fuseElementwise)
      fuseElementwiseWithoutRecompute(func);
    func.walk([](Operation *op) { op->removeAttr(kRecompute); });
    func.walk([](scf::ForallOp loop) {
      if (loop->hasAttr("tgc.group"))
        boundTileTemporaries(loop);
    });
  }

  LogicalResult tileAndFuse(IRRewriter &rewriter, TilingInterface root,
                            IdenticalGroups *identical) {
    Operation *op = root.getOperation();
    std::optional<int64_t> group = getFusionGroup(op);
    SmallVector<utils::IteratorType> iterators = root.getLoopIteratorTypes();
    SmallVector<int64_t> parallel;
    for (auto [i, t] : llvm::enumerate(iterators))
      if (t == utils::IteratorType::parallel)
        parallel.push_back(i);
    if (parallel.empty())
      return failure(); // a full reduction: one sequential loop nest
    SmallVector<OpFoldResult> sizes(iterators.size(),
                                    rewriter.getIndexAttr(0));
    bool hasReduction = parallel.size() != iterators.size();
    auto kind = op->getAttrOfType<StringAttr>("tgc.group_kind");
    bool rowWise = kind && (kind.getValue() == "rows" ||
                            kind.getValue() == "reduction");
    if (parallel.size() == 1 && !hasReduction && !rowWise) {
      sizes[parallel.front()] = rewriter.getIndexAttr(chunkSize);
    } else if (parallel.size() == 1 && !hasReduction) {
      // The 1-D result of a row-wise group (a row reduction's epilogue):
      // one row per iteration, so the row's temporaries stay small.
      sizes[parallel.front()] = rewriter.getIndexAttr(1);
    } else {
      // Every parallel dim but the innermost one, by 1; a row reduction
      // over 1-D rows tiles its rows.
      size_t tiled = hasReduction && parallel.size() == 1
                         ? parallel.size()
                         : parallel.size() - 1;
      for (size_t i = 0; i < tiled; ++i)
        sizes[parallel[i]] = rewriter.getIndexAttr(1);
      if (tiled == parallel.size() - 1 && tiled > 0 && contractionRows > 1 &&
          isMatrixProduct(op, kind)) {
        // Rows of a matrix product: a register tile's worth, but at least
        // two iterations where the extent is known.
        unsigned d = parallel[tiled - 1], jd = parallel.back();
        int64_t rows = contractionRows;
        int64_t extent = ShapedType::kDynamic, columns = ShapedType::kDynamic;
        if (auto linalgOp = dyn_cast<linalg::LinalgOp>(op)) {
          extent = linalgOp.getStaticLoopRanges()[d];
          columns = linalgOp.getStaticLoopRanges()[jd];
          if (!ShapedType::isDynamic(extent) && extent < 2 * rows)
            rows = std::max<int64_t>(1, extent / 2);
        }
        sizes[d] = rewriter.getIndexAttr(rows);
        // Columns per block: 256, fewer for elements over 4 bytes, so that
        // a block's temporary (an epilogue's accumulator) stays within the
        // 64 KiB that go on the stack.
        int64_t bytes =
            elementBytes(getElementTypeOrSelf(op->getResult(0).getType()));
        int64_t blockColumns = std::min<int64_t>(
            kBlockColumns, kMaxStackBufferBytes / (kBlockRows * bytes));
        if (!ShapedType::isDynamic(extent) && !ShapedType::isDynamic(columns) &&
            extent >= 2 * kBlockRows && columns >= 2 * blockColumns) {
          // A large product: 2-D blocks, each reading a block of A's rows
          // and of B's columns (tgc-vectorize-contractions runs a block's
          // column tiles outside its row tiles, k in blocks), instead of
          // all of B per tile of rows: a 2048^3 matmul on 16 cores ran at
          // a third of oneDNN's rate, memory-bound.
          sizes[d] = rewriter.getIndexAttr(kBlockRows);
          sizes[jd] = rewriter.getIndexAttr(blockColumns);
          if (extent >= 2 * kTallBlockRows && columns >= 2 * extent) {
            // Columns at least twice the rows (a linear layer's weights
            // are its B: 9 MiB for 768 -> 3072 over 256 rows): as many
            // elements per block, twice the rows, so that B's panels
            // are packed half as often (A's blocks are read twice as
            // often: a square 2048^3 matmul ran 5% slower). 256 x 768 ->
            // 3072 on the CI machine, alternating builds: 7.7 -> 6.7 ms on
            // two threads (min of 6), 16.4 -> 15.3 on one.
            sizes[d] = rewriter.getIndexAttr(kTallBlockRows);
            sizes[jd] = rewriter.getIndexAttr(blockColumns / 2);
          }
        } else if (!ShapedType::isDynamic(extent) &&
                   !ShapedType::isDynamic(columns) &&
                   extent >= 2 * kBlockRows && columns >= kNarrowColumns &&
                   readsAlongColumns(groupReduction(op), jd)) {
          // Many rows, few columns (an im2col convolution's product over
          // small images): iterations of 8 rows each read all of B where
          // it is (2304 x 196: 1.8 MiB, rows 784 bytes apart); blocks of
          // 64 rows pack B's panel once for 8 row tiles, and 64 columns
          // keep 16 blocks for 16 threads. (ResNet-18's 7x7 256 -> 256
          // convolution on one thread of the CI machine: 1.3x faster.)
          sizes[d] = rewriter.getIndexAttr(kNarrowBlockRows);
          sizes[jd] = rewriter.getIndexAttr(kNarrowBlockColumns);
        }
      }
      // A direct convolution or its epilogue over [N, O, H', W']: a
      // register tile's output channels per iteration (with n and oh by
      // 1), which tgc-vectorize-contractions keeps in registers over c, kh
      // and kw; one channel per iteration read each window for one row of
      // accumulators only.
      linalg::LinalgOp conv;
      if (parallel.size() == 4 && tiled == 3 && contractionRows > 1 &&
          (conv = groupReduction(op)) && conv->hasAttr(kDirectConvAttrName)) {
        int64_t channels =
            cast<RankedTensorType>(conv->getResult(0).getType()).getDimSize(1);
        int64_t rows = contractionRows;
        if (!ShapedType::isDynamic(channels))
          rows = std::max<int64_t>(1, std::min(rows, channels));
        sizes[parallel[1]] = rewriter.getIndexAttr(rows);
      }
      // Only elementwise work: no reduction in the root's fused producers
      // (a matrix product's or a convolution's epilogue, a lone softmax or
      // layer norm, whose rows stay one per iteration).
      if (!hasReduction && !rowWise && !firstGroupReduction(op))
        coarsenSmallIterations(op, parallel, tiled, sizes);
    }
    scf::SCFTilingOptions tiling;
    tiling.setTileSizes(sizes);
    tiling.setLoopType(scf::SCFTilingOptions::LoopType::ForallOp);
    scf::SCFTileAndFuseOptions options;
    options.setTilingOptions(tiling);
    options.setFusionControlFn(
        [&](tensor::ExtractSliceOp, OpResult producer,
            bool) -> std::optional<scf::SCFTileAndFuseOptions::ControlFnResult> {
          Operation *p = producer.getOwner();
          // Fuse only the group's own producers (and the tensor.empty /
          // linalg.fill inits the lowering made for them), never an
          // earlier root's loop (an own kernel's, which carries the
          // group too): tile-and-fuse cloned that whole loop into every
          // iteration, once per path down to it (a chain of x = exp(x) +
          // sin(x) made 2^depth loop nests, which CSE and elementwise
          // fusion then folded away: the output was the same, but 16
          // links compiled for 13 s).
          if (getFusionGroup(p) != group || hasEmptyLoop(p) ||
              p->hasAttr(kOwnKernel) || isa<LoopLikeOpInterface>(p))
            return std::nullopt;
          return scf::SCFTileAndFuseOptions::ControlFnResult{};
        });
    rewriter.setInsertionPoint(op);
    Operation *before = op->getPrevNode(), *after = op->getNextNode();
    FailureOr<scf::SCFTileAndFuseResult> result =
        scf::tileConsumerAndFuseProducersUsingSCF(rewriter, root, options);
    if (failed(result))
      return failure();
    SmallVector<Value> replacements;
    for (Value v : op->getResults())
      replacements.push_back(result->replacements.lookup(v));
    for (auto [v, replacement] : llvm::zip(op->getResults(), replacements))
      if (replacement)
        rewriter.replaceAllUsesWith(v, replacement);
    // The tiled loop belongs to the group.
    for (LoopLikeOpInterface loop : result->loops)
      loop->setAttr("tgc.group", op->getAttr("tgc.group"));
    if (identical) {
      // What the tiling inserted: before the root (nothing, in MLIR 22)
      // and after it (the loop and the sizes it reads).
      SmallVector<Operation *> inserted;
      for (Operation *o = before ? before->getNextNode()
                                 : &op->getBlock()->front();
           o != op; o = o->getNextNode())
        inserted.push_back(o);
      unsigned numBefore = inserted.size();
      for (Operation *o = op->getNextNode(); o != after; o = o->getNextNode())
        inserted.push_back(o);
      identical->formed(op, inserted, numBefore, replacements);
    }
    if (op->use_empty()) {
      if (identical)
        identical->erasing(op);
      rewriter.eraseOp(op);
    }
    return success();
  }
};

} // namespace
