//===- TuningCache.h - library choices kept on disk (private) --*- C++ -*-===//
//
// The runtime times a library's candidates for each shape the first time it
// runs: cuBLASLt's algorithms for a GEMM (GpuGemm.cpp, kind "gemm"), cuDNN's
// engine configurations for a convolution (GpuConv.cpp, kind "cudnn"). With
// a folder set (tgc_set_gemm_tuning_cache), each choice is also written to
// disk, as the index of the chosen candidate in the library's heuristic
// list, and a later process takes it from there instead of timing again
// (docs/compile-cache.md). One folder per kind (`<kind>-tuning`), one file
// per device and library version; one line per shape with its own
// checksum, appended, so that concurrent writers and a torn write lose at
// most their own line.
//
//===----------------------------------------------------------------------===//

#ifndef TGC_LIB_RUNTIME_TUNINGCACHE_H
#define TGC_LIB_RUNTIME_TUNINGCACHE_H

#include <cstdint>
#include <string>
#include <vector>

namespace tgc::runtime {

/// The folder ("": no disk cache).
void setTuningCacheDir(const std::string &dir);

/// The candidate index recorded for `shape` on `device` (a device name and
/// library version) by library `kind` ("gemm", "cudnn"), or -1.
int lookupTuning(const std::string &kind, const std::string &device,
                 const std::vector<int64_t> &shape);

/// Records the chosen candidate (appends a line; I/O errors are ignored:
/// the choice is only not kept).
void recordTuning(const std::string &kind, const std::string &device,
                  const std::vector<int64_t> &shape, int index);

/// The file of `kind` and `device` (for tests and messages).
std::string tuningFile(const std::string &kind, const std::string &device);

} // namespace tgc::runtime

#endif // TGC_LIB_RUNTIME_TUNINGCACHE_H
