//===- Cudnn.cpp - Load cuDNN at run time ---------------------------------===//
//
// Opened once per process and never closed, as the driver and cuBLASLt
// (loadOnce, CudaDriver.h); a machine without cuDNN pays for one failed
// dlopen, and only when a plan has a convolution step.
//
//===----------------------------------------------------------------------===//

#include "Cudnn.h"

#include <dlfcn.h>

using namespace tgc::runtime::cuda;

namespace {

std::string loadCudnn(Cudnn &table) {
  std::string errors;
  void *library =
      openFirstLibrary({"libcudnn.so.9", "libcudnn.so"}, table.library, errors);
  if (!library)
    return "cannot load cuDNN (libcudnn.so.9 or libcudnn.so) for the plan's "
           "convolutions: " +
           errors;
  const char *missing = nullptr;
  TGC_CUDNN_SYMBOLS(TGC_CUDA_RESOLVE)
  if (missing)
    return "cuDNN (" + table.library + ") has no " + missing;
  size_t version = table.cudnnGetVersion();
  if (version < 90000)
    return "cuDNN (" + table.library + ") is version " +
           std::to_string(version) + "; 9.0 or later is needed";
  return "";
}

} // namespace

const Cudnn *tgc::runtime::cuda::cudnn(std::string &error) {
  return loadOnce(loadCudnn, error);
}

std::string tgc::runtime::cuda::errorMessage(const Cudnn &dnn,
                                             const char *call,
                                             cudnnStatus_t status) {
  const char *text =
      dnn.cudnnGetErrorString ? dnn.cudnnGetErrorString(status) : nullptr;
  return std::string(call) + " failed: " +
         (text ? text : "cuDNN status " + std::to_string(status));
}
