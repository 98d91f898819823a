"""Convolutions: 2-d on ``tgc.conv2d``; 1-d as a 2-d one over a unit
height; transposed convolutions (1-d and 2-d) as a convolution of the
input with zeros inserted between its elements (stride), padded by
``dilation * (k - 1) - padding`` (plus ``output_padding`` at the end), with
the weight's in/out channels swapped per group and its window flipped;
``padding="same"``/``"valid"``; unbatched inputs. Sizes keep their
expressions (a Python decision on an output size is a relation guard)."""

from __future__ import annotations

import math
import os
from typing import List, Optional, Sequence

import torch

from .. import _state
from .._graph import Unsupported, Value, format_type
from .core import constant, op, tval
from .elementwise import _binary_value
from .nn import _window_size
from .shapes import _known, _permute, _reshape_to, _slice, _unsqueeze, pad_value


def _ints(x, n: int) -> List[int]:
    if isinstance(x, int):
        return [x] * n
    x = [int(e) for e in x]
    return x * n if len(x) == 1 else x


def conv2d_value(tr, v: Value, w: Value, b: Optional[Value], stride, padding, dilation,
                 groups: int) -> Value:
    """tgc.conv2d of NCHW `v` with OIHW `w` (sizes as expressions)."""
    stride, padding, dilation = _ints(stride, 2), _ints(padding, 2), _ints(dilation, 2)
    if v.rank != 4 or w.rank != 4:
        raise Unsupported("convolutions other than 1-d and 2-d")
    if not v.dtype.is_floating_point:
        raise Unsupported(f"convolution of {v.dtype} tensors")
    hints, k = v.concrete(), w.concrete()
    if hints[1] == 0:
        raise Unsupported("a convolution over 0 input channels")
    out = []
    for i in range(2):
        n = (hints[2 + i] + 2 * padding[i] - dilation[i] * (k[2 + i] - 1) - 1) // stride[i] + 1
        if n <= 0:
            raise Unsupported("a convolution whose output is empty (PyTorch raises)")
        out.append(_window_size(tr, v.shape[2 + i], n, k[2 + i], stride[i], padding[i],
                                dilation[i]))
    shape = [v.shape[0], w.shape[0]] + out
    rt = format_type(v.dtype, shape)
    bias = f" bias({b.name} : {b.type})" if b is not None else ""
    out = tr.graph.emit(
        f"tgc.conv2d {v.name}, {w.name}{bias} stride {stride} padding {padding} "
        f"dilation {dilation} groups = {int(groups)} : {v.type}, {w.type} -> {rt}",
        [(v.dtype, shape)], tr.loc(),
    )[0]
    # How it was computed, for a batch norm after it to fold into it.
    tr.__dict__.setdefault("conv_args", {})[out.name] = (
        v, w, b, stride, padding, dilation, groups)
    return out


def fold_batch_norm(tr, v: Value, mean: Value, var: Value, weight: Optional[Value],
                    bias: Optional[Value], eps: float) -> Optional[Value]:
    """Eval-mode batch norm of `v`, a tgc.conv2d result, folded into the
    convolution: weight * gamma / sqrt(var + eps) per output channel, bias
    (b - mean) * that + beta (computed in the graph from the parameters
    as they are at each call). None when `v` is not a convolution or the
    dtypes are not all f32/f64 (folding in half precision would round the
    scaled weights). The unfolded convolution, left unused, is erased.

    Scaled weights cost a pass over the weights at every call. Where a
    channel has more weights than output elements (cin/groups * kh * kw >
    N * H' * W' at the example sizes: ResNet-18's later stages, 4608
    weights against 64 outputs at 112x112, batch 4) the scale and shift
    apply to the convolution's result instead, v * scale + (beta - mean *
    scale), which fusion puts in the convolution's epilogue. Elsewhere
    (MobileNetV3's depthwise convolutions: 9 or 25 weights a channel) folding
    stays cheaper: a projection's batch norm without an activation after
    it would be a pass of its own over the result."""
    conv = tr.__dict__.get("conv_args", {}).get(v.name)
    params = [p for p in (mean, var, weight, bias) if p is not None]
    if conv is None or v.dtype not in (torch.float32, torch.float64) or \
            any(p.dtype != v.dtype or p.rank != 1 for p in params):
        return None
    x, w, b, stride, padding, dilation, groups = conv
    dt = v.dtype
    cout = w.concrete()[0]

    def arith(m: str, a: Value, c: Value) -> Value:
        return _binary_value(tr, m, a, c, dt)

    var_eps = arith("add", var, constant(tr, eps, dt))
    scale = tr.graph.emit(f"tgc.rsqrt {var_eps.name} : {var_eps.type}",
                          [(dt, var_eps.shape)], tr.loc())[0]
    if weight is not None:
        scale = arith("mul", scale, weight)
    hints = v.concrete()
    if math.prod(w.concrete()[1:]) > hints[0] * hints[2] * hints[3]:
        shift = arith("mul", mean, scale)
        shift = arith("sub", bias, shift) if bias is not None else tr.graph.emit(
            f"tgc.neg {shift.name} : {shift.type}", [(dt, shift.shape)], tr.loc())[0]
        out = arith("mul", v, _reshape_to(tr, scale, [cout, 1, 1]))
        return arith("add", out, _reshape_to(tr, shift, [cout, 1, 1]))
    w2 = arith("mul", w, _reshape_to(tr, scale, [cout, 1, 1, 1]))
    shift = arith("mul", arith("sub", b, mean) if b is not None else
               tr.graph.emit(f"tgc.neg {mean.name} : {mean.type}", [(dt, mean.shape)],
                             tr.loc())[0], scale)
    if bias is not None:
        shift = arith("add", shift, bias)
    return conv2d_value(tr, x, w2, shift, stride, padding, dilation, groups)


def _same_padding(v: Value, w: Value, stride, dilation, dims: int):
    """padding="same": the total d*(k-1) per dim, the odd one at the end
    (PyTorch pads the input explicitly then); returns (v, symmetric part)."""
    if any(s != 1 for s in _ints(stride, dims)):
        raise Unsupported("padding='same' with a stride (PyTorch raises)")
    k = w.concrete()[-dims:]
    dil = _ints(dilation, dims)
    total = [d * (kk - 1) for d, kk in zip(dil, k)]
    return [t // 2 for t in total], [t - t // 2 * 2 for t in total]


def _batched(tr, x, weight, dims: int, what: str):
    """(input with a batch dim, weight, whether the input was unbatched)."""
    v, w = tval(tr, x), tval(tr, weight)
    unbatched = v.rank == dims + 1
    if unbatched:
        v = _unsqueeze(tr, v, 0)
    if v.rank != dims + 2 or w.rank != dims + 2:
        raise Unsupported(f"a {dims}-d {what} of a rank-{v.rank} input")
    return v, w, unbatched


def _unit_height(tr, v: Value, w: Value, dims: int, *params):
    """A 1-d convolution's operands as a 2-d one's over a unit height;
    `params`: (per-dim list, its value along that height) pairs (1 for a
    stride or dilation, 0 for a padding), returned as 2-d lists."""
    if dims == 2:
        return (v, w) + tuple(p for p, _ in params)
    return (_unsqueeze(tr, v, 2), _unsqueeze(tr, w, 2)) + tuple([h] + p for p, h in params)


def _restore(tr, out: Value, dims: int, unbatched: bool) -> Value:
    if dims == 1:
        out = _reshape_to(tr, out, out.shape[:2] + out.shape[3:])
    if unbatched:
        out = _reshape_to(tr, out, out.shape[1:])
    return out


def _conv(tr, real, x, weight, bias, stride, padding, dilation, groups, dims: int) -> Value:
    v, w, unbatched = _batched(tr, x, weight, dims, "convolution")
    b = tval(tr, bias) if bias is not None else None
    if v.dtype != real.dtype:
        raise Unsupported("a convolution with mixed dtypes")
    if isinstance(padding, str):
        if padding == "valid":
            padding = 0
        elif padding == "same":
            padding, extra = _same_padding(v, w, stride, dilation, dims)
            if any(extra):
                v = pad_value(tr, v, [0] * v.rank, [0] * (v.rank - dims) + extra)
        else:
            raise Unsupported(f"convolution padding={padding!r}")
    v, w, stride, padding, dilation = _unit_height(
        tr, v, w, dims, (_ints(stride, dims), 1), (_ints(padding, dims), 0),
        (_ints(dilation, dims), 1))
    out = conv2d_value(tr, v, w, b, stride, padding, dilation, groups)
    return _restore(tr, out, dims, unbatched)


def _flip(tr, w: Value, dims: Sequence[int]) -> Value:
    from .composite import _gather_dim

    for d in dims:
        k = w.concrete()[d]
        if k > 1:
            w = _gather_dim(tr, w, d, list(range(k - 1, -1, -1)))
    return w


def _zero_insert(tr, v: Value, d: int, s: int) -> Value:
    """s - 1 zeros after every element along `d` (the last ones included)."""
    if s == 1:
        return v
    u = _unsqueeze(tr, v, d + 1)
    low = [0] * u.rank
    high = [0] * u.rank
    high[d + 1] = s - 1
    u = pad_value(tr, u, low, high)
    size = v.shape[d]
    hint = v.concrete()[d] * s
    from .core import expr_of

    e = expr_of(size)
    merged = _known(tr, [size], hint, None if e is None else e * s) \
        if not isinstance(size, int) else size * s
    return _reshape_to(tr, u, v.shape[:d] + [merged] + v.shape[d + 1:], {d: [d, d + 1]})


def _pad_or_crop(tr, v: Value, d: int, low: int, high: int) -> Value:
    if low < 0:
        v = _slice(tr, v, d, -low, None, 1)
        low = 0
    if high < 0:
        v = _slice(tr, v, d, 0, v.concrete()[d] + high, 1) if isinstance(v.shape[d], int) \
            else _slice(tr, v, d, 0, high, 1)
        high = 0
    lo = [0] * v.rank
    hi = [0] * v.rank
    lo[d], hi[d] = low, high
    return pad_value(tr, v, lo, hi)


def _conv_transpose(tr, real, x, weight, bias, stride, padding, output_padding, groups,
                    dilation, dims: int) -> Value:
    if isinstance(padding, str):
        raise Unsupported(f"transposed convolution padding={padding!r}")
    v, w, unbatched = _batched(tr, x, weight, dims, "transposed convolution")
    b = tval(tr, bias) if bias is not None else None
    v, w, stride, padding, dilation, output_padding = _unit_height(
        tr, v, w, dims, (_ints(stride, dims), 1), (_ints(padding, dims), 0),
        (_ints(dilation, dims), 1), (_ints(output_padding, dims), 0))
    g = int(groups)
    cin, cout_g, kh, kw = w.concrete()
    k = [kh, kw]
    for i in range(2):
        if output_padding[i] >= max(stride[i], dilation[i]):
            raise Unsupported("output_padding must be smaller than stride or dilation "
                              "(PyTorch raises)")
    # The input with stride - 1 zeros after each element, padded so that a
    # stride-1 convolution with the flipped window computes the transpose.
    u = v
    for i in range(2):
        u = _zero_insert(tr, u, 2 + i, stride[i])
        p = dilation[i] * (k[i] - 1) - padding[i]
        u = _pad_or_crop(tr, u, 2 + i, p, p + output_padding[i] - (stride[i] - 1))
    # Weight (Cin, Cout/g, kh, kw) -> (Cout, Cin/g, kh, kw), window flipped.
    wg = _reshape_to(tr, w, [g, cin // g, cout_g, kh, kw])
    wg = _permute(tr, wg, [0, 2, 1, 3, 4])
    wt = _flip(tr, _reshape_to(tr, wg, [g * cout_g, cin // g, kh, kw]), [2, 3])
    out = conv2d_value(tr, u, wt, b, 1, 0, dilation, g)
    return _restore(tr, out, dims, unbatched)


@op("conv2d")
def _conv2d(tr, real, x, weight, bias=None, stride=1, padding=0, dilation=1, groups=1, *rest):
    """NCHW or unbatched CHW; groups, dilation, padding="same"/"valid"."""
    return _conv(tr, real, x, weight, bias, stride, padding, dilation, groups, 2)


@op("conv1d")
def _conv1d(tr, real, x, weight, bias=None, stride=1, padding=0, dilation=1, groups=1, *rest):
    """A 2-d convolution over a unit height."""
    return _conv(tr, real, x, weight, bias, stride, padding, dilation, groups, 1)


@op("conv_transpose2d", "conv_transpose1d")
def _conv_transpose_h(tr, real, x, weight, bias=None, stride=1, padding=0,
                      output_padding=0, groups=1, dilation=1):
    """A stride-1 convolution of the zero-inserted, padded input with the
    flipped, channel-swapped window; any stride, padding, output_padding,
    groups, dilation."""
    dims = tval(tr, weight).rank - 2
    return _conv_transpose(tr, real, x, weight, bias, stride, padding, output_padding,
                           groups, dilation, dims)


@op("convolution", "_convolution")
def _convolution(tr, real, x, weight, bias, stride, padding, dilation, transposed,
                 output_padding, groups, *rest):
    """aten.convolution's argument order (transposed and output_padding
    come before groups)."""
    dims = tval(tr, weight).rank - 2
    if dims not in (1, 2):
        raise Unsupported(f"{dims}-d convolution")
    if transposed:
        return _conv_transpose(tr, real, x, weight, bias, stride, padding, output_padding,
                               groups, dilation, dims)
    return _conv(tr, real, x, weight, bias, stride, padding, dilation, groups, dims)



def _conv_backward_mode() -> str:
    """TGC_CONV_BACKWARD: "auto" (the default) compiles a convolution's
    backward where cuDNN runs it (CUDA, f32, cuDNN convolutions on: the
    compiled backward's `conv` steps are cuDNN's backward-data and
    backward-filter operations) and leaves it to eager elsewhere (the
    CPU's compiled form is a loop nest per gradient, slower than eager's
    oneDNN kernels); "compiled" everywhere; "eager" nowhere."""
    mode = os.environ.get("TGC_CONV_BACKWARD", "auto")
    if mode not in ("auto", "compiled", "eager"):
        raise Unsupported(f"TGC_CONV_BACKWARD={mode!r} (auto, compiled or eager)")
    return mode


@op("convolution_backward")
def _convolution_backward(tr, real, grad_output, x, weight, bias_sizes, stride, padding,
                          dilation, transposed, output_padding, groups, output_mask):
    """aten.convolution_backward of a 1-d or 2-d convolution: the input's
    gradient as tgc.conv2d_backward_input, the weight's as
    tgc.conv2d_backward_weight, the bias's as a sum of the output's
    gradient over the batch and the spatial dims (each only where
    output_mask asks for it)."""
    mode = _conv_backward_mode()
    g, v, w = tval(tr, grad_output), tval(tr, x), tval(tr, weight)
    if mode == "eager":
        raise Unsupported("convolution_backward (TGC_CONV_BACKWARD=eager)")
    if mode == "auto" and not (grad_output.device.type == "cuda" and g.dtype == torch.float32
                               and _state.cudnn_convolutions()):
        raise Unsupported("convolution_backward off cuDNN: eager's kernels are faster than "
                          "the compiled loop nests (TGC_CONV_BACKWARD=compiled compiles it)")
    if transposed:
        raise Unsupported("the backward of a transposed convolution")
    dims = w.rank - 2
    if dims not in (1, 2) or v.rank != dims + 2 or g.rank != dims + 2:
        raise Unsupported(f"convolution_backward of ranks {g.rank}, {v.rank}, {w.rank}")
    if not g.dtype.is_floating_point or g.dtype != v.dtype or g.dtype != w.dtype:
        raise Unsupported("convolution_backward of mixed or non-float dtypes")
    groups = int(groups)
    stride, padding, dilation = _ints(stride, dims), _ints(padding, dims), _ints(dilation, dims)
    if dims == 1:
        g, v, w = (_unsqueeze(tr, t, 2) for t in (g, v, w))
        stride, padding, dilation = [1] + stride, [0] + padding, [1] + dilation
    if not all(isinstance(s, int) for s in w.shape) or not isinstance(v.shape[1], int):
        raise Unsupported("convolution_backward with symbolic channel or kernel sizes")
    window = f"stride {stride} padding {padding} dilation {dilation} groups = {groups}"
    dt = g.dtype
    out: List[Optional[Value]] = [None, None, None]
    if output_mask[0]:
        if not all(isinstance(s, int) for s in v.shape[2:]):
            raise Unsupported("convolution_backward's input gradient with symbolic image sizes")
        shape = [g.shape[0], v.shape[1]] + v.shape[2:]
        out[0] = tr.graph.emit(
            f"tgc.conv2d_backward_input {g.name}, {w.name} {window} : {g.type}, {w.type} -> "
            f"{format_type(dt, shape)}", [(dt, shape)], tr.loc())[0]
    if output_mask[1]:
        k = w.concrete()
        shape = [k[0], v.shape[1] // groups, k[2], k[3]]
        out[1] = tr.graph.emit(
            f"tgc.conv2d_backward_weight {g.name}, {v.name} kernel [{k[2]}, {k[3]}] {window} : "
            f"{g.type}, {v.type} -> {format_type(dt, shape)}", [(dt, shape)], tr.loc())[0]
    if output_mask[2]:
        from .reductions import sum_value

        out[2] = sum_value(tr, g, [0, 2, 3], dt)
    if dims == 1:
        out[:2] = [None if o is None else _reshape_to(tr, o, o.shape[:2] + o.shape[3:])
                   for o in out[:2]]
    return out
