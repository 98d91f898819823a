//===- CpuResultBuffersTest.cpp - CPU results written in the caller's memory ===//
//
// tgc-lower-result-buffers asks the caller for a result's memory during the
// call (tgc_result_buffer), so the kernels write it in place instead of the
// runtime copying a buffer of its own afterwards. These tests observe when
// the caller's allocator runs: it changes an input, and only a kernel that
// runs after the allocation sees the change.
//
//===----------------------------------------------------------------------===//

#include "tgc/Compiler/CpuCompiler.h"
#include "tgc/InitAllDialects.h"
#include "tgc/Reference/HostTensor.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include "gtest/gtest.h"

#include <cstring>
#include <vector>

using namespace mlir;
using namespace mlir::tgc;

namespace {

struct Compiled {
  MLIRContext context;
  OwningOpRef<ModuleOp> module;
  std::unique_ptr<CompiledCpuFunction> fn;

  explicit Compiled(const char *text) {
    DialectRegistry registry;
    registerAllTgcDialects(registry);
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
    module = parseSourceString<ModuleOp>(text, &context);
    EXPECT_TRUE(module);
    std::string error;
    CpuCompileOptions options;
    fn = CompiledCpuFunction::compile(*module, "f", options, error);
    EXPECT_TRUE(fn) << error;
  }
};

/// A dense 1-D f32 argument.
struct Input {
  std::vector<float> data;
  std::vector<int64_t> sizes, strides = {1};
  tgc_arg_desc desc = {};

  explicit Input(std::vector<float> values)
      : data(std::move(values)),
        sizes{static_cast<int64_t>(data.size())} {
    desc.data = data.data();
    desc.sizes = sizes.data();
    desc.strides = strides.data();
    desc.rank = 1;
    desc.dtype = static_cast<int32_t>(ref::DType::F32);
    desc.device_type = TGC_DEVICE_CPU;
  }
};

constexpr const char *kAddOne = R"mlir(
func.func @f(%x: tensor<?xf32>) -> (tensor<?xf32>, tensor<?xf32>, tensor<?xf32>) {
  %one = tgc.constant dense<1.0> : tensor<f32>
  %y = tgc.add %x, %one : tensor<?xf32>, tensor<f32> -> tensor<?xf32>
  return %y, %y, %x : tensor<?xf32>, tensor<?xf32>, tensor<?xf32>
}
)mlir";

TEST(CpuResultBuffers, ResultsAreWrittenInTheCallersMemory) {
  Compiled c(kAddOne);
  ASSERT_TRUE(c.fn);
  Input x({1, 2, 3, 4});
  std::vector<std::vector<float>> out(3, std::vector<float>(4, -1));
  std::vector<int32_t> order;
  std::string error;
  LogicalResult ok = c.fn->runDescriptors(
      {x.desc},
      [&](int32_t index, ref::DType dtype, ArrayRef<int64_t> shape,
          std::string &) -> void * {
        EXPECT_EQ(dtype, ref::DType::F32);
        EXPECT_EQ(shape.vec(), std::vector<int64_t>{4});
        order.push_back(index);
        // Seen by the kernel only if it runs after this allocation.
        x.data[0] = 100;
        return out[index].data();
      },
      error);
  ASSERT_TRUE(succeeded(ok)) << error;
  // Result 0 came first, during the call: the kernel saw x[0] = 100 and
  // wrote its sum straight into out[0].
  ASSERT_FALSE(order.empty());
  EXPECT_EQ(order.front(), 0);
  EXPECT_EQ(out[0], (std::vector<float>{101, 3, 4, 5}));
  // The same buffer returned twice: the second is a copy of the first.
  EXPECT_EQ(out[1], out[0]);
  // An argument returned as it is: a copy taken in the call.
  EXPECT_EQ(out[2][1], 2);
  EXPECT_EQ(order.size(), 3u);
}

TEST(CpuResultBuffers, TheAllocatorsFailureFailsTheCall) {
  Compiled c(kAddOne);
  ASSERT_TRUE(c.fn);
  Input x({1, 2, 3, 4});
  std::string error;
  LogicalResult ok = c.fn->runDescriptors(
      {x.desc},
      [&](int32_t, ref::DType, ArrayRef<int64_t>,
          std::string &failure) -> void * {
        failure = "no tensor today";
        return nullptr;
      },
      error);
  EXPECT_TRUE(failed(ok));
  EXPECT_NE(error.find("cannot allocate"), std::string::npos) << error;
  EXPECT_NE(error.find("no tensor today"), std::string::npos) << error;
}

TEST(CpuResultBuffers, EmptyResultsNeedNoMemory) {
  Compiled c(kAddOne);
  ASSERT_TRUE(c.fn);
  Input x({});
  int dummy = 0;
  int calls = 0;
  std::string error;
  LogicalResult ok = c.fn->runDescriptors(
      {x.desc},
      [&](int32_t, ref::DType, ArrayRef<int64_t> shape,
          std::string &) -> void * {
        EXPECT_EQ(shape.vec(), std::vector<int64_t>{0});
        ++calls;
        return &dummy; // any non-null pointer: nothing is written
      },
      error);
  EXPECT_TRUE(succeeded(ok)) << error;
  EXPECT_EQ(calls, 3);
}

} // namespace
