//===- tgc-gpu-selftest.cpp - The GPU executor against a real device ------===//
//
// Usage: tgc-gpu-selftest [--allow-no-gpu] path/to/vector_add.ptx
//
// Runs hand-written plans through GpuFunction on device 0 and checks every
// result on the host: a PTX vector add launched directly and through a
// CUDA graph (a second call with other pointers must patch the graph, not
// capture it again), copies and memsets, cuBLASLt GEMMs (bias + relu
// epilogue; batched and transposed) and a plan mixing a GEMM with a kernel
// under stream capture. Prints one PASS or FAIL line per check and exits 0
// only if all pass. Without a device it prints "no CUDA device: <why>" and
// exits 1, or 0 with --allow-no-gpu. Needs only the runtime library.
//
//===----------------------------------------------------------------------===//

#include "tgc/Runtime/GpuExecutor.h"
#include "tgc/Runtime/GpuPlan.h"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

using namespace tgc::runtime;

namespace {

int passed = 0, failed = 0;

void report(bool ok, const std::string &name, const std::string &detail) {
  std::printf("%s %s%s%s\n", ok ? "PASS" : "FAIL", name.c_str(),
              detail.empty() ? "" : ": ", detail.c_str());
  std::fflush(stdout);
  ++(ok ? passed : failed);
}

/// Deterministic inputs in [-1, 1).
std::vector<float> pattern(size_t count, uint32_t seed) {
  std::vector<float> values(count);
  uint32_t state = seed * 2654435761u + 1;
  for (float &value : values) {
    state = state * 1664525u + 1013904223u;
    value = float(int32_t(state >> 8) % 2000) / 1000.0f - 1.0f;
  }
  return values;
}

/// A device copy of host floats, freed on destruction.
struct DeviceBuffer {
  uint64_t ptr = 0;
  DeviceBuffer() = default;
  DeviceBuffer(const DeviceBuffer &) = delete;
  DeviceBuffer &operator=(const DeviceBuffer &) = delete;
  ~DeviceBuffer() { deviceFree(ptr); }

  bool upload(const std::vector<float> &host, std::string &error) {
    uint64_t bytes = host.size() * sizeof(float);
    return deviceAlloc(bytes, ptr, error) &&
           copyToDevice(ptr, host.data(), bytes, error);
  }
};

DeviceTensor tensor(const DeviceBuffer &buffer, std::vector<int64_t> sizes) {
  DeviceTensor result;
  result.ptr = buffer.ptr;
  result.sizes = std::move(sizes);
  result.dtype = TGC_DTYPE_F32;
  return result;
}

bool download(const DeviceTensor &tensor, std::vector<float> &host,
              std::string &error) {
  size_t count = 1;
  for (int64_t size : tensor.sizes)
    count *= size_t(size);
  host.assign(count, 0.0f);
  return copyToHost(host.data(), tensor.ptr, count * sizeof(float), error);
}

void freeResults(std::vector<DeviceTensor> &results) {
  for (DeviceTensor &result : results)
    deviceFree(result.ptr);
  results.clear();
}

/// "" when `actual` matches `expected` within a relative tolerance.
std::string compare(const std::vector<float> &actual,
                    const std::vector<float> &expected, float tolerance) {
  if (actual.size() != expected.size())
    return "size " + std::to_string(actual.size()) + ", expected " +
           std::to_string(expected.size());
  for (size_t i = 0; i < actual.size(); ++i) {
    float scale = std::fmax(1.0f, std::fabs(expected[i]));
    if (!(std::fabs(actual[i] - expected[i]) <= tolerance * scale)) {
      std::ostringstream out;
      out << "element " << i << " is " << actual[i] << ", expected "
          << expected[i];
      return out.str();
    }
  }
  return "";
}

std::string statsText(const GpuRunStats &stats) {
  std::ostringstream out;
  out << "launches " << stats.launches << ", gemms " << stats.gemms
      << ", captures " << stats.graphCaptures << ", replays "
      << stats.graphReplays << ", patched " << stats.patchedNodes
      << ", resized " << stats.graphResizes;
  if (!stats.graphFallback.empty())
    out << ", fallback: " << stats.graphFallback;
  return out.str();
}

std::unique_ptr<GpuFunction> loadPlan(const std::string &planText,
                                      const std::string &ptx,
                                      const std::string &name) {
  GpuArtifact artifact;
  std::string error;
  if (!parsePlan(planText, artifact.plan, error)) {
    report(false, name + ": parse plan", error);
    return nullptr;
  }
  artifact.module = ptx;
  artifact.isPtx = true;
  // Through the artifact format, as the compiler hands it over.
  GpuArtifact read;
  if (!readGpuArtifact(writeGpuArtifact(artifact), read, error)) {
    report(false, name + ": artifact round trip", error);
    return nullptr;
  }
  std::unique_ptr<GpuFunction> function = GpuFunction::load(read, error);
  if (!function)
    report(false, name + ": load", error);
  return function;
}

//===----------------------------------------------------------------------===//
// Vector add: direct and as a graph
//===----------------------------------------------------------------------===//

const char *const kVaddPlan = R"plan(# c = a + b through the hand-written PTX
function vadd
arg 0 f32 1
arg 1 f32 1
expr 0 argdim 0 0
expr 1 argdim 1 0
expr 2 const 256
expr 3 ceildiv n0 n2
expr 4 const 1
symbol s0 n0
result 0 f32 1 n0
guard equal n0 n1 "s0 == size(arg 1, 0)" "elementwise add"
kernel vadd
buffer arg 0
buffer arg 1
buffer result 0
launch k0 grid n3 n4 n4 block n2 n4 n4 shmem none params b0:n0 b1:n0 b2:n0 i0
)plan";

void testVectorAdd(const std::string &ptx) {
  std::unique_ptr<GpuFunction> function = loadPlan(kVaddPlan, ptx, "vadd");
  if (!function)
    return;
  std::string error;
  // Inputs stay allocated until the end, so each call's inputs have new
  // pointers (a freed block would come back at the same address).
  std::vector<std::unique_ptr<DeviceBuffer>> inputs;
  auto runOnce = [&](const std::string &name, int64_t n, uint32_t seed,
                     bool useGraph) {
    std::vector<float> a = pattern(size_t(n), seed),
                       b = pattern(size_t(n), seed + 1), expected(a.size());
    for (int64_t i = 0; i < n; ++i)
      expected[i] = a[i] + b[i];
    inputs.emplace_back(new DeviceBuffer());
    DeviceBuffer &da = *inputs.back();
    inputs.emplace_back(new DeviceBuffer());
    DeviceBuffer &db = *inputs.back();
    if (!da.upload(a, error) || !db.upload(b, error))
      return report(false, name, error);
    std::vector<DeviceTensor> results;
    if (!function->run({tensor(da, {n}), tensor(db, {n})}, results, useGraph,
                       error))
      return report(false, name, error);
    std::vector<float> c;
    bool ok = download(results[0], c, error);
    freeResults(results);
    if (!ok)
      return report(false, name, error);
    std::string mismatch = compare(c, expected, 0.0f);
    report(mismatch.empty(), name, mismatch);
  };

  runOnce("vadd direct (n = 1000)", 1000, 1, false);
  runOnce("vadd direct (n = 1)", 1, 2, false);
  runOnce("vadd direct (n = 0, launch skipped)", 0, 3, false);
  GpuRunStats before = function->stats();
  report(before.launches == 2 && before.graphCaptures == 0 &&
             before.deviceTimesMs.empty(),
         "vadd direct stats", statsText(before));
  function->setDeviceTiming(true);
  runOnce("vadd direct, device timing (n = 1 << 20)", 1 << 20, 4, false);
  const std::vector<double> &times = function->stats().deviceTimesMs;
  double timed = times.size() == 1 ? times.back() : 0;
  function->setDeviceTiming(false);
  report(timed > 0 && timed < 1000, "vadd device time from CUDA events",
         std::to_string(timed) + " ms");
  before = function->stats();

  // Graphs: the second call with the same sizes and other buffers must be
  // a replay with patched pointers, not a second capture.
  runOnce("vadd graph call 1 (n = 4096)", 4096, 10, true);
  runOnce("vadd graph call 2 (n = 4096, other pointers)", 4096, 11, true);
  GpuRunStats after = function->stats();
  report(after.graphCaptures - before.graphCaptures == 1 &&
             after.graphReplays - before.graphReplays == 2 &&
             after.patchedNodes - before.patchedNodes >= 1 &&
             after.launches == before.launches,
         "vadd graph patched instead of recaptured", statsText(after));
  // New sizes: the same graph, its kernel node's sizes and grid patched
  // (checked: a grid left at 4096's would still be right, one left at
  // 777's after growing back would not).
  runOnce("vadd graph call 3 (n = 777, new sizes)", 777, 12, true);
  runOnce("vadd graph call 4 (n = 5000, larger again)", 5000, 14, true);
  GpuRunStats third = function->stats();
  report(third.graphCaptures == after.graphCaptures &&
             third.graphResizes - after.graphResizes == 2,
         "vadd graph patched to new sizes, not captured again",
         statsText(third));

  // 17 more size sets: still the one graph.
  GpuRunStats beforeMany = function->stats();
  bool allOk = true;
  for (int64_t n = 1; n <= 17 && allOk; ++n) {
    std::vector<DeviceTensor> results;
    DeviceBuffer da, db;
    std::vector<float> zeros(size_t(n), 0.0f);
    allOk =
        da.upload(zeros, error) && db.upload(zeros, error) &&
        function->run({tensor(da, {n}), tensor(db, {n})}, results, true, error);
    freeResults(results);
  }
  runOnce("vadd graph after 17 size sets (n = 4096 again)", 4096, 13, true);
  GpuRunStats afterMany = function->stats();
  report(allOk && afterMany.graphCaptures == beforeMany.graphCaptures &&
             afterMany.graphResizes - beforeMany.graphResizes == 18,
         "vadd graph serves every size set", allOk ? statsText(afterMany)
                                                     : error);
  // A skipped launch has no node: n = 0 needs its own graph.
  runOnce("vadd graph (n = 0, launch skipped)", 0, 15, true);
  GpuRunStats empty = function->stats();
  report(empty.graphCaptures == afterMany.graphCaptures + 1,
         "vadd graph without the skipped launch captured apart",
         statsText(empty));

  // The guard on the plan, through checkPlanGuards.
  int64_t sizeA[] = {8}, sizeB[] = {9}, strides[] = {1};
  tgc_arg_desc descs[2] = {};
  for (int i = 0; i < 2; ++i) {
    descs[i].sizes = i == 0 ? sizeA : sizeB;
    descs[i].strides = strides;
    descs[i].rank = 1;
    descs[i].device_type = TGC_DEVICE_CUDA;
  }
  std::string message;
  int32_t guard = checkPlanGuards(function->plan(), descs, 2, message);
  report(guard == 0 && message.find("s0 = 8") != std::string::npos,
         "vadd guard rejects mismatched sizes", message);
}

//===----------------------------------------------------------------------===//
// Whole descriptors: offsets and strides from the plan
//===----------------------------------------------------------------------===//

// c[i] = a[1 + 2 i] + b[i]: a read through a rank-1 descriptor with offset 1
// and stride 2.
const char *const kStridedPlan = R"plan(function vadd_strided
arg 0 f32 1
arg 1 f32 1
expr 0 argdim 1 0
expr 1 const 1
expr 2 const 2
expr 3 const 256
expr 4 ceildiv n0 n3
result 0 f32 1 n0
kernel vadd_strided
buffer arg 0
buffer arg 1
buffer result 0
launch k0 grid n4 n1 n1 block n3 n1 n1 shmem none params b0/1{n1;n0;n2} b1/1{none;n0;n1} b2/1{none;n0;n1} i0
)plan";

void testStrided(const std::string &ptx) {
  std::unique_ptr<GpuFunction> function =
      loadPlan(kStridedPlan, ptx, "vadd_strided");
  if (!function)
    return;
  std::string error;
  std::vector<std::unique_ptr<DeviceBuffer>> inputs;
  auto runOnce = [&](const std::string &name, uint32_t seed, bool useGraph) {
    const int64_t n = 3000;
    std::vector<float> a = pattern(size_t(2 * n + 1), seed),
                       b = pattern(size_t(n), seed + 1), expected(b.size());
    for (int64_t i = 0; i < n; ++i)
      expected[i] = a[1 + 2 * i] + b[i];
    inputs.emplace_back(new DeviceBuffer());
    DeviceBuffer &da = *inputs.back();
    inputs.emplace_back(new DeviceBuffer());
    DeviceBuffer &db = *inputs.back();
    std::vector<DeviceTensor> results;
    if (!da.upload(a, error) || !db.upload(b, error) ||
        !function->run({tensor(da, {2 * n + 1}), tensor(db, {n})}, results,
                       useGraph, error))
      return report(false, name, error);
    std::vector<float> c;
    bool ok = download(results[0], c, error);
    freeResults(results);
    if (!ok)
      return report(false, name, error);
    std::string mismatch = compare(c, expected, 0.0f);
    report(mismatch.empty(), name, mismatch);
  };
  runOnce("ranked descriptor (offset 1, stride 2) direct", 60, false);
  runOnce("ranked descriptor graph call 1", 61, true);
  runOnce("ranked descriptor graph call 2 (other pointers)", 62, true);
  GpuRunStats stats = function->stats();
  report(stats.graphCaptures == 1 && stats.patchedNodes >= 1,
         "ranked descriptor graph patched", statsText(stats));
}

//===----------------------------------------------------------------------===//
// Copies and memsets
//===----------------------------------------------------------------------===//

const char *const kCopyPlan = R"plan(function copy_fill
arg 0 f32 1
expr 0 argdim 0 0
expr 1 const 4
expr 2 mul n0 n1
expr 3 const 2
expr 4 floordiv n2 n3
result 0 f32 1 n0
result 1 f32 1 n0
kernel vadd
buffer arg 0
buffer result 0
buffer result 1
buffer view b2 n4
copy dst b1 src b0 bytes n2
memset dst b2 bytes n4 value 0x3f800000
memset dst b3 bytes n4 value 0x40000000
)plan";

void testCopyMemset(const std::string &ptx) {
  std::unique_ptr<GpuFunction> function =
      loadPlan(kCopyPlan, ptx, "copy/memset");
  if (!function)
    return;
  std::string error;
  const int64_t n = 1000;
  std::vector<float> x = pattern(n, 5);
  DeviceBuffer dx;
  std::vector<DeviceTensor> results;
  if (!dx.upload(x, error) ||
      !function->run({tensor(dx, {n})}, results, false, error))
    return report(false, "copy/memset direct", error);
  std::vector<float> copied, filled;
  bool ok = download(results[0], copied, error) &&
            download(results[1], filled, error);
  freeResults(results);
  if (!ok)
    return report(false, "copy/memset direct", error);
  std::vector<float> expectedFill(n, 1.0f);
  for (int64_t i = n / 2; i < n; ++i)
    expectedFill[i] = 2.0f;
  std::string mismatch = compare(copied, x, 0.0f);
  report(mismatch.empty(), "copy (cuMemcpyDtoDAsync)", mismatch);
  mismatch = compare(filled, expectedFill, 0.0f);
  report(mismatch.empty(), "memset (cuMemsetD32Async) and a view", mismatch);
}

//===----------------------------------------------------------------------===//
// GEMMs
//===----------------------------------------------------------------------===//

/// Row-major reference: C[b] = epilogue(op(A[b]) op(B[b]) + bias).
std::vector<float> referenceGemm(const std::vector<float> &a,
                                 const std::vector<float> &b,
                                 const std::vector<float> *bias, int64_t batch,
                                 int64_t m, int64_t n, int64_t k, bool transA,
                                 bool transB, bool relu) {
  std::vector<float> c(size_t(batch * m * n));
  for (int64_t p = 0; p < batch; ++p)
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        double sum = 0;
        for (int64_t l = 0; l < k; ++l) {
          float av =
              transA ? a[p * m * k + l * m + i] : a[p * m * k + i * k + l];
          float bv =
              transB ? b[p * k * n + j * k + l] : b[p * k * n + l * n + j];
          sum += double(av) * double(bv);
        }
        if (bias)
          sum += (*bias)[j];
        if (relu && sum < 0)
          sum = 0;
        c[p * m * n + i * n + j] = float(sum);
      }
  return c;
}

const char *const kGemmBiasReluPlan = R"plan(function linear_relu
arg 0 f32 2
arg 1 f32 2
arg 2 f32 1
expr 0 argdim 0 0
expr 1 argdim 0 1
expr 2 argdim 1 1
result 0 f32 2 n0 n2
buffer arg 0
buffer arg 1
buffer arg 2
buffer result 0
gemm f32 m n0 n n2 k n1 batch none transa 0 transb 0 a b0 b b1 c b3 bias b2 epilogue bias_relu strides none none none
)plan";

// x @ w + bias + r: the residual r added by cuBLASLt (beta = 1).
const char *const kGemmResidualPlan = R"plan(function linear_residual
arg 0 f32 2
arg 1 f32 2
arg 2 f32 1
arg 3 f32 2
expr 0 argdim 0 0
expr 1 argdim 0 1
expr 2 argdim 1 1
result 0 f32 2 n0 n2
buffer arg 0
buffer arg 1
buffer arg 2
buffer arg 3
buffer result 0
gemm f32 m n0 n n2 k n1 batch none transa 0 transb 0 a b0 b b1 c b4 bias b2 residual b3 epilogue bias strides none none none
)plan";

// A stored [batch, k, m] (transA), B stored [batch, n, k] (transB).
const char *const kGemmBatchedPlan = R"plan(function batched_tt
arg 0 f32 3
arg 1 f32 3
expr 0 argdim 0 0
expr 1 argdim 0 1
expr 2 argdim 0 2
expr 3 argdim 1 1
result 0 f32 3 n0 n2 n3
buffer arg 0
buffer arg 1
buffer result 0
gemm f32 m n2 n n3 k n1 batch n0 transa 1 transb 1 a b0 b b1 c b2 bias none epilogue none strides none none none
)plan";

/// An f16 bit pattern for a float with at most 11 significant bits in the
/// normal f16 range (the selftest's inputs are multiples of 1/256).
uint16_t toHalf(float value) {
  uint32_t bits = 0;
  std::memcpy(&bits, &value, sizeof(bits));
  uint16_t sign = uint16_t((bits >> 16) & 0x8000);
  if ((bits & 0x7fffffff) == 0)
    return sign;
  int exponent = int((bits >> 23) & 0xff) - 127 + 15;
  return uint16_t(sign | (exponent << 10) | ((bits & 0x7fffff) >> 13));
}

/// Multiples of 1/256 in [-1, 1]: exact in f16.
std::vector<float> halfPattern(size_t count, uint32_t seed) {
  std::vector<float> values = pattern(count, seed);
  for (float &value : values)
    value = std::round(value * 256.0f) / 256.0f;
  return values;
}

const char *const kGemmHalfPlan = R"plan(function linear_gelu_f16
arg 0 f16 2
arg 1 f16 2
arg 2 f32 1
expr 0 argdim 0 0
expr 1 argdim 0 1
expr 2 argdim 1 1
result 0 f32 2 n0 n2
buffer arg 0
buffer arg 1
buffer arg 2
buffer result 0
gemm f16 out f32 m n0 n n2 k n1 batch none transa 0 transb 0 a b0 b b1 c b3 bias b2 epilogue bias_gelu strides none none none
)plan";

void testGemmHalf(const std::string &ptx) {
  const char *name = "gemm f16 -> f32, bias+gelu (cuBLASLt, 128x64x96)";
  std::unique_ptr<GpuFunction> function =
      loadPlan(kGemmHalfPlan, ptx, "gemm f16");
  if (!function)
    return;
  const int64_t m = 128, n = 64, k = 96;
  std::vector<float> a = halfPattern(m * k, 50), b = halfPattern(k * n, 51),
                     bias = pattern(n, 52);
  std::vector<float> expected =
      referenceGemm(a, b, &bias, 1, m, n, k, false, false, false);
  for (float &x : expected)
    x = float(0.5 * x *
              (1.0 + std::tanh(0.7978845608028654 *
                               (x + 0.044715 * double(x) * x * x))));
  std::vector<uint16_t> aHalf, bHalf;
  for (float x : a)
    aHalf.push_back(toHalf(x));
  for (float x : b)
    bHalf.push_back(toHalf(x));
  std::string error;
  DeviceBuffer da, db, dbias;
  std::vector<DeviceTensor> results;
  DeviceTensor ta, tb;
  bool ok = deviceAlloc(aHalf.size() * 2, da.ptr, error) &&
            copyToDevice(da.ptr, aHalf.data(), aHalf.size() * 2, error) &&
            deviceAlloc(bHalf.size() * 2, db.ptr, error) &&
            copyToDevice(db.ptr, bHalf.data(), bHalf.size() * 2, error) &&
            dbias.upload(bias, error);
  ta = tensor(da, {m, k});
  ta.dtype = TGC_DTYPE_F16;
  tb = tensor(db, {k, n});
  tb.dtype = TGC_DTYPE_F16;
  if (!ok ||
      !function->run({ta, tb, tensor(dbias, {n})}, results, false, error))
    return report(false, name, error);
  std::vector<float> c;
  ok = download(results[0], c, error);
  freeResults(results);
  if (!ok)
    return report(false, name, error);
  std::string mismatch = compare(c, expected, 2e-3f);
  report(mismatch.empty(), name, mismatch);
}

/// Uploads f32 `inputs` (values and sizes), runs `function` on them and
/// reports its first result against `expected`.
void checkF32Run(
    GpuFunction &function,
    const std::vector<std::pair<std::vector<float>, std::vector<int64_t>>>
        &inputs,
    const std::vector<float> &expected, const char *name) {
  std::string error;
  std::vector<DeviceBuffer> buffers(inputs.size());
  std::vector<DeviceTensor> args, results;
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (!buffers[i].upload(inputs[i].first, error))
      return report(false, name, error);
    args.push_back(tensor(buffers[i], inputs[i].second));
  }
  if (!function.run(args, results, false, error))
    return report(false, name, error);
  std::vector<float> c;
  bool ok = download(results[0], c, error);
  freeResults(results);
  if (!ok)
    return report(false, name, error);
  std::string mismatch = compare(c, expected, 1e-4f);
  report(mismatch.empty(), name, mismatch);
}

void testGemm(const std::string &ptx) {
  const int64_t m = 64, n = 48, k = 40;
  if (std::unique_ptr<GpuFunction> function =
          loadPlan(kGemmBiasReluPlan, ptx, "gemm bias+relu")) {
    std::vector<float> a = pattern(m * k, 20), b = pattern(k * n, 21),
                       bias = pattern(n, 22);
    checkF32Run(*function, {{a, {m, k}}, {b, {k, n}}, {bias, {n}}},
                referenceGemm(a, b, &bias, 1, m, n, k, false, false, true),
                "gemm bias+relu (cuBLASLt, 64x48x40)");
  }
  if (std::unique_ptr<GpuFunction> function =
          loadPlan(kGemmResidualPlan, ptx, "gemm bias+residual")) {
    std::vector<float> a = pattern(m * k, 23), b = pattern(k * n, 24),
                       bias = pattern(n, 25), r = pattern(m * n, 26);
    std::vector<float> expected =
        referenceGemm(a, b, &bias, 1, m, n, k, false, false, false);
    for (size_t i = 0; i < expected.size(); ++i)
      expected[i] += r[i];
    checkF32Run(*function, {{a, {m, k}}, {b, {k, n}}, {bias, {n}}, {r, {m, n}}},
                expected, "gemm bias+residual (cuBLASLt, 64x48x40)");
  }
  if (std::unique_ptr<GpuFunction> function =
          loadPlan(kGemmBatchedPlan, ptx, "gemm batched")) {
    const int64_t batch = 3, bm = 33, bn = 17, bk = 29;
    std::vector<float> a = pattern(batch * bk * bm, 30),
                       b = pattern(batch * bn * bk, 31);
    checkF32Run(
        *function, {{a, {batch, bk, bm}}, {b, {batch, bn, bk}}},
        referenceGemm(a, b, nullptr, batch, bm, bn, bk, true, true, false),
        "gemm batched, transa and transb (3x33x17x29)");
  }
}

//===----------------------------------------------------------------------===//
// A GEMM and a kernel under stream capture
//===----------------------------------------------------------------------===//

// result = relu(x @ w) + y, the GEMM into the arena.
const char *const kMixedPlan = R"plan(function mixed
arg 0 f32 2
arg 1 f32 2
arg 2 f32 2
expr 0 argdim 0 0
expr 1 argdim 0 1
expr 2 argdim 1 1
expr 3 mul n0 n2
expr 4 const 4
expr 5 mul n3 n4
expr 6 const 256
expr 7 ceildiv n3 n6
expr 8 const 1
result 0 f32 2 n0 n2
arena n5
kernel vadd
buffer arg 0
buffer arg 1
buffer arg 2
buffer arena none
buffer result 0
memset dst b3 bytes n5 value 0x00000000
gemm f32 m n0 n n2 k n1 batch none transa 0 transb 0 a b0 b b1 c b3 bias none epilogue relu strides none none none
launch k0 grid n7 n8 n8 block n6 n8 n8 shmem none params b3:n3 b2:n3 b4:n3 i3
)plan";

void testMixedGraph(const std::string &ptx) {
  std::unique_ptr<GpuFunction> function =
      loadPlan(kMixedPlan, ptx, "gemm+kernel graph");
  if (!function)
    return;
  std::string error;
  const int64_t m = 96, k = 64, n = 80;
  std::vector<float> x1 = pattern(m * k, 40), x2 = pattern(m * k, 41),
                     w = pattern(k * n, 42), y1 = pattern(m * n, 43),
                     y2 = pattern(m * n, 44);
  DeviceBuffer dx1, dx2, dw, dy1, dy2;
  if (!dx1.upload(x1, error) || !dx2.upload(x2, error) ||
      !dw.upload(w, error) || !dy1.upload(y1, error) || !dy2.upload(y2, error))
    return report(false, "gemm+kernel graph: upload", error);

  // Each result is kept until the next call, so that call's result gets
  // another pointer: the kernel writing it must be patched.
  std::vector<DeviceTensor> previous;
  auto call = [&](const std::string &name, const DeviceBuffer &dx,
                  const std::vector<float> &x, const DeviceBuffer &dy,
                  const std::vector<float> &y) {
    std::vector<float> expected =
        referenceGemm(x, w, nullptr, 1, m, n, k, false, false, true);
    for (size_t i = 0; i < expected.size(); ++i)
      expected[i] += y[i];
    std::vector<DeviceTensor> results;
    if (!function->run(
            {tensor(dx, {m, k}), tensor(dw, {k, n}), tensor(dy, {m, n})},
            results, true, error))
      return report(false, name, error);
    std::vector<float> out;
    bool ok = download(results[0], out, error);
    freeResults(previous);
    previous = results;
    if (!ok)
      return report(false, name, error);
    std::string mismatch = compare(out, expected, 1e-4f);
    report(mismatch.empty(), name,
           mismatch.empty() ? statsText(function->stats()) : mismatch);
  };

  call("mixed graph call 1 (capture)", dx1, x1, dy1, y1);
  GpuRunStats first = function->stats();
  call("mixed graph call 2 (new y and result: patch the kernel node)", dx1, x1,
       dy2, y2);
  GpuRunStats second = function->stats();
  report(second.graphCaptures == first.graphCaptures &&
             second.patchedNodes > first.patchedNodes,
         "mixed graph: captured kernel node matched and patched",
         statsText(second));
  call("mixed graph call 3 (new x: the GEMM changed, capture again)", dx2, x2,
       dy2, y2);
  GpuRunStats third = function->stats();
  report(third.graphCaptures == second.graphCaptures + 1,
         "mixed graph: a changed GEMM pointer recaptures", statsText(third));
  call("mixed graph call 4 (x back, same graph key)", dx1, x1, dy1, y1);
  freeResults(previous);

  // At most 16 graphs per function, the least recently used evicted: each
  // GEMM shape needs a graph of its own (cuBLASLt's kernels are not
  // patched). Each row count keeps its buffers, so calling it again finds
  // its graph if it is still kept: after 17 row counts, 17 is kept, 1 was
  // evicted (captured again, evicting 2) and 3 is kept.
  std::map<int64_t, std::pair<DeviceBuffer, DeviceBuffer>> shapes;
  auto shapeCall = [&](int64_t rows) {
    auto &[dx, dy] = shapes[rows];
    std::vector<float> zx(size_t(rows * k), 0.0f), zy(size_t(rows * n), 0.0f);
    if (!dx.ptr && (!dx.upload(zx, error) || !dy.upload(zy, error)))
      return false;
    std::vector<DeviceTensor> results;
    bool ok = function->run({tensor(dx, {rows, k}), tensor(dw, {k, n}),
                             tensor(dy, {rows, n})},
                            results, true, error);
    freeResults(results);
    return ok;
  };
  GpuRunStats beforeMany = function->stats();
  bool allOk = true;
  for (int64_t rows = 1; rows <= 17 && allOk; ++rows)
    allOk = shapeCall(rows);
  GpuRunStats afterMany = function->stats();
  allOk = allOk && shapeCall(17);
  GpuRunStats kept = function->stats();
  allOk = allOk && shapeCall(1);
  GpuRunStats evicted = function->stats();
  allOk = allOk && shapeCall(3);
  GpuRunStats stillKept = function->stats();
  report(allOk && afterMany.graphCaptures - beforeMany.graphCaptures == 17 &&
             kept.graphCaptures == afterMany.graphCaptures &&
             evicted.graphCaptures == kept.graphCaptures + 1 &&
             stillKept.graphCaptures == evicted.graphCaptures,
         "mixed graph: 16 graphs kept, the least recently used evicted",
         allOk ? statsText(stillKept) : error);
}

//===----------------------------------------------------------------------===//
// Errors
//===----------------------------------------------------------------------===//

void testErrors(const std::string &ptx) {
  GpuArtifact artifact;
  std::string error;
  parsePlan(kVaddPlan, artifact.plan, error);
  artifact.plan.kernels[0] = "no_such_kernel";
  artifact.module = ptx;
  artifact.isPtx = true;
  std::unique_ptr<GpuFunction> function = GpuFunction::load(artifact, error);
  report(!function && error.find("cuModuleGetFunction failed: "
                                 "CUDA_ERROR_NOT_FOUND") != std::string::npos,
         "missing kernel is reported", error);

  artifact.plan.kernels[0] = "vadd";
  artifact.module = ".version 8.0\n.target sm_90\n.address_size 64\n"
                    ".visible .entry vadd() { bogus.instruction; }\n";
  error.clear();
  function = GpuFunction::load(artifact, error);
  report(!function &&
             error.find("cuModuleLoadDataEx failed") != std::string::npos &&
             error.find("PTX JIT log") != std::string::npos,
         "bad PTX is reported with the JIT log", error);

  artifact.module = ptx;
  function = GpuFunction::load(artifact, error);
  if (!function)
    return report(false, "wrong argument dtype is reported", error);
  DeviceTensor arg;
  arg.sizes = {4};
  arg.dtype = TGC_DTYPE_F16;
  std::vector<DeviceTensor> results;
  bool ran = function->run({arg, arg}, results, false, error);
  report(!ran && error.find("f16") != std::string::npos,
         "wrong argument dtype is reported", error);
}

} // namespace

int main(int argc, char **argv) {
  bool allowNoGpu = false;
  std::string ptxPath;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--allow-no-gpu") == 0)
      allowNoGpu = true;
    else if (ptxPath.empty() && argv[i][0] != '-')
      ptxPath = argv[i];
    else {
      std::fprintf(stderr,
                   "usage: %s [--allow-no-gpu] path/to/vector_add.ptx\n",
                   argv[0]);
      return 2;
    }
  }
  if (ptxPath.empty()) {
    std::fprintf(stderr, "usage: %s [--allow-no-gpu] path/to/vector_add.ptx\n",
                 argv[0]);
    return 2;
  }
  std::string why;
  if (!cudaDeviceAvailable(why)) {
    std::printf("no CUDA device: %s\n", why.c_str());
    return allowNoGpu ? 0 : 1;
  }
  std::ifstream file(ptxPath, std::ios::binary);
  if (!file) {
    std::fprintf(stderr, "cannot read %s\n", ptxPath.c_str());
    return 2;
  }
  std::ostringstream contents;
  contents << file.rdbuf();
  std::string ptx = contents.str();
  std::printf("device: %s\n", deviceName().c_str());

  testVectorAdd(ptx);
  testStrided(ptx);
  testCopyMemset(ptx);
  testGemm(ptx);
  testGemmHalf(ptx);
  testMixedGraph(ptx);
  testErrors(ptx);

  std::printf("%d passed, %d failed\n", passed, failed);
  return failed == 0 ? 0 : 1;
}
