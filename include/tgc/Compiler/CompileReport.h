//===- CompileReport.h - what a compile did, for reports -------*- C++ -*-===//
//
// What `tgc.explain`, TGC_LOGS=compile_time and the HTML report show of a
// compile: its wall time by phase (parse, frontend, kernels, bufferize,
// loops, LLVM, ptxas, ...; pipeline phases are delimited by the first pass
// of each, through a PassInstrumentation, the others by begin()/end()),
// the source lines each kernel computes, and the arena's layout.
//
//===----------------------------------------------------------------------===//

#ifndef TGC_COMPILER_COMPILEREPORT_H
#define TGC_COMPILER_COMPILEREPORT_H

#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <chrono>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace mlir::tgc {

class CompilePhases {
public:
  /// Ends the current phase and starts `name` (a phase that runs again
  /// adds to its earlier time).
  void begin(llvm::StringRef name);
  /// Ends the current phase.
  void end();
  /// The phase running now ("" when none).
  llvm::StringRef current() const { return currentName; }

  /// (phase, milliseconds), in the order the phases first ran.
  const std::vector<std::pair<std::string, double>> &list() const {
    return phases;
  }
  /// "parse=1.20;frontend=10.50;...", the C API's form.
  std::string text() const;

  /// Times the passes of `pm` into phases: a pass whose argument is a key
  /// of `marks` begins the phase it maps to; the first pass begins
  /// `first`.
  void instrument(PassManager &pm, llvm::StringRef first,
                  llvm::ArrayRef<std::pair<llvm::StringRef, llvm::StringRef>>
                      marks);

private:
  std::vector<std::pair<std::string, double>> phases;
  std::string currentName;
  std::chrono::steady_clock::time_point started;
};

/// The model's source locations of the ops inside `kernel`, once each in
/// order: `scope@file:line` (scope: the module path a NameLoc carries) or
/// `file:line`, joined by '|'. For the report's kernel map: which traced
/// ops each kernel computes.
std::string kernelSources(Operation *kernel);

/// The arena layout tgc-plan-memory recorded on `func` (`tgc.memory_plan`'s
/// `layout`), for the argument sizes `shapes` (an argument without a shape
/// makes the sizes unknown): "offset bytes first last" per buffer and
/// line, in bytes and top-level op positions; "" without a plan or sizes.
std::string arenaLayout(Operation *func,
                        llvm::ArrayRef<std::vector<int64_t>> shapes);

} // namespace mlir::tgc

#endif // TGC_COMPILER_COMPILEREPORT_H
