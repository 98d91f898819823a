//===- HostTensor.cpp - dense host tensors --------------------------------===//
//
// Element conversions follow PyTorch's `Tensor.to` on x86: floats round to
// nearest even (once, from double), float-to-integer truncates toward zero
// with x86's "integer indefinite" for values out of range, narrowing
// integers wrap.
//
//===----------------------------------------------------------------------===//

#include "tgc/Reference/HostTensor.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <unistd.h>

using namespace mlir;
using namespace mlir::tgc::ref;

//===----------------------------------------------------------------------===//
// DType
//===----------------------------------------------------------------------===//

std::optional<DType> mlir::tgc::ref::dtypeOf(Type t) {
  if (t.isF32())
    return DType::F32;
  if (t.isF16())
    return DType::F16;
  if (t.isBF16())
    return DType::BF16;
  if (t.isF64())
    return DType::F64;
  if (auto i = dyn_cast<IntegerType>(t)) {
    if (i.isUnsigned())
      return std::nullopt;
    switch (i.getWidth()) {
    case 64:
      return DType::I64;
    case 32:
      return DType::I32;
    case 8:
      return DType::I8;
    case 1:
      return DType::I1;
    default:
      return std::nullopt;
    }
  }
  return std::nullopt;
}

Type mlir::tgc::ref::toMLIRType(DType dtype, MLIRContext *ctx) {
  switch (dtype) {
  case DType::F32:
    return Float32Type::get(ctx);
  case DType::F16:
    return Float16Type::get(ctx);
  case DType::BF16:
    return BFloat16Type::get(ctx);
  case DType::F64:
    return Float64Type::get(ctx);
  case DType::I64:
    return IntegerType::get(ctx, 64);
  case DType::I32:
    return IntegerType::get(ctx, 32);
  case DType::I8:
    return IntegerType::get(ctx, 8);
  case DType::I1:
    return IntegerType::get(ctx, 1);
  }
  llvm_unreachable("unknown DType");
}

size_t mlir::tgc::ref::elementBytes(DType dtype) {
  switch (dtype) {
  case DType::F64:
  case DType::I64:
    return 8;
  case DType::F32:
  case DType::I32:
    return 4;
  case DType::F16:
  case DType::BF16:
    return 2;
  case DType::I8:
  case DType::I1:
    return 1;
  }
  llvm_unreachable("unknown DType");
}

const char *mlir::tgc::ref::dtypeName(DType dtype) {
  switch (dtype) {
  case DType::F32:
    return "f32";
  case DType::F16:
    return "f16";
  case DType::BF16:
    return "bf16";
  case DType::F64:
    return "f64";
  case DType::I64:
    return "i64";
  case DType::I32:
    return "i32";
  case DType::I8:
    return "i8";
  case DType::I1:
    return "i1";
  }
  llvm_unreachable("unknown DType");
}

bool mlir::tgc::ref::isFloatDType(DType dtype) {
  return dtype == DType::F32 || dtype == DType::F16 || dtype == DType::BF16 ||
         dtype == DType::F64;
}

//===----------------------------------------------------------------------===//
// Float formats
//===----------------------------------------------------------------------===//

/// `v` rounded to nearest even in a binary format with `mantissaBits`
/// fraction bits and normal exponents in [minExp, maxExp] (subnormals
/// below), overflowing to infinity. One rounding step from double, so no
/// double rounding.
static double roundToFormat(double v, int mantissaBits, int minExp,
                            int maxExp) {
  if (std::isnan(v) || std::isinf(v) || v == 0)
    return v;
  double a = std::fabs(v);
  double overflow = std::ldexp(1.0, maxExp + 1);
  if (a >= overflow)
    return std::copysign(std::numeric_limits<double>::infinity(), v);
  int e = std::max(std::ilogb(a), minExp);
  // Scaling by a power of two is exact; nearbyint rounds half to even in
  // the default rounding mode.
  double r = std::ldexp(std::nearbyint(std::ldexp(a, mantissaBits - e)),
                        e - mantissaBits);
  if (r >= overflow)
    r = std::numeric_limits<double>::infinity();
  return std::copysign(r, v);
}

double mlir::tgc::ref::halfBitsToDouble(uint16_t bits) {
  int sign = bits >> 15, exp = (bits >> 10) & 0x1f, mant = bits & 0x3ff;
  double v;
  if (exp == 0)
    v = std::ldexp(static_cast<double>(mant), -24);
  else if (exp == 31)
    v = mant ? std::numeric_limits<double>::quiet_NaN()
             : std::numeric_limits<double>::infinity();
  else
    v = std::ldexp(static_cast<double>(1024 + mant), exp - 25);
  return sign ? -v : v;
}

double mlir::tgc::ref::bfloat16BitsToDouble(uint16_t bits) {
  uint32_t word = static_cast<uint32_t>(bits) << 16;
  float f;
  std::memcpy(&f, &word, sizeof(f));
  return f;
}

uint16_t mlir::tgc::ref::doubleToHalfBits(double v) {
  uint16_t sign = std::signbit(v) ? 0x8000 : 0;
  if (std::isnan(v))
    return sign | 0x7e00;
  double r = std::fabs(roundToFormat(v, 10, -14, 15));
  if (std::isinf(r))
    return sign | 0x7c00;
  if (r < std::ldexp(1.0, -14))
    return sign | static_cast<uint16_t>(std::ldexp(r, 24));
  int e = std::ilogb(r);
  auto mant = static_cast<uint16_t>(std::ldexp(r, 10 - e) - 1024);
  return sign | static_cast<uint16_t>((e + 15) << 10) | mant;
}

uint16_t mlir::tgc::ref::doubleToBFloat16Bits(double v) {
  uint16_t sign = std::signbit(v) ? 0x8000 : 0;
  if (std::isnan(v))
    return sign | 0x7fc0;
  // The rounded value is exact in f32, whose top half is the bf16.
  auto f = static_cast<float>(roundToFormat(v, 7, -126, 127));
  uint32_t word;
  std::memcpy(&word, &f, sizeof(word));
  return static_cast<uint16_t>(word >> 16);
}

//===----------------------------------------------------------------------===//
// Integer conversions
//===----------------------------------------------------------------------===//

/// Sign-extends the low `bits` bits of `v`.
static int64_t wrapTo(int64_t v, unsigned bits) {
  if (bits >= 64)
    return v;
  uint64_t mask = (uint64_t(1) << bits) - 1;
  uint64_t u = static_cast<uint64_t>(v) & mask;
  if (u >> (bits - 1))
    u |= ~mask;
  return static_cast<int64_t>(u);
}

/// x86's cvttsd2si: truncation, with INT_MIN of the width ("integer
/// indefinite") for NaN and out-of-range values.
static int64_t truncateToWidth(double v, unsigned bits) {
  double t = std::trunc(v);
  double lo = -std::ldexp(1.0, bits - 1), hi = std::ldexp(1.0, bits - 1);
  if (std::isnan(t) || t < lo || t >= hi)
    return bits == 64 ? std::numeric_limits<int64_t>::min()
                      : std::numeric_limits<int32_t>::min();
  return static_cast<int64_t>(t);
}

/// Float to integer as PyTorch on x86: i64 through a 64-bit conversion,
/// i32 and i8 through a 32-bit one (then wrapped to i8).
static int64_t floatToInt(double v, DType to) {
  switch (to) {
  case DType::I64:
    return truncateToWidth(v, 64);
  case DType::I32:
    return truncateToWidth(v, 32);
  case DType::I8:
    return wrapTo(truncateToWidth(v, 32), 8);
  case DType::I1:
    return v != 0;
  default:
    llvm_unreachable("not an integer dtype");
  }
}

double mlir::tgc::ref::roundToDType(double v, DType dtype) {
  switch (dtype) {
  case DType::F64:
    return v;
  case DType::F32:
    return static_cast<double>(static_cast<float>(v));
  case DType::F16:
    return halfBitsToDouble(doubleToHalfBits(v));
  case DType::BF16:
    return bfloat16BitsToDouble(doubleToBFloat16Bits(v));
  default:
    return static_cast<double>(floatToInt(v, dtype));
  }
}

//===----------------------------------------------------------------------===//
// HostTensor
//===----------------------------------------------------------------------===//

void HostTensor::FreeDeleter::operator()(void *p) const { std::free(p); }

/// Physical memory: no tensor of the reference interpreter may be larger
/// (past it, an allocation only succeeds by overcommitting, and touching
/// it gets the process killed).
static uint64_t physicalMemoryBytes() {
  static const uint64_t bytes = [] {
    long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGE_SIZE);
    return pages > 0 && size > 0
               ? static_cast<uint64_t>(pages) * static_cast<uint64_t>(size)
               : std::numeric_limits<uint64_t>::max();
  }();
  return bytes;
}

static thread_local std::string allocationFailure;

static void *allocateAligned(size_t bytes, bool zero = true) {
  size_t rounded = (std::max<size_t>(bytes, 1) + 63) / 64 * 64;
  void *p = std::aligned_alloc(64, rounded);
  if (p && zero)
    std::memset(p, 0, rounded);
  return p;
}

std::string HostTensor::takeAllocationFailure() {
  std::string failure;
  std::swap(failure, allocationFailure);
  return failure;
}

HostTensor::HostTensor(DType dtype, ArrayRef<int64_t> shape)
    : HostTensor(dtype, shape, /*zero=*/true) {}

HostTensor HostTensor::uninitialized(DType dtype, ArrayRef<int64_t> shape) {
  return HostTensor(dtype, shape, /*zero=*/false);
}

HostTensor::HostTensor(DType dtype, ArrayRef<int64_t> shape, bool zero)
    : type(dtype), sizes(shape.begin(), shape.end()), count(1) {
  bool overflow = false;
  for (int64_t s : shape) {
    if (s < 0)
      llvm::report_fatal_error("HostTensor: negative size");
    overflow |= __builtin_mul_overflow(count, s, &count);
  }
  uint64_t total = 0;
  overflow |= __builtin_mul_overflow(static_cast<uint64_t>(count),
                                     static_cast<uint64_t>(elementBytes(dtype)),
                                     &total);
  void *p = nullptr;
  if (!overflow && total <= physicalMemoryBytes())
    p = allocateAligned(total, zero);
  if (p) {
    bytes.reset(static_cast<unsigned char *>(p));
    return;
  }
  // No storage: the tensor has no elements (every size 0, so no loop over
  // it runs) and the failure is kept for the caller to report.
  if (allocationFailure.empty()) {
    std::string shapeText;
    for (int64_t s : shape)
      shapeText += std::to_string(s) + "x";
    shapeText += dtypeName(dtype);
    allocationFailure =
        overflow ? "cannot allocate a " + shapeText +
                       " tensor: its size in bytes does not fit in 64 bits"
                 : "cannot allocate " + std::to_string(total) +
                       " bytes for a " + shapeText + " tensor" +
                       (total > physicalMemoryBytes()
                            ? " (more than this machine's memory)"
                            : " (out of memory)");
  }
  std::fill(sizes.begin(), sizes.end(), 0);
  count = 0;
}

HostTensor::HostTensor(const HostTensor &other)
    : type(other.type), sizes(other.sizes), count(other.count) {
  if (!other.bytes)
    return;
  void *p = allocateAligned(byteSize());
  if (!p) {
    if (allocationFailure.empty())
      allocationFailure = "cannot allocate " + std::to_string(byteSize()) +
                          " bytes for a copy of a tensor (out of memory)";
    std::fill(sizes.begin(), sizes.end(), 0);
    count = 0;
    return;
  }
  bytes.reset(static_cast<unsigned char *>(p));
  std::memcpy(bytes.get(), other.bytes.get(), byteSize());
}

HostTensor &HostTensor::operator=(const HostTensor &other) {
  if (this != &other)
    *this = HostTensor(other);
  return *this;
}

template <typename T> static T load(const unsigned char *base, int64_t flat) {
  T v;
  std::memcpy(&v, base + flat * sizeof(T), sizeof(T));
  return v;
}

template <typename T>
static void store(unsigned char *base, int64_t flat, T v) {
  std::memcpy(base + flat * sizeof(T), &v, sizeof(T));
}

double HostTensor::getFloat(int64_t flat) const {
  const unsigned char *p = bytes.get();
  switch (type) {
  case DType::F32:
    return load<float>(p, flat);
  case DType::F16:
    return halfBitsToDouble(load<uint16_t>(p, flat));
  case DType::BF16:
    return bfloat16BitsToDouble(load<uint16_t>(p, flat));
  case DType::F64:
    return load<double>(p, flat);
  case DType::I64:
    return static_cast<double>(load<int64_t>(p, flat));
  case DType::I32:
    return load<int32_t>(p, flat);
  case DType::I8:
    return load<int8_t>(p, flat);
  case DType::I1:
    return load<uint8_t>(p, flat) != 0;
  }
  llvm_unreachable("unknown DType");
}

int64_t HostTensor::getInt(int64_t flat) const {
  const unsigned char *p = bytes.get();
  switch (type) {
  case DType::I64:
    return load<int64_t>(p, flat);
  case DType::I32:
    return load<int32_t>(p, flat);
  case DType::I8:
    return load<int8_t>(p, flat);
  case DType::I1:
    return load<uint8_t>(p, flat) != 0;
  default:
    return floatToInt(getFloat(flat), DType::I64);
  }
}

void HostTensor::setFloat(int64_t flat, double v) {
  unsigned char *p = bytes.get();
  switch (type) {
  case DType::F32:
    return store<float>(p, flat, static_cast<float>(v));
  case DType::F16:
    return store<uint16_t>(p, flat, doubleToHalfBits(v));
  case DType::BF16:
    return store<uint16_t>(p, flat, doubleToBFloat16Bits(v));
  case DType::F64:
    return store<double>(p, flat, v);
  case DType::I64:
  case DType::I32:
  case DType::I8:
  case DType::I1:
    return setInt(flat, floatToInt(v, type));
  }
}

void HostTensor::setInt(int64_t flat, int64_t v) {
  unsigned char *p = bytes.get();
  switch (type) {
  case DType::I64:
    return store<int64_t>(p, flat, v);
  case DType::I32:
    return store<int32_t>(p, flat, static_cast<int32_t>(wrapTo(v, 32)));
  case DType::I8:
    return store<int8_t>(p, flat, static_cast<int8_t>(wrapTo(v, 8)));
  case DType::I1:
    return store<uint8_t>(p, flat, v != 0);
  case DType::F32:
    // Directly, so that large integers round once.
    return store<float>(p, flat, static_cast<float>(v));
  case DType::F16:
  case DType::BF16:
  case DType::F64:
    return setFloat(flat, static_cast<double>(v));
  }
}

HostTensor HostTensor::random(DType dtype, ArrayRef<int64_t> shape,
                              std::mt19937_64 &rng, double low, double high) {
  HostTensor t(dtype, shape);
  auto unit = [&] { return static_cast<double>(rng() >> 11) * 0x1.0p-53; };
  if (dtype == DType::I1) {
    for (int64_t i = 0; i < t.numel(); ++i)
      t.setInt(i, rng() >> 63);
    return t;
  }
  if (isFloatDType(dtype)) {
    for (int64_t i = 0; i < t.numel(); ++i) {
      // Rounding may reach `high`: draw again (a few times at most).
      double v = low;
      for (int attempt = 0; attempt < 64; ++attempt) {
        double r = roundToDType(low + (high - low) * unit(), dtype);
        if (r < high || !(high > low)) {
          v = r;
          break;
        }
      }
      t.setFloat(i, v);
    }
    return t;
  }
  auto lo = static_cast<int64_t>(std::ceil(low));
  auto hi = static_cast<int64_t>(std::ceil(high));
  uint64_t range =
      hi > lo ? static_cast<uint64_t>(hi) - static_cast<uint64_t>(lo) : 0;
  for (int64_t i = 0; i < t.numel(); ++i)
    t.setInt(i, range ? static_cast<int64_t>(static_cast<uint64_t>(lo) +
                                             rng() % range)
                      : lo);
  return t;
}

//===----------------------------------------------------------------------===//
// Comparison
//===----------------------------------------------------------------------===//

static std::string shapeString(ArrayRef<int64_t> shape) {
  std::string s = "[";
  for (auto [i, d] : llvm::enumerate(shape))
    s += (i ? ", " : "") + std::to_string(d);
  return s + "]";
}

static std::string indexString(ArrayRef<int64_t> shape, int64_t flat) {
  SmallVector<int64_t> index(shape.size());
  for (int64_t d = static_cast<int64_t>(shape.size()) - 1; d >= 0; --d) {
    index[d] = shape[d] ? flat % shape[d] : 0;
    flat = shape[d] ? flat / shape[d] : 0;
  }
  return shapeString(index);
}

static std::string formatValue(double v, DType dtype);

Comparison mlir::tgc::ref::compare(const HostTensor &actual,
                                   const HostTensor &expected, double rtol,
                                   double atol) {
  Comparison c;
  if (actual.dtype() != expected.dtype()) {
    c.ok = false;
    c.message = std::string("dtype mismatch: actual ") +
                dtypeName(actual.dtype()) + ", expected " +
                dtypeName(expected.dtype());
    return c;
  }
  if (actual.shape() != expected.shape()) {
    c.ok = false;
    c.message = "shape mismatch: actual " + shapeString(actual.shape()) +
                ", expected " + shapeString(expected.shape());
    return c;
  }
  DType dtype = actual.dtype();
  bool exactInts = !isFloatDType(dtype) && rtol == 0 && atol == 0;
  for (int64_t i = 0; i < actual.numel(); ++i) {
    bool match;
    double absErr, relErr;
    if (exactInts) {
      int64_t a = actual.getInt(i), e = expected.getInt(i);
      match = a == e;
      absErr = std::fabs(static_cast<double>(a) - static_cast<double>(e));
      relErr =
          e != 0 ? absErr / std::fabs(static_cast<double>(e))
                 : (absErr != 0 ? std::numeric_limits<double>::infinity() : 0);
    } else {
      double a = actual.getFloat(i), e = expected.getFloat(i);
      if (std::isnan(a) || std::isnan(e)) {
        match = std::isnan(a) && std::isnan(e);
        absErr = relErr = match ? 0 : std::numeric_limits<double>::infinity();
      } else if (a == e) {
        // Also equal infinities, whose difference would be NaN.
        match = true;
        absErr = relErr = 0;
      } else if (std::isinf(a) || std::isinf(e)) {
        // No tolerance makes an infinity equal to anything else.
        match = false;
        absErr = relErr = std::numeric_limits<double>::infinity();
      } else {
        absErr = std::fabs(a - e);
        match = absErr <= atol + rtol * std::fabs(e);
        relErr = e != 0 ? absErr / std::fabs(e)
                        : std::numeric_limits<double>::infinity();
      }
    }
    c.maxAbsErr = std::max(c.maxAbsErr, absErr);
    c.maxRelErr = std::max(c.maxRelErr, relErr);
    if (!match) {
      if (c.mismatches == 0)
        c.firstMismatch = i;
      ++c.mismatches;
    }
  }
  if (c.mismatches == 0)
    return c;
  c.ok = false;
  int64_t i = c.firstMismatch;
  auto value = [&](const HostTensor &t) {
    return isFloatDType(dtype) ? formatValue(t.getFloat(i), dtype)
                               : std::to_string(t.getInt(i));
  };
  std::string msg;
  llvm::raw_string_ostream os(msg);
  os << c.mismatches << " of " << actual.numel() << " elements differ (rtol "
     << rtol << ", atol " << atol << "); first at "
     << indexString(actual.shape(), i) << ": actual " << value(actual)
     << ", expected " << value(expected) << "; max abs err " << c.maxAbsErr
     << ", max rel err " << c.maxRelErr;
  c.message = msg;
  return c;
}

std::pair<double, double> mlir::tgc::ref::defaultTolerances(DType dtype) {
  switch (dtype) {
  case DType::F64:
    return {1e-9, 1e-12};
  case DType::F32:
    return {1e-4, 1e-5};
  case DType::F16:
    return {1e-2, 1e-3};
  case DType::BF16:
    return {2e-2, 1e-2};
  default:
    return {0, 0};
  }
}

//===----------------------------------------------------------------------===//
// Printing
//===----------------------------------------------------------------------===//

/// The shortest "%g" text that reads back to `v` in `dtype`.
static std::string formatValue(double v, DType dtype) {
  if (std::isnan(v))
    return "nan";
  if (std::isinf(v))
    return v > 0 ? "inf" : "-inf";
  char buf[64];
  for (int precision = 1; precision <= 17; ++precision) {
    std::snprintf(buf, sizeof(buf), "%.*g", precision, v);
    if (roundToDType(std::strtod(buf, nullptr), dtype) == v)
      break;
  }
  return buf;
}

namespace {
/// mlir-runner's MemRefDataPrinter (mlir/ExecutionEngine/RunnerUtils.h),
/// over a contiguous row-major tensor.
struct MemRefStylePrinter {
  llvm::raw_ostream &os;
  const HostTensor &t;
  SmallVector<int64_t> strides;

  void element(int64_t offset) {
    if (isFloatDType(t.dtype()))
      os << formatValue(t.getFloat(offset), t.dtype());
    else
      os << t.getInt(offset);
  }
  void space(int64_t count) { os.indent(static_cast<unsigned>(count)); }

  void print(int64_t dim, int64_t offset) {
    int64_t rank = t.rank();
    if (dim == 0)
      return element(offset);
    int64_t size = t.shape()[rank - dim];
    int64_t stride = strides[rank - dim];
    if (size == 0) {
      os << "[]";
      return;
    }
    os << "[";
    print(dim - 1, offset);
    if (size <= 1) {
      os << "]";
      return;
    }
    os << ", ";
    if (dim > 1)
      os << "\n";
    for (int64_t i = 1; i + 1 < size; ++i) {
      space(rank - dim + 1);
      print(dim - 1, offset + i * stride);
      os << ", ";
      if (dim > 1)
        os << "\n";
    }
    space(rank - dim + 1);
    print(dim - 1, offset + (size - 1) * stride);
    os << "]";
  }
};
} // namespace

void mlir::tgc::ref::print(llvm::raw_ostream &os, const HostTensor &tensor) {
  MemRefStylePrinter printer{os, tensor, {}};
  printer.strides.resize(tensor.rank());
  int64_t stride = 1;
  for (int64_t d = tensor.rank() - 1; d >= 0; --d) {
    printer.strides[d] = stride;
    stride *= tensor.shape()[d];
  }
  if (tensor.rank() == 0) {
    os << "[";
    printer.element(0);
    os << "]";
    return;
  }
  printer.print(tensor.rank(), 0);
}
