//===- CpuJit.cpp - LLVM IR to objects on threads, linked in a JIT --------===//
//
// See CpuJit.h.
//
//===----------------------------------------------------------------------===//

#include "tgc/Compiler/CpuJit.h"

#include "RuntimeSymbols.h"

#include "tgc/Compiler/HostOptimizer.h"

#include "llvm/ADT/EquivalenceClasses.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/Bitcode/BitcodeWriter.h"
#include "llvm/ExecutionEngine/JITEventListener.h"
#include "llvm/ExecutionEngine/Orc/ExecutionUtils.h"
#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/ExecutionEngine/Orc/RTDyldObjectLinkingLayer.h"
#include "llvm/ExecutionEngine/SectionMemoryManager.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/DynamicLibrary.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Transforms/Utils/Cloning.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <thread>

#ifndef TGC_LIBOMP_PATH
#define TGC_LIBOMP_PATH ""
#endif

using namespace mlir;
using namespace mlir::tgc;

llvm::Error mlir::tgc::addPackedWrapper(llvm::Module &module,
                                        llvm::StringRef name) {
  llvm::Function *callee = module.getFunction(name);
  if (!callee || callee->isDeclaration() ||
      !callee->getReturnType()->isVoidTy())
    return llvm::createStringError("no function @" + name +
                                   " returning void to wrap");
  llvm::LLVMContext &ctx = module.getContext();
  auto *ptr = llvm::PointerType::getUnqual(ctx);
  auto *wrapper = llvm::Function::Create(
      llvm::FunctionType::get(llvm::Type::getVoidTy(ctx), {ptr}, false),
      llvm::GlobalValue::ExternalLinkage, "_mlir_" + name, module);
  llvm::IRBuilder<> b(llvm::BasicBlock::Create(ctx, "entry", wrapper));
  llvm::SmallVector<llvm::Value *> args;
  for (llvm::Argument &arg : callee->args()) {
    llvm::Value *slot =
        b.CreateConstGEP1_64(ptr, wrapper->getArg(0), arg.getArgNo());
    args.push_back(b.CreateLoad(arg.getType(), b.CreateLoad(ptr, slot)));
  }
  b.CreateCall(callee, args);
  b.CreateRetVoid();
  return llvm::Error::success();
}

namespace {

/// LLVM's native target, registered once per process (the code generator
/// of the parts, the JIT's object linking).
void initializeHostTarget() {
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
  });
}

/// The host's target machine, as the JIT's (one per thread: code
/// generation is not shared).
llvm::Expected<std::unique_ptr<llvm::TargetMachine>>
hostMachine(llvm::CodeGenOptLevel level = llvm::CodeGenOptLevel::Aggressive) {
  auto builder = llvm::orc::JITTargetMachineBuilder::detectHost();
  if (!builder)
    return builder.takeError();
  builder->setCodeGenOptLevel(level);
  return builder->createTargetMachine();
}

/// Where a global value is referenced from: the functions whose
/// instructions use it (directly or through constant expressions), and
/// whether a global variable's initializer does.
struct References {
  llvm::SmallPtrSet<llvm::Function *, 4> functions;
  bool byGlobal = false;
};

References referencesOf(llvm::GlobalValue &value) {
  References out;
  llvm::SmallVector<llvm::User *> work(value.users().begin(),
                                       value.users().end());
  llvm::SmallPtrSet<llvm::User *, 8> seen;
  while (!work.empty()) {
    llvm::User *user = work.pop_back_val();
    if (!seen.insert(user).second)
      continue;
    if (auto *inst = llvm::dyn_cast<llvm::Instruction>(user))
      out.functions.insert(inst->getFunction());
    else if (llvm::isa<llvm::GlobalValue>(user))
      out.byGlobal = true;
    else // a constant expression or aggregate: whoever uses it
      work.append(user->user_begin(), user->user_end());
  }
  return out;
}

/// Whether every use of `f` is a direct call of it from a function: such a
/// function can be called from another part once it is external.
bool onlyCalled(const llvm::Function &f) {
  return llvm::all_of(f.uses(), [&](const llvm::Use &use) {
    auto *call = llvm::dyn_cast<llvm::CallBase>(use.getUser());
    return call && call->isCallee(&use);
  });
}

/// Whether `f` has a loop: such a function is a kernel, or holds one.
bool hasLoops(llvm::Function &f) {
  llvm::DominatorTree dominators(f);
  llvm::LoopInfo loops(dominators);
  return !loops.empty();
}

/// A guess at LLVM's time on `f`: its instructions, those of a function
/// with loops (a kernel: the vectorizer, unrolling) counted 8 times. The
/// glue (the entry, its C interface, the guard function) is straight-line
/// code, and cheap per instruction.
size_t cost(llvm::Function &f) {
  return f.getInstructionCount() * (hasLoops(f) ? 8 : 1);
}

/// Parts of the module's functions, by index (part 0 also defines every
/// global variable). Local functions whose address is taken (OpenMP's
/// outlined bodies) stay with the functions that take it; local functions
/// only called directly (the kernels) may go anywhere.
std::vector<std::vector<llvm::Function *>>
partitionFunctions(llvm::Module &module, unsigned parts,
                   const llvm::SmallPtrSetImpl<llvm::Function *> &skip) {
  llvm::EquivalenceClasses<llvm::Function *> together;
  llvm::DenseMap<llvm::Function *, size_t> size;
  llvm::SmallPtrSet<llvm::Function *, 4> pinned; // used outside functions
  for (llvm::Function &f : module) {
    if (f.isDeclaration() || skip.contains(&f))
      continue;
    together.insert(&f);
    size[&f] = cost(f);
    if (!f.hasLocalLinkage() || onlyCalled(f))
      continue;
    References refs = referencesOf(f);
    for (llvm::Function *user : refs.functions)
      together.unionSets(&f, user);
    if (refs.byGlobal)
      pinned.insert(&f);
  }
  // The classes in the module's order, then largest first, each to the
  // part with the least so far (deterministic: no pointer order).
  struct Class {
    std::vector<llvm::Function *> functions;
    size_t size = 0;
    size_t index = 0;
    bool pinned = false;
  };
  std::vector<Class> classes;
  llvm::DenseMap<llvm::Function *, size_t> classOf;
  for (llvm::Function &f : module) {
    if (f.isDeclaration() || skip.contains(&f))
      continue;
    llvm::Function *leader = together.getLeaderValue(&f);
    auto [it, added] = classOf.try_emplace(leader, classes.size());
    if (added) {
      classes.emplace_back();
      classes.back().index = it->second;
    }
    Class &c = classes[it->second];
    c.functions.push_back(&f);
    c.size += size[&f];
    c.pinned |= pinned.contains(&f);
  }
  llvm::sort(classes, [](const Class &a, const Class &b) {
    return a.size != b.size ? a.size > b.size : a.index < b.index;
  });
  parts = std::max<unsigned>(1, std::min<size_t>(parts, classes.size()));
  std::vector<std::vector<llvm::Function *>> out(parts);
  std::vector<size_t> load(parts, 0);
  for (Class &c : classes) {
    size_t p = c.pinned
                   ? 0
                   : std::min_element(load.begin(), load.end()) - load.begin();
    load[p] += c.size;
    for (llvm::Function *f : c.functions)
      out[p].push_back(f);
  }
  // Empty parts (more threads than work) are dropped.
  llvm::erase_if(out, [](const auto &fs) { return fs.empty(); });
  return out;
}

/// Optimizes `module` and emits it as an object; `fast`: at most -O1 and
/// LLVM's fast instruction selection (kFastCodegen).
llvm::Error emitObject(llvm::Module &module, unsigned optLevel, bool vectorMath,
                       bool fast, std::string &object) {
  auto machine = hostMachine(fast ? llvm::CodeGenOptLevel::None
                                  : llvm::CodeGenOptLevel::Aggressive);
  if (!machine)
    return machine.takeError();
  if (fast)
    optLevel = std::min(optLevel, 1u);
  module.setDataLayout((*machine)->createDataLayout());
  module.setTargetTriple((*machine)->getTargetTriple());
  if (llvm::Error e =
          makeHostOptimizer(optLevel, machine->get(), vectorMath)(&module))
    return e;
  llvm::SmallVector<char, 0> buffer;
  llvm::raw_svector_ostream os(buffer);
  llvm::legacy::PassManager codegen;
  if ((*machine)->addPassesToEmitFile(codegen, os, nullptr,
                                      llvm::CodeGenFileType::ObjectFile))
    return llvm::createStringError("the host target cannot emit objects");
  codegen.run(module);
  object.assign(buffer.begin(), buffer.end());
  return llvm::Error::success();
}

/// "N instructions in M functions; largest: f (k), g (l), h (m)".
std::string describePart(llvm::Module &module) {
  std::vector<std::pair<unsigned, llvm::StringRef>> sizes;
  unsigned total = 0;
  for (llvm::Function &f : module)
    if (!f.isDeclaration()) {
      sizes.emplace_back(f.getInstructionCount(), f.getName());
      total += sizes.back().first;
    }
  llvm::sort(sizes, [](auto &x, auto &y) { return x.first > y.first; });
  std::string out =
      llvm::formatv("{0} instructions in {1} functions", total, sizes.size())
          .str();
  for (size_t i = 0; i < sizes.size() && i < 3; ++i)
    out +=
        llvm::formatv("{0} {1} ({2})", i ? "," : "; largest:", sizes[i].second,
                      sizes[i].first)
            .str();
  return out;
}

} // namespace

llvm::Error mlir::tgc::compileToObjects(std::unique_ptr<llvm::Module> module,
                                        unsigned threads, unsigned optLevel,
                                        bool vectorMath,
                                        std::vector<std::string> &objects,
                                        size_t minSplitInstructions) {
  initializeHostTarget();
  // Definitions the optimizer may drop when unused where they are defined
  // (MLIR's `linkonce_odr` helpers, `__mlir_math_ipowi_i32`) are local,
  // so that the split makes them strong where another part calls them.
  for (llvm::GlobalObject &g : module->global_objects())
    if (!g.isDeclaration() && !g.hasLocalLinkage() &&
        llvm::GlobalValue::isDiscardableIfUnused(g.getLinkage())) {
      g.setLinkage(llvm::GlobalValue::InternalLinkage);
      g.setComdat(nullptr);
    }
  // Local functions nothing calls any more (the entry, inlined into its C
  // interface; unused helpers) would otherwise be compiled in a part.
  for (bool erased = true; erased;) {
    erased = false;
    for (llvm::Function &f : llvm::make_early_inc_range(*module))
      if (!f.isDeclaration() && f.hasLocalLinkage() && f.use_empty()) {
        f.eraseFromParent();
        erased = true;
      }
  }
  // Splitting costs a copy of the module and its bitcode per part: not for
  // small modules, whose LLVM work is a few milliseconds; nor for aliases
  // and ifuncs (TGC makes none), which a split would copy into each part.
  bool small = module->getInstructionCount() < minSplitInstructions ||
               !module->alias_empty() || !module->ifunc_empty();
  // Functions marked for fast code generation (the glue: the guard
  // function's checks and branches, the packed wrapper's calls),
  // without loops and called by none but each other, go to a part of their
  // own (one more thread), compiled at -O1 with fast instruction
  // selection: a 6-block stack's guard function took 36 ms of LLVM work at
  // -O3 and takes 17 (docs/cpu-pipeline.md, "Glue compiled fast, outer
  // loops kept").
  llvm::SmallPtrSet<llvm::Function *, 4> fast;
  if (!small)
    for (llvm::Function &f : *module)
      if (!f.isDeclaration() && f.hasFnAttribute(kFastCodegen) &&
          !f.hasLocalLinkage() && !hasLoops(f))
        fast.insert(&f);
  for (bool dropped = true; dropped;) {
    dropped = false;
    for (llvm::Function *f : llvm::to_vector(fast)) {
      References refs = referencesOf(*f);
      if (refs.byGlobal || llvm::any_of(refs.functions, [&](llvm::Function *u) {
            return !fast.contains(u);
          })) {
        fast.erase(f);
        dropped = true;
      }
    }
  }
  std::vector<std::vector<llvm::Function *>> parts =
      partitionFunctions(*module, small ? 1 : threads, fast);
  // The fast part, when there is one, is the last.
  if (!fast.empty())
    parts.emplace_back(fast.begin(), fast.end());
  auto isFast = [&](size_t p) {
    return !fast.empty() && p + 1 == parts.size();
  };
  objects.assign(std::max<size_t>(parts.size(), 1), std::string());
  // TGC_JIT_PARTS=1: a line per part on stderr (its time, whether it is the
  // glue's fast part, its instructions before optimization and its largest
  // functions): which part a cold compile waited for.
  const char *report = std::getenv("TGC_JIT_PARTS");
  bool reportParts = report && std::strcmp(report, "0") != 0;
  if (parts.size() < 2) {
    auto started = std::chrono::steady_clock::now();
    std::string summary = reportParts ? describePart(*module) : "";
    llvm::Error e =
        emitObject(*module, optLevel, vectorMath, false, objects[0]);
    if (reportParts)
      llvm::errs() << llvm::formatv(
          "[tgc] LLVM JIT part 0 (the whole module): {0:F1} ms, {1}\n",
          std::chrono::duration<double, std::milli>(
              std::chrono::steady_clock::now() - started)
              .count(),
          summary);
    return e;
  }

  // What another part references is external (hidden: the JIT's symbols of
  // this function only): a function called from another part, one a
  // global's initializer refers to (globals are defined in part 0, local
  // constants copied into every part), and every mutable local global
  // (defined in part 0). Unnamed values get names first, or each part
  // would name them on its own.
  llvm::DenseMap<const llvm::GlobalValue *, size_t> partOf;
  for (auto [p, functions] : llvm::enumerate(parts))
    for (llvm::Function *f : functions)
      partOf[f] = p;
  auto externalize = [](llvm::GlobalValue &g) {
    g.setLinkage(llvm::GlobalValue::ExternalLinkage);
    g.setVisibility(llvm::GlobalValue::HiddenVisibility);
  };
  for (llvm::GlobalValue &g : module->global_values())
    if (g.hasLocalLinkage() && !g.hasName())
      g.setName("tgc.unnamed");
  for (llvm::Function &f : *module) {
    if (f.isDeclaration() || !f.hasLocalLinkage())
      continue;
    References refs = referencesOf(f);
    if (refs.byGlobal || llvm::any_of(refs.functions, [&](llvm::Function *u) {
          return partOf.lookup(u) != partOf.lookup(&f);
        }))
      externalize(f);
  }
  // Local constants go to the parts that read them (a model's large
  // constant tables are not copied into every part), or to every part
  // when another global refers to them.
  llvm::DenseMap<const llvm::GlobalValue *, llvm::SmallVector<bool>> readBy;
  for (llvm::GlobalVariable &g : module->globals()) {
    if (!g.hasLocalLinkage())
      continue;
    if (!g.isConstant()) {
      externalize(g);
      continue;
    }
    References refs = referencesOf(g);
    llvm::SmallVector<bool> &in = readBy[&g];
    in.assign(parts.size(), refs.byGlobal);
    for (llvm::Function *u : refs.functions)
      in[partOf.lookup(u)] = true;
  }
  // Each part as bitcode, read back on its thread into a context of its
  // own (an LLVMContext is not shared between threads).
  std::vector<std::string> bitcode(parts.size());
  for (size_t p = 0; p < parts.size(); ++p) {
    llvm::ValueToValueMapTy map;
    std::unique_ptr<llvm::Module> part =
        llvm::CloneModule(*module, map, [&](const llvm::GlobalValue *gv) {
          if (llvm::isa<llvm::Function>(gv))
            return partOf.lookup(gv) == p;
          // Local constants are copied into each part that reads them.
          if (gv->hasLocalLinkage()) {
            auto it = readBy.find(gv);
            return it == readBy.end() || it->second[p];
          }
          return p == 0;
        });
    llvm::raw_string_ostream os(bitcode[p]);
    llvm::WriteBitcodeToFile(*part, os);
  }
  std::vector<std::string> errors(parts.size());
  std::vector<std::string> reports(parts.size());
  auto work = [&](size_t p) {
    auto started = std::chrono::steady_clock::now();
    llvm::LLVMContext context;
    auto part = llvm::parseBitcodeFile(
        llvm::MemoryBufferRef(bitcode[p], "tgc-part"), context);
    std::string summary;
    if (part && reportParts)
      summary = describePart(**part);
    llvm::Error e =
        part ? emitObject(**part, optLevel, vectorMath, isFast(p), objects[p])
             : part.takeError();
    if (e)
      errors[p] = llvm::toString(std::move(e));
    if (reportParts)
      reports[p] = llvm::formatv("[tgc] LLVM JIT part {0}{1}: {2:F1} ms, {3}\n",
                                 p, isFast(p) ? " (glue, fast)" : "",
                                 std::chrono::duration<double, std::milli>(
                                     std::chrono::steady_clock::now() - started)
                                     .count(),
                                 summary)
                       .str();
  };
  // One thread asked for: the parts one after another.
  std::vector<std::thread> workers;
  for (size_t p = 1; p < parts.size() && threads > 1; ++p)
    workers.emplace_back(work, p);
  for (size_t p = 0; p < (threads > 1 ? 1 : parts.size()); ++p)
    work(p);
  for (std::thread &worker : workers)
    worker.join();
  for (const std::string &line : reports)
    llvm::errs() << line;
  module.reset();
  for (const std::string &e : errors)
    if (!e.empty())
      return llvm::createStringError(e);
  return llvm::Error::success();
}

/// LLVM's OpenMP runtime keeps a team's workers spinning for 200 ms after
/// each parallel region (KMP_BLOCKTIME). PyTorch's own thread pool is
/// usually another OpenMP runtime (libgomp): its eager ops between two
/// compiled calls found their cores taken by TGC's spinning workers (on the
/// CI machine an eager `exp` over 4096 x 4096 ran 12-14 ms slower per call
/// next to a compiled linear layer; docs/cpu-pipeline.md, "Threads"). So
/// TGC's runtime waits 1 ms, once per process, unless the user set
/// KMP_BLOCKTIME. `lib` is a library the JIT loaded; nothing happens unless
/// it is an OpenMP runtime with `kmp_set_defaults`.
static void shortenOpenMPSpin(const std::string &lib) {
  // Once set (or left to the user), later JITs of the process do nothing.
  static std::atomic<bool> settled{false};
  if (settled.load(std::memory_order_relaxed))
    return;
  if (std::getenv("KMP_BLOCKTIME")) {
    settled = true;
    return;
  }
  std::string why;
  llvm::sys::DynamicLibrary dl =
      llvm::sys::DynamicLibrary::getPermanentLibrary(lib.c_str(), &why);
  using SetDefaults = void (*)(const char *);
  auto set = dl.isValid() ? reinterpret_cast<SetDefaults>(
                                dl.getAddressOfSymbol("kmp_set_defaults"))
                          : nullptr;
  if (!set)
    return; // not an OpenMP runtime (the C runner utilities)
  static std::once_flag once;
  std::call_once(once, [&] {
    set("KMP_BLOCKTIME=1");
    settled = true;
  });
}

llvm::Expected<std::unique_ptr<llvm::orc::LLJIT>>
mlir::tgc::createHostJit(const std::vector<std::string> &sharedLibs,
                         bool openmp, bool perfListener) {
  initializeHostTarget();
  auto builder = llvm::orc::JITTargetMachineBuilder::detectHost();
  if (!builder)
    return builder.takeError();
  builder->setCodeGenOptLevel(llvm::CodeGenOptLevel::Aggressive);
  auto jit =
      llvm::orc::LLJITBuilder()
          .setJITTargetMachineBuilder(std::move(*builder))
          .setObjectLinkingLayerCreator(
              [perfListener](llvm::orc::ExecutionSession &es)
                  -> llvm::Expected<std::unique_ptr<llvm::orc::ObjectLayer>> {
                auto layer =
                    std::make_unique<llvm::orc::RTDyldObjectLinkingLayer>(
                        es, [](const llvm::MemoryBuffer &) {
                          return std::make_unique<llvm::SectionMemoryManager>();
                        });
                if (perfListener)
                  if (llvm::JITEventListener *perf =
                          llvm::JITEventListener::createPerfJITEventListener())
                    layer->registerJITEventListener(*perf);
                return layer;
              })
          .create();
  if (!jit)
    return jit.takeError();
  llvm::orc::JITDylib &main = (*jit)->getMainJITDylib();
  // Vector math calls resolve in libmvec, loaded into the process.
  vectorMathAvailable();
  std::vector<std::string> libs = sharedLibs;
  if (libs.empty() && openmp && std::strlen(TGC_LIBOMP_PATH))
    libs.push_back(TGC_LIBOMP_PATH);
  if (sharedLibs.empty())
    libs.push_back(TGC_C_RUNNER_UTILS_PATH);
  for (const std::string &lib : libs) {
    std::string why;
    if (llvm::sys::DynamicLibrary::LoadLibraryPermanently(lib.c_str(), &why))
      return llvm::createStringError("cannot load " + lib + ": " + why);
    shortenOpenMPSpin(lib);
  }
  auto process = llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(
      (*jit)->getDataLayout().getGlobalPrefix());
  if (!process)
    return process.takeError();
  main.addGenerator(std::move(*process));
  llvm::orc::MangleAndInterner interner((*jit)->getExecutionSession(),
                                        (*jit)->getDataLayout());
  if (llvm::Error e =
          main.define(llvm::orc::absoluteSymbols(runtimeSymbols(interner))))
    return std::move(e);
  return std::move(*jit);
}

llvm::Error mlir::tgc::addObjects(llvm::orc::LLJIT &jit,
                                  const std::vector<std::string> &objects) {
  for (const std::string &object : objects)
    if (llvm::Error e = jit.addObjectFile(
            llvm::MemoryBuffer::getMemBufferCopy(object, "tgc-object")))
      return e;
  return jit.initialize(jit.getMainJITDylib());
}
