//===- ApproximateMath.cpp - polynomial approximations of f32 math -------===//
//
// libm's scalar expf/logf calls keep LLVM from vectorizing the loops of
// softmax, log-softmax, GELU and the entropy scorer; MLIR's polynomial
// approximations are plain arith ops and vectorize.
//
//===----------------------------------------------------------------------===//

#include "tgc/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Approximation.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/ADT/StringSet.h"

namespace mlir::tgc {
#define GEN_PASS_DEF_TGCAPPROXIMATEMATH
#include "tgc/Transforms/CPU/Passes.h.inc"
namespace {
struct TgcApproximateMathPass
    : impl::TgcApproximateMathBase<TgcApproximateMathPass> {
  using TgcApproximateMathBase::TgcApproximateMathBase;

  void runOnOperation() override {
    static const char *const kDefault[] = {"exp", "log", "log2", "tanh",
                                           "erf"};
    llvm::StringSet<> enabled;
    if (ops.empty()) {
      for (const char *name : kDefault)
        enabled.insert(name);
    } else {
      for (const std::string &name : ops) {
        if (!llvm::is_contained(kDefault, name)) {
          InFlightDiagnostic diag = emitError(getOperation()->getLoc())
                                    << "tgc-approximate-math: no approximation "
                                       "for '"
                                    << name << "' (supported: ";
          llvm::interleaveComma(kDefault, diag);
          diag << ")";
          return signalPassFailure();
        }
        enabled.insert(name);
      }
    }
    RewritePatternSet patterns(&getContext());
    // The patterns apply to f32 (scalars and vectors) only; f64 and the
    // other functions stay math ops and go to libm.
    populateMathPolynomialApproximationPatterns(
        patterns, [&](StringRef name) {
          // Upstream asks with the op name (`math.exp`).
          name.consume_front("math.");
          return enabled.contains(name);
        });
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};
} // namespace
} // namespace mlir::tgc
