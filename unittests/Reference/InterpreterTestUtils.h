//===- InterpreterTestUtils.h - tensors and a fixture for the interpreter tests
//===//
//
// Shared by InterpreterTest.cpp (elementwise ops and reductions) and
// InterpreterShapeNNTest.cpp (shapes, indexing, linear algebra, nn,
// factories): host tensors from literals, comparisons, and a fixture that
// parses a tgc function from a string and runs it.
//
//===----------------------------------------------------------------------===//

#ifndef TGC_UNITTESTS_REFERENCE_INTERPRETERTESTUTILS_H
#define TGC_UNITTESTS_REFERENCE_INTERPRETERTESTUTILS_H

#include "tgc/InitAllDialects.h"
#include "tgc/Reference/Interpreter.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include "gtest/gtest.h"

#include <cmath>
#include <limits>
#include <string>
#include <vector>

namespace interpreter_test {

using namespace mlir;
using namespace mlir::tgc;
using namespace mlir::tgc::ref;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

inline HostTensor floats(DType dtype, ArrayRef<int64_t> shape,
                         ArrayRef<double> values) {
  HostTensor t(dtype, shape);
  EXPECT_EQ(t.numel(), static_cast<int64_t>(values.size()));
  for (int64_t i = 0; i < t.numel() && i < static_cast<int64_t>(values.size());
       ++i)
    t.setFloat(i, values[i]);
  return t;
}

inline HostTensor f32(ArrayRef<int64_t> shape, ArrayRef<double> values) {
  return floats(DType::F32, shape, values);
}
inline HostTensor f64(ArrayRef<int64_t> shape, ArrayRef<double> values) {
  return floats(DType::F64, shape, values);
}

inline HostTensor ints(DType dtype, ArrayRef<int64_t> shape,
                       ArrayRef<int64_t> values) {
  HostTensor t(dtype, shape);
  EXPECT_EQ(t.numel(), static_cast<int64_t>(values.size()));
  for (int64_t i = 0; i < t.numel() && i < static_cast<int64_t>(values.size());
       ++i)
    t.setInt(i, values[i]);
  return t;
}

inline HostTensor i64(ArrayRef<int64_t> shape, ArrayRef<int64_t> values) {
  return ints(DType::I64, shape, values);
}

inline HostTensor scalar(int64_t v) { return i64({}, {v}); }

/// ((i + offset) * 37 % 17 - 8) / 8: varied, exact in every float type.
/// The Python side: [(((i+off)*37) % 17 - 8)/8.0 for i in range(n)].
inline HostTensor gen(DType dtype, ArrayRef<int64_t> shape,
                      int64_t offset = 0) {
  HostTensor t(dtype, shape);
  for (int64_t i = 0; i < t.numel(); ++i)
    t.setFloat(i, static_cast<double>(((i + offset) * 37) % 17 - 8) / 8.0);
  return t;
}

/// Expects `actual` to have `shape` and (within tolerances) `values`.
inline void expectFloats(const HostTensor &actual, ArrayRef<int64_t> shape,
                         ArrayRef<double> values, double rtol = 1e-6,
                         double atol = 1e-7) {
  ASSERT_EQ(actual.shape(), shape);
  Comparison c =
      compare(actual, floats(actual.dtype(), shape, values), rtol, atol);
  EXPECT_TRUE(c.ok) << c.message;
}

inline void expectInts(const HostTensor &actual, ArrayRef<int64_t> shape,
                       ArrayRef<int64_t> values) {
  ASSERT_EQ(actual.shape(), shape);
  Comparison c = compare(actual, ints(actual.dtype(), shape, values), 0, 0);
  EXPECT_TRUE(c.ok) << c.message;
}

class InterpreterTest : public ::testing::Test {
protected:
  InterpreterTest() {
    DialectRegistry registry;
    registerAllTgcDialects(registry);
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
  }

  /// Parses `source` and interprets its first function. `error` receives
  /// the diagnostics.
  FailureOr<std::vector<HostTensor>>
  interpretSource(StringRef source, std::vector<HostTensor> &args,
                  std::string &error) {
    ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diag) {
      error += diag.str() + "\n";
      return success();
    });
    modules.push_back(parseSourceString<ModuleOp>(source, &context));
    OwningOpRef<ModuleOp> &module = modules.back();
    if (!module) {
      ADD_FAILURE() << "does not parse:\n" << error << source.str();
      return failure();
    }
    auto funcs = module->getOps<func::FuncOp>();
    if (funcs.empty()) {
      ADD_FAILURE() << "no function in:\n" << source.str();
      return failure();
    }
    return interpret(*funcs.begin(), args);
  }

  /// Runs the function and expects success.
  std::vector<HostTensor> run(StringRef source,
                              std::vector<HostTensor> args = {}) {
    lastArgs = std::move(args);
    std::string error;
    FailureOr<std::vector<HostTensor>> results =
        interpretSource(source, lastArgs, error);
    if (failed(results)) {
      ADD_FAILURE() << "interpretation failed: " << error;
      return {};
    }
    return std::move(*results);
  }

  /// Runs the function, expects failure, and returns the diagnostics.
  std::string runError(StringRef source, std::vector<HostTensor> args = {}) {
    lastArgs = std::move(args);
    std::string error;
    FailureOr<std::vector<HostTensor>> results =
        interpretSource(source, lastArgs, error);
    EXPECT_TRUE(failed(results)) << "expected an error from:\n" << source.str();
    EXPECT_FALSE(error.empty());
    return error;
  }

  MLIRContext context;
  std::vector<OwningOpRef<ModuleOp>> modules;
  /// The arguments of the last run (out buffers are updated here).
  std::vector<HostTensor> lastArgs;
};

#define EXPECT_CONTAINS(haystack, needle)                                      \
  EXPECT_NE(std::string(haystack).find(needle), std::string::npos)             \
      << "expected \"" << (needle) << "\" in: " << (haystack)

inline std::string unaryFunc(StringRef op, StringRef type) {
  std::string t = type.str();
  return "func.func @f(%x: " + t + ") -> " + t + " {\n  %r = tgc." +
         op.split(' ').first.str() + " %x" +
         (op.contains(' ') ? " " + op.split(' ').second.str() : "") + " : " +
         t + "\n  return %r : " + t + "\n}\n";
}

} // namespace interpreter_test

#endif // TGC_UNITTESTS_REFERENCE_INTERPRETERTESTUTILS_H
