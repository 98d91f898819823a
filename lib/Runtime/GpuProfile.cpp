//===- GpuProfile.cpp - a call's steps timed one by one -------------------===//
//
// GpuFunction::profile: what `tgc-run --profile`, `tgc-gpu-run --profile`
// and `tgc.profile` report per kernel: its time alone, the bytes it moves
// and so the bandwidth it reaches (docs/explain.md).
//
//===----------------------------------------------------------------------===//

#include "GpuFunctionImpl.h"

#include <algorithm>

using namespace tgc::runtime;
using namespace tgc::runtime::cuda;

double tgc::runtime::devicePeakBandwidthGBs() {
  std::string error;
  const Driver *cu = driver(error);
  if (!cu)
    return 0;
  int clockKHz = 0, busBits = 0;
  if (cu->cuDeviceGetAttribute(&clockKHz, CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE,
                               cu->device) != CUDA_SUCCESS ||
      cu->cuDeviceGetAttribute(&busBits,
                               CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH,
                               cu->device) != CUDA_SUCCESS)
    return 0;
  // Two transfers per clock (DDR / HBM), bus width in bits.
  return 2.0 * double(clockKHz) * 1e3 * double(busBits) / 8.0 / 1e9;
}

namespace {
/// Two events, destroyed with it.
struct EventPair {
  const Driver *cu;
  CUevent start = nullptr, end = nullptr;
  explicit EventPair(const Driver *cu) : cu(cu) {}
  ~EventPair() {
    if (start)
      cu->cuEventDestroy(start);
    if (end)
      cu->cuEventDestroy(end);
  }
  bool create() {
    return cu->cuEventCreate(&start, 0) == CUDA_SUCCESS &&
           cu->cuEventCreate(&end, 0) == CUDA_SUCCESS;
  }
};
} // namespace

bool GpuFunction::profile(const std::vector<DeviceTensor> &args, int repeat,
                          PlanProfile &out, std::string &error) {
  Impl &state = *impl;
  std::lock_guard<std::mutex> lock(state.mutex);
  out = PlanProfile();
  out.repeat = std::max(1, repeat);
  const Driver *cu = driver(error);
  if (!cu)
    return false;
  std::vector<DeviceTensor> outputs;
  auto finish = [&](bool ok) {
    state.cu->cuStreamSynchronize(state.stream);
    for (DeviceTensor &tensor : outputs)
      deviceFree(tensor.ptr);
    if (!ok)
      error = state.plan.function + ": profile: " + error;
    return ok;
  };
  if (!state.selectStream(nullptr, error))
    return false;
  if (!state.prepare(args, outputs, nullptr, error))
    return finish(false);
  std::vector<StepSummary> summaries =
      summarizePlanSteps(state.plan, state.values);

  auto issueAll = [&]() {
    // Checks are not evaluated: as asserts, a failed one would end the
    // process's use of CUDA.
    for (size_t s = 0; s < state.plan.steps.size(); ++s)
      if (!(state.plan.steps[s].kind == PlanStep::Check && state.asserted(s)) &&
          !state.issue(s, /*capturing=*/false, error))
        return false;
    return true;
  };
  // Warm: modules, shared-memory limits and GEMM algorithms are set here.
  if (!issueAll())
    return finish(false);
  EventPair events(cu);
  if (!events.create()) {
    error = "could not create CUDA events";
    return finish(false);
  }
  auto timed = [&](auto &&body, double &ms) {
    if (cu->cuEventRecord(events.start, state.stream) != CUDA_SUCCESS) {
      error = "could not record a CUDA event";
      return false;
    }
    for (int r = 0; r < out.repeat; ++r)
      if (!body())
        return false;
    float elapsed = 0;
    if (cu->cuEventRecord(events.end, state.stream) != CUDA_SUCCESS ||
        cu->cuStreamSynchronize(state.stream) != CUDA_SUCCESS ||
        cu->cuEventElapsedTime(&elapsed, events.start, events.end) !=
            CUDA_SUCCESS) {
      error = "could not time the runs with CUDA events";
      return false;
    }
    ms = double(elapsed) / out.repeat;
    return true;
  };
  for (size_t s = 0; s < state.plan.steps.size(); ++s) {
    StepProfile step;
    step.step = summaries[s];
    if (!step.step.skipped && step.step.kind != PlanStep::Check &&
        !timed([&]() { return state.issue(s, false, error); }, step.ms))
      return finish(false);
    out.steps.push_back(std::move(step));
  }
  if (!timed(issueAll, out.callMs))
    return finish(false);
  return finish(true);
}
