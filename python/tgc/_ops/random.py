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


def uniform(tr, like: Value, dtype: torch.dtype) -> Value:
    """Uniform numbers in [0, 1) of `like`'s shape, from the graph's seed
    and the next stream."""
    seed = getattr(tr, "rng_seed", None)
    if seed is None:
        raise Unsupported("random numbers outside a compiled training graph (its "
                          "forward takes a seed per call; an inference trace has none)")
    stream = tr.__dict__.get("rng_streams", 0)
    tr.rng_streams = stream + 1
    shape = list(like.shape)
    dyn = [_index_value(tr, like, d) for d, s in enumerate(shape) if isinstance(s, Dyn)]
    sizes = f" [{', '.join(dyn)}]" if dyn else ""
    rt = format_type(dtype, shape)
    return tr.graph.emit(
        f"tgc.philox_uniform {seed.name} stream = {stream}{sizes} : tensor<i64> -> {rt}",
        [(dtype, shape)], tr.loc())[0]


def _keep_mask(tr, v: Value, keep: float) -> Value:
    """True with probability `keep` per element of `v`'s shape."""
    u = uniform(tr, v, torch.float32)
    return _binary_value(tr, "cmp lt,", u, constant(tr, float(keep), torch.float32), torch.bool)


@op("native_dropout")
def _native_dropout(tr, real, x, p, train=True):
    """(x * mask / (1 - p), mask) with mask true with probability 1 - p; in
    eval (train False) x and a mask of ones."""
    v = tval(tr, x)
    p = float(p)
    if train is False or p == 0.0:
        from .factories import _full_value

        return [v, _full_value(tr, real[1], True, like=v)]
    keep = _keep_mask(tr, v, 1.0 - p)
    zero = constant(tr, 0, v.dtype)
    if p >= 1.0:
        return [_where_values(tr, keep, zero, zero, v.dtype), keep]
    scaled = _binary_value(tr, "mul", v, constant(tr, 1.0 / (1.0 - p), v.dtype), v.dtype)
    return [_where_values(tr, keep, scaled, zero, v.dtype), keep]


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
