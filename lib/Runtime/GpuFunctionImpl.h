//===- GpuFunctionImpl.h - the state of a loaded GPU function (private) -*- C++ -*-===//
//
// GpuFunction::Impl and what its parts share: the module, stream, arena,
// per-call arguments of launches and GEMMs, cuBLASLt configurations and
// CUDA graphs. Private to lib/Runtime: GpuExecutor.cpp (loading, preparing
// and issuing a call), GpuGemm.cpp (cuBLASLt) and GpuGraphs.cpp (capture
// and replay).
//
//===----------------------------------------------------------------------===//

#ifndef TGC_LIB_RUNTIME_GPUFUNCTIONIMPL_H
#define TGC_LIB_RUNTIME_GPUFUNCTIONIMPL_H

#include "tgc/Runtime/GpuExecutor.h"

#include "CudaDriver.h"
#include "Cudnn.h"

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace tgc::runtime {
namespace exec_detail {
using namespace tgc::runtime::cuda;

inline constexpr size_t kMaxGraphs = 16;
inline constexpr uint64_t kGemmWorkspaceBytes = 32ull << 20;
/// cuBLASLt algorithms timed for a GEMM shape the first time it runs off
/// a graph capture (cuBLASLt's heuristic alone picked, on an H100, a
/// split-K kernel taking 33 us for an 8x256x256 f32 product that another
/// candidate runs in about 5).
inline constexpr int kGemmCandidates = 8;
inline constexpr int kGemmTimedRuns = 5;
inline constexpr int64_t kDefaultSharedLimit = 48 * 1024;
inline constexpr uint64_t kArenaGranule = 256;


inline const char *dtypeText(int32_t dtype) {
  const char *name = dtypeName(dtype);
  return name ? name : "unknown dtype";
}

inline std::string num(int64_t value) { return std::to_string(value); }

/// The largest power of two (at most 256) dividing `ptr`.
inline uint32_t pointerAlignment(uint64_t ptr) {
  uint32_t alignment = 256;
  while (alignment > 1 && ptr % alignment != 0)
    alignment /= 2;
  return alignment;
}

/// One launch step's arguments for this call.
struct LaunchArgs {
  bool skip = false; // a grid dimension is 0: nothing to run
  unsigned grid[3] = {1, 1, 1};
  unsigned block[3] = {1, 1, 1};
  unsigned shared = 0;
  /// Every kernel parameter is 8 bytes (a pointer or an i64).
  std::vector<uint64_t> values;
};

/// One GEMM step's arguments for this call.
struct GemmArgs {
  bool skip = false; // m, n or batch is 0
  int64_t m = 0, n = 0, k = 0, batch = 1;
  int64_t strideA = 0, strideB = 0, strideC = 0;
  uint64_t a = 0, b = 0, c = 0, bias = 0;
  uint64_t residual = 0; // 0: none (beta = 0)
};

/// What a captured graph recorded for one step.
/// A convolution step's sizes and strides (x, w, y; elements) for this
/// call, and its pointers.
struct ConvArgs {
  bool skip = false; // the written tensor has no elements
  bool zero = false; // a backward filter of an empty batch: dw = 0
  int64_t zeroElements = 0;
  int64_t x[8] = {}, w[4] = {}, y[8] = {}; // sizes, then strides (x, y)
  uint64_t px = 0, pw = 0, py = 0;
};

struct ConvConfig {
  cudnnTensorDescriptor_t x = nullptr, y = nullptr;
  cudnnFilterDescriptor_t w = nullptr;
  cudnnConvolutionDescriptor_t conv = nullptr;
  int algo = 0;
  size_t workspace = 0;
  /// The backend API's execution plan (null: the legacy call with `algo`),
  /// and every backend descriptor made for it.
  cudnnBackendDescriptor_t plan = nullptr;
  std::vector<cudnnBackendDescriptor_t> owned;

  void release(const Cudnn &dnn) {
    for (auto it = owned.rbegin(); it != owned.rend(); ++it)
      dnn.cudnnBackendDestroyDescriptor(*it);
    owned.clear();
    if (x)
      dnn.cudnnDestroyTensorDescriptor(x);
    if (y)
      dnn.cudnnDestroyTensorDescriptor(y);
    if (w)
      dnn.cudnnDestroyFilterDescriptor(w);
    if (conv)
      dnn.cudnnDestroyConvolutionDescriptor(conv);
  }
};

struct StepRecord {
  /// Launch steps: the kernel node when it is known (then patchable).
  CUgraphNode node = nullptr;
  /// Launch steps: the parameter values; other steps: their pointers and
  /// extents. A difference on a later call means patch (a known kernel
  /// node) or capture again (anything else).
  std::vector<uint64_t> values;
  /// Launch steps: the grid and dynamic shared memory the node has, and
  /// whether the launch was skipped (no node).
  unsigned grid[3] = {0, 0, 0};
  unsigned shared = 0;
  bool skipped = false;
};

struct Graph {
  std::vector<int64_t> key;
  CUgraph graph = nullptr;
  CUgraphExec exec = nullptr;
  std::vector<StepRecord> steps; // one per plan step (from graphFirst used)
};

/// cuBLASLt objects for one GEMM step at one set of sizes and alignments.
struct GemmConfig {
  cublasLtMatmulDesc_t desc = nullptr;
  cublasLtMatrixLayout_t layoutA = nullptr; // our B (cuBLAS's A)
  cublasLtMatrixLayout_t layoutB = nullptr; // our A (cuBLAS's B)
  cublasLtMatrixLayout_t layoutC = nullptr;
  cublasLtMatmulAlgo_t algo = {};

  /// Destroys the descriptor and layouts that were created.
  void release(const CublasLt &lt) {
    if (layoutA)
      lt.cublasLtMatrixLayoutDestroy(layoutA);
    if (layoutB)
      lt.cublasLtMatrixLayoutDestroy(layoutB);
    if (layoutC)
      lt.cublasLtMatrixLayoutDestroy(layoutC);
    if (desc)
      lt.cublasLtMatmulDescDestroy(desc);
  }
};

} // namespace exec_detail

using namespace exec_detail;

struct GpuFunction::Impl {
  const Driver *cu = nullptr;
  const CublasLt *lt = nullptr;
  Plan plan;

  CUmodule module = nullptr;
  std::vector<CUfunction> functions;
  std::vector<uint64_t> globals; // device addresses of the plan's globals
  /// Pinned host bytes the check steps copy their flags into, one per
  /// check step (`checkSlot[step]`, -1 for other steps).
  uint8_t *checkBytes = nullptr;
  std::vector<int32_t> checkSlot;
  /// The last check step: a call waits for its checks right after issuing
  /// it, then issues the rest without waiting (`readChecks`).
  size_t lastCheckStep = 0;
  /// The first step a CUDA graph holds: 0, or the step after the last
  /// check when the checks come early (inputs' checks, tgc-hoist-checks).
  /// The steps before it are issued on the stream and their checks read
  /// before the replay, which then runs without a wait, as plain calls do.
  size_t graphFirst = 0;
  /// graphFirst when the checks are read on the host (setDeviceAsserts
  /// makes it 0 and back).
  size_t hostChecksGraphFirst = 0;
  /// Device-side checks as asserting kernels (setDeviceAsserts,
  /// GpuDeviceChecks.cpp): the kernel, and in device memory each check
  /// step's message (`checkMessages[checkSlot[step]]`), then the file and
  /// function texts `__assertfail` prints, all in `checkTexts`.
  bool deviceAsserts = false;
  /// Some check is read on the host (every one without device asserts;
  /// those that are not index checks with them).
  bool hostChecks = true;
  CUfunction checkKernel = nullptr;
  CUdeviceptr checkTexts = 0;
  std::vector<uint64_t> checkMessages;
  uint64_t checkFile = 0, checkFunction = 0;
  std::vector<int64_t> sharedConfigured; // per kernel
  /// The stream of the call being issued: `ownStream`, or the caller's
  /// (RunTarget). Graphs are captured on `ownStream` (the legacy default
  /// stream cannot be captured) and launched on `stream`.
  CUstream stream = nullptr;
  CUstream ownStream = nullptr;
  /// The stream of the previous call, and an event to make another
  /// stream wait for it.
  CUstream lastStream = nullptr;
  bool issuedBefore = false;
  CUevent switchEvent = nullptr;

  cublasLtHandle_t ltHandle = nullptr;
  CUdeviceptr workspace = 0;
  std::map<std::vector<int64_t>, GemmConfig> gemmConfigs;
  /// The fastest algorithm per GEMM shape (types, transposes, epilogue,
  /// sizes, strides, alignments), shared by the steps of that shape.
  std::map<std::vector<int64_t>, cublasLtMatmulAlgo_t> tunedAlgos;

  /// Convolution steps: cuDNN, its handle, one workspace for every step
  /// (grown as a shape needs), and the descriptors and algorithm per
  /// (step, sizes, strides).
  const Cudnn *dnn = nullptr;
  cudnnHandle_t dnnHandle = nullptr;
  CUdeviceptr convWorkspace = 0;
  size_t convWorkspaceBytes = 0;
  std::map<std::vector<int64_t>, ConvConfig> convConfigs;

  CUdeviceptr arena = 0;
  uint64_t arenaCapacity = 0;

  bool deviceTiming = false;
  /// Event pairs of timed calls not waited for yet, and spare ones.
  std::vector<std::pair<CUevent, CUevent>> pendingTimings, spareTimings;

  std::vector<Graph> graphs; // least recently used first
  GpuRunStats stats;
  std::mutex mutex;

  // This call's values, buffers and step arguments.
  std::vector<int64_t> values;
  std::vector<uint64_t> buffers;
  std::vector<LaunchArgs> launches;            // per step (launch steps only)
  std::vector<GemmArgs> gemms;                 // per step (GEMM steps only)
  std::vector<ConvArgs> convs;                 // per step (conv steps only)
  std::vector<std::vector<uint64_t>> pointers; // per step (non-launch)
  std::vector<SizesRef> argSizes; // prepare()'s, for evaluatePlan; empty after
  std::vector<void *> launchStorage;           // a launch's parameter list

  ~Impl();

  bool fail(std::string &error, const char *call, CUresult result) {
    error = errorMessage(*cu, call, result);
    return false;
  }

  bool prepare(const std::vector<DeviceTensor> &args,
               std::vector<DeviceTensor> &results, const RunTarget *target,
               std::string &error);
  /// Makes `stream` the call's stream, ordered after the previous call's.
  bool selectStream(const RunTarget *target, std::string &error);
  bool ensureArena(uint64_t bytes, std::string &error);
  /// Waits for the stream (the check steps issued so far) and reports the
  /// first device-side check that failed or did not run.
  bool readChecks(std::string &error);
  /// Issues check step `step` as its asserting kernel (deviceAsserts).
  bool issueDeviceCheck(size_t step, std::string &error);
  /// Whether check step `step` runs as a device assert: an index check
  /// with deviceAsserts on.
  bool asserted(size_t step) const;
  bool issue(size_t step, bool capturing, std::string &error);
  bool issueGemm(size_t step, bool capturing, std::string &error);
  /// The step's cuBLASLt configuration, made on first use; with `tune`,
  /// its algorithm is the fastest of cuBLASLt's candidates, timed on a
  /// scratch output (not allowed while capturing a graph).
  GemmConfig *gemmConfig(size_t step, bool tune, std::string &error);
  /// The key of GEMM step `step`'s configuration for this call's shapes.
  std::vector<int64_t> gemmKey(size_t step) const;
  /// One cuBLASLt call of the step's GEMM with `algo`, writing `c`.
  cublasStatus_t matmul(size_t step, const GemmConfig &config,
                        const cublasLtMatmulAlgo_t &algo, uint64_t c);
  /// Times `count` candidates on the stream (a library's GEMM algorithms,
  /// cuDNN's engine plans): each one warm-up run (`run(i)` false: the
  /// candidate is refused and skipped), then `runs` runs between two
  /// stream synchronizations. Returns the fastest's index, -1 if none ran;
  /// a failed synchronization stops the timing and is left in `sync`.
  int fastestCandidate(int count, int runs, const std::function<bool(int)> &run,
                       CUresult &sync);
  /// Times the candidates; `chosen` is the fastest's index.
  bool tuneGemm(size_t step, GemmConfig &config,
                const cublasLtMatmulHeuristicResult_t *candidates,
                int count, int &chosen, std::string &error);
  /// The step's cuDNN descriptors and algorithm for this call's shape,
  /// made on first use (not while capturing a graph: the workspace may
  /// grow).
  ConvConfig *convConfig(size_t step, bool capturing, std::string &error);
  /// The key of conv step `step`'s configuration for this call's shapes.
  std::vector<int64_t> convKey(size_t step) const;
  /// Whether this call, prepared, would wait for the device: its GEMM or
  /// conv shapes are not tuned yet, or it has device-side checks.
  bool wouldWait() const;
  bool issueConv(size_t step, bool capturing, std::string &error);
  /// Makes the convolution workspace at least `bytes` (false: no memory).
  bool growConvWorkspace(size_t bytes);
  /// The backend API's execution plan for the step's shape, in `config`
  /// (false with `error` when no engine finalizes: the legacy API then).
  bool buildConvPlan(size_t step, ConvConfig &config, std::string &error);
  /// Runs a backend execution plan on the stream with these pointers;
  /// the failed call's name (status in lastConvStatus), or null.
  const char *executeConvPlan(cudnnBackendDescriptor_t plan, uint64_t x,
                              uint64_t w, uint64_t y);
  cudnnStatus_t lastConvStatus = CUDNN_STATUS_SUCCESS;
  /// This call's sizes, strides and pointers of conv step `s`.
  bool prepareConv(size_t s, std::string &error);
  bool runGraph(std::string &error);
  /// Whether `graph` can serve this call by patching kernel nodes alone
  /// (sizes, grids and pointers of launches may differ; every other step
  /// must be the same).
  bool patchable(const Graph &graph) const;
  bool configureShared(size_t step, std::string &error);
  bool capture(Graph &graph, std::string &error);
  void matchCapturedNodes(Graph &graph);
  KernelNodeParams nodeParams(size_t step, std::vector<void *> &storage);
  void destroyGraph(Graph &graph);
  void destroyGraphs();
};

} // namespace tgc::runtime

#endif // TGC_LIB_RUNTIME_GPUFUNCTIONIMPL_H
