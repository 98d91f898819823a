//===- HideLLVMOptions.h - Keep the tools' --help about TGC ----*- C++ -*-===//
//
// libLLVM registers its back-end and optimizer flags (--aarch64-*,
// --amdgpu-*, --polly-*, ...) when it is loaded, so every tool linking it
// listed ~500 of them first in --help. The tools call hideLLVMOptions()
// before registering their own and MLIR's options: what was registered
// until then is marked hidden (still accepted, still shown by
// --help-hidden), except the generic help and version flags.
//
//===----------------------------------------------------------------------===//

#ifndef TGC_TOOLS_HIDELLVMOPTIONS_H
#define TGC_TOOLS_HIDELLVMOPTIONS_H

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/CommandLine.h"

namespace mlir::tgc {

inline void hideLLVMOptions() {
  static const llvm::StringRef keep[] = {
      "help",    "help-list",     "help-hidden",       "help-list-hidden",
      "version", "print-options", "print-all-options", "color"};
  for (auto &entry : llvm::cl::getRegisteredOptions()) {
    if (llvm::is_contained(keep, entry.first))
      continue;
    if (entry.second->getOptionHiddenFlag() == llvm::cl::NotHidden)
      entry.second->setHiddenFlag(llvm::cl::Hidden);
  }
}

} // namespace mlir::tgc

#endif // TGC_TOOLS_HIDELLVMOPTIONS_H
