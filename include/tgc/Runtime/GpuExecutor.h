//===- GpuExecutor.h - Run launch plans on a CUDA device --------*- C++ -*-===//
//
// Loads the CUDA driver (libcuda.so.1) and cuBLASLt at run time through
// symbol tables, so that the runtime builds and its CPU parts run on
// machines without a GPU; every CUDA error becomes a message naming the
// call. A GpuFunction holds one artifact's module and runs its plan on a
// stream, one launch after another or as a CUDA graph captured once per
// set of sizes whose changed pointers are patched into the instantiated
// graph on later calls. Plain C++17. See docs/gpu-runtime.md.
//
//===----------------------------------------------------------------------===//

#ifndef TGC_RUNTIME_GPUEXECUTOR_H
#define TGC_RUNTIME_GPUEXECUTOR_H

#include "tgc/Runtime/GpuPlan.h"
#include "tgc/Runtime/PlanSteps.h"

#include <cstdint>
#include <memory>
#include <functional>
#include <string>
#include <vector>

namespace tgc::runtime {

/// Whether a CUDA device can be used (driver found, initialized, at least
/// one device); `why` says what is missing otherwise.
bool cudaDeviceAvailable(std::string &why);

/// A device tensor: pointer, sizes, dtype. Dense row-major.
struct DeviceTensor {
  uint64_t ptr = 0; // CUdeviceptr
  std::vector<int64_t> sizes;
  int32_t dtype = TGC_DTYPE_F32;
};

/// Plain device memory helpers on the primary context of device 0 (they
/// initialize the driver on first use).
bool deviceAlloc(uint64_t bytes, uint64_t &ptr, std::string &error);
void deviceFree(uint64_t ptr);
bool copyToDevice(uint64_t dst, const void *src, uint64_t bytes,
                  std::string &error);
bool copyToHost(void *dst, uint64_t src, uint64_t bytes, std::string &error);
/// Device-to-device copy on the null stream; waits for it.
bool copyOnDevice(uint64_t dst, uint64_t src, uint64_t bytes,
                  std::string &error);
bool deviceSynchronize(std::string &error);
/// The device's name and its multiprocessor count, for reports.
std::string deviceName();
/// The device memory's theoretical bandwidth in GB/s (1e9 bytes), from the
/// driver's memory clock and bus width (two transfers per clock); 0 when
/// the driver does not say.
double devicePeakBandwidthGBs();

struct GpuRunStats {
  int64_t launches = 0;       // kernel launches issued on a stream
  int64_t gemms = 0;          // cuBLASLt calls issued on a stream
  int64_t convs = 0;          // cuDNN convolutions issued on a stream
  int64_t convTunings = 0;    // convolution shapes whose algorithms were timed
  int64_t convTuningsFromDisk = 0; // ... taken from the tuning cache instead
  int64_t graphCaptures = 0;  // graphs captured and instantiated
  int64_t graphReplays = 0;   // cuGraphLaunch calls
  int64_t patchedNodes = 0;   // kernel nodes whose parameters were patched
  int64_t graphResizes = 0;   // replays of a graph patched to other sizes
  int64_t gemmTunings = 0;    // GEMM shapes whose cuBLASLt algorithm was timed
  int64_t gemmTuningsFromDisk = 0; // ... taken from the tuning cache instead
  int64_t arenaBytes = 0;     // of the last call
  /// Calls that waited on the host for their device-side checks (none
  /// with setDeviceAsserts).
  int64_t checkWaits = 0;
  /// With setDeviceTiming: every timed call's device time, from an event
  /// recorded before its first step to one after its last, in call order
  /// as they become known (when a call waits).
  std::vector<double> deviceTimesMs;
  std::string graphFallback;  // why a call could not use a graph, if so
};

/// Where a call's steps go and where its results live (GpuFunction::run).
struct RunTarget {
  /// Issue the steps on `stream` (a CUstream; 0 is CUDA's legacy default
  /// stream, PyTorch's default) instead of the function's own stream. A
  /// call on a stream other than the previous call's makes the new stream
  /// wait for the previous one first: calls share the arena.
  bool callerStream = false;
  uint64_t stream = 0;
  /// When set, the memory of result `index` (dense row-major, on the
  /// device): called once per result before any step is issued; returns
  /// the device pointer (any non-null one for zero bytes), or 0 with
  /// `error` to fail the call. The steps write into it directly, and the
  /// runtime never frees it.
  std::function<uint64_t(size_t index, int32_t dtype,
                         const std::vector<int64_t> &sizes,
                         std::string &error)>
      allocResult;
  /// Refuse a call that would wait for the device (a larger arena, a GEMM
  /// or convolution shape not yet tuned, device-side checks), before it
  /// issues anything: run() then sets `wouldWait` and returns false with no
  /// error. For a caller that holds a lock while it runs (Python's GIL)
  /// and lets it go before running again without this flag.
  bool noWait = false;
  mutable bool wouldWait = false;
};

class GpuFunction {
public:
  ~GpuFunction();

  /// Loads the artifact's module (cubin or PTX) and resolves its kernels.
  static std::unique_ptr<GpuFunction> load(const GpuArtifact &artifact,
                                           std::string &error);

  const Plan &plan() const;

  /// Runs the plan on the function's stream and waits for it. `args` are
  /// device tensors (the caller checked the guards); results are allocated
  /// by the runtime with deviceAlloc (the caller frees them with
  /// deviceFree) and returned in `results`. With `useGraph`, the first call
  /// of a size set captures a CUDA graph and later calls replay it,
  /// patching changed argument and result pointers; a plan that cannot be
  /// captured runs on the stream and says why in stats().graphFallback.
  /// With `wait` false the call returns once its steps are issued: its
  /// results are ready after a later call that waits (or
  /// deviceSynchronize()), and the caller must not change its inputs
  /// before then. Back-to-back calls that do not wait keep the GPU busy,
  /// so their device times (setDeviceTiming) exclude launch latency.
  /// With a `target`, the steps go on its stream and the results into its
  /// memory (see RunTarget).
  bool run(const std::vector<DeviceTensor> &args,
           std::vector<DeviceTensor> &results, bool useGraph,
           std::string &error, bool wait = true,
           const RunTarget *target = nullptr);

  const GpuRunStats &stats() const;

  /// Times a call's steps on `args` (device tensors; the caller checked
  /// the guards) on the function's own stream, and waits: after one
  /// untimed run of the whole plan (GEMM algorithms are tuned there), each
  /// step runs `repeat` times back to back between two CUDA events, then
  /// the whole plan `repeat` times. A step shorter than the host's launch
  /// rate (a few microseconds) is timed at that rate. The runs write the
  /// results (runtime memory, freed before returning) and any out
  /// arguments, and repeat in-place updates: pass copies of arguments
  /// whose values matter. Device-side checks are not evaluated.
  bool profile(const std::vector<DeviceTensor> &args, int repeat,
               PlanProfile &out, std::string &error);

  /// Records CUDA events around each call's steps (two cuEventRecord
  /// calls) so that stats().deviceTimesMs has its device time, for
  /// benchmarks. A call's time includes any wait of the GPU for the host
  /// to issue its first step (launch latency) unless the GPU was still
  /// busy with earlier calls that did not wait.
  void setDeviceTiming(bool on);

  /// How the plan's device-side checks (a gather's indices in range, ...)
  /// report a failure. Off (the default): each call copies their flags to
  /// the host and waits for them before its later steps, and a failed
  /// check fails that call with its message, recoverably. On: each index
  /// check (CheckStep::index; the others stay as with off) is a
  /// one-thread kernel that calls CUDA's `__assertfail` with the
  /// message when its flag is 0, as eager PyTorch's and Inductor's kernels
  /// assert: no call waits (a CUDA graph holds every step), and a failed
  /// check prints its message from the device and leaves the CUDA context
  /// unusable (CUDA_ERROR_ASSERT from the next call of this process,
  /// TGC's or PyTorch's). Drops captured graphs. Fails only when the
  /// check kernel cannot be loaded.
  bool setDeviceAsserts(bool on, std::string &error);

private:
  GpuFunction();
  struct Impl;
  std::unique_ptr<Impl> impl;
};

} // namespace tgc::runtime

#endif // TGC_RUNTIME_GPUEXECUTOR_H
