//===- GpuPlanTestUtils.h - plans, arguments and artifacts for runtime tests
//===//
//
// Shared by GpuPlanTest.cpp (the plan's text format, evaluation, guards)
// and GpuArtifactTest.cpp (artifacts, the executor without a device).
//
//===----------------------------------------------------------------------===//

#ifndef TGC_UNITTESTS_RUNTIME_GPUPLANTESTUTILS_H
#define TGC_UNITTESTS_RUNTIME_GPUPLANTESTUTILS_H

#include "tgc/Runtime/GpuExecutor.h"
#include "tgc/Runtime/GpuPlan.h"

#include "gtest/gtest.h"

#include <cstdlib>
#include <cstring>
#include <limits>
#include <random>

namespace gpu_plan_test {

using namespace tgc::runtime;

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

/// Every line kind once: a matmul + bias + relu over a tiled elementwise
/// kernel, an arena with a view, a copy and a memset.
const char *const kFullPlan = R"plan(# a comment, then a blank line

function "forward pass"
arg 0 f32 2
arg 1 f16 2
arg 2 f32 1
expr 0 argdim 0 0
expr 1 argdim 0 1
expr 2 argdim 1 1
expr 3 const 256
expr 4 mul n0 n2
expr 5 ceildiv n4 n3
expr 6 const 1
expr 7 const 4
expr 8 mul n4 n7
expr 9 add n8 n8
expr 10 sub n9 n8
expr 11 floordiv n9 n7
expr 12 mod n9 n3
expr 13 max n0 n1
expr 14 min n0 n1
symbol s0 n0
symbol "s 1" n1
result 0 f32 2 n0 n2
result 1 i64 0
guard rank 0 2 "rank(x) == 2" "x is a matrix"
guard dtype 1 f16 "dtype(w) == f16" "w: \"half\"\n\ttab\\ \x01"
guard device 0 cuda "" ""
guard contiguous 0 "contiguous(x)" "kernels index densely"
guard range n0 2 -1 "s0 >= 2" "tgc.topk at model.py:12"
guard range n1 1 4096 "1 <= s1 <= 4096" "tile"
guard equal n1 n2 "s1 == k" "matmul"
guard divisible n1 8 "s1 % 8 == 0" "vector loads"
guard aligned 2 16 "aligned(bias, 16)" "vector loads"
guard no_alias 0 2 "no_alias(x, bias)" "out= buffer"
arena n9
kernel fused_0
kernel "odd name"
global __constant_4xf32 16
buffer arg 0
buffer arg 1
buffer arg 2
buffer result 0
buffer arena none
buffer arena n8
buffer view b5 n7
buffer result 1
buffer global 0 n7
launch k0 grid n5 n6 n6 block n3 n6 n6 shmem none params b0:n4*4r b4 i0 i4 b6/2{n7;n0,n2;n2,n6}*4rw b7/0{none;;}*8w
launch k1 grid n5 n6 n6 block n3 n6 n6 shmem n7 params
gemm f16 out f32 m n0 n n2 k n1 batch none transa 0 transb 1 a b0 b b1 c b3 bias b2 epilogue bias_relu strides none none none
gemm f32 tf32 m n0 n n2 k n1 batch n6 transa 1 transb 0 a b4 b b6 c b5 bias none residual b7 epilogue gelu strides n4 n10 n8
copy dst b5 src b4 bytes n8
memset dst b6 bytes n7 value 0xdeadbeef
check flag b4 when n0 index "tgc.gather: index out of range at m.py:3"
check flag b6 when none "x"
conv f32 tf32 x b0/4{none;n0,n1,n2,n2;n6,n6,n6,n6}*4r w b1/4{n7;n1,n1,n6,n6;n6,n6,n6,n6}*4r y b5/4{none;n0,n2,n2,n2;n6,n6,n6,n6}*4w stride 2 1 padding 1 0 dilation 1 3 groups 2
)plan";

inline Plan parseOrDie(const std::string &text) {
  Plan plan;
  std::string error;
  EXPECT_TRUE(parsePlan(text, plan, error)) << error;
  return plan;
}

/// The error parsePlan gives for `text`, "" if it parses.
inline std::string parseError(const std::string &text) {
  Plan plan;
  std::string error;
  if (parsePlan(text, plan, error))
    return "";
  EXPECT_FALSE(error.empty());
  return error;
}

/// A tensor argument descriptor that owns its sizes and strides.
struct Arg {
  std::vector<int64_t> sizes, strides;
  int32_t dtype = TGC_DTYPE_F32;
  int32_t device = TGC_DEVICE_CUDA;
  uintptr_t data = 0x10000;

  static Arg dense(std::vector<int64_t> sizes, int32_t dtype = TGC_DTYPE_F32) {
    Arg arg;
    arg.strides.assign(sizes.size(), 1);
    for (size_t i = sizes.size(); i > 1; --i)
      arg.strides[i - 2] = arg.strides[i - 1] * sizes[i - 1];
    arg.sizes = std::move(sizes);
    arg.dtype = dtype;
    return arg;
  }

  tgc_arg_desc desc() const {
    tgc_arg_desc desc = {};
    desc.data = reinterpret_cast<void *>(data);
    desc.sizes = sizes.empty() ? nullptr : sizes.data();
    desc.strides = strides.empty() ? nullptr : strides.data();
    desc.rank = int64_t(sizes.size());
    desc.dtype = dtype;
    desc.device_type = device;
    return desc;
  }
};

inline std::vector<tgc_arg_desc> descs(const std::vector<Arg> &args) {
  std::vector<tgc_arg_desc> result;
  result.reserve(args.size());
  for (const Arg &arg : args)
    result.push_back(arg.desc());
  return result;
}

inline int32_t check(const Plan &plan, const std::vector<Arg> &args,
                     std::string &message) {
  std::vector<tgc_arg_desc> d = descs(args);
  return checkPlanGuards(plan, d.data(), int32_t(d.size()), message);
}

/// The arguments kFullPlan's guards accept.
inline std::vector<Arg> fullPlanArgs() {
  Arg x = Arg::dense({4, 64});
  Arg w = Arg::dense({64, 64}, TGC_DTYPE_F16);
  Arg bias = Arg::dense({64});
  bias.data = 0x20010;
  return {x, w, bias};
}

inline uint64_t fnv1a(const std::string &bytes, size_t from) {
  uint64_t hash = 0xcbf29ce484222325ull;
  for (size_t i = from; i < bytes.size(); ++i) {
    hash ^= uint8_t(bytes[i]);
    hash *= 0x100000001b3ull;
  }
  return hash;
}

inline void put(std::string &out, uint64_t value, int bytes) {
  for (int i = 0; i < bytes; ++i)
    out += char((value >> (8 * i)) & 0xff);
}

/// An artifact assembled by hand, with a correct checksum.
inline std::string
assemble(const std::vector<std::pair<uint32_t, std::string>> &sections,
         uint32_t version = kGpuArtifactVersion, uint32_t reserved = 0,
         const std::string &trailer = "") {
  std::string body;
  for (const auto &section : sections) {
    put(body, section.first, 4);
    put(body, reserved, 4);
    put(body, section.second.size(), 8);
    body += section.second;
  }
  body += trailer;
  std::string out("TGCGPUA\0", 8);
  put(out, version, 4);
  put(out, sections.size(), 4);
  std::string withBody = out + std::string(8, '\0') + body;
  put(out, fnv1a(withBody, 24), 8);
  return out + body;
}

/// `fallback`, or TGC_FUZZ_ITERATIONS for a longer run by hand.
inline int fuzzIterations(int fallback) {
  const char *value = std::getenv("TGC_FUZZ_ITERATIONS");
  int iterations = value ? std::atoi(value) : 0;
  return iterations > 0 ? iterations : fallback;
}

inline GpuArtifact sampleArtifact() {
  GpuArtifact artifact;
  artifact.plan = parseOrDie(kFullPlan);
  artifact.module = std::string("\x7f"
                                "ELF\0\1\2\3 cubin bytes",
                                20);
  artifact.isPtx = false;
  artifact.chip = "sm_90a";
  artifact.metadata = "compiler tgc 0.1\ncompile_ms 12\n";
  return artifact;
}

} // namespace gpu_plan_test

#endif // TGC_UNITTESTS_RUNTIME_GPUPLANTESTUTILS_H
