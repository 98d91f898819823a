//===- Verification.h - when the compilers verify the IR ---------*- C++
//-*-===//
//
// MLIR's pass manager verifies the whole module after every pass. That is
// what `tgc-opt` does (each lit test sees every pass's output checked),
// and what a compile from Python or `tgc-run` does when asked
// (TGC_VERIFY_EACH=1, `tgc-run --verify-each`, and the test suite). By
// default a compile verifies the module once at the end of each of its
// pass pipelines instead: the verifier was 13% of a 6-block CPU stack's
// compile (docs/compile-cache.md, "Verification"), and IR that does not
// verify still never reaches the translation to LLVM IR.
//
//===----------------------------------------------------------------------===//

#ifndef TGC_COMPILER_VERIFICATION_H
#define TGC_COMPILER_VERIFICATION_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/StringRef.h"

namespace mlir::tgc {

/// Whether a compile verifies after every pass: `requested`, or
/// TGC_VERIFY_EACH set to anything but "0" or "".
bool resolveVerifyEachPass(bool requested);

/// Runs `pm` on `module`. Unless `verifyEach`, `pm`'s verifier is turned
/// off and the module verified once after the last pass; a module that
/// does not verify then fails with an error naming `pipeline` (its
/// diagnostics go to the context's handlers, like a pass's).
LogicalResult runVerified(PassManager &pm, ModuleOp module, bool verifyEach,
                          llvm::StringRef pipeline);

} // namespace mlir::tgc

#endif // TGC_COMPILER_VERIFICATION_H
