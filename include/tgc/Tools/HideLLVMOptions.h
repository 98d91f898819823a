//===- HideLLVMOptions.h - Keep the tools' --help about TGC ----*- C++ -*-===//
//
// libLLVM registers its back-end and optimizer flags (--aarch64-*,
// --amdgpu-*, --x86-*, --nvptx-*, --polly-*, debug counters, ...) when it
// is loaded, so every tool linking it listed ~500 of them first in --help.
// The tools call hideLLVMOptions() before registering MLIR's options (and
// tgc-opt before registering its own): what was registered until then is
// marked hidden (still accepted, still shown by --help-hidden), except the
// generic help and version flags and the options of the tool's own
// categories (`keep`: tgc-run's are static objects, registered before
// main).
//
//===----------------------------------------------------------------------===//

#ifndef TGC_TOOLS_HIDELLVMOPTIONS_H
#define TGC_TOOLS_HIDELLVMOPTIONS_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/CommandLine.h"

namespace mlir::tgc {

inline void
hideLLVMOptions(llvm::ArrayRef<const llvm::cl::OptionCategory *> keep = {}) {
  static const llvm::StringRef keepNames[] = {
      "help",    "help-list",     "help-hidden",       "help-list-hidden",
      "version", "print-options", "print-all-options", "color"};
  for (auto &entry : llvm::cl::getRegisteredOptions()) {
    llvm::cl::Option *option = entry.second;
    if (llvm::is_contained(keepNames, entry.first) ||
        llvm::any_of(option->Categories,
                     [&](const llvm::cl::OptionCategory *c) {
                       return llvm::is_contained(keep, c);
                     }))
      continue;
    if (option->getOptionHiddenFlag() == llvm::cl::NotHidden)
      option->setHiddenFlag(llvm::cl::Hidden);
  }
}

} // namespace mlir::tgc

#endif // TGC_TOOLS_HIDELLVMOPTIONS_H
