//===- Checksum.h - checksums and fields of TGC's artifacts -----*- C++ -*-===//
//
// The checksum and the little-endian integer fields of TGC's binary files
// (GPU artifacts, sealed shared objects, compile-cache entries). No MLIR or
// LLVM: part of the runtime.
//
//===----------------------------------------------------------------------===//

#ifndef TGC_RUNTIME_CHECKSUM_H
#define TGC_RUNTIME_CHECKSUM_H

#include <cstddef>
#include <cstdint>
#include <string>

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

/// Appends `value` in `bytes` little-endian bytes.
inline void putLE(std::string &out, uint64_t value, int bytes) {
  for (int i = 0; i < bytes; ++i)
    out += char((value >> (8 * i)) & 0xff);
}
inline void putU32(std::string &out, uint32_t value) { putLE(out, value, 4); }
inline void putU64(std::string &out, uint64_t value) { putLE(out, value, 8); }

/// The little-endian integer of `bytes` bytes at `p` (the caller checked
/// they are there).
inline uint64_t getLE(const char *p, int bytes) {
  uint64_t value = 0;
  for (int i = bytes - 1; i >= 0; --i)
    value = (value << 8) | uint8_t(p[i]);
  return value;
}
inline uint32_t getU32(const std::string &in, size_t at) {
  return uint32_t(getLE(in.data() + at, 4));
}
inline uint64_t getU64(const std::string &in, size_t at) {
  return getLE(in.data() + at, 8);
}

} // namespace tgc::runtime

#endif // TGC_RUNTIME_CHECKSUM_H
