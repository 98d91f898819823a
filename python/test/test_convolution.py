"""Convolutions (python/tgc/_ops/convolution.py) against eager PyTorch: 1-d
and 2-d, groups, dilation, padding="same"/"valid", unbatched inputs, and
transposed convolutions over stride, padding (cropping past the window
too), output_padding, groups and dilation, static and dynamic sizes."""

import re

import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F

import tgc
from conftest import assert_same, check

TOL = dict(rtol=1e-4, atol=1e-4)
torch.manual_seed(0)
IMG = torch.randn(2, 6, 9, 11)
SEQ = torch.randn(2, 4, 13)


@pytest.mark.parametrize("stride,padding,output_padding,groups,dilation,k", [
    (2, 1, 0, 1, 1, 4),   # the DCGAN/U-Net upsampler
    (2, 0, 0, 1, 1, 2),
    (2, 1, 1, 2, 1, 3),
    (1, 0, 0, 1, 1, 3),
    (3, 2, 1, 3, 2, 3),
    (2, 0, 1, 1, 1, 1),   # k = 1: the zeros past the end are cropped
    (1, 3, 0, 1, 1, 3),   # padding past the window: cropped
    ((2, 1), (1, 0), (1, 0), 1, (1, 2), (3, 2)),
])
def test_conv_transpose2d(stride, padding, output_padding, groups, dilation, k):
    k = k if isinstance(k, tuple) else (k, k)
    w = torch.randn(6, 6 // groups, *k)
    b = torch.randn(6)
    check(lambda x: F.conv_transpose2d(x, w, b, stride, padding, output_padding, groups,
                                       dilation), IMG, **TOL)


def test_conv_transpose_modules_and_1d():
    up = nn.ConvTranspose2d(6, 3, 4, stride=2, padding=1).eval()
    up1 = nn.ConvTranspose1d(4, 2, 3, stride=2, padding=1, output_padding=1).eval()
    with torch.no_grad():
        check(up, IMG, **TOL)
        check(up1, SEQ, **TOL)
        check(lambda x: up1(x[0]), SEQ, **TOL)  # unbatched
        check(lambda x: torch.ops.aten.convolution(x, up.weight, up.bias, [2, 2], [1, 1],
                                                   [1, 1], True, [0, 0], 1), IMG, **TOL)


def test_conv1d_and_padding_modes():
    check(lambda x: F.conv1d(x, torch.ones(5, 4, 3), None, 2, 1, 2), SEQ, **TOL)
    dw = torch.randn(4, 1, 3)
    check(lambda x: F.conv1d(x, dw, None, 1, "same", 1, 4), SEQ, **TOL)
    w = torch.randn(3, 6, 2, 4)  # even kernel: 'same' pads one more at the end
    check(lambda x: F.conv2d(x, w, None, 1, "same"), IMG, **TOL)
    check(lambda x: F.conv2d(x, w, None, 1, "valid"), IMG, **TOL)
    check(lambda x: F.conv2d(x[0], w, None, 1, 1), IMG, **TOL)  # unbatched
    with torch.no_grad():
        check(nn.Conv1d(4, 8, 5, padding=2, dilation=1, groups=2).eval(), SEQ, **TOL)


def test_transposed_convolution_with_dynamic_sizes():
    w = torch.randn(6, 3, 4, 4)

    def f(x):
        y = F.conv_transpose2d(x, w, None, 2, 1)
        return y.relu() if y.shape[2] > 12 else y  # a relation guard, not a value

    c = tgc.compile(f, dynamic=True, fullgraph=True)
    for h in (5, 7, 9, 11):
        x = torch.randn(2, 6, h, h + 2)
        assert_same(c(x), f(x), **TOL)
    assert tgc.explain(c).compiles == 2  # one per branch


def _bn_stack(cin=3, mid=8, padding=0, seed=1):
    """conv -> batch norm -> ReLU -> conv without bias -> batch norm
    without affine, eval mode, with statistics and affine parameters away
    from their defaults."""
    torch.manual_seed(seed)
    m = nn.Sequential(nn.Conv2d(cin, mid, 3, padding=1), nn.BatchNorm2d(mid), nn.ReLU(),
                      nn.Conv2d(mid, 4, 3, padding=padding, bias=False),
                      nn.BatchNorm2d(4, affine=False)).eval()
    for bn in (m[1], m[4]):
        bn.running_mean.normal_()
        bn.running_var.uniform_(0.5, 2)
    with torch.no_grad():
        m[1].weight.normal_()
        m[1].bias.normal_()
    return m


def test_eval_batch_norm_folds_into_the_convolution():
    m = _bn_stack()
    c = tgc.compile(m, fullgraph=True)
    x = torch.randn(2, 3, 10, 10)
    with torch.no_grad():
        assert_same(c(x), m(x), **TOL)
        graph = tgc.explain(c).graphs[0]
        # Each batch norm became a scaled weight and a bias of a new conv2d
        # (the unfolded one is left unused): no normalization of activations.
        assert graph.count("tgc.rsqrt") == 2 and "tensor<8x1x1x1xf32>" in graph
        assert "tgc.sub %v" not in graph.split("tgc.conv2d")[-1]
        # The parameters are read at each call: a changed statistic is used.
        m[1].running_mean.add_(1.0)
        assert_same(c(x), m(x), **TOL)
        assert tgc.explain(c).compiles == 1


def test_eval_batch_norm_scales_the_result_where_weights_outnumber_outputs():
    """A channel with more weights than output elements (here 72 and 144
    against 18 at the example sizes) keeps its weights: the batch norm is a
    scale and a shift of the convolution's result (its epilogue), not a
    pass over the weights at every call. Both forms hold at every size: a
    dynamic batch that makes the outputs outnumber the weights still
    matches."""
    m = _bn_stack(cin=8, mid=16, padding=1, seed=2)
    c = tgc.compile(m, fullgraph=True, dynamic=True)
    x = torch.randn(2, 8, 3, 3)
    with torch.no_grad():
        assert_same(c(x), m(x), **TOL)
        graph = tgc.explain(c).graphs[0]
        assert graph.count("tgc.rsqrt") == 2 and graph.count("tgc.conv2d") == 2
        assert "tensor<16x1x1x1xf32>" not in graph and "tensor<16x1x1xf32>" in graph
        # One scale and one shift of each convolution's result (unfolded,
        # the batch norm would subtract the mean from it first).
        assert len(re.findall(r"tgc\.mul [^:]*: tensor<\?x(?:16|4)x\?x\?xf32>", graph)) == 2
        assert not re.search(r"tgc\.sub [^:]*: tensor<\?x", graph)
        m[1].running_mean.add_(1.0)
        m[4].running_var.mul_(2.0)
        assert_same(c(x), m(x), **TOL)
        x = torch.randn(40, 8, 3, 3)
        assert_same(c(x), m(x), **TOL)
        assert tgc.explain(c).compiles == 1


@pytest.mark.parametrize("conv,shape", [
    (nn.Conv2d(16, 32, 3, padding=1), (3, 16, 20, 40)),       # a tile and a masked one
    (nn.Conv2d(3, 5, 3), (2, 3, 20, 37)),                      # no padding, 5 channels
    (nn.Conv2d(4, 13, (3, 5), padding=(1, 2), dilation=(1, 2), bias=False), (3, 4, 19, 41)),
    (nn.Conv2d(4, 6, 3, stride=(2, 1), padding=1), (1, 4, 40, 33)),
    (nn.Conv2d(4, 9, 3, padding=1), (4, 30, 30)),              # unbatched
    (nn.Conv2d(2, 3, 3, padding=1, padding_mode="reflect"), (2, 2, 17, 19)),
    (nn.Conv2d(4, 6, 3, stride=(1, 2), padding=1), (2, 4, 33, 40)),  # im2col
])
def test_direct_convolutions_match_eager_and_im2col(conv, shape):
    """The CPU's direct convolutions (tgc-to-linalg's direct-convolutions,
    docs/cpu-pipeline.md) against eager and against the im2col product
    they replace, with a ReLU epilogue; the loops are the register tiles."""
    torch.manual_seed(1)
    m = nn.Sequential(conv, nn.ReLU()).eval()
    x = torch.randn(*shape)
    direct = tgc.compile(m, fullgraph=True, options="keep-code=1")
    im2col = tgc.compile(m, fullgraph=True, options="keep-code=1 direct-convolutions=0")
    with torch.no_grad():
        want = m(x)
        assert_same(direct(x), want, **TOL)
        assert_same(im2col(x), want, **TOL)
    # Direct: vector multiply-adds over the windows, no patches (the 6-d
    # buffer of im2col's [N, C, kH, kW, H', W']) where the width's stride
    # is 1.
    patches = re.compile(r"memref<(\d+x){6}f32>")
    code = tgc.explain(direct).specializations[0].code
    assert "vector.fma" in code
    assert bool(patches.search(code)) == (conv.stride[1] != 1)
    assert patches.search(tgc.explain(im2col).specializations[0].code)


def test_direct_convolutions_over_varying_sizes():
    """One compile for every image size (the output sizes `?`: im2col could
    not take both), each against eager; f64 too."""
    torch.manual_seed(2)
    m = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU()).eval()
    c = tgc.compile(m, dynamic=True, fullgraph=True)
    with torch.no_grad():
        for h, w in [(17, 33), (40, 18), (5, 70)]:
            x = torch.randn(2, 3, h, w)
            assert_same(c(x), m(x), **TOL)
    assert tgc.explain(c).compiles == 1
    m64 = nn.Conv2d(3, 4, 3, padding=1).double().eval()
    x64 = torch.randn(2, 3, 17, 17, dtype=torch.float64)
    with torch.no_grad():
        assert_same(tgc.compile(m64, fullgraph=True)(x64), m64(x64), rtol=1e-12, atol=1e-12)
