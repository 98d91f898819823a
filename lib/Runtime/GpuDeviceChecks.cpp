//===- GpuDeviceChecks.cpp - device-side checks as asserting kernels ------===//
//
// GpuFunction::setDeviceAsserts: a plan's index check steps (a condition
// the kernels computed into a one-byte flag) run as a one-thread kernel that
// calls CUDA's `__assertfail` when the flag is 0, instead of a copy of
// the flag to the host that the call waits for. This is how eager
// PyTorch's and Inductor's CUDA kernels report an index out of range: the
// device prints the message, the CUDA context is then unusable, and no
// call ever waits for its checks (docs/gpu-runtime.md, "Device-side
// checks").
//
//===----------------------------------------------------------------------===//

#include "GpuFunctionImpl.h"

#include <algorithm>
#include <cstring>
#include <mutex>

using namespace tgc::runtime;
using namespace tgc::runtime::cuda;

namespace {

/// tgc_device_check(flag, message, file, function): one thread reads the
/// flag byte and, when it is 0, calls `__assertfail(message, file, 0,
/// function, 1)` (the signature clang's CUDA `assert` and LLVM's NVPTX
/// back end use; ptxas resolves it). PTX for sm_75, which the driver
/// compiles for the device at hand.
constexpr const char *kCheckPtx = R"(.version 7.0
.target sm_75
.address_size 64
.extern .func __assertfail
(
	.param .b64 message,
	.param .b64 file,
	.param .b32 line,
	.param .b64 function,
	.param .b64 charSize
);
.visible .entry tgc_device_check(
	.param .u64 flag,
	.param .u64 message,
	.param .u64 file,
	.param .u64 function
)
{
	.reg .pred %p<2>;
	.reg .b16 %rs<2>;
	.reg .b32 %r<2>;
	.reg .b64 %rd<6>;
	ld.param.u64 %rd1, [flag];
	cvta.to.global.u64 %rd2, %rd1;
	ld.global.u8 %rs1, [%rd2];
	setp.ne.s16 %p1, %rs1, 0;
	@%p1 bra $L_done;
	ld.param.u64 %rd3, [message];
	ld.param.u64 %rd4, [file];
	ld.param.u64 %rd5, [function];
	mov.u32 %r1, 0;
	{
	.param .b64 param0;
	st.param.b64 [param0], %rd3;
	.param .b64 param1;
	st.param.b64 [param1], %rd4;
	.param .b32 param2;
	st.param.b32 [param2], %r1;
	.param .b64 param3;
	st.param.b64 [param3], %rd5;
	.param .b64 param4;
	st.param.b64 [param4], 1;
	call.uni __assertfail, (param0, param1, param2, param3, param4);
	}
$L_done:
	ret;
}
)";

/// The check kernel, loaded once per process (the runtime uses one CUDA
/// context) and never unloaded.
CUfunction checkKernel(const Driver &cu, std::string &error) {
  static std::mutex mutex;
  static CUfunction kernel = nullptr;
  std::lock_guard<std::mutex> lock(mutex);
  if (kernel)
    return kernel;
  CUmodule module = nullptr;
  CUresult result = cu.cuModuleLoadData(&module, kCheckPtx);
  if (result != CUDA_SUCCESS) {
    error = errorMessage(cu, "cuModuleLoadData", result) +
            " (the device-side check kernel)";
    return nullptr;
  }
  result = cu.cuModuleGetFunction(&kernel, module, "tgc_device_check");
  if (result != CUDA_SUCCESS) {
    error = errorMessage(cu, "cuModuleGetFunction", result) +
            " (the device-side check kernel)";
    cu.cuModuleUnload(module);
    kernel = nullptr;
    return nullptr;
  }
  return kernel;
}

} // namespace

bool GpuFunction::setDeviceAsserts(bool on, std::string &error) {
  Impl &state = *impl;
  std::lock_guard<std::mutex> lock(state.mutex);
  if (on == state.deviceAsserts)
    return true;
  int64_t indexChecks = 0, otherChecks = 0;
  for (const PlanStep &s : state.plan.steps)
    if (s.kind == PlanStep::Check)
      ++(s.check.index ? indexChecks : otherChecks);
  if (indexChecks == 0) { // nothing changes: other checks are read on the host
    state.deviceAsserts = on;
    return true;
  }
  if (!driver(error))
    return false;
  if (on && !state.checkTexts) {
    const Driver &cu = *state.cu;
    state.checkKernel = checkKernel(cu, error);
    if (!state.checkKernel) {
      error = state.plan.function + ": " + error;
      return false;
    }
    // Every message, NUL-terminated, then the file and function texts.
    std::string texts;
    std::vector<size_t> offsets;
    for (size_t s = 0; s < state.plan.steps.size(); ++s) {
      if (state.checkSlot[s] < 0)
        continue;
      offsets.push_back(texts.size());
      texts += state.plan.steps[s].check.message;
      texts.push_back('\0');
    }
    size_t file = texts.size();
    texts += "TGC device-side check";
    texts.push_back('\0');
    size_t function = texts.size();
    texts += state.plan.function;
    texts.push_back('\0');
    const char *call = "cuMemAlloc";
    CUresult result = cu.cuMemAlloc(&state.checkTexts, texts.size());
    if (result == CUDA_SUCCESS) {
      call = "cuMemcpyHtoD";
      result = cu.cuMemcpyHtoD(state.checkTexts, texts.data(), texts.size());
    }
    if (result != CUDA_SUCCESS) {
      error = state.plan.function + ": " + errorMessage(cu, call, result) +
              " (the device-side checks' messages)";
      if (state.checkTexts)
        cu.cuMemFree(state.checkTexts);
      state.checkTexts = 0;
      return false;
    }
    state.checkMessages.clear();
    for (size_t offset : offsets)
      state.checkMessages.push_back(uint64_t(state.checkTexts) + offset);
    state.checkFile = uint64_t(state.checkTexts) + file;
    state.checkFunction = uint64_t(state.checkTexts) + function;
  }
  // Index checks as asserts; a plan with other checks still reads those
  // on the host, and keeps its graph after them.
  state.destroyGraphs();
  state.deviceAsserts = on;
  state.hostChecks = !on || otherChecks > 0;
  state.graphFirst = on && !state.hostChecks ? 0 : state.hostChecksGraphFirst;
  return true;
}

bool GpuFunction::Impl::asserted(size_t s) const {
  return deviceAsserts && plan.steps[s].check.index;
}

bool GpuFunction::Impl::issueDeviceCheck(size_t s, std::string &error) {
  const std::vector<uint64_t> &p = pointers[s];
  if (p.empty())
    return true; // skipped for these sizes
  uint64_t values[4] = {p[0], p[1], checkFile, checkFunction};
  void *params[4] = {&values[0], &values[1], &values[2], &values[3]};
  CUresult result = cu->cuLaunchKernel(checkKernel, 1, 1, 1, 1, 1, 1, 0, stream,
                                       params, nullptr);
  if (result != CUDA_SUCCESS) {
    fail(error, "cuLaunchKernel", result);
    error += " (step " + num(int64_t(s)) + ", a device-side check)";
    return false;
  }
  return true;
}
