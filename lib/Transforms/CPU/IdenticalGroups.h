//===- IdenticalGroups.h - reuse a kernel formed for an identical group ---===//
//
// tgc-form-kernels tiles each fusion group's roots with upstream's
// tile-and-fuse, most of the pass's time (a 24-layer transformer: about
// 10% of a 1.35 s CPU compile, a few ms a layer). A model's repeated layers
// make the same groups again and again: this finds, before any is formed,
// the groups identical to an earlier one, and forms a later group's root
// by cloning the kernel formed for the same root of the earlier group,
// with the later group's values, group number and locations. Only groups
// of static shapes: tiling folds a dynamic size to whatever value defines
// it (a slice's size operand), which need not be one the group reads in
// the same role, and the clone would take the earlier group's.
//
//===----------------------------------------------------------------------===//

#ifndef TGC_LIB_TRANSFORMS_CPU_IDENTICALGROUPS_H
#define TGC_LIB_TRANSFORMS_CPU_IDENTICALGROUPS_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/DenseMap.h"

#include <vector>

namespace mlir::tgc {

class IdenticalGroups {
public:
  /// The top-level fusion groups of `func` (ops carrying `tgc.group`), each
  /// matched with the first earlier group identical to it. Call before any
  /// group is formed.
  explicit IdenticalGroups(func::FuncOp func);

  /// Before `root` is formed: where its group is identical to an earlier
  /// one whose same root was formed (`formed`), a clone of that kernel is
  /// inserted before `root` and the values that replace `root`'s results
  /// are returned (a null value for a result not replaced); failure
  /// otherwise (form it, then call `formed`).
  FailureOr<SmallVector<Value>> reuse(RewriterBase &rewriter, Operation *root);

  /// Before forming `root` the usual way: what the kernel will read.
  void aboutToForm(Operation *root);
  /// After: the ops the forming inserted (the first `numBefore` of them
  /// before `root`, the others after it), in order, and the values
  /// replacing its results.
  void formed(Operation *root, ArrayRef<Operation *> inserted,
              unsigned numBefore, ArrayRef<Value> replacements);
  /// `root` is about to be erased.
  void erasing(Operation *root);

  unsigned reusedCount() const { return reused; }

private:
  struct Formation {
    bool valid = false;
    unsigned root = ~0u;             // the root's index in its group
    unsigned ordinal = 0;            // and among its group's roots
    SmallVector<bool> erased;        // the group's ops up to it, erased
    SmallVector<Value> outside;      // what those read from outside
    SmallVector<Location> locations; // theirs and their nested ops'
    SmallVector<Operation *> ops;    // the kernel formed
    unsigned numBefore = 0;          // of them, before the root
    SmallVector<Value> replacements; // of the root's results
  };
  struct Group {
    int64_t id = 0;
    SmallVector<Operation *> ops; // program order (erased ones marked)
    SmallVector<bool> erased;
    int earlier = -1;     // the identical earlier group's index
    bool matched = false; // a later group's earlier one
    unsigned nextRoot = 0;
    SmallVector<Operation *> all; // `ops` and their nested ops, at the start
    Formation pending;
    std::vector<Formation> formations; // by root ordinal
    IRMapping fromEarlier; // the earlier group's kernels' values -> ours
  };

  bool identical(Group &a, Group &b);
  /// What the group's live ops up to `upTo` read from outside the group,
  /// in walk order.
  SmallVector<Value> outsideValues(Group &g, unsigned upTo);
  /// The group's live ops up to `upTo`, each followed by its nested ops.
  static SmallVector<Operation *> liveOps(Group &g, unsigned upTo);
  /// Their locations and their blocks' arguments'.
  static SmallVector<Location> locations(Group &g, unsigned upTo);

  Block *body;
  std::vector<Group> groups;
  DenseMap<Operation *, std::pair<unsigned, unsigned>>
      position; // op -> (group, index)
  unsigned reused = 0;
};

} // namespace mlir::tgc

#endif // TGC_LIB_TRANSFORMS_CPU_IDENTICALGROUPS_H
