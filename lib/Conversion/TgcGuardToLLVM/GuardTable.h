//===- GuardTable.h - guards checked from a table -------------------------===//
//
// The guards of a large guard set as records of a constant table, checked
// by one loop, instead of a chain of blocks per guard: a model's parameters
// bring five guards each (rank, dtype, device, contiguous, a size per
// dim), and 24 GPT-style blocks' 1543 guards were a guard function of 22k
// lines of LLVM IR, about 400 ms of LLVM work on each cold compile for
// code that runs once per call (docs/compile-cache.md, "Guards checked
// from a table").
//
//===----------------------------------------------------------------------===//

#ifndef TGC_LIB_CONVERSION_TGCGUARDTOLLVM_GUARDTABLE_H
#define TGC_LIB_CONVERSION_TGCGUARDTOLLVM_GUARDTABLE_H

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Builders.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

#include <array>
#include <optional>

namespace mlir::tgc::guard_lowering {

// tgc_arg_desc layout (tgc_runtime.h).
constexpr int64_t kDescSize = 56;
constexpr int64_t kDataOffset = 0;
constexpr int64_t kSizesOffset = 8;
constexpr int64_t kStridesOffset = 16;
constexpr int64_t kRankOffset = 24;
constexpr int64_t kScalarOffset = 32;
constexpr int64_t kDtypeOffset = 40;
constexpr int64_t kDeviceTypeOffset = 44;
constexpr int64_t kDeviceIndexOffset = 48;

/// Sizes beyond this are rejected: no real tensor has them, and it keeps
/// sums of sizes far from overflow.
constexpr int64_t kMaxSize = int64_t(1) << 48;

/// The runtime's dtype code of an element type.
std::optional<int32_t> dtypeCode(Type t);

/// One record of the table: {guard index, kind, arg, dim, a, b} (i64 each).
using GuardRecord = std::array<int64_t, 6>;

/// The record that checks `op` (guard number `index` of its set) exactly
/// as its code would, or none when it needs code: rank, dtype, device,
/// contiguous and the range of an argument's size have records; relations,
/// ranges of min / max sizes, alignment, aliasing and scalars do not.
std::optional<GuardRecord> tableRecord(Operation *op, int32_t index,
                                       FunctionOpInterface target);

/// `name`: a constant i64 array of the records, one after another.
LLVM::GlobalOp buildGuardTable(OpBuilder &b, Location loc, StringRef name,
                               ArrayRef<GuardRecord> records);

/// `name`: `int32_t name(const tgc_arg_desc *args, int32_t num_args,
/// const int64_t *table, int64_t begin, int64_t end)`, which checks the
/// records [begin, end) in order and returns the guard index of the first
/// that fails, or -1. Its reads are guarded as the guard function's are:
/// the argument exists, a size's dim is below the rank, sizes are in
/// [0, kMaxSize), and products do not overflow.
LLVM::LLVMFuncOp buildGuardTableCheck(OpBuilder &b, Location loc,
                                      StringRef name);

} // namespace mlir::tgc::guard_lowering

#endif // TGC_LIB_CONVERSION_TGCGUARDTOLLVM_GUARDTABLE_H
