//===- HostTensor.h - Host tensors of the reference interpreter -*- C++ -*-===//
//
// The value type of the reference interpreter (Interpreter.h) and of the
// tools that compare compiled code against it: a dense, row-major, owned
// buffer with one of TGC's eight element types, element accessors that go
// through double / int64, and a tolerance-aware comparison.
//
//===----------------------------------------------------------------------===//

#ifndef TGC_REFERENCE_HOSTTENSOR_H
#define TGC_REFERENCE_HOSTTENSOR_H

#include "tgc/Runtime/tgc_runtime.h"
#include "mlir/IR/Types.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <utility>

namespace llvm {
class raw_ostream;
} // namespace llvm

namespace mlir {
class MLIRContext;

namespace tgc::ref {

/// Element types, in the order (and with the codes) of `tgc_dtype` in
/// tgc/Runtime/tgc_runtime.h.
enum class DType { F32, F16, BF16, F64, I64, I32, I8, I1 };
// The values are the runtime's tgc_dtype (tgc-run and the GPU compiler pass
// them to the runtime as they are).
static_assert(int(DType::F32) == TGC_DTYPE_F32 &&
                  int(DType::F16) == TGC_DTYPE_F16 &&
                  int(DType::BF16) == TGC_DTYPE_BF16 &&
                  int(DType::F64) == TGC_DTYPE_F64 &&
                  int(DType::I64) == TGC_DTYPE_I64 &&
                  int(DType::I32) == TGC_DTYPE_I32 &&
                  int(DType::I8) == TGC_DTYPE_I8 && int(DType::I1) == TGC_DTYPE_I1,
              "DType must match tgc_dtype");

/// The DType of an MLIR element type (f32, f16, bf16, f64, i64, i32, i8,
/// i1), or nullopt for any other type.
std::optional<DType> dtypeOf(Type elementType);
/// The MLIR element type of `dtype`.
Type toMLIRType(DType dtype, MLIRContext *context);
/// Bytes per element in a HostTensor (i1 is stored as one byte, 0 or 1).
size_t elementBytes(DType dtype);
/// "f32", "f16", "bf16", "f64", "i64", "i32", "i8", "i1".
const char *dtypeName(DType dtype);
bool isFloatDType(DType dtype);

/// A dense row-major tensor that owns its bytes (64-byte aligned). Copies
/// are deep. Element access goes through double (getFloat/setFloat) or
/// int64 (getInt/setInt) and converts as PyTorch's `Tensor.to` does.
class HostTensor {
public:
  HostTensor() = default;
  /// A zero-filled tensor. Sizes must be non-negative. When its bytes
  /// cannot be allocated (their count overflows, exceeds the machine's
  /// physical memory, or the allocation fails) the tensor gets every size
  /// 0 and no storage, and the failure is kept for takeAllocationFailure().
  HostTensor(DType dtype, ArrayRef<int64_t> shape);
  /// The same without the zero fill: for memory that is written whole
  /// before it is read (a compiled function's results).
  static HostTensor uninitialized(DType dtype, ArrayRef<int64_t> shape);
  HostTensor(const HostTensor &other);
  HostTensor &operator=(const HostTensor &other);
  HostTensor(HostTensor &&other) noexcept = default;
  HostTensor &operator=(HostTensor &&other) noexcept = default;
  ~HostTensor() = default;

  DType dtype() const { return type; }
  ArrayRef<int64_t> shape() const { return sizes; }
  int64_t rank() const { return static_cast<int64_t>(sizes.size()); }
  int64_t numel() const { return count; }
  void *data() { return bytes.get(); }
  const void *data() const { return bytes.get(); }
  size_t byteSize() const {
    return static_cast<size_t>(count) * elementBytes(type);
  }

  /// The element at row-major position `flat` as a double (integers and
  /// bools converted).
  double getFloat(int64_t flat) const;
  /// The element as int64: floats truncate toward zero (NaN, infinities
  /// and out-of-range values give INT64_MIN, as PyTorch on x86 does), bools
  /// are 0/1.
  int64_t getInt(int64_t flat) const;
  /// Stores `v` rounded to the element type: round-to-nearest-even for
  /// f32/f16/bf16 (overflow to infinity), truncation toward zero for
  /// integers (out-of-range values as PyTorch on x86: the "integer
  /// indefinite" of a 32-bit conversion for i32/i8, of a 64-bit one for
  /// i64), `v != 0` for i1.
  void setFloat(int64_t flat, double v);
  /// Stores `v`: wraps for narrower integers, `v != 0` for i1, converted
  /// (rounded) for floats.
  void setInt(int64_t flat, int64_t v);

  /// The first allocation failure of this thread since the last take (""
  /// when none); clears it.
  static std::string takeAllocationFailure();

  /// Floats uniform in [low, high) (after rounding to the type); integers
  /// uniform in [ceil(low), ceil(high)) (just ceil(low) when that range is
  /// empty); bools 50/50. Deterministic for a given `rng` state on every
  /// platform (no std:: distributions).
  static HostTensor random(DType dtype, ArrayRef<int64_t> shape,
                           std::mt19937_64 &rng, double low, double high);

private:
  HostTensor(DType dtype, ArrayRef<int64_t> shape, bool zero);
  struct FreeDeleter {
    void operator()(void *p) const;
  };
  DType type = DType::F32;
  SmallVector<int64_t, 4> sizes;
  int64_t count = 0;
  std::unique_ptr<unsigned char[], FreeDeleter> bytes;
};

/// The result of compare().
struct Comparison {
  bool ok = true;
  double maxAbsErr = 0;
  double maxRelErr = 0;
  int64_t mismatches = 0;
  /// Row-major position of the first mismatch, -1 when none.
  int64_t firstMismatch = -1;
  /// Empty when ok; otherwise what differs, with the first mismatch.
  std::string message;
};

/// Compares element by element: `|a - e| <= atol + rtol * |e|`. NaN equals
/// NaN, an infinity equals the same infinity, and NaN never equals a
/// number. Shapes and dtypes must match (else ok = false, with a message).
/// Integers and bools are compared exactly when both tolerances are 0.
Comparison compare(const HostTensor &actual, const HostTensor &expected,
                   double rtol, double atol);

/// (rtol, atol) for comparing results of `dtype` with the reference: f64
/// (1e-9, 1e-12), f32 (1e-4, 1e-5), f16 (1e-2, 1e-3), bf16 (2e-2, 1e-2),
/// integers and bools (0, 0).
std::pair<double, double> defaultTolerances(DType dtype);

/// Prints the elements as mlir-runner's printMemref does (nested brackets,
/// the same separators and indentation; a rank-0 tensor as `[v]`), floats
/// with the fewest digits that read back to the same value.
void print(llvm::raw_ostream &os, const HostTensor &tensor);

/// Decodes/encodes the bit patterns of the 16-bit float types.
double halfBitsToDouble(uint16_t bits);
double bfloat16BitsToDouble(uint16_t bits);
/// Round-to-nearest-even from double, in one rounding step.
uint16_t doubleToHalfBits(double v);
uint16_t doubleToBFloat16Bits(double v);
/// `v` rounded to `dtype` and back (for floats; integers truncate/wrap).
double roundToDType(double v, DType dtype);

} // namespace tgc::ref
} // namespace mlir

#endif // TGC_REFERENCE_HOSTTENSOR_H
