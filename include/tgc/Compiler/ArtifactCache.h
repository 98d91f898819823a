//===- ArtifactCache.h - compiled artifacts on disk, by content -*- C++ -*-===//
//
// TGC's on-disk compile cache (docs/compile-cache.md). An entry is one
// compiled specialization, found by a key that hashes everything the
// compiled code depends on: the function's text and entry, the compile
// options that change code, TGC's build, and the target (the host CPU and
// its features; the GPU chip and the ptxas that made the cubin).
//
// Entries are written to a temporary file and renamed into place, so a
// reader sees a whole entry or none, and processes compiling the same
// function at once each write a whole entry for the same code (the last
// rename wins). Every entry carries a magic,
// a format version, its own key and a checksum: a truncated, corrupted or
// mismatched entry is removed with a warning and the caller compiles again;
// it is never used. The cache is kept under a size bound by removing the
// least recently used entries (a hit refreshes an entry's time).
//
//===----------------------------------------------------------------------===//

#ifndef TGC_COMPILER_ARTIFACTCACHE_H
#define TGC_COMPILER_ARTIFACTCACHE_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace mlir::tgc {

/// The hex SHA-256 of `parts`, each length-prefixed (so that no two lists
/// of parts hash alike by concatenation).
std::string cacheKey(llvm::ArrayRef<std::string> parts);

/// What TGC's build adds to every key: its version, LLVM's, and the GNU
/// build IDs (content hashes) of the binaries holding TGC, LLVM and MLIR,
/// so that a rebuilt TGC never reads a cache an older build wrote, and the
/// same build on another machine does. "" when a build ID is missing: the
/// compile cache is then off.
const std::string &compilerFingerprint();

/// The host CPU as LLVM sees it (name and features): CPU code is compiled
/// for it.
const std::string &hostCpuFingerprint();

/// A named list of byte strings: the payload of an entry.
class CacheRecord {
public:
  void set(llvm::StringRef name, llvm::StringRef bytes);
  void setInt(llvm::StringRef name, int64_t value);
  /// A list of strings without newlines, one per line.
  void setLines(llvm::StringRef name, const std::vector<std::string> &lines);
  /// "" / 0 when absent.
  std::string get(llvm::StringRef name) const;
  int64_t getInt(llvm::StringRef name) const;
  std::vector<std::string> getLines(llvm::StringRef name) const;
  bool has(llvm::StringRef name) const { return fields.count(name.str()); }

  std::string serialize() const;
  /// False (with `error`) on a malformed payload.
  static bool parse(llvm::StringRef bytes, CacheRecord &out,
                    std::string &error);

private:
  std::map<std::string, std::string> fields;
};

class ArtifactCache {
public:
  /// Entry files: `dir/<key[0:2]>/<key>.tgcc`. `maxBytes` bounds the sum of
  /// the entries' sizes.
  ArtifactCache(std::string dir, uint64_t maxBytes);

  /// The entry's payload, or nothing: a miss, or an entry that fails a
  /// check (then removed, and `warning` says why).
  std::optional<std::string> load(llvm::StringRef key,
                                  std::string &warning) const;

  /// Writes the entry atomically, then removes the least recently used
  /// entries while the cache is over its bound. Fails (with `warning`) on
  /// an I/O error: the compiled code is still good, only not kept.
  bool store(llvm::StringRef key, llvm::StringRef payload,
             std::string &warning) const;

  std::string pathOf(llvm::StringRef key) const;

  /// An entry's bytes for `key` and `payload` (the file's content).
  static std::string encode(llvm::StringRef key, llvm::StringRef payload);
  /// The payload of an entry's bytes, checked against `key` (empty: any
  /// key, then `key` is not compared); false with `error` otherwise.
  static bool decode(llvm::StringRef bytes, llvm::StringRef key,
                     std::string &payload, std::string &error,
                     std::string *storedKey = nullptr);

  /// Removes least recently used entries until the cache holds at most
  /// `bytes`, never the entry at `keep` (one just written); also removes
  /// temporary files writers left a day ago or more.
  void evictTo(uint64_t bytes, llvm::StringRef keep = {}) const;

private:
  std::string dir;
  uint64_t maxBytes;
};

} // namespace mlir::tgc

#endif // TGC_COMPILER_ARTIFACTCACHE_H
