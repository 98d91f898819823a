//===- CudaDriver.cpp - Load the CUDA driver and cuBLASLt at run time -----===//
//
// Each library is opened once per process and never closed (unloading the
// driver while contexts or cuBLASLt handles may still exist is not safe);
// the outcome, a table or the reason there is none, is kept, so a machine
// without a GPU pays for one failed dlopen.
//
//===----------------------------------------------------------------------===//

#include "CudaDriver.h"

#include <dlfcn.h>
#include <mutex>

using namespace tgc::runtime;
using namespace tgc::runtime::cuda;

namespace {

constexpr const char *kDriverLibrary = "libcuda.so.1";

struct DriverState {
  std::once_flag once;
  Driver table;
  bool ok = false;
  std::string error;
};

DriverState &driverState() {
  // Never destroyed: the runtime may be used from static destructors.
  static DriverState *state = new DriverState();
  return *state;
}

std::string dlopenError() {
  const char *message = dlerror();
  return message ? message : "unknown error";
}

void loadDriver(DriverState &state) {
  Driver &table = state.table;
  void *library = dlopen(kDriverLibrary, RTLD_NOW | RTLD_LOCAL);
  if (!library) {
    state.error = std::string("cannot load the CUDA driver (") +
                  kDriverLibrary + "): " + dlopenError();
    return;
  }
  const char *missing = nullptr;
#define TGC_CUDA_RESOLVE(field, symbol, ret, params)                           \
  table.field =                                                                \
      reinterpret_cast<decltype(table.field)>(dlsym(library, symbol));         \
  if (!table.field && !missing)                                                \
    missing = symbol;
  TGC_CUDA_DRIVER_CORE(TGC_CUDA_RESOLVE)
  if (missing) {
    state.error = std::string("the CUDA driver (") + kDriverLibrary +
                  ") has no " + missing + ": it is too old";
    return;
  }
  TGC_CUDA_DRIVER_GRAPH(TGC_CUDA_RESOLVE)
#undef TGC_CUDA_RESOLVE
  table.hasGraphs = missing == nullptr;
  if (missing)
    table.graphError = std::string("the CUDA driver has no ") + missing +
                       " (CUDA 12 or later is needed for graphs)";

  auto fail = [&](const char *call, CUresult result) {
    state.error = std::string("CUDA driver (") + kDriverLibrary +
                  "): " + errorMessage(table, call, result);
  };
  CUresult result = table.cuInit(0);
  if (result != CUDA_SUCCESS)
    return fail("cuInit", result);
  int count = 0;
  result = table.cuDeviceGetCount(&count);
  if (result != CUDA_SUCCESS)
    return fail("cuDeviceGetCount", result);
  if (count < 1) {
    state.error =
        std::string("CUDA driver (") + kDriverLibrary + "): no CUDA device";
    return;
  }
  result = table.cuDeviceGet(&table.device, 0);
  if (result != CUDA_SUCCESS)
    return fail("cuDeviceGet", result);
  result = table.cuDevicePrimaryCtxRetain(&table.context, table.device);
  if (result != CUDA_SUCCESS)
    return fail("cuDevicePrimaryCtxRetain", result);
  state.ok = true;
}

struct CublasState {
  std::once_flag once;
  CublasLt table;
  bool ok = false;
  std::string error;
};

CublasState &cublasState() {
  static CublasState *state = new CublasState();
  return *state;
}

void loadCublasLt(CublasState &state) {
  std::string errors;
  void *library = openFirstLibrary(
      {"libcublasLt.so.13", "libcublasLt.so.12", "libcublasLt.so"},
      state.table.library, errors);
  if (!library) {
    state.error =
        "cannot load cuBLASLt (libcublasLt.so.13, .12 or .so): " + errors;
    return;
  }
  CublasLt &table = state.table;
  const char *missing = nullptr;
#define TGC_CUDA_RESOLVE(field, symbol, ret, params)                           \
  table.field =                                                                \
      reinterpret_cast<decltype(table.field)>(dlsym(library, symbol));         \
  if (!table.field && !missing)                                                \
    missing = symbol;
  TGC_CUBLASLT_SYMBOLS(TGC_CUDA_RESOLVE)
#undef TGC_CUDA_RESOLVE
  if (missing) {
    state.error = "cuBLASLt (" + table.library + ") has no " + missing;
    return;
  }
  state.ok = true;
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
  DriverState &state = driverState();
  std::call_once(state.once, [&] { loadDriver(state); });
  if (!state.ok) {
    error = state.error;
    return nullptr;
  }
  // The primary context must be current on every thread that calls in.
  thread_local CUcontext current = nullptr;
  if (current != state.table.context) {
    CUresult result = state.table.cuCtxSetCurrent(state.table.context);
    if (result != CUDA_SUCCESS) {
      error = std::string("CUDA driver (") + kDriverLibrary +
              "): " + errorMessage(state.table, "cuCtxSetCurrent", result);
      return nullptr;
    }
    current = state.table.context;
  }
  return &state.table;
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
  return message;
}

const CublasLt *tgc::runtime::cuda::cublasLt(std::string &error) {
  CublasState &state = cublasState();
  std::call_once(state.once, [&] { loadCublasLt(state); });
  if (!state.ok) {
    error = state.error;
    return nullptr;
  }
  return &state.table;
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
