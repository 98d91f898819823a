//===- CpuJitEntryTest.cpp - what the CPU JIT compiles and calls ----------===//
//
// MLIR's ExecutionEngine gave every public function a packed wrapper. The
// one of the expanded entry passes every field of every memref descriptor
// on the stack (a model's hundreds of weights: a thousand arguments), and
// LLVM's instruction selection is quadratic in such a call: 13 of
// MobileNetV3-small's 18 s of JIT time. TGC calls the C interface's packed
// wrapper instead, the only one it makes; the entry is inlined into its C
// interface and the outlined kernels are internal. These tests read the
// object code's symbol table, run a function of several results, rank-0
// and unranked-size arguments through that calling convention, and a
// module compiled in parts on threads (tgc/Compiler/CpuJit.h).
//
//===----------------------------------------------------------------------===//

#include "tgc/Compiler/ArtifactCache.h"
#include "tgc/Compiler/CpuCompiler.h"
#include "tgc/Compiler/CpuJit.h"
#include "tgc/InitAllDialects.h"
#include "tgc/Reference/HostTensor.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "llvm/AsmParser/Parser.h"
#include "llvm/IR/InstrTypes.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Object/ObjectFile.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"

#include "gtest/gtest.h"

#include <cmath>
#include <cstring>
#include <map>
#include <string>

using namespace mlir;
using namespace mlir::tgc;

namespace {

// Two identical elementwise kernels (tgc-outline-identical-kernels makes
// them one function called twice), a rank-0 argument and three results.
constexpr const char *kModule = R"mlir(
func.func @f(%x: tensor<?x8xf32>, %y: tensor<?x8xf32>, %s: tensor<f32>)
    -> (tensor<?x8xf32>, tensor<?x8xf32>, tensor<f32>) {
  %a = tgc.exp %x : tensor<?x8xf32>
  %b = tgc.mul %a, %s : tensor<?x8xf32>, tensor<f32> -> tensor<?x8xf32>
  %c = tgc.exp %y : tensor<?x8xf32>
  %d = tgc.mul %c, %s : tensor<?x8xf32>, tensor<f32> -> tensor<?x8xf32>
  %t = tgc.add %s, %s : tensor<f32>, tensor<f32> -> tensor<f32>
  return %b, %d, %t : tensor<?x8xf32>, tensor<?x8xf32>, tensor<f32>
}
)mlir";

struct Compiled {
  MLIRContext context;
  OwningOpRef<ModuleOp> module;
  std::unique_ptr<CompiledCpuFunction> fn;

  Compiled() {
    DialectRegistry registry;
    registerAllTgcDialects(registry);
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
    module = parseSourceString<ModuleOp>(kModule, &context);
    EXPECT_TRUE(module);
    std::string error;
    CpuCompileOptions options;
    options.keepObject = true;
    fn = CompiledCpuFunction::compile(*module, "f", options, error);
    EXPECT_TRUE(fn) << error;
  }
};

/// Defined function symbols of the object: name -> global.
std::map<std::string, bool> definedFunctions(const std::string &object) {
  std::map<std::string, bool> out;
  auto file = llvm::object::ObjectFile::createObjectFile(
      llvm::MemoryBufferRef(object, "jit"));
  EXPECT_TRUE(static_cast<bool>(file));
  if (!file) {
    llvm::consumeError(file.takeError());
    return out;
  }
  for (const llvm::object::SymbolRef &symbol : (*file)->symbols()) {
    auto type = symbol.getType();
    auto name = symbol.getName();
    auto flags = symbol.getFlags();
    if (!type || !name || !flags) {
      llvm::consumeError(type.takeError());
      llvm::consumeError(name.takeError());
      llvm::consumeError(flags.takeError());
      continue;
    }
    if (*type != llvm::object::SymbolRef::ST_Function ||
        (*flags & llvm::object::SymbolRef::SF_Undefined))
      continue;
    out[name->str()] = *flags & llvm::object::SymbolRef::SF_Global;
  }
  return out;
}

TEST(CpuJitEntry, OnlyTheCInterfacesPackedWrapperIsCompiled) {
  Compiled c;
  ASSERT_TRUE(c.fn);
  CacheRecord record;
  std::string error;
  ASSERT_TRUE(c.fn->serialize(record, error)) << error;
  std::map<std::string, bool> functions = definedFunctions(record.get("object"));
  std::string symbol;
  for (auto &[name, global] : functions)
    if (llvm::StringRef(name).starts_with("_mlir__mlir_ciface_"))
      symbol = llvm::StringRef(name).drop_front(19).str();
  ASSERT_FALSE(symbol.empty()) << "no packed C-interface wrapper";
  EXPECT_TRUE(functions["_mlir__mlir_ciface_" + symbol]);
  EXPECT_TRUE(functions["tgc_guard_" + symbol]);
  for (auto &[name, global] : functions) {
    llvm::StringRef n(name);
    // No other packed wrapper (of the expanded entry, the guard, kernels).
    if (n.starts_with("_mlir_") && !n.starts_with("_mlir_ciface_"))
      EXPECT_EQ(name, "_mlir__mlir_ciface_" + symbol);
    // The expanded entry (inlined) and the kernels are not exported.
    if (n == symbol || n.starts_with(symbol + "__kernel"))
      EXPECT_FALSE(global) << name;
  }
}

TEST(CpuJitEntry, SeveralResultsAndRankZeroArgumentsRun) {
  Compiled c;
  ASSERT_TRUE(c.fn);
  std::vector<ref::HostTensor> args;
  ref::HostTensor x = ref::HostTensor::uninitialized(ref::DType::F32, {3, 8});
  ref::HostTensor y = ref::HostTensor::uninitialized(ref::DType::F32, {3, 8});
  ref::HostTensor s = ref::HostTensor::uninitialized(ref::DType::F32, {});
  for (int64_t i = 0; i < 24; ++i) {
    static_cast<float *>(x.data())[i] = 0.1f * i;
    static_cast<float *>(y.data())[i] = -0.1f * i;
  }
  *static_cast<float *>(s.data()) = 3.0f;
  args.push_back(std::move(x));
  args.push_back(std::move(y));
  args.push_back(std::move(s));
  std::string error;
  auto results = c.fn->run(args, error);
  ASSERT_TRUE(succeeded(results)) << error;
  ASSERT_EQ(results->size(), 3u);
  EXPECT_EQ((*results)[0].shape().vec(), (std::vector<int64_t>{3, 8}));
  EXPECT_TRUE((*results)[2].shape().empty());
  for (int64_t i = 0; i < 24; ++i) {
    EXPECT_FLOAT_EQ(static_cast<float *>((*results)[0].data())[i],
                    3.0f * std::exp(0.1f * i));
    EXPECT_FLOAT_EQ(static_cast<float *>((*results)[1].data())[i],
                    3.0f * std::exp(-0.1f * i));
  }
  EXPECT_FLOAT_EQ(*static_cast<float *>((*results)[2].data()), 6.0f);
}

// What the JIT changes before LLVM optimizes: the unused packed wrappers
// go, the entry is inlined into its C interface and that into its packed
// wrapper (both internal, unused), the glue (the entry and its wrappers)
// gets generic scheduling tuning, while an outlined kernel keeps the
// host's, and the glue's stack slots of constant size move to its entry
// block where it has no loop.
TEST(CpuJitEntry, PreparedModule) {
  llvm::LLVMContext context;
  llvm::SMDiagnostic diagnostic;
  std::unique_ptr<llvm::Module> module =
      llvm::parseAssemblyString(R"ll(
define internal void @f__kernel0(ptr %p) noinline {
  ret void
}
define internal void @f__kernel1(ptr %p, i64 %offset, i64 %size) noinline {
  store i64 %size, ptr %p
  ret void
}
define void @f(ptr %p) {
  call void @f__kernel0(ptr %p)
  call void @f__kernel1(ptr %p, i64 0, i64 16)
  ret void
}
define void @_mlir_f(ptr %args) {
  ret void
}
define void @_mlir_ciface_f(ptr %p, i64 %n) {
  call void @f(ptr %p)
  %c = icmp eq ptr %p, null
  br i1 %c, label %out, label %slot
slot:
  %sizes = alloca [3 x i64]
  call void @use(ptr %sizes)
  %varying = alloca i64, i64 %n
  call void @use(ptr %varying)
  %large = alloca [1024 x i64]
  call void @use(ptr %large)
  br label %out
out:
  ret void
}
define void @_mlir__mlir_ciface_f(ptr %args) {
  %n = load i64, ptr %args
  call void @_mlir_ciface_f(ptr %args, i64 %n)
  ret void
}
define void @tgc_guard_f(ptr %args, i32 %n) {
  br label %loop
loop:
  %i = phi i32 [ 0, %0 ], [ %j, %loop ]
  %s = alloca i64
  call void @use(ptr %s)
  %j = add i32 %i, 1
  %c = icmp slt i32 %j, %n
  br i1 %c, label %loop, label %out
out:
  ret void
}
declare void @use(ptr)
)ll",
                                diagnostic, context);
  ASSERT_TRUE(module) << diagnostic.getMessage().str();
  prepareCpuJitModule(*module, "f");
  EXPECT_EQ(module->getFunction("_mlir_f"), nullptr);
  llvm::Function *entry = module->getFunction("f");
  ASSERT_TRUE(entry);
  EXPECT_TRUE(entry->hasInternalLinkage());
  // Inlined into its C interface before LLVM optimizes: no call is left.
  EXPECT_TRUE(entry->use_empty());
  llvm::Function *kernel0 = module->getFunction("f__kernel0");
  ASSERT_TRUE(kernel0);
  bool wrapperCallsKernel = false;
  for (llvm::User *user : kernel0->users())
    if (auto *call = llvm::dyn_cast<llvm::CallBase>(user))
      wrapperCallsKernel |=
          call->getFunction()->getName() == "_mlir__mlir_ciface_f";
  EXPECT_TRUE(wrapperCallsKernel);
  llvm::Function *cInterface = module->getFunction("_mlir_ciface_f");
  ASSERT_TRUE(cInterface);
  EXPECT_TRUE(cInterface->hasInternalLinkage());
  EXPECT_TRUE(cInterface->use_empty());
  // The wrapper, the runtime's entry point, stays public. Of the C
  // interface's allocas, inlined into it outside its entry block, the one
  // of a small constant size is in the entry block now; one of a size
  // known only when called, and one of 8 KiB, stay; so does the one in the
  // guard function's loop.
  llvm::Function *wrapper = module->getFunction("_mlir__mlir_ciface_f");
  EXPECT_FALSE(wrapper->hasLocalLinkage());
  auto allocas = [](llvm::Function &f) {
    std::vector<std::pair<llvm::AllocaInst *, llvm::BasicBlock *>> out;
    for (llvm::BasicBlock &block : f)
      for (llvm::Instruction &inst : block)
        if (auto *slot = llvm::dyn_cast<llvm::AllocaInst>(&inst))
          out.emplace_back(slot, &block);
    return out;
  };
  auto inWrapper = allocas(*wrapper);
  ASSERT_EQ(inWrapper.size(), 3u);
  for (auto [slot, block] : inWrapper)
    EXPECT_EQ(block == &wrapper->getEntryBlock(), slot->getName() == "sizes.i")
        << slot->getName().str();
  auto inGuard = allocas(*module->getFunction("tgc_guard_f"));
  ASSERT_EQ(inGuard.size(), 1u);
  EXPECT_EQ(inGuard[0].second->getName(), "loop");
  for (const char *glue : {"f", "_mlir_ciface_f", "_mlir__mlir_ciface_f"}) {
    llvm::Function *fn = module->getFunction(glue);
    ASSERT_TRUE(fn) << glue;
    EXPECT_EQ(fn->getFnAttribute("tune-cpu").getValueAsString(), "generic")
        << glue;
  }
  llvm::Function *kernel = module->getFunction("f__kernel0");
  ASSERT_TRUE(kernel);
  EXPECT_FALSE(kernel->hasFnAttribute("tune-cpu"));
  // The kernels' unused parameters are gone, from them and their calls.
  EXPECT_EQ(kernel->arg_size(), 0u);
  llvm::Function *kernel1 = module->getFunction("f__kernel1");
  ASSERT_TRUE(kernel1);
  EXPECT_EQ(kernel1->arg_size(), 2u);
  for (llvm::User *user : kernel1->users())
    EXPECT_EQ(llvm::cast<llvm::CallBase>(user)->arg_size(), 2u);
}

// Kernels of several kinds (a product, a layer norm, GELU, an integer
// power whose helper `__mlir_math_ipowi_i32` MLIR defines `linkonce_odr`):
// enough LLVM work to split into parts compiled on threads.
constexpr const char *kKernels = R"mlir(
func.func @g(%x: tensor<16x32xf32>, %w: tensor<24x32xf32>, %b: tensor<24xf32>,
             %i: tensor<16x24xi32>, %e: tensor<16x24xi32>)
    -> (tensor<16x24xf32>, tensor<16x24xi32>, tensor<16x24xi32>) {
  %y = tgc.linear %x, %w, %b : tensor<16x32xf32>, tensor<24x32xf32>, tensor<24xf32> -> tensor<16x24xf32>
  %n = tgc.layer_norm %y normalized_rank = 1 eps = 1.0e-05 : tensor<16x24xf32>
  %g = tgc.gelu %n approximate = tanh : tensor<16x24xf32>
  %p = tgc.pow %i, %e : tensor<16x24xi32>, tensor<16x24xi32> -> tensor<16x24xi32>
  %s = tgc.sum %g dims [1] keepdim : tensor<16x24xf32> -> tensor<16x1xf32>
  %q = tgc.mul %p, %i : tensor<16x24xi32>, tensor<16x24xi32> -> tensor<16x24xi32>
  %r = tgc.pow %q, %e : tensor<16x24xi32>, tensor<16x24xi32> -> tensor<16x24xi32>
  %o = tgc.sub %g, %s : tensor<16x24xf32>, tensor<16x1xf32> -> tensor<16x24xf32>
  return %o, %p, %r : tensor<16x24xf32>, tensor<16x24xi32>, tensor<16x24xi32>
}
)mlir";

ref::HostTensor filled(ref::DType dtype, std::vector<int64_t> shape,
                       int64_t seed) {
  ref::HostTensor t = ref::HostTensor::uninitialized(dtype, shape);
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  for (int64_t k = 0; k < n; ++k) {
    if (dtype == ref::DType::F32)
      static_cast<float *>(t.data())[k] = std::sin(0.37f * (k + seed));
    else
      static_cast<int32_t *>(t.data())[k] =
          static_cast<int32_t>((k + seed) % 5);
  }
  return t;
}

std::vector<ref::HostTensor> kernelArgs() {
  std::vector<ref::HostTensor> args;
  args.push_back(filled(ref::DType::F32, {16, 32}, 1));
  args.push_back(filled(ref::DType::F32, {24, 32}, 2));
  args.push_back(filled(ref::DType::F32, {24}, 3));
  args.push_back(filled(ref::DType::I32, {16, 24}, 4));
  args.push_back(filled(ref::DType::I32, {16, 24}, 5));
  return args;
}

// The LLVM work in parts on threads (tgc/Compiler/CpuJit.h): the same
// results as in one part, each part an object, and a cache record of
// several objects loads and runs.
TEST(CpuJitEntry, PartsCompiledOnThreadsLinkAndRun) {
  MLIRContext context;
  DialectRegistry registry;
  registerAllTgcDialects(registry);
  context.appendDialectRegistry(registry);
  context.loadAllAvailableDialects();
  OwningOpRef<ModuleOp> module =
      parseSourceString<ModuleOp>(kKernels, &context);
  ASSERT_TRUE(module);
  std::vector<std::vector<ref::HostTensor>> outputs;
  std::vector<int64_t> objects;
  std::unique_ptr<CompiledCpuFunction> split;
  for (unsigned threads : {1u, 4u}) {
    CpuCompileOptions options;
    options.keepObject = true;
    options.compileThreads = threads;
    std::string error;
    auto fn = CompiledCpuFunction::compile(*module, "g", options, error);
    ASSERT_TRUE(fn) << error;
    std::vector<ref::HostTensor> args = kernelArgs();
    auto results = fn->run(args, error);
    ASSERT_TRUE(succeeded(results)) << error;
    outputs.push_back(std::move(*results));
    objects.push_back(fn->stats().objects);
    split = std::move(fn);
  }
  // One thread: the kernels, and the glue (fast code generation); four:
  // the kernels in several parts.
  EXPECT_EQ(objects[0], 2);
  EXPECT_GE(objects[1], 3);
  ASSERT_EQ(outputs[0].size(), 3u);
  for (size_t r = 0; r < 3; ++r)
    EXPECT_EQ(
        std::memcmp(outputs[0][r].data(), outputs[1][r].data(), 16 * 24 * 4), 0)
        << "result " << r;
  // The split function's record: its objects, loaded into a new JIT.
  CacheRecord record;
  std::string error;
  ASSERT_TRUE(split->serialize(record, error)) << error;
  EXPECT_EQ(record.getInt("objects"), objects[1]);
  auto loaded = CompiledCpuFunction::load(record, &context, {}, true, error);
  ASSERT_TRUE(loaded) << error;
  std::vector<ref::HostTensor> args = kernelArgs();
  auto again = loaded->run(args, error);
  ASSERT_TRUE(succeeded(again)) << error;
  for (size_t r = 0; r < 3; ++r)
    EXPECT_EQ(
        std::memcmp(outputs[0][r].data(), (*again)[r].data(), 16 * 24 * 4), 0)
        << "result " << r;
}

/// Objects linked in a JIT of their own (createHostJit, addObjects), and
/// their functions by name (null, with a test failure, when one is not
/// there).
struct LinkedObjects {
  std::unique_ptr<llvm::orc::LLJIT> jit;

  explicit LinkedObjects(const std::vector<std::string> &objects) {
    auto created = createHostJit({}, false, false);
    if (!created) {
      ADD_FAILURE() << llvm::toString(created.takeError());
      return;
    }
    jit = std::move(*created);
    if (llvm::Error e = addObjects(*jit, objects)) {
      ADD_FAILURE() << llvm::toString(std::move(e));
      jit.reset();
    }
  }

  template <typename F> F get(const char *name) {
    if (!jit)
      return nullptr;
    auto address = jit->lookup(name);
    if (!address) {
      ADD_FAILURE() << name << ": " << llvm::toString(address.takeError());
      return nullptr;
    }
    return address->toPtr<F>();
  }
};

// References across parts that a split must keep linkable: a kernel
// called from the entry (internal: external and hidden where the entry is
// in another part), a local function only reachable through a local
// constant table (copied into each part that reads it) and a constant
// expression, a `linkonce_odr` helper two kernels call (dropped unused
// from its own part until made local), a mutable local counter, and an
// unnamed local constant.
TEST(CpuJitEntry, SplitKeepsReferencesAcrossPartsLinkable) {
  std::string body;
  // Loops make each kernel count as heavy: one part each.
  for (int k = 0; k < 4; ++k)
    body += R"ll(
define internal void @kernel)ll" +
            std::to_string(k) + R"ll((ptr %out, i64 %n) {
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %next, %loop ]
  %p = getelementptr i64, ptr %out, i64 %i
  %v = call i64 @helper(i64 %i)
  %f = load ptr, ptr @table
  %w = call i64 %f(i64 %v)
  %u = load i64, ptr @1
  %s = add i64 %w, %u
  store i64 %s, ptr %p
  %c = load i64, ptr @counter
  %c1 = add i64 %c, 1
  store i64 %c1, ptr @counter
  %next = add i64 %i, 1
  %done = icmp eq i64 %next, %n
  br i1 %done, label %exit, label %loop
exit:
  ret void
}
)ll";
  std::string text = R"ll(
@table = internal constant ptr @twice
@counter = internal global i64 0
@1 = internal constant i64 7
define internal i64 @twice(i64 %x) {
  %y = mul i64 %x, 2
  ret i64 %y
}
define linkonce_odr i64 @helper(i64 %x) {
  %y = add i64 %x, 1
  ret i64 %y
}
define i64 @read_counter() {
  %c = load i64, ptr @counter
  ret i64 %c
}
define void @entry(ptr %a, ptr %b, ptr %c, ptr %d, i64 %n) {
  call void @kernel0(ptr %a, i64 %n)
  call void @kernel1(ptr %b, i64 %n)
  call void @kernel2(ptr %c, i64 %n)
  call void @kernel3(ptr %d, i64 %n)
  ret void
}
)ll" + body;
  llvm::LLVMContext context;
  llvm::SMDiagnostic diagnostic;
  std::unique_ptr<llvm::Module> module =
      llvm::parseAssemblyString(text, diagnostic, context);
  ASSERT_TRUE(module) << diagnostic.getMessage().str();
  std::vector<std::string> objects;
  llvm::Error e = compileToObjects(std::move(module), 4, 2, false, objects,
                                   /*minSplitInstructions=*/0);
  ASSERT_FALSE(static_cast<bool>(e)) << llvm::toString(std::move(e));
  EXPECT_GE(objects.size(), 4u);
  LinkedObjects linked(objects);
  auto entry =
      linked.get<void (*)(int64_t *, int64_t *, int64_t *, int64_t *, int64_t)>(
          "entry");
  auto counter = linked.get<int64_t (*)()>("read_counter");
  ASSERT_TRUE(entry && counter);
  int64_t out[4][3];
  entry(out[0], out[1], out[2], out[3], 3);
  for (int k = 0; k < 4; ++k)
    for (int i = 0; i < 3; ++i)
      EXPECT_EQ(out[k][i], 2 * (i + 1) + 7) << k << " " << i;
  // One counter for all parts: 4 kernels of 3 iterations.
  EXPECT_EQ(counter(), 12);
}

// Functions marked kFastCodegen (the guard function, the entry's glue):
// a part of their own, compiled at -O1 with fast instruction selection,
// even on one thread. A marked function with a loop, or one that an
// unmarked function calls, is optimized with the rest; marked functions
// may call each other. Everything links and computes the same.
TEST(CpuJitEntry, FastCodegenFunctionsGetAPartOfTheirOwn) {
  std::string fast = std::string("\"") + kFastCodegen + "\"";
  std::string text = R"ll(
define internal void @kernel(ptr %out, i64 %n) noinline {
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %next, %loop ]
  %p = getelementptr i64, ptr %out, i64 %i
  %v = call i64 @called_by_kernel(i64 %i)
  store i64 %v, ptr %p
  %next = add i64 %i, 1
  %done = icmp eq i64 %next, %n
  br i1 %done, label %exit, label %loop
exit:
  ret void
}
define i64 @called_by_kernel(i64 %x) #0 {
  %y = mul i64 %x, 3
  ret i64 %y
}
define void @entry(ptr %out, i64 %n) #0 {
  call void @kernel(ptr %out, i64 %n)
  ret void
}
define void @packed(ptr %args) #0 {
  %a = load ptr, ptr %args
  %out = load ptr, ptr %a
  call void @entry(ptr %out, i64 4)
  ret void
}
define i32 @guard(ptr %sizes, i32 %n) #0 {
  %ok = icmp eq i32 %n, 2
  br i1 %ok, label %read, label %fail
read:
  %s = load i64, ptr %sizes
  %good = icmp sgt i64 %s, 0
  br i1 %good, label %pass, label %fail
pass:
  ret i32 -1
fail:
  ret i32 0
}
define i64 @marked_loop(i64 %n) #0 {
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %next, %loop ]
  %s = phi i64 [ 0, %entry ], [ %t, %loop ]
  %t = add i64 %s, %i
  %next = add i64 %i, 1
  %done = icmp sge i64 %next, %n
  br i1 %done, label %exit, label %loop
exit:
  ret i64 %t
}
attributes #0 = { )ll" +
                     fast + R"ll( }
)ll";
  llvm::LLVMContext context;
  llvm::SMDiagnostic diagnostic;
  std::unique_ptr<llvm::Module> module =
      llvm::parseAssemblyString(text, diagnostic, context);
  ASSERT_TRUE(module) << diagnostic.getMessage().str();
  std::vector<std::string> objects;
  llvm::Error e = compileToObjects(std::move(module), /*threads=*/1, 3, false,
                                   objects, /*minSplitInstructions=*/0);
  ASSERT_FALSE(static_cast<bool>(e)) << llvm::toString(std::move(e));
  ASSERT_EQ(objects.size(), 2u);
  std::map<std::string, bool> regular = definedFunctions(objects[0]);
  std::map<std::string, bool> quick = definedFunctions(objects[1]);
  for (const char *name : {"guard", "entry", "packed"}) {
    EXPECT_TRUE(quick.count(name)) << name;
    EXPECT_FALSE(regular.count(name)) << name;
  }
  for (const char *name : {"marked_loop", "called_by_kernel"}) {
    EXPECT_TRUE(regular.count(name)) << name;
    EXPECT_FALSE(quick.count(name)) << name;
  }
  LinkedObjects linked(objects);
  auto packed = linked.get<void (*)(void *)>("packed");
  auto check = linked.get<int32_t (*)(const int64_t *, int32_t)>("guard");
  auto loop = linked.get<int64_t (*)(int64_t)>("marked_loop");
  ASSERT_TRUE(packed && check && loop);
  int64_t out[4] = {0, 0, 0, 0};
  int64_t *outPtr = out;
  void *arg = &outPtr;
  packed(&arg);
  for (int i = 0; i < 4; ++i)
    EXPECT_EQ(out[i], 3 * i) << i;
  int64_t size = 5, empty = 0;
  EXPECT_EQ(check(&size, 2), -1);
  EXPECT_EQ(check(&empty, 2), 0);
  EXPECT_EQ(check(&size, 3), 0);
  EXPECT_EQ(loop(5), 10);
}

} // namespace
