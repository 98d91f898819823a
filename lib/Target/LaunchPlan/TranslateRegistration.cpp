//===- TranslateRegistration.cpp - --tgc-to-launch-plan -------------------===//
//
// The mlir-translate face of the launch plan: the input is a module after
// tgc-gpu-pipeline (a host function, its guard set and its gpu.modules,
// lowered or not); the output is the plan's text form (GpuPlan.h,
// serializePlan), the same text `tgc-run --emit-plan` writes.
//
//===----------------------------------------------------------------------===//

#include "tgc/Target/LaunchPlan/LaunchPlan.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-translate/Translation.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::tgc;

namespace {
llvm::cl::OptionCategory &category() {
  static llvm::cl::OptionCategory c{"TGC launch plan translation options"};
  return c;
}

llvm::cl::opt<std::string> &functionName() {
  static llvm::cl::opt<std::string> name{
      "tgc-launch-plan-function",
      llvm::cl::desc("The host function whose launch plan --tgc-to-launch-plan "
                     "prints (needed when the module has several)"),
      llvm::cl::init(""), llvm::cl::cat(category())};
  return name;
}

/// The host function to translate: the one named, or the module's only
/// function with a body.
func::FuncOp hostFunction(ModuleOp module) {
  SmallVector<func::FuncOp> candidates;
  for (auto func : module.getOps<func::FuncOp>())
    if (!func.isExternal() &&
        (functionName().empty() || func.getSymName() == functionName()))
      candidates.push_back(func);
  if (candidates.size() == 1)
    return candidates.front();
  if (candidates.empty())
    emitError(module.getLoc())
        << (functionName().empty()
                ? std::string("the module has no function with a body")
                : "the module has no function @" + functionName());
  else
    emitError(module.getLoc())
        << "the module has " << candidates.size()
        << " functions; choose one with --tgc-launch-plan-function";
  return nullptr;
}
} // namespace

void mlir::tgc::registerLaunchPlanTranslation(
    void (*inputDialects)(DialectRegistry &)) {
  (void)functionName();
  static TranslateFromMLIRRegistration toPlan(
      "tgc-to-launch-plan",
      "the host function after tgc-gpu-pipeline as a launch plan (text)",
      [](Operation *op, raw_ostream &os) -> LogicalResult {
        auto module = dyn_cast<ModuleOp>(op);
        if (!module)
          return op->emitError() << "expected a builtin.module";
        func::FuncOp func = hostFunction(module);
        if (!func)
          return failure();
        FailureOr<::tgc::runtime::Plan> plan = buildLaunchPlan(module, func);
        if (failed(plan))
          return failure();
        os << ::tgc::runtime::serializePlan(*plan);
        return success();
      },
      [inputDialects](DialectRegistry &registry) {
        if (inputDialects)
          inputDialects(registry);
      });
}
