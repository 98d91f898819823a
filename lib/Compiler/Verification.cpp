//===- Verification.cpp - when the compilers verify the IR ----------------===//

#include "tgc/Compiler/Verification.h"

#include "mlir/IR/Verifier.h"

#include <cstdlib>
#include <cstring>

using namespace mlir;

bool mlir::tgc::resolveVerifyEachPass(bool requested) {
  if (requested)
    return true;
  const char *env = std::getenv("TGC_VERIFY_EACH");
  return env && *env && std::strcmp(env, "0") != 0;
}

LogicalResult mlir::tgc::runVerified(PassManager &pm, ModuleOp module,
                                     bool verifyEach, StringRef pipeline) {
  pm.enableVerifier(verifyEach);
  if (failed(pm.run(module)))
    return failure();
  if (verifyEach || succeeded(verify(module)))
    return success();
  module.emitError() << "the IR after the " << pipeline
                     << " passes does not verify (a compiler bug; "
                        "TGC_VERIFY_EACH=1 names the pass that broke it)";
  return failure();
}
