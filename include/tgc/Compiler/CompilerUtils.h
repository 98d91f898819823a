//===- CompilerUtils.h - shared by the compilers and their drivers -*- C++ -*-===//

#ifndef TGC_COMPILER_COMPILERUTILS_H
#define TGC_COMPILER_COMPILERUTILS_H

#include "tgc/Compiler/CompileOptions.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
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

/// A copy of `source` with `entry` as its only function with a body (the
/// compile options, example shapes for instance, are the entry's), or null
/// with `error` set when there is no such function.
inline OwningOpRef<ModuleOp> cloneEntryModule(ModuleOp source, StringRef entry,
                                              std::string &error) {
  OwningOpRef<ModuleOp> module = cast<ModuleOp>(source->clone());
  auto func = module->lookupSymbol<func::FuncOp>(entry);
  if (!func || func.isExternal()) {
    error = ("no function @" + entry + " with a body in the module").str();
    return nullptr;
  }
  for (auto other : llvm::make_early_inc_range(module->getOps<func::FuncOp>()))
    if (other != func && !other.isExternal())
      other.erase();
  return module;
}

/// The symbol of `entry` in code that TGC's JIT links: `tgc_entry_<entry>`,
/// a name no C library, libm or runtime symbol has, whatever the user named
/// the function.
inline std::string jitEntrySymbol(StringRef entry) {
  return ("tgc_entry_" + entry).str();
}

/// The function a driver compiles: `name`, or (when empty) the module's
/// only public function with a body. Null with `error` set otherwise.
inline func::FuncOp findEntryFunction(ModuleOp module, StringRef name,
                                      std::string &error) {
  if (!name.empty()) {
    auto entry = module.lookupSymbol<func::FuncOp>(name);
    if (!entry || entry.isExternal()) {
      error = ("no function @" + name + " with a body").str();
      return nullptr;
    }
    return entry;
  }
  func::FuncOp entry;
  for (auto f : module.getOps<func::FuncOp>()) {
    if (f.isExternal() || !f.isPublic())
      continue;
    if (entry) {
      error = "several public functions";
      return nullptr;
    }
    entry = f;
  }
  if (!entry)
    error = "no public function with a body";
  return entry;
}

/// The shape-policy options of a compile request set on a pipeline's
/// options.
template <typename PipelineOptions>
void setShapePolicyOptions(PipelineOptions &pipeline,
                           const FrontendCompileOptions &options) {
  pipeline.defaultPolicy = options.policy;
  pipeline.specializeZeroOne = options.specializeZeroOne;
  pipeline.duckSizing = options.duckSizing;
  pipeline.fuse = options.fuse;
  pipeline.decompose = options.decompose;
  SmallVector<std::string> examples;
  for (auto [i, shape] : llvm::enumerate(options.exampleShapes))
    if (!shape.empty())
      examples.push_back(std::to_string(i) + "=" + formatShape(shape));
  pipeline.exampleShapes = examples;
}

} // namespace mlir::tgc

#endif // TGC_COMPILER_COMPILERUTILS_H
