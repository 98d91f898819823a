//===- HostOptimizer.cpp - LLVM's pipeline for the host, with vector math -===//
//
// The CPU JIT's LLVM optimization: the -O pipeline for the host's target
// machine (its cost model decides what vectorizes), with the loop
// vectorizer told about glibc's vector math library, libmvec, so that a
// loop calling expf, logf, tanhf, erff, ... calls `_ZGVdN8v_tanhf` on eight
// lanes at a time instead of libm's scalar function eight times
// (docs/cpu-pipeline.md, "Numerics"). LLVM's own LIBMVEC table covers
// sin, cos, tan, pow, exp and log at 4 and 8 lanes; the table below adds
// the functions glibc 2.35 added and the 16-lane AVX-512 variants, each
// only where the loaded libmvec has it and the host has the instructions.
//
//===----------------------------------------------------------------------===//

#include "tgc/Compiler/HostOptimizer.h"

#include "llvm/Analysis/TargetLibraryInfo.h"
#include "llvm/IR/Module.h"
#include "llvm/Passes/OptimizationLevel.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Transforms/IPO/MergeFunctions.h"
#include "llvm/Support/DynamicLibrary.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/Host.h"

#include <cstring>
#include <deque>
#include <mutex>
#include <string>

using namespace mlir;
using namespace mlir::tgc;

namespace {

/// libmvec, loaded into the process once (its symbols then resolve in
/// every JIT), or not found.
struct VectorMath {
  bool loaded = false;
  llvm::sys::DynamicLibrary library;
  /// The mappings beyond LLVM's LIBMVEC table; their strings live here.
  std::deque<std::string> names;
  std::vector<llvm::VecDesc> extra;
};

VectorMath &vectorMath() {
  static VectorMath state;
  static std::once_flag once;
  std::call_once(once, [] {
    std::string error;
    for (const char *name : {"libmvec.so.1", "libmvec.so"}) {
      state.library = llvm::sys::DynamicLibrary::getPermanentLibrary(name,
                                                                     &error);
      if (state.library.isValid())
        break;
    }
    state.loaded = state.library.isValid();
    if (!state.loaded)
      return;
    llvm::StringMap<bool> features = llvm::sys::getHostCPUFeatures();
    bool avx2 = features.lookup("avx2"), avx512 = features.lookup("avx512f");
    // glibc's names: _ZGV<isa>N<lanes><v per argument>_<scalar>; b: SSE4,
    // d: AVX2, e: AVX-512.
    struct Isa {
      char letter;
      unsigned floatLanes;
      bool usable;
    };
    const Isa isas[] = {{'b', 4, true}, {'d', 8, avx2}, {'e', 16, avx512}};
    struct Function {
      const char *name;
      bool binary;
      bool inLLVMTable; // LLVM maps its 4- and 8-lane float variants
    };
    const Function functions[] = {
        {"exp", false, true},    {"log", false, true},
        {"sin", false, true},    {"cos", false, true},
        {"tan", false, true},    {"pow", true, true},
        {"tanh", false, false},  {"erf", false, false},
        {"erfc", false, false},  {"log1p", false, false},
        {"expm1", false, false}, {"exp2", false, false},
        {"log2", false, false},  {"log10", false, false},
        {"exp10", false, false}, {"atan", false, false},
        {"asin", false, false},  {"acos", false, false},
        {"sinh", false, false},  {"cosh", false, false},
        {"atanh", false, false}, {"asinh", false, false},
        {"acosh", false, false}, {"cbrt", false, false},
    };
    for (const Function &f : functions)
      for (const Isa &isa : isas) {
        if (!isa.usable)
          continue;
        for (bool single : {true, false}) {
          unsigned lanes = single ? isa.floatLanes : isa.floatLanes / 2;
          // LLVM's table has the 4- and 8-lane floats (b, d) and the
          // doubles of those ISAs already.
          if (f.inLLVMTable && isa.letter != 'e')
            continue;
          std::string scalar = std::string(f.name) + (single ? "f" : "");
          std::string args = f.binary ? "vv" : "v";
          std::string vector = std::string("_ZGV") + isa.letter + "N" +
                               std::to_string(lanes) + args + "_" + scalar;
          if (!state.library.getAddressOfSymbol(vector.c_str()))
            continue; // an older glibc
          std::string abi = "_ZGV_LLVM_N" + std::to_string(lanes) + args;
          const std::string &s = state.names.emplace_back(scalar);
          const std::string &v = state.names.emplace_back(vector);
          const std::string &a = state.names.emplace_back(abi);
          state.extra.emplace_back(s, v, llvm::ElementCount::getFixed(lanes),
                                   /*Masked=*/false, a, std::nullopt);
          // The intrinsic form of the same function (math ops LLVM has
          // intrinsics for are lowered to them).
          if (f.inLLVMTable || !std::strcmp(f.name, "exp2") ||
              !std::strcmp(f.name, "log2") || !std::strcmp(f.name, "log10")) {
            const std::string &i = state.names.emplace_back(
                std::string("llvm.") + f.name + (single ? ".f32" : ".f64"));
            state.extra.emplace_back(i, v, llvm::ElementCount::getFixed(lanes),
                                     /*Masked=*/false, a, std::nullopt);
          }
        }
      }
  });
  return state;
}

} // namespace

bool mlir::tgc::vectorMathAvailable() { return vectorMath().loaded; }

unsigned mlir::tgc::resolveVectorWidth(unsigned bits) {
  if (bits)
    return bits;
  static const bool avx512 = llvm::sys::getHostCPUFeatures().lookup("avx512f");
  return avx512 ? 512 : 0;
}

bool mlir::tgc::isVectorWidthOption(unsigned bits) {
  return bits == 0 || bits == 128 || bits == 256 || bits == 512;
}

void mlir::tgc::setPreferredVectorWidth(llvm::Module &module, unsigned bits) {
  if (!bits)
    return;
  std::string value = std::to_string(bits);
  for (llvm::Function &f : module)
    if (!f.isDeclaration())
      f.addFnAttr("prefer-vector-width", value);
}

std::function<llvm::Error(llvm::Module *)>
mlir::tgc::makeHostOptimizer(unsigned optLevel, llvm::TargetMachine *machine,
                             bool useVectorMath) {
  return [=](llvm::Module *module) -> llvm::Error {
    static const llvm::OptimizationLevel levels[] = {
        llvm::OptimizationLevel::O0, llvm::OptimizationLevel::O1,
        llvm::OptimizationLevel::O2, llvm::OptimizationLevel::O3};
    if (optLevel > 3)
      return llvm::make_error<llvm::StringError>(
          "invalid optimization level " + std::to_string(optLevel),
          llvm::inconvertibleErrorCode());
    llvm::LoopAnalysisManager loops;
    llvm::FunctionAnalysisManager functions;
    llvm::CGSCCAnalysisManager cgscc;
    llvm::ModuleAnalysisManager modules;
    llvm::PipelineTuningOptions tuning;
    tuning.LoopUnrolling = true;
    tuning.LoopInterleaving = true;
    tuning.LoopVectorization = true;
    tuning.SLPVectorization = true;
    llvm::PassBuilder builder(machine, tuning);
    llvm::TargetLibraryInfoImpl library(module->getTargetTriple());
    if (useVectorMath && vectorMath().loaded) {
      library.addVectorizableFunctionsFromVecLib(llvm::VectorLibrary::LIBMVEC,
                                                 module->getTargetTriple());
      library.addVectorizableFunctions(vectorMath().extra);
    }
    functions.registerPass([&] { return llvm::TargetLibraryAnalysis(library); });
    builder.registerModuleAnalyses(modules);
    builder.registerCGSCCAnalyses(cgscc);
    builder.registerFunctionAnalyses(functions);
    builder.registerLoopAnalyses(loops);
    builder.crossRegisterProxies(loops, functions, cgscc, modules);
    if (optLevel > 0) {
      // Identical functions become one before the optimizer runs, so that
      // it optimizes and compiles each once. A backstop:
      // tgc-outline-identical-kernels already makes a model's identical
      // kernels one function (on the transformer stacks of
      // docs/cpu-pipeline.md this finds nothing left to merge), and the
      // pass only hashes each function.
      llvm::ModulePassManager merge;
      merge.addPass(llvm::MergeFunctionsPass());
      merge.run(*module, modules);
    }
    llvm::ModulePassManager passes =
        optLevel == 0
            ? builder.buildO0DefaultPipeline(levels[0])
            : builder.buildPerModuleDefaultPipeline(levels[optLevel]);
    passes.run(*module, modules);
    return llvm::Error::success();
  };
}
