//===- VerificationTest.cpp - when the compilers verify the IR ------------===//
//
// A compile verifies its module once per pass pipeline unless asked to
// verify after every pass (tgc/Compiler/Verification.h): IR that a pass
// breaks is still caught before it goes on, with an error that says how
// to find the pass.
//
//===----------------------------------------------------------------------===//

#include "tgc/Compiler/Verification.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/Pass.h"

#include "gtest/gtest.h"

#include <cstdlib>
#include <string>

using namespace mlir;
using namespace mlir::tgc;

namespace {

/// Erases every `func.return`: blocks without a terminator.
struct BreakTerminators
    : public PassWrapper<BreakTerminators, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(BreakTerminators)
  StringRef getArgument() const final { return "test-break-terminators"; }
  void runOnOperation() override {
    getOperation().walk([](func::ReturnOp op) { op.erase(); });
  }
};

/// Counts the passes it sees run, to tell the pipeline ran to its end.
struct CountRuns : public PassWrapper<CountRuns, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(CountRuns)
  explicit CountRuns(int *runs) : runs(runs) {}
  StringRef getArgument() const final { return "test-count-runs"; }
  void runOnOperation() override { ++*runs; }
  int *runs;
};

constexpr const char *kModule = R"mlir(
func.func @f(%x: i32) -> i32 {
  return %x : i32
}
)mlir";

struct PipelineRun {
  bool ok;
  std::string diagnostics;
  int passesAfterBreak;
};

/// Runs [break?, count] on a fresh module; diagnostics collected.
PipelineRun runPipeline(bool breakIt, bool verifyEach) {
  MLIRContext context;
  context.loadDialect<func::FuncDialect>();
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(kModule, &context);
  EXPECT_TRUE(module);
  std::string text;
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &d) {
    text += d.str() + "\n";
    return success();
  });
  int runs = 0;
  PassManager pm(&context);
  if (breakIt)
    pm.addPass(std::make_unique<BreakTerminators>());
  pm.addPass(std::make_unique<CountRuns>(&runs));
  bool ok = succeeded(runVerified(pm, *module, verifyEach, "test"));
  return {ok, text, runs};
}

TEST(Verification, OncePerPipelineCatchesBrokenIR) {
  PipelineRun run = runPipeline(/*breakIt=*/true, /*verifyEach=*/false);
  EXPECT_FALSE(run.ok);
  // The pipeline ran on (no verifier between passes), then the result was
  // rejected with how to find the pass.
  EXPECT_EQ(run.passesAfterBreak, 1);
  EXPECT_NE(run.diagnostics.find("terminator"), std::string::npos)
      << run.diagnostics;
  EXPECT_NE(run.diagnostics.find("the IR after the test passes does not "
                                 "verify"),
            std::string::npos)
      << run.diagnostics;
  EXPECT_NE(run.diagnostics.find("TGC_VERIFY_EACH=1"), std::string::npos)
      << run.diagnostics;
}

TEST(Verification, EachPassStopsAtTheBreakingPass) {
  PipelineRun run = runPipeline(/*breakIt=*/true, /*verifyEach=*/true);
  EXPECT_FALSE(run.ok);
  // The pass manager's verifier stopped the pipeline after the pass that
  // broke the IR.
  EXPECT_EQ(run.passesAfterBreak, 0);
  EXPECT_NE(run.diagnostics.find("terminator"), std::string::npos)
      << run.diagnostics;
}

TEST(Verification, ValidIRPassesEitherWay) {
  for (bool each : {false, true}) {
    PipelineRun run = runPipeline(/*breakIt=*/false, each);
    EXPECT_TRUE(run.ok) << run.diagnostics;
    EXPECT_EQ(run.passesAfterBreak, 1);
    EXPECT_TRUE(run.diagnostics.empty()) << run.diagnostics;
  }
}

TEST(Verification, EnvironmentTurnsVerifyEachOn) {
  const char *saved = std::getenv("TGC_VERIFY_EACH");
  std::string keep = saved ? saved : "";
  unsetenv("TGC_VERIFY_EACH");
  EXPECT_FALSE(resolveVerifyEachPass(false));
  EXPECT_TRUE(resolveVerifyEachPass(true));
  setenv("TGC_VERIFY_EACH", "1", 1);
  EXPECT_TRUE(resolveVerifyEachPass(false));
  setenv("TGC_VERIFY_EACH", "0", 1);
  EXPECT_FALSE(resolveVerifyEachPass(false));
  setenv("TGC_VERIFY_EACH", "", 1);
  EXPECT_FALSE(resolveVerifyEachPass(false));
  if (saved)
    setenv("TGC_VERIFY_EACH", keep.c_str(), 1);
  else
    unsetenv("TGC_VERIFY_EACH");
}

} // namespace
