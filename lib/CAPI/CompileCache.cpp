//===- CompileCache.cpp - tgc_compiled handles to and from cache entries --===//
//
// The C API's half of the compile cache (docs/compile-cache.md): the key of
// a compile request, and a compiled handle as a CacheRecord and back. A GPU
// entry is the checksummed GPU artifact (plan, cubin or PTX) plus what
// reports show; a CPU entry is the JIT's object code (CpuArtifact.cpp).
//
//===----------------------------------------------------------------------===//

#include "CompiledHandle.h"

#include "tgc/Compiler/HostOptimizer.h"
#include "tgc/Target/NVPTX/NVPTXTarget.h"

#include "llvm/Support/Error.h"

#include <gnu/libc-version.h>
#include <sys/stat.h>

using namespace mlir;
using namespace mlir::tgc;
using namespace mlir::tgc::capi;
namespace rt = ::tgc::runtime;

namespace {

/// Every option that changes the compiled code, in a fixed order (the
/// runtime-only ones, cuda-graphs and shared-libs, are left out).
std::string canonicalOptions(const Options &o) {
  std::string text;
  auto add = [&](const char *key, const std::string &value) {
    text += std::string(key) + "=" + value + " ";
  };
  auto flag = [](bool b) { return std::string(b ? "1" : "0"); };
  auto maybe = [](const auto &v) {
    return v ? std::to_string(*v) : std::string("default");
  };
  add("device", o.cuda ? "cuda" : "cpu");
  add("policy", o.policy);
  add("zero-one", flag(o.zeroOne));
  add("duck", flag(o.duck));
  add("fuse", flag(o.fuse));
  add("decompose", flag(o.decompose));
  add("keep-code", flag(o.keepCode));
  if (o.cuda) {
    add("chip", o.chip);
    add("ptx-only", flag(o.ptxOnly));
    add("block-size", maybe(o.blockSize));
    add("max-blocks", maybe(o.maxBlocks));
    add("row-block-size", maybe(o.rowBlockSize));
    add("long-row-block-size", maybe(o.longRowBlockSize));
    add("row-registers", maybe(o.rowRegisters));
    add("gemm-epilogues", maybe(o.gemmEpilogues));
    add("vectorize", maybe(o.vectorize));
    add("exact-division", maybe(o.exactDivision));
    add("dedup-kernels", maybe(o.dedupKernels));
    add("tf32-matmuls", flag(o.tf32Matmuls));
    add("tf32-convolutions", flag(o.tf32Convolutions));
    add("cudnn-convolutions", flag(o.cudnnConvolutions));
    add("device-asserts", flag(o.deviceAsserts)); // checks in the kernels
  } else {
    add("openmp", flag(o.openmp));
    add("approximate-math", flag(o.approximateMath));
    add("vector-math", flag(o.vectorMath));
    add("exact-division", flag(o.exactDivision.value_or(false)));
    // As resolved: 0 and 512 make the same code on an AVX-512 host.
    add("vector-width", std::to_string(resolveVectorWidth(o.vectorWidth)));
    add("direct-convolutions", flag(o.directConvolutions));
    add("opt-level", std::to_string(o.optLevel));
  }
  std::vector<std::pair<int64_t, std::vector<int64_t>>> examples = o.examples;
  std::stable_sort(examples.begin(), examples.end(),
                   [](const auto &a, const auto &b) { return a.first < b.first; });
  for (const auto &[index, shape] : examples) {
    std::string dims;
    for (int64_t d : shape)
      dims += std::to_string(d) + "x";
    add("example", std::to_string(index) + ":" + dims);
  }
  return text;
}

/// A file's identity: path, size and modification time ("" when absent).
std::string fileIdentity(const std::string &path) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0)
    return "";
  return path + " " + std::to_string(st.st_size) + " " +
         std::to_string(st.st_mtim.tv_sec);
}

/// What the code is made for and with, besides TGC's build: on the CPU the
/// host CPU and glibc (whose libmvec the vectorized loops call, when it is
/// loaded); on the GPU the chip, the ptxas that makes the cubin and the
/// libdevice the kernels link (each as found for this compile).
std::string targetFingerprint(const Options &o) {
  if (!o.cuda)
    return "cpu " + hostCpuFingerprint() + " glibc " + gnu_get_libc_version() +
           (o.vectorMath && vectorMathAvailable() ? " libmvec" : "");
  // Found once per process: the search stats several places.
  static const std::string toolkit = [] {
    std::string text;
    llvm::Expected<std::string> ptxas = findPtxas();
    if (ptxas)
      text += " ptxas " + fileIdentity(*ptxas);
    else
      llvm::consumeError(ptxas.takeError());
    llvm::Expected<std::string> libdevice = findLibdevice();
    if (libdevice)
      text += " libdevice " + fileIdentity(*libdevice);
    else
      llvm::consumeError(libdevice.takeError());
    return text;
  }();
  return "cuda " + o.chip + (o.ptxOnly ? " ptx-only" : "") + toolkit;
}

} // namespace

std::string mlir::tgc::capi::compileCacheKey(const Options &o,
                                             llvm::StringRef keyText,
                                             llvm::StringRef entry) {
  return cacheKey({compilerFingerprint(), targetFingerprint(o),
                   canonicalOptions(o), entry.str(), keyText.str()});
}

bool mlir::tgc::capi::toCacheRecord(const tgc_compiled &c, CacheRecord &record,
                                    std::string &error) {
  if (c.cuda) {
    record.set("kind", "gpu");
    record.set("artifact", rt::writeGpuArtifact(c.artifact));
  } else if (!c.cpu || !c.cpu->serialize(record, error)) {
    if (error.empty())
      error = "no compiled function";
    return false;
  }
  record.setInt("num_args", c.numArgs);
  record.setInt("num_results", c.numResults);
  record.setInt("kernel_count", c.kernels);
  record.set("loops", c.loops);
  record.set("guard_code", c.guards);
  record.set("kernel_map", c.kernels_);
  record.set("arena", c.arena);
  record.set("steps", c.steps);
  record.set("tf32", c.tf32);
  return true;
}

std::unique_ptr<tgc_compiled>
mlir::tgc::capi::fromCacheRecord(const CacheRecord &record, const Options &o,
                                 std::string &error) {
  auto c = std::make_unique<tgc_compiled>();
  std::string kind = record.get("kind");
  if (kind != (o.cuda ? "gpu" : "cpu")) {
    error = "an entry of kind '" + kind + "' for a " +
            (o.cuda ? "CUDA" : "CPU") + " compile";
    return nullptr;
  }
  c->numArgs = static_cast<int32_t>(record.getInt("num_args"));
  c->numResults = static_cast<int32_t>(record.getInt("num_results"));
  c->kernels = record.getInt("kernel_count");
  c->loops = record.get("loops");
  c->guards = record.get("guard_code");
  c->kernels_ = record.get("kernel_map");
  c->arena = record.get("arena");
  c->steps = record.get("steps");
  c->tf32 = record.get("tf32");
  if (o.cuda) {
    c->cuda = true;
    c->cudaGraphs = o.cudaGraphs;
    c->deviceAsserts = o.deviceAsserts;
    if (!rt::readGpuArtifact(record.get("artifact"), c->artifact, error))
      return nullptr;
    for (const rt::PlanGuard &g : c->artifact.plan.guards) {
      c->guardTexts.push_back(g.text);
      c->guardReasons.push_back(g.reason);
    }
    if (int32_t(c->artifact.plan.args.size()) != c->numArgs ||
        int32_t(c->artifact.plan.results.size()) != c->numResults) {
      error = "the artifact's signature differs from the entry's";
      return nullptr;
    }
    if (o.keepCode) {
      c->plan = rt::serializePlan(c->artifact.plan);
      if (c->artifact.isPtx)
        c->ptx = c->artifact.module;
    }
    return c;
  }
  // Types and maps of the CPU function: the builtin dialect is enough.
  c->context = std::make_unique<MLIRContext>(MLIRContext::Threading::DISABLED);
  std::vector<std::string> libs = o.sharedLibs;
  c->cpu = CompiledCpuFunction::load(record, c->context.get(), libs, o.openmp,
                                     error);
  if (!c->cpu)
    return nullptr;
  if (const tgc_guard_set_info *info = c->cpu->guardInfo())
    for (int32_t i = 0; i < info->num_guards; ++i) {
      c->guardTexts.push_back(info->guards[i].text);
      c->guardReasons.push_back(info->guards[i].reason);
    }
  if (int32_t(c->cpu->argumentTypes().size()) != c->numArgs ||
      int32_t(c->cpu->resultTypesOf().size()) != c->numResults) {
    error = "the object's signature differs from the entry's";
    return nullptr;
  }
  return c;
}

void mlir::tgc::capi::relocate(tgc_compiled &c, const Relocation &relocation) {
  if (relocation.isIdentity())
    return;
  for (std::string *text :
       {&c.loops, &c.guards, &c.kernels_, &c.steps, &c.plan})
    relocation.applyInPlace(*text);
  for (std::vector<std::string> *texts : {&c.guardTexts, &c.guardReasons})
    for (std::string &text : *texts)
      relocation.applyInPlace(text);
  if (c.cuda) {
    // The plan's messages, before its function loads from the artifact.
    rt::Plan &plan = c.artifact.plan;
    for (rt::PlanGuard &g : plan.guards) {
      relocation.applyInPlace(g.text);
      relocation.applyInPlace(g.reason);
    }
    for (rt::PlanStep &step : plan.steps)
      if (step.kind == rt::PlanStep::Check)
        relocation.applyInPlace(step.check.message);
    return;
  }
  // The CPU object's messages (data checks, guards, allocations) are in
  // its code: rewritten as they are reported.
  c.relocation = relocation;
}
