//===- CpuCompiler.cpp - compile a tgc function for the host CPU ----------===//

#include "tgc/Compiler/CpuCompiler.h"
#include "tgc/Target/Host/HostTarget.h"

#include "RuntimeSymbols.h"
#include "tgc/Compiler/CpuJit.h"
#include "tgc/Compiler/HostOptimizer.h"

#include "tgc/Compiler/CompileReport.h"
#include "tgc/Compiler/Verification.h"

#include "tgc/Compiler/CompilerUtils.h"

#include "tgc/Pipelines/Pipelines.h"
#include "tgc/Runtime/tgc_runtime.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/OpenMP/OpenMPDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "tgc/Target/NVPTX/NVPTXTarget.h"
#include "llvm/Analysis/CFG.h"
#include "llvm/ExecutionEngine/Orc/LLJIT.h"
#include "llvm/IR/Instructions.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Transforms/IPO/DeadArgumentElimination.h"
#include "llvm/Transforms/Utils/Cloning.h"

#include <malloc.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <set>

using namespace mlir;
using namespace mlir::tgc;

CompiledCpuFunction::CompiledCpuFunction() = default;
CompiledCpuFunction::~CompiledCpuFunction() {
  // What the JIT's platform registered for its objects (TGC's code has no
  // static constructors or destructors).
  if (jit)
    llvm::consumeError(jit->deinitialize(jit->getMainJITDylib()));
}
CompiledCpuFunction::CompiledCpuFunction(CompiledCpuFunction &&) noexcept =
    default;
CompiledCpuFunction &
CompiledCpuFunction::operator=(CompiledCpuFunction &&) noexcept = default;

namespace {

/// The packed wrapper TGC calls: `_mlir_` (ExecutionEngine's packed
/// wrapper, `void(void **)`) of `_mlir_ciface_<symbol>` (the C interface,
/// which takes each memref as a pointer to its descriptor).
std::string packedEntryName(StringRef symbol) {
  return ("_mlir__mlir_ciface_" + symbol).str();
}

/// A kernel at the top level of a function: a loop nest, or a call of a
/// kernel that tgc-outline-identical-kernels outlined (a layer's twin).
bool isKernel(Operation &op) {
  if (isa<omp::ParallelOp, scf::ParallelOp, scf::ForOp, scf::WhileOp>(op))
    return true;
  auto call = dyn_cast<func::CallOp>(op);
  if (!call)
    return false;
  auto callee = SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(
      call, call.getCalleeAttr());
  return callee && callee->hasAttr("tgc.kernel_function");
}

/// The kernels of a function.
int64_t countKernels(func::FuncOp func) {
  return llvm::count_if(func.getBody().getOps(),
                        [](Operation &op) { return isKernel(op); });
}

/// Fields of an LLVM memref descriptor of `rank`: two pointers, the offset,
/// sizes and strides, each 8 bytes.
int64_t descriptorFields(int64_t rank) { return 3 + 2 * rank; }

/// The call in progress on this thread, for tgc_result_buffer: the
/// caller's allocator and the memory it gave for each result.
struct ResultBuffers {
  ArrayRef<RankedTensorType> types;
  CompiledCpuFunction::ResultAllocator allocate;
  std::vector<void *> given;                // per result; null: not asked
  std::vector<std::vector<int64_t>> shapes; // the shapes given
  std::string error;                        // the allocator's, if it failed
};
thread_local ResultBuffers *currentResults = nullptr;

/// Installs `buffers` for the duration of a call (and restores the outer
/// call's, should an allocator run compiled code).
class ResultBuffersScope {
public:
  explicit ResultBuffersScope(ResultBuffers &buffers)
      : outer(currentResults) {
    currentResults = &buffers;
  }
  ~ResultBuffersScope() { currentResults = outer; }

private:
  ResultBuffers *outer;
};

} // namespace

/// ExecutionEngine gives every public function a packed wrapper, and the
/// JIT compiles them all. The one of the entry itself unpacks every field
/// of every memref descriptor (a model's hundreds of weights: a thousand
/// scalar arguments passed on the stack), and LLVM's instruction selection
/// is quadratic in such a call's stack stores: MobileNetV3-small's took 13
/// of its 18 s of JIT time. Only the C interface's wrapper is called (its
/// call passes a pointer per memref); the others are removed before LLVM
/// optimizes the module. (The kernels tgc-outline-identical-kernels
/// outlines are internal: they have none.)
void mlir::tgc::prepareCpuJitModule(llvm::Module &module, StringRef symbol) {
  std::string keep = packedEntryName(symbol);
  // (Before the entry becomes internal: it is glue too.)
  prepareEntryFunctions(module);
  // The C interface, the entry inlined, inlined in turn into its packed
  // wrapper, the one function the runtime calls: it takes a pointer per
  // memref argument, most of a model's hundreds on the stack, which LLVM's
  // fast instruction selection does not lower, and the whole entry block
  // then went through SelectionDAG (24 GPT-style blocks: about 100 ms of
  // the glue's code generation). Left internal and unused, it is dropped.
  std::string cInterface = "_mlir_ciface_" + symbol.str();
  if (llvm::Function *wrapper = module.getFunction(keep))
    if (llvm::Function *callee = module.getFunction(cInterface);
        callee && !callee->isDeclaration()) {
      SmallVector<llvm::CallBase *> calls;
      for (llvm::User *user : callee->users())
        if (auto *call = dyn_cast<llvm::CallBase>(user))
          if (call->getFunction() == wrapper &&
              call->getCalledFunction() == callee)
            calls.push_back(call);
      for (llvm::CallBase *call : calls) {
        llvm::InlineFunctionInfo info;
        (void)llvm::InlineFunction(*call, info);
      }
      if (callee->use_empty())
        callee->setLinkage(llvm::GlobalValue::InternalLinkage);
    }
  SmallVector<llvm::Function *> unused;
  for (llvm::Function &f : module) {
    StringRef name = f.getName();
    if (f.isDeclaration())
      continue;
    // Inlined into its C interface (prepareEntryFunctions): no copy of
    // its own.
    if (name == symbol)
      f.setLinkage(llvm::GlobalValue::InternalLinkage);
    if (name.starts_with("_mlir_") && name != keep && f.use_empty() &&
        module.getFunction(name.drop_front(6)))
      unused.push_back(&f);
    // Glue, not kernels: the guard function's checks and branches, the
    // packed wrapper's allocations and calls (the C interface and the
    // entry inlined into it). Fast code generation, unless one holds a
    // loop (compileToObjects).
    if (name.starts_with("tgc_guard_") || name == keep ||
        name == "_mlir_ciface_" + symbol.str())
      f.addFnAttr(kFastCodegen);
  }
  for (llvm::Function *f : unused)
    f->eraseFromParent();
  // Stack slots of the glue (a result buffer's sizes and its out pointer)
  // into the entry block: LLVM's fast instruction selection takes only the
  // entry block's allocas as stack slots, and an alloca further down sent
  // the rest of its block, kernel calls and all, through SelectionDAG (24
  // GPT-style blocks: the packed wrapper's code generation 183 -> 54 ms).
  // Only without loops, where each block runs at most once per call, and
  // at most 4 KiB in all: a slot then lives for the whole call, where a
  // serial kernel's buffers, between a stack save and a restore
  // (tgc-hoist-allocas), must not add up (they are in the kernels'
  // functions, which hold loops, but the cap keeps that from mattering).
  for (llvm::Function &f : module) {
    if (f.isDeclaration() || !f.hasFnAttribute(kFastCodegen))
      continue;
    SmallVector<std::pair<const llvm::BasicBlock *, const llvm::BasicBlock *>>
        backEdges;
    llvm::FindFunctionBackedges(f, backEdges);
    if (!backEdges.empty())
      continue;
    llvm::BasicBlock &entry = f.getEntryBlock();
    SmallVector<llvm::AllocaInst *> moved;
    uint64_t bytes = 0;
    for (llvm::BasicBlock &block : f)
      if (&block != &entry)
        for (llvm::Instruction &inst : block)
          if (auto *slot = dyn_cast<llvm::AllocaInst>(&inst))
            if (std::optional<llvm::TypeSize> size =
                    slot->getAllocationSize(module.getDataLayout());
                size && !size->isScalable() &&
                bytes + size->getFixedValue() <= 4096) {
              bytes += size->getFixedValue();
              moved.push_back(slot);
            }
    for (llvm::AllocaInst *slot : moved)
      slot->moveBefore(entry.getFirstInsertionPt());
  }
  // The kernels' unused parameters out of their signatures and their
  // calls: a kernel over static shapes reads only its buffers' aligned
  // pointers, and the glue passed every memref descriptor whole (a
  // pointer, a pointer, an offset, sizes and strides), most of them on
  // the stack. LLVM's optimizer drops them itself, but only once it sees
  // every call, and the kernels are compiled in parts apart from the glue.
  // 24 GPT-style blocks: the glue's object 138 -> 23 KB, its LLVM work
  // halved. (Only internal functions whose every use is a call change.)
  llvm::LoopAnalysisManager loops;
  llvm::FunctionAnalysisManager functions;
  llvm::CGSCCAnalysisManager sccs;
  llvm::ModuleAnalysisManager modules;
  llvm::PassBuilder builder;
  builder.registerModuleAnalyses(modules);
  builder.registerCGSCCAnalyses(sccs);
  builder.registerFunctionAnalyses(functions);
  builder.registerLoopAnalyses(loops);
  builder.crossRegisterProxies(loops, functions, sccs, modules);
  llvm::ModulePassManager passes;
  passes.addPass(llvm::DeadArgumentEliminationPass());
  passes.run(module, modules);
}

int32_t tgc_result_buffer(int32_t index, int64_t rank, const int64_t *sizes,
                          int64_t bytes, void **buffer) {
  ResultBuffers *call = currentResults;
  if (!call || !buffer || index < 0 ||
      index >= static_cast<int32_t>(call->types.size()) || call->given[index])
    return 0;
  RankedTensorType type = call->types[index];
  std::optional<ref::DType> dtype = ref::dtypeOf(type.getElementType());
  if (!dtype || rank != type.getRank())
    return 0;
  // Only a buffer of exactly the result's type and byte count: anything
  // else the code allocates itself (and the runtime copies it out).
  int64_t expected = static_cast<int64_t>(ref::elementBytes(*dtype));
  for (int64_t d = 0; d < rank; ++d) {
    int64_t s = type.getDimSize(d);
    if (sizes[d] < 0 || (!ShapedType::isDynamic(s) && s != sizes[d]) ||
        __builtin_mul_overflow(expected, sizes[d], &expected))
      return 0;
  }
  if (expected != bytes)
    return 0;
  std::vector<int64_t> shape(sizes, sizes + rank);
  void *memory = call->allocate(index, *dtype, shape, call->error);
  if (!memory && call->error.empty())
    call->error = "no memory for result " + std::to_string(index);
  *buffer = memory; // null fails the call (tgc-check-allocations)
  if (memory) {
    call->given[index] = memory;
    call->shapes[index] = std::move(shape);
  }
  return 1;
}

namespace {
/// The arena this thread released last (tgc_arena_release), freed when
/// the thread ends.
struct CachedArena {
  void *memory = nullptr;
  ~CachedArena() { std::free(memory); }
};
thread_local CachedArena cachedArena;

/// Largest arena a thread keeps (TGC_ARENA_CACHE_MB).
size_t arenaCacheLimit() {
  static const size_t limit = [] {
    const char *env = std::getenv("TGC_ARENA_CACHE_MB");
    long long mb = env && *env ? std::atoll(env) : 4096;
    return mb > 0 ? static_cast<size_t>(mb) << 20 : size_t(0);
  }();
  return limit;
}
} // namespace

void *tgc_arena_acquire(int64_t bytes) {
  if (bytes < 0)
    return nullptr;
  size_t want = static_cast<size_t>(bytes);
  if (void *kept = cachedArena.memory) {
    if (malloc_usable_size(kept) >= want) {
      cachedArena.memory = nullptr;
      return kept;
    }
  }
  // aligned_alloc takes a multiple of the alignment.
  size_t size = (std::max<size_t>(want, 1) + 63) / 64 * 64;
  if (size < want)
    return nullptr;
  return std::aligned_alloc(64, size);
}

void tgc_arena_release(void *arena) {
  if (!arena)
    return;
  if (malloc_usable_size(arena) > arenaCacheLimit()) {
    std::free(arena);
    return;
  }
  void *kept = cachedArena.memory;
  if (kept && malloc_usable_size(kept) >= malloc_usable_size(arena)) {
    std::free(arena);
    return;
  }
  std::free(kept);
  cachedArena.memory = arena;
}

CpuMemoryUse CompiledCpuFunction::memoryUse(
    ArrayRef<std::vector<int64_t>> argShapes) const {
  CpuMemoryUse use;
  if (!arenaMap)
    return use;
  SmallVector<int64_t> symbols;
  for (auto [arg, dim] : planDims) {
    if (arg < 0 || arg >= static_cast<int64_t>(argShapes.size()) || dim < 0 ||
        dim >= static_cast<int64_t>(argShapes[arg].size()))
      return {-1, -1}; // not the shapes this function takes
    symbols.push_back(argShapes[arg][dim]);
  }
  auto evaluate = [&](AffineMap map) -> int64_t {
    if (map.getNumSymbols() != symbols.size() || map.getNumResults() != 1)
      return -1;
    SmallVector<AffineExpr> values;
    for (int64_t v : symbols)
      values.push_back(getAffineConstantExpr(v, map.getContext()));
    AffineExpr e = map.getResult(0).replaceSymbols(values);
    e = simplifyAffineExpr(e, 0, 0);
    auto c = dyn_cast<AffineConstantExpr>(e);
    return c ? c.getValue() : -1;
  };
  use.arenaBytes = evaluate(arenaMap);
  for (AffineMap peak : peakMaps)
    use.peakBytes = std::max(use.peakBytes, evaluate(peak));
  return use;
}

llvm::orc::SymbolMap
mlir::tgc::runtimeSymbols(llvm::orc::MangleAndInterner &interner) {
  llvm::orc::SymbolMap symbols;
  symbols[interner("tgc_report_check_failure")] = {
      llvm::orc::ExecutorAddr::fromPtr(&tgc_report_check_failure),
      llvm::JITSymbolFlags::Exported};
  symbols[interner("tgc_report_alloc_failure")] = {
      llvm::orc::ExecutorAddr::fromPtr(&tgc_report_alloc_failure),
      llvm::JITSymbolFlags::Exported};
  symbols[interner("tgc_result_buffer")] = {
      llvm::orc::ExecutorAddr::fromPtr(&tgc_result_buffer),
      llvm::JITSymbolFlags::Exported};
  symbols[interner("tgc_arena_acquire")] = {
      llvm::orc::ExecutorAddr::fromPtr(&tgc_arena_acquire),
      llvm::JITSymbolFlags::Exported};
  symbols[interner("tgc_arena_release")] = {
      llvm::orc::ExecutorAddr::fromPtr(&tgc_arena_release),
      llvm::JITSymbolFlags::Exported};
  return symbols;
}

std::vector<tgc_arg_desc>
mlir::tgc::describeArguments(MutableArrayRef<ref::HostTensor> args,
                             std::vector<std::vector<int64_t>> &strides) {
  std::vector<tgc_arg_desc> descs;
  strides.assign(args.size(), {});
  for (auto [i, t] : llvm::enumerate(args)) {
    std::vector<int64_t> &st = strides[i];
    st.resize(t.rank());
    int64_t s = 1;
    for (int64_t d = t.rank() - 1; d >= 0; --d) {
      st[d] = s;
      s *= t.shape()[d];
    }
    tgc_arg_desc desc = {};
    desc.data = t.data();
    desc.sizes = t.shape().data();
    desc.strides = st.data();
    desc.rank = t.rank();
    desc.dtype = static_cast<int32_t>(t.dtype());
    desc.device_type = TGC_DEVICE_CPU;
    descs.push_back(desc);
  }
  return descs;
}

std::unique_ptr<CompiledCpuFunction>
CompiledCpuFunction::compile(ModuleOp source, StringRef entry,
                             const CpuCompileOptions &options,
                             std::string &error) {
  auto start = std::chrono::steady_clock::now();
  MLIRContext *ctx = source.getContext();
  OwningOpRef<ModuleOp> module = cloneEntryModule(source, entry, error);
  if (!module)
    return nullptr;
  auto func = module->lookupSymbol<func::FuncOp>(entry);
  std::unique_ptr<CompiledCpuFunction> result(new CompiledCpuFunction());
  result->entryName = entry.str();
  // The JIT links the code against libm, libc and the runtimes: a function
  // named like one of their symbols (`exp`, `malloc`) would be called by
  // the code it contains. Its symbol is private to TGC instead.
  std::string symbol = jitEntrySymbol(entry);
  result->jitSymbol = symbol;
  if (failed(SymbolTable::replaceAllSymbolUses(
          func, StringAttr::get(ctx, symbol), *module))) {
    error = "cannot rename @" + entry.str() + " for the JIT";
    return nullptr;
  }
  SymbolTable::setSymbolName(func, symbol);
  for (Type t : func.getArgumentTypes()) {
    auto rt = dyn_cast<RankedTensorType>(t);
    if (!rt) {
      error = "argument types other than ranked tensors are not supported "
              "by the CPU compiler yet";
      return nullptr;
    }
    result->argTypes.push_back(rt);
  }
  for (Type t : func.getResultTypes()) {
    auto rt = dyn_cast<RankedTensorType>(t);
    if (!rt) {
      error = "result types other than ranked tensors are not supported";
      return nullptr;
    }
    result->resultTypes.push_back(rt);
  }

  CpuPipelineOptions pipeline;
  setShapePolicyOptions(pipeline, options);
  pipeline.openmp = options.openmp;
  pipeline.approximateMath = options.approximateMath;
  pipeline.reassociate = options.reassociate;
  pipeline.exactDivision = options.exactDivision;
  pipeline.directConvolutions = options.directConvolutions;
  pipeline.lowerToLLVM = false;

  ErrorCollector diagnostics(ctx);
  // The frontend lowers the guards to their function and strings (the
  // `tgc_guard_*` symbols); the passes after it never read them, so they
  // run on the module without them, which is then most of the module (a
  // 6-block stack's 132 guards are 4500 ops: 70 of 155 ms of passes).
  PassManager frontend(ctx);
  buildCpuFrontendPipeline(frontend, pipeline);
  PassManager toLoops(ctx);
  buildCpuGraphToLoopsPipeline(toLoops, pipeline);
  if (options.configurePassManager) {
    options.configurePassManager(frontend);
    options.configurePassManager(toLoops);
  }
  CompilePhases phases;
  phases.instrument(frontend, "frontend", {});
  phases.instrument(toLoops, "frontend",
                    {{"tgc-decompose", "fusion"},
                     {"tgc-fuse", "fusion"},
                     {"tgc-to-linalg", "kernels"},
                     {"tgc-unshare-inits", "bufferize"},
                     {"scf-forall-to-parallel", "loops"}});
  bool verifyEach = resolveVerifyEachPass(options.verifyEachPass);
  if (failed(runVerified(frontend, *module, verifyEach, "frontend"))) {
    error = "compilation failed:\n" + diagnostics.text;
    return nullptr;
  }
  OwningOpRef<ModuleOp> guardSymbols = ModuleOp::create(module->getLoc());
  for (Operation &op :
       llvm::make_early_inc_range(module->getBody()->getOperations())) {
    auto name = op.getAttrOfType<StringAttr>(SymbolTable::getSymbolAttrName());
    if (name && name.getValue().starts_with("tgc_guard_"))
      op.moveBefore(guardSymbols->getBody(), guardSymbols->getBody()->end());
  }
  if (failed(runVerified(toLoops, *module, verifyEach, "graph-to-loops"))) {
    error = "compilation failed:\n" + diagnostics.text;
    return nullptr;
  }
  if (options.keepLoopsIR) {
    // The entry's loops apart from its guard function and the guards'
    // strings (TGC_LOGS=output_code vs guard_code).
    llvm::raw_string_ostream loops(result->loopsText);
    llvm::raw_string_ostream guards(result->guardsText);
    for (Operation &op : module->getBody()->getOperations()) {
      op.print(loops);
      loops << "\n";
    }
    for (Operation &op : guardSymbols->getBody()->getOperations()) {
      op.print(guards);
      guards << "\n";
    }
  }
  if (auto f = module->lookupSymbol<func::FuncOp>(symbol)) {
    result->compileStats.kernels = countKernels(f);
    if (options.keepLoopsIR) {
      llvm::raw_string_ostream os(result->kernelsText);
      int64_t k = 0;
      for (Operation &op : f.getBody().getOps())
        if (isKernel(op))
          os << "kernel " << k++ << ": " << kernelSources(&op) << "\n";
      result->arenaText = arenaLayout(f, options.exampleShapes);
    }
    if (auto plan = f->getAttrOfType<DictionaryAttr>("tgc.memory_plan")) {
      if (auto n = plan.getAs<IntegerAttr>("buffers"))
        result->compileStats.plannedBuffers = n.getInt();
      if (auto arena = plan.getAs<AffineMapAttr>("arena_bytes"))
        result->arenaMap = arena.getValue();
      if (auto peaks = plan.getAs<ArrayAttr>("peak_bytes"))
        for (auto p : peaks.getAsRange<AffineMapAttr>())
          result->peakMaps.push_back(p.getValue());
      if (auto dims = plan.getAs<DenseI64ArrayAttr>("dims"))
        for (size_t i = 0; i + 1 < static_cast<size_t>(dims.size()); i += 2)
          result->planDims.emplace_back(dims[i], dims[i + 1]);
    }
  }
  phases.begin("to LLVM");
  PassManager toLLVM(ctx);
  buildCpuLoopsToLLVMPipeline(toLLVM);
  if (options.configurePassManager)
    options.configurePassManager(toLLVM);
  if (failed(runVerified(toLLVM, *module, verifyEach, "loops-to-LLVM"))) {
    error = "lowering to LLVM failed:\n" + diagnostics.text;
    return nullptr;
  }
  // The guards back, for the translation (already LLVM dialect).
  for (Operation &op :
       llvm::make_early_inc_range(guardSymbols->getBody()->getOperations()))
    op.moveBefore(module->getBody(), module->getBody()->end());

  phases.begin("LLVM IR");
  DialectRegistry registry;
  registerAllToLLVMIRTranslations(registry);
  ctx->appendDialectRegistry(registry);
  // Declared before the module: it outlives it.
  llvm::LLVMContext llvmContext;
  std::unique_ptr<llvm::Module> llvmModule =
      translateModuleToLLVMIR(*module, llvmContext, symbol);
  if (!llvmModule) {
    error = "translating to LLVM IR failed:\n" + diagnostics.text;
    return nullptr;
  }
  auto fail = [&](llvm::Error e, const std::string &what) {
    error =
        what + ": " + llvm::toString(std::move(e)) + "\n" + diagnostics.text;
    return nullptr;
  };
  if (llvm::Error e = addPackedWrapper(*llvmModule, ("_mlir_ciface_" + symbol)))
    return fail(std::move(e), "the entry has no C interface");
  prepareCpuJitModule(*llvmModule, symbol);
  setPreferredVectorWidth(*llvmModule, resolveVectorWidth(options.vectorWidth));
  // Objects compiled in parts on threads (tgc/Compiler/CpuJit.h), linked in a
  // JIT of this function's own, as a cached artifact's are.
  std::vector<std::string> objects;
  phases.begin("LLVM JIT");
  if (llvm::Error e = compileToObjects(
          std::move(llvmModule), resolveCompileThreads(options.compileThreads),
          options.optLevel, options.vectorMath, objects))
    return fail(std::move(e), "JIT compilation failed");
  // TGC_PERF_JIT=1: a jitdump per object, for `perf record -k 1` and
  // `perf inject --jit` (each kernel function named in `perf report`);
  // only on request, since thousands of compiles pile them up in /tmp.
  const char *perfJit = std::getenv("TGC_PERF_JIT");
  phases.begin("link");
  if (!result->link(std::move(objects), options.sharedLibs, options.openmp,
                    perfJit && std::strcmp(perfJit, "0") != 0,
                    options.keepObject, error))
    return nullptr;
  phases.end();
  result->compileStats.phases = phases.list();
  result->compileStats.compileMs =
      std::chrono::duration<double, std::milli>(
          std::chrono::steady_clock::now() - start)
          .count();
  return result;
}

std::vector<std::string> CompiledCpuFunction::guardDescriptions() const {
  std::vector<std::string> out;
  if (!guardSetInfo)
    return out;
  for (int32_t i = 0; i < guardSetInfo->num_guards; ++i)
    out.push_back(std::string(guardSetInfo->guards[i].text) + " (" +
                  guardSetInfo->guards[i].reason + ")");
  return out;
}

FailureOr<std::vector<ref::HostTensor>>
CompiledCpuFunction::run(MutableArrayRef<ref::HostTensor> args,
                         std::string &error) const {
  std::vector<std::vector<int64_t>> strides;
  std::vector<tgc_arg_desc> descs = describeArguments(args, strides);
  std::vector<ref::HostTensor> results;
  LogicalResult ok = runDescriptors(
      descs,
      [&](int32_t index, ref::DType dtype, ArrayRef<int64_t> shape,
          std::string &failure) -> void * {
        // Asked for during the call (tgc_result_buffer) or after it, in
        // any order.
        if (results.size() < resultTypes.size())
          results.resize(resultTypes.size());
        // (Every element is written: by the code, or by the copy after it.)
        ref::HostTensor tensor = ref::HostTensor::uninitialized(dtype, shape);
        bool empty = llvm::is_contained(shape, 0);
        if (!tensor.data() && !empty) {
          failure = ref::HostTensor::takeAllocationFailure();
          return nullptr;
        }
        results[index] = std::move(tensor);
        // A zero-size tensor has no storage; any non-null pointer will do.
        return results[index].data() ? results[index].data()
                                     : static_cast<void *>(&results);
      },
      error);
  if (failed(ok))
    return failure();
  return results;
}

LogicalResult CompiledCpuFunction::runDescriptors(
    ArrayRef<tgc_arg_desc> args, ResultAllocator allocate,
    std::string &error) const {
  if (args.size() != argTypes.size()) {
    error = "@" + entryName + " takes " + std::to_string(argTypes.size()) +
            " arguments, got " + std::to_string(args.size());
    return failure();
  }
  // Storage for every field of every argument descriptor; the C
  // interface's packed wrapper takes a pointer to the results' descriptors
  // (if any), then one to each argument's descriptor, each through a
  // pointer (ExecutionEngine's packed calling convention).
  std::vector<std::vector<int64_t>> fields(args.size());
  for (auto [i, t] : llvm::enumerate(args)) {
    int64_t rank = t.rank;
    if (rank != argTypes[i].getRank()) {
      error = "argument " + std::to_string(i) + " has rank " +
              std::to_string(rank) + ", the function expects " +
              std::to_string(argTypes[i].getRank());
      return failure();
    }
    std::vector<int64_t> &f = fields[i];
    f.resize(descriptorFields(rank));
    void *data = t.data;
    std::memcpy(&f[0], &data, sizeof(void *));
    std::memcpy(&f[1], &data, sizeof(void *));
    f[2] = 0;
    // The guards checked that the argument is dense row-major.
    int64_t stride = 1;
    for (int64_t d = rank - 1; d >= 0; --d) {
      f[3 + d] = t.sizes[d];
      f[3 + rank + d] = stride;
      stride *= t.sizes[d];
    }
  }
  int64_t resultWords = 0;
  for (RankedTensorType t : resultTypes)
    resultWords += descriptorFields(t.getRank());
  std::vector<int64_t> resultStorage(std::max<int64_t>(resultWords, 1), 0);
  std::vector<void *> descriptors;
  if (!resultTypes.empty())
    descriptors.push_back(resultStorage.data());
  for (std::vector<int64_t> &f : fields)
    descriptors.push_back(f.data());
  std::vector<void *> packed;
  for (void *&descriptor : descriptors)
    packed.push_back(&descriptor);
  // Results the code asks for (tgc_result_buffer) are written in place.
  ResultBuffers buffers{resultTypes, allocate, {}, {}, {}};
  buffers.given.assign(resultTypes.size(), nullptr);
  buffers.shapes.resize(resultTypes.size());
  {
    ResultBuffersScope scope(buffers);
    entryFn(packed.data());
  }
  const char *checkFailure = nullptr;
  if (tgc_take_call_failure(&checkFailure) == TGC_CALL_NO_MEMORY) {
    // The function freed its buffers and returned no results.
    error = "@" + entryName + ": " + checkFailure;
    if (!buffers.error.empty())
      error += "; the caller's allocator: " + buffers.error;
    return failure();
  }

  // Copy the results out, then free the buffers the function allocated
  // (not the caller's: a result may be an argument's buffer).
  std::set<const void *> argData;
  for (const tgc_arg_desc &t : args)
    argData.insert(t.data);
  std::set<void *> freed;
  int64_t word = 0;
  bool ok = true;
  if (checkFailure) {
    // The results were computed from invalid data: freed, not returned.
    error = "@" + entryName + ": " + checkFailure +
            " (the call's results are not valid)";
    ok = false;
  }
  for (auto [index, type] : llvm::enumerate(resultTypes)) {
    int64_t rank = type.getRank();
    int64_t *f = &resultStorage[word];
    word += descriptorFields(rank);
    void *allocated, *aligned;
    std::memcpy(&allocated, &f[0], sizeof(void *));
    std::memcpy(&aligned, &f[1], sizeof(void *));
    // Two results may be one buffer (CSE merges identical computations):
    // free each buffer once, after every result has been copied.
    if (allocated && !argData.count(allocated))
      freed.insert(allocated);
    if (!ok)
      continue;
    int64_t offset = f[2];
    std::optional<ref::DType> dtype = ref::dtypeOf(type.getElementType());
    if (!dtype) {
      error = "unsupported result element type";
      ok = false;
      continue;
    }
    std::vector<int64_t> shape(f + 3, f + 3 + rank);
    int64_t numel = 1;
    for (int64_t s : shape)
      numel *= s;
    void *out = buffers.given[index];
    if (out && buffers.shapes[index] != shape) {
      error = "result " + std::to_string(index) +
              " does not have the shape of the memory the code asked for";
      ok = false;
      continue;
    }
    if (!out)
      out = allocate(static_cast<int32_t>(index), *dtype, shape, error);
    if (!out) {
      if (error.empty())
        error = "no memory for result " + std::to_string(index);
      ok = false;
      continue;
    }
    size_t elem = ref::elementBytes(*dtype);
    const char *base = static_cast<const char *>(aligned) + offset * elem;
    // Results are dense row-major after bufferization with identity
    // layouts: one memcpy. Other strides are copied element by element.
    bool dense = true;
    for (int64_t d = rank - 1, expected = 1; d >= 0; --d) {
      if (shape[d] != 1 && f[3 + rank + d] != expected)
        dense = false;
      expected *= shape[d];
    }
    std::vector<int64_t> position(rank, 0);
    if (dense && numel > 0 && out != base)
      std::memmove(out, base, numel * elem);
    for (int64_t n = 0; !dense && n < numel; ++n) {
      int64_t off = 0;
      for (int64_t d = 0; d < rank; ++d)
        off += position[d] * f[3 + rank + d];
      std::memcpy(static_cast<char *>(out) + n * elem, base + off * elem,
                  elem);
      for (int64_t d = rank - 1; d >= 0; --d) {
        if (++position[d] < shape[d])
          break;
        position[d] = 0;
      }
    }
  }
  for (void *buffer : freed)
    std::free(buffer);
  return success(ok);
}
