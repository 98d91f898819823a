//===- CpuCompiler.h - compile a tgc function for the host CPU --*- C++ -*-===//
//
// Compiles one tgc function with tgc-cpu-pipeline and JIT-compiles the
// result (entry point and guard function) at -O3 for the host CPU, its
// kernels in parts on several threads (tgc/Compiler/CpuJit.h), OpenMP from
// LLVM's libomp. Runs the entry point on host tensors. Used by tgc-run and
// the C API.
//
//===----------------------------------------------------------------------===//

#ifndef TGC_COMPILER_CPUCOMPILER_H
#define TGC_COMPILER_CPUCOMPILER_H

#include "tgc/Compiler/CompileOptions.h"
#include "tgc/Reference/HostTensor.h"
#include "tgc/Runtime/tgc_runtime.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/BuiltinTypes.h"

#include "mlir/IR/AffineMap.h"
#include "llvm/ADT/STLFunctionalExtras.h"

#include <memory>

#include <string>
#include <vector>

namespace llvm {
class Module;
namespace orc {
class LLJIT;
} // namespace orc
} // namespace llvm

namespace mlir::tgc {

class CacheRecord;

struct CpuCompileOptions : FrontendCompileOptions {
  bool openmp = true;
  /// Polynomial approximations of f32 exp/log/tanh/erf (tgc-approximate-math).
  bool approximateMath = false;
  /// Convolutions as window contractions, not im2col (tgc-to-linalg's
  /// `direct-convolutions`).
  bool directConvolutions = true;
  /// Reorderable float reductions (tgc-reassociate-reductions).
  bool reassociate = true;
  /// Keep every float division (off: tgc-reciprocal-divisions).
  bool exactDivision = false;
  /// Loops of expf, tanhf, ... vectorize into glibc's libmvec
  /// (HostOptimizer.h); off: one libm call per element.
  bool vectorMath = true;
  /// The vector width LLVM's vectorizers prefer, in bits (128, 256 or
  /// 512); 0: the host's widest (resolveVectorWidth).
  unsigned vectorWidth = 0;
  unsigned optLevel = 3;
  /// Shared libraries the JIT resolves symbols from (libomp and MLIR's C
  /// runner utils where the build found them, by default).
  std::vector<std::string> sharedLibs;
  /// Keep the module after tgc-cpu-pipeline (loops, before LLVM) as text,
  /// for loopsIR().
  bool keepLoopsIR = false;
  /// Keep the JIT's object code, for serialize() (the compile cache).
  bool keepObject = false;
  /// Threads for LLVM's work (the kernels in up to this many parts, each
  /// optimized and emitted on a thread); 0: `$TGC_COMPILE_THREADS`, else
  /// every hardware thread (resolveCompileThreads).
  unsigned compileThreads = 0;
};

struct CpuCompileStats {
  double compileMs = 0;
  /// Loop nests (parallel regions and sequential loops at the top level of
  /// the entry function) after fusion.
  int64_t kernels = 0;
  /// Intermediate buffers the memory planner placed in the arena.
  int64_t plannedBuffers = 0;
  /// Objects the LLVM work made: the parts compiled on threads.
  int64_t objects = 0;
  /// (phase, ms) in order (tgc/Compiler/CompileReport.h).
  std::vector<std::pair<std::string, double>> phases;
};

/// Bytes of the intermediate-buffer arena of one call and the peak of the
/// bytes live at once (the arena is at least that; the difference is what
/// the slot assignment loses to fragmentation).
struct CpuMemoryUse {
  int64_t arenaBytes = 0;
  int64_t peakBytes = 0;
};

class CompiledCpuFunction {
public:
  ~CompiledCpuFunction();
  CompiledCpuFunction(CompiledCpuFunction &&) noexcept;
  CompiledCpuFunction &operator=(CompiledCpuFunction &&) noexcept;

  /// Compiles `entry` of `module` (the module is cloned, not changed).
  /// Errors (diagnostics of the pipeline, JIT failures) go to `error`.
  static std::unique_ptr<CompiledCpuFunction>
  compile(ModuleOp module, StringRef entry, const CpuCompileOptions &options,
          std::string &error);

  /// What the compile cache keeps (CpuArtifact.cpp): the object code
  /// (compiled with keepObject), the signature, the memory plan and the
  /// report texts. False with `error` without object code.
  bool serialize(CacheRecord &record, std::string &error) const;

  /// A function from serialize()'s record: its object linked into a JIT of
  /// its own, `sharedLibs` loaded for it (empty: libomp with `openmp` and
  /// MLIR's runner utils, as compile() has them). Types and maps live in
  /// `context`, which must outlive the function.
  static std::unique_ptr<CompiledCpuFunction>
  load(const CacheRecord &record, MLIRContext *context,
       const std::vector<std::string> &sharedLibs, bool openmp,
       std::string &error);

  /// The native guard function and its readable metadata.
  tgc_guard_fn guard() const { return guardFn; }
  const tgc_guard_set_info *guardInfo() const { return guardSetInfo; }
  /// "text (reason)" of each guard, in order.
  std::vector<std::string> guardDescriptions() const;

  const CpuCompileStats &stats() const { return compileStats; }

  /// The module after tgc-cpu-pipeline (with CpuCompileOptions::keepLoopsIR;
  /// empty otherwise).
  const std::string &loopsIR() const { return loopsText; }
  /// With keepLoopsIR: the guard function (LLVM dialect) and its strings.
  const std::string &guardsIR() const { return guardsText; }
  /// With keepLoopsIR: "kernel K: sources" per line (kernelSources()).
  const std::string &kernelMap() const { return kernelsText; }
  /// With keepLoopsIR: the arena layout for the example shapes
  /// (arenaLayout()).
  const std::string &arenaLayoutText() const { return arenaText; }
  /// The entry point's argument and result types.
  ArrayRef<RankedTensorType> argumentTypes() const { return argTypes; }
  ArrayRef<RankedTensorType> resultTypesOf() const { return resultTypes; }

  /// Evaluates the memory plan (`tgc.memory_plan` of tgc-plan-memory, whose
  /// sizes are expressions over argument sizes) for one call's argument
  /// shapes. Functions without intermediates use no arena.
  CpuMemoryUse memoryUse(ArrayRef<std::vector<int64_t>> argShapes) const;

  /// Runs the entry point on `args` (one host tensor per argument, in
  /// order; out buffers are written in place) and returns its results.
  /// The caller runs the guards first: the compiled code assumes them.
  FailureOr<std::vector<ref::HostTensor>>
  run(MutableArrayRef<ref::HostTensor> args, std::string &error) const;

  /// Returns the memory for result `index` of `dtype` and `shape` (dense
  /// row-major), or null with a message in `error`.
  using ResultAllocator = llvm::function_ref<void *(
      int32_t index, ref::DType dtype, ArrayRef<int64_t> shape,
      std::string &error)>;

  /// Runs the entry point on dense row-major arguments described by
  /// `args` (data pointers used in place; the caller ran the guards) and
  /// copies each result into the memory `allocate` returns for it. Used by
  /// the C API, which hands the caller's tensors through without copies.
  LogicalResult runDescriptors(ArrayRef<tgc_arg_desc> args,
                               ResultAllocator allocate,
                               std::string &error) const;

private:
  CompiledCpuFunction();

  /// Links `objects` (compileToObjects', or a cache record's) in a JIT of
  /// this function's own and resolves its entry, guard function and guard
  /// table (of `jitSymbol`); keeps the objects with `keep`. False with
  /// `error` when they do not link or lack a symbol.
  bool link(std::vector<std::string> objects,
            const std::vector<std::string> &sharedLibs, bool openmp,
            bool perfListener, bool keep, std::string &error);

  /// The JIT its objects are linked in (a compiled or a cached function's
  /// own).
  std::unique_ptr<llvm::orc::LLJIT> jit;
  /// With keepObject, or loaded: the object code, one object per part.
  std::vector<std::string> objects;
  std::string entryName;
  /// The entry's symbol in the object (jitEntrySymbol()).
  std::string jitSymbol;
  std::vector<RankedTensorType> argTypes, resultTypes;
  /// The packed wrapper (`void(void **)`, addPackedWrapper) of the entry
  /// point's C interface (`_mlir__mlir_ciface_<symbol>`).
  void (*entryFn)(void **) = nullptr;
  tgc_guard_fn guardFn = nullptr;
  const tgc_guard_set_info *guardSetInfo = nullptr;
  CpuCompileStats compileStats;
  std::string loopsText, guardsText, kernelsText, arenaText;
  /// The plan's maps (owned by the module's context, which must outlive
  /// this object, as for every other use of the compiled function) and the
  /// (argument, dim) pair of each of their symbols.
  AffineMap arenaMap;
  std::vector<AffineMap> peakMaps;
  std::vector<std::pair<int64_t, int64_t>> planDims;
};

/// Descriptors of host tensors for guard functions (`strides` keeps the
/// strides alive).
std::vector<tgc_arg_desc>
describeArguments(MutableArrayRef<ref::HostTensor> args,
                  std::vector<std::vector<int64_t>> &strides);

/// The JIT's changes to the LLVM module of entry `symbol` before LLVM
/// optimizes it: packed wrappers nothing calls are dropped (only the C
/// interface's is called), the entry is inlined into its C interface and
/// that into its packed wrapper (both become internal), the entry and its
/// wrappers (the glue between the outlined kernels) get generic
/// instruction-scheduling tuning (prepareEntryFunctions), and the glue's
/// allocas of constant size move to its entry block where it has no loop
/// (for LLVM's fast instruction selection).
void prepareCpuJitModule(llvm::Module &module, StringRef symbol);

} // namespace mlir::tgc

#endif // TGC_COMPILER_CPUCOMPILER_H
