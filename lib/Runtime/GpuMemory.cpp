//===- GpuMemory.cpp - Device memory and the driver's helpers -------------===//
//
// Device memory for the runtime's own results and scratch (a caching
// allocator over cuMemAlloc, as PyTorch's), copies between host and
// device, device synchronization and the device's name. See
// docs/gpu-runtime.md.
//
//===----------------------------------------------------------------------===//

#include "tgc/Runtime/GpuExecutor.h"

#include "GpuFunctionImpl.h"

#include <cstring>
#include <map>
#include <mutex>
#include <unordered_map>

using namespace tgc::runtime;
using namespace tgc::runtime::cuda;

//===----------------------------------------------------------------------===//
// Device helpers
//===----------------------------------------------------------------------===//

bool tgc::runtime::cudaDeviceAvailable(std::string &why) {
  return driver(why) != nullptr;
}

namespace {

/// A caching allocator, as PyTorch's: freed blocks are kept per rounded
/// size and handed out again, because cuMemAlloc and cuMemFree cost tens
/// of microseconds and cuMemFree synchronizes the device. Blocks are
/// rounded to 512 bytes (2 MiB above 1 MiB). The cache is never trimmed:
/// a process that frees memory keeps it for its next allocations.
struct BlockCache {
  std::mutex mutex;
  std::multimap<uint64_t, CUdeviceptr> free;      // rounded size -> block
  std::unordered_map<CUdeviceptr, uint64_t> live; // block -> rounded size
};

BlockCache &blockCache() {
  static BlockCache *cache = new BlockCache();
  return *cache;
}

uint64_t roundBlock(uint64_t bytes) {
  uint64_t unit = bytes > (1u << 20) ? (2u << 20) : 512;
  return (bytes + unit - 1) / unit * unit;
}

} // namespace

bool tgc::runtime::deviceAlloc(uint64_t bytes, uint64_t &ptr,
                               std::string &error) {
  ptr = 0;
  const Driver *cu = driver(error);
  if (!cu)
    return false;
  if (bytes == 0)
    return true;
  uint64_t rounded = roundBlock(bytes);
  BlockCache &cache = blockCache();
  std::lock_guard<std::mutex> lock(cache.mutex);
  auto it = cache.free.find(rounded);
  if (it != cache.free.end()) {
    ptr = it->second;
    cache.free.erase(it);
    cache.live[ptr] = rounded;
    return true;
  }
  CUdeviceptr result = 0;
  CUresult status = cu->cuMemAlloc(&result, size_t(rounded));
  if (status == CUDA_ERROR_OUT_OF_MEMORY && !cache.free.empty()) {
    // Give the cached blocks back and try once more.
    for (auto &[size, block] : cache.free)
      cu->cuMemFree(block);
    cache.free.clear();
    status = cu->cuMemAlloc(&result, size_t(rounded));
  }
  if (status != CUDA_SUCCESS) {
    error = errorMessage(*cu, "cuMemAlloc", status) + " (" +
            num(int64_t(bytes)) + " bytes)";
    return false;
  }
  ptr = result;
  cache.live[ptr] = rounded;
  return true;
}

void tgc::runtime::deviceFree(uint64_t ptr) {
  if (!ptr)
    return;
  BlockCache &cache = blockCache();
  std::lock_guard<std::mutex> lock(cache.mutex);
  auto it = cache.live.find(ptr);
  if (it != cache.live.end()) {
    cache.free.emplace(it->second, ptr);
    cache.live.erase(it);
    return;
  }
  std::string error;
  if (const Driver *cu = driver(error))
    cu->cuMemFree(ptr);
}

/// False, with the message naming `call`, when `status` is an error.
static bool succeeded(const Driver &cu, CUresult status, const char *call,
                      std::string &error) {
  if (status == CUDA_SUCCESS)
    return true;
  error = errorMessage(cu, call, status);
  return false;
}

/// Runs `copy` with the driver, unless there is nothing to copy.
template <typename Copy>
static bool withDriver(uint64_t bytes, std::string &error, Copy copy) {
  const Driver *cu = driver(error);
  return cu && (bytes == 0 || copy(*cu));
}

bool tgc::runtime::copyToDevice(uint64_t dst, const void *src, uint64_t bytes,
                                std::string &error) {
  // A copy from pageable memory may still be in flight on return, and the
  // runtime's streams do not wait for the legacy stream: finish it here.
  return withDriver(bytes, error, [&](const Driver &cu) {
    return succeeded(cu, cu.cuMemcpyHtoD(dst, src, size_t(bytes)),
                     "cuMemcpyHtoD", error) &&
           succeeded(cu, cu.cuCtxSynchronize(), "cuCtxSynchronize", error);
  });
}

bool tgc::runtime::copyToHost(void *dst, uint64_t src, uint64_t bytes,
                              std::string &error) {
  return withDriver(bytes, error, [&](const Driver &cu) {
    return succeeded(cu, cu.cuMemcpyDtoH(dst, src, size_t(bytes)),
                     "cuMemcpyDtoH", error);
  });
}

bool tgc::runtime::copyOnDevice(uint64_t dst, uint64_t src, uint64_t bytes,
                                std::string &error) {
  return withDriver(bytes, error, [&](const Driver &cu) {
    return succeeded(cu, cu.cuMemcpyDtoDAsync(dst, src, size_t(bytes), nullptr),
                     "cuMemcpyDtoDAsync", error) &&
           succeeded(cu, cu.cuCtxSynchronize(), "cuCtxSynchronize", error);
  });
}

bool tgc::runtime::deviceSynchronize(std::string &error) {
  const Driver *cu = driver(error);
  return cu &&
         succeeded(*cu, cu->cuCtxSynchronize(), "cuCtxSynchronize", error);
}

std::string tgc::runtime::deviceName() {
  std::string error;
  const Driver *cu = driver(error);
  if (!cu)
    return "no CUDA device: " + error;
  char name[256] = {};
  if (cu->cuDeviceGetName(name, sizeof(name) - 1, cu->device) != CUDA_SUCCESS)
    std::strcpy(name, "unknown CUDA device");
  int sms = 0, major = 0, minor = 0;
  cu->cuDeviceGetAttribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT,
                           cu->device);
  cu->cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
                           cu->device);
  cu->cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR,
                           cu->device);
  return std::string(name) + " (" + num(sms) + " SMs, sm_" + num(major) +
         num(minor) + ")";
}
