//===- SelectStrategy.cpp - which kernel strategy runs each group ---------===//
//
// tgc-gpu-select-strategy: which contractions cuBLASLt runs (and with
// which epilogue), whether a segment of a fusion group is a row group (one
// block or warp per row), which reductions run as two-stage trees and
// which elementwise ops after them join the tree's final stage, and which
// elementwise ops are read and written with 16-byte vectors; written as
// #tgc_gpu.gemm and #tgc_gpu.strategy attributes. tgc-gpu-form-kernels
// builds the kernels (FlatKernels.cpp, RowKernels.cpp, TreeKernels.cpp,
// LoopKernels.cpp).
//
//===----------------------------------------------------------------------===//

#include "GpuGemmMatching.h"
#include "GpuHostFunction.h"
#include "Strategies.h"
#include "tgc/Conversion/TgcToLinalg/TgcToLinalg.h"
#include "tgc/Transforms/Passes.h"
#include "tgc/Transforms/Tf32.h"

#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

using namespace mlir;
using namespace mlir::tgc;
using namespace mlir::tgc::gpu_kernels;
using tgc_gpu::GemmAttr;
using tgc_gpu::GemmEpilogue;
using tgc_gpu::StrategyAttr;
using tgc_gpu::StrategyKind;
using tgc_gpu::TgcGpuDialect;

namespace mlir::tgc {
#define GEN_PASS_DEF_TGCGPUSELECTSTRATEGY
#include "tgc/Transforms/GPU/Passes.h.inc"
} // namespace mlir::tgc

namespace {
/// Rows at least this long take `long-row-block-size` threads.
constexpr int64_t kLongRow = 16384;

/// The longest static row among a row group's full-row stages (0 when
/// every row length is dynamic).
int64_t longestStaticRow(ArrayRef<linalg::GenericOp> ops) {
  unsigned loops = 0;
  for (linalg::GenericOp op : ops)
    loops = std::max(loops, op.getNumLoops());
  int64_t longest = 0;
  for (linalg::GenericOp op : ops) {
    if (op.getNumLoops() != loops)
      continue;
    int64_t length = op.getStaticLoopRanges().back();
    if (!ShapedType::isDynamic(length))
      longest = std::max(longest, length);
  }
  return longest;
}
} // namespace

/// Row stages: every op has R or R+1 loops, the first R parallel, and the
/// last loop of an R+1-loop op is parallel or a reduction with one
/// combiner; at least one op reduces its row.
bool gpu_kernels::isRowGroup(ArrayRef<linalg::GenericOp> ops,
                             const ArgSizeClasses &sizeClasses) {
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
      if (isa<memref::ExpandShapeOp, memref::CollapseShapeOp, memref::CastOp>(
              def))
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
/// length is dynamic or above the target's singleBlockRow: one block would read
/// it alone, so its reductions run as trees instead.
bool gpu_kernels::isLongVectorGroup(ArrayRef<linalg::GenericOp> ops,
                                    const GpuTarget &target) {
  if (llvm::any_of(ops,
                   [](linalg::GenericOp op) { return op.getNumLoops() > 1; }))
    return false;
  for (linalg::GenericOp op : ops) {
    if (op.getNumLoops() == 1) {
      int64_t length = op.getStaticLoopRanges().front();
      if (ShapedType::isDynamic(length) || length > target.singleBlockRow)
        return true;
    }
  }
  return false;
}

/// Elements per 16-byte access when `op` is elementwise over contiguous
/// buffers that all index its loops directly (no broadcast, no
/// transpose, no linalg.index), all of one element width; else 0.
unsigned gpu_kernels::flatVectorWidth(linalg::GenericOp op) {
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

std::optional<Tree> gpu_kernels::matchTree(linalg::GenericOp op,
                                           const GpuTarget &target) {
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
    if (!ShapedType::isDynamic(k) && k <= target.warpSize)
      return std::nullopt;
  }
  return t;
}

/// Whether the tree of `op` writes every element `fill` fills (indices
/// of the output that no loop reaches have extent 1).
bool gpu_kernels::fillCovered(linalg::GenericOp fill, linalg::GenericOp op) {
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
  if (a == b)
    return true;
  auto va = a.getDefiningOp<memref::ViewOp>();
  auto vb = b.getDefiningOp<memref::ViewOp>();
  if (va && vb && va.getSource() == vb.getSource()) {
    std::optional<int64_t> sa = getConstantIntValue(va.getByteShift());
    std::optional<int64_t> sb = getConstantIntValue(vb.getByteShift());
    MemRefType ta = va.getType(), tb = vb.getType();
    if (!sa || !sb || !ta.hasStaticShape() || !tb.hasStaticShape())
      return true;
    // Bytes: each element takes whole bytes (an i1 flag is one byte, not
    // 1/8 of one).
    auto bytes = [](MemRefType t) {
      return t.getNumElements() * ((t.getElementTypeBitWidth() + 7) / 8);
    };
    int64_t ea = *sa + bytes(ta);
    int64_t eb = *sb + bytes(tb);
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
static bool usedFrom(func::FuncOp func, Value u, Operation *at) {
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
SmallVector<linalg::GenericOp>
gpu_kernels::treeEpilogues(Tree &t, ArrayRef<linalg::GenericOp> rest,
                           func::FuncOp func,
                           const ArgSizeClasses &sizeClasses) {
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
                     !usedFrom(func, u, v.getDefiningOp());
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

//===----------------------------------------------------------------------===//
// The pass
//===----------------------------------------------------------------------===//

/// Whether cuDNN can run a #tgc_gpu.conv generic on its buffers: f32, the
/// weight (read, or written by a backward-filter one) packed (cuDNN's
/// filter descriptor has no strides), the other two strided 4-d views
/// with non-negative strides.
static bool convOnLibrary(linalg::GenericOp op) {
  auto attr =
      op->getAttrOfType<tgc_gpu::ConvAttr>(TgcGpuDialect::kConvAttrName);
  tgc_gpu::ConvOperands roles = tgc_gpu::getConvOperands(op, attr);
  if (!roles.x)
    return false;
  auto weight = dyn_cast<MemRefType>(roles.w.getType());
  auto output = dyn_cast<MemRefType>(roles.y.getType());
  auto in = dyn_cast<MemRefType>(roles.x.getType());
  if (!weight || !output || !in || in.getRank() != 4 || weight.getRank() != 4 ||
      output.getRank() != 4 || !weight.getLayout().isIdentity() ||
      !in.getElementType().isF32() || !weight.getElementType().isF32() ||
      !output.getElementType().isF32())
    return false;
  for (MemRefType t : {in, output}) {
    SmallVector<int64_t> strides;
    int64_t offset;
    if (failed(t.getStridesAndOffset(strides, offset)) ||
        llvm::any_of(strides, [](int64_t s) {
          return !ShapedType::isDynamic(s) && s < 0;
        }))
      return false;
  }
  return true;
}

namespace {

struct TgcGpuSelectStrategyPass
    : tgc::impl::TgcGpuSelectStrategyBase<TgcGpuSelectStrategyPass> {
  using TgcGpuSelectStrategyBase::TgcGpuSelectStrategyBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    const GpuTarget &target = GpuTarget::h100();
    for (auto [name, size] :
         {std::make_pair("block-size", int64_t(blockSize)),
          std::make_pair("row-block-size", int64_t(rowBlockSize))})
      if (size <= 0 || size % target.warpSize != 0 ||
          size > target.maxThreadsPerBlock) {
        module.emitError() << name << " must be a multiple of "
                           << target.warpSize << " in [" << target.warpSize
                           << ", " << target.maxThreadsPerBlock << "], got "
                           << size;
        return signalPassFailure();
      }
    if (longRowBlockSize != 0 &&
        (longRowBlockSize < 0 || longRowBlockSize % target.warpSize != 0 ||
         longRowBlockSize > target.maxThreadsPerBlock)) {
      module.emitError() << "long-row-block-size must be 0 or a multiple of "
                         << target.warpSize << " in [" << target.warpSize
                         << ", " << target.maxThreadsPerBlock << "], got "
                         << int64_t(longRowBlockSize);
      return signalPassFailure();
    }
    for (func::FuncOp func : module.getOps<func::FuncOp>())
      if (!func.isExternal() && failed(runOnFunction(func, target)))
        return signalPassFailure();
  }

  LogicalResult runOnFunction(func::FuncOp func, const GpuTarget &target) {
    if (!func.getBody().hasOneBlock())
      return func.emitOpError() << "has control flow; the GPU path needs a "
                                   "straight-line function";
    freshResults(func);
    readStridedViewsDirectly(func);
    copiesToGenerics(func);
    MLIRContext *ctx = func.getContext();
    SmallVector<scf::ForOp> hostLoops(
        func.getBody().front().getOps<scf::ForOp>());

    // Segments: runs of consecutive generics of one group, cut at GEMMs
    // and host loop nests.
    SmallVector<SmallVector<linalg::GenericOp>> segments;
    std::optional<int64_t> current;
    bool open = false;
    unsigned loopsBefore = 0;
    SmallVector<linalg::GenericOp> generics(
        func.getBody().front().getOps<linalg::GenericOp>());
    DenseSet<Operation *> fusedEpilogues;
    // A flag check runs after the kernel of the generics that wrote its
    // flag, so a later op of that kernel must not write the flag's bytes
    // (the planner may have given them to it, the check having come
    // first): such an op starts a segment of its own (fuzz seed 928076,
    // a comparison written over a division's flag in a tree's epilogue).
    SmallVector<std::pair<Operation *, SmallPtrSet<Value, 4>>> checks;
    DenseMap<Operation *, SmallVector<linalg::GenericOp>> producers =
        flagProducers(func);
    for (auto &[check, gens] : producers)
      checks.push_back({check, flagViews(cast<memref::LoadOp>(check))});
    auto overwritesPendingFlag = [&](linalg::GenericOp op) {
      if (segments.empty())
        return false;
      ArrayRef<linalg::GenericOp> segment = segments.back();
      for (auto &[check, flag] : checks) {
        if (!check->isBeforeInBlock(op) ||
            llvm::none_of(producers[check], [&](linalg::GenericOp g) {
              return llvm::is_contained(segment, g);
            }))
          continue;
        for (Value init : op.getDpsInits())
          for (Value f : flag)
            if (mayShareMemory(init, f))
              return true;
      }
      return false;
    };
    // A library call (cuBLASLt, cuDNN) overwrites its whole output: a
    // zero fill of it right before the call is dead.
    auto eraseFillBefore = [&](size_t i) {
      linalg::GenericOp op = generics[i];
      if (i == 0 || segments.empty() || segments.back().empty() ||
          segments.back().back() != generics[i - 1])
        return;
      linalg::GenericOp prev = segments.back().back();
      if (isZeroFill(prev) && prev.getDpsInitOperand(0)->get() ==
                                  op.getDpsInitOperand(0)->get()) {
        segments.back().pop_back();
        prev->erase();
      }
    };
    for (size_t i = 0; i < generics.size(); ++i) {
      linalg::GenericOp op = generics[i];
      if (fusedEpilogues.contains(op))
        continue;
      if (op->hasAttr(TgcGpuDialect::kConvAttrName)) {
        if (convOnLibrary(op)) {
          eraseFillBefore(i);
          open = false;
          continue;
        }
        // Buffers cuDNN cannot read: a kernel runs the generic.
        op->removeAttr(TgcGpuDialect::kConvAttrName);
      }
      bool transA = false, transB = false;
      SmallVector<unsigned> batch, m;
      unsigned n = 0, k = 0;
      if (matchGemm(op, transA, transB, batch, m, n, k)) {
        eraseFillBefore(i);
        // The elementwise op after it as cuBLASLt's epilogue (bias,
        // ReLU, tanh GELU, the rounding to a 16-bit output): the GEMM then
        // writes that op's output, and the op is only read by the launch
        // plan.
        GemmEpilogue epilogue = GemmEpilogue::unfused;
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
            epilogue = *tgc_gpu::symbolizeGemmEpilogue(kind);
            next->setAttr(TgcGpuDialect::kGemmEpilogueOfAttrName,
                          UnitAttr::get(ctx));
            fusedEpilogues.insert(next);
          }
        }
        auto loops = [](ArrayRef<unsigned> ds) {
          return SmallVector<int64_t>(ds.begin(), ds.end());
        };
        // TF32 where tgc-mark-tf32 allowed it (the lowering's f32
        // accumulation of an f16 or bf16 product is already a tensor-core
        // one).
        bool tf32 = op->hasAttr(kTf32AttrName) &&
                    getElementTypeOrSelf(op.getDpsInputs()[0].getType())
                        .isF32() &&
                    getElementTypeOrSelf(op.getDpsInputs()[1].getType())
                        .isF32();
        op->setAttr(TgcGpuDialect::kGemmAttrName,
                    GemmAttr::get(ctx, loops(batch), loops(m), n, k, transA,
                                  transB, epilogue, tf32));
        open = false;
        continue;
      }
      std::optional<int64_t> group = getFusionGroup(op);
      // A loop nest between two generics ends the segment: one kernel
      // cannot run both across it.
      unsigned loops = llvm::count_if(hostLoops, [&](scf::ForOp loop) {
        return loop->isBeforeInBlock(op);
      });
      if (loops != loopsBefore || (open && overwritesPendingFlag(op)))
        open = false;
      loopsBefore = loops;
      if (!open || !group || group != current) {
        segments.emplace_back();
        open = group.has_value();
      }
      current = group;
      segments.back().push_back(op);
    }

    ArgSizeClasses sizeClasses(func);
    int64_t kernel = 0;
    auto set = [&](Operation *op, StrategyKind kind, int64_t threads,
                   int64_t vector = 0, bool vectors = false,
                   bool registers = false) {
      op->setAttr(TgcGpuDialect::kStrategyAttrName,
                  StrategyAttr::get(ctx, kind, kernel, threads, vector, vectors,
                                    registers));
    };
    for (ArrayRef<linalg::GenericOp> ops : segments) {
      if (ops.empty())
        continue;
      if (isRowGroup(ops, sizeClasses) && !isLongVectorGroup(ops, target)) {
        int64_t threads = rowBlockSize;
        if (longRowBlockSize > 0 && longestStaticRow(ops) >= kLongRow)
          threads = longRowBlockSize;
        for (linalg::GenericOp op : ops)
          set(op, StrategyKind::row, threads, 0, vectorize, rowRegisters);
        ++kernel;
        continue;
      }
      for (size_t i = 0; i < ops.size(); ++i) {
        // A reduction (with the fill of its output before it, and the
        // elementwise ops after it that read it at its own points) as a
        // two-stage tree.
        size_t at = i;
        std::optional<Tree> tree;
        if (i + 1 < ops.size() && isScalarFill(ops[i]) &&
            (tree = matchTree(ops[i + 1], target)) &&
            fillCovered(ops[i], ops[i + 1]))
          ++at;
        else
          tree = matchTree(ops[i], target); // (a fill is never a tree)
        if (tree) {
          size_t epilogues =
              treeEpilogues(*tree, ops.drop_front(at + 1), func, sizeClasses)
                  .size();
          for (size_t j = i; j <= at + epilogues; ++j)
            set(ops[j], StrategyKind::tree, blockSize, 0, vectorize);
          ++kernel;
          i = at + epilogues;
          continue;
        }
        unsigned width = vectorize ? flatVectorWidth(ops[i]) : 0;
        if (width)
          set(ops[i], StrategyKind::flat, blockSize, width);
        else
          set(ops[i], StrategyKind::element, blockSize);
        ++kernel;
      }
    }
    for (scf::ForOp loop : hostLoops) {
      set(loop, StrategyKind::loop, blockSize);
      ++kernel;
    }
    return success();
  }
};

} // namespace
