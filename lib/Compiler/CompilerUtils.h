//===- CompilerUtils.h - shared by the CPU and GPU compilers ----*- C++ -*-===//

#ifndef TGC_LIB_COMPILER_COMPILERUTILS_H
#define TGC_LIB_COMPILER_COMPILERUTILS_H

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <string>

namespace mlir::tgc {

/// Collects the diagnostics of a pipeline run into a string.
class ErrorCollector {
public:
  explicit ErrorCollector(MLIRContext *ctx)
      : handler(ctx, [this](Diagnostic &diag) {
          llvm::raw_string_ostream os(text);
          os << diag.getLocation() << ": ";
          switch (diag.getSeverity()) {
          case DiagnosticSeverity::Error:
            os << "error: ";
            break;
          case DiagnosticSeverity::Warning:
            os << "warning: ";
            break;
          default:
            os << "note: ";
            break;
          }
          os << diag << "\n";
          for (Diagnostic &note : diag.getNotes()) {
            std::string text = note.str();
            if (StringRef(text).starts_with("see current operation"))
              continue;
            os << "  note: " << text << "\n";
          }
          return success();
        }) {}
  std::string text;

private:
  ScopedDiagnosticHandler handler;
};

inline std::string formatShape(ArrayRef<int64_t> shape) {
  std::string s;
  llvm::raw_string_ostream os(s);
  llvm::interleave(shape, os, "x");
  return s;
}

} // namespace mlir::tgc

#endif // TGC_LIB_COMPILER_COMPILERUTILS_H
