//===- HostTensorTest.cpp - HostTensor conversions, compare, print --------===//
//
// Element conversions against values PyTorch 1.13 gives for `Tensor.to`
// (precomputed with /usr/bin/python3 and pasted), the comparison rules the
// differential tests rely on, and the printMemref-style printer.
//
//===----------------------------------------------------------------------===//

#include "tgc/Reference/HostTensor.h"
#include "tgc/Runtime/tgc_runtime.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/raw_ostream.h"

#include "gtest/gtest.h"

#include <cmath>
#include <cstdint>
#include <limits>

using namespace mlir;
using namespace mlir::tgc::ref;

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

const DType kAllDTypes[] = {DType::F32, DType::F16, DType::BF16, DType::F64,
                            DType::I64, DType::I32, DType::I8,   DType::I1};

HostTensor filled(DType dtype, ArrayRef<int64_t> shape,
                  ArrayRef<double> values) {
  HostTensor t(dtype, shape);
  EXPECT_EQ(t.numel(), static_cast<int64_t>(values.size()));
  for (int64_t i = 0; i < t.numel(); ++i)
    t.setFloat(i, values[i]);
  return t;
}

std::string printed(const HostTensor &t) {
  std::string s;
  llvm::raw_string_ostream os(s);
  print(os, t);
  return s;
}

TEST(HostTensorTest, DTypesMatchMLIRAndTheRuntime) {
  MLIRContext ctx;
  for (DType d : kAllDTypes) {
    Type t = toMLIRType(d, &ctx);
    ASSERT_TRUE(dtypeOf(t).has_value()) << dtypeName(d);
    EXPECT_EQ(*dtypeOf(t), d) << dtypeName(d);
    std::string s;
    llvm::raw_string_ostream os(s);
    os << t;
    EXPECT_EQ(s, dtypeName(d));
  }
  EXPECT_FALSE(dtypeOf(IntegerType::get(&ctx, 16)).has_value());
  EXPECT_FALSE(dtypeOf(IndexType::get(&ctx)).has_value());
  EXPECT_FALSE(
      dtypeOf(IntegerType::get(&ctx, 32, IntegerType::Unsigned)).has_value());
  // The codes are tgc_dtype's.
  EXPECT_EQ(static_cast<int>(DType::F32), TGC_DTYPE_F32);
  EXPECT_EQ(static_cast<int>(DType::F16), TGC_DTYPE_F16);
  EXPECT_EQ(static_cast<int>(DType::BF16), TGC_DTYPE_BF16);
  EXPECT_EQ(static_cast<int>(DType::F64), TGC_DTYPE_F64);
  EXPECT_EQ(static_cast<int>(DType::I64), TGC_DTYPE_I64);
  EXPECT_EQ(static_cast<int>(DType::I32), TGC_DTYPE_I32);
  EXPECT_EQ(static_cast<int>(DType::I8), TGC_DTYPE_I8);
  EXPECT_EQ(static_cast<int>(DType::I1), TGC_DTYPE_I1);
  EXPECT_EQ(elementBytes(DType::F64), 8u);
  EXPECT_EQ(elementBytes(DType::BF16), 2u);
  EXPECT_EQ(elementBytes(DType::I1), 1u);
}

TEST(HostTensorTest, ShapeStorageAndCopies) {
  HostTensor t(DType::F32, {2, 3, 4});
  EXPECT_EQ(t.rank(), 3);
  EXPECT_EQ(t.numel(), 24);
  EXPECT_EQ(t.byteSize(), 96u);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(t.data()) % 64, 0u);
  for (int64_t i = 0; i < t.numel(); ++i)
    EXPECT_EQ(t.getFloat(i), 0.0); // zero-filled
  t.setFloat(5, 2.5);
  HostTensor copy = t;
  copy.setFloat(5, 7.0);
  EXPECT_EQ(t.getFloat(5), 2.5); // deep copy
  EXPECT_EQ(copy.getFloat(5), 7.0);
  HostTensor scalar(DType::I64, {});
  EXPECT_EQ(scalar.rank(), 0);
  EXPECT_EQ(scalar.numel(), 1);
  HostTensor empty(DType::F16, {3, 0});
  EXPECT_EQ(empty.numel(), 0);
  EXPECT_EQ(empty.byteSize(), 0u);
}

// torch.tensor([...], dtype=torch.float64).half()
TEST(HostTensorTest, HalfRoundsToNearestEven) {
  HostTensor h = filled(DType::F16, {10},
                        {0.1, 65519.99, 65520., 0x1p-24, 0x1p-25, 3 * 0x1p-25,
                         1 + 0x1p-11, 1 + 3 * 0x1p-11, -0.0, 1e-8});
  const double expected[] = {0.0999755859375,
                             65504.0,
                             kInf,
                             5.960464477539063e-08,
                             0.0,
                             1.1920928955078125e-07,
                             1.0,
                             1.001953125,
                             -0.0,
                             0.0};
  for (int i = 0; i < 10; ++i)
    EXPECT_EQ(h.getFloat(i), expected[i]) << "element " << i;
  EXPECT_TRUE(std::signbit(h.getFloat(8)));
  // Bit patterns: 1.0, the largest finite, the smallest subnormal, -inf.
  EXPECT_EQ(doubleToHalfBits(1.0), 0x3c00);
  EXPECT_EQ(doubleToHalfBits(65504.0), 0x7bff);
  EXPECT_EQ(doubleToHalfBits(0x1p-24), 0x0001);
  EXPECT_EQ(doubleToHalfBits(-kInf), 0xfc00);
  EXPECT_TRUE(std::isnan(halfBitsToDouble(doubleToHalfBits(kNaN))));
  // Every f16 value reads back unchanged.
  for (uint32_t bits = 0; bits < 0x10000; ++bits) {
    if ((bits & 0x7c00) == 0x7c00 && (bits & 0x3ff))
      continue; // NaN
    auto b = static_cast<uint16_t>(bits);
    ASSERT_EQ(doubleToHalfBits(halfBitsToDouble(b)), b) << bits;
  }
}

TEST(HostTensorTest, BFloat16RoundsOnceFromDouble) {
  // torch: .float().bfloat16() of 0.1, 1 + 2^-8, 1 + 3 * 2^-8, 3e38, 3.4e38.
  HostTensor b = filled(DType::BF16, {5},
                        {0.1, 1 + 0x1p-8, 1 + 3 * 0x1p-8, 3.0e38, 3.4e38});
  const double expected[] = {0.10009765625, 1.0, 1.015625, 3.00405527047391e+38,
                             kInf};
  for (int i = 0; i < 5; ++i)
    EXPECT_EQ(b.getFloat(i), expected[i]) << "element " << i;
  // Just above the tie: rounding through f32 first would give 1.0.
  b.setFloat(0, 1 + 0x1p-8 + 0x1p-30);
  EXPECT_EQ(b.getFloat(0), 1.0078125);
  EXPECT_EQ(doubleToBFloat16Bits(1.0), 0x3f80);
}

// torch.tensor([nan, inf, -inf, 1e10, -1e10, 300., -300.5, 2.9, -2.9, 1e20])
//     .to(dtype) on x86.
TEST(HostTensorTest, FloatToIntegerMatchesPyTorch) {
  const double in[] = {kNaN, kInf,   -kInf, 1e10, -1e10,
                       300., -300.5, 2.9,   -2.9, 1e20};
  const int64_t i64Min = std::numeric_limits<int64_t>::min();
  const int64_t i32Min = std::numeric_limits<int32_t>::min();
  const int64_t toI64[] = {i64Min, i64Min, i64Min, 10000000000, -10000000000,
                           300,    -300,   2,      -2,          i64Min};
  const int64_t toI32[] = {i32Min, i32Min, i32Min, i32Min, i32Min,
                           300,    -300,   2,      -2,     i32Min};
  const int64_t toI8[] = {0, 0, 0, 0, 0, 44, -44, 2, -2, 0};
  HostTensor a(DType::I64, {10}), b(DType::I32, {10}), c(DType::I8, {10}),
      d(DType::I1, {10});
  for (int i = 0; i < 10; ++i) {
    a.setFloat(i, in[i]);
    b.setFloat(i, in[i]);
    c.setFloat(i, in[i]);
    d.setFloat(i, in[i]);
    EXPECT_EQ(a.getInt(i), toI64[i]) << "i64 element " << i;
    EXPECT_EQ(b.getInt(i), toI32[i]) << "i32 element " << i;
    EXPECT_EQ(c.getInt(i), toI8[i]) << "i8 element " << i;
    EXPECT_EQ(d.getInt(i), 1) << "i1 element " << i; // all non-zero
  }
  d.setFloat(0, 0.0);
  EXPECT_EQ(d.getInt(0), 0);
  EXPECT_EQ(d.getFloat(0), 0.0);
}

TEST(HostTensorTest, IntegerStoresWrapAndConvert) {
  HostTensor i8(DType::I8, {3}), i32(DType::I32, {2}), f32(DType::F32, {2}),
      f16(DType::F16, {1}), b(DType::I1, {2});
  i8.setInt(0, 200);
  i8.setInt(1, -129);
  i8.setInt(2, 127);
  EXPECT_EQ(i8.getInt(0), -56);
  EXPECT_EQ(i8.getInt(1), 127);
  EXPECT_EQ(i8.getFloat(2), 127.0);
  i32.setInt(0, (int64_t(1) << 32) + 5);
  i32.setInt(1, std::numeric_limits<int64_t>::min());
  EXPECT_EQ(i32.getInt(0), 5);
  EXPECT_EQ(i32.getInt(1), 0);
  // 2^24 + 1 rounds to even in f32; f32 -3.7 truncates to -3.
  f32.setInt(0, (1 << 24) + 1);
  f32.setFloat(1, -3.7);
  EXPECT_EQ(f32.getFloat(0), 16777216.0);
  EXPECT_EQ(f32.getInt(1), -3);
  f16.setInt(0, 2049);
  EXPECT_EQ(f16.getFloat(0), 2048.0);
  b.setInt(0, -4);
  b.setInt(1, 0);
  EXPECT_EQ(b.getInt(0), 1);
  EXPECT_EQ(b.getInt(1), 0);
  EXPECT_EQ(static_cast<const uint8_t *>(b.data())[0], 1);
}

TEST(HostTensorTest, RandomIsDeterministicAndInRange) {
  std::mt19937_64 rng1(42), rng2(42);
  HostTensor a = HostTensor::random(DType::F16, {1000}, rng1, -1.0, 1.0);
  HostTensor b = HostTensor::random(DType::F16, {1000}, rng2, -1.0, 1.0);
  ASSERT_EQ(a.byteSize(), b.byteSize());
  EXPECT_EQ(std::memcmp(a.data(), b.data(), a.byteSize()), 0);
  double lo = 1, hi = -1;
  for (int64_t i = 0; i < a.numel(); ++i) {
    lo = std::min(lo, a.getFloat(i));
    hi = std::max(hi, a.getFloat(i));
  }
  EXPECT_GE(lo, -1.0);
  EXPECT_LT(hi, 1.0);
  EXPECT_LT(lo, -0.9); // the range is covered
  EXPECT_GT(hi, 0.9);

  // Draws just below `high` round up to it in bf16: they are redrawn.
  HostTensor c = HostTensor::random(DType::BF16, {2000}, rng1, 0.99, 1.0);
  for (int64_t i = 0; i < c.numel(); ++i)
    ASSERT_LT(c.getFloat(i), 1.0);

  HostTensor ints = HostTensor::random(DType::I32, {1000}, rng1, -3, 4);
  bool seen[7] = {};
  for (int64_t i = 0; i < ints.numel(); ++i) {
    int64_t v = ints.getInt(i);
    ASSERT_GE(v, -3);
    ASSERT_LT(v, 4);
    seen[v + 3] = true;
  }
  for (bool s : seen)
    EXPECT_TRUE(s);

  HostTensor bools = HostTensor::random(DType::I1, {200}, rng1, 0, 1);
  int64_t ones = 0;
  for (int64_t i = 0; i < bools.numel(); ++i)
    ones += bools.getInt(i);
  EXPECT_GT(ones, 50);
  EXPECT_LT(ones, 150);
}

TEST(HostTensorTest, CompareToleratesWithinBoundsOnly) {
  HostTensor e = filled(DType::F32, {4}, {1.0, -2.0, 100.0, 0.0});
  HostTensor a = filled(DType::F32, {4}, {1.00005, -2.0, 100.009, 9e-6});
  Comparison c = compare(a, e, 1e-4, 1e-5);
  EXPECT_TRUE(c.ok) << c.message;
  EXPECT_EQ(c.mismatches, 0);
  EXPECT_EQ(c.firstMismatch, -1);
  EXPECT_TRUE(c.message.empty());
  EXPECT_NEAR(c.maxAbsErr, 0.009, 1e-5);

  a.setFloat(2, 100.02); // 0.02 > 1e-5 + 1e-4 * 100
  a.setFloat(3, 2e-5);
  c = compare(a, e, 1e-4, 1e-5);
  EXPECT_FALSE(c.ok);
  EXPECT_EQ(c.mismatches, 2);
  EXPECT_EQ(c.firstMismatch, 2);
  EXPECT_NE(c.message.find("2 of 4 elements differ"), std::string::npos)
      << c.message;
  EXPECT_NE(c.message.find("first at [2]"), std::string::npos) << c.message;
}

TEST(HostTensorTest, CompareNaNAndInfinities) {
  HostTensor e = filled(DType::F64, {3}, {kNaN, kInf, -kInf});
  HostTensor same = filled(DType::F64, {3}, {kNaN, kInf, -kInf});
  EXPECT_TRUE(compare(same, e, 0, 0).ok);
  HostTensor nanVsNumber = filled(DType::F64, {3}, {0.0, kInf, -kInf});
  Comparison c = compare(nanVsNumber, e, 1, 1);
  EXPECT_FALSE(c.ok);
  EXPECT_EQ(c.firstMismatch, 0);
  HostTensor numberVsNaN = filled(DType::F64, {3}, {kNaN, kInf, -kInf});
  HostTensor e2 = filled(DType::F64, {3}, {1.0, kInf, -kInf});
  EXPECT_FALSE(compare(numberVsNaN, e2, 1, 1).ok);
  HostTensor flipped = filled(DType::F64, {3}, {kNaN, -kInf, -kInf});
  c = compare(flipped, e, 1e9, 1e9);
  EXPECT_FALSE(c.ok);
  EXPECT_EQ(c.firstMismatch, 1);
  HostTensor finite = filled(DType::F64, {3}, {kNaN, 1e308, -kInf});
  EXPECT_FALSE(compare(finite, e, 1e9, 1e9).ok);
}

TEST(HostTensorTest, CompareShapesDtypesAndIntegers) {
  HostTensor a(DType::F32, {2, 3}), b(DType::F32, {3, 2}),
      c(DType::F64, {2, 3});
  Comparison r = compare(a, b, 1, 1);
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.message.find("shape mismatch"), std::string::npos) << r.message;
  r = compare(a, c, 1, 1);
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.message.find("dtype mismatch"), std::string::npos) << r.message;

  HostTensor x(DType::I64, {2}), y(DType::I64, {2});
  x.setInt(0, int64_t(1) << 60);
  y.setInt(0, (int64_t(1) << 60) + 1); // equal as doubles
  r = compare(x, y, 0, 0);
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.firstMismatch, 0);
  EXPECT_TRUE(compare(x, y, 0, 2).ok); // tolerances say otherwise
  auto [rtol, atol] = defaultTolerances(DType::I32);
  EXPECT_EQ(rtol, 0);
  EXPECT_EQ(atol, 0);
}

TEST(HostTensorTest, DefaultTolerances) {
  EXPECT_EQ(defaultTolerances(DType::F64), std::make_pair(1e-9, 1e-12));
  EXPECT_EQ(defaultTolerances(DType::F32), std::make_pair(1e-4, 1e-5));
  EXPECT_EQ(defaultTolerances(DType::F16), std::make_pair(1e-2, 1e-3));
  EXPECT_EQ(defaultTolerances(DType::BF16), std::make_pair(2e-2, 1e-2));
  EXPECT_EQ(defaultTolerances(DType::I1), std::make_pair(0.0, 0.0));
}

TEST(HostTensorTest, PrintsLikePrintMemref) {
  HostTensor m(DType::I32, {2, 3});
  for (int64_t i = 0; i < 6; ++i)
    m.setInt(i, i + 1);
  EXPECT_EQ(printed(m), "[[1,   2,   3], \n [4,   5,   6]]");

  HostTensor cube(DType::I64, {2, 2, 1});
  for (int64_t i = 0; i < 4; ++i)
    cube.setInt(i, i);
  EXPECT_EQ(printed(cube), "[[[0], \n  [1]], \n [[2], \n  [3]]]");

  HostTensor f = filled(DType::F32, {3}, {0.1, -2.5, 1e-7});
  EXPECT_EQ(printed(f), "[0.1,  -2.5,  1e-07]");
  HostTensor d = filled(DType::F64, {2}, {0.1, 1.0 / 3});
  EXPECT_EQ(printed(d), "[0.1,  0.3333333333333333]");
  HostTensor h = filled(DType::F16, {3}, {0.1, kNaN, -kInf});
  EXPECT_EQ(printed(h), "[0.1,  nan,  -inf]");
  HostTensor s = filled(DType::F32, {}, {2.5});
  EXPECT_EQ(printed(s), "[2.5]");
  HostTensor b(DType::I1, {2});
  b.setInt(1, 1);
  EXPECT_EQ(printed(b), "[0,  1]");
  EXPECT_EQ(printed(HostTensor(DType::F32, {2, 0})), "[[], \n []]");
}

} // namespace
