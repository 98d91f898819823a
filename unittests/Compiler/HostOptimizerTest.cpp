//===- HostOptimizerTest.cpp - the JIT's LLVM optimizer -------------------===//
//
// Identical functions (the parallel regions of a model's identical layers,
// outlined once per layer) are merged before the optimizer runs, so that
// LLVM optimizes and compiles their body once (the 6-block CPU stack of
// issue 22: 269 -> 160 ms in LLVM), and loops vectorize at the width
// the compile asks for, over LLVM's tuning of the CPU (issue 25).
//
//===----------------------------------------------------------------------===//

#include "tgc/Compiler/HostOptimizer.h"

#include "llvm/AsmParser/Parser.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/Triple.h"

#include "gtest/gtest.h"

#include <optional>
#include <string>

namespace {

// Two identical kernels, each address-taken (as the OpenMP runtime's fork
// call takes an outlined region), and a different one. (noinline: the
// inliner would copy a body this small back into the thunk; an outlined
// region is too large for it.)
/// A kernel that scales %n floats at %p by `factor`.
std::string kernel(const std::string &name, const std::string &factor) {
  return "define internal void @" + name + R"ll((ptr %p, i64 %n) noinline {
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %next, %loop ]
  %a = getelementptr float, ptr %p, i64 %i
  %v = load float, ptr %a
  %w = fmul float %v, )ll" + factor + R"ll(
  store float %w, ptr %a
  %next = add i64 %i, 1
  %done = icmp eq i64 %next, %n
  br i1 %done, label %exit, label %loop
exit:
  ret void
}
)ll";
}

const std::string kModule =
    "@kernels = global [3 x ptr] [ptr @k1, ptr @k2, ptr @k3]\n" +
    kernel("k1", "2.0") + kernel("k2", "2.0") + kernel("k3", "3.0");

/// Whether `f` is a thunk: one block that calls another function.
bool isThunk(const llvm::Function &f) {
  if (f.size() != 1)
    return false;
  for (const llvm::Instruction &i : f.front())
    if (llvm::isa<llvm::CallBase>(i))
      return true;
  return false;
}

TEST(HostOptimizer, IdenticalFunctionsAreOptimizedOnce) {
  llvm::LLVMContext context;
  llvm::SMDiagnostic diagnostic;
  std::unique_ptr<llvm::Module> module =
      llvm::parseAssemblyString(kModule, diagnostic, context);
  ASSERT_TRUE(module) << diagnostic.getMessage().str();
  auto optimize =
      mlir::tgc::makeHostOptimizer(/*optLevel=*/3, /*machine=*/nullptr,
                                   /*useVectorMath=*/false);
  ASSERT_FALSE(llvm::errorToBool(optimize(module.get())));
  const llvm::Function *k1 = module->getFunction("k1");
  const llvm::Function *k2 = module->getFunction("k2");
  const llvm::Function *k3 = module->getFunction("k3");
  ASSERT_TRUE(k3);
  // One of k1 and k2 is gone or a thunk of the other; k3 differs (3.0).
  int bodies = 0;
  for (const llvm::Function *f : {k1, k2})
    if (f && !f->isDeclaration() && !isThunk(*f))
      ++bodies;
  EXPECT_EQ(bodies, 1);
  EXPECT_FALSE(isThunk(*k3));
}

// A loop that doubles %n floats, for the vectorizer (a global keeps the
// internal function).
const std::string kDoubleLoop =
    "@keep = global ptr @twice\n" + kernel("twice", "2.0");

/// The IR of kDoubleLoop optimized for a Sapphire Rapids core (AVX-512,
/// with LLVM's tuning that prefers 256-bit vectors) after
/// setPreferredVectorWidth(`bits`); "" when this LLVM has no x86 target.
std::string vectorizedFor(unsigned bits) {
  llvm::InitializeAllTargetInfos();
  llvm::InitializeAllTargets();
  llvm::InitializeAllTargetMCs();
  llvm::Triple triple("x86_64-unknown-linux-gnu");
  std::string error;
  const llvm::Target *target =
      llvm::TargetRegistry::lookupTarget(triple, error);
  if (!target)
    return "";
  std::unique_ptr<llvm::TargetMachine> machine(target->createTargetMachine(
      triple, "sapphirerapids", "", llvm::TargetOptions(), std::nullopt));
  if (!machine)
    return "";
  llvm::LLVMContext context;
  llvm::SMDiagnostic diagnostic;
  std::unique_ptr<llvm::Module> module =
      llvm::parseAssemblyString(kDoubleLoop, diagnostic, context);
  if (!module)
    return "parse error: " + diagnostic.getMessage().str();
  module->setTargetTriple(triple);
  module->setDataLayout(machine->createDataLayout());
  for (llvm::Function &f : *module)
    if (!f.isDeclaration()) {
      f.addFnAttr("target-cpu", "sapphirerapids");
      f.addFnAttr("target-features", machine->getTargetFeatureString());
    }
  mlir::tgc::setPreferredVectorWidth(*module, bits);
  auto optimize = mlir::tgc::makeHostOptimizer(/*optLevel=*/3, machine.get(),
                                               /*useVectorMath=*/false);
  if (llvm::errorToBool(optimize(module.get())))
    return "optimizer error";
  std::string text;
  llvm::raw_string_ostream os(text);
  module->print(os, nullptr);
  return text;
}

TEST(HostOptimizer, LoopsVectorizeAtTheRequestedWidth) {
  std::string wide = vectorizedFor(512);
  if (wide.empty())
    GTEST_SKIP() << "this LLVM has no x86 target";
  // 512 bits: 16 lanes of f32, though the CPU's tuning prefers 256.
  EXPECT_NE(wide.find("<16 x float>"), std::string::npos) << wide;
  EXPECT_NE(wide.find("\"prefer-vector-width\"=\"512\""), std::string::npos);
  std::string narrow = vectorizedFor(256);
  EXPECT_NE(narrow.find("<8 x float>"), std::string::npos) << narrow;
  EXPECT_EQ(narrow.find("<16 x float>"), std::string::npos) << narrow;
  // 0: no attribute, LLVM's tuning (256 bits on this CPU).
  std::string tuned = vectorizedFor(0);
  EXPECT_EQ(tuned.find("prefer-vector-width"), std::string::npos);
  EXPECT_EQ(tuned.find("<16 x float>"), std::string::npos) << tuned;
}

TEST(HostOptimizer, WidthZeroIsTheHostsWidest) {
  bool avx512 = llvm::sys::getHostCPUFeatures().lookup("avx512f");
  EXPECT_EQ(mlir::tgc::resolveVectorWidth(0), avx512 ? 512u : 0u);
  EXPECT_EQ(mlir::tgc::resolveVectorWidth(256), 256u);
  EXPECT_EQ(mlir::tgc::resolveVectorWidth(128), 128u);
}

} // namespace
