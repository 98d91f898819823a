//===- NNOps.cpp - softmax, normalizations, attention, conv, pooling ------===//
//
// Neural-network operators written as their textbook formulas in double:
// softmax subtracts the row maximum, layer_norm uses the biased variance,
// attention is softmax(Q K^T * scale + mask) V, convolution and pooling
// loop over windows with PyTorch's output-size and divisor rules.
//
//===----------------------------------------------------------------------===//

#include "ReferenceOps.h"

#include "tgc/Dialect/Tgc/IR/TgcOps.h"

#include <cmath>
#include <cstdint>
#include <limits>

using namespace mlir;
using namespace mlir::tgc;
using namespace mlir::tgc::ref;
using namespace mlir::tgc::ref::eval;

static constexpr double kInf = std::numeric_limits<double>::infinity();

//===----------------------------------------------------------------------===//
// Softmax and normalizations
//===----------------------------------------------------------------------===//

template <typename OpTy>
static LogicalResult evalSoftmax(OpTy op, Frame &frame, bool log) {
  const HostTensor &x = frame.tensor(op.getInput());
  DimView view(x.shape(), static_cast<int64_t>(op.getDim()));
  std::vector<double> v = toDoubles(x), out(v.size());
  for (int64_t o = 0; o < view.outer; ++o)
    for (int64_t i = 0; i < view.inner; ++i) {
      double m = -kInf;
      for (int64_t j = 0; j < view.size; ++j)
        m = std::max(m, v[view.at(o, j, i)]);
      double sum = 0;
      for (int64_t j = 0; j < view.size; ++j)
        sum += std::exp(v[view.at(o, j, i)] - m);
      for (int64_t j = 0; j < view.size; ++j) {
        int64_t p = view.at(o, j, i);
        out[p] = log ? v[p] - m - std::log(sum) : std::exp(v[p] - m) / sum;
      }
    }
  frame.setTensor(op.getResult(), fromDoubles(x.dtype(), x.shape(), out));
  return success();
}

/// A weight or bias must have the shape of the normalized dimensions.
static FailureOr<std::vector<double>>
normalizationParam(Operation *op, Frame &frame, Value param, StringRef name,
                   ArrayRef<int64_t> normalized) {
  if (!param)
    return std::vector<double>();
  const HostTensor &t = frame.tensor(param);
  if (t.shape() != normalized)
    return op->emitOpError()
           << name << " has shape " << shapeStr(t.shape())
           << " but the normalized shape is " << shapeStr(normalized);
  return toDoubles(t);
}

/// Normalizes each row of `input` (its last `normalizedRank` dims) with
/// `normalizeRow`, which is given the weight and bias (empty when absent).
static LogicalResult evalNormalization(
    Operation *op, Frame &frame, Value input, int64_t normalizedRank,
    Value weight, Value bias,
    llvm::function_ref<void(ArrayRef<double> row, ArrayRef<double> w,
                            ArrayRef<double> b, MutableArrayRef<double> out)>
        normalizeRow) {
  const HostTensor &x = frame.tensor(input);
  ArrayRef<int64_t> normalized = x.shape().take_back(normalizedRank);
  FailureOr<std::vector<double>> w =
      normalizationParam(op, frame, weight, "weight", normalized);
  FailureOr<std::vector<double>> b =
      normalizationParam(op, frame, bias, "bias", normalized);
  if (failed(w) || failed(b))
    return failure();
  int64_t group = product(normalized);
  int64_t rows = product(x.shape().drop_back(normalizedRank));
  std::vector<double> v = toDoubles(x), out(v.size());
  for (int64_t r = 0; r < rows; ++r)
    normalizeRow(ArrayRef<double>(v).slice(r * group, group), *w, *b,
                 MutableArrayRef<double>(out).slice(r * group, group));
  frame.setTensor(op->getResult(0), fromDoubles(x.dtype(), x.shape(), out));
  return success();
}

static LogicalResult evalLayerNorm(LayerNormOp op, Frame &frame) {
  double eps = op.getEps().convertToDouble();
  return evalNormalization(op, frame, op.getInput(), op.getNormalizedRank(),
                           op.getWeight(), op.getBias(),
                           [&](ArrayRef<double> row, ArrayRef<double> w,
                               ArrayRef<double> b,
                               MutableArrayRef<double> out) {
                             auto group = static_cast<int64_t>(row.size());
                             double mean = 0, var = 0;
                             for (int64_t i = 0; i < group; ++i)
                               mean += row[i];
                             mean /= static_cast<double>(group);
                             for (int64_t i = 0; i < group; ++i)
                               var += (row[i] - mean) * (row[i] - mean);
                             var /= static_cast<double>(group);
                             double inv = 1.0 / std::sqrt(var + eps);
                             for (int64_t i = 0; i < group; ++i) {
                               double y = (row[i] - mean) * inv;
                               if (!w.empty())
                                 y *= w[i];
                               if (!b.empty())
                                 y += b[i];
                               out[i] = y;
                             }
                           });
}

static LogicalResult evalRmsNorm(RmsNormOp op, Frame &frame) {
  // PyTorch's default eps: the machine epsilon of the input type.
  double eps = op.getEps()
                   ? op.getEps()->convertToDouble()
                   : machineEpsilon(frame.tensor(op.getInput()).dtype());
  return evalNormalization(
      op, frame, op.getInput(), op.getNormalizedRank(), op.getWeight(),
      /*bias=*/Value(),
      [&](ArrayRef<double> row, ArrayRef<double> w, ArrayRef<double>,
          MutableArrayRef<double> out) {
        auto group = static_cast<int64_t>(row.size());
        double sq = 0;
        for (int64_t i = 0; i < group; ++i)
          sq += row[i] * row[i];
        double inv = 1.0 / std::sqrt(sq / static_cast<double>(group) + eps);
        for (int64_t i = 0; i < group; ++i)
          out[i] = row[i] * inv * (w.empty() ? 1.0 : w[i]);
      });
}

//===----------------------------------------------------------------------===//
// Attention
//===----------------------------------------------------------------------===//

static LogicalResult evalAttention(ScaledDotProductAttentionOp op,
                                   Frame &frame) {
  const HostTensor &q = frame.tensor(op.getQuery());
  const HostTensor &k = frame.tensor(op.getKey());
  const HostTensor &v = frame.tensor(op.getValue());
  int64_t L = q.shape()[q.rank() - 2], E = q.shape()[q.rank() - 1];
  int64_t S = k.shape()[k.rank() - 2], Ev = v.shape()[v.rank() - 1];
  if (k.shape()[k.rank() - 1] != E)
    return op.emitOpError()
           << "query and key embedding sizes differ at run "
              "time: "
           << shapeStr(q.shape()) << " vs " << shapeStr(k.shape());
  if (v.shape()[v.rank() - 2] != S)
    return op.emitOpError()
           << "key and value sequence lengths differ at "
              "run time: "
           << shapeStr(k.shape()) << " vs " << shapeStr(v.shape());
  ArrayRef<int64_t> qb = q.shape().drop_back(2), kb = k.shape().drop_back(2),
                    vb = v.shape().drop_back(2);
  FailureOr<Dims> batch =
      broadcastShapes(op, {qb, kb, vb}, "query, key and value batch sizes");
  if (failed(batch))
    return failure();
  std::vector<int64_t> qi = broadcastIndices(qb, *batch),
                       ki = broadcastIndices(kb, *batch),
                       vi = broadcastIndices(vb, *batch);
  Dims scoresShape(*batch);
  scoresShape.push_back(L);
  scoresShape.push_back(S);
  std::vector<int64_t> maskIndex;
  const HostTensor *mask = nullptr;
  if (Value m = op.getMask()) {
    mask = &frame.tensor(m);
    FailureOr<Dims> withMask = broadcastShapes(op, {scoresShape, mask->shape()},
                                               "attention scores and mask");
    if (failed(withMask))
      return failure();
    if (*withMask != scoresShape)
      return op.emitOpError() << "mask " << shapeStr(mask->shape())
                              << " does not broadcast to the attention scores "
                              << shapeStr(scoresShape);
    maskIndex = broadcastIndices(mask->shape(), scoresShape);
  }
  bool boolMask = mask && mask->dtype() == DType::I1;
  double scale = op.getScale() ? op.getScale()->convertToDouble()
                               : 1.0 / std::sqrt(static_cast<double>(E));

  std::vector<double> qv = toDoubles(q), kv = toDoubles(k), vv = toDoubles(v);
  int64_t batches = product(*batch);
  Dims shape(*batch);
  shape.push_back(L);
  shape.push_back(Ev);
  std::vector<double> out(product(shape)), scores(S);
  for (int64_t b = 0; b < batches; ++b) {
    const double *qm = qv.data() + qi[b] * L * E;
    const double *km = kv.data() + ki[b] * S * E;
    const double *vm = vv.data() + vi[b] * S * Ev;
    for (int64_t i = 0; i < L; ++i) {
      double m = -kInf;
      for (int64_t j = 0; j < S; ++j) {
        double s = 0;
        for (int64_t e = 0; e < E; ++e)
          s += qm[i * E + e] * km[j * E + e];
        s *= scale;
        // causal = tril(ones(L, S)): position j is visible from i iff j <= i.
        if (op.getCausal() && j > i)
          s = -kInf;
        if (mask) {
          int64_t at = maskIndex[(b * L + i) * S + j];
          if (boolMask)
            s = mask->getInt(at) ? s : -kInf;
          else
            s += mask->getFloat(at);
        }
        scores[j] = s;
        m = std::max(m, s);
      }
      // A fully masked row gives NaN (exp(-inf - -inf)), as PyTorch's math
      // implementation does.
      double sum = 0;
      for (int64_t j = 0; j < S; ++j) {
        scores[j] = std::exp(scores[j] - m);
        sum += scores[j];
      }
      // The probabilities in the inputs' dtype (bf16, f16: rounded), as
      // PyTorch's math path and the compiled code have them.
      for (int64_t j = 0; j < S; ++j)
        scores[j] = roundToDType(scores[j] / sum, q.dtype());
      for (int64_t c = 0; c < Ev; ++c) {
        double acc = 0;
        for (int64_t j = 0; j < S; ++j)
          acc += scores[j] * vm[j * Ev + c];
        out[(b * L + i) * Ev + c] = acc;
      }
    }
  }
  frame.setTensor(op.getResult(), fromDoubles(q.dtype(), shape, out));
  return success();
}

//===----------------------------------------------------------------------===//
// Convolution and pooling
//===----------------------------------------------------------------------===//

/// PyTorch's output size of a window op (conv output size; with
/// `ceilMode`, pooling_output_shape's rule that the last window starts
/// inside the input or the left padding). nullopt when the window does not
/// fit.
static std::optional<int64_t> windowCount(int64_t in, int64_t kernel,
                                          int64_t stride, int64_t pad,
                                          int64_t dilation, bool ceilMode) {
  int64_t numerator = in + 2 * pad - dilation * (kernel - 1) - 1;
  if (numerator < 0)
    return std::nullopt;
  int64_t out = (numerator + (ceilMode ? stride - 1 : 0)) / stride + 1;
  if (ceilMode && (out - 1) * stride >= in + pad)
    --out;
  return out;
}

namespace {
/// A [N, C, H, W] or unbatched [C, H, W] tensor seen as planes of H x W.
struct Planes {
  int64_t n, c, h, w;
  explicit Planes(ArrayRef<int64_t> shape) {
    bool batched = shape.size() == 4;
    n = batched ? shape[0] : 1;
    c = shape[shape.size() - 3];
    h = shape[shape.size() - 2];
    w = shape[shape.size() - 1];
  }
};
} // namespace

static LogicalResult windowError(Operation *op, ArrayRef<int64_t> shape,
                                 int64_t dim) {
  return op->emitOpError() << "window does not fit spatial dimension " << dim
                           << " of the (padded) input " << shapeStr(shape);
}

static LogicalResult evalConv2d(Conv2dOp op, Frame &frame) {
  const HostTensor &x = frame.tensor(op.getInput());
  const HostTensor &wt = frame.tensor(op.getWeight());
  Planes in(x.shape());
  auto groups = static_cast<int64_t>(op.getGroups());
  int64_t outC = wt.shape()[0], cg = wt.shape()[1];
  int64_t kh = wt.shape()[2], kw = wt.shape()[3];
  if (in.c % groups != 0 || in.c / groups != cg || outC % groups != 0)
    return op.emitOpError()
           << "input " << shapeStr(x.shape()) << " and weight "
           << shapeStr(wt.shape()) << " do not agree for " << groups
           << " groups (needs C = groups * weight dim 1 and O divisible by "
              "groups)";
  std::vector<double> bias(outC, 0.0);
  if (Value b = op.getBias()) {
    const HostTensor &bt = frame.tensor(b);
    if (bt.shape()[0] != outC)
      return op.emitOpError()
             << "bias " << shapeStr(bt.shape()) << " does not match " << outC
             << " output channels";
    bias = toDoubles(bt);
  }
  ArrayRef<int64_t> stride = op.getStride(), pad = op.getPadding(),
                    dil = op.getDilation();
  std::optional<int64_t> oh =
      windowCount(in.h, kh, stride[0], pad[0], dil[0], false);
  std::optional<int64_t> ow =
      windowCount(in.w, kw, stride[1], pad[1], dil[1], false);
  if (!oh || !ow)
    return windowError(op, x.shape(), oh ? 1 : 0);
  Dims shape(x.shape());
  shape[shape.size() - 3] = outC;
  shape[shape.size() - 2] = *oh;
  shape[shape.size() - 1] = *ow;
  std::vector<double> xv = toDoubles(x), wv = toDoubles(wt);
  std::vector<double> out(product(shape));
  int64_t perGroup = outC / groups;
  for (int64_t n = 0; n < in.n; ++n)
    for (int64_t o = 0; o < outC; ++o) {
      int64_t firstC = (o / perGroup) * cg;
      for (int64_t y = 0; y < *oh; ++y)
        for (int64_t xo = 0; xo < *ow; ++xo) {
          double acc = bias[o];
          for (int64_t c = 0; c < cg; ++c)
            for (int64_t ky = 0; ky < kh; ++ky) {
              int64_t iy = y * stride[0] - pad[0] + ky * dil[0];
              if (iy < 0 || iy >= in.h)
                continue;
              for (int64_t kx = 0; kx < kw; ++kx) {
                int64_t ix = xo * stride[1] - pad[1] + kx * dil[1];
                if (ix < 0 || ix >= in.w)
                  continue;
                acc += xv[((n * in.c + firstC + c) * in.h + iy) * in.w + ix] *
                       wv[((o * cg + c) * kh + ky) * kw + kx];
              }
            }
          out[((n * outC + o) * *oh + y) * *ow + xo] = acc;
        }
    }
  frame.setTensor(op.getResult(), fromDoubles(x.dtype(), shape, out));
  return success();
}

/// Both gradients of a convolution walk its multiply-adds: for each
/// (n, o, oh, ow, c, kh, kw) whose window element (ih, iw) is inside the
/// input, `visit(dyIndex, inputIndex, weightIndex)` with flat indices into
/// dy [N, O, H', W'], the input [N, C, H, W] and the weight [O, C/G, kH,
/// kW].
template <typename Visit>
static void forEachConvProduct(ArrayRef<int64_t> dy, ArrayRef<int64_t> in,
                               ArrayRef<int64_t> kernel, int64_t groups,
                               ArrayRef<int64_t> stride, ArrayRef<int64_t> pad,
                               ArrayRef<int64_t> dil, Visit visit) {
  int64_t n = dy[0], outC = dy[1], oh = dy[2], ow = dy[3];
  int64_t c = in[1], h = in[2], w = in[3], cg = c / groups;
  int64_t perGroup = outC / groups;
  for (int64_t b = 0; b < n; ++b)
    for (int64_t o = 0; o < outC; ++o) {
      int64_t firstC = (o / perGroup) * cg;
      for (int64_t y = 0; y < oh; ++y)
        for (int64_t xo = 0; xo < ow; ++xo) {
          int64_t dyIndex = ((b * outC + o) * oh + y) * ow + xo;
          for (int64_t ci = 0; ci < cg; ++ci)
            for (int64_t ky = 0; ky < kernel[0]; ++ky) {
              int64_t iy = y * stride[0] - pad[0] + ky * dil[0];
              if (iy < 0 || iy >= h)
                continue;
              for (int64_t kx = 0; kx < kernel[1]; ++kx) {
                int64_t ix = xo * stride[1] - pad[1] + kx * dil[1];
                if (ix < 0 || ix >= w)
                  continue;
                visit(dyIndex, ((b * c + firstC + ci) * h + iy) * w + ix,
                      ((o * cg + ci) * kernel[0] + ky) * kernel[1] + kx);
              }
            }
        }
    }
}

/// The convolution's sizes and windows must give dy's sizes.
template <typename OpT>
static LogicalResult checkConvGradient(OpT op, ArrayRef<int64_t> dy,
                                       ArrayRef<int64_t> in,
                                       ArrayRef<int64_t> kernel,
                                       int64_t weightOut, int64_t weightIn) {
  auto groups = static_cast<int64_t>(op.getGroups());
  ArrayRef<int64_t> stride = op.getStride(), pad = op.getPadding(),
                    dil = op.getDilation();
  std::optional<int64_t> oh =
      windowCount(in[2], kernel[0], stride[0], pad[0], dil[0], false);
  std::optional<int64_t> ow =
      windowCount(in[3], kernel[1], stride[1], pad[1], dil[1], false);
  if (!oh || !ow || dy[0] != in[0] || dy[2] != *oh || dy[3] != *ow ||
      in[1] % groups != 0 || dy[1] % groups != 0 || weightOut != dy[1] ||
      weightIn != in[1] / groups)
    return op.emitOpError()
           << "output gradient " << shapeStr(dy) << ", input " << shapeStr(in)
           << " and weight [" << weightOut << ", " << weightIn << ", "
           << kernel[0] << ", " << kernel[1]
           << "] are not one convolution's with " << groups << " groups";
  return success();
}

static LogicalResult evalConv2dBackwardInput(Conv2dBackwardInputOp op,
                                             Frame &frame) {
  const HostTensor &dy = frame.tensor(op.getGradOutput());
  const HostTensor &wt = frame.tensor(op.getWeight());
  auto groups = static_cast<int64_t>(op.getGroups());
  ArrayRef<int64_t> resultShape = op.getResult().getType().getShape();
  Dims shape{dy.shape()[0], wt.shape()[1] * groups, resultShape[2],
             resultShape[3]};
  int64_t kernel[2] = {wt.shape()[2], wt.shape()[3]};
  if (failed(checkConvGradient(op, dy.shape(), shape, kernel, wt.shape()[0],
                               wt.shape()[1])))
    return failure();
  std::vector<double> dyv = toDoubles(dy), wv = toDoubles(wt);
  std::vector<double> out(product(shape), 0.0);
  forEachConvProduct(
      dy.shape(), shape, kernel, groups, op.getStride(), op.getPadding(),
      op.getDilation(),
      [&](int64_t d, int64_t i, int64_t w) { out[i] += dyv[d] * wv[w]; });
  frame.setTensor(op.getResult(), fromDoubles(dy.dtype(), shape, out));
  return success();
}

static LogicalResult evalConv2dBackwardWeight(Conv2dBackwardWeightOp op,
                                              Frame &frame) {
  const HostTensor &dy = frame.tensor(op.getGradOutput());
  const HostTensor &x = frame.tensor(op.getInput());
  auto groups = static_cast<int64_t>(op.getGroups());
  ArrayRef<int64_t> kernel = op.getKernel();
  if (x.shape().size() != 4 || x.shape()[1] % groups != 0)
    return op.emitOpError()
           << "input " << shapeStr(x.shape())
           << " has no channels per group for " << groups << " groups";
  Dims shape{dy.shape()[1], x.shape()[1] / groups, kernel[0], kernel[1]};
  if (failed(checkConvGradient(op, dy.shape(), x.shape(), kernel, shape[0],
                               shape[1])))
    return failure();
  std::vector<double> dyv = toDoubles(dy), xv = toDoubles(x);
  std::vector<double> out(product(shape), 0.0);
  forEachConvProduct(
      dy.shape(), x.shape(), kernel, groups, op.getStride(), op.getPadding(),
      op.getDilation(),
      [&](int64_t d, int64_t i, int64_t w) { out[w] += dyv[d] * xv[i]; });
  frame.setTensor(op.getResult(), fromDoubles(dy.dtype(), shape, out));
  return success();
}

/// Max over each window; padding counts as -inf (it is skipped) and NaN
/// propagates, as in PyTorch.
static LogicalResult evalMaxPool2d(MaxPool2dOp op, Frame &frame) {
  const HostTensor &x = frame.tensor(op.getInput());
  Planes in(x.shape());
  ArrayRef<int64_t> k = op.getKernel(), stride = op.getStride(),
                    pad = op.getPadding(), dil = op.getDilation();
  bool ceil = op.getCeilMode();
  std::optional<int64_t> oh =
      windowCount(in.h, k[0], stride[0], pad[0], dil[0], ceil);
  std::optional<int64_t> ow =
      windowCount(in.w, k[1], stride[1], pad[1], dil[1], ceil);
  if (!oh || !ow)
    return windowError(op, x.shape(), oh ? 1 : 0);
  Dims shape(x.shape());
  shape[shape.size() - 2] = *oh;
  shape[shape.size() - 1] = *ow;
  HostTensor r(x.dtype(), shape);
  bool floats = isFloatDType(x.dtype());
  // A window that sees only padding (possible with dilation) gives the
  // type's lowest value, as PyTorch's initial maximum.
  int64_t lowest = x.dtype() == DType::I8    ? INT8_MIN
                   : x.dtype() == DType::I32 ? INT32_MIN
                                             : INT64_MIN;
  int64_t planes = in.n * in.c;
  for (int64_t p = 0; p < planes; ++p)
    for (int64_t y = 0; y < *oh; ++y)
      for (int64_t xo = 0; xo < *ow; ++xo) {
        double fbest = -kInf;
        int64_t ibest = std::numeric_limits<int64_t>::min();
        bool any = false;
        for (int64_t ky = 0; ky < k[0]; ++ky) {
          int64_t iy = y * stride[0] - pad[0] + ky * dil[0];
          if (iy < 0 || iy >= in.h)
            continue;
          for (int64_t kx = 0; kx < k[1]; ++kx) {
            int64_t ix = xo * stride[1] - pad[1] + kx * dil[1];
            if (ix < 0 || ix >= in.w)
              continue;
            int64_t at = (p * in.h + iy) * in.w + ix;
            if (floats) {
              double v = x.getFloat(at);
              if (std::isnan(v) || v > fbest)
                fbest = std::isnan(fbest) ? fbest : v;
            } else {
              ibest = std::max(ibest, x.getInt(at));
            }
            any = true;
          }
        }
        int64_t at = (p * *oh + y) * *ow + xo;
        if (floats)
          r.setFloat(at, fbest);
        else
          r.setInt(at, any ? ibest : lowest);
      }
  frame.setTensor(op.getResult(), std::move(r));
  return success();
}

/// PyTorch's avg_pool2d: the window is clipped to the padded input (for
/// count_include_pad) and then to the input (for the sum and the
/// count_include_pad = false divisor); divisor_override replaces both.
static LogicalResult evalAvgPool2d(AvgPool2dOp op, Frame &frame) {
  const HostTensor &x = frame.tensor(op.getInput());
  Planes in(x.shape());
  ArrayRef<int64_t> k = op.getKernel(), stride = op.getStride(),
                    pad = op.getPadding();
  bool ceil = op.getCeilMode();
  std::optional<int64_t> oh =
      windowCount(in.h, k[0], stride[0], pad[0], 1, ceil);
  std::optional<int64_t> ow =
      windowCount(in.w, k[1], stride[1], pad[1], 1, ceil);
  if (!oh || !ow)
    return windowError(op, x.shape(), oh ? 1 : 0);
  Dims shape(x.shape());
  shape[shape.size() - 2] = *oh;
  shape[shape.size() - 1] = *ow;
  std::optional<uint64_t> divisorOverride = op.getDivisorOverride();
  bool includePad = op.getCountIncludePad();
  std::vector<double> xv = toDoubles(x), out(product(shape));
  int64_t planes = in.n * in.c;
  for (int64_t p = 0; p < planes; ++p)
    for (int64_t y = 0; y < *oh; ++y)
      for (int64_t xo = 0; xo < *ow; ++xo) {
        int64_t h0 = y * stride[0] - pad[0], w0 = xo * stride[1] - pad[1];
        int64_t h1 = std::min(h0 + k[0], in.h + pad[0]);
        int64_t w1 = std::min(w0 + k[1], in.w + pad[1]);
        int64_t poolSize = (h1 - h0) * (w1 - w0);
        h0 = std::max<int64_t>(h0, 0);
        w0 = std::max<int64_t>(w0, 0);
        h1 = std::min(h1, in.h);
        w1 = std::min(w1, in.w);
        int64_t at = (p * *oh + y) * *ow + xo;
        if (h0 >= h1 || w0 >= w1) {
          out[at] = 0;
          continue;
        }
        double sum = 0;
        for (int64_t iy = h0; iy < h1; ++iy)
          for (int64_t ix = w0; ix < w1; ++ix)
            sum += xv[(p * in.h + iy) * in.w + ix];
        double divisor = divisorOverride ? static_cast<double>(*divisorOverride)
                         : includePad
                             ? static_cast<double>(poolSize)
                             : static_cast<double>((h1 - h0) * (w1 - w0));
        out[at] = sum / divisor;
      }
  frame.setTensor(op.getResult(), fromDoubles(x.dtype(), shape, out));
  return success();
}

EvalResult eval::evalNNOp(Operation *op, Frame &frame) {
  if (auto softmax = dyn_cast<SoftmaxOp>(op))
    return evalSoftmax(softmax, frame, /*log=*/false);
  if (auto logSoftmax = dyn_cast<LogSoftmaxOp>(op))
    return evalSoftmax(logSoftmax, frame, /*log=*/true);
  if (auto layerNorm = dyn_cast<LayerNormOp>(op))
    return evalLayerNorm(layerNorm, frame);
  if (auto rmsNorm = dyn_cast<RmsNormOp>(op))
    return evalRmsNorm(rmsNorm, frame);
  if (auto attention = dyn_cast<ScaledDotProductAttentionOp>(op))
    return evalAttention(attention, frame);
  if (auto conv = dyn_cast<Conv2dOp>(op))
    return evalConv2d(conv, frame);
  if (auto grad = dyn_cast<Conv2dBackwardInputOp>(op))
    return evalConv2dBackwardInput(grad, frame);
  if (auto grad = dyn_cast<Conv2dBackwardWeightOp>(op))
    return evalConv2dBackwardWeight(grad, frame);
  if (auto maxPool = dyn_cast<MaxPool2dOp>(op))
    return evalMaxPool2d(maxPool, frame);
  if (auto avgPool = dyn_cast<AvgPool2dOp>(op))
    return evalAvgPool2d(avgPool, frame);
  return std::nullopt;
}
