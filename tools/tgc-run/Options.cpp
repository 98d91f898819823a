//===- Options.cpp - tgc-run's command line -------------------------------===//

#include "Options.h"

#include "TensorIO.h"

#include "tgc/Compiler/HostOptimizer.h"
#include "tgc/Pipelines/Pipelines.h"
#include "tgc/Tools/HideLLVMOptions.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>

using namespace mlir;
using namespace mlir::tgc;
using namespace tgc_run;

// Sorts before "General options" and "Generic Options" in --help; MLIR's
// options go under "MLIR options".
static cl::OptionCategory category("Compile and run options (tgc-run)");
static cl::OptionCategory mlirCategory(
    "MLIR options (the compilers' pass managers, timing, printing)");

cl::opt<std::string> tgc_run::inputFile(cl::Positional, cl::desc("<file.mlir>"),
                                        cl::Required, cl::cat(category));
cl::opt<std::string>
    tgc_run::entryName("entry",
                       cl::desc("Function to run (default: the only public "
                                "function with a body)"),
                       cl::init(""), cl::cat(category));
cl::opt<std::string, false, OneOfParser<RunDeviceValues>>
    tgc_run::device("device", cl::desc("Where to compile for and run"),
                    withDefault("cpu"), cl::cat(category));
cl::list<std::string> tgc_run::shapeOpts(
    "shape",
    cl::desc("Sizes of an argument for the (first) call: ARG=D0xD1x... "
             "(ARG: the argument's index or name: loc(\"x\"), tgc.name or "
             "%x); repeatable"),
    cl::cat(category));
cl::list<std::string> tgc_run::callOpts(
    "calls",
    cl::desc("One call per occurrence: ARG=D0xD1...,ARG=... (the arguments "
             "not listed keep the sizes of --shape / the signature)"),
    cl::cat(category));
cl::opt<uint64_t> tgc_run::seed("seed", cl::desc("Random input seed"),
                                withDefault(uint64_t(0)), cl::cat(category));
cl::opt<std::string>
    tgc_run::inputsOpt("inputs",
                       cl::desc("Comma-separated .npy files, one per argument "
                                "(instead of random inputs)"),
                       cl::init(""), cl::cat(category));
cl::opt<std::string, false, OneOfParser<CheckValues>>
    tgc_run::checkOpt("check",
                      cl::desc("reference: compare the results with the "
                               "reference interpreter's"),
                      cl::init(""), cl::cat(category));
cl::opt<unsigned> tgc_run::repeat("repeat",
                                  cl::desc("Timed runs per call (median)"),
                                  withDefault(1u), cl::cat(category));
cl::opt<bool> tgc_run::json("json",
                            cl::desc("Print a JSON report instead of text"),
                            cl::init(false), cl::cat(category));
cl::opt<bool> tgc_run::printResults(
    "print-results",
    cl::desc("Print every element of the results (without it, a line per "
             "result: shape, dtype, min, max, mean)"),
    cl::init(false), cl::cat(category));
cl::opt<std::string, false, ShapePolicyParser> tgc_run::policy(
    "policy",
    cl::desc("Shape policy of `?` sizes: static (specialize to the call's "
             "sizes), dynamic (symbols) or auto (static until a size "
             "changes)"),
    withDefault("dynamic"), cl::cat(category));
cl::opt<bool> tgc_run::specializeZeroOne(
    "specialize-zero-one",
    cl::desc("Dynamic sizes 0 and 1 are specialized (recompile)"),
    withDefault(true), cl::cat(category));
cl::opt<bool> tgc_run::duckSizing(
    "duck-sizing", cl::desc("Dynamic sizes with equal examples share a symbol"),
    withDefault(true), cl::cat(category));
cl::opt<double> tgc_run::rtolOpt("rtol",
                                 cl::desc("Relative tolerance of --check "
                                          "(default: by dtype)"),
                                 cl::init(-1), cl::cat(category));
cl::opt<double> tgc_run::atolOpt("atol",
                                 cl::desc("Absolute tolerance of --check "
                                          "(default: by dtype)"),
                                 cl::init(-1), cl::cat(category));
cl::opt<bool> tgc_run::noFuse("no-fuse", cl::desc("Disable fusion"),
                              cl::init(false), cl::cat(category));
cl::opt<bool> tgc_run::noDecompose(
    "no-decompose", cl::desc("Keep composites as they are (no tgc-decompose)"),
    cl::init(false), cl::cat(category));
cl::opt<bool> tgc_run::verifyEach(
    "verify-each",
    cl::desc("Verify the IR after every pass, not once per pass pipeline "
             "(also TGC_VERIFY_EACH=1)"),
    cl::init(false), cl::cat(category));
cl::opt<bool> tgc_run::openmp("openmp",
                              cl::desc("CPU: run parallel loops with OpenMP"),
                              withDefault(true), cl::cat(category));
cl::opt<bool> tgc_run::vectorMath(
    "vector-math",
    cl::desc("Loops of expf, tanhf, erff, ... call glibc's vector math "
             "library (libmvec) on several lanes at a time"),
    withDefault(true), cl::cat(category));
cl::opt<unsigned> tgc_run::vectorWidth(
    "vector-width",
    cl::desc("CPU: the vector width in bits (128, 256, 512) that LLVM's "
             "vectorizers prefer; 0: the host's widest (512 with AVX-512, "
             "where LLVM's own tuning prefers 256)"),
    cl::init(0), cl::cat(category));
cl::opt<bool> tgc_run::directConvolutions(
    "direct-convolutions",
    cl::desc("CPU: ungrouped convolutions of stride 1 along the width as "
             "window contractions instead of im2col and a matrix product"),
    cl::init(true), cl::cat(category));
cl::opt<bool> tgc_run::approxMath(
    "approximate-math",
    cl::desc("CPU: polynomial approximations of f32 exp/log/tanh/erf "
             "instead of libm calls"),
    cl::init(false), cl::cat(category));
cl::opt<bool> tgc_run::strictReductions(
    "strict-reductions",
    cl::desc("CPU: add the terms of float reductions in order (no "
             "vectorized partial sums)"),
    cl::init(false), cl::cat(category));
cl::opt<bool> tgc_run::cudaGraphs(
    "cuda-graphs",
    cl::desc("With --device cuda: run through CUDA graphs captured once per "
             "size set, changed pointers patched (mode reduce-overhead)"),
    cl::init(false), cl::cat(category));
cl::opt<bool> tgc_run::deviceAsserts(
    "device-asserts",
    cl::desc("With --device cuda: device-side checks (indices in range) "
             "assert in a kernel instead of being read on the host, so no "
             "run waits for them; a failed one ends the process's use of "
             "CUDA (Python's reduce-overhead mode)"),
    cl::init(false), cl::cat(category));
cl::opt<bool> tgc_run::freshInputs(
    "fresh-inputs",
    cl::desc("With --device cuda: copy the inputs to new device buffers for "
             "every run, so that argument pointers change between runs"),
    cl::init(false), cl::cat(category));
cl::opt<bool> tgc_run::compileOnly(
    "compile-only",
    cl::desc("With --device cuda: compile (kernels and launch plan) without "
             "running; no GPU needed"),
    cl::init(false), cl::cat(category));
cl::opt<std::string> tgc_run::emitArtifact(
    "emit-artifact",
    cl::desc("With --device cuda: write the first specialization's artifact "
             "to this file"),
    cl::init(""), cl::cat(category));
cl::opt<std::string> tgc_run::emitPlan(
    "emit-plan",
    cl::desc("With --device cuda: write the first specialization's launch "
             "plan (text) to this file ('-': stdout)"),
    cl::init(""), cl::cat(category));
cl::opt<std::string> tgc_run::gpuChip("gpu-chip",
                                      cl::desc("SM architecture of the PTX "
                                               "and cubin"),
                                      withDefault("sm_90"), cl::cat(category));
cl::opt<std::string> tgc_run::saveCase(
    "save-case",
    cl::desc("With --device cuda --compile-only: write the artifacts, every "
             "call's inputs and the reference interpreter's results to this "
             "folder, for tgc-gpu-run on a machine without LLVM"),
    cl::init(""), cl::cat(category));
// tgc-gpu-pipeline's kernel options (lower-kernels, an inspection switch,
// is tgc-opt's alone).
cl::opt<int64_t> tgc_run::gpuBlockSize(
    "gpu-block-size", cl::desc("With --device cuda: threads per block"),
    withDefault(kGpuStrategyDefaults.blockSize), cl::cat(category));
cl::opt<int64_t> tgc_run::gpuMaxBlocks(
    "gpu-max-blocks",
    cl::desc("With --device cuda: most blocks of a grid-stride kernel"),
    withDefault(kGpuKernelDefaults.maxBlocks), cl::cat(category));
cl::opt<int64_t> tgc_run::gpuRowBlockSize(
    "gpu-row-block-size",
    cl::desc("With --device cuda: threads per block of row kernels"),
    withDefault(kGpuStrategyDefaults.rowBlockSize), cl::cat(category));
cl::opt<int64_t> tgc_run::gpuLongRowBlockSize(
    "gpu-long-row-block-size",
    cl::desc("With --device cuda: threads per block of row kernels over "
             "static rows of at least 16384 elements (0: "
             "--gpu-row-block-size)"),
    withDefault(kGpuStrategyDefaults.longRowBlockSize), cl::cat(category));
cl::opt<bool> tgc_run::gpuRowRegisters(
    "gpu-row-registers",
    cl::desc("With --device cuda: row kernels keep static rows in registers"),
    withDefault(kGpuStrategyDefaults.rowRegisters), cl::cat(category));
cl::opt<bool> tgc_run::gpuVectorize(
    "gpu-vectorize",
    cl::desc("With --device cuda: 16-byte vector accesses in elementwise "
             "kernels (a call whose buffers are not aligned for them gets "
             "code without)"),
    withDefault(kGpuStrategyDefaults.vectorize), cl::cat(category));
cl::opt<bool> tgc_run::gpuGemmEpilogues(
    "gpu-gemm-epilogues",
    cl::desc("With --device cuda: run a GEMM's bias / ReLU / tanh GELU "
             "consumer as its cuBLASLt epilogue"),
    withDefault(kGpuStrategyDefaults.gemmEpilogues), cl::cat(category));
cl::opt<bool> tgc_run::gpuTf32Matmuls(
    "gpu-tf32-matmuls",
    cl::desc("With --device cuda: f32 matmul, bmm and linear GEMMs round "
             "their inputs to TF32 (PyTorch's "
             "torch.backends.cuda.matmul.allow_tf32)"),
    cl::init(false), cl::cat(category));
cl::opt<bool> tgc_run::gpuTf32Convolutions(
    "gpu-tf32-convolutions",
    cl::desc("With --device cuda: f32 convolution GEMMs round their inputs "
             "to TF32 (PyTorch's torch.backends.cudnn.allow_tf32)"),
    cl::init(false), cl::cat(category));
cl::opt<bool> tgc_run::gpuCudnnConvolutions(
    "gpu-cudnn-convolutions",
    cl::desc("With --device cuda: f32 convolutions as cuDNN calls (PyTorch's "
             "torch.backends.cudnn.enabled); off: im2col and a GEMM"),
    cl::init(false), cl::cat(category));
cl::opt<bool> tgc_run::exactDivision(
    "exact-division",
    cl::desc("Float divisions as IEEE divisions, not products with a shared "
             "reciprocal (CPU: a softmax's row by its sum; with --device "
             "cuda as --gpu-exact-division)"),
    cl::init(false), cl::cat(category));
cl::opt<bool> tgc_run::gpuExactDivision(
    "gpu-exact-division",
    cl::desc("With --device cuda: float divisions as IEEE divisions, not "
             "multiplications by a shared reciprocal"),
    withDefault(kGpuKernelDefaults.exactDivision), cl::cat(category));
cl::opt<bool> tgc_run::gpuDedupKernels(
    "gpu-dedup-kernels",
    cl::desc("With --device cuda: one kernel for identical ones "
             "(tgc-gpu-dedup-kernels)"),
    withDefault(true), cl::cat(category));
cl::opt<bool> tgc_run::ptxOnly(
    "ptx-only",
    cl::desc("With --device cuda: load PTX (the driver compiles it) instead "
             "of a cubin from ptxas"),
    cl::init(false), cl::cat(category));

cl::opt<bool> tgc_run::profileOpt(
    "profile",
    cl::desc("With --device cuda: time the last call's launch-plan steps one "
             "by one (--repeat runs each) and print each kernel's strategy, "
             "grid, bytes moved, time and bandwidth; with --compile-only, "
             "the steps and bytes without times"),
    cl::init(false), cl::cat(category));

static const char kOverview[] =
    "tgc-run: compile a tgc function for the host CPU or a CUDA GPU\n"
    "(--device cuda), run it on random or .npy inputs, check it against the\n"
    "reference interpreter and time it\n\n"
    "  tgc-run model.mlir --shape x=8x64 --check reference\n"
    "  tgc-run model.mlir --calls 0=8x64 --calls 0=32x64 --repeat 20\n"
    "  tgc-run model.mlir --device cuda --shape x=8x64 --check reference\n"
    "  tgc-run model.mlir --json --mlir-timing\n\n"
    "Prints a line per call and per result (--print-results: its elements),\n"
    "then the compile's kernels, memory and guards. Exit status: 0; 1 on a\n"
    "reference mismatch; 2 on any error.\n";

void tgc_run::parseCommandLine(int argc, char **argv) {
  // libLLVM's back-end flags stay accepted, out of --help; MLIR's options
  // registered next are listed in their own category.
  hideLLVMOptions({&category});
  registerMLIRContextCLOptions();
  registerAsmPrinterCLOptions();
  registerPassManagerCLOptions();
  registerDefaultTimingManagerCLOptions();
  for (auto &entry : cl::getRegisteredOptions())
    if (entry.second->getOptionHiddenFlag() == cl::NotHidden &&
        llvm::is_contained(entry.second->Categories, &cl::getGeneralCategory()))
      entry.second->addCategory(mlirCategory);

  // llvm::cl prints its errors ("tgc-run: for the --policy option: ...");
  // status 2, as for every other error.
  if (!cl::ParseCommandLineOptions(argc, argv, kOverview, &llvm::errs())) {
    llvm::errs().flush();
    std::exit(2);
  }

  if (!saveCase.empty() && !compileOnly)
    fail("--save-case needs --compile-only");
  if (!saveCase.empty())
    if (std::error_code ec = llvm::sys::fs::create_directories(saveCase))
      fail("cannot create '" + saveCase + "': " + ec.message());
  if (device != "cuda" &&
      (cudaGraphs || deviceAsserts || freshInputs || compileOnly ||
       !emitArtifact.empty() || !emitPlan.empty() || ptxOnly || profileOpt))
    fail("--cuda-graphs, --device-asserts, --fresh-inputs, --compile-only, "
         "--emit-artifact, "
         "--emit-plan, --ptx-only and --profile need --device cuda");
  if (repeat == 0)
    fail("--repeat must be at least 1");
  if (!isVectorWidthOption(vectorWidth))
    fail("--vector-width=" + llvm::Twine(unsigned(vectorWidth)) + ": " +
         kVectorWidthExpected);
  // A NaN tolerance makes every comparison pass; a negative one is no
  // tolerance. (The defaults, by dtype, are the options left unset.)
  for (auto *opt : {&rtolOpt, &atolOpt})
    if (opt->getNumOccurrences() &&
        (!std::isfinite(opt->getValue()) || opt->getValue() < 0))
      fail("--" + opt->ArgStr.str() + " must be a finite number >= 0, got " +
           std::to_string(opt->getValue()));
}

bool tgc_run::optionGiven(llvm::StringRef name) {
  auto &options = cl::getRegisteredOptions();
  auto it = options.find(name);
  return it != options.end() && it->second->getNumOccurrences() > 0;
}

PassManagerSetup::PassManagerSetup() {
  applyDefaultTimingManagerCLOptions(manager);
  rootScope = manager.getRootScope();
}

void PassManagerSetup::configure(PassManager &pm) {
  if (failed(applyPassManagerCLOptions(pm)))
    fail("cannot apply the --mlir-* pass manager options");
  pm.enableTiming(compile ? *compile : rootScope);
}
