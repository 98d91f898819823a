//===- LaunchPlan.h - the host function as a runtime launch plan -*- C++ -*-===//
//
// The GPU path's last translation: the host function that tgc-gpu-pipeline
// leaves (sizes, buffers, gpu.launch_func, GEMMs, device checks) and its
// guard set become a ::tgc::runtime::Plan, which lib/Runtime executes.
// tgc-translate --tgc-to-launch-plan prints it in the plan's text form.
//
//===----------------------------------------------------------------------===//

#ifndef TGC_TARGET_LAUNCHPLAN_LAUNCHPLAN_H
#define TGC_TARGET_LAUNCHPLAN_LAUNCHPLAN_H

#include "tgc/Runtime/GpuPlan.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"

namespace mlir {
class DialectRegistry;
namespace tgc {

/// Builds the launch plan of the host function `func` (after
/// tgc-gpu-pipeline) and its guard set; errors are emitted at the op that
/// cannot be expressed.
FailureOr<::tgc::runtime::Plan> buildLaunchPlan(ModuleOp module,
                                                func::FuncOp func);

/// Registers --tgc-to-launch-plan (and its option --tgc-launch-plan-function)
/// with mlir-translate. `inputDialects` registers the dialects the input
/// holds (those of tgc-gpu-pipeline's output).
void registerLaunchPlanTranslation(
    void (*inputDialects)(DialectRegistry &) = nullptr);

} // namespace tgc
} // namespace mlir

#endif // TGC_TARGET_LAUNCHPLAN_LAUNCHPLAN_H
