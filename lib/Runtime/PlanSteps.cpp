//===- PlanSteps.cpp - what each step of a launch plan does ---------------===//

#include "tgc/Runtime/PlanSteps.h"

#include "PlanText.h"

#include <algorithm>
#include <cctype>
#include <cstdio>

using namespace tgc::runtime;

namespace {

/// a * b, or -1 when either is unknown (negative) or the product overflows.
int64_t mul(int64_t a, int64_t b) {
  int64_t out = 0;
  if (a < 0 || b < 0 || __builtin_mul_overflow(a, b, &out))
    return -1;
  return out;
}

/// a + b, or -1 when either is unknown or the sum overflows.
int64_t add(int64_t a, int64_t b) {
  int64_t out = 0;
  if (a < 0 || b < 0 || __builtin_add_overflow(a, b, &out))
    return -1;
  return out;
}

struct Evaluator {
  const Plan &plan;
  const std::vector<int64_t> &values;

  /// A node's value; `fallback` for -1 (no node) or an index out of range.
  int64_t node(int64_t index, int64_t fallback = -1) const {
    if (index < 0 || index >= int64_t(values.size()))
      return fallback;
    return values[size_t(index)];
  }

  /// Bytes of the elements a buffer parameter's view covers, each once.
  int64_t paramBytes(const KernelParam &param) const {
    if (param.elementBytes <= 0)
      return -1;
    int64_t elements = 1;
    if (param.rank < 0) {
      elements = node(param.sizeNode, 0);
    } else {
      for (size_t d = 0; d < param.sizes.size(); ++d) {
        int64_t size = node(param.sizes[d]);
        if (size == 0)
          return 0;
        // A broadcast dim (stride 0) reads the same elements again.
        if (d < param.strides.size() && node(param.strides[d]) == 0)
          continue;
        elements = mul(elements, size);
      }
    }
    // Read and written: twice; not known: once (a lower bound).
    int64_t passes = param.access == 3 ? 2 : 1;
    return mul(mul(elements, param.elementBytes), passes);
  }

  std::string dims(const int64_t (&nodes)[3]) const {
    return std::to_string(node(nodes[0])) + "x" + std::to_string(node(nodes[1])) +
           "x" + std::to_string(node(nodes[2]));
  }
};

/// `f_warp_rows_3` of function `f` -> "warp_rows".
std::string strategyOf(const std::string &kernel, const std::string &function) {
  std::string name = kernel;
  if (name.size() > function.size() + 1 &&
      name.compare(0, function.size() + 1, function + "_") == 0)
    name = name.substr(function.size() + 1);
  size_t underscore = name.rfind('_');
  if (underscore != std::string::npos && underscore + 1 < name.size()) {
    bool digits = true;
    for (size_t i = underscore + 1; i < name.size(); ++i)
      digits = digits && std::isdigit(static_cast<unsigned char>(name[i]));
    if (digits)
      name.resize(underscore);
  }
  return name;
}

} // namespace

std::vector<StepSummary>
tgc::runtime::summarizePlanSteps(const Plan &plan,
                                 const std::vector<int64_t> &values) {
  Evaluator eval{plan, values};
  std::vector<StepSummary> out;
  for (const PlanStep &step : plan.steps) {
    StepSummary s;
    s.kind = step.kind;
    switch (step.kind) {
    case PlanStep::Launch: {
      const LaunchStep &launch = step.launch;
      s.name = launch.kernel >= 0 && launch.kernel < int32_t(plan.kernels.size())
                   ? plan.kernels[size_t(launch.kernel)]
                   : "kernel " + std::to_string(launch.kernel);
      s.strategy = strategyOf(s.name, plan.function);
      s.shape = "grid " + eval.dims(launch.grid) + " block " +
                eval.dims(launch.block);
      for (int d = 0; d < 3; ++d)
        s.skipped |= eval.node(launch.grid[d]) == 0;
      // A view passed twice (x + x) is one buffer: counted once, with the
      // accesses of both.
      std::vector<KernelParam> views;
      for (const KernelParam &param : launch.params) {
        if (param.kind != KernelParam::Buffer)
          continue;
        auto same = std::find_if(views.begin(), views.end(),
                                 [&](const KernelParam &v) {
                                   return v.id == param.id &&
                                          v.rank == param.rank &&
                                          v.sizeNode == param.sizeNode &&
                                          v.offset == param.offset &&
                                          v.sizes == param.sizes &&
                                          v.strides == param.strides;
                                 });
        if (same == views.end()) {
          views.push_back(param);
        } else {
          same->access |= param.access;
          same->elementBytes = std::max(same->elementBytes, param.elementBytes);
        }
      }
      s.bytes = 0;
      for (const KernelParam &param : views)
        s.bytes = add(s.bytes, eval.paramBytes(param));
      break;
    }
    case PlanStep::Gemm: {
      const GemmStep &gemm = step.gemm;
      int64_t m = eval.node(gemm.m), n = eval.node(gemm.n),
              k = eval.node(gemm.k), batch = eval.node(gemm.batch, 1);
      int32_t cDtype = gemm.cDtype != -1 ? gemm.cDtype : gemm.dtype;
      int64_t ab = dtypeBytes(gemm.dtype), cb = dtypeBytes(cDtype);
      int epilogue = int(gemm.epilogue);
      s.name = "gemm";
      s.strategy =
          std::string("cuBLASLt") + (gemm.tf32 ? " TF32" : "") +
          (epilogue > 0 && epilogue < plan_text::kNumEpilogues
               ? std::string(" + ") + plan_text::kEpilogueNames[epilogue]
               : std::string()) +
          (gemm.residual >= 0 ? " + residual" : "");
      s.shape = "m " + std::to_string(m) + " n " + std::to_string(n) + " k " +
                std::to_string(k) + " batch " + std::to_string(batch) + " " +
                plan_text::dtypeText(gemm.dtype) +
                (cDtype != gemm.dtype ? "->" + plan_text::dtypeText(cDtype)
                                      : std::string());
      s.skipped = m == 0 || n == 0 || batch == 0;
      // A batch stride of 0 broadcasts one matrix over the batch.
      auto matrices = [&](int64_t strideNode) {
        return gemm.batch >= 0 && strideNode >= 0 && eval.node(strideNode) == 0
                   ? int64_t(1)
                   : batch;
      };
      s.bytes = add(add(mul(mul(mul(m, k), matrices(gemm.strideA)), ab),
                        mul(mul(mul(k, n), matrices(gemm.strideB)), ab)),
                    mul(mul(m, n), mul(batch, cb)));
      if (gemm.bias >= 0)
        s.bytes = add(s.bytes, mul(n, cb));
      if (gemm.residual >= 0)
        s.bytes = add(s.bytes, mul(mul(m, n), mul(batch, cb)));
      s.flops = mul(mul(mul(2, m), mul(n, k)), batch);
      break;
    }
    case PlanStep::Conv: {
      const ConvStep &conv = step.conv;
      auto sizes = [&](const KernelParam &p) {
        std::vector<int64_t> out;
        for (int64_t node : p.sizes)
          out.push_back(eval.node(node));
        return out;
      };
      auto text = [](const std::vector<int64_t> &v) {
        std::string out;
        for (size_t i = 0; i < v.size(); ++i)
          out += (i ? "x" : "") + std::to_string(v[i]);
        return out;
      };
      std::vector<int64_t> x = sizes(conv.x), w = sizes(conv.w),
                           y = sizes(conv.y);
      s.name = conv.kind == ConvStep::BackwardData     ? "conv dgrad"
               : conv.kind == ConvStep::BackwardFilter ? "conv wgrad"
                                                       : "conv";
      s.strategy = std::string("cuDNN") + (conv.tf32 ? " TF32" : "");
      s.shape = "x " + text(x) + " w " + text(w) + " y " + text(y) +
                (conv.groups > 1 ? " groups " + std::to_string(conv.groups)
                                 : std::string());
      int64_t yElements = 1, wElements = 1, xElements = 1;
      for (int d = 0; d < 4; ++d) {
        yElements = mul(yElements, y.size() == 4 ? y[d] : 0);
        wElements = mul(wElements, w.size() == 4 ? w[d] : 0);
        xElements = mul(xElements, x.size() == 4 ? x[d] : 0);
      }
      // The written tensor; every kind does the forward's multiply-adds
      // (C / groups * kH * kW per element of y).
      s.skipped = (conv.kind == ConvStep::BackwardData     ? xElements
                   : conv.kind == ConvStep::BackwardFilter ? wElements
                                                           : yElements) == 0;
      int64_t eb = dtypeBytes(conv.dtype);
      s.bytes = mul(add(add(xElements, wElements), yElements), eb);
      int64_t reduction =
          w.size() == 4 ? mul(mul(w[1], w[2]), w[3]) : int64_t(0);
      s.flops = mul(mul(2, yElements), reduction);
      break;
    }
    case PlanStep::Copy: {
      int64_t bytes = eval.node(step.copy.bytes);
      s.name = "copy";
      s.shape = std::to_string(bytes) + " bytes";
      s.bytes = mul(bytes, 2);
      s.skipped = bytes == 0;
      break;
    }
    case PlanStep::Memset: {
      int64_t bytes = eval.node(step.memset.bytes);
      s.name = "memset";
      s.shape = std::to_string(bytes) + " bytes";
      s.bytes = bytes;
      s.skipped = bytes == 0;
      break;
    }
    case PlanStep::Check:
      s.name = "check";
      s.shape = step.check.message;
      s.bytes = 1;
      s.skipped = step.check.when >= 0 && eval.node(step.check.when) == 0;
      break;
    }
    out.push_back(std::move(s));
  }
  return out;
}

std::string
tgc::runtime::formatStepSummaries(const std::vector<StepSummary> &steps) {
  static const char *const kinds[] = {"launch", "gemm",  "copy",
                                      "memset", "check", "conv"};
  std::string out;
  for (const StepSummary &s : steps) {
    std::string shape = s.shape;
    for (char &c : shape)
      if (c == '\t' || c == '\n')
        c = ' ';
    out += std::string(kinds[int(s.kind)]) + "\t" + s.name + "\t" +
           s.strategy + "\t" + shape + (s.skipped ? " (skipped)" : "") +
           "\t" + std::to_string(s.bytes) + "\t" + std::to_string(s.flops) +
           "\n";
  }
  return out;
}

std::string tgc::runtime::describePlanSteps(
    const Plan &plan, const std::vector<std::vector<int64_t>> &argSizes) {
  std::vector<int64_t> values;
  std::string error;
  if (!evaluatePlan(plan, argSizes, values, error))
    return "";
  return formatStepSummaries(summarizePlanSteps(plan, values));
}

namespace {
std::string printf1(const char *format, double value) {
  char buffer[64];
  std::snprintf(buffer, sizeof(buffer), format, value);
  return buffer;
}

/// "812 B", "4.0 KiB", "12.5 MiB", "1.2 GiB".
std::string bytesText(int64_t bytes) {
  if (bytes < 0)
    return "?";
  if (bytes < 1024)
    return std::to_string(bytes) + " B";
  const char *units[] = {"KiB", "MiB", "GiB", "TiB"};
  double v = double(bytes) / 1024;
  int u = 0;
  while (v >= 1024 && u < 3) {
    v /= 1024;
    ++u;
  }
  return printf1("%.1f ", v) + units[u];
}

std::string timeText(double ms) {
  return ms < 1 ? printf1("%.1f us", ms * 1e3) : printf1("%.3f ms", ms);
}

/// Columns padded to their widest cell, two spaces apart.
std::string table(const std::vector<std::vector<std::string>> &rows) {
  std::vector<size_t> width;
  for (const auto &row : rows)
    for (size_t c = 0; c < row.size(); ++c) {
      width.resize(std::max(width.size(), row.size()));
      width[c] = std::max(width[c], row[c].size());
    }
  std::string out;
  for (const auto &row : rows) {
    std::string line;
    for (size_t c = 0; c < row.size(); ++c) {
      line += row[c];
      if (c + 1 < row.size())
        line += std::string(width[c] - row[c].size() + 2, ' ');
    }
    while (!line.empty() && line.back() == ' ')
      line.pop_back();
    out += "  " + line + "\n";
  }
  return out;
}
} // namespace

std::string tgc::runtime::formatProfileTable(const PlanProfile &profile,
                                             double peakGBs) {
  bool timed = profile.callMs >= 0;
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> header = {"step", "kernel", "strategy", "launch",
                                     "bytes"};
  if (timed)
    for (const char *h : {"time", "bandwidth", "compute"})
      header.push_back(h);
  rows.push_back(header);
  double sum = 0;
  for (size_t i = 0; i < profile.steps.size(); ++i) {
    const StepProfile &p = profile.steps[i];
    const StepSummary &s = p.step;
    std::vector<std::string> row = {
        std::to_string(i), s.name, s.strategy,
        s.shape + (s.skipped ? " (skipped)" : ""), bytesText(s.bytes)};
    if (timed) {
      if (p.ms > 0) {
        sum += p.ms;
        row.push_back(timeText(p.ms));
        double gbs = s.bytes >= 0 ? double(s.bytes) / (p.ms * 1e6) : -1;
        row.push_back(gbs < 0 ? "?"
                      : peakGBs > 0
                          ? printf1("%.0f GB/s", gbs) +
                                printf1(" (%.0f%%)", 100 * gbs / peakGBs)
                          : printf1("%.0f GB/s", gbs));
        row.push_back(s.flops > 0
                          ? printf1("%.3g TFLOP/s", double(s.flops) /
                                                         (p.ms * 1e9))
                          : "");
      } else {
        row.push_back("-");
      }
    }
    rows.push_back(row);
  }
  std::string out = table(rows);
  if (timed)
    out += "  call: " + timeText(profile.callMs) + " per run (" +
           std::to_string(profile.repeat) + " runs back to back); the steps " +
           "alone: " + timeText(sum) + "\n";
  return out;
}
