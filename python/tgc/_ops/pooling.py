"""Max pooling with indices, and its backward: what a training graph's
forward saves for a ``max_pool2d`` (``aten.max_pool2d_with_indices``) and
what its backward reads (``aten.max_pool2d_with_indices_backward``),
written with elementwise ops, slices and pads so that they fuse.

The forward walks the window's elements in PyTorch's order (rows, then
columns) over strided slices of the padded input, keeping the running
maximum and its flat index ``h * W + w`` into the unpadded input, with the
CPU and CUDA kernels' rule: an element is taken when it is the window's
first inside the input, larger than the maximum so far, or NaN (ties keep
the first; the last NaN wins). The backward is a ``tgc.scatter_add`` of
each output gradient to the input element its saved index names, per
image and channel. Spatial sizes must be static; batch and channels may
be symbolic."""

from __future__ import annotations

from typing import List, Tuple

import torch

from .. import _approximate
from .._graph import Dyn, Unsupported, Value
from .core import constant, convert, op, tval
from .elementwise import _binary_value, _where_values
from .factories import dense_constant
from .nn import _pair
from .shapes import _reshape_to, _slice, pad_value


def _flat_map(tr, rows, cols, width: int) -> Value:
    """[len(rows), len(cols)] i64 constants' sum: row * width + col, the
    flat input index of each (row, col) pair of input coordinates."""
    i64 = torch.int64
    r = dense_constant(tr, torch.as_tensor(rows, dtype=i64).view(-1, 1) * width)
    c = dense_constant(tr, torch.as_tensor(cols, dtype=i64).view(1, -1))
    return _binary_value(tr, "add", r, c, i64)


class _Window:
    """A 2-d pooling window's parameters and the sizes of the last two dims."""

    def __init__(self, v: Value, out_hw, kernel_size, stride, padding, dilation, what: str):
        if v.rank not in (3, 4):
            raise Unsupported(f"{what} of a rank-{v.rank} tensor")
        self.k = _pair(kernel_size)
        self.s = _pair(stride) if stride not in (None, [], ()) else list(self.k)
        self.p = _pair(padding)
        self.d = _pair(dilation)
        self.rank = v.rank
        self.size: List[int] = []
        for i in range(2):
            n = v.shape[v.rank - 2 + i]
            if isinstance(n, Dyn):
                raise Unsupported(f"{what} of a dynamic spatial size")
            self.size.append(int(n))
        self.out = [int(o) for o in out_hw]
        # The padded extent the windows read: PyTorch's padding, and more
        # at the end for ceil_mode's last window (never read past the
        # input: those elements are outside and never taken).
        self.high = [max(0, (self.out[i] - 1) * self.s[i]
                         + (self.k[i] - 1) * self.d[i] + 1 - self.size[i] - self.p[i])
                     for i in range(2)]
        self.padded = [self.size[i] + self.p[i] + self.high[i] for i in range(2)]
        # Each output position's first window element, in input coordinates.
        self.rows = [o * self.s[0] - self.p[0] for o in range(self.out[0])]
        self.cols = [o * self.s[1] - self.p[1] for o in range(self.out[1])]
        self.base = None  # their flat indices as an [OH, OW] value, built once

    def dim(self, i: int) -> int:
        return self.rank - 2 + i

    def maps(self, tr, i: int, j: int) -> Tuple[Value, Value]:
        """For window element (i, j): the flat input index each output
        position reads ([OH, OW] i64) and whether it is inside the input:
        one [OH, OW] index map for the window's first element, offset by
        a scalar, and [OH, 1] / [1, OW] constants for the rows and columns
        inside (a few small operands that fuse into each element's ops)."""
        i64 = torch.int64
        if self.base is None:
            self.base = _flat_map(tr, self.rows, self.cols, self.size[1])
        flat = _binary_value(tr, "add", self.base, constant(
            tr, i * self.d[0] * self.size[1] + j * self.d[1], i64), i64)
        masks = []
        for axis, off, coords, shape in ((0, i, self.rows, (-1, 1)),
                                         (1, j, self.cols, (1, -1))):
            inside = [0 <= c + off * self.d[axis] < self.size[axis] for c in coords]
            masks.append(None if all(inside) else
                         dense_constant(tr, torch.tensor(inside).view(*shape)))
        masks = [m for m in masks if m is not None]
        if not masks:
            return flat, None
        inside = masks[0] if len(masks) == 1 else _binary_value(
            tr, "logical_and", masks[0], masks[1], torch.bool)
        return flat, inside


def max_pool2d_with_indices_value(tr, real, x, kernel_size, stride, padding, dilation,
                                  ceil_mode) -> List[Value]:
    v = tval(tr, x)
    if not v.dtype.is_floating_point:
        raise Unsupported(f"max_pool2d with indices of {v.dtype} tensors")
    w = _Window(v, real[0].shape[-2:], kernel_size, stride, padding, dilation,
                "max_pool2d with indices")
    if any(n <= 0 for n in w.out + w.size):
        raise Unsupported("max_pool2d with indices of an empty input")
    lead = [0] * (v.rank - 2)
    padded = pad_value(tr, v, lead + w.p, lead + w.high)
    dt = v.dtype
    best = constant(tr, float("-inf"), dt)
    index = constant(tr, 0, torch.int64)
    found = False  # whether every output position has taken an element: a bool or a mask
    for i in range(w.k[0]):
        rows = _slice(tr, padded, w.dim(0), i * w.d[0],
                      i * w.d[0] + (w.out[0] - 1) * w.s[0] + 1, w.s[0])
        for j in range(w.k[1]):
            cand = _slice(tr, rows, w.dim(1), j * w.d[1],
                          j * w.d[1] + (w.out[1] - 1) * w.s[1] + 1, w.s[1])
            flat, inside = w.maps(tr, i, j)
            take = _binary_value(tr, "logical_or",
                                 _binary_value(tr, "cmp gt,", cand, best, torch.bool),
                                 _binary_value(tr, "cmp ne,", cand, cand, torch.bool),
                                 torch.bool)
            if found is not True:
                first = constant(tr, True, torch.bool) if found is False else tr.graph.emit(
                    f"tgc.logical_not {found.name} : {found.type}",
                    [(torch.bool, found.shape)], tr.loc())[0]
                take = _binary_value(tr, "logical_or", first, take, torch.bool)
            if inside is not None:
                take = _binary_value(tr, "logical_and", inside, take, torch.bool)
            best = _where_values(tr, take, cand, best, dt)
            index = _where_values(tr, take, flat, index, torch.int64)
            if inside is None or found is True:
                found = True
            elif found is False:
                found = inside
            else:
                found = _binary_value(tr, "logical_or", found, inside, torch.bool)
    # Every output position has an element inside the input (PyTorch's
    # output size rule), so `best` and `index` have the output's shape.
    return [best, index]


@op("max_pool2d_with_indices")
def _max_pool2d_with_indices(tr, real, x, kernel_size, stride=None, padding=0, dilation=1,
                             ceil_mode=False, return_indices=True):
    """aten.max_pool2d_with_indices and F.max_pool2d_with_indices (values and
    indices whatever its return_indices says)."""
    if not isinstance(real, (tuple, list)):
        from .nn import _max_pool2d

        return _max_pool2d(tr, real, x, kernel_size, stride, padding, dilation, ceil_mode)
    return max_pool2d_with_indices_value(tr, real, x, kernel_size, stride, padding, dilation,
                                         ceil_mode)


def _indices_in_windows(indices: torch.Tensor, w: _Window) -> bool:
    """Whether every saved index (of the example, when it has data) is an
    element of its output position's window inside the input, as
    max_pool2d_with_indices makes them. PyTorch's CUDA kernel gathers per
    window element, so it drops the gradient of an index from elsewhere,
    which its CPU kernel and the compiled scatter add where it points: on
    the GPU such indices are a graph break. (Checked on the example; a
    later call's indices are assumed to come from a max pool with the same
    window.)"""
    try:
        idx = indices.detach().to("cpu", torch.int64)
    except Exception:  # a fake or meta tensor: no data to check
        return True
    if idx.numel() == 0:
        return True
    oh = torch.arange(w.out[0]).view(-1, 1)
    ow = torch.arange(w.out[1]).view(1, -1)
    h, c = idx // w.size[1], idx % w.size[1]
    ok = (idx >= 0) & (idx < w.size[0] * w.size[1])
    for pos, o, a in ((h, oh, 0), (c, ow, 1)):
        off = pos - (o * w.s[a] - w.p[a])
        ok &= (off >= 0) & (off % w.d[a] == 0) & (off // w.d[a] < w.k[a])
    return bool(ok.all())


def _scatter_backward(tr, real, g: Value, saved: Value, w: _Window) -> Value:
    """Each output gradient added at the input element its saved index
    names: one tgc.scatter_add along the flattened spatial dims, per image
    and channel (in parallel; on the GPU atomic adds over every output).
    Until 2026-11-28 this was a gather per window element over stride x
    stride phase planes: 10x eager's time on the CPU, 1.8x on the GPU."""
    from .factories import _full_value
    from .scatter import scatter_add_value

    lead = list(g.shape[:-2])
    hw = w.size[0] * w.size[1]
    grads = _reshape_to(tr, g, lead + [w.out[0] * w.out[1]])
    index = _reshape_to(tr, saved, lead + [w.out[0] * w.out[1]])
    zeros = _full_value(tr, real, 0, shape=lead + [hw])
    total = scatter_add_value(tr, zeros, index, convert(tr, grads, real.dtype), len(lead))
    return _reshape_to(tr, total, lead + list(w.size))


@op("max_pool2d_with_indices_backward")
def _max_pool2d_with_indices_backward(tr, real, grad_output, x, kernel_size, stride, padding,
                                      dilation, ceil_mode, indices):
    g, v, saved = tval(tr, grad_output), tval(tr, x), tval(tr, indices)
    if g.rank != v.rank or saved.rank != v.rank:
        raise Unsupported("max_pool2d_with_indices_backward of mismatched ranks")
    w = _Window(v, g.concrete()[-2:], kernel_size, stride, padding, dilation,
                "max_pool2d_with_indices_backward")
    if any(isinstance(n, Dyn) for n in g.shape[-2:]):
        raise Unsupported("max_pool2d_with_indices_backward of a dynamic output size")
    if real.device.type != "cpu":
        _approximate.need_values(tr, indices)
    if real.device.type != "cpu" and not _indices_in_windows(indices, w):
        raise Unsupported("max_pool2d_with_indices_backward of indices outside their "
                          "windows on the GPU (PyTorch's CUDA kernel drops their "
                          "gradients, its CPU kernel adds them where they point)")
    return _scatter_backward(tr, real, g, saved, w)
