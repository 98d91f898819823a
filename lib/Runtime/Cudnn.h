//===- Cudnn.h - cuDNN's symbol table, loaded at run time --------*- C++ -*-===//
//
// The runtime runs a launch plan's `conv` steps with cuDNN's convolution
// API, loaded with dlopen like the driver and cuBLASLt (CudaDriver.h): the
// types and enum values below are copied from cuDNN 9's cudnn_graph.h,
// cudnn_ops.h and cudnn_cnn.h; only what the runtime calls is declared.
// PyTorch ships cuDNN and loads it when it is imported, so in a PyTorch
// process the soname resolves to PyTorch's copy. Private to lib/Runtime.
//
//===----------------------------------------------------------------------===//

#ifndef TGC_LIB_RUNTIME_CUDNN_H
#define TGC_LIB_RUNTIME_CUDNN_H

#include "CudaDriver.h"

#include <cstddef>
#include <string>

namespace tgc::runtime::cuda {

using cudnnStatus_t = int;
using cudnnHandle_t = struct cudnnContext *;
using cudnnTensorDescriptor_t = struct cudnnTensorStruct *;
using cudnnFilterDescriptor_t = struct cudnnFilterStruct *;
using cudnnConvolutionDescriptor_t = struct cudnnConvolutionStruct *;

constexpr cudnnStatus_t CUDNN_STATUS_SUCCESS = 0;
constexpr int CUDNN_DATA_FLOAT = 0;
constexpr int CUDNN_TENSOR_NCHW = 0;
constexpr int CUDNN_CROSS_CORRELATION = 1;
constexpr int CUDNN_DEFAULT_MATH = 0;
constexpr int CUDNN_FMA_MATH = 3;
constexpr int CUDNN_CONVOLUTION_FWD_ALGO_COUNT = 8;

/// cudnnConvolutionFwdAlgoPerf_t.
struct CudnnFwdAlgoPerf {
  int algo;
  cudnnStatus_t status;
  float time;
  size_t memory;
  int determinism;
  int mathType;
  int reserved[3];
};

#define TGC_CUDNN_SYMBOLS(X)                                                   \
  X(cudnnGetVersion, "cudnnGetVersion", size_t, ())                            \
  X(cudnnGetErrorString, "cudnnGetErrorString", const char *, (cudnnStatus_t)) \
  X(cudnnCreate, "cudnnCreate", cudnnStatus_t, (cudnnHandle_t *))              \
  X(cudnnDestroy, "cudnnDestroy", cudnnStatus_t, (cudnnHandle_t))              \
  X(cudnnSetStream, "cudnnSetStream", cudnnStatus_t, (cudnnHandle_t, CUstream)) \
  X(cudnnCreateTensorDescriptor, "cudnnCreateTensorDescriptor", cudnnStatus_t, \
    (cudnnTensorDescriptor_t *))                                               \
  X(cudnnDestroyTensorDescriptor, "cudnnDestroyTensorDescriptor",              \
    cudnnStatus_t, (cudnnTensorDescriptor_t))                                  \
  X(cudnnSetTensor4dDescriptorEx, "cudnnSetTensor4dDescriptorEx",              \
    cudnnStatus_t,                                                             \
    (cudnnTensorDescriptor_t, int, int, int, int, int, int, int, int, int))    \
  X(cudnnCreateFilterDescriptor, "cudnnCreateFilterDescriptor", cudnnStatus_t, \
    (cudnnFilterDescriptor_t *))                                               \
  X(cudnnDestroyFilterDescriptor, "cudnnDestroyFilterDescriptor",              \
    cudnnStatus_t, (cudnnFilterDescriptor_t))                                  \
  X(cudnnSetFilter4dDescriptor, "cudnnSetFilter4dDescriptor", cudnnStatus_t,   \
    (cudnnFilterDescriptor_t, int, int, int, int, int, int))                   \
  X(cudnnCreateConvolutionDescriptor, "cudnnCreateConvolutionDescriptor",      \
    cudnnStatus_t, (cudnnConvolutionDescriptor_t *))                           \
  X(cudnnDestroyConvolutionDescriptor, "cudnnDestroyConvolutionDescriptor",    \
    cudnnStatus_t, (cudnnConvolutionDescriptor_t))                             \
  X(cudnnSetConvolution2dDescriptor, "cudnnSetConvolution2dDescriptor",        \
    cudnnStatus_t,                                                             \
    (cudnnConvolutionDescriptor_t, int, int, int, int, int, int, int, int))    \
  X(cudnnSetConvolutionGroupCount, "cudnnSetConvolutionGroupCount",            \
    cudnnStatus_t, (cudnnConvolutionDescriptor_t, int))                        \
  X(cudnnSetConvolutionMathType, "cudnnSetConvolutionMathType", cudnnStatus_t, \
    (cudnnConvolutionDescriptor_t, int))                                       \
  X(cudnnGetConvolutionForwardAlgorithm_v7,                                    \
    "cudnnGetConvolutionForwardAlgorithm_v7", cudnnStatus_t,                   \
    (cudnnHandle_t, cudnnTensorDescriptor_t, cudnnFilterDescriptor_t,          \
     cudnnConvolutionDescriptor_t, cudnnTensorDescriptor_t, int, int *,        \
     CudnnFwdAlgoPerf *))                                                      \
  X(cudnnGetConvolutionForwardWorkspaceSize,                                   \
    "cudnnGetConvolutionForwardWorkspaceSize", cudnnStatus_t,                  \
    (cudnnHandle_t, cudnnTensorDescriptor_t, cudnnFilterDescriptor_t,          \
     cudnnConvolutionDescriptor_t, cudnnTensorDescriptor_t, int, size_t *))    \
  X(cudnnConvolutionForward, "cudnnConvolutionForward", cudnnStatus_t,         \
    (cudnnHandle_t, const void *, cudnnTensorDescriptor_t, const void *,       \
     cudnnFilterDescriptor_t, const void *, cudnnConvolutionDescriptor_t, int, \
     void *, size_t, const void *, cudnnTensorDescriptor_t, void *))

struct Cudnn {
#define TGC_CUDA_FIELD(field, symbol, ret, params) ret(*field) params = nullptr;
  TGC_CUDNN_SYMBOLS(TGC_CUDA_FIELD)
#undef TGC_CUDA_FIELD
  std::string library; // the soname that was loaded
};

/// Loads cuDNN (libcudnn.so.9, then libcudnn.so; once). Returns nullptr
/// and a message otherwise. Thread-safe.
const Cudnn *cudnn(std::string &error);

/// "cudnnConvolutionForward failed: CUDNN_STATUS_BAD_PARAM (...)".
std::string errorMessage(const Cudnn &dnn, const char *call,
                         cudnnStatus_t status);

} // namespace tgc::runtime::cuda

#endif // TGC_LIB_RUNTIME_CUDNN_H
