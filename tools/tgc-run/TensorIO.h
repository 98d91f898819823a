//===- TensorIO.h - tgc-run's tensors: inputs, dims, checks ---*- C++ -*-===//

#ifndef TGC_TOOLS_TGC_RUN_TENSORIO_H
#define TGC_TOOLS_TGC_RUN_TENSORIO_H

#include "tgc/Reference/HostTensor.h"
#include "tgc/Runtime/CaseFile.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/Twine.h"

#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <vector>

namespace tgc_run {

using Shapes = std::vector<std::vector<int64_t>>;
namespace ref = mlir::tgc::ref;

/// Prints "tgc-run: error: MESSAGE" and exits with status 2 (tgc-run.cpp).
[[noreturn]] void fail(const llvm::Twine &message);

/// Bytes of a dense tensor of `shape`, saturating at UINT64_MAX.
uint64_t tensorBytes(uint64_t elementBytes, llvm::ArrayRef<int64_t> shape);

/// The element type of a .npy descr ("<f4", "|b1", ...), if TGC has it.
std::optional<ref::DType> npyDType(llvm::StringRef descr);

/// A tensor read from a .npy file (C order, version 1 to 3); fails on
/// anything else.
ref::HostTensor readNpy(llvm::StringRef path);

/// Random inputs; `tgc.input_range = array<f64: lo, hi>` (or i64) on an
/// argument overrides the range (e.g. indices of an embedding).
std::vector<ref::HostTensor> randomInputs(mlir::func::FuncOp f,
                                          const Shapes &shapes,
                                          std::mt19937_64 &rng);

/// "2x?x3" (dims of a shape, `?` for dynamic) and back; parseDims("") is
/// rank 0, and a bad or negative size is nullopt.
std::string formatDims(llvm::ArrayRef<int64_t> dims);
std::optional<std::vector<int64_t>> parseDims(llvm::StringRef text);

struct CheckResult {
  double maxAbs = 0, maxRel = 0;
  bool ok = true;
};

/// Compares a call's results, then its out buffers (arguments the function
/// wrote), with the reference interpreter's, at the dtype's default
/// tolerances unless given; prints each mismatch.
CheckResult checkAgainstReference(llvm::ArrayRef<ref::HostTensor> results,
                                  llvm::ArrayRef<ref::HostTensor> expected,
                                  llvm::ArrayRef<ref::HostTensor> runArgs,
                                  llvm::ArrayRef<ref::HostTensor> refArgs,
                                  size_t call, std::optional<double> rtol,
                                  std::optional<double> atol);

/// One line about a result instead of its elements: "tensor<8x10xf32>:
/// min -0.93, max 1.2, mean 0.0125" (NaNs counted apart; "empty" for no
/// elements).
void summarize(llvm::raw_ostream &os, const ref::HostTensor &t);

/// The median (the upper one of an even count; 0 when empty).
double median(std::vector<double> v);

/// A tensor of a case file (tgc-run --save-case), with or without its data.
::tgc::runtime::CaseTensor caseTensor(const ref::HostTensor &t,
                                     bool data = true);

/// Deep copies.
std::vector<ref::HostTensor> copyTensors(llvm::ArrayRef<ref::HostTensor> in);

} // namespace tgc_run

#endif // TGC_TOOLS_TGC_RUN_TENSORIO_H
