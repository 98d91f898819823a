//===- GpuConv.cpp - cuDNN convolution steps of a launch plan -------------===//
//
// GpuFunction::Impl's `conv` steps: this call's sizes and pointers, the
// cuDNN execution plan of a shape (the backend API; the legacy API's
// descriptors and algorithm where no engine builds one), one workspace
// shared by every step, and issuing the forward, backward-data or
// backward-filter convolution on the function's stream (docs/gpu-runtime.md,
// "Convolution steps").
//
//===----------------------------------------------------------------------===//

#include "GpuFunctionImpl.h"
#include "TuningCache.h"

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <cstring>

using namespace tgc::runtime;
using namespace tgc::runtime::cuda;

namespace {
std::string convWhere(size_t s, const ConvArgs &a) {
  auto dims = [](const int64_t *v) {
    return num(v[0]) + "x" + num(v[1]) + "x" + num(v[2]) + "x" + num(v[3]);
  };
  return " (step " + num(int64_t(s)) + ", conv x " + dims(a.x) + " w " +
         dims(a.w) + " y " + dims(a.y) + ")";
}

/// The backend operation of each kind and its attribute names: x, w, y,
/// the convolution descriptor, alpha, beta.
struct ConvOperation {
  int type;
  int x, w, y, conv, alpha, beta;
};
ConvOperation convOperation(ConvStep::Kind kind) {
  switch (kind) {
  case ConvStep::BackwardData:
    return {CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_DATA_DESCRIPTOR,
            CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DX,
            CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_W,
            CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DY,
            CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_CONV_DESC,
            CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_ALPHA,
            CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_BETA};
  case ConvStep::BackwardFilter:
    return {CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_FILTER_DESCRIPTOR,
            CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_X,
            CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_DW,
            CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_DY,
            CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_CONV_DESC,
            CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_ALPHA,
            CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_BETA};
  case ConvStep::Forward:
    break;
  }
  return {CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR,
          CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_X,
          CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_W,
          CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_Y,
          CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_CONV_DESC,
          CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_ALPHA,
          CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_BETA};
}

/// The written tensor's elements (x: 0, w: 1, y: 2) of a kind.
int writtenTensor(ConvStep::Kind kind) {
  return kind == ConvStep::BackwardData     ? 0
         : kind == ConvStep::BackwardFilter ? 1
                                            : 2;
}

/// The largest workspace a convolution may take (cuDNN's faster algorithms
/// for large inputs ask for more; a smaller candidate is taken instead).
constexpr size_t kMaxConvWorkspace = size_t(1) << 30;
/// Engine configurations timed per shape, and the timed runs of each.
constexpr size_t kConvCandidates = 6;
constexpr int kConvTimedRuns = 3;

/// TGC_CUDNN_TUNE=0: cuDNN's first choice instead of timing its candidates
/// (what eager PyTorch does with torch.backends.cudnn.benchmark off).
bool convTuningEnabled() {
  const char *value = std::getenv("TGC_CUDNN_TUNE");
  return !value || std::strcmp(value, "0") != 0;
}

/// TGC_CUDNN_LEGACY=1: the legacy convolution API (cudnnConvolutionForward)
/// instead of the backend API's execution plans.
bool legacyConvolutions() {
  const char *value = std::getenv("TGC_CUDNN_LEGACY");
  return value && std::strcmp(value, "1") == 0;
}

/// Makes, sets and finalizes backend descriptors, keeping each in `owned`;
/// the first failure is kept and every later call does nothing.
struct BackendBuilder {
  const Cudnn &dnn;
  std::vector<cudnnBackendDescriptor_t> &owned;
  const char *failed = nullptr;
  cudnnStatus_t status = CUDNN_STATUS_SUCCESS;

  bool check(cudnnStatus_t st, const char *call) {
    if (!failed && st != CUDNN_STATUS_SUCCESS) {
      failed = call;
      status = st;
    }
    return !failed;
  }
  cudnnBackendDescriptor_t make(int type) {
    cudnnBackendDescriptor_t d = nullptr;
    if (failed)
      return nullptr;
    if (check(dnn.cudnnBackendCreateDescriptor(type, &d),
              "cudnnBackendCreateDescriptor"))
      owned.push_back(d);
    return d;
  }
  void set(cudnnBackendDescriptor_t d, int name, int type, int64_t count,
           const void *value) {
    if (!failed)
      check(dnn.cudnnBackendSetAttribute(d, name, type, count, value),
            "cudnnBackendSetAttribute");
  }
  void finalize(cudnnBackendDescriptor_t d) {
    if (!failed)
      check(dnn.cudnnBackendFinalize(d), "cudnnBackendFinalize");
  }
};
} // namespace

bool GpuFunction::Impl::buildConvPlan(size_t s, ConvConfig &config,
                                      std::string &error) {
  const ConvStep &conv = plan.steps[s].conv;
  const ConvArgs &a = convs[s];
  BackendBuilder b{*dnn, config.owned};
  // x, w and y as tensors 1, 2 and 3: NCHW dims with their strides (a
  // size-1 dim's stride, which no element uses, made what a packed layout
  // would have: cuDNN rejects some), aligned as their pointers are.
  auto tensor = [&](int64_t uid, const int64_t *dims, const int64_t *given,
                    uint64_t ptr) {
    int64_t strides[4];
    for (int d = 3; d >= 0; --d)
      strides[d] = dims[d] == 1 ? (d == 3 ? 1 : strides[d + 1] * dims[d + 1])
                                : given[d];
    int64_t align = std::min<int64_t>(pointerAlignment(ptr), 16);
    int type = CUDNN_DATA_FLOAT;
    cudnnBackendDescriptor_t t = b.make(CUDNN_BACKEND_TENSOR_DESCRIPTOR);
    b.set(t, CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &type);
    b.set(t, CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, 4, dims);
    b.set(t, CUDNN_ATTR_TENSOR_STRIDES, CUDNN_TYPE_INT64, 4, strides);
    b.set(t, CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, 1, &uid);
    b.set(t, CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT, CUDNN_TYPE_INT64, 1, &align);
    b.finalize(t);
    return t;
  };
  int64_t packed[4] = {a.w[1] * a.w[2] * a.w[3], a.w[2] * a.w[3], a.w[3], 1};
  cudnnBackendDescriptor_t x = tensor(1, a.x, a.x + 4, a.px);
  cudnnBackendDescriptor_t w = tensor(2, a.w, packed, a.pw);
  cudnnBackendDescriptor_t y = tensor(3, a.y, a.y + 4, a.py);

  cudnnBackendDescriptor_t cd = b.make(CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR);
  int compute = CUDNN_DATA_FLOAT, mode = CUDNN_CROSS_CORRELATION;
  int64_t spatial = 2;
  b.set(cd, CUDNN_ATTR_CONVOLUTION_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, 1,
        &compute);
  b.set(cd, CUDNN_ATTR_CONVOLUTION_CONV_MODE, CUDNN_TYPE_CONVOLUTION_MODE, 1,
        &mode);
  b.set(cd, CUDNN_ATTR_CONVOLUTION_SPATIAL_DIMS, CUDNN_TYPE_INT64, 1,
        &spatial);
  b.set(cd, CUDNN_ATTR_CONVOLUTION_DILATIONS, CUDNN_TYPE_INT64, 2,
        conv.dilation);
  b.set(cd, CUDNN_ATTR_CONVOLUTION_FILTER_STRIDES, CUDNN_TYPE_INT64, 2,
        conv.stride);
  b.set(cd, CUDNN_ATTR_CONVOLUTION_PRE_PADDINGS, CUDNN_TYPE_INT64, 2,
        conv.padding);
  b.set(cd, CUDNN_ATTR_CONVOLUTION_POST_PADDINGS, CUDNN_TYPE_INT64, 2,
        conv.padding);
  b.finalize(cd);

  ConvOperation names = convOperation(conv.kind);
  cudnnBackendDescriptor_t op = b.make(names.type);
  float alpha = 1.0f, beta = 0.0f;
  b.set(op, names.x, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &x);
  b.set(op, names.w, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &w);
  b.set(op, names.y, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &y);
  b.set(op, names.conv, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &cd);
  b.set(op, names.alpha, CUDNN_TYPE_FLOAT, 1, &alpha);
  b.set(op, names.beta, CUDNN_TYPE_FLOAT, 1, &beta);
  b.finalize(op);

  cudnnBackendDescriptor_t graph =
      b.make(CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR);
  b.set(graph, CUDNN_ATTR_OPERATIONGRAPH_HANDLE, CUDNN_TYPE_HANDLE, 1,
        &dnnHandle);
  b.set(graph, CUDNN_ATTR_OPERATIONGRAPH_OPS, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1,
        &op);
  b.finalize(graph);
  if (b.failed) {
    error = errorMessage(*dnn, b.failed, b.status);
    return false;
  }

  // cuDNN's heuristics (mode A, then the fallback list), in their order:
  // the first engine configuration whose plan finalizes, uses no TF32
  // where the flag forbids it, and whose workspace can be had, as eager
  // PyTorch's cuDNN path with torch.backends.cudnn.benchmark off.
  std::vector<std::pair<cudnnBackendDescriptor_t, size_t>> candidates;
  bool tune = convTuningEnabled();
  // The candidate an earlier process timed for this shape (TuningCache.h):
  // the candidates up to it are made, the choice is not timed again.
  std::vector<int64_t> shape(a.x, a.x + 8);
  shape.insert(shape.end(), a.w, a.w + 4);
  shape.insert(shape.end(), a.y, a.y + 8);
  for (uint64_t ptr : {a.px, a.pw, a.py})
    shape.push_back(std::min<int64_t>(pointerAlignment(ptr), 16));
  shape.insert(shape.end(), conv.stride, conv.stride + 2);
  shape.insert(shape.end(), conv.padding, conv.padding + 2);
  shape.insert(shape.end(), conv.dilation, conv.dilation + 2);
  shape.push_back(conv.groups);
  shape.push_back(conv.tf32);
  if (conv.kind != ConvStep::Forward) // (a forward's key as before)
    shape.push_back(conv.kind);
  std::string device =
      deviceName() + "; cuDNN " + std::to_string(dnn->cudnnGetVersion());
  int recorded = tune ? lookupTuning("cudnn", device, shape) : -1;
  size_t wanted = recorded >= 0 ? size_t(recorded) + 1
                  : tune        ? kConvCandidates
                                : 1;
  for (int heurMode : {CUDNN_HEUR_MODE_A, CUDNN_HEUR_MODE_FALLBACK}) {
    cudnnBackendDescriptor_t heur =
        b.make(CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR);
    b.set(heur, CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH,
          CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &graph);
    b.set(heur, CUDNN_ATTR_ENGINEHEUR_MODE, CUDNN_TYPE_HEUR_MODE, 1,
          &heurMode);
    b.finalize(heur);
    int64_t count = 0;
    if (b.failed || dnn->cudnnBackendGetAttribute(
                        heur, CUDNN_ATTR_ENGINEHEUR_RESULTS,
                        CUDNN_TYPE_BACKEND_DESCRIPTOR, 0, &count, nullptr))
      break;
    std::vector<cudnnBackendDescriptor_t> configs(
        size_t(std::min<int64_t>(std::max<int64_t>(count, 0), 16)));
    for (auto &c : configs)
      c = b.make(CUDNN_BACKEND_ENGINECFG_DESCRIPTOR);
    int64_t got = 0;
    if (b.failed || configs.empty() ||
        dnn->cudnnBackendGetAttribute(
            heur, CUDNN_ATTR_ENGINEHEUR_RESULTS, CUDNN_TYPE_BACKEND_DESCRIPTOR,
            int64_t(configs.size()), &got, configs.data()))
      continue;
    for (int64_t i = 0; i < got && i < int64_t(configs.size()); ++i) {
      cudnnBackendDescriptor_t engine =
          b.make(CUDNN_BACKEND_ENGINE_DESCRIPTOR);
      int64_t n = 0;
      int notes[16] = {};
      int64_t noteCount = 0;
      if (b.failed ||
          dnn->cudnnBackendGetAttribute(configs[size_t(i)],
                                        CUDNN_ATTR_ENGINECFG_ENGINE,
                                        CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &n,
                                        &engine) ||
          dnn->cudnnBackendGetAttribute(engine, CUDNN_ATTR_ENGINE_NUMERICAL_NOTE,
                                        CUDNN_TYPE_NUMERICAL_NOTE, 16,
                                        &noteCount, notes))
        continue;
      bool excluded = false;
      for (int64_t k = 0; k < noteCount && k < 16; ++k)
        excluded |= notes[k] == CUDNN_NUMERICAL_NOTE_DOWN_CONVERT_INPUTS ||
                    (!conv.tf32 && notes[k] == CUDNN_NUMERICAL_NOTE_TENSOR_CORE);
      if (excluded)
        continue;
      cudnnBackendDescriptor_t candidate = nullptr;
      if (dnn->cudnnBackendCreateDescriptor(
              CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR, &candidate))
        continue;
      int64_t workspace = -1;
      bool ok =
          !dnn->cudnnBackendSetAttribute(candidate,
                                         CUDNN_ATTR_EXECUTION_PLAN_HANDLE,
                                         CUDNN_TYPE_HANDLE, 1, &dnnHandle) &&
          !dnn->cudnnBackendSetAttribute(
              candidate, CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG,
              CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &configs[size_t(i)]) &&
          !dnn->cudnnBackendFinalize(candidate) &&
          !dnn->cudnnBackendGetAttribute(
              candidate, CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE,
              CUDNN_TYPE_INT64, 1, &n, &workspace) &&
          workspace >= 0 && size_t(workspace) <= kMaxConvWorkspace &&
          growConvWorkspace(size_t(workspace));
      if (!ok) {
        dnn->cudnnBackendDestroyDescriptor(candidate);
        continue;
      }
      candidates.push_back({candidate, size_t(workspace)});
      if (candidates.size() >= wanted)
        break;
    }
    // The fallback list only where mode A has no plan: timing its engines
    // too made ResNet-18's first call 6 s instead of 0.9 and found nothing
    // faster (eager's 188 us kernel for the 7x7 stem, against the plans'
    // 316, is in neither list's first six).
    if (!candidates.empty())
      break;
  }
  if (candidates.empty()) {
    error = b.failed ? errorMessage(*dnn, b.failed, b.status)
                     : "no cuDNN engine runs this convolution";
    return false;
  }
  // Several: each timed on a scratch output (the step's own may still be
  // read by earlier steps of the call), the fastest kept.
  size_t chosen = 0;
  if (recorded >= 0 && candidates.size() == size_t(recorded) + 1) {
    chosen = size_t(recorded);
    ++stats.convTuningsFromDisk;
  } else if (candidates.size() > 1) {
    int written = writtenTensor(conv.kind);
    int64_t extent = 1;
    if (written == 1) {
      for (int d = 0; d < 4; ++d)
        extent *= a.w[d];
    } else {
      const int64_t *t = written == 0 ? a.x : a.y;
      for (int d = 0; d < 4; ++d)
        extent += (t[d] - 1) * t[4 + d];
    }
    CUdeviceptr scratch = 0;
    if (cu->cuMemAlloc(&scratch, size_t(std::max<int64_t>(extent, 64)) * 4) ==
        CUDA_SUCCESS) {
      uint64_t ptrs[3] = {a.px, a.pw, a.py};
      ptrs[written] = uint64_t(scratch);
      CUresult sync;
      int fastest = fastestCandidate(
          int(candidates.size()), kConvTimedRuns,
          [&](int i) {
            return executeConvPlan(candidates[i].first, ptrs[0], ptrs[1],
                                   ptrs[2]) == nullptr;
          },
          sync);
      // (A failed synchronization keeps the heuristic's first choice; the
      // step's own run reports the device's error.)
      if (fastest >= 0)
        chosen = size_t(fastest);
      cu->cuMemFree(scratch);
      ++stats.convTunings;
      recordTuning("cudnn", device, shape, int(chosen));
    }
  }
  for (size_t i = 0; i < candidates.size(); ++i)
    if (i != chosen)
      dnn->cudnnBackendDestroyDescriptor(candidates[i].first);
  config.owned.push_back(candidates[chosen].first);
  config.plan = candidates[chosen].first;
  config.workspace = candidates[chosen].second;
  return true;
}

const char *GpuFunction::Impl::executeConvPlan(cudnnBackendDescriptor_t plan,
                                               uint64_t x, uint64_t w,
                                               uint64_t y) {
  if (dnn->cudnnSetStream(dnnHandle, stream) != CUDNN_STATUS_SUCCESS)
    return "cudnnSetStream";
  std::vector<cudnnBackendDescriptor_t> owned;
  BackendBuilder b{*dnn, owned};
  int64_t uids[3] = {1, 2, 3};
  void *data[3] = {reinterpret_cast<void *>(x), reinterpret_cast<void *>(w),
                   reinterpret_cast<void *>(y)};
  void *workspace = reinterpret_cast<void *>(convWorkspace);
  cudnnBackendDescriptor_t pack = b.make(CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR);
  b.set(pack, CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS, CUDNN_TYPE_INT64, 3, uids);
  b.set(pack, CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS, CUDNN_TYPE_VOID_PTR, 3,
        data);
  b.set(pack, CUDNN_ATTR_VARIANT_PACK_WORKSPACE, CUDNN_TYPE_VOID_PTR, 1,
        &workspace);
  b.finalize(pack);
  if (!b.failed)
    b.check(dnn->cudnnBackendExecute(dnnHandle, plan, pack),
            "cudnnBackendExecute");
  for (cudnnBackendDescriptor_t d : owned)
    dnn->cudnnBackendDestroyDescriptor(d);
  lastConvStatus = b.status;
  return b.failed;
}

bool GpuFunction::Impl::growConvWorkspace(size_t bytes) {
  if (bytes <= convWorkspaceBytes)
    return true;
  CUdeviceptr grown = 0;
  if (cu->cuMemAlloc(&grown, bytes) != CUDA_SUCCESS)
    return false;
  if (convWorkspace) {
    // Queued work and captured graphs may use the old workspace.
    cu->cuStreamSynchronize(stream);
    destroyGraphs();
    cu->cuMemFree(convWorkspace);
  }
  convWorkspace = grown;
  convWorkspaceBytes = bytes;
  return true;
}

bool GpuFunction::Impl::prepareConv(size_t s, std::string &error) {
  const ConvStep &conv = plan.steps[s].conv;
  ConvArgs &out = convs[s];
  auto where = [&] {
    return plan.function + ": step " + num(int64_t(s)) + " (conv)";
  };
  const KernelParam *params[3] = {&conv.x, &conv.w, &conv.y};
  int64_t *dims[3] = {out.x, out.w, out.y};
  uint64_t *ptrs[3] = {&out.px, &out.pw, &out.py};
  int64_t elements[3] = {1, 1, 1};
  for (int i = 0; i < 3; ++i) {
    const KernelParam &p = *params[i];
    for (int d = 0; d < 4; ++d) {
      int64_t size = values[p.sizes[d]];
      int64_t stride = values[p.strides[d]];
      if (size < 0 || size > INT32_MAX || stride < 0 || stride > INT32_MAX) {
        error = where() + ": size " + num(size) + " or stride " + num(stride) +
                " outside cuDNN's int range";
        return false;
      }
      dims[i][d] = size;
      if (i != 1)
        dims[i][4 + d] = stride;
      if (__builtin_mul_overflow(elements[i], size, &elements[i])) {
        error = where() + ": a tensor of more than 2^63 elements";
        return false;
      }
    }
    int64_t offset = p.offset >= 0 ? values[p.offset] : 0;
    *ptrs[i] = buffers[p.id] + uint64_t(offset) * 4;
  }
  // cuDNN's filter descriptor has no strides: the weight must be packed.
  const KernelParam &w = conv.w;
  int64_t expected = 1;
  for (int d = 3; d >= 0; --d) {
    if (out.w[d] > 1 && values[w.strides[d]] != expected) {
      error = where() + ": the weight is not packed (cuDNN reads an NCHW "
                        "filter)";
      return false;
    }
    expected *= out.w[d];
  }
  // Nothing to write, or (a backward-filter's empty batch) zeros to write:
  // no cuDNN call.
  int written = writtenTensor(conv.kind);
  out.skip = elements[written] == 0;
  out.zero = false;
  bool emptyRead = false;
  for (int i = 0; i < 3; ++i)
    emptyRead |= i != written && elements[i] == 0;
  if (!out.skip && emptyRead) {
    if (conv.kind != ConvStep::BackwardFilter) {
      error = where() + ": an empty input with a non-empty output";
      return false;
    }
    out.zero = true;
    out.zeroElements = elements[1];
  }
  pointers[s] = {out.px, out.pw, out.py};
  for (int i = 0; i < 8; ++i)
    pointers[s].push_back(uint64_t(out.x[i]));
  for (int i = 0; i < 8; ++i)
    pointers[s].push_back(uint64_t(out.y[i]));
  return true;
}

std::vector<int64_t> GpuFunction::Impl::convKey(size_t s) const {
  const ConvArgs &a = convs[s];
  std::vector<int64_t> key{int64_t(s)};
  key.insert(key.end(), a.x, a.x + 8);
  key.insert(key.end(), a.w, a.w + 4);
  key.insert(key.end(), a.y, a.y + 8);
  for (uint64_t ptr : {a.px, a.pw, a.py})
    key.push_back(std::min<int64_t>(pointerAlignment(ptr), 16));
  return key;
}

ConvConfig *GpuFunction::Impl::convConfig(size_t s, bool capturing,
                                          std::string &error) {
  const ConvStep &conv = plan.steps[s].conv;
  const ConvArgs &a = convs[s];
  std::vector<int64_t> key = convKey(s);
  auto found = convConfigs.find(key);
  if (found != convConfigs.end())
    return &found->second;
  if (capturing) {
    error = "conv step " + num(int64_t(s)) +
            " has no cuDNN configuration before the capture";
    return nullptr;
  }
  auto where = [&] { return convWhere(s, a); };
  ConvConfig config;
  // The backend API's plan; the legacy API where no engine builds one.
  if (!legacyConvolutions()) {
    std::string planError;
    if (buildConvPlan(s, config, planError))
      return &(convConfigs[key] = config);
    config.release(*dnn);
    config = ConvConfig();
  }
  auto dnnFail = [&](const char *call, cudnnStatus_t status) -> ConvConfig * {
    error = errorMessage(*dnn, call, status) + where();
    config.release(*dnn);
    return nullptr;
  };
  cudnnStatus_t st;
  if ((st = dnn->cudnnCreateTensorDescriptor(&config.x)) ||
      (st = dnn->cudnnCreateTensorDescriptor(&config.y)) ||
      (st = dnn->cudnnCreateFilterDescriptor(&config.w)) ||
      (st = dnn->cudnnCreateConvolutionDescriptor(&config.conv)))
    return dnnFail("cudnnCreate*Descriptor", st);
  auto i32 = [](int64_t v) { return int(v); };
  if ((st = dnn->cudnnSetTensor4dDescriptorEx(
           config.x, CUDNN_DATA_FLOAT, i32(a.x[0]), i32(a.x[1]), i32(a.x[2]),
           i32(a.x[3]), i32(a.x[4]), i32(a.x[5]), i32(a.x[6]), i32(a.x[7]))))
    return dnnFail("cudnnSetTensor4dDescriptorEx (x)", st);
  if ((st = dnn->cudnnSetTensor4dDescriptorEx(
           config.y, CUDNN_DATA_FLOAT, i32(a.y[0]), i32(a.y[1]), i32(a.y[2]),
           i32(a.y[3]), i32(a.y[4]), i32(a.y[5]), i32(a.y[6]), i32(a.y[7]))))
    return dnnFail("cudnnSetTensor4dDescriptorEx (y)", st);
  if ((st = dnn->cudnnSetFilter4dDescriptor(
           config.w, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, i32(a.w[0]),
           i32(a.w[1]), i32(a.w[2]), i32(a.w[3]))))
    return dnnFail("cudnnSetFilter4dDescriptor", st);
  if ((st = dnn->cudnnSetConvolution2dDescriptor(
           config.conv, i32(conv.padding[0]), i32(conv.padding[1]),
           i32(conv.stride[0]), i32(conv.stride[1]), i32(conv.dilation[0]),
           i32(conv.dilation[1]), CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT)))
    return dnnFail("cudnnSetConvolution2dDescriptor", st);
  if ((st = dnn->cudnnSetConvolutionGroupCount(config.conv,
                                               i32(conv.groups))))
    return dnnFail("cudnnSetConvolutionGroupCount", st);
  // As PyTorch: TF32 allowed (the default math) or plain FMA.
  int math = conv.tf32 ? CUDNN_DEFAULT_MATH : CUDNN_FMA_MATH;
  if ((st = dnn->cudnnSetConvolutionMathType(config.conv, math)))
    return dnnFail("cudnnSetConvolutionMathType", st);
  CudnnFwdAlgoPerf perf[CUDNN_CONVOLUTION_FWD_ALGO_COUNT] = {};
  int count = 0;
  // The backward kinds: cuDNN's heuristic order (no timing here).
  auto workspaceOf = [&](int algo, size_t &bytes) {
    switch (conv.kind) {
    case ConvStep::BackwardData:
      return dnn->cudnnGetConvolutionBackwardDataWorkspaceSize(
          dnnHandle, config.w, config.y, config.conv, config.x, algo, &bytes);
    case ConvStep::BackwardFilter:
      return dnn->cudnnGetConvolutionBackwardFilterWorkspaceSize(
          dnnHandle, config.x, config.y, config.conv, config.w, algo, &bytes);
    case ConvStep::Forward:
      break;
    }
    return dnn->cudnnGetConvolutionForwardWorkspaceSize(
        dnnHandle, config.x, config.w, config.conv, config.y, algo, &bytes);
  };
  if (conv.kind == ConvStep::BackwardData) {
    if ((st = dnn->cudnnGetConvolutionBackwardDataAlgorithm_v7(
             dnnHandle, config.w, config.y, config.conv, config.x,
             CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT, &count, perf)))
      return dnnFail("cudnnGetConvolutionBackwardDataAlgorithm_v7", st);
  } else if (conv.kind == ConvStep::BackwardFilter) {
    if ((st = dnn->cudnnGetConvolutionBackwardFilterAlgorithm_v7(
             dnnHandle, config.x, config.y, config.conv, config.w,
             CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT, &count, perf)))
      return dnnFail("cudnnGetConvolutionBackwardFilterAlgorithm_v7", st);
  } else if (convTuningEnabled()) {
    // Every algorithm timed on this call's buffers (cudnnFind...Ex writes
    // y, which the step then writes again), with the largest workspace any
    // of them asks for within the limit.
    size_t most = 0;
    for (int algo = 0; algo < CUDNN_CONVOLUTION_FWD_ALGO_COUNT; ++algo) {
      size_t bytes = 0;
      if (dnn->cudnnGetConvolutionForwardWorkspaceSize(
              dnnHandle, config.x, config.w, config.conv, config.y, algo,
              &bytes) == CUDNN_STATUS_SUCCESS &&
          bytes <= kMaxConvWorkspace)
        most = std::max(most, bytes);
    }
    if (!growConvWorkspace(most))
      most = convWorkspaceBytes;
    if ((st = dnn->cudnnSetStream(dnnHandle, stream)) ||
        (st = dnn->cudnnFindConvolutionForwardAlgorithmEx(
             dnnHandle, config.x, reinterpret_cast<const void *>(a.px),
             config.w, reinterpret_cast<const void *>(a.pw), config.conv,
             config.y, reinterpret_cast<void *>(a.py),
             CUDNN_CONVOLUTION_FWD_ALGO_COUNT, &count, perf,
             reinterpret_cast<void *>(convWorkspace), most)))
      return dnnFail("cudnnFindConvolutionForwardAlgorithmEx", st);
    ++stats.convTunings;
  } else if ((st = dnn->cudnnGetConvolutionForwardAlgorithm_v7(
                  dnnHandle, config.x, config.w, config.conv, config.y,
                  CUDNN_CONVOLUTION_FWD_ALGO_COUNT, &count, perf))) {
    return dnnFail("cudnnGetConvolutionForwardAlgorithm_v7", st);
  }
  // The first usable answer (fastest timed, or the heuristic's order)
  // whose workspace can be had.
  bool chosen = false;
  for (int i = 0; i < count && !chosen; ++i) {
    if (perf[i].status != CUDNN_STATUS_SUCCESS)
      continue;
    int candidateMath = conv.tf32 ? perf[i].mathType : CUDNN_FMA_MATH;
    if (dnn->cudnnSetConvolutionMathType(config.conv, candidateMath))
      continue;
    size_t bytes = 0;
    if (workspaceOf(perf[i].algo, bytes) != CUDNN_STATUS_SUCCESS ||
        bytes > kMaxConvWorkspace || !growConvWorkspace(bytes))
      continue;
    config.algo = perf[i].algo;
    config.workspace = bytes;
    chosen = true;
  }
  if (!chosen) {
    error = "cuDNN has no algorithm for this convolution" + where();
    config.release(*dnn);
    return nullptr;
  }
  return &(convConfigs[key] = config);
}

bool GpuFunction::Impl::issueConv(size_t s, bool capturing,
                                  std::string &error) {
  const ConvArgs &a = convs[s];
  if (a.skip)
    return true;
  if (a.zero) {
    // An empty batch: the weight's gradient is zeros.
    CUresult r = cu->cuMemsetD32Async(CUdeviceptr(a.pw), 0,
                                      size_t(a.zeroElements), stream);
    if (r != CUDA_SUCCESS) {
      error = "cuMemsetD32Async failed" + convWhere(s, a);
      return false;
    }
    return true;
  }
  const ConvStep &conv = plan.steps[s].conv;
  ConvConfig *config = convConfig(s, capturing, error);
  if (!config)
    return false;
  cudnnStatus_t st = dnn->cudnnSetStream(dnnHandle, stream);
  if (st != CUDNN_STATUS_SUCCESS) {
    error = errorMessage(*dnn, "cudnnSetStream", st) + convWhere(s, a);
    return false;
  }
  if (config->plan) {
    if (const char *failed = executeConvPlan(config->plan, a.px, a.pw, a.py)) {
      error = errorMessage(*dnn, failed, lastConvStatus) + convWhere(s, a);
      return false;
    }
    if (!capturing)
      ++stats.convs;
    return true;
  }
  float one = 1.0f, zero = 0.0f;
  void *x = reinterpret_cast<void *>(a.px), *w = reinterpret_cast<void *>(a.pw),
       *y = reinterpret_cast<void *>(a.py);
  void *workspace = reinterpret_cast<void *>(convWorkspace);
  const char *call = "cudnnConvolutionForward";
  if (conv.kind == ConvStep::BackwardData) {
    call = "cudnnConvolutionBackwardData";
    st = dnn->cudnnConvolutionBackwardData(
        dnnHandle, &one, config->w, w, config->y, y, config->conv, config->algo,
        workspace, config->workspace, &zero, config->x, x);
  } else if (conv.kind == ConvStep::BackwardFilter) {
    call = "cudnnConvolutionBackwardFilter";
    st = dnn->cudnnConvolutionBackwardFilter(
        dnnHandle, &one, config->x, x, config->y, y, config->conv, config->algo,
        workspace, config->workspace, &zero, config->w, w);
  } else {
    st = dnn->cudnnConvolutionForward(dnnHandle, &one, config->x, x, config->w,
                                      w, config->conv, config->algo, workspace,
                                      config->workspace, &zero, config->y, y);
  }
  if (st != CUDNN_STATUS_SUCCESS) {
    error = errorMessage(*dnn, call, st) + convWhere(s, a);
    return false;
  }
  if (!capturing)
    ++stats.convs;
  return true;
}
