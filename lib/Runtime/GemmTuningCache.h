//===- GemmTuningCache.h - cuBLASLt choices kept on disk (private) -*- C++ -*-===//
//
// The runtime times cuBLASLt's candidate algorithms for each GEMM shape the
// first time it runs (GpuGemm.cpp). With a folder set
// (tgc_set_gemm_tuning_cache), each choice is also written to disk, as the
// index of the chosen candidate in cuBLASLt's heuristic list, and a later
// process takes it from there instead of timing again (docs/compile-cache.md).
// One file per device and cuBLASLt version; one line per shape with its own
// checksum, appended, so that concurrent writers and a torn write lose at
// most their own line.
//
//===----------------------------------------------------------------------===//

#ifndef TGC_LIB_RUNTIME_GEMMTUNINGCACHE_H
#define TGC_LIB_RUNTIME_GEMMTUNINGCACHE_H

#include <cstdint>
#include <string>
#include <vector>

namespace tgc::runtime {

/// The folder ("": no disk cache).
void setGemmTuningCacheDir(const std::string &dir);

/// The candidate index recorded for `shape` on `device` (a device name and
/// library version), or -1.
int lookupGemmTuning(const std::string &device,
                     const std::vector<int64_t> &shape);

/// Records the chosen candidate (appends a line; I/O errors are ignored:
/// the choice is only not kept).
void recordGemmTuning(const std::string &device,
                      const std::vector<int64_t> &shape, int index);

/// The file of `device` (for tests and messages).
std::string gemmTuningFile(const std::string &device);

} // namespace tgc::runtime

#endif // TGC_LIB_RUNTIME_GEMMTUNINGCACHE_H
