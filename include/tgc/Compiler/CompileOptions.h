//===- CompileOptions.h - options both compilers take ------------*- C++ -*-===//

#ifndef TGC_COMPILER_COMPILEOPTIONS_H
#define TGC_COMPILER_COMPILEOPTIONS_H

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace mlir {
class PassManager;
} // namespace mlir

namespace mlir::tgc {

/// The shape policy and graph passes of a compile request, shared by the
/// CPU and GPU compilers (set on a pipeline by setShapePolicyOptions).
struct FrontendCompileOptions {
  /// Shape policy for `?` sizes: static, dynamic or auto.
  std::string policy = "dynamic";
  bool specializeZeroOne = true;
  bool duckSizing = true;
  /// Example shape per argument (empty: none), the hints of the symbols.
  std::vector<std::vector<int64_t>> exampleShapes;
  bool fuse = true;
  /// Composites rewritten into primitives (tgc-decompose).
  bool decompose = true;
  /// Verify the IR after every pass, not once per pipeline
  /// (tgc/Compiler/Verification.h; TGC_VERIFY_EACH=1 turns it on too).
  bool verifyEachPass = false;
  /// Called on each PassManager the compiler builds, before it runs: tgc-run
  /// applies MLIR's command-line options there (--mlir-print-ir-after-all,
  /// --mlir-timing, ...). Errors are the callback's to report.
  std::function<void(PassManager &)> configurePassManager;
};

} // namespace mlir::tgc

#endif // TGC_COMPILER_COMPILEOPTIONS_H
