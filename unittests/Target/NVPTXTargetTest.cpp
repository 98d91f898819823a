//===- NVPTXTargetTest.cpp - ptxas lookup and PTX generation --------------===//

#include "tgc/Target/NVPTX/NVPTXTarget.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/raw_ostream.h"

#include "gtest/gtest.h"

using namespace mlir;
using namespace mlir::tgc;

namespace {

constexpr const char *kKernelModule = R"mlir(
gpu.module @kernels {
  llvm.func @scale(%x: !llvm.ptr<1>, %y: !llvm.ptr<1>, %n: i32)
      attributes {nvvm.kernel} {
    %tid = nvvm.read.ptx.sreg.tid.x : i32
    %ctaid = nvvm.read.ptx.sreg.ctaid.x : i32
    %ntid = nvvm.read.ptx.sreg.ntid.x : i32
    %base = llvm.mul %ctaid, %ntid : i32
    %i = llvm.add %base, %tid : i32
    %inBounds = llvm.icmp "slt" %i, %n : i32
    llvm.cond_br %inBounds, ^body, ^exit
  ^body:
    %src = llvm.getelementptr %x[%i] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
    %v = llvm.load %src : !llvm.ptr<1> -> f32
    %two = llvm.mlir.constant(2.0 : f32) : f32
    %r = llvm.fmul %v, %two : f32
    %dst = llvm.getelementptr %y[%i] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
    llvm.store %r, %dst : f32, !llvm.ptr<1>
    llvm.br ^exit
  ^exit:
    llvm.return
  }
}
)mlir";

class NVPTXTargetTest : public ::testing::Test {
protected:
  NVPTXTargetTest() {
    DialectRegistry registry;
    registerNVPTXTranslationDialects(registry);
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
  }

  /// Parses `source` and returns its first gpu.module.
  gpu::GPUModuleOp parseGPUModule(llvm::StringRef source) {
    module = parseSourceString<ModuleOp>(source, &context);
    if (!module)
      return {};
    auto gpuModules = module->getOps<gpu::GPUModuleOp>();
    return gpuModules.empty() ? gpu::GPUModuleOp() : *gpuModules.begin();
  }

  MLIRContext context;
  OwningOpRef<ModuleOp> module;
};

TEST(FindPtxasTest, MissingExplicitPathIsAnErrorNamingIt) {
  llvm::Expected<std::string> ptxas =
      findPtxas("/nonexistent/tgc-test/bin/ptxas");
  ASSERT_FALSE(static_cast<bool>(ptxas));
  std::string message = llvm::toString(ptxas.takeError());
  EXPECT_NE(message.find("/nonexistent/tgc-test/bin/ptxas"), std::string::npos)
      << message;
}

TEST(FindPtxasTest, ExistingExplicitExecutableIsFound) {
  llvm::SmallString<128> path;
  int fd;
  ASSERT_FALSE(llvm::sys::fs::createTemporaryFile("fake-ptxas", "", fd, path));
  llvm::FileRemover remover(path);
  {
    llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
    os << "#!/bin/sh\nexit 0\n";
  }
  ASSERT_FALSE(llvm::sys::fs::setPermissions(
      path, llvm::sys::fs::owner_read | llvm::sys::fs::owner_write |
                llvm::sys::fs::owner_exe));
  llvm::Expected<std::string> ptxas = findPtxas(path);
  ASSERT_TRUE(static_cast<bool>(ptxas)) << llvm::toString(ptxas.takeError());
  EXPECT_EQ(*ptxas, std::string(path));
}

TEST(FindPtxasTest, NonExecutableExplicitPathIsAnError) {
  llvm::SmallString<128> path;
  int fd;
  ASSERT_FALSE(
      llvm::sys::fs::createTemporaryFile("not-ptxas", "txt", fd, path));
  llvm::FileRemover remover(path);
  llvm::sys::Process::SafelyCloseFileDescriptor(fd);
  llvm::Expected<std::string> ptxas = findPtxas(path);
  ASSERT_FALSE(static_cast<bool>(ptxas));
  EXPECT_NE(llvm::toString(ptxas.takeError()).find(std::string(path)),
            std::string::npos);
}

TEST(FindLibdeviceTest, MissingExplicitPathIsAnErrorNamingIt) {
  llvm::Expected<std::string> libdevice =
      findLibdevice("/nonexistent/tgc-test/libdevice.10.bc");
  ASSERT_FALSE(static_cast<bool>(libdevice));
  std::string message = llvm::toString(libdevice.takeError());
  EXPECT_NE(message.find("/nonexistent/tgc-test/libdevice.10.bc"),
            std::string::npos)
      << message;
}

TEST_F(NVPTXTargetTest, TranslatesKernelToPTX) {
  gpu::GPUModuleOp gpuModule = parseGPUModule(kKernelModule);
  ASSERT_TRUE(gpuModule);
  FailureOr<std::string> ptx = translateGPUModuleToPTX(gpuModule, {});
  ASSERT_TRUE(succeeded(ptx));
  EXPECT_NE(ptx->find(".target sm_90"), std::string::npos) << *ptx;
  EXPECT_NE(ptx->find(".entry scale"), std::string::npos) << *ptx;
  EXPECT_NE(ptx->find("%tid.x"), std::string::npos) << *ptx;
  EXPECT_NE(ptx->find("ld.global"), std::string::npos) << *ptx;
  EXPECT_NE(ptx->find("st.global"), std::string::npos) << *ptx;
}

TEST_F(NVPTXTargetTest, HonoursChipAndFeatures) {
  gpu::GPUModuleOp gpuModule = parseGPUModule(kKernelModule);
  ASSERT_TRUE(gpuModule);
  NVPTXOptions options;
  options.chip = "sm_80";
  options.features = "+ptx80";
  options.optLevel = 0;
  FailureOr<std::string> ptx = translateGPUModuleToPTX(gpuModule, options);
  ASSERT_TRUE(succeeded(ptx));
  EXPECT_NE(ptx->find(".version 8.0"), std::string::npos) << *ptx;
  EXPECT_NE(ptx->find(".target sm_80"), std::string::npos) << *ptx;
}

TEST_F(NVPTXTargetTest, UnknownChipIsADiagnostic) {
  gpu::GPUModuleOp gpuModule = parseGPUModule(kKernelModule);
  ASSERT_TRUE(gpuModule);
  std::string diagnostics;
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diag) {
    diagnostics += diag.str();
    return success();
  });
  NVPTXOptions options;
  options.chip = "sm_xx";
  EXPECT_TRUE(failed(translateGPUModuleToPTX(gpuModule, options)));
  EXPECT_NE(diagnostics.find("unknown NVIDIA GPU chip 'sm_xx'"),
            std::string::npos)
      << diagnostics;
}

TEST_F(NVPTXTargetTest, UnloweredModuleIsADiagnostic) {
  gpu::GPUModuleOp gpuModule = parseGPUModule(R"mlir(
    gpu.module @unlowered {
      gpu.func @k() kernel {
        gpu.return
      }
    }
  )mlir");
  ASSERT_TRUE(gpuModule);
  std::string diagnostics;
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diag) {
    diagnostics += diag.str();
    return success();
  });
  EXPECT_TRUE(failed(translateGPUModuleToPTX(gpuModule, {})));
  EXPECT_NE(diagnostics.find("'gpu.func' is not lowered"), std::string::npos)
      << diagnostics;
}

TEST_F(NVPTXTargetTest, MissingPtxasIsADiagnosticNamingThePath) {
  std::string diagnostics;
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diag) {
    diagnostics += diag.str();
    return success();
  });
  NVPTXOptions options;
  options.ptxasPath = "/nonexistent/ptxas";
  EXPECT_TRUE(failed(
      compilePTXToCubin(".version 8.0\n", options, UnknownLoc::get(&context))));
  EXPECT_NE(diagnostics.find("/nonexistent/ptxas"), std::string::npos)
      << diagnostics;
}

} // namespace
