//===- PrintGuards.cpp - readable guard report ----------------------------===//

#include "tgc/Transforms/Passes.h"

#include "tgc/Dialect/TgcGuard/IR/TgcGuardOps.h"
#include "tgc/Dialect/TgcSym/IR/TgcSymOps.h"
#include "tgc/Transforms/GuardUtils.h"

#include "llvm/Support/raw_ostream.h"

namespace mlir::tgc {
#define GEN_PASS_DEF_TGCPRINTGUARDS
#include "tgc/Transforms/Frontend/Passes.h.inc"
} // namespace mlir::tgc

using namespace mlir;
using namespace mlir::tgc;

namespace {
struct TgcPrintGuardsPass : tgc::impl::TgcPrintGuardsBase<TgcPrintGuardsPass> {
  void runOnOperation() override {
    llvm::raw_ostream &os = llvm::errs();
    for (auto set : getOperation().getOps<guard::GuardSetOp>()) {
      Block *body = set.getBody();
      unsigned numGuards = llvm::count_if(
          *body, [](Operation &op) { return isa<guard::GuardOpInterface>(op); });
      os << "guards for @" << set.getFunction() << " (" << numGuards
         << (numGuards == 1 ? " guard" : " guards") << ")\n";
      bool header = false;
      for (Operation &op : *body) {
        auto s = dyn_cast<sym::SymbolOp>(op);
        if (!s)
          continue;
        if (!header)
          os << "  symbols:\n";
        header = true;
        os << "    " << s.getName() << " = ";
        if (s.hasSource())
          os << "size of arg " << *s.getArg() << " dim " << *s.getDim();
        else
          os << "data-dependent size";
        os << ", declared range [" << s.getLower() << ", ";
        if (std::optional<int64_t> upper = s.getUpper())
          os << *upper;
        else
          os << "inf";
        os << "]";
        if (std::optional<int64_t> hint = s.getHint())
          os << ", example " << *hint;
        os << "\n";
      }
      unsigned index = 0;
      for (Operation &op : *body) {
        auto g = dyn_cast<guard::GuardOpInterface>(op);
        if (!g)
          continue;
        os << "  [" << index++ << "] " << g.describe() << "\n"
           << "      because " << g.getReason() << "\n";
        std::string where = formatLocation(op.getLoc());
        if (where != "unknown location")
          os << "      from " << where << "\n";
      }
    }
  }
};
} // namespace
