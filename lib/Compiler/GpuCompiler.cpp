//===- GpuCompiler.cpp - compile a tgc function for a CUDA GPU ------------===//
//
// tgc-gpu-pipeline, then the launch plan (LaunchPlan.cpp) and the kernel
// module as a cubin or PTX (lib/Target/NVPTX).
//
//===----------------------------------------------------------------------===//

#include "tgc/Compiler/GpuCompiler.h"

#include "tgc/Compiler/CompileReport.h"
#include "tgc/Compiler/CompilerUtils.h"
#include "tgc/Compiler/Verification.h"
#include "tgc/Pipelines/Pipelines.h"
#include "tgc/Target/NVPTX/NVPTXTarget.h"

#include "tgc/Dialect/TgcGpu/IR/TgcGpuDialect.h"
#include "tgc/Runtime/PlanSteps.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Pass/PassManager.h"

#include <chrono>

using namespace mlir;
using namespace mlir::tgc;
namespace rt = ::tgc::runtime;

/// Every argument's sizes for the example call: the example shape where
/// one is given, else the signature's static sizes ({} where neither is
/// known: the plan then does not evaluate).
static std::vector<std::vector<int64_t>>
exampleSizes(ModuleOp source, StringRef entry,
             ArrayRef<std::vector<int64_t>> examples) {
  std::vector<std::vector<int64_t>> sizes(examples.begin(), examples.end());
  auto func = source.lookupSymbol<func::FuncOp>(entry);
  if (!func)
    return sizes;
  sizes.resize(std::max<size_t>(sizes.size(), func.getNumArguments()));
  for (auto [i, type] : llvm::enumerate(func.getArgumentTypes())) {
    auto ranked = dyn_cast<RankedTensorType>(type);
    if (sizes[i].empty() && ranked && ranked.hasStaticShape())
      sizes[i].assign(ranked.getShape().begin(), ranked.getShape().end());
  }
  return sizes;
}

FailureOr<GpuCompileResult>
mlir::tgc::compileGpuFunction(ModuleOp source, StringRef entry,
                              const GpuCompileOptions &options,
                              std::string &error) {
  auto start = std::chrono::steady_clock::now();
  MLIRContext *ctx = source.getContext();
  OwningOpRef<ModuleOp> module = cloneEntryModule(source, entry, error);
  if (!module)
    return failure();

  GpuPipelineOptions pipeline;
  setShapePolicyOptions(pipeline, options);
  pipeline.blockSize = options.blockSize;
  pipeline.vectorize = options.vectorize;
  pipeline.maxBlocks = options.maxBlocks;
  pipeline.rowBlockSize = options.rowBlockSize;
  pipeline.longRowBlockSize = options.longRowBlockSize;
  pipeline.rowRegisters = options.rowRegisters;
  pipeline.gemmEpilogues = options.gemmEpilogues;
  pipeline.exactDivision = options.exactDivision;
  pipeline.dedupKernels = options.dedupKernels;
  pipeline.tf32Matmuls = options.tf32Matmuls;
  pipeline.tf32Convolutions = options.tf32Convolutions;
  pipeline.cudnnConvolutions = options.cudnnConvolutions;
  pipeline.deviceAsserts = options.deviceAsserts;

  ErrorCollector diagnostics(ctx);
  PassManager pm(ctx);
  buildGpuPipeline(pm, pipeline);
  if (options.configurePassManager)
    options.configurePassManager(pm);
  CompilePhases phases;
  phases.instrument(pm, "frontend",
                    {{"tgc-decompose", "fusion"},
                     {"tgc-fuse", "fusion"},
                     {"tgc-to-linalg", "linalg"},
                     {"tgc-unshare-inits", "bufferize"},
                     {"tgc-gpu-select-strategy", "kernels"},
                     {"expand-strided-metadata", "to NVVM"}});
  if (failed(runVerified(
          pm, *module, resolveVerifyEachPass(options.verifyEachPass), "GPU"))) {
    error = "compilation failed:\n" + diagnostics.text;
    return failure();
  }
  phases.begin("launch plan");
  auto func = module->lookupSymbol<func::FuncOp>(entry);
  // Which traced ops each kernel and GEMM computes (the report's map).
  std::string kernelMap, arena;
  {
    llvm::raw_string_ostream os(kernelMap);
    if (auto kernels = module->lookupSymbol<gpu::GPUModuleOp>(
            (entry + "_kernels").str()))
      for (Operation &k : kernels.getBody()->getOperations())
        if (auto name = k.getAttrOfType<StringAttr>(
                SymbolTable::getSymbolAttrName()))
          if (k.getNumRegions() && !k.getRegion(0).empty())
            os << "kernel " << name.getValue() << ": " << kernelSources(&k)
               << "\n";
    if (func)
      arena = arenaLayout(func, options.exampleShapes);
    if (func)
      func.walk([&](Operation *op) {
        if (op->hasAttr(tgc_gpu::TgcGpuDialect::kGemmAttrName))
          os << "gemm: " << kernelSources(op) << "\n";
        if (op->hasAttr(tgc_gpu::TgcGpuDialect::kConvAttrName))
          os << "conv: " << kernelSources(op) << "\n";
      });
  }
  FailureOr<rt::Plan> plan = buildLaunchPlan(*module, func);
  if (failed(plan)) {
    error = "launch plan failed:\n" + diagnostics.text;
    return failure();
  }
  GpuCompileResult result;
  result.steps = rt::describePlanSteps(*plan, exampleSizes(source, entry,
                                                          options.exampleShapes));
  result.kernelMap = std::move(kernelMap);
  result.arenaLayout = std::move(arena);
  result.artifact.plan = std::move(*plan);
  result.artifact.chip = options.chip;
  for (const rt::PlanStep &s : result.artifact.plan.steps) {
    if (s.kind == rt::PlanStep::Gemm)
      ++result.gemms;
    else if (s.kind == rt::PlanStep::Launch)
      ++result.kernels;
  }
  if (!result.artifact.plan.kernels.empty() ||
      !result.artifact.plan.globals.empty()) {
    auto gpuModule = module->lookupSymbol<gpu::GPUModuleOp>(
        (entry + "_kernels").str());
    if (!gpuModule) {
      error = "no kernel module for @" + entry.str();
      return failure();
    }
    DialectRegistry registry;
    registerNVPTXTranslationDialects(registry);
    ctx->appendDialectRegistry(registry);
    NVPTXOptions nvptx;
    nvptx.chip = options.chip;
    nvptx.compileThreads = resolveCompileThreads(options.compileThreads);
    bool ptx = options.ptxOnly;
    if (!ptx) {
      llvm::Expected<std::string> ptxas = findPtxas();
      if (!ptxas) {
        llvm::consumeError(ptxas.takeError());
        ptx = true;
      }
    }
    nvptx.onStage = [&](const char *stage) { phases.begin(stage); };
    FailureOr<std::string> code = ptx
                                      ? translateGPUModuleToPTX(gpuModule, nvptx)
                                      : translateGPUModuleToCubin(gpuModule,
                                                                  nvptx);
    if (failed(code)) {
      error = "kernel code generation failed:\n" + diagnostics.text;
      return failure();
    }
    result.artifact.module = std::move(*code);
    result.artifact.isPtx = ptx;
  }
  phases.end();
  result.phases = phases.list();
  result.compileMs = std::chrono::duration<double, std::milli>(
                         std::chrono::steady_clock::now() - start)
                         .count();
  result.artifact.metadata = "compiler tgc; function " + entry.str() +
                             "; chip " + options.chip + "; compile_ms " +
                             std::to_string(result.compileMs);
  return result;
}
