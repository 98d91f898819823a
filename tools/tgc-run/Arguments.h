//===- Arguments.h - tgc-run's ARG: argument indices and names -*- C++ -*-===//
//
// --shape and --calls name an argument of the entry function as ARG: its
// index, or a name the user sees for it: its name location (`%arg0:
// tensor<...> loc("x")`, as the Python tracer writes arguments), its
// `tgc.name` attribute, or its name in the source (`%x` -> `x`, kept by
// the parser's AsmParserState).
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

  /// The index ARG names, if any: an index, else the first argument with
  /// that name location, else with that tgc.name, else with that source
  /// name.
  std::optional<unsigned> index(llvm::StringRef arg) const;

  /// "0 (x), 1 (w), ..." (each argument's first name, where it has one).
  std::string describe() const;

  /// What --shape takes for argument `i`: its first name, else its index.
  std::string label(unsigned i) const;

  /// Applies `ARG=D0xD1...` entries to `shapes`; a bad entry fails, naming
  /// `option`.
  void applyShapeSpecs(llvm::ArrayRef<std::string> specs, Shapes &shapes,
                       llvm::StringRef option) const;

private:
  mutable mlir::func::FuncOp entry; // op handles are not const-correct
  /// Per kind of name (name location, tgc.name, source name), per
  /// argument: the name, "" where there is none.
  std::vector<std::vector<std::string>> names;
};

} // namespace tgc_run

#endif // TGC_TOOLS_TGC_RUN_ARGUMENTS_H
