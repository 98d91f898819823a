//===- CaseFile.h - One call of a compiled GPU function, on disk -*- C++ -*-===//
//
// `tgc-run --device cuda --compile-only --save-case DIR` writes, for each
// call N, DIR/callN.case: which specialization (DIR/specK.tgca) runs it, its
// argument tensors, and with `--check reference` the reference
// interpreter's results and out buffers; `tgc-gpu-run DIR` (no LLVM or
// MLIR) runs and compares them. This is the one reader and writer of the
// format. Plain C++17.
//
// Format (little-endian): "TGCCASE1"; u32 spec, u32 argument count, u32
// result count or 0xFFFFFFFF (no reference); the arguments, then with a
// reference the results and the arguments after the call (out buffers).
// A tensor: i32 dtype code (bit 8 set: no data, the runner draws it),
// i32 rank, i64 sizes, then the row-major bytes.
//
//===----------------------------------------------------------------------===//

#ifndef TGC_RUNTIME_CASEFILE_H
#define TGC_RUNTIME_CASEFILE_H

#include <cstdint>
#include <string>
#include <vector>

namespace tgc::runtime {

struct CaseTensor {
  int32_t dtype = 0; // a TGC_DTYPE_* code
  std::vector<int64_t> sizes;
  /// False: the file has the shape only, and the runner draws the values.
  bool hasData = true;
  std::string bytes; // row-major, when hasData
};

struct CaseFile {
  uint32_t spec = 0; // the specialization: DIR/spec<spec>.tgca
  std::vector<CaseTensor> args;
  /// With a reference: its results and the arguments after the call.
  bool reference = false;
  std::vector<CaseTensor> expected, expectedArgs;
};

std::string writeCaseFile(const CaseFile &file);

/// Parses `bytes`; on a malformed file returns false with `error` saying
/// what is wrong (not a case file, truncated, a bad header or size).
bool readCaseFile(const std::string &bytes, CaseFile &file,
                  std::string &error);

} // namespace tgc::runtime

#endif // TGC_RUNTIME_CASEFILE_H
