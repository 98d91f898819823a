//===- Cudnn.cpp - Load cuDNN at run time ---------------------------------===//
//
// Opened once per process and never closed, as the driver and cuBLASLt
// (CudaDriver.cpp); a machine without cuDNN pays for one failed dlopen,
// and only when a plan has a convolution step.
//
//===----------------------------------------------------------------------===//

#include "Cudnn.h"

#include <dlfcn.h>
#include <mutex>

using namespace tgc::runtime::cuda;

namespace {

struct CudnnState {
  std::once_flag once;
  Cudnn table;
  bool ok = false;
  std::string error;
};

CudnnState &cudnnState() {
  static CudnnState *state = new CudnnState();
  return *state;
}

void loadCudnn(CudnnState &state) {
  std::string errors;
  void *library = openFirstLibrary({"libcudnn.so.9", "libcudnn.so"},
                                   state.table.library, errors);
  if (!library) {
    state.error = "cannot load cuDNN (libcudnn.so.9 or libcudnn.so) for the "
                  "plan's convolutions: " +
                  errors;
    return;
  }
  Cudnn &table = state.table;
  const char *missing = nullptr;
#define TGC_CUDA_RESOLVE(field, symbol, ret, params)                           \
  table.field =                                                                \
      reinterpret_cast<decltype(table.field)>(dlsym(library, symbol));         \
  if (!table.field && !missing)                                                \
    missing = symbol;
  TGC_CUDNN_SYMBOLS(TGC_CUDA_RESOLVE)
#undef TGC_CUDA_RESOLVE
  if (missing) {
    state.error = "cuDNN (" + table.library + ") has no " + missing;
    return;
  }
  size_t version = table.cudnnGetVersion();
  if (version < 90000) {
    state.error = "cuDNN (" + table.library + ") is version " +
                  std::to_string(version) + "; 9.0 or later is needed";
    return;
  }
  state.ok = true;
}

} // namespace

const Cudnn *tgc::runtime::cuda::cudnn(std::string &error) {
  CudnnState &state = cudnnState();
  std::call_once(state.once, [&] { loadCudnn(state); });
  if (!state.ok) {
    error = state.error;
    return nullptr;
  }
  return &state.table;
}

std::string tgc::runtime::cuda::errorMessage(const Cudnn &dnn,
                                             const char *call,
                                             cudnnStatus_t status) {
  const char *text =
      dnn.cudnnGetErrorString ? dnn.cudnnGetErrorString(status) : nullptr;
  return std::string(call) + " failed: " +
         (text ? text : "cuDNN status " + std::to_string(status));
}
