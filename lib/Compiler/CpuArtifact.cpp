//===- CpuArtifact.cpp - a compiled CPU function as bytes, and back --------===//
//
// What the compile cache keeps of a CompiledCpuFunction
// (docs/compile-cache.md): the object code the JIT produced (the entry's C
// interface, its packed wrapper and the guard function), the entry's
// signature, the memory plan's maps and what reports show. Loading links
// the object into a JIT of its own, resolving libm, libomp and the
// runtime's callbacks as the ExecutionEngine does; no MLIR pass runs.
//
//===----------------------------------------------------------------------===//

#include "tgc/Compiler/CpuCompiler.h"

#include "RuntimeSymbols.h"

#include "tgc/Compiler/ArtifactCache.h"
#include "tgc/Compiler/HostOptimizer.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/ExecutionEngine/Orc/ExecutionUtils.h"
#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/ExecutionEngine/Orc/LLJIT.h"
#include "llvm/ExecutionEngine/Orc/RTDyldObjectLinkingLayer.h"
#include "llvm/ExecutionEngine/SectionMemoryManager.h"
#include "llvm/Support/DynamicLibrary.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <cstring>
#include <mutex>

#ifndef TGC_LIBOMP_PATH
#define TGC_LIBOMP_PATH ""
#endif

using namespace mlir;
using namespace mlir::tgc;

namespace {
std::string printed(Type t) {
  std::string s;
  llvm::raw_string_ostream os(s);
  t.print(os);
  return s;
}
std::string printed(AffineMap m) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << "affine_map<" << m << ">";
  return s;
}

} // namespace

bool CompiledCpuFunction::serialize(CacheRecord &record,
                                    std::string &error) const {
  if (objectCode.empty()) {
    error = "no object code was kept (CpuCompileOptions::keepObject)";
    return false;
  }
  record.set("kind", "cpu");
  record.set("object", objectCode);
  record.set("entry", entryName);
  record.set("symbol", jitSymbol);
  std::vector<std::string> args, results, peaks, dims;
  for (RankedTensorType t : argTypes)
    args.push_back(printed(t));
  for (RankedTensorType t : resultTypes)
    results.push_back(printed(t));
  record.setLines("args", args);
  record.setLines("results", results);
  if (arenaMap)
    record.set("arena_map", printed(arenaMap));
  for (AffineMap m : peakMaps)
    peaks.push_back(printed(m));
  record.setLines("peak_maps", peaks);
  for (auto [arg, dim] : planDims)
    dims.push_back(std::to_string(arg) + " " + std::to_string(dim));
  record.setLines("plan_dims", dims);
  record.setInt("kernels", compileStats.kernels);
  record.setInt("planned_buffers", compileStats.plannedBuffers);
  record.set("loops", loopsText);
  record.set("guards", guardsText);
  record.set("kernel_map", kernelsText);
  record.set("arena", arenaText);
  return true;
}

std::unique_ptr<CompiledCpuFunction>
CompiledCpuFunction::load(const CacheRecord &record, MLIRContext *context,
                          const std::vector<std::string> &sharedLibs,
                          bool openmp, std::string &error) {
  static std::once_flag initTargets;
  std::call_once(initTargets, [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
  });
  if (record.get("kind") != "cpu") {
    error = "not a CPU artifact";
    return nullptr;
  }
  std::unique_ptr<CompiledCpuFunction> result(new CompiledCpuFunction());
  result->entryName = record.get("entry");
  result->jitSymbol = record.get("symbol");
  for (int list = 0; list < 2; ++list)
    for (const std::string &text :
         record.getLines(list == 0 ? "args" : "results")) {
      auto type = dyn_cast_or_null<RankedTensorType>(parseType(text, context));
      if (!type) {
        error = "bad type '" + text + "'";
        return nullptr;
      }
      (list == 0 ? result->argTypes : result->resultTypes).push_back(type);
    }
  auto parseMap = [&](llvm::StringRef text) -> std::optional<AffineMap> {
    auto map = dyn_cast_or_null<AffineMapAttr>(parseAttribute(text, context));
    if (!map) {
      error = "bad map '" + text.str() + "'";
      return std::nullopt;
    }
    return map.getValue();
  };
  if (record.has("arena_map")) {
    std::optional<AffineMap> map = parseMap(record.get("arena_map"));
    if (!map)
      return nullptr;
    result->arenaMap = *map;
  }
  for (const std::string &text : record.getLines("peak_maps")) {
    std::optional<AffineMap> map = parseMap(text);
    if (!map)
      return nullptr;
    result->peakMaps.push_back(*map);
  }
  for (const std::string &text : record.getLines("plan_dims")) {
    auto [arg, dim] = llvm::StringRef(text).split(' ');
    int64_t a = 0, d = 0;
    if (arg.getAsInteger(10, a) || dim.getAsInteger(10, d)) {
      error = "bad memory-plan dims '" + text + "'";
      return nullptr;
    }
    result->planDims.emplace_back(a, d);
  }
  result->compileStats.kernels = record.getInt("kernels");
  result->compileStats.plannedBuffers = record.getInt("planned_buffers");
  result->loopsText = record.get("loops");
  result->guardsText = record.get("guards");
  result->kernelsText = record.get("kernel_map");
  result->arenaText = record.get("arena");

  // The object in a JIT of its own.
  auto start = std::chrono::steady_clock::now();
  auto fail = [&](llvm::Error e, const std::string &what) {
    error = what + ": " + llvm::toString(std::move(e));
    return nullptr;
  };
  auto builder = llvm::orc::JITTargetMachineBuilder::detectHost();
  if (!builder)
    return fail(builder.takeError(), "no JIT target for the host");
  builder->setCodeGenOptLevel(llvm::CodeGenOptLevel::Aggressive);
  auto jit =
      llvm::orc::LLJITBuilder()
          .setJITTargetMachineBuilder(std::move(*builder))
          .setObjectLinkingLayerCreator([](llvm::orc::ExecutionSession &es) {
            return std::make_unique<llvm::orc::RTDyldObjectLinkingLayer>(
                es, [](const llvm::MemoryBuffer &) {
                  return std::make_unique<llvm::SectionMemoryManager>();
                });
          })
          .create();
  if (!jit)
    return fail(jit.takeError(), "cannot create a JIT");
  llvm::orc::JITDylib &main = (*jit)->getMainJITDylib();
  // Vector math calls resolve in libmvec, loaded into the process.
  vectorMathAvailable();
  // libomp and MLIR's runner utils (the compile's defaults unless given):
  // loaded into the process, whose symbols the JIT resolves.
  std::vector<std::string> libs = sharedLibs;
  if (libs.empty() && openmp && std::strlen(TGC_LIBOMP_PATH))
    libs.push_back(TGC_LIBOMP_PATH);
  if (sharedLibs.empty())
    libs.push_back(TGC_C_RUNNER_UTILS_PATH);
  for (const std::string &lib : libs) {
    std::string why;
    if (llvm::sys::DynamicLibrary::LoadLibraryPermanently(lib.c_str(), &why)) {
      error = "cannot load " + lib + ": " + why;
      return nullptr;
    }
  }
  auto process = llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(
      (*jit)->getDataLayout().getGlobalPrefix());
  if (!process)
    return fail(process.takeError(), "cannot search the process's symbols");
  main.addGenerator(std::move(*process));
  llvm::orc::MangleAndInterner interner((*jit)->getExecutionSession(),
                                        (*jit)->getDataLayout());
  if (llvm::Error e =
          main.define(llvm::orc::absoluteSymbols(runtimeSymbols(interner))))
    return fail(std::move(e), "cannot define the runtime's symbols");
  std::string object = record.get("object");
  if (llvm::Error e = (*jit)->addObjectFile(
          llvm::MemoryBuffer::getMemBufferCopy(object, "tgc-cached-object")))
    return fail(std::move(e), "cannot add the cached object");
  if (llvm::Error e = (*jit)->initialize(main))
    return fail(std::move(e), "cannot initialize the cached object");
  auto lookup = [&](const std::string &name) -> void * {
    auto address = (*jit)->lookup(name);
    if (!address) {
      error = "the cached object has no symbol " + name + ": " +
              llvm::toString(address.takeError());
      return nullptr;
    }
    return address->toPtr<void *>();
  };
  void *entryFn = lookup("_mlir__mlir_ciface_" + result->jitSymbol);
  void *guard = entryFn ? lookup("tgc_guard_" + result->jitSymbol) : nullptr;
  void *info = guard ? lookup("tgc_guard_info_" + result->jitSymbol) : nullptr;
  if (!info)
    return nullptr;
  result->entryFn = reinterpret_cast<void (*)(void **)>(entryFn);
  result->guardFn = reinterpret_cast<tgc_guard_fn>(guard);
  result->guardSetInfo = static_cast<const tgc_guard_set_info *>(info);
  result->objectCode = std::move(object);
  result->cachedJit = std::move(*jit);
  double ms = std::chrono::duration<double, std::milli>(
                  std::chrono::steady_clock::now() - start)
                  .count();
  result->compileStats.compileMs = ms;
  return result;
}
