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

int main(int argc, char **argv) {
  mlir::tgc::hideLLVMOptions();
  mlir::tgc::registerAllTgcPasses();
  mlir::DialectRegistry registry;
  mlir::tgc::registerAllTgcDialects(registry);
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "TGC optimizer driver\n", registry));
}
