"""Linear algebra and nn operators: matmul family, linear, normalizations,
scaled dot-product attention, convolution, pooling, cholesky."""

from __future__ import annotations

import torch
from typing import Any, List

from .._graph import Dyn, Unsupported, Value, attr_float, format_type
from .core import (
    COMPOSITIONS,
    as_value,
    broadcast,
    convert,
    derived,
    merge_dims,
    op,
    tval,
)
from .elementwise import (
    _binary_value,
)


def _matmul_value(tr, a: Value, b: Value, real) -> Value:
    ra, rb = a.shape, b.shape
    if a.rank == 1 and b.rank == 1:
        shape: List[Any] = []
    elif b.rank == 1:
        shape = ra[:-1]
    elif a.rank == 1:
        shape = rb[:-2] + [rb[-1]]
    else:
        batch = broadcast([ra[:-2], rb[:-2]], list(real.shape[:-2]))
        shape = batch + [ra[-2], rb[-1]]
    rt = format_type(real.dtype, shape)
    return tr.graph.emit(
        f"tgc.matmul {a.name}, {b.name} : {a.type}, {b.type} -> {rt}", [(real.dtype, shape)], tr.loc()
    )[0]


@op("matmul", "mm")
def _matmul(tr, real, x, other=None, mat2=None):  # matmul(x, other), mm(x, mat2)
    y = mat2 if other is None else other
    return _matmul_value(tr, as_value(tr, x, real.dtype), as_value(tr, y, real.dtype), real)


@op("rmatmul")
def _rmatmul(tr, real, x, y):
    return _matmul(tr, real, y, x)


@op("bmm")
def _bmm(tr, real, x, mat2):
    a, b = tval(tr, x), tval(tr, mat2)
    shape = [merge_dims([a.shape[0], b.shape[0]], real.shape[0]), a.shape[1], b.shape[2]]
    rt = format_type(real.dtype, shape)
    return tr.graph.emit(f"tgc.bmm {a.name}, {b.name} : {a.type}, {b.type} -> {rt}", [(real.dtype, shape)], tr.loc())[0]


@op("addmm")
def _addmm(tr, real, bias, mat1, mat2, beta=1, alpha=1):
    if beta != 1 or alpha != 1:
        raise Unsupported("addmm with alpha/beta")
    m = _matmul_value(tr, tval(tr, mat1), tval(tr, mat2), real)
    return _binary_value(tr, "add", m, tval(tr, bias), real.dtype)


@op("linear")
def _linear(tr, real, x, weight, bias=None):
    a, w = tval(tr, x), tval(tr, weight)
    if a.rank == 0 or w.rank not in (1, 2):
        raise Unsupported(f"linear of a rank-{a.rank} input and a rank-{w.rank} weight")
    if a.rank == 1 or w.rank == 1:
        # PyTorch's 1-d forms (a vector input, a vector weight: a dot
        # product): the 2-d linear on [1, in] views, then the 1-sized dims
        # dropped, then the bias.
        from .elementwise import _binary_value
        from .shapes import _reshape_to

        a2 = _reshape_to(tr, a, [1, a.shape[0]]) if a.rank == 1 else a
        w2 = _reshape_to(tr, w, [1, w.shape[0]]) if w.rank == 1 else w
        shape = list(a2.shape[:-1]) + [w2.shape[0]]
        rt = format_type(real.dtype, shape)
        out = tr.graph.emit(f"tgc.linear {a2.name}, {w2.name} : {a2.type}, {w2.type} -> {rt}",
                            [(real.dtype, shape)], tr.loc())[0]
        final = (list(a.shape[:-1]) if a.rank > 1 else []) + \
            ([w.shape[0]] if w.rank == 2 else [])
        out = _reshape_to(tr, out, final)
        if bias is not None:
            out = _binary_value(tr, "add", out, tval(tr, bias), real.dtype)
        return out
    shape = list(a.shape[:-1]) + [w.shape[0]]
    rt = format_type(real.dtype, shape)
    if bias is not None:
        b = tval(tr, bias)
        return tr.graph.emit(
            f"tgc.linear {a.name}, {w.name}, {b.name} : {a.type}, {w.type}, {b.type} -> {rt}",
            [(real.dtype, shape)], tr.loc(),
        )[0]
    return tr.graph.emit(
        f"tgc.linear {a.name}, {w.name} : {a.type}, {w.type} -> {rt}", [(real.dtype, shape)], tr.loc()
    )[0]


def _norm_op(tr, mnemonic, x, normalized_shape, eps, **operands):
    """A normalization over the last dims with optional affine operands
    (`weight(...)`, `bias(...)` in that order)."""
    v = tval(tr, x)
    parts = ""
    for key, t in operands.items():
        if t is not None:
            o = tval(tr, t)
            parts += f" {key}({o.name} : {o.type})"
    n = len(list(normalized_shape))
    return tr.graph.emit(
        f"{mnemonic} {v.name}{parts} normalized_rank = {n} eps = {attr_float(eps)} : {v.type}",
        [(v.dtype, v.shape)], tr.loc(),
    )[0]


@op("layer_norm", "native_layer_norm")
def _layer_norm(tr, real, x, normalized_shape, weight=None, bias=None, eps=1e-5, *rest):
    if not isinstance(real, tuple):
        return _norm_op(tr, "tgc.layer_norm", x, normalized_shape, eps, weight=weight, bias=bias)
    # aten.native_layer_norm also returns the mean and 1 / sqrt(var + eps)
    # over the normalized dims (kept as size 1), in float for half inputs:
    # what the backward of a training graph reads (tgc._autograd). The
    # output is computed from those same statistics, as ATen's kernel does:
    # a layer norm next to a separate mean and variance made the forward's
    # row kernel reduce each row five times instead of twice (GPT-2's
    # dropout + residual + layer norm kernels, 74 us each on the H200).
    # Half inputs compute in float (ATen's opmath type).
    v = tval(tr, x)
    dt = torch.float32 if v.dtype in (torch.float16, torch.bfloat16) else v.dtype
    xv = convert(tr, v, dt)
    n = len(list(normalized_shape))
    mean = _mean_over_last(tr, xv, n)
    centered = _binary_value(tr, "sub", xv, mean, dt)
    var = _mean_over_last(tr, _binary_value(tr, "mul", centered, centered, dt), n)
    var_eps = _binary_value(tr, "add", var, as_value(tr, eps, dt), dt)
    rstd = tr.graph.emit(f"tgc.rsqrt {var_eps.name} : {var_eps.type}",
                         [(dt, var_eps.shape)], tr.loc())[0]
    out = _binary_value(tr, "mul", centered, rstd, dt)
    for key, t in (("mul", weight), ("add", bias)):
        if t is not None:
            out = _binary_value(tr, key, out, convert(tr, tval(tr, t), dt), dt)
    return [convert(tr, out, v.dtype), convert(tr, mean, real[1].dtype),
            convert(tr, rstd, real[2].dtype)]


def _mean_over_last(tr, v: Value, n: int) -> Value:
    """The mean over the last `n` dims, kept as size 1."""
    dims = list(range(v.rank - n, v.rank))
    shape = [1 if i in dims else s for i, s in enumerate(v.shape)]
    rt = format_type(v.dtype, shape)
    return tr.graph.emit(f"tgc.mean {v.name} dims {dims} keepdim : {v.type} -> {rt}",
                         [(v.dtype, shape)], tr.loc())[0]


@op("rms_norm")
def _rms_norm(tr, real, x, normalized_shape, weight=None, eps=None):
    if eps is None:
        eps = torch.finfo(x.dtype).eps
    return _norm_op(tr, "tgc.rms_norm", x, normalized_shape, eps, weight=weight)


def _repeat_heads(tr, v: Value, groups: int) -> Value:
    """[..., H, S, E] -> [..., H * groups, S, E], each head repeated
    `groups` times in a row (repeat_interleave on dim -3: enable_gqa)."""
    from .shapes import _reshape_to, _unsqueeze

    if groups == 1:
        return v
    u = _unsqueeze(tr, v, v.rank - 2)  # [..., H, 1, S, E]
    shape = list(u.shape)
    shape[-3] = groups
    rt = format_type(v.dtype, shape)
    e = tr.graph.emit(f"tgc.expand {u.name} : {u.type} -> {rt}", [(v.dtype, shape)],
                      tr.loc())[0]
    h = v.shape[-3]
    if not isinstance(h, int):
        raise Unsupported("enable_gqa with a dynamic number of heads")
    return _reshape_to(tr, e, list(v.shape[:-3]) + [h * groups] + list(v.shape[-2:]),
                       {v.rank - 3: [v.rank - 3, v.rank - 2]})


def _sdpa_math(q, k, v, attn_mask=None, dropout_p=0.0, is_causal=False, scale=None,
               enable_gqa=False):
    """PyTorch's math attention (_scaled_dot_product_attention_math), traced
    for attention with dropout: q and k scaled by sqrt(scale) each, the
    causal or boolean mask as -inf, the softmax (0 for a row masked
    whole, as _safe_softmax), training dropout of the weights
    (tgc/_ops/random.py), then the product with v."""
    import math

    s = 1.0 / math.sqrt(q.size(-1)) if scale is None else float(scale)
    factor = math.sqrt(abs(s))
    q = q * (-factor if s < 0 else factor)
    if is_causal:
        if attn_mask is not None:
            raise RuntimeError("_scaled_dot_product_attention: Explicit attn_mask should "
                               "not be set when is_causal=True")
        attn_mask = torch.ones(q.size(-2), k.size(-2), dtype=torch.bool,
                               device=q.device).tril()
    if attn_mask is not None and attn_mask.dtype == torch.bool:
        attn_mask = torch.zeros(attn_mask.shape, dtype=q.dtype, device=q.device).masked_fill(
            attn_mask.logical_not(), float("-inf"))
    if enable_gqa and k.size(-3) != q.size(-3):
        k = k.repeat_interleave(q.size(-3) // k.size(-3), -3)
        v = v.repeat_interleave(q.size(-3) // v.size(-3), -3)
    attn = torch.matmul(q, k.transpose(-2, -1) * factor)
    if attn_mask is not None:
        attn = attn + attn_mask
        whole = (attn == float("-inf")).all(-1, keepdim=True)
        attn = torch.softmax(attn, -1).masked_fill(whole, 0.0)
    else:
        attn = torch.softmax(attn, -1)
    attn = torch.dropout(attn, dropout_p, True)
    return torch.matmul(attn, v)


COMPOSITIONS["scaled_dot_product_attention"] = (
    lambda q, k, v, attn_mask=None, dropout_p=0.0, *a, **kw:
    _sdpa_math if dropout_p else None)


@op("scaled_dot_product_attention")
def _sdpa(tr, real, q, k, v, attn_mask=None, dropout_p=0.0, is_causal=False, scale=None, **kw):
    if dropout_p:  # (traced through _sdpa_math instead)
        raise Unsupported("attention dropout")
    qv, kv, vv = tval(tr, q), tval(tr, k), tval(tr, v)
    if kw.get("enable_gqa") and qv.rank >= 3 and kv.shape[-3] != qv.shape[-3]:
        hq, hk = qv.shape[-3], kv.shape[-3]
        if not isinstance(hq, int) or not isinstance(hk, int) or hq % hk:
            raise Unsupported("enable_gqa with dynamic or non-dividing head counts")
        kv, vv = _repeat_heads(tr, kv, hq // hk), _repeat_heads(tr, vv, hq // hk)
    shape = list(qv.shape[:-1]) + [vv.shape[-1]]
    rt = format_type(qv.dtype, shape)
    extra = ""
    if attn_mask is not None:
        if is_causal:
            raise Unsupported("attention with both attn_mask and is_causal")
        m = tval(tr, attn_mask)
        if m.dtype != torch.bool and m.dtype != qv.dtype:
            m = convert(tr, m, qv.dtype)
        extra += f" mask({m.name} : {m.type})"
    if is_causal:
        extra += " causal"
    if scale is not None:
        extra += f" {{scale = {attr_float(scale)} : f64}}"
    out = tr.graph.emit(
        f"tgc.scaled_dot_product_attention {qv.name}, {kv.name}, {vv.name}{extra} : {qv.type}, {kv.type}, {vv.type} -> {rt}",
        [(qv.dtype, shape)], tr.loc(),
    )[0]
    if attn_mask is not None and _SAFE_SOFTMAX:
        out = _zero_fully_masked_rows(tr, out, m)
    return out


# PyTorch 2.5 and later give 0 (not NaN) for a query whose keys are all
# masked out (aten._safe_softmax); tgc.scaled_dot_product_attention is the
# plain softmax, so the tracer zeroes those rows where PyTorch does.
_SAFE_SOFTMAX = hasattr(torch.ops.aten, "_safe_softmax")


def _zero_fully_masked_rows(tr, out: Value, m: Value) -> Value:
    from .core import constant
    from .elementwise import _where_values

    if m.dtype == torch.bool:
        keep = m
    else:  # an additive mask: -inf masks out
        keep = _binary_value(tr, "cmp ne,", m, constant(tr, float("-inf"), m.dtype),
                             torch.bool)
    as_int = convert(tr, keep, torch.int32)
    shape = list(as_int.shape[:-1]) + [1]
    rt = format_type(torch.int32, shape)
    any_key = tr.graph.emit(
        f"tgc.amax {as_int.name} dims [{as_int.rank - 1}] keepdim : {as_int.type} -> {rt}",
        [(torch.int32, shape)], tr.loc())[0]
    live = _binary_value(tr, "cmp gt,", any_key, constant(tr, 0, torch.int32), torch.bool)
    return _where_values(tr, live, out, constant(tr, 0, out.dtype), out.dtype)


@op("batch_norm", "_native_batch_norm_legit_no_training", "native_batch_norm",
    "_native_batch_norm_legit")
def _batch_norm(tr, real, x, *args, **kw):
    """Inference batch norm: (x - mean) / sqrt(var + eps) * weight + bias
    over dim 1, with the running statistics."""
    from .shapes import _reshape_to

    aten = isinstance(real, tuple)  # the aten forms return (out, mean, invstd)
    if aten:
        # _native_batch_norm_legit_no_training(x, w, b, mean, var, momentum, eps);
        # native_batch_norm / _native_batch_norm_legit add `training`.
        names = ["weight", "bias", "running_mean", "running_var"] + (
            ["training"] if len(args) == 7 else []) + ["momentum", "eps"]
    elif len(args) >= 8:
        # torch.batch_norm(x, w, b, mean, var, training, momentum, eps, cudnn)
        names = ["weight", "bias", "running_mean", "running_var", "training", "momentum",
                 "eps", "cudnn_enabled"]
    else:
        # F.batch_norm(x, running_mean, running_var, weight, bias, training,
        # momentum, eps)
        names = ["running_mean", "running_var", "weight", "bias", "training", "momentum",
                 "eps"]
    p = dict(zip(names, args))
    p.update(kw)
    if p.get("training"):
        raise Unsupported("batch_norm in training mode (batch statistics, running-stat updates)")
    mean, var = p.get("running_mean"), p.get("running_var")
    if mean is None or var is None:
        raise Unsupported("batch_norm without running statistics")
    v = tval(tr, x)
    dt = real[0].dtype if aten else real.dtype
    if v.rank < 2:
        raise Unsupported("batch_norm of a tensor of rank < 2")
    c = v.shape[1]

    def per_channel(t):
        w = convert(tr, tval(tr, t), dt)
        return _reshape_to(tr, w, [c] + [1] * (v.rank - 2))

    eps = float(p.get("eps", 1e-5))
    out = None
    if v.rank == 4 and v.dtype == dt:
        from .convolution import fold_batch_norm

        opt = {k: tval(tr, p[k]) if p.get(k) is not None else None
               for k in ("weight", "bias")}
        out = fold_batch_norm(tr, v, tval(tr, mean), tval(tr, var), opt["weight"],
                              opt["bias"], eps)
    if out is not None:
        return [out] + [_empty_stat(tr, t) for t in real[1:]] if aten else out
    xv = convert(tr, v, dt)
    centered = _binary_value(tr, "sub", xv, per_channel(mean), dt)
    var_eps = _binary_value(tr, "add", per_channel(var), as_value(tr, eps, dt), dt)
    rstd = tr.graph.emit(f"tgc.rsqrt {var_eps.name} : {var_eps.type}",
                         [(dt, var_eps.shape)], tr.loc())[0]
    out = _binary_value(tr, "mul", centered, rstd, dt)
    if p.get("weight") is not None:
        out = _binary_value(tr, "mul", out, per_channel(p["weight"]), dt)
    if p.get("bias") is not None:
        out = _binary_value(tr, "add", out, per_channel(p["bias"]), dt)
    if aten:
        return [out] + [_empty_stat(tr, t) for t in real[1:]]
    return out


def _empty_stat(tr, t: torch.Tensor):
    """A saved statistic of aten's batch norm: without training an empty
    tensor (PyTorch's CPU and CUDA kernels); anything else is a result TGC
    does not compute, reported if it is used."""
    from .factories import dense_constant

    return dense_constant(tr, t) if t.numel() == 0 else None


def _pair(x, n=2) -> List[int]:
    if isinstance(x, int):
        return [x] * n
    x = list(x)
    return x * n if len(x) == 1 else [int(e) for e in x]


def _window_size(tr, size, value: int, k: int, s: int, p: int, d: int):
    """The output size of a sliding window (convolution, pooling without
    ceil_mode) over `size`: (size + 2p - d(k - 1) - 1) // s + 1, as an
    expression of the input sizes when `size` has one (a Python decision
    on it is then a relation guard, not a specialization)."""
    from .core import expr_of

    e = expr_of(size) if isinstance(size, Dyn) else None
    if e is None:
        return derived([size], value)
    out = (e + (2 * p - d * (k - 1) - 1)).floordiv(s) + 1
    return tr.dyn_by_expr.get(out) or derived([size], value, out)


def _pool_shape(v: Value, real) -> List[Any]:
    return list(v.shape[:-2]) + [derived([v.shape[-2 + i]], real.shape[-2 + i]) for i in range(2)]


@op("max_pool2d")
def _max_pool2d(tr, real, x, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    if return_indices:
        from .pooling import max_pool2d_with_indices_value

        return max_pool2d_with_indices_value(tr, real, x, kernel_size, stride, padding,
                                             dilation, ceil_mode)
    return _max_pool2d_value(tr, tval(tr, x), real, kernel_size, stride, padding, dilation,
                             ceil_mode)


def _max_pool2d_value(tr, v, real, kernel_size, stride, padding, dilation, ceil_mode):
    stride = kernel_size if stride is None or stride == [] else stride
    for size, out in zip(v.shape[-2:], real.shape[-2:]):
        if out == 0 and isinstance(size, int) and size > 0:
            # PyTorch 1.13's max_pool1d without grad has no window there and
            # returns an empty result (2.x raises): eager's, through a graph
            # break (tgc.max_pool2d takes at least one window).
            raise Unsupported("a max pool without a window (an empty result)")
    shape = _pool_shape(v, real)
    rt = format_type(v.dtype, shape)
    cm = " {ceil_mode}" if ceil_mode else ""
    return tr.graph.emit(
        f"tgc.max_pool2d {v.name} kernel {_pair(kernel_size)} stride {_pair(stride)} padding {_pair(padding)} "
        f"dilation {_pair(dilation)}{cm} : {v.type} -> {rt}",
        [(v.dtype, shape)], tr.loc(),
    )[0]


@op("avg_pool2d")
def _avg_pool2d(tr, real, x, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True, divisor_override=None):
    v = tval(tr, x)
    if not v.dtype.is_floating_point:
        # PyTorch sums integers and divides with truncation: in f64 (exact
        # for the sums of any realistic window), converted back.
        if v.dtype == torch.bool:
            raise Unsupported("avg_pool2d of bool tensors")
        f = convert(tr, v, torch.float64)
        pooled = _avg_pool2d_value(tr, f, real, kernel_size, stride, padding, ceil_mode,
                                   count_include_pad, divisor_override)
        return convert(tr, pooled, real.dtype)
    return _avg_pool2d_value(tr, v, real, kernel_size, stride, padding, ceil_mode,
                             count_include_pad, divisor_override)


def _avg_pool2d_value(tr, v, real, kernel_size, stride, padding, ceil_mode,
                      count_include_pad, divisor_override):
    stride = kernel_size if stride is None or stride == [] else stride
    shape = _pool_shape(v, real)
    rt = format_type(v.dtype, shape)
    attrs = []
    if ceil_mode:
        attrs.append("ceil_mode")
    if not count_include_pad:
        attrs.append("count_include_pad = false")
    if divisor_override:
        attrs.append(f"divisor_override = {int(divisor_override)} : i64")
    a = (" {" + ", ".join(attrs) + "}") if attrs else ""
    return tr.graph.emit(
        f"tgc.avg_pool2d {v.name} kernel {_pair(kernel_size)} stride {_pair(stride)} padding {_pair(padding)}{a} : {v.type} -> {rt}",
        [(v.dtype, shape)], tr.loc(),
    )[0]


@op("cholesky", "linalg_cholesky")
def _cholesky(tr, real, x, upper=False):
    v = tval(tr, x)
    up = " upper" if upper else ""
    return tr.graph.emit(f"tgc.cholesky {v.name}{up} : {v.type}", [(v.dtype, v.shape)], tr.loc())[0]
