//===- Arguments.h - tgc-run's ARG: argument indices and names -*- C++ -*-===//
//
// --shape and --calls name an argument of the entry function as ARG: its
// index, its name in the source (`%x` -> `x`, kept by the parser's
// AsmParserState) or its `tgc.name` attribute.
//
//===----------------------------------------------------------------------===//

#ifndef TGC_TOOLS_TGC_RUN_ARGUMENTS_H
#define TGC_TOOLS_TGC_RUN_ARGUMENTS_H

#include "TensorIO.h"

#include "mlir/AsmParser/AsmParserState.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <optional>
#include <string>
#include <vector>

namespace tgc_run {

class EntryArguments {
public:
  EntryArguments(mlir::func::FuncOp entry, const mlir::AsmParserState &state);

  /// The index ARG names, if any.
  std::optional<unsigned> index(llvm::StringRef arg) const;

  /// "0 (x), 1 (w), ..." (names where the source has them).
  std::string describe() const;

  /// Applies `ARG=D0xD1...` entries to `shapes`; a bad entry fails, naming
  /// `option`.
  void applyShapeSpecs(llvm::ArrayRef<std::string> specs, Shapes &shapes,
                       llvm::StringRef option) const;

private:
  mutable mlir::func::FuncOp entry; // op handles are not const-correct
  std::vector<std::string> sourceNames; // "" where the source has none
};

} // namespace tgc_run

#endif // TGC_TOOLS_TGC_RUN_ARGUMENTS_H
