//===- tgc-opt.cpp - TGC's optimizer driver -------------------------------===//
//
// mlir-opt for TGC: every tgc dialect and pass, plus the upstream dialects,
// passes and pipelines TGC lowers through, with MlirOptMain's conventions
// (--pass-pipeline, --split-input-file, --verify-diagnostics, --mlir-timing,
// --mlir-print-ir-after-all, ...).
//
//===----------------------------------------------------------------------===//

#include "tgc/InitAllDialects.h"
#include "tgc/InitAllPasses.h"
#include "tgc/Tools/HideLLVMOptions.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

// MLIR's passes come first in --help (alphabetically, TGC's among them):
// the overview says where TGC's are.
static const char kOverview[] =
    "TGC optimizer driver\n\n"
    "  TGC's passes are the --tgc-* flags among the passes below (also\n"
    "  --list-passes); its pipelines, with their options and defaults:\n"
    "    --tgc-frontend-pipeline  symbolic shapes and guards\n"
    "    --tgc-cpu-pipeline       tgc to the LLVM dialect for the host CPU\n"
    "    --tgc-gpu-pipeline       tgc to GPU kernels (NVVM) and a launch plan\n"
    "  e.g. tgc-opt model.mlir --tgc-cpu-pipeline=\"default-policy=static\"\n"
    "  Docs: docs/cpu-pipeline.md, docs/gpu-pipeline.md, docs/generated/.\n"
    "  LLVM's back-end flags (AArch64, AMDGPU, X86, ...): --help-hidden.\n";

int main(int argc, char **argv) {
  mlir::tgc::hideLLVMOptions();
  mlir::tgc::registerAllTgcPasses();
  mlir::DialectRegistry registry;
  mlir::tgc::registerAllTgcDialects(registry);
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, kOverview, registry));
}
