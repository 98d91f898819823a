//===- CudaDriver.cpp - Load the CUDA driver and cuBLASLt at run time -----===//
//
// Each library is opened once per process and never closed, its table or
// the reason there is none kept (loadOnce, CudaDriver.h).
//
//===----------------------------------------------------------------------===//

#include "CudaDriver.h"

#include <dlfcn.h>

using namespace tgc::runtime;
using namespace tgc::runtime::cuda;

namespace {

constexpr const char *kDriverLibrary = "libcuda.so.1";

std::string dlopenError() {
  const char *message = dlerror();
  return message ? message : "unknown error";
}

std::string loadDriver(Driver &table) {
  void *library = dlopen(kDriverLibrary, RTLD_NOW | RTLD_LOCAL);
  if (!library)
    return std::string("cannot load the CUDA driver (") + kDriverLibrary +
           "): " + dlopenError();
  const char *missing = nullptr;
  TGC_CUDA_DRIVER_CORE(TGC_CUDA_RESOLVE)
  if (missing)
    return std::string("the CUDA driver (") + kDriverLibrary + ") has no " +
           missing + ": it is too old";
  TGC_CUDA_DRIVER_GRAPH(TGC_CUDA_RESOLVE)
  table.hasGraphs = missing == nullptr;
  if (missing)
    table.graphError = std::string("the CUDA driver has no ") + missing +
                       " (CUDA 12 or later is needed for graphs)";

  auto fail = [&](const char *call, CUresult result) {
    return std::string("CUDA driver (") + kDriverLibrary +
           "): " + errorMessage(table, call, result);
  };
  CUresult result = table.cuInit(0);
  if (result != CUDA_SUCCESS)
    return fail("cuInit", result);
  int count = 0;
  result = table.cuDeviceGetCount(&count);
  if (result != CUDA_SUCCESS)
    return fail("cuDeviceGetCount", result);
  if (count < 1)
    return std::string("CUDA driver (") + kDriverLibrary + "): no CUDA device";
  result = table.cuDeviceGet(&table.device, 0);
  if (result != CUDA_SUCCESS)
    return fail("cuDeviceGet", result);
  result = table.cuDevicePrimaryCtxRetain(&table.context, table.device);
  if (result != CUDA_SUCCESS)
    return fail("cuDevicePrimaryCtxRetain", result);
  return "";
}

std::string loadCublasLt(CublasLt &table) {
  std::string errors;
  void *library = openFirstLibrary(
      {"libcublasLt.so.13", "libcublasLt.so.12", "libcublasLt.so"},
      table.library, errors);
  if (!library)
    return "cannot load cuBLASLt (libcublasLt.so.13, .12 or .so): " + errors;
  const char *missing = nullptr;
  TGC_CUBLASLT_SYMBOLS(TGC_CUDA_RESOLVE)
  if (missing)
    return "cuBLASLt (" + table.library + ") has no " + missing;
  return "";
}

} // namespace

void *tgc::runtime::cuda::openFirstLibrary(
    std::initializer_list<const char *> names, std::string &loaded,
    std::string &errors) {
  for (const char *name : names) {
    if (void *library = dlopen(name, RTLD_NOW | RTLD_LOCAL)) {
      loaded = name;
      return library;
    }
    errors += std::string(errors.empty() ? "" : "; ") + dlopenError();
  }
  return nullptr;
}

const Driver *tgc::runtime::cuda::driver(std::string &error) {
  const Driver *table = loadOnce(loadDriver, error);
  if (!table)
    return nullptr;
  // The primary context must be current on every thread that calls in.
  thread_local CUcontext current = nullptr;
  if (current != table->context) {
    CUresult result = table->cuCtxSetCurrent(table->context);
    if (result != CUDA_SUCCESS) {
      error = std::string("CUDA driver (") + kDriverLibrary +
              "): " + errorMessage(*table, "cuCtxSetCurrent", result);
      return nullptr;
    }
    current = table->context;
  }
  return table;
}

std::string tgc::runtime::cuda::errorMessage(const Driver &driver,
                                             const char *call,
                                             CUresult result) {
  const char *name = nullptr, *text = nullptr;
  if (!driver.cuGetErrorName ||
      driver.cuGetErrorName(result, &name) != CUDA_SUCCESS || !name)
    name = nullptr;
  if (!driver.cuGetErrorString ||
      driver.cuGetErrorString(result, &text) != CUDA_SUCCESS || !text)
    text = nullptr;
  std::string message = std::string(call) + " failed: ";
  message += name ? name : "CUDA error " + std::to_string(result);
  if (text)
    message += std::string(" (") + text + ")";
  if (result == CUDA_ERROR_ASSERT)
    message += "; a device-side check failed (the device printed its "
               "message on standard error), and CUDA cannot be used again "
               "in this process, as after eager PyTorch's device-side "
               "asserts";
  return message;
}

const CublasLt *tgc::runtime::cuda::cublasLt(std::string &error) {
  return loadOnce(loadCublasLt, error);
}

std::string tgc::runtime::cuda::errorMessage(const CublasLt &lt,
                                             const char *call,
                                             cublasStatus_t status) {
  const char *name =
      lt.cublasLtGetStatusName ? lt.cublasLtGetStatusName(status) : nullptr;
  const char *text =
      lt.cublasLtGetStatusString ? lt.cublasLtGetStatusString(status) : nullptr;
  std::string message = std::string(call) + " failed: ";
  message += name ? name : "cuBLAS status " + std::to_string(status);
  if (text && (!name || std::string(text) != name))
    message += std::string(" (") + text + ")";
  return message;
}
