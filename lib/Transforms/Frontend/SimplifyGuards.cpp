//===- SimplifyGuards.cpp - minimal, well-ordered guard sets --------------===//

#include "tgc/Transforms/Passes.h"

#include "tgc/Analysis/SymbolicIR.h"
#include "tgc/Dialect/TgcGuard/IR/TgcGuardOps.h"
#include "tgc/Dialect/TgcSym/IR/TgcSymOps.h"
#include "tgc/Transforms/GuardUtils.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/TypeSwitch.h"

#include <functional>
#include <map>

namespace mlir::tgc {
#define GEN_PASS_DEF_TGCSIMPLIFYGUARDS
#include "tgc/Transforms/Frontend/Passes.h.inc"
} // namespace mlir::tgc

using namespace mlir;
using namespace mlir::tgc;

namespace {

/// Cheap and likely-to-fail first. Ranks come first because every size read
/// depends on them; sizes before layout because sizes are what varies from
/// call to call.
int category(Operation *op) {
  return llvm::TypeSwitch<Operation *, int>(op)
      .Case([](guard::RankOp) { return 0; })
      .Case([](guard::DtypeOp) { return 1; })
      .Case([](guard::DeviceOp) { return 2; })
      .Case([](guard::RangeOp) { return 3; })
      .Case([](guard::RelationOp) { return 4; })
      .Case([](guard::ScalarOp) { return 5; })
      .Case([](guard::ContiguousOp) { return 6; })
      .Case([](guard::AlignedOp) { return 7; })
      .Case([](guard::NoAliasOp) { return 8; })
      .Case([](guard::NoAliasOutsOp) { return 9; })
      .Default([](Operation *) { return -1; }); // symbols
}

struct TgcSimplifyGuardsPass
    : tgc::impl::TgcSimplifyGuardsBase<TgcSimplifyGuardsPass> {
  void runOnOperation() override {
    for (auto set : getOperation().getOps<guard::GuardSetOp>())
      simplify(set);
  }

  void simplify(guard::GuardSetOp set) {
    Block *body = set.getBody();
    OpBuilder builder(&getContext());

    // 1. Merge range guards on the same size: keep the tightest bounds and
    //    the reasons of the guards that set them.
    struct Merged {
      guard::RangeOp first;
      int64_t lower = 0;
      std::string lowerReason;
      Location lowerLoc;
      std::optional<int64_t> upper;
      std::string upperReason;
      Location upperLoc;
    };
    llvm::MapVector<Value, Merged> ranges;
    for (auto range : llvm::make_early_inc_range(body->getOps<guard::RangeOp>())) {
      auto [it, inserted] = ranges.try_emplace(
          range.getSize(),
          Merged{range, range.getLower(), range.getReason().str(),
                 range.getLoc(), range.getUpper(),
                 range.getUpper() ? range.getReason().str() : "",
                 range.getLoc()});
      if (inserted)
        continue;
      Merged &m = it->second;
      if (range.getLower() > m.lower) {
        m.lower = range.getLower();
        m.lowerReason = range.getReason().str();
        m.lowerLoc = range.getLoc();
      }
      if (std::optional<int64_t> u = range.getUpper(); u && (!m.upper || *u < *m.upper)) {
        m.upper = u;
        m.upperReason = range.getReason().str();
        m.upperLoc = range.getLoc();
      }
      range.erase();
    }
    for (auto &[value, m] : ranges) {
      std::string reason = m.lowerReason;
      Location loc = m.lowerLoc;
      if (m.upper && m.upperReason != m.lowerReason) {
        if (m.lower == 0 || m.lowerReason.empty()) {
          reason = m.upperReason;
          loc = m.upperLoc;
        } else {
          reason = m.lowerReason + "; " + m.upperReason;
          loc = FusedLoc::get(&getContext(), {m.lowerLoc, m.upperLoc});
        }
      }
      builder.setInsertionPoint(m.first);
      guard::RangeOp::create(
          builder, loc, value, m.lower,
          m.upper ? builder.getI64IntegerAttr(*m.upper) : IntegerAttr(),
          reason);
      m.first.erase();
    }

    // 2. Duplicates (same check, same text).
    llvm::StringSet<> seen;
    for (Operation &op : llvm::make_early_inc_range(*body)) {
      auto g = dyn_cast<guard::GuardOpInterface>(op);
      if (!g)
        continue;
      if (!seen.insert(op.getName().getStringRef().str() + ":" + g.describe())
               .second)
        op.erase();
    }

    // 3. Size guards implied by the other size guards. Sizes are read from
    //    the arguments, so they are only known to be non-negative.
    ShapeEnv env(&getContext());
    SymbolicIR ir(env);
    ir.addSymbolOps(*body, /*actualSizes=*/true);
    SmallVector<Operation *> sizeGuards;
    for (Operation &op : *body)
      if (isa<guard::RangeOp, guard::RelationOp>(op))
        sizeGuards.push_back(&op);
    // Only guards that share symbols (through min/max definitions too) can
    // imply one another: each guard is tested against the guards of its
    // component, so that a function with many inputs (a concat of 300
    // tensors has 300 independent size ranges) costs linear time, not a
    // cubic one (every guard against all the others).
    std::vector<unsigned> parent(env.getNumSymbols());
    for (unsigned i = 0; i < parent.size(); ++i)
      parent[i] = i;
    std::function<unsigned(unsigned)> root = [&](unsigned i) {
      while (parent[i] != i)
        i = parent[i] = parent[parent[i]];
      return i;
    };
    auto symbolsOf = [&](AffineExpr e, SmallVectorImpl<unsigned> &out) {
      e.walk([&](AffineExpr sub) {
        if (auto sym = dyn_cast<AffineSymbolExpr>(sub))
          out.push_back(sym.getPosition());
      });
    };
    for (unsigned i = 0; i < env.getNumSymbols(); ++i) {
      SmallVector<unsigned> used;
      for (AffineExpr operand : env.getSymbol(i).operands)
        symbolsOf(operand, used);
      for (unsigned j : used)
        if (j < parent.size())
          parent[root(j)] = root(i);
    }
    DenseMap<Operation *, SmallVector<SizeConstraint>> constraints;
    DenseMap<Operation *, SmallVector<unsigned>> symbolsUsed;
    DenseMap<Operation *, int64_t> component; // -1: no symbol
    for (Operation *g : sizeGuards) {
      SmallVector<SizeConstraint> own = constraintsOfGuard(g, ir);
      SmallVector<unsigned> &used = symbolsUsed[g];
      for (const SizeConstraint &c : own) {
        symbolsOf(c.lhs, used);
        symbolsOf(c.rhs, used);
      }
      for (unsigned j : used)
        if (j < parent.size())
          parent[root(j)] = root(used.front());
      constraints[g] = std::move(own);
    }
    for (Operation *g : sizeGuards) {
      const SmallVector<unsigned> &used = symbolsUsed[g];
      component[g] = used.empty() || used.front() >= parent.size()
                         ? -1
                         : static_cast<int64_t>(root(used.front()));
    }
    // Within a component, guards are taken in order (divisibility, then
    // equalities, then ranges, then the rest; each in program order), each
    // tested against the guards kept before it in an environment that
    // records them: an equality becomes a substitution there, as in shape
    // inference, so a test stays small however many guards came before
    // (testing each guard against all the others took minutes on a dynamic
    // GPT-2 backward whose 41 batch sizes are related through reshapes).
    // Equalities before ranges: of forty sizes made one, one range is
    // kept. Of two guards implying each other, the one taken first is kept.
    auto rank = [](Operation *op) {
      if (isa<guard::RangeOp>(op))
        return 2;
      switch (cast<guard::RelationOp>(op).getKind()) {
      case ConstraintKind::divisible:
        return 0; // before equalities: a known-exact quotient substitutes
      case ConstraintKind::eq:
        return 1;
      default:
        return 3;
      }
    };
    llvm::stable_sort(sizeGuards, [&](Operation *a, Operation *b) {
      return rank(a) < rank(b);
    });
    std::map<int64_t, SmallVector<Operation *>> byComponent;
    for (Operation *g : sizeGuards)
      byComponent[component[g]].push_back(g);
    DenseSet<Operation *> dropped;
    for (auto &[id, guards] : byComponent) {
      // The component's own environment: its symbols only (renumbered), so
      // that setting it up costs the component's size, not the function's
      // (a concat of 3,000 inputs has 3,000 components).
      SmallVector<unsigned> own;
      for (Operation *g : guards)
        llvm::append_range(own, symbolsUsed[g]);
      for (size_t i = 0; i < own.size(); ++i) // min/max operands too
        if (own[i] < env.getNumSymbols())
          for (AffineExpr operand : env.getSymbol(own[i]).operands)
            symbolsOf(operand, own);
      llvm::sort(own);
      own.erase(llvm::unique(own), own.end());
      DenseMap<AffineExpr, AffineExpr> renumber;
      for (auto [i, pos] : llvm::enumerate(own))
        renumber[env.symbol(pos)] = getAffineSymbolExpr(i, &getContext());
      ShapeEnv kept(&getContext());
      for (unsigned pos : own) {
        SymbolInfo info = env.getSymbol(pos);
        for (AffineExpr &operand : info.operands)
          operand = operand.replace(renumber);
        kept.addSymbol(std::move(info));
      }
      for (Operation *g : guards) {
        if (constraints[g].empty())
          continue;
        bool implied = true;
        for (SizeConstraint c : constraints[g]) {
          c.lhs = c.lhs.replace(renumber);
          c.rhs = c.rhs.replace(renumber);
          implied &= kept.require(c) == Truth::True;
        }
        if (implied)
          dropped.insert(g);
      }
    }
    for (Operation *g : dropped)
      g->erase();

    // 4. Order: symbols first (in their order), then guards by category,
    //    stable within a category.
    SmallVector<Operation *> symbols, guards;
    for (Operation &op : *body)
      (category(&op) < 0 ? symbols : guards).push_back(&op);
    llvm::stable_sort(guards, [](Operation *a, Operation *b) {
      return category(a) < category(b);
    });
    for (Operation *op : symbols)
      op->moveBefore(body, body->end());
    for (Operation *op : guards)
      op->moveBefore(body, body->end());

    // 5. Symbols no guard uses any more.
    for (Operation *op : llvm::reverse(symbols))
      if (op->use_empty())
        op->erase();
  }
};
} // namespace
