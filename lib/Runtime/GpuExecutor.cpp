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

#include "GpuFunctionImpl.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <unordered_map>

using namespace tgc::runtime;
using namespace tgc::runtime::cuda;

//===----------------------------------------------------------------------===//
// GpuFunction
//===----------------------------------------------------------------------===//


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
  for (auto &entry : gemmConfigs)
    entry.second.release(*lt);
  for (auto &entry : convConfigs)
    entry.second.release(*dnn);
  // The last call's work may still read the arena and the workspace. Its
  // stream may be the caller's and gone by now: the whole context is waited
  // for.
  if (issuedBefore)
    cu->cuCtxSynchronize();
  if (switchEvent)
    cu->cuEventDestroy(switchEvent);
  if (ltHandle)
    lt->cublasLtDestroy(ltHandle);
  if (dnnHandle)
    dnn->cudnnDestroy(dnnHandle);
  if (convWorkspace)
    cu->cuMemFree(convWorkspace);
  if (workspace)
    cu->cuMemFree(workspace);
  if (arena)
    cu->cuMemFree(arena);
  if (ownStream)
    cu->cuStreamDestroy(ownStream);
  if (module)
    cu->cuModuleUnload(module);
  if (checkBytes)
    cu->cuMemFreeHost(checkBytes);
  if (checkTexts)
    cu->cuMemFree(checkTexts);
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
  for (const PlanStep &step : impl.plan.steps) {
    if (step.kind == PlanStep::Check)
      impl.lastCheckStep = impl.checkSlot.size();
    impl.checkSlot.push_back(step.kind == PlanStep::Check ? checks++ : -1);
  }
  // Checks in the first half of the steps run before a graph's replay
  // (graphFirst); later ones are read after it, and such a call waits.
  if (checks > 0 && 2 * (impl.lastCheckStep + 1) <= impl.plan.steps.size())
    impl.graphFirst = impl.lastCheckStep + 1;
  impl.hostChecksGraphFirst = impl.graphFirst;
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

  CUresult result =
      cu->cuStreamCreate(&impl.ownStream, CU_STREAM_NON_BLOCKING);
  if (result != CUDA_SUCCESS) {
    error = name + ": " + errorMessage(*cu, "cuStreamCreate", result);
    return nullptr;
  }
  impl.stream = impl.ownStream;
  result = cu->cuEventCreate(&impl.switchEvent, CU_EVENT_DISABLE_TIMING);
  if (result != CUDA_SUCCESS) {
    error = name + ": " + errorMessage(*cu, "cuEventCreate", result);
    return nullptr;
  }

  bool hasConv = std::any_of(
      impl.plan.steps.begin(), impl.plan.steps.end(),
      [](const PlanStep &step) { return step.kind == PlanStep::Conv; });
  if (hasConv) {
    impl.dnn = cudnn(error);
    if (!impl.dnn) {
      error = name + ": " + error;
      return nullptr;
    }
    cudnnStatus_t status = impl.dnn->cudnnCreate(&impl.dnnHandle);
    if (status != CUDNN_STATUS_SUCCESS) {
      error = name + ": " + errorMessage(*impl.dnn, "cudnnCreate", status);
      return nullptr;
    }
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
    // The call's stream is ordered after every earlier call's.
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

bool GpuFunction::Impl::selectStream(const RunTarget *target,
                                     std::string &error) {
  CUstream next = target && target->callerStream
                      ? reinterpret_cast<CUstream>(uintptr_t(target->stream))
                      : ownStream;
  if (next != ownStream) {
    // Work issued into a stream being captured (torch.cuda.graph) would
    // bake this function's arena into the caller's graph, which later
    // calls overwrite: refused rather than a wrong replay.
    int capturing = 0;
    CUresult result = cu->cuStreamIsCapturing(next, &capturing);
    if (result != CUDA_SUCCESS)
      return fail(error, "cuStreamIsCapturing", result);
    if (capturing != 0) {
      error = "the stream is being captured into a CUDA graph; TGC runs its "
              "own graphs (mode=\"reduce-overhead\") and cannot be captured "
              "into another";
      return false;
    }
  }
  if (issuedBefore && next != lastStream) {
    // Calls share the arena, the GEMM workspace and the graphs' memory:
    // the new stream waits for what the previous call issued.
    CUresult result = cu->cuEventRecord(switchEvent, lastStream);
    if (result != CUDA_SUCCESS)
      return fail(error, "cuEventRecord", result);
    result = cu->cuStreamWaitEvent(next, switchEvent, 0);
    if (result != CUDA_SUCCESS)
      return fail(error, "cuStreamWaitEvent", result);
  }
  stream = next;
  lastStream = next;
  issuedBefore = true;
  return true;
}

bool GpuFunction::Impl::prepare(const std::vector<DeviceTensor> &args,
                                std::vector<DeviceTensor> &results,
                                const RunTarget *target, std::string &error) {
  const std::string &name = plan.function;
  if (args.size() != plan.args.size()) {
    error = name + " takes " + num(int64_t(plan.args.size())) +
            " arguments, got " + num(int64_t(args.size()));
    return false;
  }
  // argSizes points into this call's tensors: emptied on every way out
  // (capacity kept), so no pointer outlives the call.
  struct ClearSizes {
    std::vector<SizesRef> &sizes;
    ~ClearSizes() { sizes.clear(); }
  } clearSizes{argSizes};
  argSizes.resize(args.size());
  for (size_t i = 0; i < args.size(); ++i) {
    const PlanTensor &expected = plan.args[i];
    if (storageDtype(args[i].dtype) != expected.dtype) {
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
    argSizes[i] = {args[i].sizes.data(), int64_t(args[i].sizes.size())};
  }
  std::string evalError;
  if (!evaluatePlan(plan, argSizes.data(), argSizes.size(), values,
                    evalError)) {
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
    if (target && target->allocResult) {
      std::string allocError;
      tensor.ptr = target->allocResult(i, tensor.dtype, tensor.sizes,
                                       allocError);
      if (!tensor.ptr) {
        error = name + ": result " + num(int64_t(i)) + ": " +
                (allocError.empty() ? "no memory" : allocError);
        return false;
      }
    } else if (!deviceAlloc(uint64_t(bytes), tensor.ptr, error)) {
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
    if (target && target->noWait && arena && arenaBytes > arenaCapacity) {
      target->wouldWait = true; // the old arena is freed after a wait
      return false;
    }
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
  // (Reset in place: the vectors keep their capacity from call to call.)
  launches.resize(plan.steps.size());
  for (LaunchArgs &launch : launches) {
    std::vector<uint64_t> kept = std::move(launch.values);
    kept.clear();
    launch = LaunchArgs();
    launch.values = std::move(kept);
  }
  gemms.assign(plan.steps.size(), GemmArgs());
  convs.assign(plan.steps.size(), ConvArgs());
  pointers.resize(plan.steps.size());
  for (std::vector<uint64_t> &p : pointers)
    p.clear();
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
      out.residual = gemm.residual >= 0 ? buffers[gemm.residual] : 0;
      pointers[s] = {out.a, out.b, out.c, out.bias, out.residual};
      break;
    }
    case PlanStep::Conv:
      if (!prepareConv(s, error))
        return false;
      break;
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
      // {flag, host byte}, or {flag, device message} with device asserts;
      // {} when this call's sizes skip the check.
      if (step.check.when < 0 || value(step.check.when) != 0)
        pointers[s] = {buffers[step.check.flag],
                       asserted(s) ? checkMessages[checkSlot[s]]
                                   : uint64_t(reinterpret_cast<uintptr_t>(
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
    KernelNodeParams p = nodeParams(s, launchStorage);
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
  case PlanStep::Conv:
    return issueConv(s, capturing, error);
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
    if (asserted(s))
      return issueDeviceCheck(s, error);
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

bool GpuFunction::run(const std::vector<DeviceTensor> &args,
                      std::vector<DeviceTensor> &results, bool useGraph,
                      std::string &error, bool wait,
                      const RunTarget *target) {
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
    if (!target || !target->allocResult) // the caller's memory is its own
      for (DeviceTensor &tensor : outputs)
        deviceFree(tensor.ptr);
    return false;
  };
  if (!state.selectStream(target, error))
    return false;
  if (target)
    target->wouldWait = false;
  // A call with device-side checks waits for them: known before prepare
  // allocates the results (a first try would allocate them all twice).
  bool hostChecks = state.checkBytes && state.hostChecks;
  if (target && target->noWait && hostChecks) {
    target->wouldWait = true;
    return false;
  }
  if (!state.prepare(args, outputs, target, error))
    return target && target->wouldWait ? false : failRun();
  if (target && target->noWait && state.wouldWait()) {
    target->wouldWait = true;
    return false; // nothing issued: the caller runs it again, waiting
  }

  if (useGraph && !state.cu->hasGraphs) {
    state.stats.graphFallback = state.cu->graphError;
    useGraph = false;
  }
  // A call with device-side checks is only done once they are read: right
  // after its last check step is issued (the compiler puts checks of the
  // inputs first: tgc-hoist-checks), before the steps after it, which then
  // run without a wait. With a graph, the steps before graphFirst (the
  // checks, when they come early) are issued and read before the replay;
  // a graph that holds checks is read after its replay.
  // Their bytes start as "not run" (or passed, where the sizes skip it).
  bool checksPending = hostChecks;
  if (hostChecks) {
    for (size_t s = 0; s < state.plan.steps.size(); ++s)
      if (state.checkSlot[s] >= 0)
        state.checkBytes[state.checkSlot[s]] =
            state.pointers[s].empty() || state.asserted(s) ? 1 : 0xff;
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
  // The steps on the stream: all of them, or those before the graph.
  size_t direct = useGraph ? state.graphFirst : state.plan.steps.size();
  for (size_t s = 0; s < direct && ok; ++s) {
    ok = state.issue(s, /*capturing=*/false, error);
    if (ok && checksPending && s == state.lastCheckStep) {
      checksPending = false;
      ok = state.readChecks(error);
    }
  }
  if (ok && useGraph) {
    ok = state.runGraph(error);
    if (ok && checksPending) { // the graph holds the checks
      checksPending = false;
      ok = state.readChecks(error);
    }
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

bool GpuFunction::Impl::wouldWait() const {
  if (checkBytes && hostChecks)
    return true;
  for (size_t s = 0; s < plan.steps.size(); ++s) {
    if (plan.steps[s].kind == PlanStep::Gemm && !gemms[s].skip &&
        !gemmConfigs.count(gemmKey(s)))
      return true;
    if (plan.steps[s].kind == PlanStep::Conv && !convs[s].skip &&
        !convs[s].zero && !convConfigs.count(convKey(s)))
      return true;
  }
  return false;
}

bool GpuFunction::Impl::readChecks(std::string &error) {
  ++stats.checkWaits;
  CUresult result = cu->cuStreamSynchronize(stream);
  if (result != CUDA_SUCCESS) {
    error = errorMessage(*cu, "cuStreamSynchronize", result) +
            " (reading the device-side checks)";
    return false;
  }
  // In step order: the first that failed.
  for (size_t s = 0; s < plan.steps.size(); ++s) {
    int32_t slot = checkSlot[s];
    if (slot < 0 || checkBytes[slot] == 1)
      continue;
    error = plan.steps[s].check.message +
            (checkBytes[slot] == 0
                 ? " (checked on the device; the call's results are not "
                   "valid)"
                 : " (its device-side check did not run)");
    return false;
  }
  return true;
}

void GpuFunction::setDeviceTiming(bool on) {
  std::lock_guard<std::mutex> lock(impl->mutex);
  impl->deviceTiming = on;
}
