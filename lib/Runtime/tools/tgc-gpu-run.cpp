//===- tgc-gpu-run.cpp - run compiled GPU artifacts without LLVM ----------===//
//
// The runtime half of `tgc-run --device cuda`, for machines with a GPU but
// no LLVM or MLIR (the compiler writes the case folder elsewhere with
// `tgc-run --device cuda --compile-only --save-case DIR`):
//
//   tgc-gpu-run DIR [--repeat N] [--cuda-graphs] [--fresh-inputs]
//               [--device-time] [--profile] [--json]
//
// DIR holds specK.tgca (artifacts) and callN.case (a call's inputs, the
// reference interpreter's results and out buffers). Each call is checked
// against its specialization's guards, run N times (timed: wall clock per
// call; with --device-time also the device time from CUDA events around
// the call's steps, whose two event records add to the wall time), and
// its results and out buffers compared with the reference. With --profile
// each call's steps are then timed one by one (N runs each) and printed
// with their strategy, grid, bytes and bandwidth.
// Exits 1 on a mismatch, 2 on an error. Plain C++17 over lib/Runtime.
//
//===----------------------------------------------------------------------===//

#include "tgc/Runtime/CaseFile.h"
#include "tgc/Runtime/GpuExecutor.h"
#include "tgc/Runtime/GpuPlan.h"

#include <algorithm>
#include <chrono>
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

struct Tensor {
  int32_t dtype = 0;
  std::vector<int64_t> sizes;
  std::string bytes;
};

[[noreturn]] void fail(const std::string &message) {
  std::fprintf(stderr, "tgc-gpu-run: error: %s\n", message.c_str());
  std::exit(2);
}

size_t elementBytes(int32_t dtype) { return size_t(dtypeBytes(dtype)); }

bool readFile(const std::string &path, std::string &out) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return false;
  std::ostringstream ss;
  ss << in.rdbuf();
  out = ss.str();
  return true;
}

void fillRandom(Tensor &t, uint64_t n) {
  t.bytes.resize(n * elementBytes(t.dtype));
  uint64_t state = 0x9E3779B97F4A7C15ull ^ n;
  for (uint64_t i = 0; i < n; ++i) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    double u = double(state >> 11) / double(1ull << 53) * 2 - 1;
    char *p = &t.bytes[i * elementBytes(t.dtype)];
    float f = float(u);
    uint32_t bits;
    std::memcpy(&bits, &f, 4);
    switch (t.dtype) {
    case TGC_DTYPE_F32:
      std::memcpy(p, &f, 4);
      break;
    case TGC_DTYPE_F64:
      std::memcpy(p, &u, 8);
      break;
    case TGC_DTYPE_BF16: {
      uint16_t h = uint16_t(bits >> 16);
      std::memcpy(p, &h, 2);
      break;
    }
    case TGC_DTYPE_F16: {
      // |u| < 1: a normal half with a 10-bit mantissa (or zero).
      uint16_t sign = (bits >> 16) & 0x8000;
      int exp = int((bits >> 23) & 0xff) - 127 + 15;
      uint16_t h = exp <= 0 ? sign
                            : uint16_t(sign | (exp << 10) |
                                       ((bits >> 13) & 0x3ff));
      std::memcpy(p, &h, 2);
      break;
    }
    case TGC_DTYPE_I64: {
      int64_t v = int64_t((state >> 33) % 10);
      std::memcpy(p, &v, 8);
      break;
    }
    case TGC_DTYPE_I32: {
      int32_t v = int32_t((state >> 33) % 10);
      std::memcpy(p, &v, 4);
      break;
    }
    default:
      *p = char((state >> 33) % 2);
    }
  }
}

/// A case file's tensors; one written without data gets random values in
/// [-1, 1) (integers: 0..9).
std::vector<Tensor> tensors(const std::vector<CaseTensor> &in) {
  std::vector<Tensor> out;
  for (const CaseTensor &c : in) {
    Tensor t;
    t.dtype = c.dtype;
    t.sizes = c.sizes;
    if (c.hasData) {
      t.bytes = c.bytes;
    } else {
      uint64_t n = 1;
      for (int64_t d : c.sizes)
        n *= uint64_t(d);
      fillRandom(t, n);
    }
    out.push_back(std::move(t));
  }
  return out;
}


double toDouble(const Tensor &t, size_t i) {
  const char *p = t.bytes.data() + i * elementBytes(t.dtype);
  switch (t.dtype) {
  case TGC_DTYPE_F32: {
    float v;
    std::memcpy(&v, p, 4);
    return v;
  }
  case TGC_DTYPE_F64: {
    double v;
    std::memcpy(&v, p, 8);
    return v;
  }
  case TGC_DTYPE_BF16: {
    uint16_t h;
    std::memcpy(&h, p, 2);
    uint32_t bits = uint32_t(h) << 16;
    float v;
    std::memcpy(&v, &bits, 4);
    return v;
  }
  case TGC_DTYPE_F16: {
    uint16_t h;
    std::memcpy(&h, p, 2);
    int exp = (h >> 10) & 0x1f, mant = h & 0x3ff;
    double v = exp == 0    ? std::ldexp(mant, -24)
               : exp == 31 ? (mant ? NAN : INFINITY)
                           : std::ldexp(mant | 0x400, exp - 25);
    return (h & 0x8000) ? -v : v;
  }
  case TGC_DTYPE_I64: {
    int64_t v;
    std::memcpy(&v, p, 8);
    return double(v);
  }
  case TGC_DTYPE_I32: {
    int32_t v;
    std::memcpy(&v, p, 4);
    return v;
  }
  default:
    return double(int8_t(*p));
  }
}

/// |actual - expected| <= atol + rtol * |expected| per element (NaN where
/// the reference has NaN), as tgc-run's reference check.
struct Compare {
  double maxAbs = 0, maxRel = 0;
  bool ok = true;
  std::string message;
};

Compare compare(const Tensor &actual, const Tensor &want) {
  Compare c;
  if (actual.sizes != want.sizes || actual.dtype != want.dtype) {
    c.ok = false;
    c.message = "shape or dtype differs";
    return c;
  }
  double rtol = 0, atol = 0;
  switch (want.dtype) {
  case TGC_DTYPE_F64:
    rtol = 1e-9, atol = 1e-12;
    break;
  case TGC_DTYPE_F32:
    rtol = 1e-4, atol = 1e-5;
    break;
  case TGC_DTYPE_F16:
    rtol = 1e-2, atol = 1e-3;
    break;
  case TGC_DTYPE_BF16:
    rtol = 2e-2, atol = 1e-2;
    break;
  default:
    break;
  }
  size_t n = want.bytes.size() / elementBytes(want.dtype);
  for (size_t i = 0; i < n; ++i) {
    double a = toDouble(actual, i), e = toDouble(want, i);
    if (std::isnan(e) || std::isnan(a)) {
      if (std::isnan(e) != std::isnan(a) && c.ok) {
        c.ok = false;
        c.message = "element " + std::to_string(i) + ": " +
                    std::to_string(a) + " vs " + std::to_string(e);
      }
      continue;
    }
    if (std::isinf(e) || std::isinf(a)) {
      if (a != e && c.ok) {
        c.ok = false;
        c.message = "element " + std::to_string(i) + ": " +
                    std::to_string(a) + " vs " + std::to_string(e);
      }
      continue;
    }
    double err = std::fabs(a - e);
    c.maxAbs = std::max(c.maxAbs, err);
    if (e != 0)
      c.maxRel = std::max(c.maxRel, err / std::fabs(e));
    if (err > atol + rtol * std::fabs(e) && c.ok) {
      c.ok = false;
      c.message = "element " + std::to_string(i) + ": " + std::to_string(a) +
                  " vs " + std::to_string(e);
    }
  }
  return c;
}

std::vector<int64_t> denseStrides(const std::vector<int64_t> &sizes) {
  std::vector<int64_t> strides(sizes.size(), 1);
  for (int64_t i = int64_t(sizes.size()) - 2; i >= 0; --i)
    strides[i] = strides[i + 1] * std::max<int64_t>(sizes[i + 1], 1);
  return strides;
}

std::vector<DeviceTensor> upload(const std::vector<Tensor> &host) {
  std::vector<DeviceTensor> out;
  for (const Tensor &t : host) {
    DeviceTensor d;
    d.sizes = t.sizes;
    d.dtype = t.dtype;
    std::string error;
    if (!deviceAlloc(std::max<uint64_t>(t.bytes.size(), 1), d.ptr, error) ||
        !copyToDevice(d.ptr, t.bytes.data(), t.bytes.size(), error))
      fail(error);
    out.push_back(d);
  }
  return out;
}

Tensor download(const DeviceTensor &d) {
  Tensor t;
  t.dtype = d.dtype;
  t.sizes = d.sizes;
  size_t n = 1;
  for (int64_t s : d.sizes)
    n *= size_t(s);
  t.bytes.resize(n * elementBytes(d.dtype));
  std::string error;
  if (!copyToHost(t.bytes.data(), d.ptr, t.bytes.size(), error))
    fail(error);
  return t;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

} // namespace

const char *const kUsage = "usage: tgc-gpu-run DIR [--repeat N] "
                           "[--cuda-graphs] [--fresh-inputs] "
                           "[--device-time] [--profile] [--json]";

int main(int argc, char **argv) {
  std::string dir;
  int repeat = 1;
  bool graphs = false, fresh = false, json = false, deviceTime = false,
       profile = false;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--repeat" && i + 1 < argc)
      repeat = std::max(1, std::atoi(argv[++i]));
    else if (a == "--cuda-graphs")
      graphs = true;
    else if (a == "--fresh-inputs")
      fresh = true;
    else if (a == "--json")
      json = true;
    else if (a == "--device-time")
      deviceTime = true;
    else if (a == "--profile")
      profile = true;
    else if (!a.empty() && a[0] != '-' && dir.empty())
      dir = a;
    else
      fail(kUsage);
  }
  if (dir.empty())
    fail(kUsage);
  std::string why;
  if (!cudaDeviceAvailable(why))
    fail("no usable CUDA device: " + why);

  std::map<uint32_t, std::unique_ptr<GpuFunction>> functions;
  bool allOk = true;
  double maxAbs = 0, maxRel = 0;
  std::vector<double> medians, deviceMedians;
  std::string perCall;
  int calls = 0;
  for (int n = 0;; ++n) {
    std::string path = dir + "/call" + std::to_string(n) + ".case", data;
    if (!readFile(path, data))
      break;
    ++calls;
    CaseFile file;
    std::string caseError;
    if (!readCaseFile(data, file, caseError))
      fail("'" + path + "': " + caseError);
    // No reference: a benchmark case.
    bool reference = file.reference;
    std::vector<Tensor> args = tensors(file.args),
                        expected = tensors(file.expected),
                        expectedArgs = tensors(file.expectedArgs);

    std::unique_ptr<GpuFunction> &fn = functions[file.spec];
    if (!fn) {
      std::string apath = dir + "/spec" + std::to_string(file.spec) + ".tgca";
      std::string bytes, error;
      if (!readFile(apath, bytes))
        fail("cannot read '" + apath + "'");
      GpuArtifact artifact;
      if (!readGpuArtifact(bytes, artifact, error))
        fail("'" + apath + "': " + error);
      fn = GpuFunction::load(artifact, error);
      if (!fn)
        fail(error);
      fn->setDeviceTiming(deviceTime);
    }
    std::vector<DeviceTensor> dargs = upload(args);
    // The specialization's guards must accept the call.
    std::vector<std::vector<int64_t>> strides;
    std::vector<tgc_arg_desc> descs;
    for (const DeviceTensor &d : dargs)
      strides.push_back(denseStrides(d.sizes));
    for (size_t i = 0; i < dargs.size(); ++i) {
      tgc_arg_desc d{};
      d.data = reinterpret_cast<void *>(dargs[i].ptr);
      d.sizes = dargs[i].sizes.data();
      d.strides = strides[i].data();
      d.rank = int64_t(dargs[i].sizes.size());
      d.dtype = dargs[i].dtype;
      d.device_type = TGC_DEVICE_CUDA;
      descs.push_back(d);
    }
    std::string message;
    if (checkPlanGuards(fn->plan(), descs.data(), int32_t(descs.size()),
                        message) != -1)
      fail("call " + std::to_string(n) + ": " + message);

    std::vector<double> times;
    std::vector<DeviceTensor> results;
    size_t timedBefore = fn->stats().deviceTimesMs.size();
    // Device timing: the calls before the checked one do not wait, so the
    // GPU runs them back to back and each one's events time its work, not
    // the launch latency (as PyTorch's back-to-back CUDA-event timing).
    // Their wall times are then issue times only: benchmarks take wall
    // times from a run without --device-time.
    bool async = deviceTime && !fresh;
    for (int k = 0; k < repeat; ++k) {
      std::string error;
      if (k > 0) {
        for (DeviceTensor &t : results)
          deviceFree(t.ptr);
        results.clear();
        if (fresh) {
          std::vector<DeviceTensor> next = upload(args);
          for (DeviceTensor &t : dargs)
            deviceFree(t.ptr);
          dargs = next;
        } else if (k == repeat - 1) {
          // The checked call gets the original inputs back (a function
          // may update its inputs); the calls before it run back to back
          // on the same inputs, as PyTorch's timing loop does (an upload
          // between calls leaves the GPU idle and its clocks low).
          if (async && !deviceSynchronize(error))
            fail(error);
          for (size_t i = 0; i < args.size(); ++i)
            if (!copyToDevice(dargs[i].ptr, args[i].bytes.data(),
                              args[i].bytes.size(), error))
              fail(error);
        }
      }
      auto start = std::chrono::steady_clock::now();
      bool ok = fn->run(dargs, results, graphs, error,
                        /*wait=*/!async || k == repeat - 1);
      times.push_back(std::chrono::duration<double, std::milli>(
                          std::chrono::steady_clock::now() - start)
                          .count());
      if (!ok)
        fail("call " + std::to_string(n) + ": " + error);
    }
    std::vector<double> deviceTimes(
        fn->stats().deviceTimesMs.begin() + ptrdiff_t(timedBefore),
        fn->stats().deviceTimesMs.end());
    bool ok = !reference || results.size() == expected.size();
    double callAbs = 0, callRel = 0;
    std::string first;
    auto check = [&](const Tensor &got, const Tensor &want,
                     const std::string &what) {
      Compare c = compare(got, want);
      callAbs = std::max(callAbs, c.maxAbs);
      callRel = std::max(callRel, c.maxRel);
      if (!c.ok && ok) {
        ok = false;
        first = what + ": " + c.message;
      }
    };
    for (size_t i = 0; i < results.size() && i < expected.size(); ++i)
      check(download(results[i]), expected[i], "result " + std::to_string(i));
    for (size_t i = 0; reference && i < dargs.size(); ++i)
      check(download(dargs[i]), expectedArgs[i],
            "argument " + std::to_string(i));
    std::string profileText;
    if (profile) {
      // After the check: the profile's runs overwrite the out buffers.
      PlanProfile p;
      std::string error;
      if (!fn->profile(dargs, repeat, p, error))
        fail("call " + std::to_string(n) + ": " + error);
      double peak = devicePeakBandwidthGBs();
      char head[160];
      std::snprintf(head, sizeof(head),
                    "profile of call %d, %d run(s) per step, memory peak "
                    "%.0f GB/s:\n",
                    n, repeat, peak);
      profileText = head + formatProfileTable(p, peak);
    }
    for (DeviceTensor &t : results)
      deviceFree(t.ptr);
    for (DeviceTensor &t : dargs)
      deviceFree(t.ptr);
    allOk &= ok;
    maxAbs = std::max(maxAbs, callAbs);
    maxRel = std::max(maxRel, callRel);
    // Without fresh inputs, the last call follows an upload: the median
    // of the back-to-back calls before it.
    if (!fresh && times.size() > 2) {
      times.pop_back();
      if (!deviceTimes.empty())
        deviceTimes.pop_back();
    }
    double ms = median(times), deviceMs = median(deviceTimes);
    medians.push_back(ms);
    deviceMedians.push_back(deviceMs);
    char line[512];
    std::snprintf(line, sizeof(line),
                  "{\"call\": %d, \"spec\": %u, \"run_ms\": %.4f, "
                  "\"device_ms\": %.4f, \"max_abs_err\": %.3g, \"ok\": %s}",
                  n, file.spec, ms, deviceMs, callAbs, ok ? "true" : "false");
    perCall += (perCall.empty() ? "" : ",\n    ") + std::string(line);
    if (!json)
      std::printf("call %d (spec %u): run %.4f ms (median of %d), max abs "
                  "err %.3g%s%s\n",
                  n, file.spec, ms, repeat, callAbs, ok ? "" : ", MISMATCH: ",
                  first.c_str());
    if (!json)
      std::fputs(profileText.c_str(), stdout);
    if (!ok)
      std::fprintf(stderr, "tgc-gpu-run: mismatch in call %d: %s\n", n,
                   first.c_str());
  }
  if (calls == 0)
    fail("no call0.case in '" + dir + "'");
  GpuRunStats total;
  for (auto &[id, fn] : functions) {
    total.graphCaptures += fn->stats().graphCaptures;
    total.graphReplays += fn->stats().graphReplays;
    total.patchedNodes += fn->stats().patchedNodes;
    total.graphResizes += fn->stats().graphResizes;
    total.gemmTunings += fn->stats().gemmTunings;
    if (!fn->stats().graphFallback.empty())
      total.graphFallback = fn->stats().graphFallback;
  }
  if (json)
    std::printf("{\n  \"device\": \"%s\",\n  \"calls\": %d,\n  "
                "\"specializations\": %zu,\n  \"run_ms\": %.4f,\n  "
                "\"device_ms\": %.4f,\n  "
                "\"max_abs_err\": %.3g,\n  \"max_rel_err\": %.3g,\n  "
                "\"reference_ok\": %s,\n  \"cuda_graphs\": %s,\n  "
                "\"graph_captures\": %lld,\n  \"graph_replays\": %lld,\n  "
                "\"patched_nodes\": %lld,\n  \"graph_resizes\": %lld,\n  "
                "\"gemm_tunings\": %lld,\n  "
                "\"graph_fallback\": \"%s\",\n  "
                "\"per_call\": [\n    %s\n  ]\n}\n",
                deviceName().c_str(), calls, functions.size(), median(medians),
                median(deviceMedians),
                maxAbs, maxRel, allOk ? "true" : "false",
                graphs ? "true" : "false", (long long)total.graphCaptures,
                (long long)total.graphReplays, (long long)total.patchedNodes,
                (long long)total.graphResizes, (long long)total.gemmTunings, total.graphFallback.c_str(),
                perCall.c_str());
  else
    std::printf("%d call(s) on %s: reference check %s (max abs err %.3g); "
                "graphs: %lld captured, %lld replays, %lld patched nodes\n",
                calls, deviceName().c_str(), allOk ? "ok" : "MISMATCH", maxAbs,
                (long long)total.graphCaptures, (long long)total.graphReplays,
                (long long)total.patchedNodes);
  return allOk ? 0 : 1;
}
