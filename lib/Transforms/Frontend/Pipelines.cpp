//===- Pipelines.cpp - TGC frontend pipeline ------------------------------===//

#include "tgc/Conversion/Passes.h"
#include "tgc/Transforms/Passes.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"

using namespace mlir;
using namespace mlir::tgc;

void mlir::tgc::buildFrontendPipeline(OpPassManager &pm,
                                      const FrontendPipelineOptions &options) {
  TgcSymbolizeShapesOptions symbolize;
  symbolize.defaultPolicy = options.defaultPolicy;
  symbolize.specializeZeroOne = options.specializeZeroOne;
  symbolize.duckSizing = options.duckSizing;
  symbolize.exampleShapes = SmallVector<std::string>(
      options.exampleShapes.begin(), options.exampleShapes.end());
  pm.addNestedPass<func::FuncOp>(createTgcSymbolizeShapes(symbolize));
  pm.addNestedPass<func::FuncOp>(createTgcInferShapes());
  TgcGenerateGuardsOptions generate;
  generate.device = options.device;
  pm.addPass(createTgcGenerateGuards(generate));
  pm.addPass(createTgcSimplifyGuards());
  // The sizes the guards pin to numbers become static in the types, for
  // the lowerings (which read types, not symbols).
  pm.addNestedPass<func::FuncOp>(createTgcSpecializeTypes());
  if (options.lowerGuards)
    pm.addPass(createTgcLowerGuards());
}

void mlir::tgc::registerFrontendPipeline() {
  PassPipelineRegistration<FrontendPipelineOptions>(
      "tgc-frontend-pipeline",
      "Symbolic shapes and guards: symbolize input sizes, infer shapes, "
      "generate and simplify guards (and lower them with lower-guards)",
      buildFrontendPipeline);
}
