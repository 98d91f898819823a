//===- CaseFileTest.cpp - the case files of tgc-run and tgc-gpu-run --------===//

#include "tgc/Runtime/CaseFile.h"

#include "tgc/Runtime/tgc_runtime.h"
#include "gtest/gtest.h"

#include <cstring>

using namespace tgc::runtime;

namespace {

CaseTensor f32(std::vector<int64_t> sizes, float first) {
  CaseTensor t;
  t.dtype = TGC_DTYPE_F32;
  t.sizes = sizes;
  int64_t n = 1;
  for (int64_t d : sizes)
    n *= d;
  std::vector<float> values(size_t(n), first);
  t.bytes.assign(reinterpret_cast<const char *>(values.data()), size_t(n) * 4);
  return t;
}

void expectSame(const CaseTensor &a, const CaseTensor &b) {
  EXPECT_EQ(a.dtype, b.dtype);
  EXPECT_EQ(a.sizes, b.sizes);
  EXPECT_EQ(a.hasData, b.hasData);
  EXPECT_EQ(a.bytes, b.bytes);
}

} // namespace

TEST(CaseFileTest, RoundTripWithReference) {
  CaseFile file;
  file.spec = 3;
  file.reference = true;
  file.args = {f32({2, 3}, 1.5f), f32({}, -2.0f)};
  CaseTensor ints;
  ints.dtype = TGC_DTYPE_I64;
  ints.sizes = {0, 4};
  file.args.push_back(ints);
  file.expected = {f32({2, 3}, 7.0f)};
  file.expectedArgs = file.args;
  std::string bytes = writeCaseFile(file), error;
  CaseFile back;
  ASSERT_TRUE(readCaseFile(bytes, back, error)) << error;
  EXPECT_EQ(back.spec, 3u);
  EXPECT_TRUE(back.reference);
  ASSERT_EQ(back.args.size(), 3u);
  ASSERT_EQ(back.expected.size(), 1u);
  ASSERT_EQ(back.expectedArgs.size(), 3u);
  for (size_t i = 0; i < 3; ++i) {
    expectSame(back.args[i], file.args[i]);
    expectSame(back.expectedArgs[i], file.args[i]);
  }
  expectSame(back.expected[0], file.expected[0]);
}

TEST(CaseFileTest, ShapesOnly) {
  // A benchmark case: shapes without data, no reference.
  CaseFile file;
  CaseTensor t;
  t.dtype = TGC_DTYPE_BF16;
  t.sizes = {1024, 1024};
  t.hasData = false;
  file.args = {t};
  std::string bytes = writeCaseFile(file), error;
  EXPECT_EQ(bytes.size(), 8u + 12u + 8u + 16u);
  CaseFile back;
  ASSERT_TRUE(readCaseFile(bytes, back, error)) << error;
  EXPECT_FALSE(back.reference);
  ASSERT_EQ(back.args.size(), 1u);
  expectSame(back.args[0], t);
}

TEST(CaseFileTest, MalformedFilesSayWhy) {
  CaseFile file;
  file.reference = true;
  file.args = {f32({4}, 1.0f)};
  file.expected = {f32({4}, 2.0f)};
  file.expectedArgs = file.args;
  std::string bytes = writeCaseFile(file), error;
  CaseFile back;
  EXPECT_FALSE(readCaseFile("TGCGPUA1...", back, error));
  EXPECT_EQ(error, "not a TGC case file");
  EXPECT_FALSE(readCaseFile(bytes.substr(0, bytes.size() - 1), back, error));
  EXPECT_EQ(error, "truncated");
  EXPECT_FALSE(readCaseFile(bytes + "x", back, error));
  EXPECT_EQ(error, "trailing bytes");
  std::string badDtype = bytes;
  int32_t dtype = 99;
  std::memcpy(&badDtype[20], &dtype, 4);
  EXPECT_FALSE(readCaseFile(badDtype, back, error));
  EXPECT_EQ(error, "a bad tensor header");
  std::string badSize = bytes;
  int64_t size = -1;
  std::memcpy(&badSize[28], &size, 8);
  EXPECT_FALSE(readCaseFile(badSize, back, error));
  EXPECT_EQ(error, "a bad size");
}
