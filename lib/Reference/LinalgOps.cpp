//===- LinalgOps.cpp - matmul, bmm, linear, cholesky ----------------------===//
//
// Products accumulate in double (floats) or wrapping int64 (integers) in
// the natural order of the contraction and round once.
//
//===----------------------------------------------------------------------===//

#include "ReferenceOps.h"

#include "tgc/Dialect/Tgc/IR/TgcOps.h"

#include <cmath>

using namespace mlir;
using namespace mlir::tgc;
using namespace mlir::tgc::ref;
using namespace mlir::tgc::ref::eval;

namespace {
/// A batch of [n, k] x [k, m] products; `lhsBatch[b]` / `rhsBatch[b]` say
/// which matrix of each operand batch entry `b` reads.
struct BatchedProduct {
  int64_t n, k, m;
  std::vector<int64_t> lhsBatch, rhsBatch;
};
} // namespace

/// out[b, i, j] = sum_p lhs[lb, i, p] * rhs[rb, p, j], stored row-major
/// into `result`.
static void multiply(const HostTensor &lhs, const HostTensor &rhs,
                     const BatchedProduct &p, HostTensor &result) {
  int64_t n = p.n, k = p.k, m = p.m;
  auto batches = static_cast<int64_t>(p.lhsBatch.size());
  if (isFloatDType(lhs.dtype())) {
    std::vector<double> a = toDoubles(lhs), b = toDoubles(rhs);
    for (int64_t bi = 0; bi < batches; ++bi) {
      const double *la = a.data() + p.lhsBatch[bi] * n * k;
      const double *rb = b.data() + p.rhsBatch[bi] * k * m;
      for (int64_t i = 0; i < n; ++i)
        for (int64_t j = 0; j < m; ++j) {
          double acc = 0;
          for (int64_t q = 0; q < k; ++q)
            acc += la[i * k + q] * rb[q * m + j];
          result.setFloat((bi * n + i) * m + j, acc);
        }
    }
    return;
  }
  std::vector<int64_t> a = toInts(lhs), b = toInts(rhs);
  for (int64_t bi = 0; bi < batches; ++bi) {
    const int64_t *la = a.data() + p.lhsBatch[bi] * n * k;
    const int64_t *rb = b.data() + p.rhsBatch[bi] * k * m;
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < m; ++j) {
        uint64_t acc = 0;
        for (int64_t q = 0; q < k; ++q)
          acc += static_cast<uint64_t>(la[i * k + q]) *
                 static_cast<uint64_t>(rb[q * m + j]);
        result.setInt((bi * n + i) * m + j, static_cast<int64_t>(acc));
      }
  }
}

/// torch.matmul: 1-D operands get a dimension prepended (lhs) or appended
/// (rhs) that the result drops; batch dimensions broadcast.
static LogicalResult evalMatmul(MatmulOp op, Frame &frame) {
  const HostTensor &lhs = frame.tensor(op.getLhs());
  const HostTensor &rhs = frame.tensor(op.getRhs());
  Dims l(lhs.shape()), r(rhs.shape());
  bool lhsVec = l.size() == 1, rhsVec = r.size() == 1;
  if (lhsVec)
    l.insert(l.begin(), 1);
  if (rhsVec)
    r.push_back(1);
  BatchedProduct p{l[l.size() - 2], l.back(), r.back(), {}, {}};
  if (r[r.size() - 2] != p.k)
    return op.emitOpError()
           << "contraction sizes differ at run time: " << shapeStr(lhs.shape())
           << " x " << shapeStr(rhs.shape());
  ArrayRef<int64_t> lb = ArrayRef<int64_t>(l).drop_back(2);
  ArrayRef<int64_t> rb = ArrayRef<int64_t>(r).drop_back(2);
  FailureOr<Dims> batch = broadcastShapes(op, {lb, rb}, "batch dimensions");
  if (failed(batch))
    return failure();
  p.lhsBatch = broadcastIndices(lb, *batch);
  p.rhsBatch = broadcastIndices(rb, *batch);
  Dims shape = *batch;
  if (!lhsVec)
    shape.push_back(p.n);
  if (!rhsVec)
    shape.push_back(p.m);
  HostTensor result(lhs.dtype(), shape);
  multiply(lhs, rhs, p, result);
  frame.setTensor(op.getResult(), std::move(result));
  return success();
}

static LogicalResult evalBmm(BmmOp op, Frame &frame) {
  const HostTensor &lhs = frame.tensor(op.getLhs());
  const HostTensor &rhs = frame.tensor(op.getRhs());
  ArrayRef<int64_t> l = lhs.shape(), r = rhs.shape();
  if (l[0] != r[0])
    return op.emitOpError() << "batch sizes differ at run time: " << shapeStr(l)
                            << " x " << shapeStr(r);
  if (l[2] != r[1])
    return op.emitOpError()
           << "contraction sizes differ at run time: " << shapeStr(l) << " x "
           << shapeStr(r);
  BatchedProduct p{l[1], l[2], r[2], {}, {}};
  for (int64_t b = 0; b < l[0]; ++b) {
    p.lhsBatch.push_back(b);
    p.rhsBatch.push_back(b);
  }
  HostTensor result(lhs.dtype(), {l[0], l[1], r[2]});
  multiply(lhs, rhs, p, result);
  frame.setTensor(op.getResult(), std::move(result));
  return success();
}

/// x W^T + b over the last dimension of x.
static LogicalResult evalLinear(LinearOp op, Frame &frame) {
  const HostTensor &x = frame.tensor(op.getInput());
  const HostTensor &w = frame.tensor(op.getWeight());
  int64_t in = x.shape().back(), out = w.shape()[0];
  if (w.shape()[1] != in)
    return op.emitOpError()
           << "input has " << in << " features but the weight "
           << shapeStr(w.shape()) << " expects " << w.shape()[1];
  std::vector<double> bias(out, 0.0);
  if (Value b = op.getBias()) {
    const HostTensor &bt = frame.tensor(b);
    if (bt.shape()[0] != out)
      return op.emitOpError()
             << "bias " << shapeStr(bt.shape()) << " does not match the " << out
             << " output features";
    bias = toDoubles(bt);
  }
  std::vector<double> xv = toDoubles(x), wv = toDoubles(w);
  int64_t rows = product(x.shape().drop_back());
  Dims shape(x.shape());
  shape.back() = out;
  HostTensor result(x.dtype(), shape);
  for (int64_t row = 0; row < rows; ++row)
    for (int64_t o = 0; o < out; ++o) {
      double acc = 0;
      for (int64_t i = 0; i < in; ++i)
        acc += xv[row * in + i] * wv[o * in + i];
      result.setFloat(row * out + o, acc + bias[o]);
    }
  frame.setTensor(op.getResult(), std::move(result));
  return success();
}

/// Cholesky-Banachiewicz on each matrix. The lower factor reads the lower
/// triangle, the upper one the upper triangle (as LAPACK's uplo does).
static LogicalResult evalCholesky(CholeskyOp op, Frame &frame) {
  const HostTensor &x = frame.tensor(op.getInput());
  int64_t rank = x.rank(), n = x.shape()[rank - 1];
  if (x.shape()[rank - 2] != n)
    return op.emitOpError()
           << "expects square matrices, got " << shapeStr(x.shape());
  bool upper = op.getUpper();
  ArrayRef<int64_t> batchShape = x.shape().drop_back(2);
  int64_t batches = product(batchShape);
  std::vector<double> a = toDoubles(x);
  HostTensor result(x.dtype(), x.shape());
  std::vector<double> l(n * n);
  for (int64_t b = 0; b < batches; ++b) {
    const double *m = a.data() + b * n * n;
    // Element (i, j), i >= j, of the triangle the factorization reads.
    auto at = [&](int64_t i, int64_t j) {
      return upper ? m[j * n + i] : m[i * n + j];
    };
    std::fill(l.begin(), l.end(), 0.0);
    for (int64_t j = 0; j < n; ++j) {
      double d = at(j, j);
      for (int64_t k = 0; k < j; ++k)
        d -= l[j * n + k] * l[j * n + k];
      if (!(d > 0)) {
        SmallVector<int64_t> index;
        unravel(b, batchShape, index);
        InFlightDiagnostic diag = op.emitOpError();
        diag << "input is not positive-definite: the leading minor of order "
             << (j + 1);
        if (!batchShape.empty())
          diag << " of the matrix at batch index " << shapeStr(index);
        diag << " is not positive-definite";
        return diag;
      }
      l[j * n + j] = std::sqrt(d);
      for (int64_t i = j + 1; i < n; ++i) {
        double s = at(i, j);
        for (int64_t k = 0; k < j; ++k)
          s -= l[i * n + k] * l[j * n + k];
        l[i * n + j] = s / l[j * n + j];
      }
    }
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < n; ++j)
        result.setFloat(b * n * n + i * n + j,
                        upper ? l[j * n + i] : l[i * n + j]);
  }
  frame.setTensor(op.getResult(), std::move(result));
  return success();
}

EvalResult eval::evalLinalgOp(Operation *op, Frame &frame) {
  if (auto matmul = dyn_cast<MatmulOp>(op))
    return evalMatmul(matmul, frame);
  if (auto bmm = dyn_cast<BmmOp>(op))
    return evalBmm(bmm, frame);
  if (auto linear = dyn_cast<LinearOp>(op))
    return evalLinear(linear, frame);
  if (auto cholesky = dyn_cast<CholeskyOp>(op))
    return evalCholesky(cholesky, frame);
  return std::nullopt;
}
