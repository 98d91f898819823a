//===- GpuExecutor.cpp - Run launch plans on a CUDA device ----------------===//
//
// A call evaluates the plan's nodes for the arguments' sizes, allocates the
// results, resolves every buffer to a device pointer and builds each step's
// arguments (kernel parameter blocks, GEMM pointers, copy and memset
// extents) before anything is issued, so a bad plan or bad sizes fail
// before the stream is touched. Then the steps run on the function's
// stream, directly or through a CUDA graph kept per set of node values:
// kernel nodes whose parameters changed (new argument or result pointers)
// are patched in the instantiated graph, anything else that changed makes
// the graph be captured again. See docs/gpu-runtime.md.
//
//===----------------------------------------------------------------------===//

#include "tgc/Runtime/GpuExecutor.h"

#include "CudaDriver.h"

#include <unordered_map>
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>

using namespace tgc::runtime;
using namespace tgc::runtime::cuda;

namespace {

constexpr size_t kMaxGraphs = 16;
constexpr uint64_t kGemmWorkspaceBytes = 32ull << 20;
/// cuBLASLt algorithms timed for a GEMM shape the first time it runs off
/// a graph capture (cuBLASLt's heuristic alone picked, on an H100, a
/// split-K kernel taking 33 us for an 8x256x256 f32 product that another
/// candidate runs in about 5).
constexpr int kGemmCandidates = 8;
constexpr int kGemmTimedRuns = 5;
constexpr int64_t kDefaultSharedLimit = 48 * 1024;
constexpr uint64_t kArenaGranule = 256;


const char *dtypeText(int32_t dtype) {
  const char *name = dtypeName(dtype);
  return name ? name : "unknown dtype";
}

std::string num(int64_t value) { return std::to_string(value); }

/// The largest power of two (at most 256) dividing `ptr`.
uint32_t pointerAlignment(uint64_t ptr) {
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
};

/// What a captured graph recorded for one step.
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
  std::vector<StepRecord> steps; // one per plan step
};

/// cuBLASLt objects for one GEMM step at one set of sizes and alignments.
struct GemmConfig {
  cublasLtMatmulDesc_t desc = nullptr;
  cublasLtMatrixLayout_t layoutA = nullptr; // our B (cuBLAS's A)
  cublasLtMatrixLayout_t layoutB = nullptr; // our A (cuBLAS's B)
  cublasLtMatrixLayout_t layoutC = nullptr;
  cublasLtMatmulAlgo_t algo = {};
};

} // namespace

//===----------------------------------------------------------------------===//
// Device helpers
//===----------------------------------------------------------------------===//

bool tgc::runtime::cudaDeviceAvailable(std::string &why) {
  return driver(why) != nullptr;
}

namespace {

/// A caching allocator, as PyTorch's: freed blocks are kept per rounded
/// size and handed out again, because cuMemAlloc and cuMemFree cost tens
/// of microseconds and cuMemFree synchronizes the device. Blocks are
/// rounded to 512 bytes (2 MiB above 1 MiB). The cache is never trimmed:
/// a process that frees memory keeps it for its next allocations.
struct BlockCache {
  std::mutex mutex;
  std::multimap<uint64_t, CUdeviceptr> free;   // rounded size -> block
  std::unordered_map<CUdeviceptr, uint64_t> live; // block -> rounded size
};

BlockCache &blockCache() {
  static BlockCache *cache = new BlockCache();
  return *cache;
}

uint64_t roundBlock(uint64_t bytes) {
  uint64_t unit = bytes > (1u << 20) ? (2u << 20) : 512;
  return (bytes + unit - 1) / unit * unit;
}

} // namespace

bool tgc::runtime::deviceAlloc(uint64_t bytes, uint64_t &ptr,
                               std::string &error) {
  ptr = 0;
  const Driver *cu = driver(error);
  if (!cu)
    return false;
  if (bytes == 0)
    return true;
  uint64_t rounded = roundBlock(bytes);
  BlockCache &cache = blockCache();
  std::lock_guard<std::mutex> lock(cache.mutex);
  auto it = cache.free.find(rounded);
  if (it != cache.free.end()) {
    ptr = it->second;
    cache.free.erase(it);
    cache.live[ptr] = rounded;
    return true;
  }
  CUdeviceptr result = 0;
  CUresult status = cu->cuMemAlloc(&result, size_t(rounded));
  if (status == CUDA_ERROR_OUT_OF_MEMORY && !cache.free.empty()) {
    // Give the cached blocks back and try once more.
    for (auto &[size, block] : cache.free)
      cu->cuMemFree(block);
    cache.free.clear();
    status = cu->cuMemAlloc(&result, size_t(rounded));
  }
  if (status != CUDA_SUCCESS) {
    error = errorMessage(*cu, "cuMemAlloc", status) + " (" +
            num(int64_t(bytes)) + " bytes)";
    return false;
  }
  ptr = result;
  cache.live[ptr] = rounded;
  return true;
}

void tgc::runtime::deviceFree(uint64_t ptr) {
  if (!ptr)
    return;
  BlockCache &cache = blockCache();
  std::lock_guard<std::mutex> lock(cache.mutex);
  auto it = cache.live.find(ptr);
  if (it != cache.live.end()) {
    cache.free.emplace(it->second, ptr);
    cache.live.erase(it);
    return;
  }
  std::string error;
  if (const Driver *cu = driver(error))
    cu->cuMemFree(ptr);
}

/// False, with the message naming `call`, when `status` is an error.
static bool succeeded(const Driver &cu, CUresult status, const char *call,
                      std::string &error) {
  if (status == CUDA_SUCCESS)
    return true;
  error = errorMessage(cu, call, status);
  return false;
}

bool tgc::runtime::copyToDevice(uint64_t dst, const void *src, uint64_t bytes,
                                std::string &error) {
  const Driver *cu = driver(error);
  if (!cu)
    return false;
  if (bytes == 0)
    return true;
  // A copy from pageable memory may still be in flight on return, and the
  // runtime's streams do not wait for the legacy stream: finish it here.
  return succeeded(*cu, cu->cuMemcpyHtoD(dst, src, size_t(bytes)),
                   "cuMemcpyHtoD", error) &&
         succeeded(*cu, cu->cuCtxSynchronize(), "cuCtxSynchronize", error);
}

bool tgc::runtime::copyToHost(void *dst, uint64_t src, uint64_t bytes,
                              std::string &error) {
  const Driver *cu = driver(error);
  if (!cu)
    return false;
  if (bytes == 0)
    return true;
  return succeeded(*cu, cu->cuMemcpyDtoH(dst, src, size_t(bytes)),
                   "cuMemcpyDtoH", error);
}

bool tgc::runtime::copyOnDevice(uint64_t dst, uint64_t src, uint64_t bytes,
                                std::string &error) {
  const Driver *cu = driver(error);
  if (!cu)
    return false;
  if (bytes == 0)
    return true;
  return succeeded(*cu,
                   cu->cuMemcpyDtoDAsync(dst, src, size_t(bytes), nullptr),
                   "cuMemcpyDtoDAsync", error) &&
         succeeded(*cu, cu->cuCtxSynchronize(), "cuCtxSynchronize", error);
}

bool tgc::runtime::deviceSynchronize(std::string &error) {
  const Driver *cu = driver(error);
  if (!cu)
    return false;
  CUresult status = cu->cuCtxSynchronize();
  if (status != CUDA_SUCCESS) {
    error = errorMessage(*cu, "cuCtxSynchronize", status);
    return false;
  }
  return true;
}

std::string tgc::runtime::deviceName() {
  std::string error;
  const Driver *cu = driver(error);
  if (!cu)
    return "no CUDA device: " + error;
  char name[256] = {};
  if (cu->cuDeviceGetName(name, sizeof(name) - 1, cu->device) != CUDA_SUCCESS)
    std::strcpy(name, "unknown CUDA device");
  int sms = 0, major = 0, minor = 0;
  cu->cuDeviceGetAttribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT,
                           cu->device);
  cu->cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
                           cu->device);
  cu->cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR,
                           cu->device);
  return std::string(name) + " (" + num(sms) + " SMs, sm_" + num(major) +
         num(minor) + ")";
}

//===----------------------------------------------------------------------===//
// GpuFunction
//===----------------------------------------------------------------------===//

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
  std::vector<int64_t> sharedConfigured; // per kernel
  CUstream stream = nullptr;

  cublasLtHandle_t ltHandle = nullptr;
  CUdeviceptr workspace = 0;
  std::map<std::vector<int64_t>, GemmConfig> gemmConfigs;
  /// The fastest algorithm per GEMM shape (types, transposes, epilogue,
  /// sizes, strides, alignments), shared by the steps of that shape.
  std::map<std::vector<int64_t>, cublasLtMatmulAlgo_t> tunedAlgos;

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
  std::vector<std::vector<uint64_t>> pointers; // per step (non-launch)

  ~Impl();

  bool fail(std::string &error, const char *call, CUresult result) {
    error = errorMessage(*cu, call, result);
    return false;
  }

  bool prepare(const std::vector<DeviceTensor> &args,
               std::vector<DeviceTensor> &results, std::string &error);
  bool ensureArena(uint64_t bytes, std::string &error);
  bool issue(size_t step, bool capturing, std::string &error);
  bool issueGemm(size_t step, bool capturing, std::string &error);
  /// The step's cuBLASLt configuration, made on first use; with `tune`,
  /// its algorithm is the fastest of cuBLASLt's candidates, timed on a
  /// scratch output (not allowed while capturing a graph).
  GemmConfig *gemmConfig(size_t step, bool tune, std::string &error);
  /// One cuBLASLt call of the step's GEMM with `algo`, writing `c`.
  cublasStatus_t matmul(size_t step, const GemmConfig &config,
                        const cublasLtMatmulAlgo_t &algo, uint64_t c);
  bool tuneGemm(size_t step, GemmConfig &config,
                const cublasLtMatmulHeuristicResult_t *candidates,
                int count, std::string &error);
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

GpuFunction::Impl::~Impl() {
  std::string error;
  if (!cu || !driver(error))
    return;
  destroyGraphs();
  for (auto *list : {&pendingTimings, &spareTimings})
    for (auto [start, end] : *list) {
      cu->cuEventDestroy(start);
      cu->cuEventDestroy(end);
    }
  for (auto &entry : gemmConfigs) {
    GemmConfig &config = entry.second;
    if (config.layoutA)
      lt->cublasLtMatrixLayoutDestroy(config.layoutA);
    if (config.layoutB)
      lt->cublasLtMatrixLayoutDestroy(config.layoutB);
    if (config.layoutC)
      lt->cublasLtMatrixLayoutDestroy(config.layoutC);
    if (config.desc)
      lt->cublasLtMatmulDescDestroy(config.desc);
  }
  if (stream)
    cu->cuStreamSynchronize(stream);
  if (ltHandle)
    lt->cublasLtDestroy(ltHandle);
  if (workspace)
    cu->cuMemFree(workspace);
  if (arena)
    cu->cuMemFree(arena);
  if (stream)
    cu->cuStreamDestroy(stream);
  if (module)
    cu->cuModuleUnload(module);
  if (checkBytes)
    cu->cuMemFreeHost(checkBytes);
}

void GpuFunction::Impl::destroyGraph(Graph &graph) {
  if (graph.exec)
    cu->cuGraphExecDestroy(graph.exec);
  if (graph.graph)
    cu->cuGraphDestroy(graph.graph);
  graph.exec = nullptr;
  graph.graph = nullptr;
}

void GpuFunction::Impl::destroyGraphs() {
  for (Graph &graph : graphs)
    destroyGraph(graph);
  graphs.clear();
}

GpuFunction::GpuFunction() : impl(new Impl()) {}

GpuFunction::~GpuFunction() = default;

const Plan &GpuFunction::plan() const { return impl->plan; }

const GpuRunStats &GpuFunction::stats() const { return impl->stats; }

std::unique_ptr<GpuFunction> GpuFunction::load(const GpuArtifact &artifact,
                                               std::string &error) {
  // The plan may have been built in memory: check it as the parser would.
  Plan plan;
  std::string planError;
  if (!parsePlan(serializePlan(artifact.plan), plan, planError)) {
    error = "invalid plan for " + artifact.plan.function + ": " + planError;
    return nullptr;
  }
  const Driver *cu = driver(error);
  if (!cu)
    return nullptr;

  std::unique_ptr<GpuFunction> function(new GpuFunction());
  Impl &impl = *function->impl;
  impl.cu = cu;
  impl.plan = std::move(plan);
  const std::string &name = impl.plan.function;

  if (!impl.plan.kernels.empty() || !impl.plan.globals.empty()) {
    if (artifact.module.empty()) {
      error = name + ": the artifact has no kernel module";
      return nullptr;
    }
    CUresult result;
    if (artifact.isPtx) {
      // The JIT's error log says which PTX line it rejected.
      std::vector<char> log(16384, 0);
      int options[] = {CU_JIT_ERROR_LOG_BUFFER,
                       CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
      void *optionValues[] = {log.data(),
                              reinterpret_cast<void *>(log.size() - 1)};
      result = cu->cuModuleLoadDataEx(&impl.module, artifact.module.c_str(), 2,
                                      options, optionValues);
      if (result != CUDA_SUCCESS) {
        error = name + ": " + errorMessage(*cu, "cuModuleLoadDataEx", result);
        std::string text(log.data());
        if (!text.empty())
          error += "; PTX JIT log: " + text;
        return nullptr;
      }
    } else {
      result = cu->cuModuleLoadData(&impl.module, artifact.module.data());
      if (result != CUDA_SUCCESS) {
        error = name + ": " + errorMessage(*cu, "cuModuleLoadData", result) +
                " (cubin for " + artifact.chip + ")";
        return nullptr;
      }
    }
    for (const std::string &kernel : impl.plan.kernels) {
      CUfunction handle = nullptr;
      result = cu->cuModuleGetFunction(&handle, impl.module, kernel.c_str());
      if (result != CUDA_SUCCESS) {
        error = name + ": " + errorMessage(*cu, "cuModuleGetFunction", result) +
                " for kernel '" + kernel + "'";
        return nullptr;
      }
      impl.functions.push_back(handle);
    }
    // Constants: their data is in the module, loaded with it.
    for (const PlanGlobal &global : impl.plan.globals) {
      CUdeviceptr ptr = 0;
      size_t bytes = 0;
      result = cu->cuModuleGetGlobal(&ptr, &bytes, impl.module,
                                     global.name.c_str());
      if (result != CUDA_SUCCESS) {
        error = name + ": " + errorMessage(*cu, "cuModuleGetGlobal", result) +
                " for constant '" + global.name + "'";
        return nullptr;
      }
      if (int64_t(bytes) != global.bytes) {
        error = name + ": constant '" + global.name + "' has " +
                num(int64_t(bytes)) + " bytes in the module, the plan says " +
                num(global.bytes);
        return nullptr;
      }
      impl.globals.push_back(uint64_t(ptr));
    }
    impl.sharedConfigured.assign(impl.functions.size(), kDefaultSharedLimit);
  }

  // Pinned bytes for the device-side checks (a copy into pageable memory
  // would not run in stream order, nor be captured in a graph).
  int32_t checks = 0;
  for (const PlanStep &step : impl.plan.steps)
    impl.checkSlot.push_back(step.kind == PlanStep::Check ? checks++ : -1);
  if (checks > 0) {
    void *host = nullptr;
    CUresult result = cu->cuMemAllocHost(&host, size_t(checks));
    if (result != CUDA_SUCCESS) {
      error = name + ": " + errorMessage(*cu, "cuMemAllocHost", result) +
              " (for the plan's device-side checks)";
      return nullptr;
    }
    impl.checkBytes = static_cast<uint8_t *>(host);
  }

  CUresult result = cu->cuStreamCreate(&impl.stream, CU_STREAM_NON_BLOCKING);
  if (result != CUDA_SUCCESS) {
    error = name + ": " + errorMessage(*cu, "cuStreamCreate", result);
    return nullptr;
  }

  bool hasGemm = std::any_of(
      impl.plan.steps.begin(), impl.plan.steps.end(),
      [](const PlanStep &step) { return step.kind == PlanStep::Gemm; });
  if (hasGemm) {
    impl.lt = cublasLt(error);
    if (!impl.lt) {
      error = name + ": " + error;
      return nullptr;
    }
    cublasStatus_t status = impl.lt->cublasLtCreate(&impl.ltHandle);
    if (status != CUBLAS_STATUS_SUCCESS) {
      error = name + ": " + errorMessage(*impl.lt, "cublasLtCreate", status);
      return nullptr;
    }
    result = cu->cuMemAlloc(&impl.workspace, size_t(kGemmWorkspaceBytes));
    if (result != CUDA_SUCCESS) {
      error = name + ": " + errorMessage(*cu, "cuMemAlloc", result) +
              " (cuBLASLt workspace)";
      return nullptr;
    }
  }
  return function;
}

//===----------------------------------------------------------------------===//
// Preparing a call
//===----------------------------------------------------------------------===//

bool GpuFunction::Impl::ensureArena(uint64_t bytes, std::string &error) {
  if (bytes <= arenaCapacity)
    return true;
  // Captured graphs hold the old arena's pointers.
  destroyGraphs();
  uint64_t previous = arenaCapacity;
  if (arena) {
    CUresult result = cu->cuStreamSynchronize(stream);
    if (result != CUDA_SUCCESS)
      return fail(error, "cuStreamSynchronize", result);
    cu->cuMemFree(arena);
    arena = 0;
    arenaCapacity = 0;
  }
  uint64_t rounded =
      (bytes + kArenaGranule - 1) / kArenaGranule * kArenaGranule;
  // Growing sizes (a sequence length that rises call by call) reallocate
  // the arena, and drop the graphs, a logarithmic number of times: the
  // arena at least doubles, or takes just what is needed when twice the
  // old one does not fit.
  uint64_t grown = std::max(rounded, 2 * previous);
  CUresult result = cu->cuMemAlloc(&arena, size_t(grown));
  if (result == CUDA_ERROR_OUT_OF_MEMORY && grown > rounded)
    result = cu->cuMemAlloc(&arena, size_t(grown = rounded));
  if (result != CUDA_SUCCESS) {
    arena = 0;
    error = errorMessage(*cu, "cuMemAlloc", result) + " (arena of " +
            num(int64_t(rounded)) + " bytes)";
    return false;
  }
  arenaCapacity = grown;
  return true;
}

bool GpuFunction::Impl::prepare(const std::vector<DeviceTensor> &args,
                                std::vector<DeviceTensor> &results,
                                std::string &error) {
  const std::string &name = plan.function;
  if (args.size() != plan.args.size()) {
    error = name + " takes " + num(int64_t(plan.args.size())) +
            " arguments, got " + num(int64_t(args.size()));
    return false;
  }
  std::vector<std::vector<int64_t>> argSizes(args.size());
  for (size_t i = 0; i < args.size(); ++i) {
    const PlanTensor &expected = plan.args[i];
    if (args[i].dtype != expected.dtype) {
      error = name + ": argument " + num(int64_t(i)) + " is " +
              dtypeText(args[i].dtype) + ", the plan expects " +
              dtypeText(expected.dtype);
      return false;
    }
    if (int64_t(args[i].sizes.size()) != expected.rank) {
      error = name + ": argument " + num(int64_t(i)) + " has rank " +
              num(int64_t(args[i].sizes.size())) + ", the plan expects " +
              num(expected.rank);
      return false;
    }
    argSizes[i] = args[i].sizes;
  }
  std::string evalError;
  if (!evaluatePlan(plan, argSizes, values, evalError)) {
    error = name + ": " + evalError;
    return false;
  }
  auto value = [&](int64_t node) -> int64_t {
    return node >= 0 ? values[node] : 0;
  };

  // Results.
  for (size_t i = 0; i < plan.results.size(); ++i) {
    const PlanTensor &result = plan.results[i];
    DeviceTensor tensor;
    tensor.dtype = result.dtype;
    int64_t bytes = dtypeBytes(result.dtype);
    for (int64_t node : result.sizes) {
      int64_t size = value(node);
      if (size < 0) {
        error = name + ": result " + num(int64_t(i)) +
                " has a negative size (" + num(size) + ")";
        return false;
      }
      if (__builtin_mul_overflow(bytes, size, &bytes)) {
        error = name + ": result " + num(int64_t(i)) + " is too large";
        return false;
      }
      tensor.sizes.push_back(size);
    }
    if (!deviceAlloc(uint64_t(bytes), tensor.ptr, error)) {
      error = name + ": result " + num(int64_t(i)) + ": " + error;
      return false;
    }
    results.push_back(std::move(tensor));
  }

  // The arena.
  uint64_t arenaBytes = 0;
  if (plan.arenaBytes >= 0) {
    int64_t bytes = value(plan.arenaBytes);
    if (bytes < 0) {
      error = name + ": negative arena size (" + num(bytes) + ")";
      return false;
    }
    arenaBytes = uint64_t(bytes);
    if (!ensureArena(arenaBytes, error)) {
      error = name + ": " + error;
      return false;
    }
  }
  stats.arenaBytes = int64_t(arenaBytes);

  // Buffers.
  buffers.assign(plan.buffers.size(), 0);
  for (size_t i = 0; i < plan.buffers.size(); ++i) {
    const PlanBuffer &buffer = plan.buffers[i];
    int64_t offset = value(buffer.offset);
    if (offset < 0) {
      error = name + ": buffer b" + num(int64_t(i)) +
              " has a negative offset (" + num(offset) + ")";
      return false;
    }
    switch (buffer.kind) {
    case BufferKind::Arg:
      buffers[i] = args[buffer.index].ptr;
      break;
    case BufferKind::Result:
      buffers[i] = results[buffer.index].ptr;
      break;
    case BufferKind::Arena:
      if (uint64_t(offset) > arenaBytes) {
        error = name + ": buffer b" + num(int64_t(i)) + " starts at byte " +
                num(offset) + " of an arena of " + num(int64_t(arenaBytes)) +
                " bytes";
        return false;
      }
      buffers[i] = arena + uint64_t(offset);
      continue;
    case BufferKind::View:
      buffers[i] = buffers[buffer.index] + uint64_t(offset);
      continue;
    case BufferKind::Global:
      buffers[i] = globals[buffer.index] + uint64_t(offset);
      continue;
    }
    buffers[i] += uint64_t(offset);
  }

  // Step arguments.
  launches.assign(plan.steps.size(), LaunchArgs());
  gemms.assign(plan.steps.size(), GemmArgs());
  pointers.assign(plan.steps.size(), {});
  for (size_t s = 0; s < plan.steps.size(); ++s) {
    const PlanStep &step = plan.steps[s];
    // Only built for a message.
    auto where = [&]() {
      std::string text = name + ": step " + num(int64_t(s));
      if (step.kind == PlanStep::Launch)
        text += " (launch " + plan.kernels[step.launch.kernel] + ")";
      return text;
    };
    switch (step.kind) {
    case PlanStep::Launch: {
      const LaunchStep &launch = step.launch;
      LaunchArgs &out = launches[s];
      for (int d = 0; d < 3; ++d) {
        int64_t grid = value(launch.grid[d]), block = value(launch.block[d]);
        if (grid < 0 || grid > int64_t(UINT32_MAX) || block < 0 ||
            block > int64_t(UINT32_MAX)) {
          error = where() + ": bad launch dimension (grid " + num(grid) +
                  ", block " + num(block) + " in dimension " + num(d) + ")";
          return false;
        }
        out.skip |= grid == 0;
        out.grid[d] = unsigned(grid);
        out.block[d] = unsigned(block);
      }
      if (!out.skip &&
          (out.block[0] == 0 || out.block[1] == 0 || out.block[2] == 0)) {
        error = where() + ": a block dimension is 0";
        return false;
      }
      int64_t shared = value(launch.sharedBytes);
      if (shared < 0 || shared > int64_t(UINT32_MAX)) {
        error = where() + ": bad shared-memory size " + num(shared);
        return false;
      }
      out.shared = unsigned(shared);
      for (const KernelParam &param : launch.params) {
        if (param.kind == KernelParam::Int) {
          out.values.push_back(uint64_t(value(param.id)));
          continue;
        }
        // MLIR's memref descriptor, flattened: allocated, aligned, offset,
        // sizes, strides.
        uint64_t ptr = buffers[param.id];
        out.values.push_back(ptr);
        out.values.push_back(ptr);
        if (param.rank < 0) {
          out.values.push_back(0);
          out.values.push_back(uint64_t(value(param.sizeNode)));
          out.values.push_back(1);
          continue;
        }
        out.values.push_back(uint64_t(value(param.offset)));
        for (int64_t node : param.sizes)
          out.values.push_back(uint64_t(value(node)));
        for (int64_t node : param.strides)
          out.values.push_back(uint64_t(value(node)));
      }
      break;
    }
    case PlanStep::Gemm: {
      const GemmStep &gemm = step.gemm;
      GemmArgs &out = gemms[s];
      out.m = value(gemm.m);
      out.n = value(gemm.n);
      out.k = value(gemm.k);
      out.batch = gemm.batch >= 0 ? value(gemm.batch) : 1;
      if (out.m < 0 || out.n < 0 || out.k < 0 || out.batch < 0 ||
          out.batch > INT32_MAX) {
        error = where() + " (gemm): bad sizes m " + num(out.m) + ", n " +
                num(out.n) + ", k " + num(out.k) + ", batch " + num(out.batch);
        return false;
      }
      // Packed batches unless the plan says otherwise.
      bool overflow = false;
      int64_t packedA = 0, packedB = 0, packedC = 0;
      overflow |= __builtin_mul_overflow(out.m, out.k, &packedA);
      overflow |= __builtin_mul_overflow(out.k, out.n, &packedB);
      overflow |= __builtin_mul_overflow(out.m, out.n, &packedC);
      if (overflow) {
        error = where() + " (gemm): sizes overflow";
        return false;
      }
      out.strideA = gemm.strideA >= 0 ? value(gemm.strideA) : packedA;
      out.strideB = gemm.strideB >= 0 ? value(gemm.strideB) : packedB;
      out.strideC = gemm.strideC >= 0 ? value(gemm.strideC) : packedC;
      if (out.strideA < 0 || out.strideB < 0 || out.strideC < 0) {
        error = where() + " (gemm): negative batch stride";
        return false;
      }
      out.skip = out.m == 0 || out.n == 0 || out.batch == 0;
      if (!out.skip && out.k == 0) {
        error = where() + " (gemm): k = 0 is not supported";
        return false;
      }
      out.a = buffers[gemm.a];
      out.b = buffers[gemm.b];
      out.c = buffers[gemm.c];
      out.bias = gemm.bias >= 0 ? buffers[gemm.bias] : 0;
      pointers[s] = {out.a, out.b, out.c, out.bias};
      break;
    }
    case PlanStep::Copy: {
      int64_t bytes = value(step.copy.bytes);
      if (bytes < 0) {
        error = where() + " (copy): negative byte count " + num(bytes);
        return false;
      }
      pointers[s] = {buffers[step.copy.dst], buffers[step.copy.src],
                     uint64_t(bytes)};
      break;
    }
    case PlanStep::Memset: {
      int64_t bytes = value(step.memset.bytes);
      if (bytes < 0 || bytes % 4 != 0) {
        error = where() + " (memset): the byte count " + num(bytes) +
                " is not a non-negative multiple of 4";
        return false;
      }
      pointers[s] = {buffers[step.memset.dst], uint64_t(bytes)};
      break;
    }
    case PlanStep::Check:
      // {flag, host byte}; {} when this call's sizes skip the check.
      if (step.check.when < 0 || value(step.check.when) != 0)
        pointers[s] = {buffers[step.check.flag],
                       uint64_t(reinterpret_cast<uintptr_t>(
                           checkBytes + checkSlot[s]))};
      break;
    }
  }
  return true;
}

//===----------------------------------------------------------------------===//
// Issuing steps
//===----------------------------------------------------------------------===//

KernelNodeParams GpuFunction::Impl::nodeParams(size_t step,
                                               std::vector<void *> &storage) {
  LaunchArgs &launch = launches[step];
  storage.resize(launch.values.size());
  for (size_t i = 0; i < launch.values.size(); ++i)
    storage[i] = &launch.values[i];
  KernelNodeParams params = {};
  params.func = functions[plan.steps[step].launch.kernel];
  params.gridDimX = launch.grid[0];
  params.gridDimY = launch.grid[1];
  params.gridDimZ = launch.grid[2];
  params.blockDimX = launch.block[0];
  params.blockDimY = launch.block[1];
  params.blockDimZ = launch.block[2];
  params.sharedMemBytes = launch.shared;
  params.kernelParams = storage.empty() ? nullptr : storage.data();
  return params;
}

bool GpuFunction::Impl::issue(size_t s, bool capturing, std::string &error) {
  const PlanStep &step = plan.steps[s];
  switch (step.kind) {
  case PlanStep::Launch: {
    const LaunchArgs &launch = launches[s];
    if (launch.skip)
      return true;
    int32_t kernel = step.launch.kernel;
    if (!configureShared(s, error))
      return false;
    std::vector<void *> storage;
    KernelNodeParams p = nodeParams(s, storage);
    CUresult result = cu->cuLaunchKernel(
        p.func, p.gridDimX, p.gridDimY, p.gridDimZ, p.blockDimX, p.blockDimY,
        p.blockDimZ, p.sharedMemBytes, stream, p.kernelParams, nullptr);
    if (result != CUDA_SUCCESS) {
      fail(error, "cuLaunchKernel", result);
      error += " (step " + num(int64_t(s)) + ", kernel " +
               plan.kernels[kernel] + ")";
      return false;
    }
    if (!capturing)
      ++stats.launches;
    return true;
  }
  case PlanStep::Gemm:
    return issueGemm(s, capturing, error);
  case PlanStep::Copy: {
    const std::vector<uint64_t> &p = pointers[s];
    if (p[2] == 0)
      return true;
    CUresult result = cu->cuMemcpyDtoDAsync(p[0], p[1], size_t(p[2]), stream);
    if (result != CUDA_SUCCESS) {
      fail(error, "cuMemcpyDtoDAsync", result);
      error += " (step " + num(int64_t(s)) + ")";
      return false;
    }
    return true;
  }
  case PlanStep::Memset: {
    const std::vector<uint64_t> &p = pointers[s];
    if (p[1] == 0)
      return true;
    CUresult result =
        cu->cuMemsetD32Async(p[0], step.memset.value, size_t(p[1] / 4), stream);
    if (result != CUDA_SUCCESS) {
      fail(error, "cuMemsetD32Async", result);
      error += " (step " + num(int64_t(s)) + ")";
      return false;
    }
    return true;
  }
  case PlanStep::Check: {
    const std::vector<uint64_t> &p = pointers[s];
    if (p.empty())
      return true; // skipped for these sizes
    CUresult result = cu->cuMemcpyDtoHAsync(
        reinterpret_cast<void *>(uintptr_t(p[1])), p[0], 1, stream);
    if (result != CUDA_SUCCESS) {
      fail(error, "cuMemcpyDtoHAsync", result);
      error += " (step " + num(int64_t(s)) + ", a device-side check)";
      return false;
    }
    return true;
  }
  }
  return true;
}

namespace {
/// A GEMM step's description for messages.
std::string gemmWhere(size_t s, const GemmStep &gemm, const GemmArgs &args) {
  return " (step " + num(int64_t(s)) + ", gemm " + dtypeText(gemm.dtype) +
         (gemm.cDtype >= 0 && gemm.cDtype != gemm.dtype
              ? std::string(" -> ") + dtypeText(gemm.cDtype)
              : std::string()) +
         " m " + num(args.m) + " n " + num(args.n) + " k " + num(args.k) +
         " batch " + num(args.batch) + ")";
}

bool gemmTuningEnabled() {
  const char *value = std::getenv("TGC_GEMM_TUNE");
  return !value || std::strcmp(value, "0") != 0;
}
} // namespace

GemmConfig *GpuFunction::Impl::gemmConfig(size_t s, bool tune,
                                          std::string &error) {
  const GemmStep &gemm = plan.steps[s].gemm;
  const GemmArgs &args = gemms[s];
  // Only built for a message.
  auto where = [&] { return gemmWhere(s, gemm, args); };
  auto ltFail = [&](const char *call, cublasStatus_t status) -> GemmConfig * {
    error = errorMessage(*lt, call, status) + where();
    return nullptr;
  };
  auto cudaType = [](int32_t dtype) {
    return dtype == TGC_DTYPE_F16    ? CUDA_R_16F
           : dtype == TGC_DTYPE_BF16 ? CUDA_R_16BF
           : dtype == TGC_DTYPE_F64  ? CUDA_R_64F
                                     : CUDA_R_32F;
  };
  bool isF64 = gemm.dtype == TGC_DTYPE_F64;
  int dataType = cudaType(gemm.dtype);
  // C, D and the bias.
  int outType = cudaType(gemm.cDtype >= 0 ? gemm.cDtype : gemm.dtype);
  uint32_t alignA = pointerAlignment(args.a), alignB = pointerAlignment(args.b),
           alignC = pointerAlignment(args.c),
           alignBias = pointerAlignment(args.bias);
  std::vector<int64_t> key = {
      int64_t(s),   args.m,       args.n, args.k, args.batch, args.strideA,
      args.strideB, args.strideC, alignA, alignB, alignC,     alignBias};
  auto found = gemmConfigs.find(key);
  if (found == gemmConfigs.end()) {
    GemmConfig config;
    // Row-major C[m,n] = A[m,k] B[k,n] is column-major C^T[n,m] =
    // B^T[n,k] A^T[k,m]: cuBLAS's A is our B and its B is our A, each read
    // in place (a row-major matrix is its transpose in column-major).
    auto release = [&] {
      if (config.layoutA)
        lt->cublasLtMatrixLayoutDestroy(config.layoutA);
      if (config.layoutB)
        lt->cublasLtMatrixLayoutDestroy(config.layoutB);
      if (config.layoutC)
        lt->cublasLtMatrixLayoutDestroy(config.layoutC);
      if (config.desc)
        lt->cublasLtMatmulDescDestroy(config.desc);
    };
    auto configFail = [&](const char *call, cublasStatus_t status) {
      release();
      return ltFail(call, status);
    };
    cublasStatus_t status = lt->cublasLtMatmulDescCreate(
        &config.desc, isF64 ? CUBLAS_COMPUTE_64F : CUBLAS_COMPUTE_32F,
        isF64 ? CUDA_R_64F : CUDA_R_32F);
    if (status != CUBLAS_STATUS_SUCCESS)
      return configFail("cublasLtMatmulDescCreate", status);
    int32_t opA = gemm.transB ? CUBLAS_OP_T : CUBLAS_OP_N;
    int32_t opB = gemm.transA ? CUBLAS_OP_T : CUBLAS_OP_N;
    // Indexed by GemmStep::Epilogue (the parser checks its range).
    static const uint32_t kLtEpilogues[] = {
        CUBLASLT_EPILOGUE_DEFAULT,   CUBLASLT_EPILOGUE_BIAS,
        CUBLASLT_EPILOGUE_RELU,      CUBLASLT_EPILOGUE_RELU_BIAS,
        CUBLASLT_EPILOGUE_GELU,      CUBLASLT_EPILOGUE_GELU_BIAS};
    uint32_t epilogue = kLtEpilogues[gemm.epilogue];
    bool hasBias = gemm.bias >= 0;
    int32_t biasType = outType;
    if ((status = lt->cublasLtMatmulDescSetAttribute(
             config.desc, CUBLASLT_MATMUL_DESC_TRANSA, &opA, sizeof(opA))) !=
            CUBLAS_STATUS_SUCCESS ||
        (status = lt->cublasLtMatmulDescSetAttribute(
             config.desc, CUBLASLT_MATMUL_DESC_TRANSB, &opB, sizeof(opB))) !=
            CUBLAS_STATUS_SUCCESS ||
        (status = lt->cublasLtMatmulDescSetAttribute(
             config.desc, CUBLASLT_MATMUL_DESC_EPILOGUE, &epilogue,
             sizeof(epilogue))) != CUBLAS_STATUS_SUCCESS)
      return configFail("cublasLtMatmulDescSetAttribute", status);
    if (hasBias) {
      const void *bias = reinterpret_cast<const void *>(args.bias);
      if ((status = lt->cublasLtMatmulDescSetAttribute(
               config.desc, CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE, &biasType,
               sizeof(biasType))) != CUBLAS_STATUS_SUCCESS ||
          (status = lt->cublasLtMatmulDescSetAttribute(
               config.desc, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias,
               sizeof(bias))) != CUBLAS_STATUS_SUCCESS)
        return configFail("cublasLtMatmulDescSetAttribute", status);
    }
    // cuBLAS's A = our B: n x k (stored k x n row-major, or n x k with
    // transB). cuBLAS's B = our A: k x m. D = C: n x m, ld n.
    struct LayoutSpec {
      cublasLtMatrixLayout_t *layout;
      uint64_t rows, cols;
      int64_t ld, stride;
    };
    LayoutSpec specs[] = {
        {&config.layoutA, uint64_t(gemm.transB ? args.k : args.n),
         uint64_t(gemm.transB ? args.n : args.k), gemm.transB ? args.k : args.n,
         args.strideB},
        {&config.layoutB, uint64_t(gemm.transA ? args.m : args.k),
         uint64_t(gemm.transA ? args.k : args.m), gemm.transA ? args.m : args.k,
         args.strideA},
        {&config.layoutC, uint64_t(args.n), uint64_t(args.m), args.n,
         args.strideC},
    };
    int32_t batch = int32_t(args.batch);
    for (LayoutSpec &spec : specs) {
      status = lt->cublasLtMatrixLayoutCreate(
          spec.layout, spec.layout == &config.layoutC ? outType : dataType,
          spec.rows, spec.cols, spec.ld);
      if (status != CUBLAS_STATUS_SUCCESS)
        return configFail("cublasLtMatrixLayoutCreate", status);
      if (batch > 1 &&
          ((status = lt->cublasLtMatrixLayoutSetAttribute(
                *spec.layout, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &batch,
                sizeof(batch))) != CUBLAS_STATUS_SUCCESS ||
           (status = lt->cublasLtMatrixLayoutSetAttribute(
                *spec.layout, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET,
                &spec.stride, sizeof(spec.stride))) != CUBLAS_STATUS_SUCCESS))
        return configFail("cublasLtMatrixLayoutSetAttribute", status);
    }
    cublasLtMatmulPreference_t preference = nullptr;
    status = lt->cublasLtMatmulPreferenceCreate(&preference);
    if (status != CUBLAS_STATUS_SUCCESS)
      return configFail("cublasLtMatmulPreferenceCreate", status);
    uint64_t workspaceBytes = kGemmWorkspaceBytes;
    // cuBLAS's A is our B, its B our A.
    uint32_t alignments[] = {alignB, alignA, alignC, alignC};
    int alignmentAttrs[] = {CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES,
                            CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES,
                            CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES,
                            CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES};
    status = lt->cublasLtMatmulPreferenceSetAttribute(
        preference, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &workspaceBytes,
        sizeof(workspaceBytes));
    for (int i = 0; i < 4 && status == CUBLAS_STATUS_SUCCESS; ++i)
      status = lt->cublasLtMatmulPreferenceSetAttribute(
          preference, alignmentAttrs[i], &alignments[i], sizeof(uint32_t));
    if (status != CUBLAS_STATUS_SUCCESS) {
      lt->cublasLtMatmulPreferenceDestroy(preference);
      return configFail("cublasLtMatmulPreferenceSetAttribute", status);
    }
    cublasLtMatmulHeuristicResult_t heuristics[kGemmCandidates] = {};
    int algorithms = 0;
    status = lt->cublasLtMatmulAlgoGetHeuristic(
        ltHandle, config.desc, config.layoutA, config.layoutB, config.layoutC,
        config.layoutC, preference, kGemmCandidates, heuristics, &algorithms);
    lt->cublasLtMatmulPreferenceDestroy(preference);
    if (status != CUBLAS_STATUS_SUCCESS)
      return configFail("cublasLtMatmulAlgoGetHeuristic", status);
    if (algorithms < 1) {
      release();
      error = "cublasLtMatmulAlgoGetHeuristic found no algorithm" + where();
      return nullptr;
    }
    config.algo = heuristics[0].algo;
    // The shape's tuned algorithm: cached, or timed now.
    std::vector<int64_t> shape(key.begin() + 1, key.end());
    for (int64_t field :
         {int64_t(gemm.dtype), int64_t(gemm.cDtype), int64_t(gemm.transA),
          int64_t(gemm.transB), int64_t(gemm.epilogue)})
      shape.push_back(field);
    auto tuned = tunedAlgos.find(shape);
    if (tuned != tunedAlgos.end()) {
      config.algo = tuned->second;
    } else if (tune && algorithms > 1 && gemmTuningEnabled()) {
      if (!tuneGemm(s, config, heuristics, algorithms, error)) {
        release();
        return nullptr;
      }
      tunedAlgos.emplace(std::move(shape), config.algo);
    }
    found = gemmConfigs.emplace(std::move(key), config).first;
  } else if (gemm.bias >= 0) {
    // The cached descriptor may hold another call's bias pointer.
    const void *bias = reinterpret_cast<const void *>(args.bias);
    cublasStatus_t status = lt->cublasLtMatmulDescSetAttribute(
        found->second.desc, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias,
        sizeof(bias));
    if (status != CUBLAS_STATUS_SUCCESS)
      return ltFail("cublasLtMatmulDescSetAttribute", status);
  }
  return &found->second;
}

cublasStatus_t GpuFunction::Impl::matmul(size_t s, const GemmConfig &config,
                                         const cublasLtMatmulAlgo_t &algo,
                                         uint64_t c) {
  const GemmArgs &args = gemms[s];
  bool isF64 = plan.steps[s].gemm.dtype == TGC_DTYPE_F64;
  float alpha32 = 1.0f, beta32 = 0.0f;
  double alpha64 = 1.0, beta64 = 0.0;
  const void *alpha = isF64 ? static_cast<const void *>(&alpha64)
                            : static_cast<const void *>(&alpha32);
  const void *beta = isF64 ? static_cast<const void *>(&beta64)
                           : static_cast<const void *>(&beta32);
  void *d = reinterpret_cast<void *>(c);
  return lt->cublasLtMatmul(
      ltHandle, config.desc, alpha, reinterpret_cast<const void *>(args.b),
      config.layoutA, reinterpret_cast<const void *>(args.a), config.layoutB,
      beta, d, config.layoutC, d, config.layoutC, &algo,
      reinterpret_cast<void *>(workspace), size_t(kGemmWorkspaceBytes),
      stream);
}

bool GpuFunction::Impl::tuneGemm(
    size_t s, GemmConfig &config,
    const cublasLtMatmulHeuristicResult_t *candidates, int count,
    std::string &error) {
  const GemmStep &gemm = plan.steps[s].gemm;
  const GemmArgs &args = gemms[s];
  // A scratch output: the step's own may be read by earlier steps of this
  // call that have not run yet.
  int64_t outBytes = dtypeBytes(gemm.cDtype >= 0 ? gemm.cDtype : gemm.dtype);
  uint64_t bytes =
      uint64_t(args.strideC * (args.batch - 1) + args.m * args.n) * outBytes;
  CUdeviceptr scratch = 0;
  CUresult result =
      cu->cuMemAlloc(&scratch, size_t(std::max<uint64_t>(bytes, 256)));
  if (result != CUDA_SUCCESS) {
    fail(error, "cuMemAlloc", result);
    error += " (GEMM tuning scratch of " + num(int64_t(bytes)) + " bytes)" +
             gemmWhere(s, gemm, args);
    return false;
  }
  auto run = [&](const cublasLtMatmulAlgo_t &algo) {
    return matmul(s, config, algo, scratch);
  };
  double best = -1;
  for (int i = 0; i < count; ++i) {
    if (candidates[i].state != CUBLAS_STATUS_SUCCESS ||
        candidates[i].workspaceSize > kGemmWorkspaceBytes)
      continue;
    // A warm-up run; a candidate cuBLASLt refuses is skipped.
    if (run(candidates[i].algo) != CUBLAS_STATUS_SUCCESS)
      continue;
    if ((result = cu->cuStreamSynchronize(stream)) != CUDA_SUCCESS)
      break;
    auto start = std::chrono::steady_clock::now();
    bool ok = true;
    for (int r = 0; r < kGemmTimedRuns && ok; ++r)
      ok = run(candidates[i].algo) == CUBLAS_STATUS_SUCCESS;
    if ((result = cu->cuStreamSynchronize(stream)) != CUDA_SUCCESS)
      break;
    double seconds = std::chrono::duration<double>(
                         std::chrono::steady_clock::now() - start)
                         .count();
    if (ok && (best < 0 || seconds < best)) {
      best = seconds;
      config.algo = candidates[i].algo;
    }
  }
  cu->cuMemFree(scratch);
  if (result != CUDA_SUCCESS) {
    fail(error, "cuStreamSynchronize", result);
    error += " (timing cuBLASLt algorithms)" + gemmWhere(s, gemm, args);
    return false;
  }
  ++stats.gemmTunings;
  return true;
}

bool GpuFunction::Impl::issueGemm(size_t s, bool capturing,
                                  std::string &error) {
  const GemmStep &gemm = plan.steps[s].gemm;
  const GemmArgs &args = gemms[s];
  if (args.skip)
    return true;
  GemmConfig *found = gemmConfig(s, /*tune=*/!capturing, error);
  if (!found)
    return false;
  auto ltFail = [&](const char *call, cublasStatus_t status) {
    error = errorMessage(*lt, call, status) + gemmWhere(s, gemm, args);
    return false;
  };
  const GemmConfig &config = *found;
  cublasStatus_t status = matmul(s, config, config.algo, args.c);
  if (status != CUBLAS_STATUS_SUCCESS)
    return ltFail("cublasLtMatmul", status);
  if (!capturing)
    ++stats.gemms;
  return true;
}

//===----------------------------------------------------------------------===//
// Graphs
//===----------------------------------------------------------------------===//

void GpuFunction::Impl::matchCapturedNodes(Graph &graph) {
  size_t count = 0;
  if (cu->cuGraphGetNodes(graph.graph, nullptr, &count) != CUDA_SUCCESS ||
      count == 0)
    return;
  std::vector<CUgraphNode> nodes(count);
  if (cu->cuGraphGetNodes(graph.graph, nodes.data(), &count) != CUDA_SUCCESS)
    return;
  nodes.resize(count);
  std::vector<bool> matched(plan.steps.size(), false);
  for (CUgraphNode node : nodes) {
    int type = -1;
    if (cu->cuGraphNodeGetType(node, &type) != CUDA_SUCCESS ||
        type != CU_GRAPH_NODE_TYPE_KERNEL)
      continue;
    KernelNodeParams params = {};
    if (cu->cuGraphKernelNodeGetParams(node, &params) != CUDA_SUCCESS)
      continue;
    // The first launch step not matched yet with the same kernel and the
    // same parameter values (cuBLASLt's kernels match none of ours).
    for (size_t s = 0; s < plan.steps.size(); ++s) {
      if (matched[s] || plan.steps[s].kind != PlanStep::Launch ||
          launches[s].skip ||
          functions[plan.steps[s].launch.kernel] != params.func)
        continue;
      const std::vector<uint64_t> &values = launches[s].values;
      bool same = true;
      if (params.kernelParams) {
        for (size_t i = 0; i < values.size() && same; ++i) {
          uint64_t captured = 0;
          std::memcpy(&captured, params.kernelParams[i], sizeof(captured));
          same = captured == values[i];
        }
      }
      if (!same)
        continue;
      matched[s] = true;
      graph.steps[s].node = node;
      break;
    }
  }
}

/// Records what step `s` is in this call into `record` (its node kept).
static void recordStep(const PlanStep &step, const LaunchArgs &launch,
                       const std::vector<uint64_t> &pointers,
                       StepRecord &record) {
  if (step.kind != PlanStep::Launch) {
    record.values = pointers;
    return;
  }
  record.values = launch.values;
  std::copy(launch.grid, launch.grid + 3, record.grid);
  record.shared = launch.shared;
  record.skipped = launch.skip;
}

bool GpuFunction::Impl::configureShared(size_t s, std::string &error) {
  int32_t kernel = plan.steps[s].launch.kernel;
  if (int64_t(launches[s].shared) <= sharedConfigured[kernel])
    return true;
  CUresult result = cu->cuFuncSetAttribute(
      functions[kernel], CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
      int(launches[s].shared));
  if (result != CUDA_SUCCESS)
    return fail(error, "cuFuncSetAttribute", result);
  sharedConfigured[kernel] = launches[s].shared;
  return true;
}

bool GpuFunction::Impl::capture(Graph &graph, std::string &error) {
  graph.key = values;
  graph.steps.assign(plan.steps.size(), StepRecord());
  for (size_t s = 0; s < plan.steps.size(); ++s)
    recordStep(plan.steps[s], launches[s], pointers[s], graph.steps[s]);
  bool onlyLaunches = std::all_of(
      plan.steps.begin(), plan.steps.end(),
      [](const PlanStep &step) { return step.kind == PlanStep::Launch; });
  CUresult result;
  if (onlyLaunches) {
    // Built node by node: the node handles come for free.
    result = cu->cuGraphCreate(&graph.graph, 0);
    if (result != CUDA_SUCCESS)
      return fail(error, "cuGraphCreate", result);
    CUgraphNode previous = nullptr;
    for (size_t s = 0; s < plan.steps.size(); ++s) {
      if (launches[s].skip)
        continue;
      // Shared-memory limits are function attributes, set outside graphs.
      int32_t kernel = plan.steps[s].launch.kernel;
      if (!configureShared(s, error))
        return false;
      std::vector<void *> storage;
      KernelNodeParams params = nodeParams(s, storage);
      CUgraphNode node = nullptr;
      result = cu->cuGraphAddKernelNode(&node, graph.graph,
                                        previous ? &previous : nullptr,
                                        previous ? 1 : 0, &params);
      if (result != CUDA_SUCCESS) {
        fail(error, "cuGraphAddKernelNode", result);
        error += " (step " + num(int64_t(s)) + ", kernel " +
                 plan.kernels[kernel] + ")";
        return false;
      }
      graph.steps[s].node = node;
      previous = node;
    }
  } else {
    result = cu->cuStreamBeginCapture(stream, CU_STREAM_CAPTURE_MODE_RELAXED);
    if (result != CUDA_SUCCESS)
      return fail(error, "cuStreamBeginCapture", result);
    bool issued = true;
    for (size_t s = 0; s < plan.steps.size() && issued; ++s)
      issued = issue(s, /*capturing=*/true, error);
    result = cu->cuStreamEndCapture(stream, &graph.graph);
    if (!issued)
      return false;
    if (result != CUDA_SUCCESS)
      return fail(error, "cuStreamEndCapture", result);
    matchCapturedNodes(graph);
  }
  result = cu->cuGraphInstantiate(&graph.exec, graph.graph, 0);
  if (result != CUDA_SUCCESS) {
    graph.exec = nullptr;
    return fail(error, "cuGraphInstantiate", result);
  }
  ++stats.graphCaptures;
  return true;
}

bool GpuFunction::Impl::patchable(const Graph &graph) const {
  for (size_t s = 0; s < plan.steps.size(); ++s) {
    const StepRecord &record = graph.steps[s];
    if (plan.steps[s].kind != PlanStep::Launch) {
      if (pointers[s] != record.values)
        return false;
      continue;
    }
    // A launch skipped in one and not the other has a node in only one.
    if (launches[s].skip != record.skipped)
      return false;
    if (!launches[s].skip && !record.node &&
        (launches[s].values != record.values ||
         !std::equal(record.grid, record.grid + 3, launches[s].grid) ||
         launches[s].shared != record.shared))
      return false;
  }
  return true;
}

bool GpuFunction::Impl::runGraph(std::string &error) {
  // A graph of these very sizes, else one that patching kernel nodes makes
  // fit (sizes are kernel arguments and grids are node parameters, so one
  // graph serves every size set whose GEMMs, copies and skipped launches
  // are the same), else a new capture.
  auto found =
      std::find_if(graphs.begin(), graphs.end(),
                   [&](const Graph &graph) { return graph.key == values; });
  if (found != graphs.end() && !patchable(*found)) {
    // Same sizes, but a GEMM's, copy's or memset's pointers changed.
    destroyGraph(*found);
    graphs.erase(found);
    found = graphs.end();
  }
  if (found == graphs.end()) {
    // The most recently used graph that patching makes fit.
    auto fit = std::find_if(graphs.rbegin(), graphs.rend(),
                            [&](const Graph &graph) { return patchable(graph); });
    found = fit == graphs.rend() ? graphs.end() : std::prev(fit.base());
  }
  if (found != graphs.end()) {
    for (size_t s = 0; s < plan.steps.size(); ++s) {
      StepRecord &record = found->steps[s];
      const LaunchArgs &launch = launches[s];
      if (plan.steps[s].kind != PlanStep::Launch || launch.skip ||
          (launch.values == record.values && launch.shared == record.shared &&
           std::equal(record.grid, record.grid + 3, launch.grid)))
        continue;
      if (!configureShared(s, error))
        return false;
      std::vector<void *> storage;
      KernelNodeParams params = nodeParams(s, storage);
      CUresult result =
          cu->cuGraphExecKernelNodeSetParams(found->exec, record.node, &params);
      if (result != CUDA_SUCCESS) {
        fail(error, "cuGraphExecKernelNodeSetParams", result);
        error += " (step " + num(int64_t(s)) + ")";
        return false;
      }
      recordStep(plan.steps[s], launch, pointers[s], record);
      ++stats.patchedNodes;
    }
    if (found->key != values) {
      found->key = values;
      ++stats.graphResizes;
    }
    // Most recently used last.
    std::rotate(found, found + 1, graphs.end());
    found = graphs.end() - 1;
  }
  if (found == graphs.end()) {
    if (graphs.size() >= kMaxGraphs) {
      destroyGraph(graphs.front());
      graphs.erase(graphs.begin());
    }
    // GEMM algorithms are timed before the capture (no synchronization
    // may happen during one).
    for (size_t s = 0; s < plan.steps.size(); ++s)
      if (plan.steps[s].kind == PlanStep::Gemm && !gemms[s].skip &&
          !gemmConfig(s, /*tune=*/true, error))
        return false;
    Graph graph;
    std::string captureError;
    if (!capture(graph, captureError)) {
      destroyGraph(graph);
      // Run the steps on the stream instead, and say why.
      stats.graphFallback = "graph capture failed: " + captureError;
      for (size_t s = 0; s < plan.steps.size(); ++s)
        if (!issue(s, /*capturing=*/false, error))
          return false;
      return true;
    }
    graphs.push_back(std::move(graph));
    found = graphs.end() - 1;
  }
  CUresult result = cu->cuGraphLaunch(found->exec, stream);
  if (result != CUDA_SUCCESS)
    return fail(error, "cuGraphLaunch", result);
  ++stats.graphReplays;
  return true;
}

bool GpuFunction::run(const std::vector<DeviceTensor> &args,
                      std::vector<DeviceTensor> &results, bool useGraph,
                      std::string &error, bool wait) {
  Impl &state = *impl;
  std::lock_guard<std::mutex> lock(state.mutex);
  results.clear();
  state.stats.graphFallback.clear();
  if (!driver(error))
    return false;

  std::vector<DeviceTensor> outputs;
  auto failRun = [&]() {
    // Nothing may still write into the results before they are freed.
    state.cu->cuStreamSynchronize(state.stream);
    for (DeviceTensor &tensor : outputs)
      deviceFree(tensor.ptr);
    return false;
  };
  if (!state.prepare(args, outputs, error))
    return failRun();

  if (useGraph && !state.cu->hasGraphs) {
    state.stats.graphFallback = state.cu->graphError;
    useGraph = false;
  }
  // A call with device-side checks is only done once they are read.
  // Its bytes start as "not run" (or passed, where the sizes skip it).
  if (state.checkBytes) {
    wait = true;
    for (size_t s = 0; s < state.plan.steps.size(); ++s)
      if (state.checkSlot[s] >= 0)
        state.checkBytes[state.checkSlot[s]] =
            state.pointers[s].empty() ? 1 : 0xff;
  }
  bool ok = true;
  // Device time: events around the steps (a graph capture or GEMM
  // tuning inside this call counts in it).
  bool timed = state.deviceTiming;
  std::pair<CUevent, CUevent> events{nullptr, nullptr};
  if (timed) {
    if (!state.spareTimings.empty()) {
      events = state.spareTimings.back();
      state.spareTimings.pop_back();
    } else if (state.cu->cuEventCreate(&events.first, 0) != CUDA_SUCCESS ||
               state.cu->cuEventCreate(&events.second, 0) != CUDA_SUCCESS) {
      ok = false;
    }
    if (ok)
      state.pendingTimings.push_back(events); // recycled when resolved
    else
      for (CUevent event : {events.first, events.second})
        if (event)
          state.cu->cuEventDestroy(event);
    ok = ok && state.cu->cuEventRecord(events.first, state.stream) ==
                   CUDA_SUCCESS;
    if (!ok)
      error = "could not create or record a CUDA event for device timing";
  }
  if (ok && useGraph) {
    ok = state.runGraph(error);
  } else {
    for (size_t s = 0; s < state.plan.steps.size() && ok; ++s)
      ok = state.issue(s, /*capturing=*/false, error);
  }
  if (ok && timed) {
    if (state.cu->cuEventRecord(events.second, state.stream) != CUDA_SUCCESS) {
      error = "could not record a CUDA event for device timing";
      ok = false;
    }
  }
  if (!ok) {
    error = state.plan.function + ": " + error;
    return failRun();
  }
  if (!wait) {
    results = std::move(outputs);
    return true;
  }
  CUresult result = state.cu->cuStreamSynchronize(state.stream);
  if (result != CUDA_SUCCESS) {
    error = state.plan.function + ": " +
            errorMessage(*state.cu, "cuStreamSynchronize", result);
    return failRun();
  }
  // Device-side checks, in step order: the first that failed.
  for (size_t s = 0; s < state.plan.steps.size(); ++s) {
    int32_t slot = state.checkSlot[s];
    if (slot < 0 || state.checkBytes[slot] == 1)
      continue;
    error = state.plan.function + ": " + state.plan.steps[s].check.message +
            (state.checkBytes[slot] == 0
                 ? " (checked on the device; the call's results are not "
                   "valid)"
                 : " (its device-side check did not run)");
    return failRun();
  }
  // Every timed call so far is finished: their times are known.
  for (auto [start, end] : state.pendingTimings) {
    float ms = 0;
    if (state.cu->cuEventElapsedTime(&ms, start, end) == CUDA_SUCCESS)
      state.stats.deviceTimesMs.push_back(ms);
    state.spareTimings.push_back({start, end});
  }
  state.pendingTimings.clear();
  results = std::move(outputs);
  return true;
}

void GpuFunction::setDeviceTiming(bool on) {
  std::lock_guard<std::mutex> lock(impl->mutex);
  impl->deviceTiming = on;
}
