//===- tgc-run.cpp - compile and run a tgc function -----------------------===//
//
// Compiles a function of a .mlir file (guards included) for the host CPU
// or, with --device cuda, a CUDA GPU; runs it on given (.npy) or seeded
// random inputs; prints a line per result (shape, dtype, min, max, mean;
// every element, as mlir-runner's printMemref, with --print-results); and
// with --check reference compares the results with the reference
// interpreter. Several calls (--calls) run through the same guard-dispatch
// cache as the runtime, so a test can show one compile serving many sizes.
// --json prints a machine-readable report. MLIR's pass-manager options
// (--mlir-timing, --mlir-print-ir-after-all, ...) apply to the compilers'
// pass managers (Options.cpp).
//
// Exit status: 0 on success; 1 on a reference mismatch; 2 on any error
// (bad options, bad input, compilation failure, a guard rejecting the
// inputs of a fresh compile). Never a crash.
//
//===----------------------------------------------------------------------===//

#include "tgc/Compiler/CompilerUtils.h"
#include "tgc/Compiler/CpuCompiler.h"
#include "tgc/Compiler/GpuCompiler.h"
#include "tgc/InitAllDialects.h"
#include "tgc/InitAllPasses.h"
#include "tgc/Reference/HostTensor.h"
#include "tgc/Reference/Interpreter.h"
#include "tgc/Runtime/CaseFile.h"
#include "tgc/Runtime/DispatchCache.h"
#include "tgc/Runtime/GpuExecutor.h"

#include "Arguments.h"
#include "Options.h"
#include "TensorIO.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/AsmParser/AsmParserState.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <random>
#include <set>
#include <unistd.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

using namespace mlir;
using namespace mlir::tgc;
namespace cl = llvm::cl;
using namespace tgc_run;

[[noreturn]] void tgc_run::fail(const llvm::Twine &message) {
  llvm::errs() << "tgc-run: error: " << message << "\n";
  llvm::errs().flush();
  std::exit(2);
}

namespace {

/// Policy auto, as torch.compile(dynamic=None): a dimension whose size
/// differs between the call being compiled and the example of an earlier
/// specialization becomes dynamic in this and every later compile (the
/// argument attribute `tgc.changed_dims` that tgc-symbolize-shapes reads).
class AutoDynamic {
public:
  void noteCompile(func::FuncOp entry, const Shapes &call) {
    if (policy != "auto")
      return;
    for (const Shapes &earlier : examples)
      for (size_t i = 0; i < call.size() && i < earlier.size(); ++i)
        if (call[i].size() == earlier[i].size())
          for (size_t d = 0; d < call[i].size(); ++d)
            if (call[i][d] != earlier[i][d])
              changed[i].insert(static_cast<int64_t>(d));
    examples.push_back(call);
    for (auto &[arg, dims] : changed)
      if (arg < entry.getNumArguments())
        entry.setArgAttr(arg, "tgc.changed_dims",
                         DenseI64ArrayAttr::get(
                             entry.getContext(),
                             SmallVector<int64_t>(dims.begin(), dims.end())));
  }

private:
  std::vector<Shapes> examples;
  std::map<unsigned, std::set<int64_t>> changed;
};

/// Physical memory of the machine (sysconf), or 2^40 if unknown.
uint64_t physicalMemoryBytes() {
  long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  if (pages <= 0 || page <= 0)
    return uint64_t(1) << 40;
  return static_cast<uint64_t>(pages) * static_cast<uint64_t>(page);
}

/// Checks sizes against the signature and fills `?`-free defaults.
void validateShapes(func::FuncOp f, const EntryArguments &arguments,
                    Shapes &shapes, StringRef what) {
  for (unsigned i = 0; i < f.getNumArguments(); ++i) {
    auto type = cast<RankedTensorType>(f.getArgumentTypes()[i]);
    std::vector<int64_t> &s = shapes[i];
    if (s.empty() && type.getRank() > 0) {
      if (!type.hasStaticShape()) {
        if (auto ex =
                f.getArgAttrOfType<DenseI64ArrayAttr>(i, "tgc.example_shape"))
          s.assign(ex.asArrayRef().begin(), ex.asArrayRef().end());
        else
          fail(what + ": argument " + llvm::Twine(i) + " has `?` sizes (" +
               formatDims(type.getShape()) + "): give them with --shape " +
               arguments.label(i) + "=...");
      } else {
        s.assign(type.getShape().begin(), type.getShape().end());
      }
    }
    if (static_cast<int64_t>(s.size()) != type.getRank())
      fail(what + ": argument " + llvm::Twine(i) + " has rank " +
           llvm::Twine(type.getRank()) + " but the sizes given have " +
           llvm::Twine(s.size()));
    for (int64_t d = 0; d < type.getRank(); ++d)
      if (!type.isDynamicDim(d) && type.getDimSize(d) != s[d])
        fail(what + ": argument " + llvm::Twine(i) + " dim " + llvm::Twine(d) +
             " is " + llvm::Twine(type.getDimSize(d)) +
             " in the signature of @" + f.getName() + ", got " +
             llvm::Twine(s[d]));
    // The inputs (and the reference's copies) must fit in memory: a clear
    // error, not an allocation failure, for sizes like 10^14.
    uint64_t bytes = tensorBytes((type.getElementTypeBitWidth() + 7) / 8, s);
    uint64_t limit = physicalMemoryBytes() / 2;
    if (bytes > limit)
      fail(what + ": argument " + llvm::Twine(i) + " (" + formatDims(s) +
           ") would need " + llvm::Twine(bytes) +
           " bytes, more than half of this machine's memory (" +
           llvm::Twine(limit * 2) + " bytes)");
  }
}

/// The options both compilers take, from the command line.
void setFrontendOptions(FrontendCompileOptions &options,
                        PassManagerSetup &passManagers) {
  options.policy = policy;
  options.specializeZeroOne = specializeZeroOne;
  options.duckSizing = duckSizing;
  options.fuse = !noFuse;
  options.decompose = !noDecompose;
  options.verifyEachPass = verifyEach;
  options.configurePassManager = [&passManagers](PassManager &pm) {
    passManagers.configure(pm);
  };
}

/// What both devices record, print and report per call and in total.
struct RunReport {
  double maxAbs = 0, maxRel = 0;
  bool mismatch = false;
  llvm::json::Array callReports;
  std::vector<double> runMedians;

  /// With --check reference: compares a call with the reference into its
  /// report and the totals.
  void check(ArrayRef<ref::HostTensor> results,
             ArrayRef<ref::HostTensor> expected,
             ArrayRef<ref::HostTensor> runArgs,
             ArrayRef<ref::HostTensor> refArgs, size_t call,
             llvm::json::Object &report) {
    if (checkOpt != "reference")
      return;
    CheckResult c = checkAgainstReference(
        results, expected, runArgs, refArgs, call,
        rtolOpt.getNumOccurrences() ? std::optional<double>(rtolOpt)
                                    : std::nullopt,
        atolOpt.getNumOccurrences() ? std::optional<double>(atolOpt)
                                    : std::nullopt);
    mismatch |= !c.ok;
    report["max_abs_err"] = c.maxAbs;
    report["max_rel_err"] = c.maxRel;
    maxAbs = std::max(maxAbs, c.maxAbs);
    maxRel = std::max(maxRel, c.maxRel);
  }

  /// A timed call: its line and a line per result (--print-results: its
  /// elements) unless --json, and its report. `detail` goes after the run time.
  void finishCall(size_t call, const Shapes &shapes, bool compiled,
                  double runMs, const std::string &detail,
                  ArrayRef<ref::HostTensor> results,
                  llvm::json::Object report) {
    runMedians.push_back(runMs);
    report["run_ms"] = runMs;
    if (!json) {
      std::string shapeText;
      for (auto [i, dims] : llvm::enumerate(shapes))
        shapeText += (i ? ", " : "") + formatDims(dims);
      llvm::outs() << "call " << call << " (" << shapeText
                   << "): " << (compiled ? "compiled, " : "cached, ") << "run "
                   << llvm::format("%.3f", runMs) << " ms"
                   << (repeat > 1
                           ? " (median of " + std::to_string(repeat) + ")"
                           : std::string())
                   << detail;
      if (checkOpt == "reference")
        llvm::outs() << ", max abs err "
                     << llvm::format("%.3g", *report.getNumber("max_abs_err"));
      llvm::outs() << "\n";
      for (auto [i, t] : llvm::enumerate(results)) {
        llvm::outs() << "result " << i << " (call " << call << "): ";
        if (printResults)
          ref::print(llvm::outs(), t);
        else
          summarize(llvm::outs(), t);
        llvm::outs() << "\n";
      }
    }
    callReports.push_back(std::move(report));
  }

  /// The totals of the JSON report.
  void addTotals(llvm::json::Object &out) const {
    out["run_ms"] = median(runMedians);
    if (checkOpt == "reference") {
      out["max_abs_err"] = maxAbs;
      out["max_rel_err"] = maxRel;
      out["reference_ok"] = !mismatch;
    }
  }

  /// The summary's reference line.
  void printReference() const {
    if (checkOpt == "reference")
      llvm::outs() << "reference check: " << (mismatch ? "MISMATCH" : "ok")
                   << " (max abs err " << llvm::format("%.3g", maxAbs)
                   << ", max rel err " << llvm::format("%.3g", maxRel) << ")\n";
  }
};

llvm::json::Array toJson(ArrayRef<std::string> strings) {
  llvm::json::Array array;
  for (const std::string &s : strings)
    array.push_back(s);
  return array;
}

/// A compile's phases (CompileReport.h) as [[name, ms], ...], in order.
llvm::json::Array
phasesToJson(ArrayRef<std::pair<std::string, double>> phases) {
  llvm::json::Array array;
  for (const auto &[name, ms] : phases)
    array.push_back(llvm::json::Array{name, ms});
  return array;
}

//===----------------------------------------------------------------------===//
// --device cuda
//===----------------------------------------------------------------------===//

namespace rt = ::tgc::runtime;

/// Device copies of a call's tensors.
struct DeviceArgs {
  std::vector<rt::DeviceTensor> tensors;
  ~DeviceArgs() { release(); }
  void release() {
    for (rt::DeviceTensor &t : tensors)
      rt::deviceFree(t.ptr);
    tensors.clear();
  }
  void upload(ArrayRef<ref::HostTensor> host) {
    release();
    for (const ref::HostTensor &h : host) {
      rt::DeviceTensor t;
      t.sizes.assign(h.shape().begin(), h.shape().end());
      t.dtype = static_cast<int32_t>(h.dtype());
      std::string error;
      uint64_t bytes = std::max<uint64_t>(h.byteSize(), 1);
      if (!rt::deviceAlloc(bytes, t.ptr, error) ||
          !rt::copyToDevice(t.ptr, h.data(), h.byteSize(), error))
        fail(error);
      tensors.push_back(t);
    }
  }
};

/// Row-major strides of `sizes`.
std::vector<int64_t> denseStrides(ArrayRef<int64_t> sizes) {
  std::vector<int64_t> strides(sizes.size(), 1);
  for (int64_t i = static_cast<int64_t>(sizes.size()) - 2; i >= 0; --i)
    strides[i] = strides[i + 1] * std::max<int64_t>(sizes[i + 1], 1);
  return strides;
}

/// Appends a tensor to a case file: i32 dtype, i32 rank, i64 sizes, bytes
/// (the layout tgc-gpu-run reads; see docs/gpu-pipeline.md).
/// Without `data`, only the dtype (with bit 8 set) and the sizes: the
/// runner fills the tensor with random values (benchmarks of large sizes).
void writeFile(const std::string &path, const std::string &bytes) {
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec);
  if (ec)
    fail("cannot write '" + path + "': " + ec.message());
  os << bytes;
}

/// --profile: the steps of call `call` (timed on `fn`, or with sizes and
/// bytes alone when there is no function: --compile-only), printed, or in
/// the call's JSON report.
void profileCall(const rt::Plan &plan, rt::GpuFunction *fn, size_t call,
                 const Shapes &shapes,
                 const std::vector<rt::DeviceTensor> &args,
                 llvm::json::Object &report) {
  rt::PlanProfile profile;
  double peak = 0;
  std::string error;
  if (fn) {
    if (!fn->profile(args, repeat, profile, error))
      fail(error);
    peak = rt::devicePeakBandwidthGBs();
  } else {
    std::vector<int64_t> values;
    if (!rt::evaluatePlan(plan, shapes, values, error))
      fail("--profile: " + error);
    for (rt::StepSummary &s : rt::summarizePlanSteps(plan, values))
      profile.steps.push_back({std::move(s), -1});
  }
  if (json) {
    llvm::json::Array steps;
    for (const rt::StepProfile &p : profile.steps) {
      llvm::json::Object o;
      o["name"] = p.step.name;
      o["strategy"] = p.step.strategy;
      o["launch"] = p.step.shape;
      o["bytes"] = p.step.bytes;
      o["flops"] = p.step.flops;
      o["skipped"] = p.step.skipped;
      if (p.ms >= 0)
        o["ms"] = p.ms;
      steps.push_back(std::move(o));
    }
    report["profile"] = std::move(steps);
    if (profile.callMs >= 0)
      report["profile_call_ms"] = profile.callMs;
    if (peak > 0)
      report["peak_gbps"] = peak;
    return;
  }
  std::vector<std::string> dims;
  for (const std::vector<int64_t> &s : shapes)
    dims.push_back(formatDims(s));
  llvm::outs() << "profile of call " << call << " ("
               << llvm::join(dims, ", ") << ")"
               << (fn ? ", " + std::to_string(repeat) + " run(s) per step" +
                            (peak > 0 ? llvm::formatv(", memory peak {0:f0} "
                                                      "GB/s",
                                                      peak)
                                            .str()
                                      : std::string())
                      : std::string(": not timed (--compile-only)"))
               << ":\n"
               << rt::formatProfileTable(profile, peak);
}

int runOnCuda(ModuleOp module, func::FuncOp entry,
              const std::vector<Shapes> &calls,
              std::vector<std::vector<ref::HostTensor>> &inputs,
              PassManagerSetup &passManagers) {
  std::string why;
  if (!compileOnly && !rt::cudaDeviceAvailable(why))
    fail("--device cuda: no usable CUDA device: " + why);
  GpuCompileOptions options;
  setFrontendOptions(options, passManagers);
  options.chip = gpuChip;
  options.ptxOnly = ptxOnly;
  options.blockSize = gpuBlockSize;
  options.maxBlocks = gpuMaxBlocks;
  options.rowBlockSize = gpuRowBlockSize;
  options.longRowBlockSize = gpuLongRowBlockSize;
  options.rowRegisters = gpuRowRegisters;
  options.gemmEpilogues = gpuGemmEpilogues;
  options.tf32Matmuls = gpuTf32Matmuls;
  options.tf32Convolutions = gpuTf32Convolutions;
  options.cudnnConvolutions = gpuCudnnConvolutions;
  options.deviceAsserts = deviceAsserts;
  options.exactDivision = gpuExactDivision || exactDivision;
  options.dedupKernels = gpuDedupKernels;
  struct Spec {
    GpuCompileResult compiled;
    std::unique_ptr<rt::GpuFunction> fn;
  };
  std::vector<Spec> specs;
  std::vector<std::string> reasons;
  AutoDynamic autoDynamic;
  RunReport run;
  int64_t arenaBytes = 0;
  for (size_t n = 0; n < calls.size(); ++n) {
    std::vector<ref::HostTensor> &args = inputs[n];
    DeviceArgs device;
    if (!compileOnly)
      device.upload(args);
    // Guard dispatch over the plans' declarative guards, newest first.
    std::vector<std::vector<int64_t>> strides;
    std::vector<tgc_arg_desc> descs;
    for (const ref::HostTensor &a : args)
      strides.push_back(denseStrides(a.shape()));
    for (auto [i, a] : llvm::enumerate(args)) {
      tgc_arg_desc d{};
      d.data = compileOnly ? nullptr
                           : reinterpret_cast<void *>(device.tensors[i].ptr);
      d.sizes = a.shape().data();
      d.strides = strides[i].data();
      d.rank = a.rank();
      d.dtype = static_cast<int32_t>(a.dtype());
      d.device_type = TGC_DEVICE_CUDA;
      descs.push_back(d);
    }
    int chosen = -1;
    std::string miss;
    for (int k = static_cast<int>(specs.size()) - 1; k >= 0 && chosen < 0;
         --k) {
      std::string message;
      int32_t failed =
          rt::checkPlanGuards(specs[k].compiled.artifact.plan, descs.data(),
                              static_cast<int32_t>(descs.size()), message);
      if (failed == -1)
        chosen = k;
      else if (miss.empty())
        miss = message;
    }
    bool compiledNow = false;
    if (chosen < 0) {
      if (specs.size() >= TGC_DEFAULT_RECOMPILE_LIMIT)
        fail("@" + entry.getName() + ": recompile limit (" +
             llvm::Twine(TGC_DEFAULT_RECOMPILE_LIMIT) + ") reached: " + miss);
      options.exampleShapes = calls[n];
      autoDynamic.noteCompile(entry, calls[n]);
      options.vectorize = gpuVectorize;
      std::string error;
      PassManagerSetup::CompileTiming timing(passManagers);
      FailureOr<GpuCompileResult> compiled =
          compileGpuFunction(module, entry.getName(), options, error);
      if (failed(compiled))
        fail(error);
      // The new plan's own guards must accept the call that made it; when
      // only an alignment guard refuses (a view at an odd offset), the same
      // code without vector accesses does.
      std::string message;
      int32_t rejected =
          rt::checkPlanGuards(compiled->artifact.plan, descs.data(),
                              static_cast<int32_t>(descs.size()), message);
      if (rejected >= 0 && options.vectorize &&
          compiled->artifact.plan.guards[rejected].kind ==
              rt::GuardKind::Aligned) {
        options.vectorize = false;
        compiled = compileGpuFunction(module, entry.getName(), options, error);
        if (failed(compiled))
          fail(error);
        rejected =
            rt::checkPlanGuards(compiled->artifact.plan, descs.data(),
                                static_cast<int32_t>(descs.size()), message);
      }
      if (rejected != -1)
        fail("call " + llvm::Twine(n) + " is invalid: " + message);
      if (!specs.empty())
        reasons.push_back("call " + std::to_string(n) + ": " + miss);
      Spec spec;
      spec.compiled = std::move(*compiled);
      if (specs.empty()) {
        if (!emitArtifact.empty())
          writeFile(emitArtifact, rt::writeGpuArtifact(spec.compiled.artifact));
        if (!emitPlan.empty()) {
          std::string text = rt::serializePlan(spec.compiled.artifact.plan);
          if (emitPlan == "-")
            llvm::outs() << text;
          else
            writeFile(emitPlan, text);
        }
      }
      if (!compileOnly) {
        std::string error;
        spec.fn = rt::GpuFunction::load(spec.compiled.artifact, error);
        if (!spec.fn || !spec.fn->setDeviceAsserts(deviceAsserts, error))
          fail(error);
      }
      specs.push_back(std::move(spec));
      chosen = static_cast<int>(specs.size()) - 1;
      compiledNow = true;
    }
    Spec &spec = specs[chosen];
    llvm::json::Object report;
    llvm::json::Array shapeList;
    for (auto &sh : calls[n])
      shapeList.push_back(formatDims(sh));
    report["shapes"] = std::move(shapeList);
    report["entry_id"] = chosen;
    if (compileOnly) {
      if (!saveCase.empty()) {
        // Inputs, the reference's results and out buffers, for tgc-gpu-run;
        // without --check, the input shapes alone (random data there).
        bool reference = checkOpt == "reference";
        std::vector<ref::HostTensor> refArgs = copyTensors(args);
        std::vector<ref::HostTensor> expected;
        if (reference) {
          auto r = ref::interpret(entry, refArgs);
          if (failed(r))
            fail("the reference interpreter failed on call " +
                 std::to_string(n));
          expected = std::move(*r);
        }
        rt::CaseFile file;
        file.spec = static_cast<uint32_t>(chosen);
        file.reference = reference;
        for (const ref::HostTensor &t : args)
          file.args.push_back(caseTensor(t, reference));
        for (const ref::HostTensor &t : expected)
          file.expected.push_back(caseTensor(t));
        if (reference)
          for (const ref::HostTensor &t : refArgs)
            file.expectedArgs.push_back(caseTensor(t));
        writeFile(saveCase + "/call" + std::to_string(n) + ".case",
                  rt::writeCaseFile(file));
        if (compiledNow)
          writeFile(saveCase + "/spec" + std::to_string(chosen) + ".tgca",
                    rt::writeGpuArtifact(spec.compiled.artifact));
      }
      if (profileOpt && n + 1 == calls.size())
        profileCall(spec.compiled.artifact.plan, nullptr, n, calls[n], {},
                    report);
      run.callReports.push_back(std::move(report));
      continue;
    }

    std::vector<ref::HostTensor> refArgs = copyTensors(args);
    std::vector<ref::HostTensor> expected;
    if (checkOpt == "reference") {
      TimingScope timing = passManagers.root().nest("Reference");
      auto r = ref::interpret(entry, refArgs);
      if (failed(r))
        fail("the reference interpreter failed on call " + std::to_string(n));
      expected = std::move(*r);
    }
    std::vector<double> times;
    std::vector<rt::DeviceTensor> results;
    TimingScope runTiming = passManagers.root().nest("Run");
    for (unsigned k = 0; k < repeat; ++k) {
      // Every run starts from the original inputs (out buffers are
      // written); with --fresh-inputs in new buffers each time.
      if (k > 0) {
        if (freshInputs) {
          DeviceArgs fresh;
          fresh.upload(args);
          std::swap(device.tensors, fresh.tensors);
        } else {
          std::string error;
          for (auto [i, a] : llvm::enumerate(args))
            if (!rt::copyToDevice(device.tensors[i].ptr, a.data(), a.byteSize(),
                                  error))
              fail(error);
        }
        for (rt::DeviceTensor &t : results)
          rt::deviceFree(t.ptr);
        results.clear();
      }
      std::string error;
      auto start = std::chrono::steady_clock::now();
      bool ok = spec.fn->run(device.tensors, results, cudaGraphs, error);
      times.push_back(std::chrono::duration<double, std::milli>(
                          std::chrono::steady_clock::now() - start)
                          .count());
      if (!ok)
        fail(error);
    }
    double runMs = median(times);
    runTiming.stop();
    const rt::GpuRunStats &stats = spec.fn->stats();
    report["arena_bytes"] = stats.arenaBytes;
    arenaBytes = std::max(arenaBytes, stats.arenaBytes);
    if (!stats.graphFallback.empty())
      report["graph_fallback"] = stats.graphFallback;

    // Results and out buffers back to the host.
    std::vector<ref::HostTensor> hostResults, runArgs;
    std::string error;
    for (rt::DeviceTensor &t : results) {
      ref::HostTensor h(static_cast<ref::DType>(t.dtype), t.sizes);
      if (!rt::copyToHost(h.data(), t.ptr, h.byteSize(), error))
        fail(error);
      rt::deviceFree(t.ptr);
      hostResults.push_back(std::move(h));
    }
    for (auto [i, a] : llvm::enumerate(args)) {
      ref::HostTensor h(a.dtype(), a.shape());
      if (!rt::copyToHost(h.data(), device.tensors[i].ptr, h.byteSize(), error))
        fail(error);
      runArgs.push_back(std::move(h));
    }
    run.check(hostResults, expected, runArgs, refArgs, n, report);
    // --profile: into the call's JSON report, or printed after its lines.
    bool profileNow = profileOpt && n + 1 == calls.size();
    if (profileNow && json)
      profileCall(spec.compiled.artifact.plan, spec.fn.get(), n, calls[n],
                  device.tensors, report);
    run.finishCall(n, calls[n], compiledNow, runMs, "", hostResults,
                   std::move(report));
    if (profileNow && !json) {
      llvm::json::Object unused;
      profileCall(spec.compiled.artifact.plan, spec.fn.get(), n, calls[n],
                  device.tensors, unused);
    }
  }

  const GpuCompileResult &first = specs.front().compiled;
  std::vector<std::string> guards;
  // (An equality is two range guards with one text: listed once.)
  for (const rt::PlanGuard &g : first.artifact.plan.guards)
    if (!llvm::is_contained(guards, g.text + " (" + g.reason + ")"))
      guards.push_back(g.text + " (" + g.reason + ")");
  rt::GpuRunStats total;
  for (const Spec &spec : specs)
    if (spec.fn) {
      const rt::GpuRunStats &st = spec.fn->stats();
      total.graphCaptures += st.graphCaptures;
      total.graphReplays += st.graphReplays;
      total.patchedNodes += st.patchedNodes;
      total.graphResizes += st.graphResizes;
      total.gemmTunings += st.gemmTunings;
    }
  if (json) {
    llvm::json::Object out;
    out["function"] = entry.getName().str();
    out["device"] =
        compileOnly ? std::string("none (compile only)") : rt::deviceName();
    out["compiles"] = static_cast<int64_t>(specs.size());
    out["calls"] = static_cast<int64_t>(calls.size());
    out["compile_ms"] = first.compileMs;
    out["compile_phases"] = phasesToJson(first.phases);
    if (!compileOnly)
      run.addTotals(out);
    out["guards"] = toJson(guards);
    out["arena_bytes"] = arenaBytes;
    out["peak_bytes"] = arenaBytes;
    out["kernels"] = first.kernels;
    out["gemms"] = first.gemms;
    out["module_format"] = first.artifact.module.empty() ? "none"
                           : first.artifact.isPtx        ? "ptx"
                                                         : "cubin";
    out["cuda_graphs"] = static_cast<bool>(cudaGraphs);
    out["graph_captures"] = total.graphCaptures;
    out["graph_replays"] = total.graphReplays;
    out["patched_nodes"] = total.patchedNodes;
    out["graph_resizes"] = total.graphResizes;
    out["gemm_tunings"] = total.gemmTunings;
    out["recompile_reasons"] = toJson(reasons);
    out["per_call"] = std::move(run.callReports);
    llvm::outs() << llvm::formatv("{0:2}", llvm::json::Value(std::move(out)))
                 << "\n";
  } else {
    llvm::outs() << "compiled @" << entry.getName() << " " << specs.size()
                 << " time(s) for " << calls.size() << " call(s) on "
                 << (compileOnly ? "no device (compile only)"
                                 : rt::deviceName())
                 << "; compile " << llvm::format("%.1f", first.compileMs)
                 << " ms, " << first.kernels << " kernel(s), " << first.gemms
                 << " GEMM(s), " << (first.artifact.isPtx ? "PTX" : "cubin")
                 << "\n";
    if (!compileOnly)
      llvm::outs()
          << "run " << llvm::format("%.3f", median(run.runMedians))
          << " ms (median); arena " << arenaBytes << " bytes"
          << (cudaGraphs
                  ? "; CUDA graphs: " + std::to_string(total.graphCaptures) +
                        " captured, " + std::to_string(total.graphReplays) +
                        " replays, " + std::to_string(total.patchedNodes) +
                        " patched nodes"
                  : std::string())
          << "\n";
    for (const std::string &r : reasons)
      llvm::outs() << "recompiled: " << r << "\n";
    if (!compileOnly)
      run.printReference();
    llvm::outs() << "guards:\n";
    for (const std::string &g : guards)
      llvm::outs() << "  " << g << "\n";
  }
  llvm::outs().flush();
  return run.mismatch ? 1 : 0;
}

} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
#if defined(__GLIBC__)
  // Repeated runs reuse freed memory, as a caching allocator does: glibc
  // otherwise maps large buffers (results, the arena, input copies) anew
  // and unmaps them on free, and whether a run paid for faulting in 16 MiB
  // of fresh pages changed from process to process (a 4096 x 1024 chain
  // measured 4.3 or 12 ms).
  mallopt(M_MMAP_MAX, 0);
  mallopt(M_TRIM_THRESHOLD, -1);
#endif
  registerAllTgcPasses();
  parseCommandLine(argc, argv);
  PassManagerSetup passManagers;

  DialectRegistry registry;
  registerAllTgcDialects(registry);
  MLIRContext context(registry);
  context.loadAllAvailableDialects();
  if (!optionGiven("mlir-print-op-on-diagnostic"))
    context.printOpOnDiagnostic(false);
  TimingScope parseTiming = passManagers.root().nest("Parse");
  llvm::SourceMgr sourceMgr;
  std::string errorMessage;
  auto file = openInputFile(inputFile, &errorMessage);
  if (!file)
    fail(errorMessage);
  sourceMgr.AddNewSourceBuffer(std::move(file), SMLoc());
  SourceMgrDiagnosticHandler diagHandler(sourceMgr, &context);
  // The parser's state keeps the source names of block arguments (%x):
  // --shape and --calls take them as ARG.
  AsmParserState asmState;
  Block parsed;
  OwningOpRef<ModuleOp> module;
  if (succeeded(parseAsmSourceFile(sourceMgr, &parsed, ParserConfig(&context),
                                   &asmState)))
    module = detail::constructContainerOpForParserIfNecessary<ModuleOp>(
        &parsed, &context,
        FileLineColLoc::get(&context, inputFile, /*line=*/0, /*column=*/0));
  if (!module)
    fail("cannot parse '" + inputFile + "'");
  parseTiming.stop();

  // The entry function.
  std::string entryError;
  func::FuncOp entry = findEntryFunction(*module, entryName, entryError);
  if (!entry)
    fail(entryError + " in '" + inputFile + "'" +
         (StringRef(entryError).starts_with("several")
              ? ": choose one with --entry"
              : ""));
  EntryArguments arguments(entry, asmState);
  for (Type t : entry.getArgumentTypes())
    if (!isa<RankedTensorType>(t))
      fail("@" + entry.getName() +
           " has a non-tensor argument: tgc-run runs functions of tensors");

  // The calls: sizes per argument.
  unsigned numArgs = entry.getNumArguments();
  Shapes base(numArgs);
  arguments.applyShapeSpecs(shapeOpts, base, "--shape");
  std::vector<Shapes> calls;
  if (callOpts.empty()) {
    calls.push_back(base);
  } else {
    for (const std::string &call : callOpts) {
      Shapes s = base;
      SmallVector<StringRef> specs;
      StringRef(call).split(specs, ',');
      std::vector<std::string> list(specs.begin(), specs.end());
      arguments.applyShapeSpecs(list, s, "--calls");
      calls.push_back(s);
    }
  }

  // Inputs of each call.
  std::vector<std::vector<ref::HostTensor>> inputs;
  if (!inputsOpt.empty()) {
    if (calls.size() != 1)
      fail("--inputs gives the inputs of one call; don't combine it with "
           "several --calls");
    SmallVector<StringRef> paths;
    StringRef(inputsOpt).split(paths, ',');
    if (paths.size() != numArgs)
      fail("@" + entry.getName() + " takes " + llvm::Twine(numArgs) +
           " arguments, --inputs gives " + llvm::Twine(paths.size()));
    std::vector<ref::HostTensor> args;
    Shapes shapes(numArgs);
    for (auto [i, p] : llvm::enumerate(paths)) {
      args.push_back(readNpy(p));
      auto type = cast<RankedTensorType>(entry.getArgumentTypes()[i]);
      if (ref::dtypeOf(type.getElementType()) != args.back().dtype())
        fail("input " + llvm::Twine(i) + " ('" + p + "') is " +
             ref::dtypeName(args.back().dtype()) + ", the argument is " +
             ref::dtypeName(*ref::dtypeOf(type.getElementType())));
      shapes[i].assign(args.back().shape().begin(), args.back().shape().end());
    }
    validateShapes(entry, arguments, shapes, "--inputs");
    calls = {shapes};
    inputs.push_back(std::move(args));
  } else {
    std::mt19937_64 rng(seed);
    for (auto [n, shapes] : llvm::enumerate(calls)) {
      validateShapes(entry, arguments, shapes, "call " + std::to_string(n));
      inputs.push_back(randomInputs(entry, shapes, rng));
    }
  }

  if (device == "cuda")
    return runOnCuda(*module, entry, calls, inputs, passManagers);

  // Compile on demand through the runtime's dispatch cache.
  std::vector<std::unique_ptr<CompiledCpuFunction>> compiled;
  std::string compileError;
  std::vector<double> compileMs;
  CpuCompileOptions options;
  setFrontendOptions(options, passManagers);
  options.openmp = openmp;
  options.approximateMath = approxMath;
  options.directConvolutions = directConvolutions;
  options.vectorMath = vectorMath;
  options.vectorWidth = vectorWidth;
  options.reassociate = !strictReductions;
  options.exactDivision = exactDivision;
  size_t currentCall = 0;
  AutoDynamic autoDynamic;
  ::tgc::runtime::DispatchCache cache(
      entry.getName().str(), [&](const ::tgc::runtime::CompileRequest &) {
        options.exampleShapes = calls[currentCall];
        autoDynamic.noteCompile(entry, calls[currentCall]);
        compileError.clear();
        PassManagerSetup::CompileTiming timing(passManagers);
        auto fn = CompiledCpuFunction::compile(*module, entry.getName(),
                                               options, compileError);
        if (!fn)
          return ::tgc::runtime::CompileResult::failure(compileError);
        compileMs.push_back(fn->stats().compileMs);
        compiled.push_back(std::move(fn));
        return ::tgc::runtime::CompileResult::success(
            {compiled.back()->guard(), compiled.back()->guardInfo(),
             compiled.back().get(), nullptr});
      });

  RunReport run;
  CpuMemoryUse memory; // the largest over the calls
  for (size_t n = 0; n < calls.size(); ++n) {
    currentCall = n;
    std::vector<ref::HostTensor> &args = inputs[n];
    std::vector<std::vector<int64_t>> strides;
    std::vector<tgc_arg_desc> descs = describeArguments(args, strides);
    ::tgc::runtime::DispatchResult r =
        cache.dispatch(descs.data(), static_cast<int32_t>(descs.size()));
    if (!r.hasEntry())
      fail(r.error
               ? r.error
               : "no compiled specialization for call " + std::to_string(n));
    auto *fn = static_cast<CompiledCpuFunction *>(r.entry);

    // Reference first, on copies of the inputs (out buffers are written).
    std::vector<ref::HostTensor> refArgs = copyTensors(args);
    std::vector<ref::HostTensor> expected;
    if (checkOpt == "reference") {
      TimingScope timing = passManagers.root().nest("Reference");
      auto ref = ref::interpret(entry, refArgs);
      if (failed(ref))
        fail("the reference interpreter failed on call " + std::to_string(n) +
             " (see the diagnostic above)");
      expected = std::move(*ref);
    }

    // Timed runs; every run starts from the original inputs (out buffers).
    std::vector<double> times;
    std::vector<ref::HostTensor> results;
    std::vector<ref::HostTensor> runArgs;
    TimingScope runTiming = passManagers.root().nest("Run");
    for (unsigned k = 0; k < repeat; ++k) {
      runArgs = copyTensors(args);
      std::string error;
      auto start = std::chrono::steady_clock::now();
      auto out = fn->run(runArgs, error);
      times.push_back(std::chrono::duration<double, std::milli>(
                          std::chrono::steady_clock::now() - start)
                          .count());
      if (failed(out))
        fail(error);
      results = std::move(*out);
    }
    double runMs = median(times);
    runTiming.stop();

    llvm::json::Object report;
    llvm::json::Array shapeList;
    for (auto &s : calls[n])
      shapeList.push_back(formatDims(s));
    report["shapes"] = std::move(shapeList);
    report["entry_id"] = r.entryId;
    CpuMemoryUse use = fn->memoryUse(calls[n]);
    report["arena_bytes"] = use.arenaBytes;
    report["peak_bytes"] = use.peakBytes;
    memory.arenaBytes = std::max(memory.arenaBytes, use.arenaBytes);
    memory.peakBytes = std::max(memory.peakBytes, use.peakBytes);

    run.check(results, expected, runArgs, refArgs, n, report);
    run.finishCall(n, calls[n],
                   r.status == ::tgc::runtime::DispatchStatus::Compiled, runMs,
                   ", arena " + std::to_string(use.arenaBytes) + " bytes",
                   results, std::move(report));
  }

  const CpuCompileStats &stats = compiled.front()->stats();
  ::tgc::runtime::DispatchStats dispatchStats = cache.stats();
  if (json) {
    llvm::json::Object out;
    out["function"] = entry.getName().str();
    out["compiles"] = static_cast<int64_t>(dispatchStats.compiles);
    out["calls"] = static_cast<int64_t>(calls.size());
    out["compile_ms"] = compileMs.empty() ? 0.0 : compileMs.front();
    out["compile_phases"] = phasesToJson(stats.phases);
    run.addTotals(out);
    out["guards"] = toJson(compiled.front()->guardDescriptions());
    out["arena_bytes"] = memory.arenaBytes;
    out["peak_bytes"] = memory.peakBytes;
    out["planned_buffers"] = stats.plannedBuffers;
    out["kernels"] = stats.kernels;
    out["recompile_reasons"] = toJson(dispatchStats.recompileReasons);
    out["per_call"] = std::move(run.callReports);
    llvm::outs() << llvm::formatv("{0:2}", llvm::json::Value(std::move(out)))
                 << "\n";
  } else {
    llvm::outs() << "compiled @" << entry.getName() << " "
                 << dispatchStats.compiles << " time(s) for " << calls.size()
                 << " call(s); compile "
                 << llvm::format("%.1f", stats.compileMs) << " ms, run "
                 << llvm::format("%.3f", median(run.runMedians))
                 << " ms (median), " << stats.kernels << " kernel(s)\n"
                 << "memory: " << stats.plannedBuffers
                 << " intermediate buffer(s) in an arena of "
                 << memory.arenaBytes << " bytes (peak live "
                 << memory.peakBytes << " bytes)\n";
    for (const std::string &reason : dispatchStats.recompileReasons)
      llvm::outs() << "recompiled: " << reason << "\n";
    run.printReference();
    llvm::outs() << "guards:\n";
    for (const std::string &g : compiled.front()->guardDescriptions())
      llvm::outs() << "  " << g << "\n";
  }
  llvm::outs().flush();
  return run.mismatch ? 1 : 0;
}
