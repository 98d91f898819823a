//===- GpuConv.cpp - cuDNN convolution steps of a launch plan -------------===//
//
// GpuFunction::Impl's `conv` steps: this call's sizes and pointers, the
// cuDNN descriptors and algorithm of a shape (cuDNN's heuristic, as eager
// PyTorch with torch.backends.cudnn.benchmark off), one workspace shared by
// every step, and issuing cudnnConvolutionForward on the function's stream
// (docs/gpu-runtime.md, "Convolution steps").
//
//===----------------------------------------------------------------------===//

#include "GpuFunctionImpl.h"

#include <climits>

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

/// The largest workspace a convolution may take (cuDNN's faster algorithms
/// for large inputs ask for more; a smaller candidate is taken instead).
constexpr size_t kMaxConvWorkspace = size_t(1) << 30;
} // namespace

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
      elements[i] *= size;
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
  out.skip = elements[2] == 0;
  if (!out.skip && elements[0] == 0) {
    error = where() + ": an empty input with a non-empty output";
    return false;
  }
  pointers[s] = {out.px, out.pw, out.py};
  for (int i = 0; i < 8; ++i)
    pointers[s].push_back(uint64_t(out.x[i]));
  for (int i = 0; i < 8; ++i)
    pointers[s].push_back(uint64_t(out.y[i]));
  return true;
}

ConvConfig *GpuFunction::Impl::convConfig(size_t s, bool capturing,
                                          std::string &error) {
  const ConvStep &conv = plan.steps[s].conv;
  const ConvArgs &a = convs[s];
  std::vector<int64_t> key{int64_t(s)};
  key.insert(key.end(), a.x, a.x + 8);
  key.insert(key.end(), a.w, a.w + 4);
  key.insert(key.end(), a.y, a.y + 8);
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
  if ((st = dnn->cudnnGetConvolutionForwardAlgorithm_v7(
           dnnHandle, config.x, config.w, config.conv, config.y,
           CUDNN_CONVOLUTION_FWD_ALGO_COUNT, &count, perf)))
    return dnnFail("cudnnGetConvolutionForwardAlgorithm_v7", st);
  // The heuristic's first usable answer whose workspace can be had.
  bool chosen = false;
  for (int i = 0; i < count && !chosen; ++i) {
    if (perf[i].status != CUDNN_STATUS_SUCCESS)
      continue;
    int candidateMath = conv.tf32 ? perf[i].mathType : CUDNN_FMA_MATH;
    if (dnn->cudnnSetConvolutionMathType(config.conv, candidateMath))
      continue;
    size_t bytes = 0;
    if (dnn->cudnnGetConvolutionForwardWorkspaceSize(
            dnnHandle, config.x, config.w, config.conv, config.y,
            perf[i].algo, &bytes) != CUDNN_STATUS_SUCCESS ||
        bytes > kMaxConvWorkspace)
      continue;
    if (bytes > convWorkspaceBytes) {
      // Graphs and queued work may hold the old workspace.
      CUdeviceptr grown = 0;
      if (cu->cuMemAlloc(&grown, bytes) != CUDA_SUCCESS)
        continue;
      if (convWorkspace) {
        cu->cuStreamSynchronize(stream);
        destroyGraphs();
        cu->cuMemFree(convWorkspace);
      }
      convWorkspace = grown;
      convWorkspaceBytes = bytes;
    }
    config.algo = perf[i].algo;
    config.workspace = bytes;
    chosen = true;
  }
  if (!chosen) {
    error = "cuDNN has no forward algorithm for this convolution" + where();
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
  ConvConfig *config = convConfig(s, capturing, error);
  if (!config)
    return false;
  cudnnStatus_t st = dnn->cudnnSetStream(dnnHandle, stream);
  if (st != CUDNN_STATUS_SUCCESS) {
    error = errorMessage(*dnn, "cudnnSetStream", st) + convWhere(s, a);
    return false;
  }
  float one = 1.0f, zero = 0.0f;
  st = dnn->cudnnConvolutionForward(
      dnnHandle, &one, config->x, reinterpret_cast<const void *>(a.px),
      config->w, reinterpret_cast<const void *>(a.pw), config->conv,
      config->algo, reinterpret_cast<void *>(convWorkspace),
      config->workspace, &zero, config->y, reinterpret_cast<void *>(a.py));
  if (st != CUDNN_STATUS_SUCCESS) {
    error = errorMessage(*dnn, "cudnnConvolutionForward", st) +
            convWhere(s, a);
    return false;
  }
  if (!capturing)
    ++stats.convs;
  return true;
}
