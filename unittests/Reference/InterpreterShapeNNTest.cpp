//===- InterpreterShapeNNTest.cpp - the reference interpreter, op by op ---===//
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
// Shape manipulation
//===----------------------------------------------------------------------===//

TEST_F(InterpreterTest, ReshapeInfersAndUsesSizeOperands) {
  const char *src = R"mlir(
    func.func @f(%x: tensor<?x4xf32>, %k: index) -> (tensor<?x2xf32>, tensor<?x2xf32>, tensor<?x?xf32>) {
      %a = tgc.reshape %x : tensor<?x4xf32> -> tensor<?x2xf32>
      %c0 = arith.constant 0 : index
      %c2 = arith.constant 2 : index
      %n = tensor.dim %x, %c0 : tensor<?x4xf32>
      %m = arith.muli %n, %c2 : index
      %b = tgc.reshape %x [%m] : tensor<?x4xf32> -> tensor<?x2xf32>
      %c = tgc.reshape %x [%k, %c2] : tensor<?x4xf32> -> tensor<?x?xf32>
      return %a, %b, %c : tensor<?x2xf32>, tensor<?x2xf32>, tensor<?x?xf32>
    })mlir";
  HostTensor x = gen(DType::F32, {3, 4});
  std::vector<HostTensor> r = run(src, {x, scalar(6)});
  ASSERT_EQ(r.size(), 3u);
  for (const HostTensor &t : r) {
    ASSERT_EQ(t.shape(), ArrayRef<int64_t>({6, 2}));
    for (int64_t i = 0; i < 12; ++i)
      EXPECT_EQ(t.getFloat(i), x.getFloat(i));
  }
  std::string error = runError(src, {x, scalar(5)});
  EXPECT_CONTAINS(error, "cannot reshape [3, 4] (12 elements) to [5, 2]");
  error = runError(R"mlir(
    func.func @f(%x: tensor<?xf32>) -> tensor<?x4xf32> {
      %a = tgc.reshape %x : tensor<?xf32> -> tensor<?x4xf32>
      return %a : tensor<?x4xf32>
    })mlir",
                   {f32({6}, {1, 2, 3, 4, 5, 6})});
  EXPECT_CONTAINS(error, "not a multiple of 4");
}

TEST_F(InterpreterTest, PermuteExpandSliceConcat) {
  std::vector<HostTensor> r =
      run(R"mlir(
    func.func @f(%x: tensor<2x3xf32>, %y: tensor<1x?xf32>, %b: index, %z: tensor<?xf32>)
        -> (tensor<3x2xf32>, tensor<?x?xf32>, tensor<2x3xf32>) {
      %p = tgc.permute %x [1, 0] : tensor<2x3xf32> -> tensor<3x2xf32>
      %e = tgc.expand %y [%b] : tensor<1x?xf32> -> tensor<?x?xf32>
      %s = tgc.expand %z : tensor<?xf32> -> tensor<2x3xf32>
      return %p, %e, %s : tensor<3x2xf32>, tensor<?x?xf32>, tensor<2x3xf32>
    })mlir",
          {f32({2, 3}, {1, 2, 3, 4, 5, 6}), f32({1, 2}, {7, 8}), scalar(3),
           f32({1}, {9})});
  ASSERT_EQ(r.size(), 3u);
  expectFloats(r[0], {3, 2}, {1, 4, 2, 5, 3, 6});
  expectFloats(r[1], {3, 2}, {7, 8, 7, 8, 7, 8});
  expectFloats(r[2], {2, 3}, {9, 9, 9, 9, 9, 9}); // a run-time 1 stretches

  r = run(R"mlir(
    func.func @f(%x: tensor<10xi64>, %m: tensor<2x4xi64>) -> (tensor<3xi64>, tensor<2x2xi64>, tensor<0xi64>) {
      %a = tgc.slice %x dim = 0 start = -7 end = 9223372036854775807 step = 3 : tensor<10xi64> -> tensor<3xi64>
      %b = tgc.slice %m dim = 1 start = 1 end = -1 step = 1 : tensor<2x4xi64> -> tensor<2x2xi64>
      %c = tgc.slice %x dim = 0 start = 8 end = 2 step = 1 : tensor<10xi64> -> tensor<0xi64>
      return %a, %b, %c : tensor<3xi64>, tensor<2x2xi64>, tensor<0xi64>
    })mlir",
          {i64({10}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9}),
           i64({2, 4}, {0, 1, 2, 3, 4, 5, 6, 7})});
  expectInts(r[0], {3}, {3, 6, 9});
  expectInts(r[1], {2, 2}, {1, 2, 5, 6});
  expectInts(r[2], {0}, {});

  const char *concat = R"mlir(
    func.func @f(%a: tensor<2x?xf32>, %b: tensor<?x?xf32>) -> (tensor<?x?xf32>, tensor<2x?xf32>) {
      %c = tgc.concat %a, %b dim = 0 : (tensor<2x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
      %d = tgc.concat %a, %a dim = 1 : (tensor<2x?xf32>, tensor<2x?xf32>) -> tensor<2x?xf32>
      return %c, %d : tensor<?x?xf32>, tensor<2x?xf32>
    })mlir";
  r = run(concat, {f32({2, 2}, {1, 2, 3, 4}), f32({1, 2}, {5, 6})});
  expectFloats(r[0], {3, 2}, {1, 2, 3, 4, 5, 6});
  expectFloats(r[1], {2, 4}, {1, 2, 1, 2, 3, 4, 3, 4});
  std::string error =
      runError(concat, {f32({2, 2}, {1, 2, 3, 4}), f32({1, 3}, {5, 6, 7})});
  EXPECT_CONTAINS(error, "input 1 has shape [1, 3] but input 0 has [2, 2]");

  error = runError(R"mlir(
    func.func @f(%z: tensor<?xf32>) -> tensor<2x3xf32> {
      %s = tgc.expand %z : tensor<?xf32> -> tensor<2x3xf32>
      return %s : tensor<2x3xf32>
    })mlir",
                   {f32({2}, {1, 2})});
  EXPECT_CONTAINS(error, "only size-1 dimensions stretch");
}

TEST_F(InterpreterTest, SqueezeUnsqueezePad) {
  std::vector<HostTensor> r = run(R"mlir(
    func.func @f(%x: tensor<1x2x1xi32>, %y: tensor<2x2xi32>) -> (tensor<2xi32>, tensor<2x1x2xi32>, tensor<3x4xi32>) {
      %s = tgc.squeeze %x dims [0, 2] : tensor<1x2x1xi32> -> tensor<2xi32>
      %u = tgc.unsqueeze %y dim = 1 : tensor<2x2xi32> -> tensor<2x1x2xi32>
      %p = tgc.pad %y low [1, 0] high [0, 2] value 9 : i32 : tensor<2x2xi32> -> tensor<3x4xi32>
      return %s, %u, %p : tensor<2xi32>, tensor<2x1x2xi32>, tensor<3x4xi32>
    })mlir",
                                  {ints(DType::I32, {1, 2, 1}, {4, 5}),
                                   ints(DType::I32, {2, 2}, {1, 2, 3, 4})});
  ASSERT_EQ(r.size(), 3u);
  expectInts(r[0], {2}, {4, 5});
  expectInts(r[1], {2, 1, 2}, {1, 2, 3, 4});
  expectInts(r[2], {3, 4}, {9, 9, 9, 9, 1, 2, 9, 9, 3, 4, 9, 9});
}

//===----------------------------------------------------------------------===//
// Indexing
//===----------------------------------------------------------------------===//

TEST_F(InterpreterTest, GatherIndexSelectEmbedding) {
  const char *gather = R"mlir(
    func.func @f(%x: tensor<2x3xf32>, %i: tensor<2x2xi64>, %j: tensor<1x3xi32>) -> (tensor<2x2xf32>, tensor<1x3xf32>) {
      %a = tgc.gather %x, %i dim = 1 : tensor<2x3xf32>, tensor<2x2xi64> -> tensor<2x2xf32>
      %b = tgc.gather %x, %j dim = 0 : tensor<2x3xf32>, tensor<1x3xi32> -> tensor<1x3xf32>
      return %a, %b : tensor<2x2xf32>, tensor<1x3xf32>
    })mlir";
  HostTensor x = f32({2, 3}, {1, 2, 3, 4, 5, 6});
  std::vector<HostTensor> r =
      run(gather,
          {x, i64({2, 2}, {2, 0, 1, 1}), ints(DType::I32, {1, 3}, {1, 0, 1})});
  expectFloats(r[0], {2, 2}, {3, 1, 5, 5});
  expectFloats(r[1], {1, 3}, {4, 2, 6});
  std::string error = runError(gather, {x, i64({2, 2}, {2, 0, 3, 1}),
                                        ints(DType::I32, {1, 3}, {1, 0, 1})});
  EXPECT_CONTAINS(error, "index 3 at position [1, 0] is out of range for "
                         "dimension 1 of size 3");
  error = runError(gather, {x, i64({2, 2}, {2, 0, 1, 1}),
                            ints(DType::I32, {1, 3}, {1, -1, 1})});
  EXPECT_CONTAINS(error, "index -1 at position [0, 1]");

  r = run(R"mlir(
    func.func @f(%x: tensor<2x3xf32>, %i: tensor<2xi32>, %s: tensor<i64>, %w: tensor<4x2xf32>, %ids: tensor<1x2xi64>)
        -> (tensor<2x2xf32>, tensor<2x1xf32>, tensor<1x2x2xf32>) {
      %a = tgc.index_select %x, %i dim = 1 : tensor<2x3xf32>, tensor<2xi32> -> tensor<2x2xf32>
      %b = tgc.index_select %x, %s dim = 1 : tensor<2x3xf32>, tensor<i64> -> tensor<2x1xf32>
      %e = tgc.embedding %w, %ids : tensor<4x2xf32>, tensor<1x2xi64> -> tensor<1x2x2xf32>
      return %a, %b, %e : tensor<2x2xf32>, tensor<2x1xf32>, tensor<1x2x2xf32>
    })mlir",
          {x, ints(DType::I32, {2}, {2, 0}), scalar(1),
           f32({4, 2}, {0, 1, 10, 11, 20, 21, 30, 31}), i64({1, 2}, {3, 0})});
  ASSERT_EQ(r.size(), 3u);
  expectFloats(r[0], {2, 2}, {3, 1, 6, 4});
  expectFloats(r[1], {2, 1}, {2, 5});
  expectFloats(r[2], {1, 2, 2}, {30, 31, 0, 1});

  error = runError(R"mlir(
    func.func @f(%w: tensor<4x2xf32>, %ids: tensor<?xi64>) -> tensor<?x2xf32> {
      %e = tgc.embedding %w, %ids : tensor<4x2xf32>, tensor<?xi64> -> tensor<?x2xf32>
      return %e : tensor<?x2xf32>
    })mlir",
                   {f32({4, 2}, {0, 1, 2, 3, 4, 5, 6, 7}), i64({2}, {0, 4})});
  EXPECT_CONTAINS(error, "index 4 at position [1] is out of range for the "
                         "embedding table of size 4");
}

//===----------------------------------------------------------------------===//
// Linear algebra
//===----------------------------------------------------------------------===//

TEST_F(InterpreterTest, MatmulRankRules) {
  std::vector<HostTensor> r =
      run(R"mlir(
    func.func @f(%v: tensor<3xf64>, %m: tensor<2x3xf64>, %n: tensor<3x2xf64>)
        -> (tensor<f64>, tensor<2xf64>, tensor<2xf64>, tensor<2x2xf64>) {
      %a = tgc.matmul %v, %v : tensor<3xf64>, tensor<3xf64> -> tensor<f64>
      %b = tgc.matmul %m, %v : tensor<2x3xf64>, tensor<3xf64> -> tensor<2xf64>
      %c = tgc.matmul %v, %n : tensor<3xf64>, tensor<3x2xf64> -> tensor<2xf64>
      %d = tgc.matmul %m, %n : tensor<2x3xf64>, tensor<3x2xf64> -> tensor<2x2xf64>
      return %a, %b, %c, %d : tensor<f64>, tensor<2xf64>, tensor<2xf64>, tensor<2x2xf64>
    })mlir",
          {f64({3}, {1, 2, 3}), f64({2, 3}, {1, 0, -1, 2, 2, 2}),
           f64({3, 2}, {1, 2, 3, 4, 5, 6})});
  ASSERT_EQ(r.size(), 4u);
  expectFloats(r[0], {}, {14});
  expectFloats(r[1], {2}, {-2, 12});
  expectFloats(r[2], {2}, {22, 28});
  expectFloats(r[3], {2, 2}, {-4, -4, 18, 24});

  // a = gen(12).view(2, 1, 2, 3), b = gen(18, 4).view(3, 3, 2); a @ b.
  r = run(R"mlir(
    func.func @f(%a: tensor<2x1x2x3xf64>, %b: tensor<3x3x2xf64>) -> tensor<2x3x2x2xf64> {
      %c = tgc.matmul %a, %b : tensor<2x1x2x3xf64>, tensor<3x3x2xf64> -> tensor<2x3x2x2xf64>
      return %c : tensor<2x3x2x2xf64>
    })mlir",
          {gen(DType::F64, {2, 1, 2, 3}), gen(DType::F64, {3, 3, 2}, 4)});
  expectFloats(r[0], {2, 3, 2, 2},
               {0.078125,  -0.625,    -0.484375, 0.078125, -0.15625,  -0.859375,
                -0.296875, 0.265625,  -0.390625, 1.03125,  -0.109375, 0.1875,
                0.015625,  -0.546875, -0.546875, 0.15625,  -0.171875, -0.734375,
                -0.3125,   0.390625,  -0.359375, 0.9375,   -0.078125, 0.09375},
               1e-12, 1e-15);

  r = run(R"mlir(
    func.func @f(%a: tensor<2x2xi32>) -> tensor<2x2xi32> {
      %c = tgc.matmul %a, %a : tensor<2x2xi32>, tensor<2x2xi32> -> tensor<2x2xi32>
      return %c : tensor<2x2xi32>
    })mlir",
          {ints(DType::I32, {2, 2}, {65536, 1, 0, 3})});
  expectInts(r[0], {2, 2}, {0, 65539, 0, 9}); // 2^32 wraps to 0
}

TEST_F(InterpreterTest, BmmAndLinear) {
  const char *bmm = R"mlir(
    func.func @f(%a: tensor<?x2x3xf32>, %b: tensor<?x3x1xf32>) -> tensor<?x2x1xf32> {
      %c = tgc.bmm %a, %b : tensor<?x2x3xf32>, tensor<?x3x1xf32> -> tensor<?x2x1xf32>
      return %c : tensor<?x2x1xf32>
    })mlir";
  std::vector<HostTensor> r =
      run(bmm, {f32({2, 2, 3}, {1, 2, 3, 4, 5, 6, 1, 0, 0, 0, 1, 0}),
                f32({2, 3, 1}, {1, 1, 1, 7, 8, 9})});
  expectFloats(r[0], {2, 2, 1}, {6, 15, 7, 8});
  std::string error =
      runError(bmm, {f32({2, 2, 3}, {1, 2, 3, 4, 5, 6, 1, 0, 0, 0, 1, 0}),
                     f32({1, 3, 1}, {1, 1, 1})});
  EXPECT_CONTAINS(error, "batch sizes differ at run time");

  r = run(R"mlir(
    func.func @f(%x: tensor<2x3xf32>, %w: tensor<2x3xf32>, %b: tensor<2xf32>, %v: tensor<3xf32>)
        -> (tensor<2x2xf32>, tensor<2xf32>) {
      %y = tgc.linear %x, %w, %b : tensor<2x3xf32>, tensor<2x3xf32>, tensor<2xf32> -> tensor<2x2xf32>
      %z = tgc.linear %v, %w : tensor<3xf32>, tensor<2x3xf32> -> tensor<2xf32>
      return %y, %z : tensor<2x2xf32>, tensor<2xf32>
    })mlir",
          {f32({2, 3}, {1, 2, 3, 4, 5, 6}), f32({2, 3}, {1, 0, 0, 1, 1, 1}),
           f32({2}, {0.5, -1}), f32({3}, {1, 1, 2})});
  expectFloats(r[0], {2, 2}, {1.5, 5, 4.5, 14});
  expectFloats(r[1], {2}, {1, 4});
}

TEST_F(InterpreterTest, CholeskyLowerUpperAndNonSPD) {
  const char *src = R"mlir(
    func.func @f(%a: tensor<?x3x3xf64>) -> (tensor<?x3x3xf64>, tensor<?x3x3xf64>) {
      %l = tgc.cholesky %a : tensor<?x3x3xf64>
      %u = tgc.cholesky %a upper : tensor<?x3x3xf64>
      return %l, %u : tensor<?x3x3xf64>, tensor<?x3x3xf64>
    })mlir";
  // The classic example: L = [[2, 0, 0], [6, 1, 0], [-8, 5, 3]]; the second
  // matrix is 4 * identity.
  HostTensor a = f64({2, 3, 3}, {4, 12, -16, 12, 37, -43, -16, -43, 98, //
                                 4, 0, 0, 0, 4, 0, 0, 0, 4});
  std::vector<HostTensor> r = run(src, {a});
  ASSERT_EQ(r.size(), 2u);
  expectFloats(r[0], {2, 3, 3},
               {2, 0, 0, 6, 1, 0, -8, 5, 3, 2, 0, 0, 0, 2, 0, 0, 0, 2}, 1e-12,
               1e-12);
  expectFloats(r[1], {2, 3, 3},
               {2, 6, -8, 0, 1, 5, 0, 0, 3, 2, 0, 0, 0, 2, 0, 0, 0, 2}, 1e-12,
               1e-12);
  // The second matrix has eigenvalues 3 and -1.
  std::string error = runError(
      src,
      {f64({2, 3, 3}, {4, 0, 0, 0, 4, 0, 0, 0, 4, 1, 2, 0, 2, 1, 0, 0, 0, 1})});
  EXPECT_CONTAINS(error, "not positive-definite: the leading minor of order 2 "
                         "of the matrix at batch index [1]");
}

//===----------------------------------------------------------------------===//
// Neural-network operators
//===----------------------------------------------------------------------===//

// torch.softmax / torch.log_softmax of [[1., 2, 3], [1000, 1001, 1002]].
TEST_F(InterpreterTest, SoftmaxIsStable) {
  std::vector<HostTensor> r = run(R"mlir(
    func.func @f(%x: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) {
      %s = tgc.softmax %x dim = 1 : tensor<2x3xf32>
      %l = tgc.log_softmax %x dim = 1 : tensor<2x3xf32>
      %c = tgc.softmax %x dim = 0 : tensor<2x3xf32>
      return %s, %l, %c : tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>
    })mlir",
                                  {f32({2, 3}, {1, 2, 3, 1000, 1001, 1002})});
  ASSERT_EQ(r.size(), 3u);
  expectFloats(r[0], {2, 3},
               {0.09003057330846786, 0.2447284758090973, 0.6652409434318542,
                0.09003057330846786, 0.2447284758090973, 0.6652409434318542});
  expectFloats(r[1], {2, 3},
               {-2.4076058864593506, -1.4076058864593506, -0.40760594606399536,
                -2.4076058864593506, -1.4076058864593506,
                -0.40760594606399536});
  expectFloats(r[2], {2, 3}, {0, 0, 0, 1, 1, 1});
}

TEST_F(InterpreterTest, LayerNormAndRmsNorm) {
  // F.layer_norm(x, [3], tensor([0.5, 1, 2]), tensor([0.1, 0, -0.1]), 1e-5)
  // and F.layer_norm(x, [2, 3]).
  std::vector<HostTensor> r =
      run(R"mlir(
    func.func @f(%x: tensor<2x3xf32>, %w: tensor<3xf32>, %b: tensor<3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>) {
      %a = tgc.layer_norm %x weight(%w : tensor<3xf32>) bias(%b : tensor<3xf32>) normalized_rank = 1 eps = 1.0e-05 : tensor<2x3xf32>
      %c = tgc.layer_norm %x normalized_rank = 2 eps = 1.0e-05 : tensor<2x3xf32>
      return %a, %c : tensor<2x3xf32>, tensor<2x3xf32>
    })mlir",
          {f32({2, 3}, {1, 2, 4, -1, 0, 5}), f32({3}, {0.5, 1, 2}),
           f32({3}, {0.1, 0, -0.1})});
  ASSERT_EQ(r.size(), 2u);
  expectFloats(r[0], {2, 3},
               {-0.4345206916332245, -0.2672603130340576, 2.572603702545166,
                -0.3445001244544983, -0.5080001354217529, 2.694000720977783},
               1e-5, 1e-6);
  expectFloats(r[1], {2, 3},
               {-0.3940548002719879, 0.0788109302520752, 1.0245423316955566,
                -1.3397862911224365, -0.866920530796051, 1.497408151626587},
               1e-5, 1e-6);

  // x / sqrt(mean(x^2) + eps) * w with eps = finfo(float32).eps by default:
  // it matters for the small second row.
  r = run(R"mlir(
    func.func @f(%x: tensor<2x3xf32>, %w: tensor<3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>) {
      %a = tgc.rms_norm %x weight(%w : tensor<3xf32>) normalized_rank = 1 : tensor<2x3xf32>
      %b = tgc.rms_norm %x weight(%w : tensor<3xf32>) normalized_rank = 1 eps = 1.0e-06 : tensor<2x3xf32>
      return %a, %b : tensor<2x3xf32>, tensor<2x3xf32>
    })mlir",
          {f32({2, 3}, {1, 2, 3, 1e-4, 1e-4, -1e-4}), f32({3}, {1, 0.5, 2})});
  expectFloats(r[0], {2, 3},
               {0.4629100561141968, 0.4629100561141968, 2.7774603366851807,
                0.27819743752479553, 0.13909871876239777, -0.5563948750495911},
               1e-5, 1e-6);
  expectFloats(r[1], {2, 3},
               {0.462909996509552, 0.462909996509552, 2.7774600982666016,
                0.09950371831655502, 0.04975185915827751, -0.19900743663311005},
               1e-5, 1e-6);
}

// q = gen(24).view(2, 3, 4), k = gen(24, 5).view(2, 3, 4),
// v = gen(12, 11).view(2, 3, 2); expected: softmax(q @ k^T * scale + mask) @ v
// in float64 (torch 1.13 has no scaled_dot_product_attention, so the
// formula), causal = tril(ones(3, 3)).
TEST_F(InterpreterTest, ScaledDotProductAttention) {
  const char *src = R"mlir(
    func.func @f(%q: tensor<2x3x4xf64>, %k: tensor<2x3x4xf64>, %v: tensor<2x3x2xf64>,
                 %bm: tensor<3x3xi1>, %fm: tensor<3x3xf64>)
        -> (tensor<2x3x2xf64>, tensor<2x3x2xf64>, tensor<2x3x2xf64>, tensor<2x3x2xf64>) {
      %a = tgc.scaled_dot_product_attention %q, %k, %v : tensor<2x3x4xf64>, tensor<2x3x4xf64>, tensor<2x3x2xf64> -> tensor<2x3x2xf64>
      %b = tgc.scaled_dot_product_attention %q, %k, %v causal : tensor<2x3x4xf64>, tensor<2x3x4xf64>, tensor<2x3x2xf64> -> tensor<2x3x2xf64>
      %c = tgc.scaled_dot_product_attention %q, %k, %v mask(%bm : tensor<3x3xi1>) : tensor<2x3x4xf64>, tensor<2x3x4xf64>, tensor<2x3x2xf64> -> tensor<2x3x2xf64>
      %d = tgc.scaled_dot_product_attention %q, %k, %v mask(%fm : tensor<3x3xf64>) {scale = 0.5 : f64} : tensor<2x3x4xf64>, tensor<2x3x4xf64>, tensor<2x3x2xf64> -> tensor<2x3x2xf64>
      return %a, %b, %c, %d : tensor<2x3x2xf64>, tensor<2x3x2xf64>, tensor<2x3x2xf64>, tensor<2x3x2xf64>
    })mlir";
  std::vector<HostTensor> r = run(
      src, {gen(DType::F64, {2, 3, 4}), gen(DType::F64, {2, 3, 4}, 5),
            gen(DType::F64, {2, 3, 2}, 11),
            ints(DType::I1, {3, 3}, {1, 0, 1, 0, 1, 1, 1, 1, 0}),
            f64({3, 3}, {0.5, 1.0, 1.5, -1.0, -2.0, -3.0, 0.25, 0.5, 0.75})});
  ASSERT_EQ(r.size(), 4u);
  expectFloats(r[0], {2, 3, 2},
               {0.4125032675594531, 0.08562437375236484, 0.32669772214642334,
                -0.11944100136437857, 0.2785379369924431, 0.2218174333557887,
                -0.34976914564387995, 0.025230854356120103,
                -0.35793461475520916, 0.017065385244790787,
                -0.18971676149336378, 0.1852832385066362},
               1e-12, 1e-14);
  // Row 0 sees only key 0: exactly v[0].
  expectFloats(r[1], {2, 3, 2},
               {1.0, -0.75, 0.3125, -0.375, 0.2785379369924431,
                0.2218174333557887, -1.0, -0.625, -0.608896628154492,
                -0.23389662815449197, -0.18971676149336378, 0.1852832385066362},
               1e-12, 1e-14);
  expectFloats(r[2], {2, 3, 2},
               {0.6414509953421814, 0.11051761117876452, -0.09733095555331006,
                0.27766904444668994, 0.18249201166754483, -0.30408655181866084,
                -0.37195463596646994, 0.0030453640335300625,
                0.01952310887007644, 0.3945231088700764, -0.5386841083629501,
                -0.16368410836295016},
               1e-12, 1e-14);
  expectFloats(r[3], {2, 3, 2},
               {0.33725511260543545, 0.3447465520672124, 0.6161779917543517,
                -0.4769322868601465, 0.2614396275567002, 0.32988000718487204,
                -0.04980234469771594, 0.32519765530228406, -0.713698856249501,
                -0.3386988562495009, -0.08226850393817134, 0.29273149606182863},
               1e-12, 1e-14);
}

// F.conv2d(gen(100).view(1, 4, 5, 5), gen(72, 3).view(4, 2, 3, 3),
// tensor([0.5, -0.25, 0.125, 1.0]), stride=(2, 1), padding=(1, 2),
// dilation=(2, 1), groups=2) in float64.
TEST_F(InterpreterTest, Conv2dGroupsDilationStridePadding) {
  const std::vector<double> expected = {
      1.03125,   1.03125,   -0.0625,   0.375,     1.875,     -0.609375,
      -0.546875, 2.09375,   -0.125,    -1.140625, -0.71875,  0.765625,
      1.65625,   1.734375,  -0.515625, -0.75,     0.609375,  -0.453125,
      -0.453125, 0.71875,   -1.4375,   -0.515625, 2.609375,  -0.46875,
      -1.546875, -1.5625,   -0.46875,  0.84375,   1.390625,  0.890625,
      -0.609375, -0.515625, 1.4375,    -1.109375, -1.203125, -0.90625,
      -1.40625,  0.453125,  2.921875,  0.34375,   0.015625,  -0.15625,
      0.640625,  3.859375,  1.328125,  -0.875,    -0.421875, 1.515625,
      1.09375,   1.796875,  0.5,       0.265625,  0.4375,    0.875,
      1.578125,  1.078125};
  HostTensor bias = f64({4}, {0.5, -0.25, 0.125, 1.0});
  std::vector<HostTensor> r = run(
      R"mlir(
    func.func @f(%x: tensor<1x4x5x5xf64>, %w: tensor<4x2x3x3xf64>, %b: tensor<4xf64>) -> tensor<1x4x2x7xf64> {
      %y = tgc.conv2d %x, %w bias(%b : tensor<4xf64>) stride [2, 1] padding [1, 2] dilation [2, 1] groups = 2 : tensor<1x4x5x5xf64>, tensor<4x2x3x3xf64> -> tensor<1x4x2x7xf64>
      return %y : tensor<1x4x2x7xf64>
    })mlir",
      {gen(DType::F64, {1, 4, 5, 5}), gen(DType::F64, {4, 2, 3, 3}, 3), bias});
  expectFloats(r[0], {1, 4, 2, 7}, expected, 1e-12, 1e-14);
  // Unbatched: the same numbers without N.
  r = run(R"mlir(
    func.func @f(%x: tensor<4x5x5xf64>, %w: tensor<4x2x3x3xf64>, %b: tensor<4xf64>) -> tensor<4x2x7xf64> {
      %y = tgc.conv2d %x, %w bias(%b : tensor<4xf64>) stride [2, 1] padding [1, 2] dilation [2, 1] groups = 2 : tensor<4x5x5xf64>, tensor<4x2x3x3xf64> -> tensor<4x2x7xf64>
      return %y : tensor<4x2x7xf64>
    })mlir",
          {gen(DType::F64, {4, 5, 5}), gen(DType::F64, {4, 2, 3, 3}, 3), bias});
  expectFloats(r[0], {4, 2, 7}, expected, 1e-12, 1e-14);
}

// xp = gen(24, 2).view(1, 1, 6, 4); F.max_pool2d / F.avg_pool2d with
// kernel (3, 2), stride (2, 3), padding (1, 1), ceil_mode=True: H gets a
// 4th window that starts in the input, W drops the 3rd, which would start
// past the left padding.
TEST_F(InterpreterTest, PoolingCeilModeSizesAndDivisors) {
  HostTensor x = gen(DType::F32, {1, 1, 6, 4}, 2);
  std::vector<HostTensor> r = run(R"mlir(
    func.func @f(%x: tensor<1x1x6x4xf32>) -> (tensor<1x1x4x2xf32>, tensor<1x1x4x2xf32>) {
      %a = tgc.max_pool2d %x kernel [3, 2] stride [2, 3] padding [1, 1] dilation [1, 1] ceil_mode : tensor<1x1x6x4xf32> -> tensor<1x1x4x2xf32>
      %b = tgc.max_pool2d %x kernel [2, 2] stride [1, 1] padding [0, 0] dilation [2, 2] : tensor<1x1x6x4xf32> -> tensor<1x1x4x2xf32>
      return %a, %b : tensor<1x1x4x2xf32>, tensor<1x1x4x2xf32>
    })mlir",
                                  {x});
  ASSERT_EQ(r.size(), 2u);
  expectFloats(r[0], {1, 1, 4, 2},
               {-0.25, 0.875, 0.625, 0.75, 0.875, 0.75, 0.875, -0.125});
  expectFloats(r[1], {1, 1, 4, 2},
               {0.625, 1.0, 0.75, 0.375, 0.625, 1.0, 0.875, 0.375});

  r = run(R"mlir(
    func.func @f(%x: tensor<1x1x6x4xf32>) -> (tensor<1x1x4x2xf32>, tensor<1x1x4x2xf32>, tensor<1x1x4x2xf32>, tensor<1x1x3x2xf32>) {
      %a = tgc.avg_pool2d %x kernel [3, 2] stride [2, 3] padding [1, 1] ceil_mode : tensor<1x1x6x4xf32> -> tensor<1x1x4x2xf32>
      %b = tgc.avg_pool2d %x kernel [3, 2] stride [2, 3] padding [1, 1] ceil_mode {count_include_pad = false} : tensor<1x1x6x4xf32> -> tensor<1x1x4x2xf32>
      %c = tgc.avg_pool2d %x kernel [3, 2] stride [2, 3] padding [1, 1] ceil_mode {divisor_override = 5 : i64} : tensor<1x1x6x4xf32> -> tensor<1x1x4x2xf32>
      %d = tgc.avg_pool2d %x kernel [3, 2] stride [2, 3] padding [1, 1] : tensor<1x1x6x4xf32> -> tensor<1x1x3x2xf32>
      return %a, %b, %c, %d : tensor<1x1x4x2xf32>, tensor<1x1x4x2xf32>, tensor<1x1x4x2xf32>, tensor<1x1x3x2xf32>
    })mlir",
          {x});
  ASSERT_EQ(r.size(), 4u);
  expectFloats(r[0], {1, 1, 4, 2},
               {-0.1875, 0.25, -0.041666666666666664, -0.20833333333333334,
                0.041666666666666664, -0.041666666666666664, 0.21875,
                -0.15625});
  expectFloats(r[1], {1, 1, 4, 2},
               {-0.5625, 0.375, -0.08333333333333333, -0.20833333333333334,
                0.08333333333333333, -0.041666666666666664, 0.875, -0.3125});
  expectFloats(r[2], {1, 1, 4, 2},
               {-0.225, 0.3, -0.05, -0.25, 0.05, -0.05, 0.175, -0.125});
  expectFloats(r[3], {1, 1, 3, 2},
               {-0.1875, 0.25, -0.041666666666666664, -0.20833333333333334,
                0.041666666666666664, -0.041666666666666664});
}

TEST_F(InterpreterTest, MaxPoolPropagatesNaNAndTakesIntegers) {
  std::vector<HostTensor> r =
      run(R"mlir(
    func.func @f(%x: tensor<1x2x2xf32>, %i: tensor<1x2x2xi32>) -> (tensor<1x1x1xf32>, tensor<1x3x3xi32>) {
      %a = tgc.max_pool2d %x kernel [2, 2] stride [2, 2] padding [0, 0] dilation [1, 1] : tensor<1x2x2xf32> -> tensor<1x1x1xf32>
      %b = tgc.max_pool2d %i kernel [2, 2] stride [1, 1] padding [1, 1] dilation [1, 1] : tensor<1x2x2xi32> -> tensor<1x3x3xi32>
      return %a, %b : tensor<1x1x1xf32>, tensor<1x3x3xi32>
    })mlir",
          {f32({1, 2, 2}, {1, kNaN, 3, 2}),
           ints(DType::I32, {1, 2, 2}, {-5, -6, -7, -8})});
  expectFloats(r[0], {1, 1, 1}, {kNaN});
  // Padding never wins, even over negative numbers.
  expectInts(r[1], {1, 3, 3}, {-5, -5, -6, -5, -5, -6, -7, -7, -8});
}

//===----------------------------------------------------------------------===//
// Creation, out buffers, scalars, errors
//===----------------------------------------------------------------------===//

TEST_F(InterpreterTest, ConstantFullIota) {
  std::vector<HostTensor> r = run(R"mlir(
    func.func @f(%n: index) -> (tensor<2x2xi64>, tensor<f32>, tensor<2xi1>, tensor<?x2xf16>, tensor<4xi64>, tensor<?xf32>, tensor<3xi32>) {
      %c = tgc.constant dense<[[1, 2], [3, 4]]> : tensor<2x2xi64>
      %s = tgc.constant dense<1.5> : tensor<f32>
      %b = tgc.constant dense<[true, false]> : tensor<2xi1>
      %f = tgc.full 0.1 : f16 [%n] : tensor<?x2xf16>
      %i = tgc.iota 5 : i64, -2 : i64 : tensor<4xi64>
      %j = tgc.iota 0.5 : f32, 0.25 : f32 [%n] : tensor<?xf32>
      %a = arith.constant dense<[7, 8, 9]> : tensor<3xi32>
      return %c, %s, %b, %f, %i, %j, %a : tensor<2x2xi64>, tensor<f32>, tensor<2xi1>, tensor<?x2xf16>, tensor<4xi64>, tensor<?xf32>, tensor<3xi32>
    })mlir",
                                  {scalar(3)});
  ASSERT_EQ(r.size(), 7u);
  expectInts(r[0], {2, 2}, {1, 2, 3, 4});
  expectFloats(r[1], {}, {1.5});
  expectInts(r[2], {2}, {1, 0});
  expectFloats(r[3], {3, 2}, {0.1, 0.1, 0.1, 0.1, 0.1, 0.1}, 0, 0);
  EXPECT_EQ(r[3].getFloat(0), 0.0999755859375);
  expectInts(r[4], {4}, {5, 3, 1, -1});
  expectFloats(r[5], {3}, {0.5, 0.75, 1.0});
  expectInts(r[6], {3}, {7, 8, 9});

  std::string error = runError(R"mlir(
    func.func @f(%n: index) -> tensor<?xf32> {
      %f = tgc.full 0.0 : f32 [%n] : tensor<?xf32>
      return %f : tensor<?xf32>
    })mlir",
                               {scalar(-1)});
  EXPECT_CONTAINS(error, "is negative (-1)");
}

TEST_F(InterpreterTest, WriteOutUpdatesTheCallersBuffer) {
  const char *src = R"mlir(
    func.func @f(%x: tensor<?xf32>, %out: tensor<?xf32>) -> tensor<?xf32> {
      %y = tgc.neg %x : tensor<?xf32>
      tgc.write_out %y into %out : tensor<?xf32> into tensor<?xf32>
      %z = tgc.add %out, %x : tensor<?xf32>
      return %z : tensor<?xf32>
    })mlir";
  std::vector<HostTensor> args = {f32({3}, {1, 2, 3}),
                                  f32({3}, {100, 200, 300})};
  lastArgs = std::move(args);
  std::string error;
  FailureOr<std::vector<HostTensor>> r = interpretSource(src, lastArgs, error);
  ASSERT_TRUE(succeeded(r)) << error;
  expectFloats(lastArgs[1], {3}, {-1, -2, -3});
  // Later reads of %out see its value on entry.
  expectFloats((*r)[0], {3}, {101, 202, 303});

  // The buffer keeps its allocation (pointers into it stay valid).
  std::vector<HostTensor> args2 = {f32({2}, {1, 2}), f32({2}, {0, 0})};
  const void *data = args2[1].data();
  FailureOr<std::vector<HostTensor>> r2 = interpretSource(src, args2, error);
  ASSERT_TRUE(succeeded(r2)) << error;
  EXPECT_EQ(args2[1].data(), data);
  expectFloats(args2[1], {2}, {-1, -2});

  error = runError(src, {f32({3}, {1, 2, 3}), f32({2}, {0, 0})});
  EXPECT_CONTAINS(error, "value of shape [3] does not match the out buffer "
                         "(argument 1) of shape [2]");
}

TEST_F(InterpreterTest, ArgumentsAreCheckedAgainstTheSignature) {
  const char *src = R"mlir(
    func.func @f(%x: tensor<?x3xf32>, %n: index) -> tensor<?x3xf32> {
      return %x : tensor<?x3xf32>
    })mlir";
  EXPECT_CONTAINS(runError(src, {f32({2, 3}, {1, 2, 3, 4, 5, 6})}),
                  "@f takes 2 arguments, got 1");
  EXPECT_CONTAINS(runError(src, {f64({2, 3}, {1, 2, 3, 4, 5, 6}), scalar(1)}),
                  "argument #0 of @f ('tensor<?x3xf32>'): got a tensor of f64");
  EXPECT_CONTAINS(runError(src, {f32({6}, {1, 2, 3, 4, 5, 6}), scalar(1)}),
                  "got a tensor of rank 1");
  EXPECT_CONTAINS(runError(src, {f32({3, 2}, {1, 2, 3, 4, 5, 6}), scalar(1)}),
                  "got shape [3, 2], which differs in dimension 1");
  EXPECT_CONTAINS(
      runError(src, {f32({2, 3}, {1, 2, 3, 4, 5, 6}), f32({}, {1})}),
      "argument #1 of @f ('index'): a scalar is passed as a 0-d "
      "integer tensor");
  std::vector<HostTensor> r =
      run(src, {f32({0, 3}, {}), scalar(1)}); // a `?` may be 0
  expectFloats(r[0], {0, 3}, {});
}

TEST_F(InterpreterTest, ScalarArithmetic) {
  const char *src = R"mlir(
    func.func @f(%n: index, %d: index, %i: i32) -> (index, index, index, index, index, index, index, i32, i1) {
      %a = arith.floordivsi %n, %d : index
      %b = arith.ceildivsi %n, %d : index
      %c = arith.remsi %n, %d : index
      %e = arith.divsi %n, %d : index
      %f = index.floordivs %n, %d
      %g = index.maxs %n, %d
      %h = arith.subi %n, %d : index
      %c1 = arith.constant 1 : i32
      %j = arith.addi %i, %c1 : i32
      %k = arith.cmpi slt, %n, %d : index
      return %a, %b, %c, %e, %f, %g, %h, %j, %k : index, index, index, index, index, index, index, i32, i1
    })mlir";
  std::vector<HostTensor> r =
      run(src, {scalar(-7), scalar(2), ints(DType::I64, {}, {2147483647})});
  ASSERT_EQ(r.size(), 9u);
  const int64_t expected[] = {-4, -3, -1, -3, -4, 2, -9, -2147483648LL, 1};
  for (int i = 0; i < 9; ++i) {
    ASSERT_EQ(r[i].dtype(), DType::I64);
    ASSERT_EQ(r[i].rank(), 0);
    EXPECT_EQ(r[i].getInt(0), expected[i]) << "result " << i;
  }
  EXPECT_CONTAINS(runError(src, {scalar(-7), scalar(0), scalar(0)}),
                  "integer division by zero");
}

TEST_F(InterpreterTest, SymbolicAnnotationsAreIgnored) {
  std::vector<HostTensor> r = run(R"mlir(
    func.func @f(%x: tensor<?xf32>) -> tensor<?xf32> {
      %s0 = tgc_sym.symbol "s0" range [2, inf] from arg 0 dim 0
      tgc_sym.bind %x [%s0] : tensor<?xf32>
      %y = tgc.neg %x : tensor<?xf32>
      tgc_sym.bind %y [%s0] : tensor<?xf32>
      return %y : tensor<?xf32>
    })mlir",
                                  {f32({2}, {1, -2})});
  expectFloats(r[0], {2}, {-1, 2});
}

TEST_F(InterpreterTest, FusionGroupsRunTheirBody) {
  std::vector<HostTensor> r = run(R"mlir(
    func.func @f(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
      %p = tgc.fusion_group "rows" ins(%x : tensor<2x3xf32>) {
      ^bb0(%a: tensor<2x3xf32>):
        %n = tgc.neg %a : tensor<2x3xf32>
        %s = tgc.softmax %n dim = 1 : tensor<2x3xf32>
        tgc.yield %s : tensor<2x3xf32>
      } -> tensor<2x3xf32>
      return %p : tensor<2x3xf32>
    })mlir",
                                  {f32({2, 3}, {3, 2, 1, 1002, 1001, 1000})});
  expectFloats(r[0], {2, 3},
               {0.09003057330846786, 0.2447284758090973, 0.6652409434318542,
                0.09003057330846786, 0.2447284758090973, 0.6652409434318542});
}

TEST_F(InterpreterTest, UnsupportedOpsAndContradictedTypesFail) {
  std::string error = runError(R"mlir(
    func.func @f(%x: tensor<2xf32>) -> tensor<2xf32> {
      %y = arith.addf %x, %x : tensor<2xf32>
      return %y : tensor<2xf32>
    })mlir",
                               {f32({2}, {1, 2})});
  EXPECT_CONTAINS(error, "'arith.addf' op is not supported by the reference "
                         "interpreter");
  error = runError(R"mlir(
    func.func @f(%x: tensor<?xf32>) -> tensor<3xf16> {
      %y = tgc.convert %x : tensor<?xf32> -> tensor<3xf16>
      return %y : tensor<3xf16>
    })mlir",
                   {f32({4}, {1, 2, 3, 4})});
  EXPECT_CONTAINS(error, "result #0 has run-time shape [4], which contradicts "
                         "its type 'tensor<3xf16>'");
}

} // namespace
