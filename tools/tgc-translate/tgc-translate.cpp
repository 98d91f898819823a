//===- tgc-translate.cpp - TGC's translation driver -----------------------===//
//
// mlir-translate for TGC: upstream's --mlir-to-llvmir plus TGC's own
// translations to GPU and CPU code and to the GPU launch plan.
//
//===----------------------------------------------------------------------===//

#include "tgc/InitAllDialects.h"
#include "tgc/Target/Host/HostTarget.h"
#include "tgc/Target/LaunchPlan/LaunchPlan.h"
#include "tgc/Target/NVPTX/NVPTXTarget.h"
#include "tgc/Tools/HideLLVMOptions.h"

#include "mlir/InitAllTranslations.h"
#include "mlir/Tools/mlir-translate/MlirTranslateMain.h"

int main(int argc, char **argv) {
  mlir::tgc::hideLLVMOptions();
  mlir::registerToLLVMIRTranslation();
  mlir::tgc::registerNVPTXTranslations(mlir::tgc::registerAllTgcDialects);
  mlir::tgc::registerHostTranslations(mlir::tgc::registerAllTgcDialects);
  mlir::tgc::registerLaunchPlanTranslation(mlir::tgc::registerAllTgcDialects);
  return mlir::failed(
      mlir::mlirTranslateMain(argc, argv, "TGC translation driver\n"));
}
