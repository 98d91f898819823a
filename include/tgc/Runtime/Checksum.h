//===- Checksum.h - checksums of TGC's artifacts ----------------*- C++ -*-===//
//
// No MLIR or LLVM: part of the runtime.
//
//===----------------------------------------------------------------------===//

#ifndef TGC_RUNTIME_CHECKSUM_H
#define TGC_RUNTIME_CHECKSUM_H

#include <cstddef>
#include <cstdint>

namespace tgc::runtime {

/// 64-bit FNV-1a of `size` bytes: detects the corruption and truncation of
/// an artifact (it is no defence against deliberate tampering).
inline uint64_t fnv1a64(const char *data, size_t size) {
  uint64_t hash = 0xcbf29ce484222325ull;
  for (size_t i = 0; i < size; ++i) {
    hash ^= uint8_t(data[i]);
    hash *= 0x100000001b3ull;
  }
  return hash;
}

} // namespace tgc::runtime

#endif // TGC_RUNTIME_CHECKSUM_H
