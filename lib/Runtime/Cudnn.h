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
#include <cstdint>
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
constexpr int CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT = 6;
constexpr int CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT = 7;

// The backend (graph) API, cudnn_graph.h: descriptor types, attribute
// types and names.
using cudnnBackendDescriptor_t = void *;
constexpr int CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR = 1;
constexpr int CUDNN_BACKEND_ENGINE_DESCRIPTOR = 2;
constexpr int CUDNN_BACKEND_ENGINECFG_DESCRIPTOR = 3;
constexpr int CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR = 4;
constexpr int CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR = 5;
constexpr int CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR = 10;
constexpr int CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_FILTER_DESCRIPTOR =
    11;
constexpr int CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_DATA_DESCRIPTOR = 12;
constexpr int CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR = 15;
constexpr int CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR = 16;
constexpr int CUDNN_BACKEND_TENSOR_DESCRIPTOR = 17;
constexpr int CUDNN_TYPE_HANDLE = 0;
constexpr int CUDNN_TYPE_DATA_TYPE = 1;
constexpr int CUDNN_TYPE_INT64 = 3;
constexpr int CUDNN_TYPE_FLOAT = 4;
constexpr int CUDNN_TYPE_VOID_PTR = 6;
constexpr int CUDNN_TYPE_CONVOLUTION_MODE = 7;
constexpr int CUDNN_TYPE_HEUR_MODE = 8;
constexpr int CUDNN_TYPE_NUMERICAL_NOTE = 11;
constexpr int CUDNN_TYPE_BACKEND_DESCRIPTOR = 15;
constexpr int CUDNN_ATTR_CONVOLUTION_COMP_TYPE = 100;
constexpr int CUDNN_ATTR_CONVOLUTION_CONV_MODE = 101;
constexpr int CUDNN_ATTR_CONVOLUTION_DILATIONS = 102;
constexpr int CUDNN_ATTR_CONVOLUTION_FILTER_STRIDES = 103;
constexpr int CUDNN_ATTR_CONVOLUTION_POST_PADDINGS = 104;
constexpr int CUDNN_ATTR_CONVOLUTION_PRE_PADDINGS = 105;
constexpr int CUDNN_ATTR_CONVOLUTION_SPATIAL_DIMS = 106;
constexpr int CUDNN_ATTR_ENGINEHEUR_MODE = 200;
constexpr int CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH = 201;
constexpr int CUDNN_ATTR_ENGINEHEUR_RESULTS = 202;
constexpr int CUDNN_ATTR_ENGINECFG_ENGINE = 300;
constexpr int CUDNN_ATTR_EXECUTION_PLAN_HANDLE = 400;
constexpr int CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG = 401;
constexpr int CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE = 402;
constexpr int CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_ALPHA = 700;
constexpr int CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_BETA = 701;
constexpr int CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_CONV_DESC = 702;
constexpr int CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_W = 703;
constexpr int CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_X = 704;
constexpr int CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_Y = 705;
constexpr int CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_ALPHA = 706;
constexpr int CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_BETA = 707;
constexpr int CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_CONV_DESC = 708;
constexpr int CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_W = 709;
constexpr int CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DX = 710;
constexpr int CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DY = 711;
constexpr int CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_ALPHA = 712;
constexpr int CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_BETA = 713;
constexpr int CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_CONV_DESC = 714;
constexpr int CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_DW = 715;
constexpr int CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_X = 716;
constexpr int CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_DY = 717;
constexpr int CUDNN_ATTR_OPERATIONGRAPH_HANDLE = 800;
constexpr int CUDNN_ATTR_OPERATIONGRAPH_OPS = 801;
constexpr int CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT = 900;
constexpr int CUDNN_ATTR_TENSOR_DATA_TYPE = 901;
constexpr int CUDNN_ATTR_TENSOR_DIMENSIONS = 902;
constexpr int CUDNN_ATTR_TENSOR_STRIDES = 903;
constexpr int CUDNN_ATTR_TENSOR_UNIQUE_ID = 906;
constexpr int CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS = 1000;
constexpr int CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS = 1001;
constexpr int CUDNN_ATTR_VARIANT_PACK_WORKSPACE = 1003;
constexpr int CUDNN_ATTR_ENGINE_NUMERICAL_NOTE = 1303;
constexpr int CUDNN_HEUR_MODE_FALLBACK = 2;
constexpr int CUDNN_HEUR_MODE_A = 3;
constexpr int CUDNN_NUMERICAL_NOTE_TENSOR_CORE = 0;
constexpr int CUDNN_NUMERICAL_NOTE_DOWN_CONVERT_INPUTS = 1;

/// cudnnConvolutionFwdAlgoPerf_t (the backward-data and backward-filter
/// perf structs have the same layout).
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
  X(cudnnSetStream, "cudnnSetStream", cudnnStatus_t,                           \
    (cudnnHandle_t, CUstream))                                                 \
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
  X(cudnnFindConvolutionForwardAlgorithmEx,                                    \
    "cudnnFindConvolutionForwardAlgorithmEx", cudnnStatus_t,                   \
    (cudnnHandle_t, cudnnTensorDescriptor_t, const void *,                     \
     cudnnFilterDescriptor_t, const void *, cudnnConvolutionDescriptor_t,      \
     cudnnTensorDescriptor_t, void *, int, int *, CudnnFwdAlgoPerf *, void *,  \
     size_t))                                                                  \
  X(cudnnGetConvolutionForwardWorkspaceSize,                                   \
    "cudnnGetConvolutionForwardWorkspaceSize", cudnnStatus_t,                  \
    (cudnnHandle_t, cudnnTensorDescriptor_t, cudnnFilterDescriptor_t,          \
     cudnnConvolutionDescriptor_t, cudnnTensorDescriptor_t, int, size_t *))    \
  X(cudnnConvolutionForward, "cudnnConvolutionForward", cudnnStatus_t,         \
    (cudnnHandle_t, const void *, cudnnTensorDescriptor_t, const void *,       \
     cudnnFilterDescriptor_t, const void *, cudnnConvolutionDescriptor_t, int, \
     void *, size_t, const void *, cudnnTensorDescriptor_t, void *))           \
  X(cudnnGetConvolutionBackwardDataAlgorithm_v7,                               \
    "cudnnGetConvolutionBackwardDataAlgorithm_v7", cudnnStatus_t,              \
    (cudnnHandle_t, cudnnFilterDescriptor_t, cudnnTensorDescriptor_t,          \
     cudnnConvolutionDescriptor_t, cudnnTensorDescriptor_t, int, int *,        \
     CudnnFwdAlgoPerf *))                                                      \
  X(cudnnGetConvolutionBackwardDataWorkspaceSize,                              \
    "cudnnGetConvolutionBackwardDataWorkspaceSize", cudnnStatus_t,             \
    (cudnnHandle_t, cudnnFilterDescriptor_t, cudnnTensorDescriptor_t,          \
     cudnnConvolutionDescriptor_t, cudnnTensorDescriptor_t, int, size_t *))    \
  X(cudnnConvolutionBackwardData, "cudnnConvolutionBackwardData",              \
    cudnnStatus_t,                                                             \
    (cudnnHandle_t, const void *, cudnnFilterDescriptor_t, const void *,       \
     cudnnTensorDescriptor_t, const void *, cudnnConvolutionDescriptor_t, int, \
     void *, size_t, const void *, cudnnTensorDescriptor_t, void *))           \
  X(cudnnGetConvolutionBackwardFilterAlgorithm_v7,                             \
    "cudnnGetConvolutionBackwardFilterAlgorithm_v7", cudnnStatus_t,            \
    (cudnnHandle_t, cudnnTensorDescriptor_t, cudnnTensorDescriptor_t,          \
     cudnnConvolutionDescriptor_t, cudnnFilterDescriptor_t, int, int *,        \
     CudnnFwdAlgoPerf *))                                                      \
  X(cudnnGetConvolutionBackwardFilterWorkspaceSize,                            \
    "cudnnGetConvolutionBackwardFilterWorkspaceSize", cudnnStatus_t,           \
    (cudnnHandle_t, cudnnTensorDescriptor_t, cudnnTensorDescriptor_t,          \
     cudnnConvolutionDescriptor_t, cudnnFilterDescriptor_t, int, size_t *))    \
  X(cudnnConvolutionBackwardFilter, "cudnnConvolutionBackwardFilter",          \
    cudnnStatus_t,                                                             \
    (cudnnHandle_t, const void *, cudnnTensorDescriptor_t, const void *,       \
     cudnnTensorDescriptor_t, const void *, cudnnConvolutionDescriptor_t, int, \
     void *, size_t, const void *, cudnnFilterDescriptor_t, void *))           \
  X(cudnnBackendCreateDescriptor, "cudnnBackendCreateDescriptor",              \
    cudnnStatus_t, (int, cudnnBackendDescriptor_t *))                          \
  X(cudnnBackendDestroyDescriptor, "cudnnBackendDestroyDescriptor",            \
    cudnnStatus_t, (cudnnBackendDescriptor_t))                                 \
  X(cudnnBackendFinalize, "cudnnBackendFinalize", cudnnStatus_t,               \
    (cudnnBackendDescriptor_t))                                                \
  X(cudnnBackendSetAttribute, "cudnnBackendSetAttribute", cudnnStatus_t,       \
    (cudnnBackendDescriptor_t, int, int, int64_t, const void *))               \
  X(cudnnBackendGetAttribute, "cudnnBackendGetAttribute", cudnnStatus_t,       \
    (cudnnBackendDescriptor_t, int, int, int64_t, int64_t *, void *))          \
  X(cudnnBackendExecute, "cudnnBackendExecute", cudnnStatus_t,                 \
    (cudnnHandle_t, cudnnBackendDescriptor_t, cudnnBackendDescriptor_t))

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
