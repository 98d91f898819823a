//===- ReductionOps.cpp - sum, mean, var, norm, arg/max/min, topk ---------===//
//
// Reductions accumulate in double (floats) or int64 with wrap-around
// (integers) and round once. NaN is the extreme of max/min/argmax/argmin
// (the first NaN wins) and compares larger than every number in topk; ties
// go to the lower index.
//
//===----------------------------------------------------------------------===//

#include "ReferenceOps.h"

#include "tgc/Dialect/Tgc/IR/TgcOps.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

using namespace mlir;
using namespace mlir::tgc;
using namespace mlir::tgc::ref;
using namespace mlir::tgc::ref::eval;

namespace {
/// Where each input element goes in a reduction over `dims`.
struct ReductionPlan {
  /// Output position (keepdim or not: the order is the same) of each input
  /// position, in row-major input order.
  std::vector<int64_t> outIndex;
  int64_t outCount = 1;
  /// Elements reduced into each output.
  int64_t groupSize = 1;
  Dims resultShape;
};
} // namespace

static ReductionPlan planReduction(ArrayRef<int64_t> shape,
                                   ArrayRef<int64_t> dims, bool keepdim) {
  ReductionPlan plan;
  int64_t rank = shape.size();
  SmallVector<bool> reduced(rank, false);
  for (int64_t d : dims)
    if (d >= 0 && d < rank)
      reduced[d] = true;
  Dims outShape; // the kept dims
  for (int64_t d = 0; d < rank; ++d) {
    if (reduced[d]) {
      plan.groupSize *= shape[d];
      if (keepdim)
        plan.resultShape.push_back(1);
    } else {
      outShape.push_back(shape[d]);
      plan.resultShape.push_back(shape[d]);
    }
  }
  plan.outCount = product(outShape);
  plan.outIndex.resize(product(shape));
  SmallVector<int64_t> index;
  for (int64_t i = 0, e = plan.outIndex.size(); i < e; ++i) {
    unravel(i, shape, index);
    int64_t out = 0;
    for (int64_t d = 0; d < rank; ++d)
      if (!reduced[d])
        out = out * shape[d] + index[d];
    plan.outIndex[i] = out;
  }
  return plan;
}

static LogicalResult emptyReductionError(Operation *op) {
  return op->emitOpError()
         << "reduces an empty set of elements, which has no identity";
}

template <typename OpTy>
static LogicalResult evalSum(OpTy op, Frame &frame, bool mean) {
  const HostTensor &x = frame.tensor(op.getInput());
  ReductionPlan plan = planReduction(x.shape(), op.getDims(), op.getKeepdim());
  HostTensor r(x.dtype(), plan.resultShape);
  if (isFloatDType(x.dtype())) {
    std::vector<double> acc(plan.outCount, 0.0);
    for (int64_t i = 0; i < x.numel(); ++i)
      acc[plan.outIndex[i]] += x.getFloat(i);
    for (int64_t o = 0; o < plan.outCount; ++o)
      r.setFloat(o,
                 mean ? acc[o] / static_cast<double>(plan.groupSize) : acc[o]);
  } else {
    std::vector<uint64_t> acc(plan.outCount, 0);
    for (int64_t i = 0; i < x.numel(); ++i)
      acc[plan.outIndex[i]] += static_cast<uint64_t>(x.getInt(i));
    for (int64_t o = 0; o < plan.outCount; ++o)
      r.setInt(o, static_cast<int64_t>(acc[o]));
  }
  frame.setTensor(op.getResult(), std::move(r));
  return success();
}

/// amax / amin: NaN-propagating.
template <typename OpTy>
static LogicalResult evalExtremum(OpTy op, Frame &frame, bool isMax) {
  const HostTensor &x = frame.tensor(op.getInput());
  ReductionPlan plan = planReduction(x.shape(), op.getDims(), op.getKeepdim());
  if (plan.groupSize == 0 && plan.outCount > 0)
    return emptyReductionError(op.getOperation());
  HostTensor r(x.dtype(), plan.resultShape);
  std::vector<bool> seen(plan.outCount, false);
  if (isFloatDType(x.dtype())) {
    std::vector<double> acc(plan.outCount);
    for (int64_t i = 0; i < x.numel(); ++i) {
      double v = x.getFloat(i);
      double &a = acc[plan.outIndex[i]];
      if (!seen[plan.outIndex[i]] || std::isnan(v))
        a = v;
      else if (!std::isnan(a))
        a = isMax ? std::max(a, v) : std::min(a, v);
      seen[plan.outIndex[i]] = true;
    }
    for (int64_t o = 0; o < plan.outCount; ++o)
      r.setFloat(o, acc[o]);
  } else {
    std::vector<int64_t> acc(plan.outCount);
    for (int64_t i = 0; i < x.numel(); ++i) {
      int64_t v = x.getInt(i);
      int64_t &a = acc[plan.outIndex[i]];
      a = !seen[plan.outIndex[i]] ? v
                                  : (isMax ? std::max(a, v) : std::min(a, v));
      seen[plan.outIndex[i]] = true;
    }
    for (int64_t o = 0; o < plan.outCount; ++o)
      r.setInt(o, acc[o]);
  }
  frame.setTensor(op.getResult(), std::move(r));
  return success();
}

/// Two passes: the mean, then the squared deviations, divided by
/// max(N - correction, 0) as PyTorch does.
static LogicalResult evalVar(VarOp op, Frame &frame) {
  const HostTensor &x = frame.tensor(op.getInput());
  ReductionPlan plan = planReduction(x.shape(), op.getDims(), op.getKeepdim());
  std::vector<double> values = toDoubles(x);
  std::vector<double> mean(plan.outCount, 0.0), sq(plan.outCount, 0.0);
  for (int64_t i = 0; i < x.numel(); ++i)
    mean[plan.outIndex[i]] += values[i];
  for (double &m : mean)
    m /= static_cast<double>(plan.groupSize);
  for (int64_t i = 0; i < x.numel(); ++i) {
    double d = values[i] - mean[plan.outIndex[i]];
    sq[plan.outIndex[i]] += d * d;
  }
  auto correction = static_cast<int64_t>(op.getCorrection());
  double divisor =
      static_cast<double>(std::max<int64_t>(plan.groupSize - correction, 0));
  HostTensor r(x.dtype(), plan.resultShape);
  for (int64_t o = 0; o < plan.outCount; ++o)
    r.setFloat(o, sq[o] / divisor);
  frame.setTensor(op.getResult(), std::move(r));
  return success();
}

/// Vector p-norm: p = inf / -inf are max / min of |x| (NaN-propagating),
/// p = 0 counts non-zeros, otherwise (sum |x|^p)^(1/p).
static LogicalResult evalNorm(NormOp op, Frame &frame) {
  const HostTensor &x = frame.tensor(op.getInput());
  ReductionPlan plan = planReduction(x.shape(), op.getDims(), op.getKeepdim());
  double p = op.getP().convertToDouble();
  bool isInf = std::isinf(p);
  if (plan.groupSize == 0 && plan.outCount > 0 && (isInf || p < 0))
    return op.emitOpError() << "computes the " << p
                            << "-norm of an empty set of elements, which "
                               "has no identity";
  std::vector<double> acc(plan.outCount, 0.0);
  std::vector<bool> seen(plan.outCount, false);
  for (int64_t i = 0; i < x.numel(); ++i) {
    double a = std::fabs(x.getFloat(i));
    int64_t o = plan.outIndex[i];
    if (isInf) {
      if (!seen[o] || std::isnan(a))
        acc[o] = a;
      else if (!std::isnan(acc[o]))
        acc[o] = p > 0 ? std::max(acc[o], a) : std::min(acc[o], a);
      seen[o] = true;
    } else if (p == 0) {
      acc[o] += a != 0 ? 1.0 : 0.0;
    } else if (p == 1) {
      acc[o] += a;
    } else if (p == 2) {
      acc[o] += a * a;
    } else {
      acc[o] += std::pow(a, p);
    }
  }
  HostTensor r(x.dtype(), plan.resultShape);
  for (int64_t o = 0; o < plan.outCount; ++o) {
    double v = acc[o];
    if (!isInf && p != 0 && p != 1)
      v = p == 2 ? std::sqrt(v) : std::pow(v, 1.0 / p);
    r.setFloat(o, v);
  }
  frame.setTensor(op.getResult(), std::move(r));
  return success();
}

/// Position of the max (or min) of the line through (o, i): the first
/// occurrence, a NaN beating every number.
static int64_t argExtremum(const HostTensor &x, const DimView &view, int64_t o,
                           int64_t i, bool isMax) {
  int64_t best = 0;
  if (isFloatDType(x.dtype())) {
    double bv = x.getFloat(view.at(o, 0, i));
    for (int64_t j = 1; j < view.size && !std::isnan(bv); ++j) {
      double v = x.getFloat(view.at(o, j, i));
      if (std::isnan(v) || (isMax ? v > bv : v < bv)) {
        bv = v;
        best = j;
      }
    }
    return best;
  }
  int64_t bv = x.getInt(view.at(o, 0, i));
  for (int64_t j = 1; j < view.size; ++j) {
    int64_t v = x.getInt(view.at(o, j, i));
    if (isMax ? v > bv : v < bv) {
      bv = v;
      best = j;
    }
  }
  return best;
}

/// argmax/argmin (one result) and max/min (values and indices).
template <typename OpTy>
static LogicalResult evalArgReduce(OpTy op, Frame &frame, bool isMax) {
  const HostTensor &x = frame.tensor(op.getInput());
  auto dim = static_cast<int64_t>(op.getDim());
  bool keepdim = op.getKeepdim();
  DimView view(x.shape(), dim);
  Dims shape(x.shape());
  if (!shape.empty()) {
    if (keepdim)
      shape[dim] = 1;
    else
      shape.erase(shape.begin() + dim);
  }
  if (view.size == 0 && view.outer * view.inner > 0)
    return emptyReductionError(op.getOperation());
  bool withValues = op->getNumResults() == 2;
  HostTensor values(x.dtype(), shape), indices(DType::I64, shape);
  for (int64_t o = 0; o < view.outer; ++o) {
    for (int64_t i = 0; i < view.inner; ++i) {
      int64_t j = argExtremum(x, view, o, i, isMax);
      int64_t out = o * view.inner + i;
      indices.setInt(out, j);
      copyElement(x, view.at(o, j, i), values, out);
    }
  }
  if (withValues) {
    frame.setTensor(op->getResult(0), std::move(values));
    frame.setTensor(op->getResult(1), std::move(indices));
  } else {
    frame.setTensor(op->getResult(0), std::move(indices));
  }
  return success();
}

/// The k largest (smallest) along `dim`, sorted, ties to the lower index,
/// NaN above every number. `sorted = false` gives the same (sorted) order:
/// PyTorch leaves the order unspecified then.
static LogicalResult evalTopk(TopkOp op, Frame &frame) {
  const HostTensor &x = frame.tensor(op.getInput());
  auto dim = static_cast<int64_t>(op.getDim());
  auto k = static_cast<int64_t>(op.getK());
  bool largest = op.getLargest();
  DimView view(x.shape(), dim);
  if (k > view.size)
    return op.emitOpError() << "k (" << k << ") is larger than the size ("
                            << view.size << ") of dimension " << dim;
  if (x.rank() == 0 && k != 1)
    return op.emitOpError() << "of a 0-d tensor needs k = 1, got " << k;
  Dims shape(x.shape());
  if (!shape.empty())
    shape[dim] = k;
  HostTensor values(x.dtype(), shape), indices(DType::I64, shape);
  bool floats = isFloatDType(x.dtype());
  std::vector<int64_t> order(view.size);
  std::vector<double> fv(view.size);
  std::vector<int64_t> iv(view.size);
  for (int64_t o = 0; o < view.outer; ++o) {
    for (int64_t i = 0; i < view.inner; ++i) {
      for (int64_t j = 0; j < view.size; ++j) {
        if (floats)
          fv[j] = x.getFloat(view.at(o, j, i));
        else
          iv[j] = x.getInt(view.at(o, j, i));
      }
      // Strict "comes before" by value; equal values by index.
      auto before = [&](int64_t a, int64_t b) {
        if (floats) {
          bool na = std::isnan(fv[a]), nb = std::isnan(fv[b]);
          if (na || nb)
            return largest ? (na && !nb) : (!na && nb);
          return largest ? fv[a] > fv[b] : fv[a] < fv[b];
        }
        return largest ? iv[a] > iv[b] : iv[a] < iv[b];
      };
      std::iota(order.begin(), order.end(), 0);
      std::sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
        return before(a, b) || (!before(b, a) && a < b);
      });
      for (int64_t t = 0; t < k; ++t) {
        int64_t out = (o * k + t) * view.inner + i;
        indices.setInt(out, order[t]);
        copyElement(x, view.at(o, order[t], i), values, out);
      }
    }
  }
  frame.setTensor(op.getValues(), std::move(values));
  frame.setTensor(op.getIndices(), std::move(indices));
  return success();
}

EvalResult eval::evalReductionOp(Operation *op, Frame &frame) {
  if (auto sum = dyn_cast<SumOp>(op))
    return evalSum(sum, frame, /*mean=*/false);
  if (auto mean = dyn_cast<MeanOp>(op))
    return evalSum(mean, frame, /*mean=*/true);
  if (auto amax = dyn_cast<AmaxOp>(op))
    return evalExtremum(amax, frame, /*isMax=*/true);
  if (auto amin = dyn_cast<AminOp>(op))
    return evalExtremum(amin, frame, /*isMax=*/false);
  if (auto var = dyn_cast<VarOp>(op))
    return evalVar(var, frame);
  if (auto norm = dyn_cast<NormOp>(op))
    return evalNorm(norm, frame);
  if (auto argmax = dyn_cast<ArgmaxOp>(op))
    return evalArgReduce(argmax, frame, /*isMax=*/true);
  if (auto argmin = dyn_cast<ArgminOp>(op))
    return evalArgReduce(argmin, frame, /*isMax=*/false);
  if (auto max = dyn_cast<MaxOp>(op))
    return evalArgReduce(max, frame, /*isMax=*/true);
  if (auto min = dyn_cast<MinOp>(op))
    return evalArgReduce(min, frame, /*isMax=*/false);
  if (auto topk = dyn_cast<TopkOp>(op))
    return evalTopk(topk, frame);
  return std::nullopt;
}
