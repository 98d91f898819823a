//===- HostTarget.cpp - LLVM-dialect modules to host objects --------------===//
//
// The CPU counterpart of the NVPTX target: translate to LLVM IR, optimize for
// the host CPU with the same pipeline the JIT uses, emit an object with the
// host back end, and link a shared object with ld.lld.
//
//===----------------------------------------------------------------------===//

#include "tgc/Target/Host/HostTarget.h"

#include "tgc/Runtime/SharedObject.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/OpenMP/OpenMPDialect.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/OpenMP/OpenMPToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "mlir/Tools/mlir-translate/Translation.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/IR/InstrTypes.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/Transforms/Utils/Cloning.h"

#include <functional>
#include <memory>
#include <mutex>

#ifndef TGC_LLVM_TOOLS_DIR
#define TGC_LLVM_TOOLS_DIR ""
#endif
#ifndef TGC_LLVM_LIBRARY_DIR
#define TGC_LLVM_LIBRARY_DIR ""
#endif

using namespace mlir;
using namespace mlir::tgc;

void mlir::tgc::registerHostTranslationDialects(DialectRegistry &registry) {
  registry.insert<LLVM::LLVMDialect, omp::OpenMPDialect>();
  registerBuiltinDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
  registerOpenMPDialectTranslation(registry);
}

void mlir::tgc::prepareEntryFunctions(llvm::Module &module) {
  SmallVector<llvm::CallBase *> wrapperCalls;
  for (llvm::Function &f : module) {
    if (f.isDeclaration() || !f.hasExternalLinkage())
      continue;
    f.addFnAttr("tune-cpu", "generic");
    llvm::Function *wrapper =
        module.getFunction(("_mlir_ciface_" + f.getName()).str());
    if (!wrapper || wrapper->isDeclaration())
      continue;
    for (llvm::User *user : f.users())
      if (auto *call = dyn_cast<llvm::CallBase>(user))
        if (call->getFunction() == wrapper && call->getCalledFunction() == &f)
          wrapperCalls.push_back(call);
  }
  // Inlined now, not by LLVM's inliner: the optimizer's module passes
  // before it (CalledValuePropagation) are quadratic in such a call's
  // arguments too, 10 of a 3000-op graph's 16 s of optimization.
  for (llvm::CallBase *call : wrapperCalls) {
    llvm::InlineFunctionInfo info;
    (void)llvm::InlineFunction(*call, info);
  }
}

namespace {
/// The host's target machine for `options` (diagnostics at `loc`).
FailureOr<std::unique_ptr<llvm::TargetMachine>>
createHostTargetMachine(Location loc, const HostCodegenOptions &options) {
  static std::once_flag init;
  std::call_once(init, [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
  });
  if (options.optLevel > 3)
    return emitError(loc) << "optimization level " << options.optLevel
                          << " is not in 0-3";
  llvm::Triple triple(llvm::sys::getProcessTriple());
  std::string error;
  const llvm::Target *target =
      llvm::TargetRegistry::lookupTarget(triple, error);
  if (!target)
    return emitError(loc) << "no LLVM target for the host (" << triple.str()
                          << "): " << error;
  std::string cpu = options.cpu;
  std::string features;
  if (cpu != "native" && cpu != "generic") {
    std::unique_ptr<llvm::MCSubtargetInfo> info(
        target->createMCSubtargetInfo(triple, "", ""));
    if (!info || !info->isCPUStringValid(cpu))
      return emitError(loc) << "unknown CPU '" << cpu << "' for "
                            << triple.str()
                            << " (try native, generic or x86-64-v3)";
  }
  if (cpu == "native") {
    cpu = llvm::sys::getHostCPUName().str();
    SmallVector<std::string> list;
    for (auto &feature : llvm::sys::getHostCPUFeatures())
      list.push_back((feature.second ? "+" : "-") + feature.first().str());
    features = llvm::join(list, ",");
  }
  std::unique_ptr<llvm::TargetMachine> machine(target->createTargetMachine(
      triple, cpu, features, llvm::TargetOptions(), llvm::Reloc::PIC_,
      std::nullopt, static_cast<llvm::CodeGenOptLevel>(options.optLevel)));
  if (!machine)
    return emitError(loc) << "cannot create a target machine for CPU '"
                          << cpu << "'";
  return machine;
}

/// Translates and optimizes `op` into `llvmCtx`.
FailureOr<std::unique_ptr<llvm::Module>>
translateAndOptimize(Operation *op, llvm::LLVMContext &llvmCtx,
                     llvm::TargetMachine &machine,
                     const HostCodegenOptions &options) {
  // A module that is not lowered yet gets one clear error at its first
  // op from another dialect, not the translator's registration message.
  WalkResult unlowered = op->walk([&](Operation *nested) {
    if (nested == op || isa<LLVM::LLVMDialect, omp::OpenMPDialect>(
                            nested->getDialect()) ||
        isa<ModuleOp>(nested))
      return WalkResult::advance();
    emitError(nested->getLoc())
        << "'" << nested->getName()
        << "' is not lowered to the LLVM dialect; run tgc-opt "
           "--tgc-cpu-pipeline on the module first";
    return WalkResult::interrupt();
  });
  if (unlowered.wasInterrupted())
    return failure();
  std::unique_ptr<llvm::Module> module =
      translateModuleToLLVMIR(op, llvmCtx, "tgc-host");
  if (!module)
    return emitError(op->getLoc())
           << "translation to LLVM IR failed (is the module lowered to the "
              "LLVM dialect? run tgc-cpu-pipeline first)";
  module->setTargetTriple(machine.getTargetTriple());
  module->setDataLayout(machine.createDataLayout());
  prepareEntryFunctions(*module);
  auto optimize = makeOptimizingTransformer(options.optLevel,
                                            /*sizeLevel=*/0, &machine);
  if (llvm::Error err = optimize(module.get()))
    return emitError(op->getLoc())
           << "LLVM optimization failed: " << llvm::toString(std::move(err));
  return module;
}

/// The module translated and optimized for the host, handed to `emit` with
/// the target machine that made it.
FailureOr<std::string>
emitHostModule(Operation *op, const HostCodegenOptions &options,
               llvm::function_ref<FailureOr<std::string>(llvm::TargetMachine &,
                                                         llvm::Module &)>
                   emit) {
  auto machine = createHostTargetMachine(op->getLoc(), options);
  if (failed(machine))
    return failure();
  llvm::LLVMContext llvmCtx;
  auto module = translateAndOptimize(op, llvmCtx, **machine, options);
  if (failed(module))
    return failure();
  return emit(**machine, **module);
}
} // namespace

FailureOr<std::string>
mlir::tgc::translateModuleToHostLLVMIR(Operation *op,
                                       const HostCodegenOptions &options) {
  return emitHostModule(op, options,
                        [](llvm::TargetMachine &,
                           llvm::Module &module) -> FailureOr<std::string> {
                          std::string text;
                          llvm::raw_string_ostream os(text);
                          module.print(os, nullptr);
                          return text;
                        });
}

FailureOr<std::string>
mlir::tgc::translateModuleToHostObject(Operation *op,
                                       const HostCodegenOptions &options) {
  return emitHostModule(
      op, options,
      [&](llvm::TargetMachine &machine,
          llvm::Module &module) -> FailureOr<std::string> {
        SmallString<0> object;
        llvm::raw_svector_ostream os(object);
        llvm::legacy::PassManager codegen;
        if (machine.addPassesToEmitFile(codegen, os, nullptr,
                                        llvm::CodeGenFileType::ObjectFile))
          return emitError(op->getLoc())
                 << "the host target cannot emit object files";
        codegen.run(module);
        return std::string(object.str());
      });
}

namespace {
/// Removes a temporary file when it goes out of scope.
struct TempFile {
  SmallString<128> path;
  ~TempFile() {
    if (!path.empty())
      llvm::sys::fs::remove(path);
  }
};

std::string findLinker(StringRef explicitPath) {
  if (!explicitPath.empty())
    return explicitPath.str();
  if (std::string dir = TGC_LLVM_TOOLS_DIR; !dir.empty()) {
    SmallString<128> path(dir);
    llvm::sys::path::append(path, "ld.lld");
    if (llvm::sys::fs::can_execute(path))
      return path.str().str();
  }
  if (auto found = llvm::sys::findProgramByName("ld.lld"))
    return *found;
  return "";
}
} // namespace

FailureOr<std::string>
mlir::tgc::translateModuleToSharedObject(Operation *op,
                                         const HostCodegenOptions &options) {
  Location loc = op->getLoc();
  std::string linker = findLinker(options.linkerPath);
  if (!options.linkerPath.empty() && !llvm::sys::fs::can_execute(linker))
    return emitError(loc) << "linker '" << linker
                          << "' is not an executable file";
  if (linker.empty())
    return emitError(loc) << "no linker: ld.lld is neither next to LLVM's "
                             "tools nor on PATH (give --tgc-linker-path)";
  FailureOr<std::string> object = translateModuleToHostObject(op, options);
  if (failed(object))
    return failure();

  TempFile objectFile, sharedFile, logFile;
  int fd;
  if (llvm::sys::fs::createTemporaryFile("tgc-host", "o", fd,
                                         objectFile.path))
    return emitError(loc) << "cannot create a temporary object file";
  {
    llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
    os << *object;
  }
  if (llvm::sys::fs::createTemporaryFile("tgc-host", "so", sharedFile.path) ||
      llvm::sys::fs::createTemporaryFile("tgc-host-link", "log",
                                         logFile.path))
    return emitError(loc) << "cannot create temporary files";
  std::string ompDir =
      options.ompLibDir.empty() ? TGC_LLVM_LIBRARY_DIR : options.ompLibDir;
  SmallVector<std::string> args = {linker, "-shared", "-o",
                                   sharedFile.path.str().str(),
                                   objectFile.path.str().str()};
  if (!ompDir.empty()) {
    args.push_back("-L" + ompDir);
    args.push_back("-rpath");
    args.push_back(ompDir);
  }
  args.push_back("-lomp");
  // libm (the math functions the kernels call) from the system's library
  // directories, which ld.lld does not search on its own.
  for (StringRef dir : {"/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu",
                        "/lib/aarch64-linux-gnu", "/usr/lib/aarch64-linux-gnu",
                        "/lib64", "/usr/lib64", "/lib", "/usr/lib"})
    if (llvm::sys::fs::is_directory(dir))
      args.push_back(("-L" + dir).str());
  args.push_back("-lm");
  SmallVector<StringRef> argRefs(args.begin(), args.end());
  std::optional<StringRef> redirects[] = {std::nullopt, logFile.path.str(),
                                          logFile.path.str()};
  std::string execError;
  int rc = llvm::sys::ExecuteAndWait(linker, argRefs, std::nullopt, redirects,
                                     /*SecondsToWait=*/0, /*MemoryLimit=*/0,
                                     &execError);
  if (rc != 0) {
    std::string log;
    if (auto buffer = llvm::MemoryBuffer::getFile(logFile.path))
      log = (*buffer)->getBuffer().str();
    return emitError(loc) << "linking the shared object failed ("
                          << llvm::join(args, " ") << "): "
                          << (execError.empty() ? log : execError);
  }
  auto buffer = llvm::MemoryBuffer::getFile(sharedFile.path, false, false);
  if (!buffer)
    return emitError(loc) << "cannot read the linked shared object";
  // The seal (size and checksum after the ELF contents) that the runtime's
  // tgc_shared_object_open checks; dlopen ignores it.
  return ::tgc::runtime::sealSharedObject((*buffer)->getBuffer().str());
}

namespace {
struct HostTranslationOptions {
  llvm::cl::OptionCategory category{"TGC CPU translation options"};
  llvm::cl::opt<unsigned> optLevel{
      "tgc-host-opt-level",
      llvm::cl::desc("Optimization level of LLVM for CPU code (0-3)"),
      llvm::cl::init(3), llvm::cl::cat(category)};
  llvm::cl::opt<std::string> cpu{
      "tgc-host-cpu",
      llvm::cl::desc("CPU to generate code for: native (default), generic "
                     "or an LLVM CPU name"),
      llvm::cl::init("native"), llvm::cl::cat(category)};
  llvm::cl::opt<std::string> linkerPath{
      "tgc-linker-path",
      llvm::cl::desc("ld.lld for --tgc-to-shared-object (default: next to "
                     "LLVM's tools, then PATH)"),
      llvm::cl::init(""), llvm::cl::cat(category)};

  HostCodegenOptions get() const {
    HostCodegenOptions o;
    o.optLevel = optLevel;
    o.cpu = cpu;
    o.linkerPath = linkerPath;
    return o;
  }
};
} // namespace

void mlir::tgc::registerHostTranslations(
    std::function<void(DialectRegistry &)> inputDialects) {
  static HostTranslationOptions clOptions;
  static std::function<void(DialectRegistry &)> extra = inputDialects;
  auto registerDialects = [](DialectRegistry &registry) {
    registerHostTranslationDialects(registry);
    if (extra)
      extra(registry);
  };
  using Fn = FailureOr<std::string> (*)(Operation *,
                                        const HostCodegenOptions &);
  auto wrap = [](Fn fn) {
    return [fn](Operation *op, raw_ostream &os) -> LogicalResult {
      FailureOr<std::string> out = fn(op, clOptions.get());
      if (failed(out))
        return failure();
      os << *out;
      return success();
    };
  };
  static TranslateFromMLIRRegistration toIR(
      "tgc-to-host-llvmir",
      "Translate a lowered CPU module to LLVM IR optimized for the host",
      wrap(translateModuleToHostLLVMIR), registerDialects);
  static TranslateFromMLIRRegistration toObject(
      "tgc-to-object",
      "Translate a lowered CPU module to a native object file",
      wrap(translateModuleToHostObject), registerDialects);
  static TranslateFromMLIRRegistration toShared(
      "tgc-to-shared-object",
      "Translate a lowered CPU module to a shared object (links libomp)",
      wrap(translateModuleToSharedObject), registerDialects);
}
