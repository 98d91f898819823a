//===- Options.h - tgc-run's command line -----------------------*- C++ -*-===//
//
// tgc-run's own options (Options.cpp), and MLIR's pass-manager, timing,
// context and printer options as mlir-opt has them (--mlir-timing,
// --mlir-print-ir-after-all, ...), applied to every pass manager the
// compilers build.
//
//===----------------------------------------------------------------------===//

#ifndef TGC_TOOLS_TGC_RUN_OPTIONS_H
#define TGC_TOOLS_TGC_RUN_OPTIONS_H

#include "tgc/Transforms/OptionParsers.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Support/Timing.h"
#include "llvm/Support/CommandLine.h"

#include <cstdint>
#include <string>

namespace tgc_run {

namespace cl = llvm::cl;

/// --device: cpu or cuda.
struct RunDeviceValues {
  static bool accepts(llvm::StringRef v) { return v == "cpu" || v == "cuda"; }
  static constexpr const char *expected = "cpu or cuda";
  static constexpr const char *valueName = "cpu|cuda";
};
/// --check: reference.
struct CheckValues {
  static bool accepts(llvm::StringRef v) { return v == "reference"; }
  static constexpr const char *expected = "reference";
  static constexpr const char *valueName = "reference";
};

extern cl::opt<std::string> inputFile;
extern cl::opt<std::string> entryName;
extern cl::opt<std::string, false, mlir::tgc::OneOfParser<RunDeviceValues>>
    device;
extern cl::list<std::string> shapeOpts;
extern cl::list<std::string> callOpts;
extern cl::opt<uint64_t> seed;
extern cl::opt<std::string> inputsOpt;
extern cl::opt<std::string, false, mlir::tgc::OneOfParser<CheckValues>>
    checkOpt;
extern cl::opt<unsigned> repeat;
extern cl::opt<bool> json;
extern cl::opt<bool> printResults;
extern cl::opt<std::string, false, mlir::tgc::ShapePolicyParser> policy;
extern cl::opt<bool> specializeZeroOne;
extern cl::opt<bool> duckSizing;
extern cl::opt<double> rtolOpt;
extern cl::opt<double> atolOpt;
extern cl::opt<bool> noFuse;
extern cl::opt<bool> noDecompose;
extern cl::opt<bool> verifyEach;
extern cl::opt<bool> openmp;
extern cl::opt<bool> approxMath;
extern cl::opt<bool> directConvolutions;
extern cl::opt<bool> vectorMath;
extern cl::opt<unsigned> vectorWidth;
extern cl::opt<bool> strictReductions;
extern cl::opt<bool> cudaGraphs;
extern cl::opt<bool> deviceAsserts;
extern cl::opt<bool> freshInputs;
extern cl::opt<bool> compileOnly;
extern cl::opt<std::string> emitArtifact;
extern cl::opt<std::string> emitPlan;
extern cl::opt<std::string> gpuChip;
extern cl::opt<std::string> saveCase;
extern cl::opt<int64_t> gpuBlockSize;
extern cl::opt<int64_t> gpuMaxBlocks;
extern cl::opt<int64_t> gpuRowBlockSize;
extern cl::opt<int64_t> gpuLongRowBlockSize;
extern cl::opt<bool> gpuRowRegisters;
extern cl::opt<bool> gpuVectorize;
extern cl::opt<bool> gpuGemmEpilogues;
extern cl::opt<bool> gpuTf32Matmuls;
extern cl::opt<bool> gpuTf32Convolutions;
extern cl::opt<bool> gpuCudnnConvolutions;
extern cl::opt<bool> gpuExactDivision;
extern cl::opt<bool> exactDivision;
extern cl::opt<bool> gpuDedupKernels;
extern cl::opt<bool> ptxOnly;
extern cl::opt<bool> profileOpt;

/// Registers MLIR's options, parses the command line (a bad option exits
/// with status 2) and checks the options against each other.
void parseCommandLine(int argc, char **argv);

/// Whether the command line gave the (MLIR) option `name`.
bool optionGiven(llvm::StringRef name);

/// MLIR's pass-manager options on the compilers' pass managers, and one
/// --mlir-timing report for the whole run (printed when this is
/// destroyed): "Parse", "Compile" (the passes nest there), "Reference"
/// and "Run".
class PassManagerSetup {
public:
  PassManagerSetup();
  /// The compile options' configurePassManager.
  void configure(mlir::PassManager &pm);
  mlir::TimingScope &root() { return rootScope; }

  /// While it lives, the passes of the pass managers configured are timed
  /// under "Compile".
  class CompileTiming {
  public:
    explicit CompileTiming(PassManagerSetup &setup)
        : setup(setup), scope(setup.rootScope.nest("Compile")) {
      setup.compile = &scope;
    }
    ~CompileTiming() { setup.compile = nullptr; }

  private:
    PassManagerSetup &setup;
    mlir::TimingScope scope;
  };

private:
  mlir::DefaultTimingManager manager;
  mlir::TimingScope rootScope;
  mlir::TimingScope *compile = nullptr;
};

} // namespace tgc_run

#endif // TGC_TOOLS_TGC_RUN_OPTIONS_H
