"""Random operators of training graphs: dropout's mask
(``native_dropout``, what CUDA's dropout is) and ``bernoulli`` (what the
CPU's dropout decomposes to), from ``tgc.philox_uniform``: Philox4x32-10 of
the graph's seed, a stream per random op and each element's position.

The seed is an input of the compiled forward graph that the caller draws
from PyTorch's default generator on every call (``tgc._autograd``), so a
compiled training step is reproducible under ``torch.manual_seed`` and each
step gets new masks. The masks are not eager's (PyTorch's CPU and CUDA
dropouts differ from each other too; Inductor's are its own as well); the
backward reads the mask the forward saved. Where no seed exists (an
inference trace, ``torch.rand`` in a model) random ops stay graph breaks."""

from __future__ import annotations

import torch

from .._graph import Dyn, Unsupported, Value, format_type
from .core import constant, convert, op, tval
from .elementwise import _binary_value, _where_values
from .shapes import _index_value


def _seed(tr) -> Value:
    """The seed of the graph's random operators. A training forward passes
    one as an input (fx.SEED_INPUT, set as `rng_seed` by its runner); any
    other trace gets a captured 0-d int64 tensor here, which the call path
    replaces with a fresh draw from PyTorch's generator on every call
    (CapturedTensors.for_call; TraceResult.seed_index)."""
    seed = getattr(tr, "rng_seed", None)
    if seed is None:
        t = torch.zeros((), dtype=torch.int64, device=tr.device)
        tr.labels[id(t)] = "rng_seed"
        seed = tr.rng_seed = tr.value_of(t)
        tr.seed_index = len(tr.captured) - 1
    return seed


def uniform(tr, like: Value, dtype: torch.dtype, dims=None) -> Value:
    """Uniform numbers in [0, 1) of `like`'s shape (its dims `dims` only,
    the others of size 1, when given), from the graph's seed and the next
    stream."""
    seed = _seed(tr)
    stream = tr.__dict__.get("rng_streams", 0)
    tr.rng_streams = stream + 1
    shape = [s if dims is None or d in dims else 1 for d, s in enumerate(like.shape)]
    dyn = [_index_value(tr, like, d) for d, s in enumerate(shape) if isinstance(s, Dyn)]
    sizes = f" [{', '.join(dyn)}]" if dyn else ""
    rt = format_type(dtype, shape)
    return tr.graph.emit(
        f"tgc.philox_uniform {seed.name} stream = {stream}{sizes} : tensor<i64> -> {rt}",
        [(dtype, shape)], tr.loc())[0]


def _keep_mask(tr, v: Value, keep: float, dims=None) -> Value:
    """True with probability `keep` per element of `v`'s shape (of its
    dims `dims`, the others of size 1)."""
    u = uniform(tr, v, torch.float32, dims)
    return _binary_value(tr, "cmp lt,", u, constant(tr, float(keep), torch.float32), torch.bool)


def _times_mask(tr, v: Value, keep: Value, scale: float, dtype: torch.dtype) -> Value:
    """v * where(keep, scale, 0) computed in `dtype`, in v's dtype: as
    PyTorch multiplies (a NaN or an infinity dropped is NaN, not 0)."""
    factor = _where_values(tr, keep, constant(tr, scale, dtype), constant(tr, 0, dtype), dtype)
    return convert(tr, _binary_value(tr, "mul", convert(tr, v, dtype), factor, dtype), v.dtype)


def _compute_dtype(dtype: torch.dtype) -> torch.dtype:
    """The accumulate type of CUDA's fused dropout kernel."""
    return torch.float32 if dtype in (torch.float16, torch.bfloat16) else dtype


@op("native_dropout")
def _native_dropout(tr, real, x, p, train=True):
    """(x * mask * scale, mask) with mask true with probability 1 - p and
    scale 1 / (1 - p) (0 when p is 1), as PyTorch's CPU and CUDA kernels:
    the product in float for half types; in eval (train False) x and a
    mask of ones."""
    v = tval(tr, x)
    p = float(p)
    if train is False or p == 0.0:
        from .factories import _full_value

        return [v, _full_value(tr, real[1], True, like=v)]
    keep = _keep_mask(tr, v, 1.0 - p)
    scale = 0.0 if p >= 1.0 else 1.0 / (1.0 - p)
    return [_times_mask(tr, v, keep, scale, _compute_dtype(v.dtype)), keep]


# SELU's alpha * scale (alpha_dropout keeps SELU's mean and variance).
_ALPHA = 1.7580993408473766


def _dropout_of(tr, x, p, training, feature: bool, alpha: bool, what: str):
    """torch.dropout and its feature and alpha forms: PyTorch's
    _dropout_impl (the fused native_dropout for plain dropout of a CUDA
    tensor, whose numbers TGC draws the same way). Identity in eval."""
    v = tval(tr, x)
    p = float(p)
    if not training or p == 0.0:
        return v
    if not 0.0 <= p <= 1.0:
        raise Unsupported(f"{what} probability {p} outside [0, 1] (PyTorch raises)")
    if feature and v.rank < 2:
        raise Unsupported(f"{what} of a tensor of rank {v.rank} (PyTorch raises: "
                          f"feature dropout needs at least 2 dimensions)")
    if not v.dtype.is_floating_point:
        raise Unsupported(f"{what} of a {v.dtype} tensor")
    if not alpha and 0.0 < p < 1.0 and x.is_cuda and not feature:
        return _native_dropout(tr, None, x, p)[0]
    if p >= 1.0:
        # x * 0: NaN and infinities stay NaN, as PyTorch's multiply.
        return _binary_value(tr, "mul", v, constant(tr, 0, v.dtype), v.dtype)
    keep = _keep_mask(tr, v, 1.0 - p, {0, 1} if feature else None)
    if not alpha:
        # noise = bernoulli(1 - p) / (1 - p) in x's dtype (its 1 / (1 - p)
        # as PyTorch rounds it), then x * noise.
        scale = torch.ones((), dtype=v.dtype).div_(1.0 - p).item()
        factor = _where_values(tr, keep, constant(tr, scale, v.dtype),
                               constant(tr, 0, v.dtype), v.dtype)
        return _binary_value(tr, "mul", v, factor, v.dtype)
    # a = 1 / sqrt((alpha^2 p + 1)(1 - p)); b = (noise - 1) * alpha a +
    # alpha a p; noise *= a; x * noise + b, each step rounded to x's dtype
    # (PyTorch's order; a step with a number computes in float for half
    # types, as PyTorch's opmath).
    a = 1.0 / ((_ALPHA * _ALPHA * p + 1) * (1 - p)) ** 0.5
    one, zero = constant(tr, 1, v.dtype), constant(tr, 0, v.dtype)
    noise = _where_values(tr, keep, one, zero, v.dtype)
    b = _with_number(tr, "add", noise, -1.0)
    b = _with_number(tr, "mul", b, _ALPHA * a)
    b = _with_number(tr, "add", b, _ALPHA * a * p)
    noise = _with_number(tr, "mul", noise, a)
    return _binary_value(tr, "add", _binary_value(tr, "mul", v, noise, v.dtype), b, v.dtype)


def _with_number(tr, mnemonic: str, v: Value, number: float) -> Value:
    """`v <op> number` as PyTorch computes a tensor-scalar op: in the
    compute type (float for half types), rounded to v's dtype."""
    ct = _compute_dtype(v.dtype)
    out = _binary_value(tr, mnemonic, convert(tr, v, ct), constant(tr, number, ct), ct)
    return convert(tr, out, v.dtype)


def _dropout_op(name: str, feature: bool, alpha: bool):
    def handler(tr, real, x, p=0.5, training=True, inplace=False, train=None):
        # (torch.dropout(x, p, train), F.dropout(x, p, training, inplace))
        if train is not None:
            training = train
        out = _dropout_of(tr, x, p, training, feature, alpha, name)
        if inplace and training and float(p) != 0.0:
            from .core import _assign

            _assign(tr, x, out)
        return out

    handler.__doc__ = {
        "dropout": "x * noise, noise 0 or 1 / (1 - p) in x's dtype (CUDA: native_dropout's "
                   "x * mask * scale in float); p = 1 as x * 0; identity in eval.",
        "feature_dropout": "dropout with one draw per sample and channel (Dropout1d/2d/3d).",
        "alpha_dropout": "SELU-preserving dropout: x * noise * a + b, each step rounded as "
                         "PyTorch's.",
        "feature_alpha_dropout": "alpha_dropout with one draw per sample and channel.",
    }[name]
    op(name)(handler)


for _name, _feature, _alpha in (("dropout", False, False), ("feature_dropout", True, False),
                                ("alpha_dropout", False, True),
                                ("feature_alpha_dropout", True, True)):
    _dropout_op(_name, _feature, _alpha)


@op("bernoulli")
def _bernoulli(tr, real, x, p=None, generator=None):
    """Ones with probability p (a float, or x's values as probabilities),
    zeros elsewhere, in x's dtype."""
    if generator is not None:
        raise Unsupported("bernoulli with its own generator")
    v = tval(tr, x)
    if p is None:
        u = uniform(tr, v, torch.float32)
        hit = _binary_value(tr, "cmp lt,", u, convert(tr, v, torch.float32), torch.bool)
    elif isinstance(p, torch.Tensor):
        raise Unsupported("bernoulli with a tensor of probabilities")
    else:
        hit = _keep_mask(tr, v, float(p))
    return convert(tr, hit, real.dtype)


@op("bernoulli_")
def _bernoulli_inplace(tr, real, x, p=0.5, generator=None):
    """x.bernoulli_(p): p defaults to 0.5 here (bernoulli(x) reads x's
    values as the probabilities instead)."""
    from .core import _assign

    if isinstance(p, torch.Tensor):
        raise Unsupported("bernoulli_ with a tensor of probabilities")
    out = _bernoulli(tr, real, x, float(p), generator)
    _assign(tr, x, out)
    return out
