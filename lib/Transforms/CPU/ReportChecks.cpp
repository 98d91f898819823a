//===- ReportChecks.cpp - failed data checks report, not abort ------------===//
//
// A cf.assert on data (its condition reads memory) becomes a call of the
// runtime's tgc_report_check_failure when it fails; see the pass
// description in Passes.td.
//
//===----------------------------------------------------------------------===//

#include "tgc/Transforms/GuardUtils.h"
#include "tgc/Transforms/Passes.h"
#include "tgc/Transforms/RuntimeCalls.h"

#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

namespace mlir::tgc {
#define GEN_PASS_DEF_TGCREPORTCHECKS
#include "tgc/Transforms/CPU/Passes.h.inc"
namespace {

constexpr StringLiteral kReportFunction = "tgc_report_check_failure";

/// Whether the assert's condition depends on a value read from memory.
bool checksData(cf::AssertOp assert) {
  SmallVector<Value> work{assert.getArg()};
  DenseSet<Operation *> seen;
  while (!work.empty()) {
    Operation *def = work.pop_back_val().getDefiningOp();
    if (!def || !seen.insert(def).second)
      continue;
    if (isa<memref::LoadOp>(def))
      return true;
    llvm::append_range(work, def->getOperands());
  }
  return false;
}

struct TgcReportChecksPass : impl::TgcReportChecksBase<TgcReportChecksPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<cf::AssertOp> checks;
    module.walk([&](cf::AssertOp assert) {
      if (checksData(assert))
        checks.push_back(assert);
    });
    if (checks.empty())
      return;
    int counter = 0;
    for (cf::AssertOp assert : checks) {
      OpBuilder b(assert);
      Location loc = assert.getLoc();
      std::string message = assert.getMsg().str();
      std::string where = formatLocation(loc);
      if (where != "unknown location")
        message += " at " + where;
      Value violated = arith::XOrIOp::create(
          b, loc, assert.getArg(),
          arith::ConstantOp::create(b, loc, b.getBoolAttr(true)));
      auto branch = scf::IfOp::create(b, loc, violated, /*withElse=*/false);
      OpBuilder tb = branch.getThenBodyBuilder();
      Value text = createStringConstant(
          tb, loc, ("__tgc_check_" + Twine(counter++)).str(), message);
      if (failed(createRuntimeCall(tb, loc, module, kReportFunction, {text})))
        return signalPassFailure();
      assert.erase();
    }
  }
};

} // namespace
} // namespace mlir::tgc
