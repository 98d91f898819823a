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

#include "tgc/Compiler/CpuJit.h"

#include "tgc/Compiler/ArtifactCache.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/ExecutionEngine/Orc/LLJIT.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>

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
  if (objects.empty()) {
    error = "no object code was kept (CpuCompileOptions::keepObject)";
    return false;
  }
  record.set("kind", "cpu");
  // One object per part the LLVM work was split into (tgc/Compiler/CpuJit.h).
  record.set("object", objects[0]);
  record.setInt("objects", static_cast<int64_t>(objects.size()));
  for (size_t i = 1; i < objects.size(); ++i)
    record.set("object." + std::to_string(i), objects[i]);
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

bool CompiledCpuFunction::link(std::vector<std::string> objectList,
                               const std::vector<std::string> &sharedLibs,
                               bool openmp, bool perfListener, bool keep,
                               std::string &error) {
  auto fail = [&](llvm::Error e, const std::string &what) {
    error = what + ": " + llvm::toString(std::move(e));
    return false;
  };
  auto created = createHostJit(sharedLibs, openmp, perfListener);
  if (!created)
    return fail(created.takeError(), "cannot create a JIT");
  if (llvm::Error e = addObjects(**created, objectList))
    return fail(std::move(e), "cannot link the objects");
  auto lookup = [&](const std::string &name) -> void * {
    auto address = (*created)->lookup(name);
    if (!address) {
      error = "the object code of @" + entryName + " has no symbol " + name +
              ": " + llvm::toString(address.takeError());
      return nullptr;
    }
    return address->toPtr<void *>();
  };
  // The entry is resolved once here, not by name on every call.
  void *entry = lookup("_mlir__mlir_ciface_" + jitSymbol);
  void *guard = entry ? lookup("tgc_guard_" + jitSymbol) : nullptr;
  void *info = guard ? lookup("tgc_guard_info_" + jitSymbol) : nullptr;
  if (!info)
    return false;
  entryFn = reinterpret_cast<void (*)(void **)>(entry);
  guardFn = reinterpret_cast<tgc_guard_fn>(guard);
  guardSetInfo = static_cast<const tgc_guard_set_info *>(info);
  compileStats.objects = static_cast<int64_t>(objectList.size());
  if (keep)
    objects = std::move(objectList);
  jit = std::move(*created);
  return true;
}

std::unique_ptr<CompiledCpuFunction>
CompiledCpuFunction::load(const CacheRecord &record, MLIRContext *context,
                          const std::vector<std::string> &sharedLibs,
                          bool openmp, std::string &error) {
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

  // The objects in a JIT of their own.
  auto start = std::chrono::steady_clock::now();
  int64_t count = record.has("objects") ? record.getInt("objects") : 1;
  if (count < 1) {
    error = "bad object count " + std::to_string(count);
    return nullptr;
  }
  std::vector<std::string> objects;
  for (int64_t i = 0; i < count; ++i) {
    std::string key = i == 0 ? "object" : "object." + std::to_string(i);
    if (!record.has(key)) {
      error = "the record has no " + key;
      return nullptr;
    }
    objects.push_back(record.get(key));
  }
  if (!result->link(std::move(objects), sharedLibs, openmp,
                    /*perfListener=*/false, /*keep=*/true, error))
    return nullptr;
  double ms = std::chrono::duration<double, std::milli>(
                  std::chrono::steady_clock::now() - start)
                  .count();
  result->compileStats.compileMs = ms;
  return result;
}
