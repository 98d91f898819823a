//===- InterpreterTest.cpp - the reference interpreter, op by op ----------===//
//
// Small tgc functions parsed from strings, run on host tensors, and checked
// against hand-computed values or against PyTorch 1.13 values precomputed
// with /usr/bin/python3 (the formulas are in the comments; inputs that are
// not literals come from gen(), which the Python side mirrors).
//
//===----------------------------------------------------------------------===//

#include "InterpreterTestUtils.h"

using namespace interpreter_test;

namespace {

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

// PyTorch: f(torch.tensor([-1.5, -0.25, 0.0, 0.5, 2.0])) in float32, and
// f(torch.tensor([0.25, 1.0, 2.0, 10.0])) for the functions of positives.
TEST_F(InterpreterTest, UnaryFloatOpsMatchPyTorch) {
  struct Case {
    const char *op;
    std::vector<double> expected;
  };
  const Case onAll[] = {
      {"exp",
       {0.22313016653060913, 0.7788007855415344, 1.0, 1.6487212181091309,
        7.389056205749512}},
      {"expm1",
       {-0.7768698334693909, -0.22119921445846558, 0.0, 0.6487212777137756,
        6.389056205749512}},
      {"sigmoid",
       {0.18242552876472473, 0.43782350420951843, 0.5, 0.622459352016449,
        0.8807970285415649}},
      {"tanh",
       {-0.9051482677459717, -0.24491865932941437, 0.0, 0.46211716532707214,
        0.9640275835990906}},
      {"erf",
       {-0.9661051630973816, -0.27632638812065125, 0.0, 0.5204998850822449,
        0.9953222870826721}},
      {"gelu",
       {-0.10021086037158966, -0.10032343119382858, 0.0, 0.3457311987876892,
        1.9544999599456787}},
      {"gelu approximate = tanh",
       {-0.10042843222618103, -0.10032464563846588, 0.0, 0.3457140028476715,
        1.9545977115631104}},
      {"silu",
       {-0.2736382782459259, -0.10945587605237961, 0.0, 0.3112296760082245,
        1.7615940570831299}},
      {"sin",
       {-0.9974949955940247, -0.24740396440029144, 0.0, 0.4794255495071411,
        0.9092974066734314}},
      {"cos",
       {0.07073719799518585, 0.9689124226570129, 1.0, 0.8775825500488281,
        -0.416146844625473}},
      {"exp2",
       {0.3535533845424652, 0.8408964276313782, 1.0, 1.4142135381698608, 4.0}},
      {"neg", {1.5, 0.25, 0.0, -0.5, -2.0}},
      {"abs", {1.5, 0.25, 0.0, 0.5, 2.0}},
      {"relu", {0.0, 0.0, 0.0, 0.5, 2.0}},
      {"floor", {-2.0, -1.0, 0.0, 0.0, 2.0}},
      {"ceil", {-1.0, -0.0, 0.0, 1.0, 2.0}},
  };
  for (const Case &c : onAll) {
    std::vector<HostTensor> r = run(unaryFunc(c.op, "tensor<5xf32>"),
                                    {f32({5}, {-1.5, -0.25, 0.0, 0.5, 2.0})});
    ASSERT_EQ(r.size(), 1u) << c.op;
    SCOPED_TRACE(c.op);
    expectFloats(r[0], {5}, c.expected);
  }
  const Case onPositives[] = {
      {"log",
       {-1.3862943649291992, 0.0, 0.6931471824645996, 2.3025851249694824}},
      {"log2", {-2.0, 0.0, 1.0, 3.321928024291992}},
      {"log1p",
       {0.2231435477733612, 0.6931471824645996, 1.0986123085021973,
        2.397895336151123}},
      {"sqrt", {0.5, 1.0, 1.4142135381698608, 3.1622776985168457}},
      {"rsqrt", {2.0, 1.0, 0.7071067690849304, 0.3162277638912201}},
      {"reciprocal", {4.0, 1.0, 0.5, 0.10000000149011612}},
  };
  for (const Case &c : onPositives) {
    std::vector<HostTensor> r = run(unaryFunc(c.op, "tensor<4xf32>"),
                                    {f32({4}, {0.25, 1.0, 2.0, 10.0})});
    ASSERT_EQ(r.size(), 1u) << c.op;
    SCOPED_TRACE(c.op);
    expectFloats(r[0], {4}, c.expected);
  }
  // torch.round: half to even.
  std::vector<HostTensor> r =
      run(unaryFunc("round", "tensor<6xf64>"),
          {f64({6}, {0.5, 1.5, 2.5, -0.5, -1.5, 0.49999997})});
  expectFloats(r[0], {6}, {0.0, 2.0, 2.0, -0.0, -2.0, 0.0}, 0, 0);
}

TEST_F(InterpreterTest, UnaryIntegerOpsWrap) {
  HostTensor x = ints(DType::I8, {5}, {-128, -5, 0, 7, 127});
  expectInts(run(unaryFunc("neg", "tensor<5xi8>"), {x})[0], {5},
             {-128, 5, 0, -7, -127});
  expectInts(run(unaryFunc("abs", "tensor<5xi8>"), {x})[0], {5},
             {-128, 5, 0, 7, 127});
  expectInts(run(unaryFunc("relu", "tensor<5xi8>"), {x})[0], {5},
             {0, 0, 0, 7, 127});
  expectInts(run(unaryFunc("logical_not", "tensor<3xi1>"),
                 {ints(DType::I1, {3}, {1, 0, 1})})[0],
             {3}, {0, 1, 0});
}

TEST_F(InterpreterTest, ClampKeepsNaN) {
  std::vector<HostTensor> r =
      run(unaryFunc("clamp min 0.0 max 6.0", "tensor<4xf32>"),
          {f32({4}, {-1.0, kNaN, 3.0, 10.0})});
  expectFloats(r[0], {4}, {0.0, kNaN, 3.0, 6.0});
  r = run(unaryFunc("clamp max 3.0", "tensor<3xi32>"),
          {ints(DType::I32, {3}, {-5, 2, 9})});
  expectInts(r[0], {3}, {-5, 2, 3});
  r = run(unaryFunc("relu", "tensor<2xf32>"), {f32({2}, {kNaN, -1.0})});
  expectFloats(r[0], {2}, {kNaN, 0.0});
}

TEST_F(InterpreterTest, HalfResultsAreRoundedOnce) {
  // 1 + 2^-11 is a tie (rounds to even: 1.0); 1 + 1.5 * 2^-11 rounds up.
  std::vector<HostTensor> r =
      run(R"mlir(
    func.func @f(%x: tensor<2xf16>, %y: tensor<2xf16>) -> tensor<2xf16> {
      %r = tgc.add %x, %y : tensor<2xf16>
      return %r : tensor<2xf16>
    })mlir",
          {floats(DType::F16, {2}, {1.0, 1.0}),
           floats(DType::F16, {2}, {0x1p-11, 1.5 * 0x1p-11})});
  expectFloats(r[0], {2}, {1.0, 1.0009765625}, 0, 0);
  // PyTorch: F.gelu(x.half()) = [-0.1002197265625, -0.100341796875, 0.0,
  // 0.345703125, 1.9541015625].
  r = run(unaryFunc("gelu", "tensor<5xf16>"),
          {floats(DType::F16, {5}, {-1.5, -0.25, 0.0, 0.5, 2.0})});
  expectFloats(
      r[0], {5},
      {-0.1002197265625, -0.100341796875, 0.0, 0.345703125, 1.9541015625}, 1e-3,
      0);
}

TEST_F(InterpreterTest, BinaryOpsBroadcast) {
  const char *src = R"mlir(
    func.func @f(%x: tensor<2x3xf32>, %y: tensor<3xf32>, %s: tensor<f32>)
        -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) {
      %a = tgc.add %x, %y : tensor<2x3xf32>, tensor<3xf32> -> tensor<2x3xf32>
      %b = tgc.mul %a, %s : tensor<2x3xf32>, tensor<f32> -> tensor<2x3xf32>
      %c = tgc.sub %y, %x : tensor<3xf32>, tensor<2x3xf32> -> tensor<2x3xf32>
      return %a, %b, %c : tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>
    })mlir";
  std::vector<HostTensor> r = run(src, {f32({2, 3}, {1, 2, 3, 4, 5, 6}),
                                        f32({3}, {10, 20, 30}), f32({}, {2})});
  ASSERT_EQ(r.size(), 3u);
  expectFloats(r[0], {2, 3}, {11, 22, 33, 14, 25, 36});
  expectFloats(r[1], {2, 3}, {22, 44, 66, 28, 50, 72});
  expectFloats(r[2], {2, 3}, {9, 18, 27, 6, 15, 24});
}

TEST_F(InterpreterTest, DynamicBroadcastStretchesARunTimeOne) {
  const char *src = R"mlir(
    func.func @f(%x: tensor<?x3xf32>, %y: tensor<?x3xf32>) -> tensor<?x3xf32> {
      %r = tgc.add %x, %y : tensor<?x3xf32>
      return %r : tensor<?x3xf32>
    })mlir";
  std::vector<HostTensor> r =
      run(src, {f32({1, 3}, {1, 2, 3}), f32({2, 3}, {0, 0, 0, 10, 10, 10})});
  expectFloats(r[0], {2, 3}, {1, 2, 3, 11, 12, 13});
  std::string error = runError(src, {f32({2, 3}, {1, 2, 3, 4, 5, 6}),
                                     f32({3, 3}, {0, 0, 0, 0, 0, 0, 0, 0, 0})});
  EXPECT_CONTAINS(error, "do not broadcast at run time");
  EXPECT_CONTAINS(error, "[2, 3] and [3, 3]");
}

// torch.div(..., rounding_mode=...) and torch.remainder on int64.
TEST_F(InterpreterTest, IntegerDivisionRoundsLikePyTorch) {
  const char *src = R"mlir(
    func.func @f(%a: tensor<5xi64>, %b: tensor<5xi64>, %c: tensor<5xi64>)
        -> (tensor<5xi64>, tensor<5xi64>, tensor<5xi64>) {
      %f = tgc.div %a, %b rounding = floor : tensor<5xi64>
      %t = tgc.div %a, %b rounding = trunc : tensor<5xi64>
      %m = tgc.remainder %a, %c : tensor<5xi64>
      return %f, %t, %m : tensor<5xi64>, tensor<5xi64>, tensor<5xi64>
    })mlir";
  std::vector<HostTensor> r =
      run(src, {i64({5}, {-7, 7, -7, 7, -8}), i64({5}, {2, -2, -2, 2, 3}),
                i64({5}, {3, -3, -3, 3, 3})});
  ASSERT_EQ(r.size(), 3u);
  expectInts(r[0], {5}, {-4, -4, 3, 3, -3});
  expectInts(r[1], {5}, {-3, -3, 3, 3, -2});
  expectInts(r[2], {5}, {2, -2, -1, 1, 1});

  std::string error =
      runError(src, {i64({5}, {1, 2, 3, 4, 5}), i64({5}, {1, 1, 0, 1, 1}),
                     i64({5}, {1, 1, 1, 1, 1})});
  EXPECT_CONTAINS(error, "integer division by zero at result index [2]");

  // i8: -128 / -1 wraps to -128.
  r = run(R"mlir(
    func.func @f(%a: tensor<1xi8>, %b: tensor<1xi8>) -> tensor<1xi8> {
      %t = tgc.div %a, %b rounding = trunc : tensor<1xi8>
      return %t : tensor<1xi8>
    })mlir",
          {ints(DType::I8, {1}, {-128}), ints(DType::I8, {1}, {-1})});
  expectInts(r[0], {1}, {-128});
}

TEST_F(InterpreterTest, FloatFloorDivisionAndRemainder) {
  // torch.div(tensor([-7.5, 7.5, -0.5, 1.0]), tensor([2., -2, 3, 0]),
  // rounding_mode='floor') and torch.remainder.
  std::vector<HostTensor> r =
      run(R"mlir(
    func.func @f(%a: tensor<4xf32>, %b: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
      %f = tgc.div %a, %b rounding = floor : tensor<4xf32>
      %m = tgc.remainder %a, %b : tensor<4xf32>
      %q = tgc.div %a, %b : tensor<4xf32>
      return %f, %m, %q : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
    })mlir",
          {f32({4}, {-7.5, 7.5, -0.5, 1.0}), f32({4}, {2, -2, 3, 0})});
  ASSERT_EQ(r.size(), 3u);
  expectFloats(r[0], {4}, {-4.0, -4.0, -1.0, kInf});
  expectFloats(r[1], {4}, {0.5, -0.5, 2.5, kNaN});
  expectFloats(r[2], {4}, {-3.75, -3.75, -0.5 / 3, kInf});
}

TEST_F(InterpreterTest, PowMaximumMinimumAtan2AndOverflow) {
  // torch.pow(tensor([2, -1, 1, 3, -2]), tensor([10, -3, -5, -1, 3])).
  std::vector<HostTensor> r =
      run(R"mlir(
    func.func @f(%a: tensor<5xi64>, %b: tensor<5xi64>) -> tensor<5xi64> {
      %p = tgc.pow %a, %b : tensor<5xi64>
      return %p : tensor<5xi64>
    })mlir",
          {i64({5}, {2, -1, 1, 3, -2}), i64({5}, {10, -3, -5, -1, 3})});
  expectInts(r[0], {5}, {1024, -1, 1, 0, -8});

  r = run(R"mlir(
    func.func @f(%a: tensor<3xf32>, %b: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) {
      %x = tgc.maximum %a, %b : tensor<3xf32>
      %n = tgc.minimum %a, %b : tensor<3xf32>
      %t = tgc.atan2 %a, %b : tensor<3xf32>
      return %x, %n, %t : tensor<3xf32>, tensor<3xf32>, tensor<3xf32>
    })mlir",
          {f32({3}, {1, kNaN, -2}), f32({3}, {-1, 5, 3})});
  expectFloats(r[0], {3}, {1, kNaN, 3});
  expectFloats(r[1], {3}, {-1, kNaN, -2});
  expectFloats(r[2], {3}, {std::atan2(1.0, -1.0), kNaN, std::atan2(-2.0, 3.0)});

  r = run(R"mlir(
    func.func @f(%a: tensor<2xi32>, %b: tensor<2xi32>) -> (tensor<2xi32>, tensor<2xi32>) {
      %s = tgc.add %a, %b : tensor<2xi32>
      %m = tgc.mul %a, %a : tensor<2xi32>
      return %s, %m : tensor<2xi32>, tensor<2xi32>
    })mlir",
          {ints(DType::I32, {2}, {2147483647, -2147483647 - 1}),
           ints(DType::I32, {2}, {1, -1})});
  expectInts(r[0], {2}, {-2147483647 - 1, 2147483647});
  expectInts(r[1], {2}, {1, 0});
}

TEST_F(InterpreterTest, CmpWithNaNAndWhere) {
  const char *src = R"mlir(
    func.func @f(%x: tensor<3xf32>, %y: tensor<3xf32>, %z: tensor<f32>)
        -> (tensor<3xi1>, tensor<3xi1>, tensor<3xi1>, tensor<3xi1>, tensor<3xf32>) {
      %lt = tgc.cmp lt, %x, %y : tensor<3xf32>, tensor<3xf32> -> tensor<3xi1>
      %ne = tgc.cmp ne, %x, %y : tensor<3xf32>, tensor<3xf32> -> tensor<3xi1>
      %eq = tgc.cmp eq, %x, %y : tensor<3xf32>, tensor<3xf32> -> tensor<3xi1>
      %ge = tgc.cmp ge, %x, %y : tensor<3xf32>, tensor<3xf32> -> tensor<3xi1>
      %w = tgc.where %lt, %x, %z : tensor<3xi1>, tensor<3xf32>, tensor<f32> -> tensor<3xf32>
      return %lt, %ne, %eq, %ge, %w : tensor<3xi1>, tensor<3xi1>, tensor<3xi1>, tensor<3xi1>, tensor<3xf32>
    })mlir";
  std::vector<HostTensor> r =
      run(src, {f32({3}, {1, kNaN, 3}), f32({3}, {2, kNaN, 3}), f32({}, {-9})});
  ASSERT_EQ(r.size(), 5u);
  expectInts(r[0], {3}, {1, 0, 0});
  expectInts(r[1], {3}, {1, 1, 0});
  expectInts(r[2], {3}, {0, 0, 1});
  expectInts(r[3], {3}, {0, 0, 1});
  expectFloats(r[4], {3}, {1, -9, -9});
}

TEST_F(InterpreterTest, ConvertFollowsTensorTo) {
  const char *src = R"mlir(
    func.func @f(%x: tensor<4xf32>, %i: tensor<2xi64>, %b: tensor<2xi1>)
        -> (tensor<4xi32>, tensor<4xi1>, tensor<4xf16>, tensor<2xi8>, tensor<2xf32>) {
      %a = tgc.convert %x : tensor<4xf32> -> tensor<4xi32>
      %c = tgc.convert %x : tensor<4xf32> -> tensor<4xi1>
      %h = tgc.convert %x : tensor<4xf32> -> tensor<4xf16>
      %n = tgc.convert %i : tensor<2xi64> -> tensor<2xi8>
      %f = tgc.convert %b : tensor<2xi1> -> tensor<2xf32>
      return %a, %c, %h, %n, %f : tensor<4xi32>, tensor<4xi1>, tensor<4xf16>, tensor<2xi8>, tensor<2xf32>
    })mlir";
  std::vector<HostTensor> r =
      run(src, {f32({4}, {2.9, -2.9, 0.0, 0.1}), i64({2}, {300, -129}),
                ints(DType::I1, {2}, {1, 0})});
  ASSERT_EQ(r.size(), 5u);
  expectInts(r[0], {4}, {2, -2, 0, 0});
  expectInts(r[1], {4}, {1, 1, 0, 1});
  // f32(0.1) -> f16: 0.0999755859375 (torch: x.half()).
  expectFloats(r[2], {4}, {2.900390625, -2.900390625, 0.0, 0.0999755859375}, 0,
               0);
  expectInts(r[3], {2}, {44, 127});
  expectFloats(r[4], {2}, {1.0, 0.0});
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

TEST_F(InterpreterTest, SumMeanKeepdimAndWrap) {
  HostTensor x(DType::F32, {2, 3, 4});
  for (int64_t i = 0; i < 24; ++i)
    x.setFloat(i, static_cast<double>(i));
  std::vector<HostTensor> r =
      run(R"mlir(
    func.func @f(%x: tensor<2x3x4xf32>, %i: tensor<3xi8>, %s: tensor<f32>)
        -> (tensor<1x3x1xf32>, tensor<2x4xf32>, tensor<i8>, tensor<f32>) {
      %a = tgc.sum %x dims [0, 2] keepdim : tensor<2x3x4xf32> -> tensor<1x3x1xf32>
      %b = tgc.mean %x dims [1] : tensor<2x3x4xf32> -> tensor<2x4xf32>
      %c = tgc.sum %i dims [0] : tensor<3xi8> -> tensor<i8>
      %d = tgc.sum %s dims [0] : tensor<f32> -> tensor<f32>
      return %a, %b, %c, %d : tensor<1x3x1xf32>, tensor<2x4xf32>, tensor<i8>, tensor<f32>
    })mlir",
          {x, ints(DType::I8, {3}, {100, 100, 27}), f32({}, {2.5})});
  ASSERT_EQ(r.size(), 4u);
  expectFloats(r[0], {1, 3, 1}, {60, 92, 124});
  expectFloats(r[1], {2, 4}, {4, 5, 6, 7, 16, 17, 18, 19});
  expectInts(r[2], {}, {-29}); // 227 wraps in i8
  expectFloats(r[3], {}, {2.5});
}

TEST_F(InterpreterTest, AmaxAminPropagateNaN) {
  std::vector<HostTensor> r = run(R"mlir(
    func.func @f(%x: tensor<2x3xf32>) -> (tensor<2xf32>, tensor<3xf32>) {
      %a = tgc.amax %x dims [1] : tensor<2x3xf32> -> tensor<2xf32>
      %b = tgc.amin %x dims [0] : tensor<2x3xf32> -> tensor<3xf32>
      return %a, %b : tensor<2xf32>, tensor<3xf32>
    })mlir",
                                  {f32({2, 3}, {1, kNaN, 3, 4, 5, 6})});
  expectFloats(r[0], {2}, {kNaN, 6});
  expectFloats(r[1], {3}, {1, kNaN, 3});
  std::string error = runError(R"mlir(
    func.func @f(%x: tensor<?x3xf32>) -> tensor<3xf32> {
      %b = tgc.amax %x dims [0] : tensor<?x3xf32> -> tensor<3xf32>
      return %b : tensor<3xf32>
    })mlir",
                               {f32({0, 3}, {})});
  EXPECT_CONTAINS(error, "empty set of elements");
}

// torch.var(tensor([[1., 2, 3, 4], [2, 2, 2, 2]]), dim=1, correction=c).
TEST_F(InterpreterTest, VarCorrection) {
  HostTensor x = f32({2, 4}, {1, 2, 3, 4, 2, 2, 2, 2});
  const std::pair<int, std::vector<double>> cases[] = {
      {0, {1.25, 0.0}}, {1, {1.6666666269302368, 0.0}}, {2, {2.5, 0.0}}};
  for (const auto &[correction, expected] : cases) {
    std::string src = R"mlir(
      func.func @f(%x: tensor<2x4xf32>) -> tensor<2xf32> {
        %v = tgc.var %x dims [1] {correction = )mlir" +
                      std::to_string(correction) +
                      R"mlir( : i64} : tensor<2x4xf32> -> tensor<2xf32>
        return %v : tensor<2xf32>
      })mlir";
    SCOPED_TRACE(correction);
    expectFloats(run(src, {x})[0], {2}, expected);
  }
  // One element, Bessel's correction: 0 / 0.
  std::vector<HostTensor> r = run(R"mlir(
    func.func @f(%x: tensor<1xf64>) -> tensor<f64> {
      %v = tgc.var %x dims [0] : tensor<1xf64> -> tensor<f64>
      return %v : tensor<f64>
    })mlir",
                                  {f64({1}, {5})});
  expectFloats(r[0], {}, {kNaN});
}

// torch.linalg.vector_norm(tensor([[3., -4, 0], [1, 2, -2]]), ord=p, dim=1).
TEST_F(InterpreterTest, NormOrders) {
  HostTensor x = f32({2, 3}, {3, -4, 0, 1, 2, -2});
  const std::pair<const char *, std::vector<double>> cases[] = {
      {"", {5, 3}},
      {"{p = 1.0 : f64}", {7, 5}},
      {"{p = 0x7FF0000000000000 : f64}", {4, 2}},
      {"{p = 0xFFF0000000000000 : f64}", {0, 1}},
      {"{p = 0.0 : f64}", {2, 3}},
      {"{p = 3.0 : f64}", {4.497941493988037, 2.571281671524048}},
      {"{p = -1.5 : f64}", {0.0, 0.7000991106033325}},
  };
  for (const auto &[attr, expected] : cases) {
    std::string src = std::string(R"mlir(
      func.func @f(%x: tensor<2x3xf32>) -> tensor<2xf32> {
        %n = tgc.norm %x dims [1] )mlir") +
                      attr + R"mlir( : tensor<2x3xf32> -> tensor<2xf32>
        return %n : tensor<2xf32>
      })mlir";
    SCOPED_TRACE(attr);
    expectFloats(run(src, {x})[0], {2}, expected);
  }
}

TEST_F(InterpreterTest, ArgExtremaFirstOccurrenceAndNaN) {
  const char *src = R"mlir(
    func.func @f(%x: tensor<3x4xf32>) -> (tensor<3xi64>, tensor<3xi64>, tensor<3x1xf32>, tensor<3x1xi64>, tensor<4xf32>, tensor<4xi64>) {
      %a = tgc.argmax %x dim 1 : tensor<3x4xf32> -> tensor<3xi64>
      %b = tgc.argmin %x dim 1 : tensor<3x4xf32> -> tensor<3xi64>
      %v, %i = tgc.max %x dim 1 keepdim : tensor<3x4xf32> -> tensor<3x1xf32>, tensor<3x1xi64>
      %w, %j = tgc.min %x dim 0 : tensor<3x4xf32> -> tensor<4xf32>, tensor<4xi64>
      return %a, %b, %v, %i, %w, %j : tensor<3xi64>, tensor<3xi64>, tensor<3x1xf32>, tensor<3x1xi64>, tensor<4xf32>, tensor<4xi64>
    })mlir";
  std::vector<HostTensor> r =
      run(src, {f32({3, 4}, {1, 3, 3, 2, kNaN, 1, kNaN, 5, -1, -1, -2, -2})});
  ASSERT_EQ(r.size(), 6u);
  expectInts(r[0], {3}, {1, 0, 0});
  expectInts(r[1], {3}, {0, 0, 2});
  expectFloats(r[2], {3, 1}, {3, kNaN, -1});
  expectInts(r[3], {3, 1}, {1, 0, 0});
  expectFloats(r[4], {4}, {kNaN, -1, kNaN, -2});
  expectInts(r[5], {4}, {1, 2, 1, 2});

  r = run(R"mlir(
    func.func @f(%x: tensor<5xi32>) -> tensor<i64> {
      %a = tgc.argmax %x dim 0 : tensor<5xi32> -> tensor<i64>
      return %a : tensor<i64>
    })mlir",
          {ints(DType::I32, {5}, {4, 9, 2, 9, 1})});
  expectInts(r[0], {}, {1});
}

TEST_F(InterpreterTest, TopkTiesNaNAndOrder) {
  const char *src = R"mlir(
    func.func @f(%x: tensor<?xf32>) -> (tensor<4xf32>, tensor<4xi64>, tensor<3xf32>, tensor<3xi64>) {
      %v, %i = tgc.topk %x k = 4 dim = 0 : tensor<?xf32> -> tensor<4xf32>, tensor<4xi64>
      %w, %j = tgc.topk %x k = 3 dim = 0 {largest = false} : tensor<?xf32> -> tensor<3xf32>, tensor<3xi64>
      return %v, %i, %w, %j : tensor<4xf32>, tensor<4xi64>, tensor<3xf32>, tensor<3xi64>
    })mlir";
  std::vector<HostTensor> r = run(src, {f32({6}, {3, 1, 3, kNaN, 2, 3})});
  ASSERT_EQ(r.size(), 4u);
  // NaN is the largest; equal values come in index order.
  expectFloats(r[0], {4}, {kNaN, 3, 3, 3});
  expectInts(r[1], {4}, {3, 0, 2, 5});
  expectFloats(r[2], {3}, {1, 2, 3});
  expectInts(r[3], {3}, {1, 4, 0});

  std::string error = runError(src, {f32({3}, {1, 2, 3})});
  EXPECT_CONTAINS(error, "k (4) is larger than the size (3) of dimension 0");

  r = run(R"mlir(
    func.func @f(%x: tensor<3x2xi32>) -> (tensor<2x2xi32>, tensor<2x2xi64>) {
      %v, %i = tgc.topk %x k = 2 dim = 0 : tensor<3x2xi32> -> tensor<2x2xi32>, tensor<2x2xi64>
      return %v, %i : tensor<2x2xi32>, tensor<2x2xi64>
    })mlir",
          {ints(DType::I32, {3, 2}, {1, 7, 5, 7, 5, 0})});
  expectInts(r[0], {2, 2}, {5, 7, 5, 7});
  expectInts(r[1], {2, 2}, {1, 0, 2, 1});
}

} // namespace
