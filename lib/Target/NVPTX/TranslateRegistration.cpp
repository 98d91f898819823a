//===- TranslateRegistration.cpp - --tgc-to-ptx and --tgc-to-cubin --------===//
//
// The mlir-translate face of the NVPTX target: the input is a module holding
// lowered gpu.modules; the output is their PTX, or the cubin of one of them.
//
//===----------------------------------------------------------------------===//

#include "tgc/Target/NVPTX/NVPTXTarget.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Index/IR/IndexDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-translate/Translation.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::tgc;

namespace {
/// The command-line options both translations share.
struct NVPTXTranslationOptions {
  llvm::cl::OptionCategory category{"TGC GPU translation options"};
  llvm::cl::opt<std::string> chip{
      "tgc-gpu-chip",
      llvm::cl::desc("NVIDIA GPU to generate code for (sm_80, sm_90, ...)"),
      llvm::cl::init("sm_90"), llvm::cl::cat(category)};
  llvm::cl::opt<std::string> features{
      "tgc-gpu-features",
      llvm::cl::desc("LLVM NVPTX target features, e.g. +ptx80 (default: the "
                     "lowest PTX version the chip needs)"),
      llvm::cl::init(""), llvm::cl::cat(category)};
  llvm::cl::opt<unsigned> optLevel{
      "tgc-gpu-opt-level",
      llvm::cl::desc("Optimization level of LLVM and ptxas (0-3)"),
      llvm::cl::init(3), llvm::cl::cat(category)};
  llvm::cl::opt<unsigned> compileThreads{
      "tgc-gpu-compile-threads",
      llvm::cl::desc("Threads for LLVM's optimizer and code generator: the "
                     "kernels in up to this many parts, their PTX joined "
                     "(0: every hardware thread)"),
      llvm::cl::init(1), llvm::cl::cat(category)};
  llvm::cl::opt<std::string> ptxasPath{
      "tgc-ptxas-path",
      llvm::cl::desc("ptxas to run for --tgc-to-cubin (default: search "
                     "$CUDA_HOME, $CUDA_PATH, the configured CUDA toolkit, "
                     "then PATH)"),
      llvm::cl::init(""), llvm::cl::cat(category)};
  llvm::cl::opt<std::string> libdevicePath{
      "tgc-libdevice-path",
      llvm::cl::desc("libdevice bitcode to link when kernels call __nv_* "
                     "functions (default: search the CUDA toolkit)"),
      llvm::cl::init(""), llvm::cl::cat(category)};
  llvm::cl::opt<std::string> moduleName{
      "tgc-gpu-module",
      llvm::cl::desc("Translate only the gpu.module with this name (needed "
                     "by --tgc-to-cubin when there are several)"),
      llvm::cl::init(""), llvm::cl::cat(category)};

  NVPTXOptions toNVPTXOptions() const {
    NVPTXOptions options;
    options.chip = chip;
    options.features = features;
    options.optLevel = optLevel;
    options.compileThreads = compileThreads;
    options.ptxasPath = ptxasPath;
    options.libdevicePath = libdevicePath;
    return options;
  }
};
} // namespace

/// The gpu.modules to translate: every one in `root`, or the one
/// --tgc-gpu-module names.
static FailureOr<SmallVector<gpu::GPUModuleOp>>
collectGPUModules(Operation *root, StringRef selectedName) {
  SmallVector<gpu::GPUModuleOp> modules;
  root->walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (auto module = dyn_cast<gpu::GPUModuleOp>(op)) {
      modules.push_back(module);
      return WalkResult::skip();
    }
    return WalkResult::advance();
  });
  if (modules.empty())
    return emitError(root->getLoc())
           << "no gpu.module to translate; the input must hold gpu.modules "
              "lowered to the LLVM and NVVM dialects";
  if (selectedName.empty())
    return modules;

  auto selected = llvm::find_if(modules, [&](gpu::GPUModuleOp module) {
    return module.getName() == selectedName;
  });
  if (selected == modules.end()) {
    InFlightDiagnostic diag = emitError(root->getLoc())
                              << "no gpu.module named '" << selectedName
                              << "' (--tgc-gpu-module); the input has ";
    llvm::interleaveComma(modules, diag, [&](gpu::GPUModuleOp module) {
      diag << "@" << module.getName();
    });
    return diag;
  }
  return SmallVector<gpu::GPUModuleOp>{*selected};
}

/// What the translations need, plus the dialects a GPU kernel is written in
/// before it is lowered: a module that still holds them parses, and gets the
/// "not lowered" diagnostic rather than "dialect not found".
static void (*extraInputDialects)(DialectRegistry &) = nullptr;

static void registerInputDialects(DialectRegistry &registry) {
  registerNVPTXTranslationDialects(registry);
  if (extraInputDialects)
    extraInputDialects(registry);
  registry
      .insert<arith::ArithDialect, cf::ControlFlowDialect, func::FuncDialect,
              index::IndexDialect, math::MathDialect, memref::MemRefDialect,
              scf::SCFDialect, vector::VectorDialect>();
}

void mlir::tgc::registerNVPTXTranslations(
    void (*inputDialects)(DialectRegistry &)) {
  extraInputDialects = inputDialects;
  // Function-local statics: the options exist only in tools that register
  // these translations.
  static NVPTXTranslationOptions clOptions;

  static TranslateFromMLIRRegistration toPTX(
      "tgc-to-ptx",
      "Translate lowered gpu.modules to PTX, each after a comment naming it",
      [](Operation *root, raw_ostream &os) -> LogicalResult {
        FailureOr<SmallVector<gpu::GPUModuleOp>> modules =
            collectGPUModules(root, clOptions.moduleName);
        if (failed(modules))
          return failure();
        NVPTXOptions options = clOptions.toNVPTXOptions();
        for (auto [index, module] : llvm::enumerate(*modules)) {
          FailureOr<std::string> ptx = translateGPUModuleToPTX(module, options);
          if (failed(ptx))
            return failure();
          if (index != 0)
            os << "\n";
          os << "// gpu.module @" << module.getName() << "\n" << *ptx;
        }
        return success();
      },
      registerInputDialects);

  static TranslateFromMLIRRegistration toCubin(
      "tgc-to-cubin",
      "Translate one lowered gpu.module to a cubin (runs ptxas)",
      [](Operation *root, raw_ostream &os) -> LogicalResult {
        FailureOr<SmallVector<gpu::GPUModuleOp>> modules =
            collectGPUModules(root, clOptions.moduleName);
        if (failed(modules))
          return failure();
        if (modules->size() > 1) {
          InFlightDiagnostic diag =
              emitError(root->getLoc())
              << "--tgc-to-cubin makes one cubin, but the input has "
              << modules->size() << " gpu.modules (";
          llvm::interleaveComma(*modules, diag, [&](gpu::GPUModuleOp module) {
            diag << "@" << module.getName();
          });
          diag << "); choose one with --tgc-gpu-module=NAME";
          return diag;
        }
        FailureOr<std::string> cubin = translateGPUModuleToCubin(
            modules->front(), clOptions.toNVPTXOptions());
        if (failed(cubin))
          return failure();
        os << *cubin;
        return success();
      },
      registerInputDialects);
}
