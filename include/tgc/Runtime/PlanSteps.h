//===- PlanSteps.h - what each step of a launch plan does ------*- C++ -*-===//
//
// For reports and the profiler: each step of a GPU launch plan evaluated for
// one call's sizes, with the kernel's strategy, its grid, and the bytes it
// reads and writes. The bytes count every buffer a step touches once (a
// broadcast view, stride 0, counts its elements once), as Inductor's kernel
// benchmarks count `num_gb`: a lower bound of the step's memory traffic, so
// bytes / time is the bandwidth the step reaches at least. GEMMs also get
// their floating-point operations (2 m n k per matrix).
//
//===----------------------------------------------------------------------===//

#ifndef TGC_RUNTIME_PLANSTEPS_H
#define TGC_RUNTIME_PLANSTEPS_H

#include "tgc/Runtime/GpuPlan.h"

#include <cstdint>
#include <string>
#include <vector>

namespace tgc::runtime {

struct StepSummary {
  PlanStep::Kind kind = PlanStep::Launch;
  /// Launch: the kernel's name; otherwise "gemm", "copy", "memset",
  /// "check".
  std::string name;
  /// Launch: the kernel's strategy, from its name (`f_warp_rows_3` ->
  /// "warp_rows"); GEMM: "cuBLASLt" with its epilogue.
  std::string strategy;
  /// "grid 48x1x1 block 256x1x1", "m 16 n 192 k 64 batch 1 f32", ...
  std::string shape;
  int64_t bytes = -1; // read and written; -1: not known
  int64_t flops = 0;  // GEMMs: 2 m n k batch
  bool skipped = false; // nothing runs for these sizes
};

/// A call's steps timed one by one (GpuFunction::profile).
struct StepProfile {
  StepSummary step;
  /// Device milliseconds per run of the step alone; -1 when not timed (a
  /// skipped step, a device-side check, a profile without a device).
  double ms = -1;
};
struct PlanProfile {
  std::vector<StepProfile> steps;
  double callMs = -1; // per run of the whole plan, runs back to back
  int repeat = 0;
};

/// Every step of `plan` for the node values of one call (evaluatePlan).
std::vector<StepSummary> summarizePlanSteps(const Plan &plan,
                                            const std::vector<int64_t> &values);

/// The summaries as text, a line each, fields separated by tabs:
/// "KIND\tNAME\tSTRATEGY\tSHAPE\tBYTES\tFLOPS" (KIND: launch, gemm, copy,
/// memset or check; BYTES -1 when not known; a skipped step's SHAPE ends in
/// " (skipped)").
std::string formatStepSummaries(const std::vector<StepSummary> &steps);

/// A table for people: a row per step (kernel, strategy, grid or GEMM
/// sizes, bytes; with times: the time, the bandwidth bytes / time and its
/// share of `peakGBs` when that is known, a GEMM's TFLOP/s), then the call's
/// time next to the sum of the steps'.
std::string formatProfileTable(const PlanProfile &profile, double peakGBs);

/// The summaries for one call's argument sizes; "" when the plan does not
/// evaluate for them.
std::string describePlanSteps(const Plan &plan,
                              const std::vector<std::vector<int64_t>> &argSizes);

} // namespace tgc::runtime

#endif // TGC_RUNTIME_PLANSTEPS_H
