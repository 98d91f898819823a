//===- CudaDriver.h - CUDA driver and cuBLASLt symbol tables ----*- C++ -*-===//
//
// The runtime loads libcuda.so.1 and libcublasLt.so.{13,12} with dlopen and
// resolves the entry points it uses into tables of function pointers, as
// IREE's CUDA HAL does: nothing here needs the CUDA headers, so the runtime
// builds and its CPU parts run where CUDA is not installed. The types,
// enums and structs below are copied from cuda.h / cublasLt.h (CUDA 12 and
// 13 share them); only what the runtime calls is declared. Private to
// lib/Runtime.
//
//===----------------------------------------------------------------------===//

#ifndef TGC_LIB_RUNTIME_CUDADRIVER_H
#define TGC_LIB_RUNTIME_CUDADRIVER_H

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <mutex>
#include <string>

namespace tgc::runtime::cuda {

//===----------------------------------------------------------------------===//
// Driver API types (cuda.h)
//===----------------------------------------------------------------------===//

using CUresult = int;
using CUdevice = int;
using CUdeviceptr = unsigned long long;
using CUcontext = struct CUctx_st *;
using CUmodule = struct CUmod_st *;
using CUfunction = struct CUfunc_st *;
using CUkernel = struct CUkern_st *;
using CUstream = struct CUstream_st *;
using CUgraph = struct CUgraph_st *;
using CUgraphExec = struct CUgraphExec_st *;
using CUgraphNode = struct CUgraphNode_st *;
using CUevent = struct CUevent_st *;

constexpr CUresult CUDA_SUCCESS = 0;
constexpr CUresult CUDA_ERROR_OUT_OF_MEMORY = 2;
constexpr CUresult CUDA_ERROR_ASSERT = 710;
constexpr unsigned CU_STREAM_NON_BLOCKING = 0x1;
constexpr unsigned CU_EVENT_DISABLE_TIMING = 0x2;
constexpr int CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 16;
constexpr int CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75;
constexpr int CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76;
constexpr int CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE = 36; // kHz
constexpr int CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH = 37; // bits
constexpr int CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8;
constexpr int CU_JIT_INFO_LOG_BUFFER = 3;
constexpr int CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES = 4;
constexpr int CU_JIT_ERROR_LOG_BUFFER = 5;
constexpr int CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6;
constexpr int CU_GRAPH_NODE_TYPE_KERNEL = 0;
constexpr int CU_STREAM_CAPTURE_MODE_RELAXED = 2;

/// CUDA_KERNEL_NODE_PARAMS_v2 (the CUDA_KERNEL_NODE_PARAMS of CUDA 12 and
/// 13), used with the `_v2` graph entry points only.
struct KernelNodeParams {
  CUfunction func;
  unsigned int gridDimX;
  unsigned int gridDimY;
  unsigned int gridDimZ;
  unsigned int blockDimX;
  unsigned int blockDimY;
  unsigned int blockDimZ;
  unsigned int sharedMemBytes;
  void **kernelParams;
  void **extra;
  CUkernel kern;
  CUcontext ctx;
};
static_assert(sizeof(KernelNodeParams) == 72, "CUDA_KERNEL_NODE_PARAMS_v2");

// X(field, symbol, return type, parameters). The field is the API name the
// messages use; the symbol is the versioned entry point cuda.h maps it to.
#define TGC_CUDA_DRIVER_CORE(X)                                                \
  X(cuGetErrorName, "cuGetErrorName", CUresult, (CUresult, const char **))     \
  X(cuGetErrorString, "cuGetErrorString", CUresult, (CUresult, const char **)) \
  X(cuInit, "cuInit", CUresult, (unsigned int))                                \
  X(cuDriverGetVersion, "cuDriverGetVersion", CUresult, (int *))               \
  X(cuDeviceGetCount, "cuDeviceGetCount", CUresult, (int *))                   \
  X(cuDeviceGet, "cuDeviceGet", CUresult, (CUdevice *, int))                   \
  X(cuDeviceGetName, "cuDeviceGetName", CUresult, (char *, int, CUdevice))     \
  X(cuDeviceGetAttribute, "cuDeviceGetAttribute", CUresult,                    \
    (int *, int, CUdevice))                                                    \
  X(cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain", CUresult,            \
    (CUcontext *, CUdevice))                                                   \
  X(cuCtxSetCurrent, "cuCtxSetCurrent", CUresult, (CUcontext))                 \
  X(cuCtxSynchronize, "cuCtxSynchronize", CUresult, ())                        \
  X(cuMemAlloc, "cuMemAlloc_v2", CUresult, (CUdeviceptr *, size_t))            \
  X(cuMemFree, "cuMemFree_v2", CUresult, (CUdeviceptr))                        \
  X(cuMemcpyHtoD, "cuMemcpyHtoD_v2", CUresult,                                 \
    (CUdeviceptr, const void *, size_t))                                       \
  X(cuMemcpyDtoH, "cuMemcpyDtoH_v2", CUresult, (void *, CUdeviceptr, size_t))  \
  X(cuMemcpyDtoHAsync, "cuMemcpyDtoHAsync_v2", CUresult,                       \
    (void *, CUdeviceptr, size_t, CUstream))                                   \
  X(cuMemAllocHost, "cuMemAllocHost_v2", CUresult, (void **, size_t))          \
  X(cuMemFreeHost, "cuMemFreeHost", CUresult, (void *))                        \
  X(cuMemcpyDtoDAsync, "cuMemcpyDtoDAsync_v2", CUresult,                       \
    (CUdeviceptr, CUdeviceptr, size_t, CUstream))                              \
  X(cuMemsetD32Async, "cuMemsetD32Async", CUresult,                            \
    (CUdeviceptr, unsigned int, size_t, CUstream))                             \
  X(cuModuleLoadData, "cuModuleLoadData", CUresult,                            \
    (CUmodule *, const void *))                                                \
  X(cuModuleLoadDataEx, "cuModuleLoadDataEx", CUresult,                        \
    (CUmodule *, const void *, unsigned int, int *, void **))                  \
  X(cuModuleUnload, "cuModuleUnload", CUresult, (CUmodule))                    \
  X(cuModuleGetFunction, "cuModuleGetFunction", CUresult,                      \
    (CUfunction *, CUmodule, const char *))                                    \
  X(cuModuleGetGlobal, "cuModuleGetGlobal_v2", CUresult,                       \
    (CUdeviceptr *, size_t *, CUmodule, const char *))                         \
  X(cuFuncSetAttribute, "cuFuncSetAttribute", CUresult,                        \
    (CUfunction, int, int))                                                    \
  X(cuStreamCreate, "cuStreamCreate", CUresult, (CUstream *, unsigned int))    \
  X(cuStreamDestroy, "cuStreamDestroy_v2", CUresult, (CUstream))               \
  X(cuStreamSynchronize, "cuStreamSynchronize", CUresult, (CUstream))          \
  X(cuStreamWaitEvent, "cuStreamWaitEvent", CUresult,                          \
    (CUstream, CUevent, unsigned int))                                         \
  X(cuStreamIsCapturing, "cuStreamIsCapturing", CUresult, (CUstream, int *))  \
  X(cuEventCreate, "cuEventCreate", CUresult, (CUevent *, unsigned int))       \
  X(cuEventRecord, "cuEventRecord", CUresult, (CUevent, CUstream))             \
  X(cuEventElapsedTime, "cuEventElapsedTime", CUresult,                        \
    (float *, CUevent, CUevent))                                               \
  X(cuEventDestroy, "cuEventDestroy_v2", CUresult, (CUevent))                  \
  X(cuLaunchKernel, "cuLaunchKernel", CUresult,                                \
    (CUfunction, unsigned int, unsigned int, unsigned int, unsigned int,       \
     unsigned int, unsigned int, unsigned int, CUstream, void **, void **))

// Optional: without them (a driver older than CUDA 12), runs do not use
// graphs and say why.
#define TGC_CUDA_DRIVER_GRAPH(X)                                               \
  X(cuStreamBeginCapture, "cuStreamBeginCapture_v2", CUresult,                 \
    (CUstream, int))                                                           \
  X(cuStreamEndCapture, "cuStreamEndCapture", CUresult, (CUstream, CUgraph *)) \
  X(cuGraphCreate, "cuGraphCreate", CUresult, (CUgraph *, unsigned int))       \
  X(cuGraphAddKernelNode, "cuGraphAddKernelNode_v2", CUresult,                 \
    (CUgraphNode *, CUgraph, const CUgraphNode *, size_t,                      \
     const KernelNodeParams *))                                                \
  X(cuGraphGetNodes, "cuGraphGetNodes", CUresult,                              \
    (CUgraph, CUgraphNode *, size_t *))                                        \
  X(cuGraphNodeGetType, "cuGraphNodeGetType", CUresult, (CUgraphNode, int *))  \
  X(cuGraphKernelNodeGetParams, "cuGraphKernelNodeGetParams_v2", CUresult,     \
    (CUgraphNode, KernelNodeParams *))                                         \
  X(cuGraphInstantiate, "cuGraphInstantiateWithFlags", CUresult,               \
    (CUgraphExec *, CUgraph, unsigned long long))                              \
  X(cuGraphExecKernelNodeSetParams, "cuGraphExecKernelNodeSetParams_v2",       \
    CUresult, (CUgraphExec, CUgraphNode, const KernelNodeParams *))            \
  X(cuGraphLaunch, "cuGraphLaunch", CUresult, (CUgraphExec, CUstream))         \
  X(cuGraphExecDestroy, "cuGraphExecDestroy", CUresult, (CUgraphExec))         \
  X(cuGraphDestroy, "cuGraphDestroy", CUresult, (CUgraph))

struct Driver {
#define TGC_CUDA_FIELD(field, symbol, ret, params) ret(*field) params = nullptr;
  TGC_CUDA_DRIVER_CORE(TGC_CUDA_FIELD)
  TGC_CUDA_DRIVER_GRAPH(TGC_CUDA_FIELD)
#undef TGC_CUDA_FIELD
  /// Every graph entry point was found; else `graphError` says which not.
  bool hasGraphs = false;
  std::string graphError;
  /// Device 0 and its primary context, once initialized.
  CUdevice device = 0;
  CUcontext context = nullptr;
};

/// Loads libcuda.so.1 (once; the result, success or failure, is kept),
/// initializes the driver and retains device 0's primary context, and makes
/// it current on the calling thread. Returns nullptr and a message naming
/// libcuda.so.1 and the failed step otherwise. Thread-safe.
const Driver *driver(std::string &error);

/// "cuLaunchKernel failed: CUDA_ERROR_INVALID_VALUE (invalid argument)".
std::string errorMessage(const Driver &driver, const char *call,
                         CUresult result);

//===----------------------------------------------------------------------===//
// cuBLASLt (cublasLt.h, library_types.h, cublas_api.h)
//===----------------------------------------------------------------------===//

using cublasStatus_t = int;
using cublasLtHandle_t = struct cublasLtContext *;
using cublasLtMatmulDesc_t = struct cublasLtMatmulDescOpaque_st *;
using cublasLtMatrixLayout_t = struct cublasLtMatrixLayoutOpaque_st *;
using cublasLtMatmulPreference_t = struct cublasLtMatmulPreferenceOpaque_st *;

struct cublasLtMatmulAlgo_t {
  uint64_t data[8];
};

struct cublasLtMatmulHeuristicResult_t {
  cublasLtMatmulAlgo_t algo;
  size_t workspaceSize;
  cublasStatus_t state;
  float wavesCount;
  int reserved[4];
};
static_assert(sizeof(cublasLtMatmulHeuristicResult_t) == 96,
              "cublasLtMatmulHeuristicResult_t");

constexpr cublasStatus_t CUBLAS_STATUS_SUCCESS = 0;
// cudaDataType_t
constexpr int CUDA_R_32F = 0;
constexpr int CUDA_R_64F = 1;
constexpr int CUDA_R_16F = 2;
constexpr int CUDA_R_16BF = 14;
// cublasComputeType_t
constexpr int CUBLAS_COMPUTE_32F = 68;
constexpr int CUBLAS_COMPUTE_64F = 70;
constexpr int CUBLAS_COMPUTE_32F_FAST_TF32 = 77;
// cublasOperation_t
constexpr int32_t CUBLAS_OP_N = 0;
constexpr int32_t CUBLAS_OP_T = 1;
// cublasLtMatmulDescAttributes_t
constexpr int CUBLASLT_MATMUL_DESC_TRANSA = 3;
constexpr int CUBLASLT_MATMUL_DESC_TRANSB = 4;
constexpr int CUBLASLT_MATMUL_DESC_EPILOGUE = 7;
constexpr int CUBLASLT_MATMUL_DESC_BIAS_POINTER = 8;
constexpr int CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE = 26;
// cublasLtEpilogue_t
constexpr uint32_t CUBLASLT_EPILOGUE_DEFAULT = 1;
constexpr uint32_t CUBLASLT_EPILOGUE_RELU = 2;
constexpr uint32_t CUBLASLT_EPILOGUE_BIAS = 4;
constexpr uint32_t CUBLASLT_EPILOGUE_RELU_BIAS = 6;
constexpr uint32_t CUBLASLT_EPILOGUE_GELU = 32;
constexpr uint32_t CUBLASLT_EPILOGUE_GELU_BIAS = 36;
// cublasLtMatrixLayoutAttribute_t
constexpr int CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT = 5;          // int32_t
constexpr int CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET = 6; // int64_t
// cublasLtMatmulPreferenceAttributes_t
constexpr int CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES = 1;   // uint64_t
constexpr int CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES = 5; // uint32_t
constexpr int CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES = 6;
constexpr int CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES = 7;
constexpr int CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES = 8;

#define TGC_CUBLASLT_SYMBOLS(X)                                                \
  X(cublasLtGetVersion, "cublasLtGetVersion", size_t, ())                      \
  X(cublasLtGetStatusName, "cublasLtGetStatusName", const char *,              \
    (cublasStatus_t))                                                          \
  X(cublasLtGetStatusString, "cublasLtGetStatusString", const char *,          \
    (cublasStatus_t))                                                          \
  X(cublasLtCreate, "cublasLtCreate", cublasStatus_t, (cublasLtHandle_t *))    \
  X(cublasLtDestroy, "cublasLtDestroy", cublasStatus_t, (cublasLtHandle_t))    \
  X(cublasLtMatmulDescCreate, "cublasLtMatmulDescCreate", cublasStatus_t,      \
    (cublasLtMatmulDesc_t *, int, int))                                        \
  X(cublasLtMatmulDescDestroy, "cublasLtMatmulDescDestroy", cublasStatus_t,    \
    (cublasLtMatmulDesc_t))                                                    \
  X(cublasLtMatmulDescSetAttribute, "cublasLtMatmulDescSetAttribute",          \
    cublasStatus_t, (cublasLtMatmulDesc_t, int, const void *, size_t))         \
  X(cublasLtMatrixLayoutCreate, "cublasLtMatrixLayoutCreate", cublasStatus_t,  \
    (cublasLtMatrixLayout_t *, int, uint64_t, uint64_t, int64_t))              \
  X(cublasLtMatrixLayoutDestroy, "cublasLtMatrixLayoutDestroy",                \
    cublasStatus_t, (cublasLtMatrixLayout_t))                                  \
  X(cublasLtMatrixLayoutSetAttribute, "cublasLtMatrixLayoutSetAttribute",      \
    cublasStatus_t, (cublasLtMatrixLayout_t, int, const void *, size_t))       \
  X(cublasLtMatmulPreferenceCreate, "cublasLtMatmulPreferenceCreate",          \
    cublasStatus_t, (cublasLtMatmulPreference_t *))                            \
  X(cublasLtMatmulPreferenceDestroy, "cublasLtMatmulPreferenceDestroy",        \
    cublasStatus_t, (cublasLtMatmulPreference_t))                              \
  X(cublasLtMatmulPreferenceSetAttribute,                                      \
    "cublasLtMatmulPreferenceSetAttribute", cublasStatus_t,                    \
    (cublasLtMatmulPreference_t, int, const void *, size_t))                   \
  X(cublasLtMatmulAlgoGetHeuristic, "cublasLtMatmulAlgoGetHeuristic",          \
    cublasStatus_t,                                                            \
    (cublasLtHandle_t, cublasLtMatmulDesc_t, cublasLtMatrixLayout_t,           \
     cublasLtMatrixLayout_t, cublasLtMatrixLayout_t, cublasLtMatrixLayout_t,   \
     cublasLtMatmulPreference_t, int, cublasLtMatmulHeuristicResult_t *,       \
     int *))                                                                   \
  X(cublasLtMatmul, "cublasLtMatmul", cublasStatus_t,                          \
    (cublasLtHandle_t, cublasLtMatmulDesc_t, const void *, const void *,       \
     cublasLtMatrixLayout_t, const void *, cublasLtMatrixLayout_t,             \
     const void *, const void *, cublasLtMatrixLayout_t, void *,               \
     cublasLtMatrixLayout_t, const cublasLtMatmulAlgo_t *, void *, size_t,     \
     CUstream))

struct CublasLt {
#define TGC_CUDA_FIELD(field, symbol, ret, params) ret(*field) params = nullptr;
  TGC_CUBLASLT_SYMBOLS(TGC_CUDA_FIELD)
#undef TGC_CUDA_FIELD
  std::string library; // the soname that was loaded
};

/// dlopen's the first of `names` that loads (RTLD_NOW | RTLD_LOCAL), its
/// soname in `loaded`; else null and each attempt's dlerror in `errors`.
void *openFirstLibrary(std::initializer_list<const char *> names,
                       std::string &loaded, std::string &errors);

/// A library's table, filled by `load` (which returns "" or why it could
/// not) the first time any thread asks, and kept: each library is opened
/// once per process and never closed (unloading the driver while contexts
/// or handles may still exist is not safe, and the runtime may be used from
/// static destructors), so a machine without it pays for one failed dlopen.
/// Null with the reason in `error` when loading failed. Thread-safe.
template <typename Table>
const Table *loadOnce(std::string (*load)(Table &), std::string &error) {
  struct State {
    std::once_flag once;
    Table table;
    std::string error;
  };
  static State *state = new State();
  std::call_once(state->once, [&] { state->error = load(state->table); });
  if (!state->error.empty()) {
    error = state->error;
    return nullptr;
  }
  return &state->table;
}

/// For a table's X-macro list of symbols, in a loader with `table`,
/// `library` (a dlopen handle) and `const char *missing`: each field from
/// dlsym, the first symbol that is not there in `missing`.
#define TGC_CUDA_RESOLVE(field, symbol, ret, params)                           \
  table.field =                                                                \
      reinterpret_cast<decltype(table.field)>(dlsym(library, symbol));         \
  if (!table.field && !missing)                                                \
    missing = symbol;

/// Loads cuBLASLt (libcublasLt.so.13, then .12, then libcublasLt.so; once).
/// Returns nullptr and a message otherwise. Thread-safe.
const CublasLt *cublasLt(std::string &error);

/// "cublasLtMatmul failed: CUBLAS_STATUS_NOT_SUPPORTED (...)".
std::string errorMessage(const CublasLt &lt, const char *call,
                         cublasStatus_t status);

} // namespace tgc::runtime::cuda

#endif // TGC_LIB_RUNTIME_CUDADRIVER_H
