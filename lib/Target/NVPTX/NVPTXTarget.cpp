//===- NVPTXTarget.cpp - gpu.module to PTX and cubin ----------------------===//
//
// A lowered gpu.module goes through MLIR's LLVM-IR export, libdevice
// linking, LLVM's optimization pipeline and the NVPTX back end to PTX; ptxas,
// run as a separate process, turns PTX into a cubin. Upstream's
// mlir/lib/Target/LLVM/ModuleToObject.cpp and NVVM target follow the same
// path; TGC keeps its own so that it can reject unknown chips and features
// up front (LLVM warns and goes on, or aborts the process), turn LLVM's
// diagnostics into MLIR ones, and find the CUDA toolkit the TGC way.
//
//===----------------------------------------------------------------------===//

#include "tgc/Target/NVPTX/NVPTXTarget.h"

#include "SplitKernels.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/BuiltinDialect.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/GPU/GPUToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/NVVM/NVVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "mlir/Target/LLVMIR/LLVMTranslationInterface.h"

#include "llvm-c/Target.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/IR/DiagnosticInfo.h"
#include "llvm/IR/DiagnosticPrinter.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/IRReader/IRReader.h"
#include "llvm/Linker/Linker.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Passes/OptimizationLevel.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/Threading.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"
#include "llvm/TargetParser/Triple.h"
#include "llvm/Transforms/IPO/Internalize.h"

#include <cstdlib>
#include <mutex>
#include <thread>

#ifndef TGC_DEFAULT_CUDA_PATH
#define TGC_DEFAULT_CUDA_PATH "/usr/local/cuda"
#endif

using namespace mlir;
using namespace mlir::tgc;

static constexpr llvm::StringLiteral kNVPTXTriple = "nvptx64-nvidia-cuda";

void mlir::tgc::registerNVPTXTranslationDialects(DialectRegistry &registry) {
  registry.insert<BuiltinDialect, gpu::GPUDialect, LLVM::LLVMDialect,
                  NVVM::NVVMDialect>();
  registerBuiltinDialectTranslation(registry);
  // The export translates the gpu.module op itself through this interface.
  registerGPUDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
  registerNVVMDialectTranslation(registry);
}

//===----------------------------------------------------------------------===//
// The CUDA toolkit
//===----------------------------------------------------------------------===//

static bool isUsableFile(const Twine &path, bool mustBeExecutable) {
  return llvm::sys::fs::is_regular_file(path) &&
         (!mustBeExecutable || llvm::sys::fs::can_execute(path));
}

/// Finds the file at `relativePath` in a CUDA toolkit: `explicitPath` alone
/// when it is given, otherwise under $CUDA_HOME, $CUDA_PATH and the toolkit
/// TGC was configured with, then (`searchPATH`) in PATH. The error names
/// every place looked at, and `explicitOption`, the way to name the file.
static llvm::Expected<std::string>
findInCUDAToolkit(StringRef what, StringRef explicitPath, bool mustBeExecutable,
                  ArrayRef<StringRef> relativePath, bool searchPATH,
                  StringRef explicitOption) {
  if (!explicitPath.empty()) {
    if (isUsableFile(explicitPath, mustBeExecutable))
      return explicitPath.str();
    return llvm::createStringError(
        Twine(what) + " '" + explicitPath + "' does not exist or is not " +
        (mustBeExecutable ? "an executable file" : "a file"));
  }

  std::string looked;
  llvm::raw_string_ostream lookedOS(looked);
  auto tryRoot = [&](StringRef root,
                     StringRef origin) -> std::optional<std::string> {
    SmallString<256> candidate(root);
    for (StringRef component : relativePath)
      llvm::sys::path::append(candidate, component);
    lookedOS << "\n  " << candidate << " (" << origin << ")";
    if (isUsableFile(candidate, mustBeExecutable))
      return std::string(candidate);
    return std::nullopt;
  };

  for (StringRef variable : {"CUDA_HOME", "CUDA_PATH"}) {
    std::optional<std::string> root = llvm::sys::Process::GetEnv(variable);
    if (!root || root->empty()) {
      lookedOS << "\n  $" << variable << " (unset)";
      continue;
    }
    if (std::optional<std::string> found =
            tryRoot(*root, ("$" + variable).str()))
      return *found;
  }
  if (std::optional<std::string> found = tryRoot(
          TGC_DEFAULT_CUDA_PATH, "the CUDA toolkit TGC was configured with"))
    return *found;
  if (searchPATH) {
    if (llvm::ErrorOr<std::string> found =
            llvm::sys::findProgramByName(relativePath.back()))
      return *found;
    lookedOS << "\n  every directory in PATH";
  }
  return llvm::createStringError(
      Twine("cannot find ") + what + "; looked at:" + looked +
      "\ninstall the CUDA toolkit, set CUDA_HOME, or give the path of " + what +
      " (" + explicitOption + ")");
}

llvm::Expected<std::string> mlir::tgc::findPtxas(StringRef explicitPath) {
  return findInCUDAToolkit("ptxas", explicitPath, /*mustBeExecutable=*/true,
                           {"bin", "ptxas"}, /*searchPATH=*/true,
                           "tgc-translate --tgc-ptxas-path");
}

llvm::Expected<std::string> mlir::tgc::findLibdevice(StringRef explicitPath) {
  return findInCUDAToolkit(
      "libdevice", explicitPath,
      /*mustBeExecutable=*/false, {"nvvm", "libdevice", "libdevice.10.bc"},
      /*searchPATH=*/false, "tgc-translate --tgc-libdevice-path");
}

//===----------------------------------------------------------------------===//
// Target machine
//===----------------------------------------------------------------------===//

/// Registers LLVM's NVPTX back end, and no other: TGC's tools never generate
/// code for the other targets libLLVM holds.
static void initializeNVPTXBackend() {
  static std::once_flag once;
  std::call_once(once, [] {
    LLVMInitializeNVPTXTargetInfo();
    LLVMInitializeNVPTXTarget();
    LLVMInitializeNVPTXTargetMC();
    LLVMInitializeNVPTXAsmPrinter();
  });
}

/// Checks `features` ("+ptx80,-foo") against the features the NVPTX back end
/// knows; LLVM itself would only print a warning and ignore an unknown one.
static LogicalResult
verifyFeatures(const llvm::MCSubtargetInfo &subtarget, StringRef features,
               function_ref<InFlightDiagnostic()> emitErr) {
  SmallVector<StringRef> parts;
  features.split(parts, ',', /*MaxSplit=*/-1, /*KeepEmpty=*/false);
  for (StringRef part : parts) {
    StringRef feature = part.trim();
    if (feature.empty())
      continue;
    if (!feature.consume_front("+") && !feature.consume_front("-"))
      return emitErr() << "NVPTX target feature '" << part.trim()
                       << "' must start with '+' or '-' (e.g. '+ptx80')";
    bool known = llvm::any_of(
        subtarget.getAllProcessorFeatures(),
        [&](const llvm::SubtargetFeatureKV &kv) { return feature == kv.Key; });
    if (!known)
      return emitErr() << "unknown NVPTX target feature '" << feature
                       << "' in '" << features << "'";
  }
  return success();
}

/// The highest PTX ISA version `features` asks for (`+ptx80` is 80), if any.
static std::optional<unsigned> getRequestedPTXVersion(StringRef features) {
  std::optional<unsigned> requested;
  SmallVector<StringRef> parts;
  features.split(parts, ',', /*MaxSplit=*/-1, /*KeepEmpty=*/false);
  for (StringRef part : parts) {
    StringRef feature = part.trim();
    unsigned version;
    if (feature.consume_front("+ptx") && !feature.getAsInteger(10, version))
      requested = std::max(requested.value_or(0), version);
  }
  return requested;
}

/// The PTX ISA version LLVM picks for `chip` by default, which is the lowest
/// one that supports it (78 for sm_90), read from the `.version` line of an
/// empty module. LLVM aborts the process on an explicit older version, so it
/// must be caught first; the back end keeps its table to itself.
static std::optional<unsigned> getMinimumPTXVersion(const llvm::Target &target,
                                                    const llvm::Triple &triple,
                                                    StringRef chip) {
  std::unique_ptr<llvm::TargetMachine> machine(target.createTargetMachine(
      triple, chip, /*Features=*/"", llvm::TargetOptions(), std::nullopt));
  if (!machine)
    return std::nullopt;
  llvm::LLVMContext context;
  llvm::Module empty("tgc-ptx-version-probe", context);
  empty.setTargetTriple(triple);
  empty.setDataLayout(machine->createDataLayout());
  std::string ptx;
  {
    llvm::raw_string_ostream os(ptx);
    llvm::buffer_ostream bufferedOS(os);
    llvm::legacy::PassManager codegen;
    if (machine->addPassesToEmitFile(codegen, bufferedOS, nullptr,
                                     llvm::CodeGenFileType::AssemblyFile))
      return std::nullopt;
    codegen.run(empty);
  }
  size_t at = ptx.find(".version ");
  if (at == std::string::npos)
    return std::nullopt;
  StringRef versionText = StringRef(ptx)
                              .drop_front(at + strlen(".version "))
                              .take_until([](char c) { return c == '\n'; });
  auto [majorText, minorText] = versionText.trim().split('.');
  unsigned major, minor;
  if (majorText.getAsInteger(10, major) || minorText.getAsInteger(10, minor))
    return std::nullopt;
  return major * 10 + minor;
}

/// Creates the NVPTX target machine for `options`, after checking the chip
/// and the features so that a typo is an error rather than LLVM's "not a
/// recognized processor" warning followed by code for a generic GPU.
static FailureOr<std::unique_ptr<llvm::TargetMachine>>
createNVPTXTargetMachine(const NVPTXOptions &options,
                         function_ref<InFlightDiagnostic()> emitErr) {
  initializeNVPTXBackend();
  llvm::Triple triple(kNVPTXTriple);
  std::string error;
  const llvm::Target *target =
      llvm::TargetRegistry::lookupTarget(triple, error);
  if (!target)
    return emitErr() << "LLVM's NVPTX back end is not available: " << error;

  if (options.optLevel > 3)
    return emitErr() << "invalid GPU optimization level " << options.optLevel
                     << " (expected 0 to 3)";

  // An empty CPU name makes no "unknown processor" warning.
  std::unique_ptr<llvm::MCSubtargetInfo> subtarget(
      target->createMCSubtargetInfo(triple, /*CPU=*/"", /*Features=*/""));
  if (!subtarget)
    return emitErr() << "cannot create the NVPTX subtarget description";
  if (options.chip.empty() || !subtarget->isCPUStringValid(options.chip)) {
    InFlightDiagnostic diag = emitErr();
    diag << "unknown NVIDIA GPU chip '" << options.chip
         << "'; LLVM's NVPTX back end knows: ";
    llvm::interleave(
        subtarget->getAllProcessorDescriptions(),
        [&](const llvm::SubtargetSubTypeKV &kv) { diag << kv.Key; },
        [&] { diag << ", "; });
    return diag;
  }
  if (failed(verifyFeatures(*subtarget, options.features, emitErr)))
    return failure();
  if (std::optional<unsigned> requested =
          getRequestedPTXVersion(options.features)) {
    std::optional<unsigned> minimum =
        getMinimumPTXVersion(*target, triple, options.chip);
    if (minimum && *requested < *minimum)
      return emitErr() << "PTX ISA " << *requested / 10 << "."
                       << *requested % 10 << " (from '" << options.features
                       << "') does not support " << options.chip
                       << ", which needs PTX ISA " << *minimum / 10 << "."
                       << *minimum % 10
                       << " or later; drop the PTX feature or raise it";
  }

  static constexpr llvm::CodeGenOptLevel kOptLevels[] = {
      llvm::CodeGenOptLevel::None, llvm::CodeGenOptLevel::Less,
      llvm::CodeGenOptLevel::Default, llvm::CodeGenOptLevel::Aggressive};
  std::unique_ptr<llvm::TargetMachine> machine(target->createTargetMachine(
      triple, options.chip, options.features, llvm::TargetOptions(),
      /*RM=*/std::nullopt, /*CM=*/std::nullopt, kOptLevels[options.optLevel]));
  if (!machine)
    return emitErr() << "cannot create the NVPTX target machine for '"
                     << options.chip << "'";
  return machine;
}

//===----------------------------------------------------------------------===//
// gpu.module -> PTX
//===----------------------------------------------------------------------===//

/// The LLVM-IR export only knows ops whose dialect has a translation
/// interface; a gpu.func or an arith op left in the module would make it fail
/// with a message about interfaces. Say instead what is wrong: the module was
/// not lowered.
static LogicalResult verifyLoweredToLLVM(gpu::GPUModuleOp module) {
  WalkResult result =
      module.getBodyRegion().walk<WalkOrder::PreOrder>([&](Operation *op) {
        Dialect *dialect = op->getDialect();
        bool translatable =
            dialect && !isa<gpu::GPUDialect, BuiltinDialect>(dialect) &&
            (isa<LLVM::LLVMDialect, NVVM::NVVMDialect>(dialect) ||
             dialect
                 ->getRegisteredInterface<LLVMTranslationDialectInterface>());
        if (translatable)
          return WalkResult::advance();
        InFlightDiagnostic diag = emitError(op->getLoc())
                                  << "'" << op->getName()
                                  << "' is not lowered to the LLVM and NVVM "
                                     "dialects; lower gpu.module @"
                                  << module.getName()
                                  << " (e.g. with --convert-gpu-to-nvvm) "
                                     "before translating it to PTX";
        diag.attachNote(module.getLoc()) << "in this gpu.module";
        return WalkResult::interrupt();
      });
  return failure(result.wasInterrupted());
}

namespace {
/// Collects the errors and warnings LLVM reports through its context (LLVM
/// would otherwise print them and, for errors, exit the process).
struct LLVMDiagnosticCollector {
  SmallVector<std::pair<llvm::DiagnosticSeverity, std::string>> messages;

  static void handle(const llvm::DiagnosticInfo *info, void *context) {
    auto *self = static_cast<LLVMDiagnosticCollector *>(context);
    llvm::DiagnosticSeverity severity = info->getSeverity();
    if (severity != llvm::DS_Error && severity != llvm::DS_Warning)
      return;
    std::string text;
    llvm::raw_string_ostream os(text);
    llvm::DiagnosticPrinterRawOStream printer(os);
    info->print(printer);
    self->messages.emplace_back(severity, std::move(text));
  }

  /// Re-emits what was collected at `loc`; fails when there was an error.
  LogicalResult flush(Location loc) {
    bool hadError = false;
    for (auto &[severity, text] : messages) {
      if (severity == llvm::DS_Error) {
        emitError(loc) << "LLVM: " << text;
        hadError = true;
      } else {
        emitWarning(loc) << "LLVM: " << text;
      }
    }
    messages.clear();
    return failure(hadError);
  }
};
} // namespace

/// Links the libdevice functions `module` calls (`__nv_expf`, ... as
/// --convert-gpu-to-nvvm and --convert-math-to-nvvm emit them), and only
/// those, into `module`, internalized so that the optimizer may inline and
/// drop them. Does nothing when it calls none. Returns an error message, or
/// "" (it runs on the parallel path's threads, which emit no diagnostics).
static std::string linkLibdevice(llvm::Module &module, StringRef moduleName,
                                 const NVPTXOptions &options) {
  const llvm::Function *firstCall = nullptr;
  for (const llvm::Function &function : module.functions()) {
    if (function.isDeclaration() && function.getName().starts_with("__nv_")) {
      firstCall = &function;
      break;
    }
  }
  if (!firstCall)
    return "";

  llvm::Expected<std::string> path = findLibdevice(options.libdevicePath);
  if (!path)
    return ("gpu.module @" + moduleName + " calls libdevice (" +
            firstCall->getName() + "), but " + llvm::toString(path.takeError()))
        .str();
  llvm::SMDiagnostic parseError;
  // Lazily: the linker materializes the functions the module calls, not
  // libdevice's few hundred others (a fifth of a small module's compile).
  std::unique_ptr<llvm::Module> libdevice =
      llvm::getLazyIRFileModule(*path, parseError, module.getContext());
  if (!libdevice)
    return "cannot load libdevice from " + *path + ": " +
           parseError.getMessage().str();
  // libdevice carries a generic NVPTX triple and layout; use the module's.
  libdevice->setTargetTriple(module.getTargetTriple());
  libdevice->setDataLayout(module.getDataLayout());
  bool failedToLink = llvm::Linker::linkModules(
      module, std::move(libdevice), llvm::Linker::LinkOnlyNeeded,
      [](llvm::Module &linked, const llvm::StringSet<> &libraryNames) {
        llvm::internalizeModule(linked, [&](const llvm::GlobalValue &value) {
          return !value.hasName() || !libraryNames.contains(value.getName());
        });
      });
  if (failedToLink)
    return ("cannot link libdevice (" + *path + ") into gpu.module @" +
            moduleName)
        .str();
  // libdevice asks NVVMReflect whether to flush denormals; TGC does not.
  if (!module.getModuleFlag("nvvm-reflect-ftz"))
    module.addModuleFlag(llvm::Module::Override, "nvvm-reflect-ftz",
                         static_cast<uint32_t>(0));
  return "";
}

/// Runs LLVM's default optimization pipeline at `optLevel`, with the NVPTX
/// target's own passes (NVVMReflect, address-space inference, ...).
static void optimizeLLVMModule(llvm::Module &module,
                               llvm::TargetMachine &machine,
                               unsigned optLevel) {
  llvm::LoopAnalysisManager loopAM;
  llvm::FunctionAnalysisManager functionAM;
  llvm::CGSCCAnalysisManager cgsccAM;
  llvm::ModuleAnalysisManager moduleAM;
  llvm::PassBuilder builder(&machine);
  builder.registerModuleAnalyses(moduleAM);
  builder.registerCGSCCAnalyses(cgsccAM);
  builder.registerFunctionAnalyses(functionAM);
  builder.registerLoopAnalyses(loopAM);
  builder.crossRegisterProxies(loopAM, functionAM, cgsccAM, moduleAM);

  static const llvm::OptimizationLevel kLevels[] = {
      llvm::OptimizationLevel::O0, llvm::OptimizationLevel::O1,
      llvm::OptimizationLevel::O2, llvm::OptimizationLevel::O3};
  llvm::OptimizationLevel level = kLevels[optLevel];
  llvm::ModulePassManager passes =
      optLevel == 0 ? builder.buildO0DefaultPipeline(level)
                    : builder.buildPerModuleDefaultPipeline(level);
  passes.run(module, moduleAM);
}

namespace {
/// One module's LLVM work, on whichever thread runs it: its own context,
/// target machine and diagnostics.
struct LLVMPart {
  llvm::LLVMContext context;
  LLVMDiagnosticCollector collector;
  std::unique_ptr<llvm::TargetMachine> machine;
  std::unique_ptr<llvm::Module> module;
  std::string ptx;
  /// A step that failed, with why ("" when none did).
  std::string error;

  LLVMPart() {
    context.setDiagnosticHandlerCallBack(&LLVMDiagnosticCollector::handle,
                                         &collector);
  }
  bool llvmReportedError() const {
    return llvm::any_of(collector.messages, [](const auto &message) {
      return message.first == llvm::DS_Error;
    });
  }
};
} // namespace

/// libdevice, LLVM's optimizations and the NVPTX back end for `part`, whose
/// module is translated already; `stage` marks each step. Part `index` > 0
/// of a split module renames its local symbols (SplitKernels.h).
static void emitPTX(LLVMPart &part, StringRef moduleName,
                    const NVPTXOptions &options, unsigned index,
                    const llvm::TargetMachine &model,
                    function_ref<void(const char *)> stage) {
  // Each thread its own machine, as `model` (made and checked already).
  if (!part.machine)
    part.machine.reset(model.getTarget().createTargetMachine(
        model.getTargetTriple(), model.getTargetCPU(),
        model.getTargetFeatureString(), model.Options, std::nullopt,
        std::nullopt, model.getOptLevel()));
  if (!part.machine) {
    part.error = "cannot create the NVPTX target machine for '" +
                 model.getTargetCPU().str() + "'";
    return;
  }
  stage("libdevice");
  part.error = linkLibdevice(*part.module, moduleName, options);
  if (!part.error.empty())
    return;
  stage("LLVM opt");
  optimizeLLVMModule(*part.module, *part.machine, options.optLevel);
  hideNegationsFromIntegerMinMax(*part.module);
  if (part.llvmReportedError())
    return;
  renameLocalSymbols(*part.module, index);

  stage("PTX codegen");
  llvm::raw_string_ostream os(part.ptx);
  llvm::buffer_ostream bufferedOS(os);
  llvm::legacy::PassManager codegen;
  if (part.machine->addPassesToEmitFile(codegen, bufferedOS, nullptr,
                                        llvm::CodeGenFileType::AssemblyFile)) {
    part.error =
        ("the NVPTX target cannot emit assembly for gpu.module @" + moduleName)
            .str();
    return;
  }
  codegen.run(*part.module);
}

unsigned mlir::tgc::resolveCompileThreads(unsigned requested) {
  if (requested != 0)
    return requested;
  if (const char *env = std::getenv("TGC_COMPILE_THREADS")) {
    unsigned value = 0;
    if (!StringRef(env).trim().getAsInteger(10, value) && value > 0)
      return value;
  }
  return std::max(1u, llvm::hardware_concurrency().compute_thread_count());
}

FailureOr<std::string>
mlir::tgc::translateGPUModuleToPTX(gpu::GPUModuleOp module,
                                   const NVPTXOptions &options) {
  auto emitErr = [&] { return emitError(module.getLoc()); };
  FailureOr<std::unique_ptr<llvm::TargetMachine>> machine =
      createNVPTXTargetMachine(options, emitErr);
  if (failed(machine))
    return failure();
  if (failed(verifyLoweredToLLVM(module)))
    return failure();

  auto stage = [&](const char *name) {
    if (options.onStage)
      options.onStage(name);
  };
  stage("to LLVM IR");
  // Several threads: the kernels in parts, each translated into a context
  // of its own here (MLIR is read on this thread only).
  KernelModuleSplit split(module,
                          resolveCompileThreads(options.compileThreads));
  llvm::DataLayout layout = (*machine)->createDataLayout();
  std::vector<std::unique_ptr<LLVMPart>> parts;
  for (gpu::GPUModuleOp source : split.parts()) {
    auto part = std::make_unique<LLVMPart>();
    part->module =
        translateModuleToLLVMIR(source, part->context, module.getName());
    if (!part->module)
      return emitError(module.getLoc()) << "cannot translate gpu.module @"
                                        << module.getName() << " to LLVM IR";
    part->module->setTargetTriple((*machine)->getTargetTriple());
    part->module->setDataLayout(layout);
    parts.push_back(std::move(part));
  }

  // The checked machine: the one part's, or the model each thread copies
  // (not one a thread generates code with: codegen resets its options).
  const llvm::TargetMachine &model = **machine;
  if (parts.size() == 1) {
    parts[0]->machine = std::move(*machine);
    emitPTX(*parts[0], module.getName(), options, 0, *parts[0]->machine, stage);
  } else {
    stage("LLVM opt and PTX codegen");
    auto quiet = [](const char *) {};
    std::vector<std::thread> workers;
    for (unsigned i = 1; i < parts.size(); ++i)
      workers.emplace_back([&, i] {
        emitPTX(*parts[i], module.getName(), options, i, model, quiet);
      });
    emitPTX(*parts[0], module.getName(), options, 0, model, quiet);
    for (std::thread &worker : workers)
      worker.join();
  }
  bool failedPart = false;
  for (std::unique_ptr<LLVMPart> &part : parts) {
    if (failed(part->collector.flush(module.getLoc())))
      failedPart = true;
    if (!part->error.empty()) {
      emitError(module.getLoc()) << part->error;
      failedPart = true;
    }
  }
  if (failedPart)
    return failure();
  if (parts.size() == 1)
    return std::move(parts[0]->ptx);
  std::vector<std::string> ptx;
  for (std::unique_ptr<LLVMPart> &part : parts)
    ptx.push_back(std::move(part->ptx));
  std::string error;
  FailureOr<std::string> joined = joinPTX(ptx, error);
  if (failed(joined))
    return emitError(module.getLoc())
           << "cannot join the PTX of gpu.module @" << module.getName()
           << "'s parts: " << error;
  return joined;
}

//===----------------------------------------------------------------------===//
// PTX -> cubin
//===----------------------------------------------------------------------===//

/// Whether `ptxas` takes --split-compile (asked once per path: its
/// --help lists it).
static bool ptxasSplitsCompiles(const std::string &ptxas) {
  static std::mutex mutex;
  static llvm::StringMap<bool> known;
  std::lock_guard<std::mutex> lock(mutex);
  auto it = known.find(ptxas);
  if (it != known.end())
    return it->second;
  bool splits = false;
  SmallString<128> helpFile;
  if (!llvm::sys::fs::createTemporaryFile("tgc-ptxas", "help", helpFile)) {
    llvm::FileRemover remover(helpFile);
    StringRef args[] = {ptxas, "--help"};
    std::optional<StringRef> redirects[] = {StringRef(""), StringRef(helpFile),
                                            StringRef(helpFile)};
    if (llvm::sys::ExecuteAndWait(ptxas, args, std::nullopt, redirects) == 0)
      if (auto help = llvm::MemoryBuffer::getFile(helpFile, /*IsText=*/true))
        splits = (*help)->getBuffer().contains("--split-compile");
  }
  known[ptxas] = splits;
  return splits;
}

FailureOr<std::string> mlir::tgc::compilePTXToCubin(StringRef ptx,
                                                    const NVPTXOptions &options,
                                                    Location loc) {
  llvm::Expected<std::string> ptxas = findPtxas(options.ptxasPath);
  if (!ptxas)
    return emitError(loc) << llvm::toString(ptxas.takeError());
  if (options.optLevel > 3)
    return emitError(loc) << "invalid GPU optimization level "
                          << options.optLevel << " (expected 0 to 3)";

  // ptxas reads and writes files only; each one is removed on every path out.
  SmallString<128> ptxFile, cubinFile, logFile;
  int ptxFD;
  if (std::error_code ec =
          llvm::sys::fs::createTemporaryFile("tgc", "ptx", ptxFD, ptxFile))
    return emitError(loc) << "cannot create a temporary PTX file: "
                          << ec.message();
  llvm::FileRemover ptxRemover(ptxFile);
  {
    llvm::raw_fd_ostream os(ptxFD, /*shouldClose=*/true);
    os << ptx;
    os.close();
    if (os.has_error())
      return emitError(loc)
             << "cannot write " << ptxFile << ": " << os.error().message();
  }
  if (std::error_code ec =
          llvm::sys::fs::createTemporaryFile("tgc", "cubin", cubinFile))
    return emitError(loc) << "cannot create a temporary cubin file: "
                          << ec.message();
  llvm::FileRemover cubinRemover(cubinFile);
  if (std::error_code ec =
          llvm::sys::fs::createTemporaryFile("tgc-ptxas", "log", logFile))
    return emitError(loc) << "cannot create a temporary log file: "
                          << ec.message();
  llvm::FileRemover logRemover(logFile);

  std::string archArg = "-arch=" + options.chip;
  std::string optArg = "-O" + std::to_string(options.optLevel);
  SmallVector<StringRef> args = {*ptxas,  archArg, optArg,
                                 ptxFile, "-o",    cubinFile};
  // Several kernels: ptxas optimizes them on every core (CUDA 12.1's
  // --split-compile; older ptxas lack it and compile them one by one).
  if (StringRef(ptx).count(".entry ") > 1 && ptxasSplitsCompiles(*ptxas)) {
    args.push_back("--split-compile");
    args.push_back("0");
  }
  std::optional<StringRef> redirects[] = {StringRef(""), StringRef(logFile),
                                          StringRef(logFile)};
  std::string execError;
  bool executionFailed = false;
  int exitCode = llvm::sys::ExecuteAndWait(
      *ptxas, args, /*Env=*/std::nullopt, redirects, /*SecondsToWait=*/0,
      /*MemoryLimit=*/0, &execError, &executionFailed);
  if (executionFailed)
    return emitError(loc) << "cannot run " << *ptxas << ": " << execError;
  if (exitCode != 0) {
    std::string log;
    if (llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer =
            llvm::MemoryBuffer::getFile(logFile, /*IsText=*/true))
      log = (*buffer)->getBuffer().rtrim().str();
    InFlightDiagnostic diag = emitError(loc);
    diag << "ptxas failed";
    if (exitCode < 0)
      diag << " (" << execError << ")";
    else
      diag << " with exit code " << exitCode;
    diag << " for " << options.chip << " (" << *ptxas << ")";
    if (!log.empty())
      diag << ":\n" << log;
    return diag;
  }

  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> cubin =
      llvm::MemoryBuffer::getFile(cubinFile, /*IsText=*/false,
                                  /*RequiresNullTerminator=*/false);
  if (!cubin)
    return emitError(loc) << "cannot read the cubin ptxas wrote to "
                          << cubinFile << ": " << cubin.getError().message();
  // A cubin is an ELF file: an exit code of 0 with nothing (or something
  // else) written is a broken ptxas, not a kernel to load.
  StringRef bytes = (*cubin)->getBuffer();
  if (!bytes.starts_with("\x7f" "ELF"))
    return emitError(loc) << "ptxas (" << *ptxas << ") exited with 0 but "
                          << (bytes.empty() ? "wrote no cubin"
                                            : "wrote a cubin that is not an "
                                              "ELF file")
                          << " (" << bytes.size() << " bytes)";
  return bytes.str();
}

FailureOr<std::string>
mlir::tgc::translateGPUModuleToCubin(gpu::GPUModuleOp module,
                                     const NVPTXOptions &options) {
  FailureOr<std::string> ptx = translateGPUModuleToPTX(module, options);
  if (failed(ptx))
    return failure();
  if (options.onStage)
    options.onStage("ptxas");
  return compilePTXToCubin(*ptx, options, module.getLoc());
}
