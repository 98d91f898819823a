//===- CompilerCAPI.cpp - The C API of tgc_compiler.h ---------------------===//
//
// Wraps CompiledCpuFunction (JIT-compiled CPU code) and the GPU compiler
// plus runtime (artifact, launch plan, GpuFunction) behind one handle type.
// Every handle owns its MLIRContext: compiled code and plans refer to
// attributes the context owns, and separate contexts keep concurrent
// compiles and long-lived handles independent.
//
//===----------------------------------------------------------------------===//

#include "tgc-c/tgc_compiler.h"

#include <cstdio>

#include "CompiledHandle.h"

#include "tgc/Compiler/CacheLocations.h"
#include "tgc/Compiler/CompileReport.h"
#include "tgc/Compiler/CompilerUtils.h"
#include "tgc/Compiler/CpuCompiler.h"
#include "tgc/Compiler/GpuCompiler.h"
#include "tgc/Compiler/HostOptimizer.h"
#include "tgc/InitAllDialects.h"
#include "tgc/InitAllPasses.h"
#include "tgc/Reference/Interpreter.h"
#include "tgc/Runtime/DispatchCache.h"
#include "tgc/Runtime/GpuExecutor.h"
#include "tgc/Runtime/GpuPlan.h"
#include "tgc/Transforms/Tf32.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <cstring>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

using namespace mlir;
using namespace mlir::tgc;
using mlir::tgc::capi::Options;
namespace rt = ::tgc::runtime;

namespace {
thread_local std::string lastError;
// The last tgc_compiled_profile's text, per thread (as lastError).
thread_local std::string profileText;

void setError(std::string message) { lastError = std::move(message); }

int64_t copyOut(const std::string &text, char *buffer, size_t size) {
  if (buffer && size > 0) {
    size_t n = std::min(size - 1, text.size());
    std::memcpy(buffer, text.data(), n);
    buffer[n] = '\0';
  }
  return static_cast<int64_t>(text.size());
}

bool parseBool(StringRef key, StringRef value, bool &out, std::string &error) {
  if (value == "1" || value == "true") {
    out = true;
    return true;
  }
  if (value == "0" || value == "false") {
    out = false;
    return true;
  }
  error = ("option " + key + "=" + value + ": expected 0 or 1").str();
  return false;
}

bool parseOptions(StringRef text, Options &o, std::string &error) {
  const std::pair<StringRef, bool *> flags[] = {
      {"zero-one", &o.zeroOne},
      {"duck", &o.duck},
      {"fuse", &o.fuse},
      {"decompose", &o.decompose},
      {"keep-code", &o.keepCode},
      {"openmp", &o.openmp},
      {"approximate-math", &o.approximateMath},
      {"vector-math", &o.vectorMath},
      {"direct-convolutions", &o.directConvolutions},
      {"cuda-graphs", &o.cudaGraphs},
      {"device-asserts", &o.deviceAsserts},
      {"ptx-only", &o.ptxOnly},
      {"tf32-matmuls", &o.tf32Matmuls},
      {"tf32-convolutions", &o.tf32Convolutions},
      {"cudnn-convolutions", &o.cudnnConvolutions},
  };
  SmallVector<StringRef> words;
  text.split(words, ' ', -1, /*KeepEmpty=*/false);
  for (StringRef word : words) {
    StringRef key = word.split('=').first, value = word.split('=').second;
    if (!word.contains('=')) {
      error = ("option '" + word + "' is not key=value").str();
      return false;
    }
    auto flag = llvm::find_if(flags, [&](auto &f) { return f.first == key; });
    if (flag != std::end(flags)) {
      if (!parseBool(key, value, *flag->second, error))
        return false;
    } else if (key == "device") {
      if (value != "cpu" && value != "cuda") {
        error = ("unknown device '" + value + "' (cpu or cuda)").str();
        return false;
      }
      o.cuda = value == "cuda";
    } else if (key == "policy") {
      if (value != "dynamic" && value != "static" && value != "auto") {
        error = ("unknown policy '" + value + "' (dynamic, static or auto)")
                    .str();
        return false;
      }
      o.policy = value.str();
    } else if (key == "block-size" || key == "max-blocks" ||
               key == "row-block-size") {
      int64_t n;
      if (value.getAsInteger(10, n) || n <= 0) {
        error = ("option " + key + "=" + value + ": expected a positive integer")
                    .str();
        return false;
      }
      (key == "block-size"  ? o.blockSize
       : key == "max-blocks" ? o.maxBlocks
                             : o.rowBlockSize) = n;
    } else if (key == "long-row-block-size") {
      int64_t n;
      if (value.getAsInteger(10, n) || n < 0) {
        error = ("option " + key + "=" + value +
                 ": expected 0 or a positive integer")
                    .str();
        return false;
      }
      o.longRowBlockSize = n;
    } else if (key == "row-registers" || key == "gemm-epilogues" ||
               key == "vectorize" || key == "exact-division" ||
               key == "dedup-kernels") {
      bool b;
      if (!parseBool(key, value, b, error))
        return false;
      (key == "row-registers"    ? o.rowRegisters
       : key == "gemm-epilogues" ? o.gemmEpilogues
       : key == "vectorize"      ? o.vectorize
       : key == "dedup-kernels"  ? o.dedupKernels
                                 : o.exactDivision) = b;
    } else if (key == "vector-width") {
      if (value.getAsInteger(10, o.vectorWidth) ||
          !isVectorWidthOption(o.vectorWidth)) {
        error = ("option vector-width=" + value + ": " + kVectorWidthExpected)
                    .str();
        return false;
      }
    } else if (key == "opt-level") {
      if (value.getAsInteger(10, o.optLevel) || o.optLevel > 3) {
        error = ("option opt-level=" + value + ": expected 0..3").str();
        return false;
      }
    } else if (key == "chip") {
      o.chip = value.str();
    } else if (key == "cache-dir") {
      // Options are split at spaces: a path's spaces come as %20, its %
      // signs as %25.
      std::string path;
      for (size_t i = 0; i < value.size(); ++i) {
        if (value.substr(i).starts_with("%20")) {
          path += ' ';
          i += 2;
        } else if (value.substr(i).starts_with("%25")) {
          path += '%';
          i += 2;
        } else {
          path += value[i];
        }
      }
      o.cacheDir = path;
    } else if (key == "cache-max-mb") {
      uint64_t mb = 0;
      if (value.getAsInteger(10, mb) || mb == 0 || mb > (1ull << 30)) {
        error = ("option cache-max-mb=" + value + ": expected a positive "
                 "number of MiB").str();
        return false;
      }
      o.cacheMaxBytes = mb << 20;
    } else if (key == "shared-libs") {
      SmallVector<StringRef> libs;
      value.split(libs, ':', -1, /*KeepEmpty=*/false);
      for (StringRef lib : libs)
        o.sharedLibs.push_back(lib.str());
    } else if (key == "example") {
      auto [arg, dims] = value.split(':');
      int64_t index;
      std::vector<int64_t> shape;
      if (arg.getAsInteger(10, index) || index < 0 || !value.contains(':')) {
        error = ("option example=" + value + ": expected ARG:D0xD1...").str();
        return false;
      }
      SmallVector<StringRef> parts;
      dims.split(parts, 'x', -1, /*KeepEmpty=*/false);
      for (StringRef p : parts) {
        int64_t d;
        if (p.getAsInteger(10, d) || d < 0) {
          error = ("option example=" + value + ": bad size '" + p + "'").str();
          return false;
        }
        shape.push_back(d);
      }
      o.examples.emplace_back(index, std::move(shape));
    } else {
      error = ("unknown option '" + key + "'").str();
      return false;
    }
  }
  return true;
}

/// The options the CPU and GPU compilers share.
template <typename CompileOptions>
void setCommonOptions(CompileOptions &options, const Options &o,
                      std::vector<std::vector<int64_t>> examples) {
  options.policy = o.policy;
  options.specializeZeroOne = o.zeroOne;
  options.duckSizing = o.duck;
  options.exampleShapes = std::move(examples);
  options.fuse = o.fuse;
  options.decompose = o.decompose;
}

std::once_flag registerOnce;
} // namespace

extern "C" {

int32_t tgc_capi_version(void) { return TGC_CAPI_VERSION; }

const char *tgc_last_error(void) { return lastError.c_str(); }

int32_t tgc_cuda_available(char *why, size_t size) {
  std::string reason;
  if (rt::cudaDeviceAvailable(reason))
    return 1;
  copyOut(reason, why, size);
  return 0;
}

} // extern "C"

/// A compile that does not look at the cache: parse, compile, fill the
/// handle. Null with the error set.
static std::unique_ptr<tgc_compiled> compileModule(const char *moduleText,
                                                   const char *entryName,
                                                   const Options &o) {
  std::string error;
  std::call_once(registerOnce, [] { registerAllTgcPasses(); });

  auto result = std::make_unique<tgc_compiled>();
  DialectRegistry registry;
  registerAllTgcDialects(registry);
  result->context = std::make_unique<MLIRContext>(
      registry, MLIRContext::Threading::DISABLED);
  MLIRContext *ctx = result->context.get();
  ctx->loadAllAvailableDialects();

  CompilePhases parse;
  parse.begin("parse");
  {
    ErrorCollector diagnostics(ctx);
    result->module = parseSourceString<ModuleOp>(moduleText, ctx, "<input>");
    if (!result->module) {
      setError("tgc_compile: the module does not parse:\n" +
               diagnostics.text);
      return nullptr;
    }
  }
  parse.end();
  auto phaseText = [&](const auto &list) {
    CompilePhases all = parse;
    std::string text = all.text();
    for (const auto &[name, ms] : list)
      text += ";" + name + "=" + std::to_string(ms);
    return text;
  };
  func::FuncOp entry =
      findEntryFunction(*result->module, entryName ? entryName : "", error);
  if (!entry) {
    setError("tgc_compile: " + error + " in the module");
    return nullptr;
  }
  result->numArgs = static_cast<int32_t>(entry.getNumArguments());
  result->tf32 = o.cuda ? tf32Kinds(entry) : "";
  result->numResults = static_cast<int32_t>(entry.getNumResults());
  std::vector<std::vector<int64_t>> examples(entry.getNumArguments());
  for (auto &[index, shape] : o.examples) {
    if (index >= result->numArgs) {
      setError("tgc_compile: example for argument " + std::to_string(index) +
               ", but @" + entry.getName().str() + " has " +
               std::to_string(result->numArgs) + " arguments");
      return nullptr;
    }
    examples[index] = shape;
  }
  std::string name = entry.getName().str();

  if (!o.cuda) {
    CpuCompileOptions options;
    setCommonOptions(options, o, examples);
    options.openmp = o.openmp;
    options.approximateMath = o.approximateMath;
    options.vectorMath = o.vectorMath;
    options.vectorWidth = o.vectorWidth;
    options.exactDivision = o.exactDivision.value_or(false);
    options.directConvolutions = o.directConvolutions;
    options.optLevel = o.optLevel;
    options.sharedLibs = o.sharedLibs;
    options.keepLoopsIR = o.keepCode;
    options.keepObject = !o.cacheDir.empty();
    result->cpu = CompiledCpuFunction::compile(*result->module, name, options,
                                               error);
    if (!result->cpu) {
      setError(error);
      return nullptr;
    }
    result->compileMs = result->cpu->stats().compileMs;
    result->kernels = result->cpu->stats().kernels;
    result->loops = result->cpu->loopsIR();
    result->guards = result->cpu->guardsIR();
    result->kernels_ = result->cpu->kernelMap();
    result->arena = result->cpu->arenaLayoutText();
    result->phases = phaseText(result->cpu->stats().phases);
    if (const tgc_guard_set_info *info = result->cpu->guardInfo())
      for (int32_t i = 0; i < info->num_guards; ++i) {
        result->guardTexts.push_back(info->guards[i].text);
        result->guardReasons.push_back(info->guards[i].reason);
      }
    return result;
  }

  GpuCompileOptions options;
  setCommonOptions(options, o, std::move(examples));
  options.chip = o.chip;
  options.ptxOnly = o.ptxOnly;
  options.tf32Matmuls = o.tf32Matmuls;
  options.tf32Convolutions = o.tf32Convolutions;
  options.cudnnConvolutions = o.cudnnConvolutions;
  options.deviceAsserts = o.deviceAsserts;
  // The kernel options given; the others keep their defaults.
  auto given = [](auto &field, const auto &value) {
    if (value)
      field = *value;
  };
  given(options.vectorize, o.vectorize);
  given(options.exactDivision, o.exactDivision);
  given(options.dedupKernels, o.dedupKernels);
  given(options.blockSize, o.blockSize);
  given(options.maxBlocks, o.maxBlocks);
  given(options.rowBlockSize, o.rowBlockSize);
  given(options.longRowBlockSize, o.longRowBlockSize);
  given(options.rowRegisters, o.rowRegisters);
  given(options.gemmEpilogues, o.gemmEpilogues);
  FailureOr<GpuCompileResult> compiled =
      compileGpuFunction(*result->module, name, options, error);
  if (failed(compiled)) {
    setError(error);
    return nullptr;
  }
  result->cuda = true;
  result->cudaGraphs = o.cudaGraphs;
  result->deviceAsserts = o.deviceAsserts;
  result->artifact = std::move(compiled->artifact);
  result->compileMs = compiled->compileMs;
  result->kernels = compiled->kernels + compiled->gemms;
  result->phases = phaseText(compiled->phases);
  result->kernels_ = compiled->kernelMap;
  result->arena = compiled->arenaLayout;
  result->steps = compiled->steps;
  for (const rt::PlanGuard &g : result->artifact.plan.guards) {
    result->guardTexts.push_back(g.text);
    result->guardReasons.push_back(g.reason);
  }
  if (o.keepCode) {
    result->plan = rt::serializePlan(result->artifact.plan);
    if (result->artifact.isPtx)
      result->ptx = result->artifact.module;
  }
  return result;
}

extern "C" {

tgc_compiled *tgc_compile(const char *moduleText, const char *entryName,
                          const char *optionText) {
  lastError.clear();
  if (!moduleText) {
    setError("tgc_compile: module text is NULL");
    return nullptr;
  }
  Options o;
  std::string error;
  if (!parseOptions(optionText ? optionText : "", o, error)) {
    setError("tgc_compile: " + error);
    return nullptr;
  }
  // Without a build ID to key entries on, the cache stays off (a warning
  // on the handle says so).
  bool noFingerprint = !o.cacheDir.empty() && compilerFingerprint().empty();
  if (o.cacheDir.empty() || noFingerprint) {
    std::unique_ptr<tgc_compiled> result =
        compileModule(moduleText, entryName, o);
    if (result && noFingerprint)
      result->cacheWarning = "the compile cache is off: TGC's binaries carry "
                             "no GNU build ID to key entries on";
    return result ? result.release() : nullptr;
  }
  // The compile cache (docs/compile-cache.md): a hit needs no MLIR pass.
  auto start = std::chrono::steady_clock::now();
  ArtifactCache cache(o.cacheDir, o.cacheMaxBytes);
  // The key leaves the source lines out (tgc/Compiler/CacheLocations.h).
  NumberedLocations numbered = numberLocations(moduleText);
  std::string key =
      capi::compileCacheKey(o, numbered.text, entryName ? entryName : "");
  std::string warning;
  if (std::optional<std::string> payload = cache.load(key, warning)) {
    CacheRecord record;
    std::unique_ptr<tgc_compiled> hit;
    if (CacheRecord::parse(*payload, record, error))
      hit = capi::fromCacheRecord(record, o, error);
    // The entry's code reports its compile's lines: rewritten to this
    // module's, or, where that cannot be told apart, compiled again.
    bool unmapped = false;
    if (hit) {
      std::optional<Relocation> relocation =
          Relocation::between(record.getLines("locations"), numbered.locations);
      // Kernels that assert (device-asserts) print their compile's lines
      // from the device, where nothing rewrites them: only an entry of the
      // same lines serves.
      if (relocation && o.cuda && o.deviceAsserts && !relocation->isIdentity())
        relocation.reset();
      if (relocation) {
        capi::relocate(*hit, *relocation);
      } else {
        hit.reset();
        unmapped = true;
      }
    }
    if (hit) {
      double ms = std::chrono::duration<double, std::milli>(
                      std::chrono::steady_clock::now() - start)
                      .count();
      hit->compileMs = ms;
      hit->phases = "disk cache=" + std::to_string(ms);
      hit->cacheStatus = "hit";
      hit->cacheKey = key;
      hit->cachePath = cache.pathOf(key);
      return hit.release();
    }
    if (unmapped) {
      // The same program, whose lines cannot be told apart in the entry's
      // messages: compiled again, and the entry replaced.
      warning = "did not use the cache entry " + cache.pathOf(key) +
                ": its source locations do not map one to one onto this "
                "module's (two columns of one line now on two lines); "
                "compiling again";
    } else {
      // A whole entry that does not load (another TGC's layout): not used.
      warning = "ignored the cache entry " + cache.pathOf(key) + ": " + error +
                "; compiling again";
      llvm::sys::fs::remove(cache.pathOf(key));
    }
  }
  std::unique_ptr<tgc_compiled> result =
      compileModule(moduleText, entryName, o);
  if (!result)
    return nullptr;
  result->cacheKey = key;
  result->cachePath = cache.pathOf(key);
  result->cacheWarning = warning;
  CacheRecord record;
  std::string storeWarning;
  error.clear(); // (it may hold why a rejected entry did not load)
  record.setLines("locations", numbered.locations);
  if (capi::toCacheRecord(*result, record, error) &&
      cache.store(key, record.serialize(), storeWarning)) {
    result->cacheStatus = "miss";
  } else {
    result->cacheStatus = "miss, not stored";
    std::string why = storeWarning.empty() ? error : storeWarning;
    result->cacheWarning += (result->cacheWarning.empty() ? "" : "; ") +
                            ("not stored in the compile cache: " + why);
  }
  return result.release();
}

const char *tgc_compiled_cache(const tgc_compiled *c, const char *what) {
  if (!c || !what)
    return "";
  StringRef w(what);
  if (w == "status")
    return c->cacheStatus.c_str();
  if (w == "key")
    return c->cacheKey.c_str();
  if (w == "path")
    return c->cachePath.c_str();
  if (w == "warning")
    return c->cacheWarning.c_str();
  return "";
}

void tgc_compiled_destroy(tgc_compiled *compiled) { delete compiled; }

int32_t tgc_compiled_device(const tgc_compiled *c) {
  return c && c->cuda ? TGC_DEVICE_CUDA : TGC_DEVICE_CPU;
}
int32_t tgc_compiled_num_args(const tgc_compiled *c) {
  return c ? c->numArgs : -1;
}
int32_t tgc_compiled_num_results(const tgc_compiled *c) {
  return c ? c->numResults : -1;
}
double tgc_compiled_compile_ms(const tgc_compiled *c) {
  return c ? c->compileMs : 0;
}
const char *tgc_compiled_phases(const tgc_compiled *c) {
  return c ? c->phases.c_str() : "";
}
int64_t tgc_compiled_kernels(const tgc_compiled *c) {
  return c ? c->kernels : 0;
}
int32_t tgc_compiled_num_guards(const tgc_compiled *c) {
  return c ? static_cast<int32_t>(c->guardTexts.size()) : 0;
}
const char *tgc_compiled_guard_text(const tgc_compiled *c, int32_t i) {
  if (!c || i < 0 || i >= static_cast<int32_t>(c->guardTexts.size()))
    return nullptr;
  return c->guardTexts[i].c_str();
}
const char *tgc_compiled_guard_reason(const tgc_compiled *c, int32_t i) {
  if (!c || i < 0 || i >= static_cast<int32_t>(c->guardReasons.size()))
    return nullptr;
  return c->guardReasons[i].c_str();
}

int32_t tgc_compiled_check_guards(const tgc_compiled *c,
                                  const tgc_arg_desc *args, int32_t n) {
  if (!c || (n > 0 && !args) || n != c->numArgs)
    return -2;
  if (!c->cuda)
    return c->cpu->guard()(args, n);
  std::string message;
  return rt::checkPlanGuards(c->artifact.plan, args, n, message);
}

int64_t tgc_compiled_describe_failure(const tgc_compiled *c, int32_t guard,
                                      const tgc_arg_desc *args, int32_t n,
                                      char *buffer, size_t size) {
  std::string text;
  if (!c)
    text = "no compiled function";
  else if (n != c->numArgs)
    text = "the function takes " + std::to_string(c->numArgs) +
           " arguments, got " + std::to_string(n);
  else if (!c->cuda)
    text = c->located(
        rt::describeGuardFailure(c->cpu->guardInfo(), guard, args, n));
  else if (rt::checkPlanGuards(c->artifact.plan, args, n, text) == -1)
    text = "every guard passes";
  return copyOut(text, buffer, size);
}

int64_t tgc_compiled_arena_bytes(const tgc_compiled *c,
                                 const tgc_arg_desc *args, int32_t n) {
  if (!c)
    return -1;
  if (c->cuda)
    return c->gpu ? c->gpu->stats().arenaBytes : -1;
  if (n != c->numArgs || (n > 0 && !args))
    return -1;
  std::vector<std::vector<int64_t>> shapes;
  for (int32_t i = 0; i < n; ++i)
    shapes.emplace_back(args[i].sizes,
                        args[i].sizes + std::max<int64_t>(args[i].rank, 0));
  return c->cpu->memoryUse(shapes).arenaBytes;
}

const char *tgc_compiled_code(const tgc_compiled *c, const char *what) {
  if (!c || !what)
    return "";
  StringRef w(what);
  if (w == "loops")
    return c->loops.c_str();
  if (w == "plan")
    return c->plan.c_str();
  if (w == "guards")
    return c->guards.c_str();
  if (w == "kernels")
    return c->kernels_.c_str();
  if (w == "arena")
    return c->arena.c_str();
  if (w == "ptx")
    return c->ptx.c_str();
  if (w == "steps")
    return c->steps.c_str();
  if (w == "tf32")
    return c->tf32.c_str();
  return "";
}

/// What a run or profile checks of its arguments; sets the error.
static bool validRunArguments(const std::string &prefix, const tgc_compiled *c,
                              const tgc_arg_desc *args, int32_t n) {
  if (!c || (n > 0 && !args)) {
    setError(prefix + "invalid arguments");
    return false;
  }
  if (n != c->numArgs) {
    setError(prefix + "the function takes " + std::to_string(c->numArgs) +
             " arguments, got " + std::to_string(n));
    return false;
  }
  for (int32_t i = 0; i < n; ++i)
    if (args[i].device_type != (c->cuda ? TGC_DEVICE_CUDA : TGC_DEVICE_CPU) ||
        args[i].rank < 0) {
      setError(prefix + "argument " + std::to_string(i) +
               (args[i].rank < 0 ? " is not a tensor"
                                 : " is on the wrong device"));
      return false;
    }
  return true;
}

/// The GPU function of `c`, loaded on first use (under c->runMutex).
static bool loadGpu(tgc_compiled *c, std::string &error) {
  if (c->gpu)
    return true;
  c->gpu = rt::GpuFunction::load(c->artifact, error);
  if (!c->gpu)
    return false;
  // Without the check kernel the plan's checks are read on the host: the
  // same errors, recoverable, and calls that wait for them.
  std::string why;
  if (!c->gpu->setDeviceAsserts(c->deviceAsserts, why))
    std::fprintf(stderr,
                 "tgc: device asserts are not available (%s); the plan's "
                 "checks are read on the host\n",
                 why.c_str());
  return true;
}

static std::vector<rt::DeviceTensor> deviceTensors(const tgc_arg_desc *args,
                                                   int32_t n) {
  std::vector<rt::DeviceTensor> inputs(n);
  for (int32_t i = 0; i < n; ++i) {
    inputs[i].ptr = reinterpret_cast<uint64_t>(args[i].data);
    inputs[i].sizes.assign(args[i].sizes, args[i].sizes + args[i].rank);
    inputs[i].dtype = args[i].dtype;
  }
  return inputs;
}

/// tgc_compiled_run and tgc_compiled_run_on_stream: `stream` is null for
/// the former (its own stream, results copied, waits). With `tryOnly`, a
/// CUDA function another thread is running is left alone: returns 1.
static int32_t runCompiled(const char *api, tgc_compiled *c,
                           const tgc_arg_desc *args, int32_t n,
                           tgc_result_alloc_fn alloc, void *user,
                           const uint64_t *stream, bool tryOnly = false) {
  lastError.clear();
  std::string prefix = std::string(api) + ": ";
  if (!alloc) {
    setError(prefix + "invalid arguments");
    return -1;
  }
  if (!validRunArguments(prefix, c, args, n))
    return -1;
  std::string error;
  if (!c->cuda) {
    LogicalResult ok = c->cpu->runDescriptors(
        ArrayRef<tgc_arg_desc>(args, n),
        [&](int32_t index, ref::DType dtype, ArrayRef<int64_t> shape,
            std::string &) -> void * {
          return alloc(user, index, static_cast<int32_t>(dtype),
                       static_cast<int64_t>(shape.size()), shape.data());
        },
        error);
    if (failed(ok)) {
      setError(prefix + c->located(error));
      return -1;
    }
    return 0;
  }

  std::unique_lock<std::mutex> lock(c->runMutex, std::defer_lock);
  if (!tryOnly)
    lock.lock();
  else if (!lock.try_lock() || !c->gpu)
    return 1; // busy, or its module is not loaded yet (slow)
  if (!loadGpu(c, error)) {
    setError(prefix + error);
    return -1;
  }
  std::vector<rt::DeviceTensor> inputs = deviceTensors(args, n), results;
  if (stream) {
    // The results are the caller's memory, written in place on its stream.
    rt::RunTarget target;
    target.callerStream = true;
    target.stream = *stream;
    target.noWait = tryOnly;
    target.allocResult = [&](size_t index, int32_t dtype,
                             const std::vector<int64_t> &sizes,
                             std::string &why) -> uint64_t {
      void *out = alloc(user, static_cast<int32_t>(index), dtype,
                        static_cast<int64_t>(sizes.size()), sizes.data());
      if (!out)
        why = "the allocator returned no memory";
      return reinterpret_cast<uint64_t>(out);
    };
    if (!c->gpu->run(inputs, results, c->cudaGraphs, error, /*wait=*/false,
                     &target)) {
      if (target.wouldWait)
        return 1;
      setError(prefix + error);
      return -1;
    }
    return 0;
  }
  if (!c->gpu->run(inputs, results, c->cudaGraphs, error)) {
    setError(prefix + error);
    return -1;
  }
  bool ok = true;
  for (size_t i = 0; i < results.size(); ++i) {
    rt::DeviceTensor &r = results[i];
    if (ok) {
      int64_t bytes = rt::dtypeBytes(r.dtype);
      for (int64_t s : r.sizes)
        bytes *= s;
      void *out = alloc(user, static_cast<int32_t>(i), r.dtype,
                        static_cast<int64_t>(r.sizes.size()), r.sizes.data());
      if (!out) {
        error = "no memory for result " + std::to_string(i);
        ok = false;
      } else if (!rt::copyOnDevice(reinterpret_cast<uint64_t>(out), r.ptr,
                                   static_cast<uint64_t>(bytes), error)) {
        ok = false;
      }
    }
    rt::deviceFree(r.ptr);
  }
  if (!ok) {
    setError(prefix + error);
    return -1;
  }
  return 0;
}

int32_t tgc_compiled_run(tgc_compiled *c, const tgc_arg_desc *args,
                         int32_t n, tgc_result_alloc_fn alloc, void *user) {
  return runCompiled("tgc_compiled_run", c, args, n, alloc, user, nullptr);
}

int32_t tgc_compiled_run_on_stream(tgc_compiled *c, const tgc_arg_desc *args,
                                   int32_t n, tgc_result_alloc_fn alloc,
                                   void *user, void *stream) {
  uint64_t handle = reinterpret_cast<uint64_t>(stream);
  return runCompiled("tgc_compiled_run_on_stream", c, args, n, alloc, user,
                     &handle);
}

int32_t tgc_compiled_try_run_on_stream(tgc_compiled *c,
                                       const tgc_arg_desc *args, int32_t n,
                                       tgc_result_alloc_fn alloc, void *user,
                                       void *stream) {
  uint64_t handle = reinterpret_cast<uint64_t>(stream);
  return runCompiled("tgc_compiled_try_run_on_stream", c, args, n, alloc, user,
                     &handle, /*tryOnly=*/true);
}

const char *tgc_compiled_profile(tgc_compiled *c, const tgc_arg_desc *args,
                                 int32_t n, int32_t repeat) {
  lastError.clear();
  const std::string prefix = "tgc_compiled_profile: ";
  if (!validRunArguments(prefix, c, args, n))
    return nullptr;
  repeat = std::max<int32_t>(repeat, 1);
  std::string error, text;
  auto number = [](double v) { return llvm::formatv("{0:f6}", v).str(); };
  if (!c->cuda) {
    // The whole call: results in scratch memory.
    std::vector<std::vector<char>> scratch;
    auto runOnce = [&]() {
      scratch.clear();
      return c->cpu->runDescriptors(
          ArrayRef<tgc_arg_desc>(args, n),
          [&](int32_t, ref::DType dtype, ArrayRef<int64_t> shape,
              std::string &) -> void * {
            int64_t bytes = static_cast<int64_t>(ref::elementBytes(dtype));
            for (int64_t d : shape)
              bytes *= d;
            scratch.emplace_back(static_cast<size_t>(std::max<int64_t>(
                bytes, 1)));
            return scratch.back().data();
          },
          error);
    };
    if (failed(runOnce())) {
      setError(prefix + c->located(error));
      return nullptr;
    }
    auto start = std::chrono::steady_clock::now();
    for (int32_t r = 0; r < repeat; ++r)
      if (failed(runOnce())) {
        setError(prefix + c->located(error));
        return nullptr;
      }
    double ms = std::chrono::duration<double, std::milli>(
                    std::chrono::steady_clock::now() - start)
                    .count() /
                repeat;
    profileText = "call\t" + number(ms) + "\n";
    return profileText.c_str();
  }
  std::lock_guard<std::mutex> lock(c->runMutex);
  if (!loadGpu(c, error)) {
    setError(prefix + error);
    return nullptr;
  }
  rt::PlanProfile profile;
  if (!c->gpu->profile(deviceTensors(args, n), repeat, profile, error)) {
    setError(prefix + error);
    return nullptr;
  }
  for (const rt::StepProfile &step : profile.steps) {
    std::string summary = rt::formatStepSummaries({step.step});
    if (!summary.empty())
      summary.pop_back(); // its newline
    text += "step\t" + summary + "\t" + number(step.ms) + "\n";
  }
  text += "call\t" + number(profile.callMs) + "\n";
  text += "device\t" + rt::deviceName() + "\t" +
          number(rt::devicePeakBandwidthGBs()) + "\n";
  profileText = std::move(text);
  return profileText.c_str();
}

void tgc_compiled_gpu_stats(const tgc_compiled *c, int64_t *out) {
  if (!out)
    return;
  for (int i = 0; i < 12; ++i)
    out[i] = 0;
  if (!c || !c->gpu)
    return;
  const rt::GpuRunStats &s = c->gpu->stats();
  out[0] = s.launches;
  out[1] = s.gemms;
  out[2] = s.graphCaptures;
  out[3] = s.graphReplays;
  out[4] = s.patchedNodes;
  out[5] = s.graphResizes;
  out[6] = s.gemmTunings;
  out[7] = s.gemmTuningsFromDisk;
  out[8] = s.convs;
  out[9] = s.convTunings;
  out[10] = s.convTuningsFromDisk;
  out[11] = s.checkWaits;
}

} // extern "C"

int32_t tgc_reference_run(const char *moduleText, const char *entryName,
                          const tgc_arg_desc *args, int32_t n,
                          tgc_result_alloc_fn alloc, void *user) {
  lastError.clear();
  if (!moduleText || !alloc || (n > 0 && !args)) {
    setError("tgc_reference_run: invalid arguments");
    return -1;
  }
  DialectRegistry registry;
  registerAllTgcDialects(registry);
  MLIRContext ctx(registry, MLIRContext::Threading::DISABLED);
  ctx.loadAllAvailableDialects();
  ErrorCollector diagnostics(&ctx);
  OwningOpRef<ModuleOp> module =
      parseSourceString<ModuleOp>(moduleText, &ctx, "<input>");
  if (!module) {
    setError("tgc_reference_run: the module does not parse:\n" +
             diagnostics.text);
    return -1;
  }
  std::string error;
  func::FuncOp entry =
      findEntryFunction(*module, entryName ? entryName : "", error);
  if (!entry) {
    setError("tgc_reference_run: " + error + " in the module");
    return -1;
  }
  if (n != static_cast<int32_t>(entry.getNumArguments())) {
    setError("tgc_reference_run: @" + entry.getName().str() + " takes " +
             std::to_string(entry.getNumArguments()) + " arguments, got " +
             std::to_string(n));
    return -1;
  }
  std::vector<ref::HostTensor> inputs;
  for (int32_t i = 0; i < n; ++i) {
    const tgc_arg_desc &a = args[i];
    if (a.device_type != TGC_DEVICE_CPU || a.rank < 0 ||
        a.dtype < 0 || a.dtype > TGC_DTYPE_U8) {
      setError("tgc_reference_run: argument " + std::to_string(i) +
               " is not a host tensor of a TGC dtype");
      return -1;
    }
    // uint8 is interpreted as its i8 storage (the code computes widened).
    auto dtype = static_cast<ref::DType>(rt::storageDtype(a.dtype));
    ref::HostTensor t(dtype, ArrayRef<int64_t>(a.sizes, a.rank));
    std::string noMemory = ref::HostTensor::takeAllocationFailure();
    if (!noMemory.empty()) {
      setError("tgc_reference_run: argument " + std::to_string(i) + ": " +
               noMemory);
      return -1;
    }
    if (t.byteSize())
      std::memcpy(t.data(), a.data, t.byteSize());
    inputs.push_back(std::move(t));
  }
  FailureOr<std::vector<ref::HostTensor>> results =
      ref::interpret(entry, inputs);
  if (failed(results)) {
    setError("tgc_reference_run: " + diagnostics.text);
    return -1;
  }
  // Out arguments were written in the copies: back into the caller's.
  for (int32_t i = 0; i < n; ++i)
    if (inputs[i].byteSize() && args[i].data != inputs[i].data())
      std::memcpy(args[i].data, inputs[i].data(), inputs[i].byteSize());
  for (auto [index, r] : llvm::enumerate(*results)) {
    void *out = alloc(user, static_cast<int32_t>(index),
                      static_cast<int32_t>(r.dtype()), r.rank(),
                      r.shape().data());
    if (!out) {
      setError("tgc_reference_run: no memory for result " +
               std::to_string(index));
      return -1;
    }
    if (r.byteSize())
      std::memcpy(out, r.data(), r.byteSize());
  }
  return 0;
}
