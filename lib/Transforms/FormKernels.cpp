//===- FormKernels.cpp - one parallel loop nest per fusion group ----------===//

#include "tgc/Transforms/Passes.h"

#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/TilingInterface.h"

namespace mlir::tgc {
#define GEN_PASS_DEF_TGCFORMKERNELS
#include "tgc/Transforms/Passes.h.inc"
} // namespace mlir::tgc

using namespace mlir;
using namespace mlir::tgc;

namespace {

std::optional<int64_t> groupOf(Operation *op) {
  if (auto a = op->getAttrOfType<IntegerAttr>("tgc.group"))
    return a.getInt();
  return std::nullopt;
}

struct TgcFormKernelsPass
    : tgc::impl::TgcFormKernelsBase<TgcFormKernelsPass> {
  using TgcFormKernelsBase::TgcFormKernelsBase;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal())
      return;
    // Roots: tileable ops whose results leave their group, in program
    // order (a root's consumers are tiled after it).
    SmallVector<TilingInterface> roots;
    for (Operation &op : func.getBody().getOps()) {
      auto tileable = dyn_cast<TilingInterface>(op);
      std::optional<int64_t> group = groupOf(&op);
      if (!tileable || !group || op.getNumResults() == 0)
        continue;
      bool leaves = llvm::any_of(op.getUsers(), [&](Operation *user) {
        return groupOf(user) != group;
      });
      if (leaves)
        roots.push_back(tileable);
    }
    IRRewriter rewriter(&getContext());
    for (TilingInterface root : roots) {
      if (failed(tileAndFuse(rewriter, root)))
        ; // Not tileable this way: the op stays a loop nest of its own.
    }
  }

  LogicalResult tileAndFuse(IRRewriter &rewriter, TilingInterface root) {
    Operation *op = root.getOperation();
    std::optional<int64_t> group = groupOf(op);
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
          // linalg.fill inits the lowering made for them).
          if (groupOf(p) != group)
            return std::nullopt;
          return scf::SCFTileAndFuseOptions::ControlFnResult{};
        });
    rewriter.setInsertionPoint(op);
    FailureOr<scf::SCFTileAndFuseResult> result =
        scf::tileConsumerAndFuseProducersUsingSCF(rewriter, root, options);
    if (failed(result))
      return failure();
    for (Value v : op->getResults())
      if (Value replacement = result->replacements.lookup(v))
        rewriter.replaceAllUsesWith(v, replacement);
    // The tiled loop belongs to the group.
    for (LoopLikeOpInterface loop : result->loops)
      loop->setAttr("tgc.group", op->getAttr("tgc.group"));
    if (op->use_empty())
      rewriter.eraseOp(op);
    return success();
  }
};

} // namespace
