//===- SharedObject.h - sealed CPU shared objects ---------------*- C++ -*-===//
//
// tgc-translate --tgc-to-shared-object appends a trailer to the ELF file it
// links: a magic, the ELF's size and its FNV-1a checksum. The dynamic
// loader ignores bytes past the ELF's contents, so the file loads with
// dlopen as it is; the runtime's loader (tgc_shared_object_open) checks the
// trailer first and rejects a truncated or corrupted file with a clear
// error, as the GPU artifact container does. No MLIR or LLVM.
//
//===----------------------------------------------------------------------===//

#ifndef TGC_RUNTIME_SHAREDOBJECT_H
#define TGC_RUNTIME_SHAREDOBJECT_H

#include <string>

namespace tgc::runtime {

/// Version of the trailer layout.
constexpr unsigned kSharedObjectSealVersion = 1;

/// `elf` followed by its trailer.
std::string sealSharedObject(const std::string &elf);

/// Checks the trailer of `bytes` (a whole file); on success `elfSize` is
/// the size of the ELF part. `error` says what is wrong otherwise.
bool verifySharedObject(const std::string &bytes, size_t &elfSize,
                        std::string &error);

} // namespace tgc::runtime

#endif // TGC_RUNTIME_SHAREDOBJECT_H
