//===- FoldGemmTransposes.cpp - transposed GEMM operands, not copies -----===//
//
// tgc-gpu-fold-gemm-transposes: a contraction that cuBLASLt runs reads an
// operand through a transpose (`x.t() @ y`, the weight gradients of a
// backward graph, `P^T dO` of attention's backward). The transpose is a
// copy kernel that reads with a stride (about a quarter of the memory's
// bandwidth); cuBLASLt reads a transposed operand at full speed. The
// contraction reads the transpose's input through the composed indexing
// map instead, when the result is still a GEMM (matchGemmMaps) and the
// input is a whole tensor (see Passes.td).
//
//===----------------------------------------------------------------------===//

#include "GpuGemmMatching.h"
#include "tgc/Transforms/Passes.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/AffineMap.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/SetVector.h"

namespace mlir::tgc {
#define GEN_PASS_DEF_TGCGPUFOLDGEMMTRANSPOSES
#include "tgc/Transforms/GPU/Passes.h.inc"
} // namespace mlir::tgc

using namespace mlir;
using namespace mlir::tgc;

namespace {

/// The input of `v`'s producer when that is a pure permutation (a generic
/// with one input, one init and only parallel loops whose body yields the
/// input, through permutation maps), with the map from `v`'s indices to
/// the input's; null otherwise.
Value transposeSource(Value v, AffineMap &toSource) {
  auto producer = v.getDefiningOp<linalg::GenericOp>();
  if (!producer || !producer.hasPureTensorSemantics() ||
      producer.getNumDpsInputs() != 1 || producer.getNumDpsInits() != 1 ||
      !gpu_kernels::isAllParallel(producer))
    return Value();
  Block &body = producer.getRegion().front();
  auto yield = dyn_cast<linalg::YieldOp>(body.getTerminator());
  if (!yield || body.getOperations().size() != 1 ||
      yield.getNumOperands() != 1 || yield.getOperand(0) != body.getArgument(0))
    return Value();
  AffineMap in = producer.getIndexingMapsArray()[0];
  AffineMap out = producer.getIndexingMapsArray()[1];
  if (!in.isPermutation() || !out.isPermutation())
    return Value();
  // out(l) = i  ->  l = out^-1(i)  ->  source index in(out^-1(i)).
  toSource = in.compose(inversePermutation(out));
  return producer.getDpsInputOperand(0)->get();
}

/// Whether `v` bufferizes to a whole (dense, row-major) buffer that a GEMM
/// takes as a plain pointer: a function argument, a result of a linalg op,
/// a new tensor (the entry copy of an argument the function also writes)
/// or a reshape of one. A slice may be strided: left as it is.
bool isWholeTensor(Value v) {
  if (auto arg = dyn_cast<BlockArgument>(v))
    return arg.getOwner()->isEntryBlock() &&
           isa<FunctionOpInterface>(arg.getOwner()->getParentOp());
  Operation *def = v.getDefiningOp();
  if (isa_and_nonnull<bufferization::AllocTensorOp>(def))
    return true;
  if (auto e = dyn_cast_or_null<tensor::ExpandShapeOp>(def))
    return isWholeTensor(e.getSrc());
  if (auto c = dyn_cast_or_null<tensor::CollapseShapeOp>(def))
    return isWholeTensor(c.getSrc());
  // A copy through identity maps (which canonicalization removes) is as
  // whole as what it copies.
  AffineMap toSource;
  if (Value copied = transposeSource(v, toSource);
      copied && toSource.isIdentity())
    return isWholeTensor(copied);
  return isa_and_nonnull<linalg::LinalgOp>(def);
}

/// Whether cuBLASLt takes the contraction's element types (matchGemm's
/// rule): equal inputs of f32, f16 or bf16, an output of the same or f32.
bool gemmElementTypes(linalg::GenericOp op) {
  Type a = getElementTypeOrSelf(op.getDpsInputOperand(0)->get().getType());
  Type b = getElementTypeOrSelf(op.getDpsInputOperand(1)->get().getType());
  Type c = getElementTypeOrSelf(op.getDpsInitOperand(0)->get().getType());
  return a == b && (a.isF32() || a.isF16() || a.isBF16()) &&
         (c == a || c.isF32());
}

/// The transpose under a collapse that only merges dims the transpose
/// keeps together and in order (`k.transpose(-1, -2).reshape(B * H, D, T)`
/// of attention's backward, the head dims merged into one batch): the
/// collapse is then a transpose of the same collapse of the transpose's
/// input. Returns the transpose (its input is `source`), with the
/// collapse's groups in the input's order (`groups`) and the map from the
/// collapse's indices to the collapsed input's (`toSource`); null when `v`
/// is no such collapse.
linalg::GenericOp collapsedTranspose(Value v, Value &source,
                                     SmallVector<ReassociationIndices> &groups,
                                     AffineMap &toSource) {
  auto collapse = v.getDefiningOp<tensor::CollapseShapeOp>();
  if (!collapse || !collapse->hasOneUse())
    return nullptr;
  AffineMap perm;
  source = transposeSource(collapse.getSrc(), perm);
  if (!source)
    return nullptr;
  // perm: the transpose's indices -> its input's (input dim r is read at
  // the transpose's dim perm.getDimPosition(r)); its inverse gives the
  // input dim of each transpose dim. Each group of the collapse must reach
  // consecutive input dims, in order.
  AffineMap inputDimOf = inversePermutation(perm);
  SmallVector<ReassociationIndices> byGroup = collapse.getReassociationIndices();
  SmallVector<std::pair<int64_t, unsigned>> starts;
  for (auto [g, group] : llvm::enumerate(byGroup)) {
    int64_t first = inputDimOf.getDimPosition(group.front());
    for (auto [j, dim] : llvm::enumerate(group))
      if (inputDimOf.getDimPosition(dim) != first + static_cast<int64_t>(j))
        return nullptr;
    starts.push_back({first, static_cast<unsigned>(g)});
  }
  llvm::sort(starts);
  groups.clear();
  SmallVector<AffineExpr> results;
  MLIRContext *ctx = v.getContext();
  for (auto [first, g] : starts) {
    ReassociationIndices inputGroup;
    for (size_t j = 0; j < byGroup[g].size(); ++j)
      inputGroup.push_back(first + static_cast<int64_t>(j));
    groups.push_back(inputGroup);
    results.push_back(getAffineDimExpr(g, ctx));
  }
  toSource = AffineMap::get(byGroup.size(), 0, results, ctx);
  return cast<linalg::GenericOp>(collapse.getSrc().getDefiningOp());
}

/// Erases a transpose nothing reads any more at once (a collapse of it
/// may then have one reader less: a transpose back after a collapse of a
/// transpose); one with other readers goes to `kept`, for a later fold may
/// leave it unread.
void release(Operation *transpose, llvm::SetVector<Operation *> &kept) {
  if (transpose->use_empty()) {
    kept.remove(transpose);
    transpose->erase();
  } else {
    kept.insert(transpose);
  }
}

/// Folds one transposed operand of `op` when the contraction stays a GEMM;
/// returns whether it did. Transposes it no longer reads but others do go
/// to `folded`.
bool foldOne(linalg::GenericOp op, llvm::SetVector<Operation *> &folded) {
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  auto stillGemm = [&](unsigned i, AffineMap toSource,
                       SmallVector<AffineMap> &newMaps) {
    newMaps.assign(maps.begin(), maps.end());
    newMaps[i] = toSource.compose(maps[i]);
    bool transA, transB;
    SmallVector<unsigned> batch, m;
    unsigned n, k;
    return gpu_kernels::matchGemmMaps(newMaps, transA, transB, batch, m, n, k);
  };
  auto setMaps = [&](ArrayRef<AffineMap> newMaps) {
    op.setIndexingMapsAttr(ArrayAttr::get(
        op.getContext(), llvm::map_to_vector(newMaps, [](AffineMap m) -> Attribute {
          return AffineMapAttr::get(m);
        })));
  };
  for (unsigned i = 0; i < 2; ++i) {
    OpOperand *operand = op.getDpsInputOperand(i);
    SmallVector<AffineMap> newMaps;
    AffineMap toSource;
    if (Value source = transposeSource(operand->get(), toSource);
        source && isWholeTensor(source) && stillGemm(i, toSource, newMaps)) {
      Operation *def = operand->get().getDefiningOp();
      operand->set(source);
      setMaps(newMaps);
      release(def, folded);
      return true;
    }
    Value source;
    SmallVector<ReassociationIndices> groups;
    linalg::GenericOp transpose =
        collapsedTranspose(operand->get(), source, groups, toSource);
    if (!transpose || !isWholeTensor(source) ||
        !stillGemm(i, toSource, newMaps))
      continue;
    auto collapse = operand->get().getDefiningOp<tensor::CollapseShapeOp>();
    OpBuilder b(collapse);
    auto collapsed = tensor::CollapseShapeOp::create(b, collapse.getLoc(), source,
                                                     groups);
    collapsed->setDiscardableAttrs(collapse->getDiscardableAttrDictionary());
    operand->set(collapsed);
    collapse->erase();
    setMaps(newMaps);
    release(transpose, folded);
    return true;
  }
  return false;
}

struct FoldGemmTransposes
    : tgc::impl::TgcGpuFoldGemmTransposesBase<FoldGemmTransposes> {
  void runOnOperation() override {
    SmallVector<linalg::GenericOp> gemms;
    getOperation().walk([&](linalg::GenericOp op) {
      if (op.hasPureTensorSemantics() && op.getNumDpsInputs() == 2 &&
          op.getNumDpsInits() == 1 && linalg::isaContractionOpInterface(op) &&
          gemmElementTypes(op))
        gemms.push_back(op);
    });
    // (A set: two GEMMs, or both operands of one, may read one transpose.)
    llvm::SetVector<Operation *> transposes;
    for (linalg::GenericOp op : gemms)
      while (foldOne(op, transposes)) {
      }
    // Transposes nothing reads any more, each erased once; a transpose
    // only another one read goes once that one has.
    SmallVector<Operation *> candidates = transposes.takeVector();
    for (bool erased = true; erased;) {
      erased = false;
      for (Operation *&def : candidates) {
        if (!def || !isa<linalg::GenericOp>(def) || !def->use_empty())
          continue;
        def->erase();
        def = nullptr;
        erased = true;
      }
    }
  }
};

} // namespace
