"""The dtype audit: every op family over every dtype TGC compiles (float16,
bfloat16, float32, float64, int8, uint8, int32, int64, bool), whole-graph
(fullgraph=True), against eager PyTorch on the same device. A case runs
where eager PyTorch runs it (a case eager rejects is skipped); TGC must
compile it whole and match. Then uint8's own cases: wrapping, guards that
tell it from int8, graph breaks and in-place updates. On the CPU machine this
is Debian's PyTorch 1.13 on the CPU; on the GPU machine CUDA as well."""

import pytest
import torch

import tgc
from conftest import cuda_ready

DTYPES = [torch.float16, torch.bfloat16, torch.float32, torch.float64, torch.int8,
          torch.uint8, torch.int32, torch.int64, torch.bool]
DEVICES = ["cpu"] + (["cuda"] if cuda_ready() else [])


def _input(dtype, shape, device, seed):
    g = torch.Generator().manual_seed(seed)
    if dtype == torch.bool:
        t = torch.rand(shape, generator=g) > 0.5
    elif dtype.is_floating_point:
        t = (torch.randn(shape, generator=g) * 3).to(dtype)
    elif dtype == torch.uint8:
        t = torch.randint(0, 256, shape, generator=g, dtype=torch.int64).to(dtype)
    elif dtype == torch.int8:
        t = torch.randint(-128, 128, shape, generator=g, dtype=torch.int64).to(dtype)
    else:
        t = torch.randint(-1000, 1000, shape, generator=g, dtype=torch.int64).to(dtype)
    return t.to(device)


UNARY = {
    "neg": lambda x: -x, "abs": torch.abs, "relu": torch.relu, "exp": torch.exp,
    "log1p_abs": lambda x: torch.log1p(x.abs()), "sqrt_abs": lambda x: x.abs().sqrt(),
    "sigmoid": torch.sigmoid, "tanh": torch.tanh, "sin": torch.sin,
    "floor": torch.floor, "round": torch.round, "sign": torch.sign,
    "square": lambda x: x * x, "not": torch.logical_not, "to_float": lambda x: x.float(),
    "to_int64": lambda x: x.long(), "to_uint8": lambda x: x.to(torch.uint8),
    "to_bool": lambda x: x.bool(), "to_half": lambda x: x.half(),
    "clamp": lambda x: x.clamp(-5, 100), "clamp_min": lambda x: x.clamp_min(3),
    "sum": lambda x: x.sum(1), "sum_all": torch.sum, "amax": lambda x: x.amax(0),
    "amin": lambda x: x.amin(1), "max_dim": lambda x: x.max(1),
    "argmax": lambda x: x.argmax(1), "mean": lambda x: x.mean(1),
    "cumsum": lambda x: x.cumsum(1), "prod": lambda x: x.prod(1),
    "any": lambda x: x.any(1), "all": lambda x: x.all(0),
    "softmax": lambda x: x.softmax(-1), "add_scalar": lambda x: x + 3,
    "mul_scalar": lambda x: x * 2, "div_scalar": lambda x: x / 4,
    "floordiv_scalar": lambda x: x // 3, "rem_scalar": lambda x: x % 5,
    "cmp_scalar": lambda x: x > 1, "eq": lambda x: x == x.flip(0),
    "where": lambda x: torch.where(x > 0, x, x.flip(1)),
    "masked_fill": lambda x: x.masked_fill(x > 1, 0),
    "transpose_reshape": lambda x: x.t().reshape(-1), "cat": lambda x: torch.cat([x, x], 1),
    "pad": lambda x: torch.nn.functional.pad(x, (1, 2)),
    "index_select": lambda x: x.index_select(1, torch.tensor([2, 0], device=x.device)),
    "gather": lambda x: x.gather(1, torch.zeros(4, 3, dtype=torch.long, device=x.device)),
    "topk": lambda x: x.topk(2, 1), "flip": lambda x: x.flip(1),
    "roll": lambda x: x.roll(1, 0), "tril": torch.tril, "expand": lambda x: x[:, :1].expand(4, 6),
    "matmul": lambda x: x @ x.t(), "pow2": lambda x: x.pow(2),
}
BINARY = {
    "add": torch.add, "sub": torch.sub, "mul": torch.mul, "div": torch.div,
    "floor_divide": lambda a, b: torch.div(a, b.abs() + 1, rounding_mode="floor"),
    "trunc_divide": lambda a, b: torch.div(a, b.abs() + 1, rounding_mode="trunc"),
    "remainder": lambda a, b: torch.remainder(a, b.abs() + 1),
    "maximum": torch.maximum, "minimum": torch.minimum, "lt": torch.lt, "ne": torch.ne,
    "logical_and": torch.logical_and, "broadcast_add": lambda a, b: a + b[:1],
}
def _compare(got, want, dtype):
    if isinstance(want, (tuple, list)):
        assert isinstance(got, (tuple, list)) and len(got) == len(want)
        for g, w in zip(got, want):
            _compare(g, w, dtype)
        return
    assert got.dtype == want.dtype and got.shape == want.shape, (got, want)
    if want.dtype.is_floating_point:
        tol = {torch.float16: 2e-3, torch.bfloat16: 2e-2}.get(want.dtype, 1e-5)
        torch.testing.assert_close(got.float(), want.float(), rtol=tol, atol=tol,
                                   equal_nan=True)
    else:
        assert torch.equal(got, want), (got, want)


def _run(fn, args, case, dtype, device):
    try:
        want = fn(*args)
    except (RuntimeError, TypeError):
        pytest.skip("eager PyTorch does not run it")
    got = tgc.compile(fn, fullgraph=True)(*args)
    _compare(got, want, dtype)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("case", sorted(UNARY))
def test_unary(case, dtype, device):
    _run(UNARY[case], [_input(dtype, (4, 6), device, 1)], case, dtype, device)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("case", sorted(BINARY))
def test_binary(case, dtype, device):
    _run(BINARY[case], [_input(dtype, (4, 6), device, 1), _input(dtype, (4, 6), device, 2)],
         case, dtype, device)


# -- uint8 ---------------------------------------------------------------------


def test_uint8_wraps_like_pytorch():
    a = torch.tensor([200, 100, 3, 0, 255], dtype=torch.uint8)
    b = torch.tensor([100, 200, 5, 1, 255], dtype=torch.uint8)

    def f(a, b):
        return a + b, a - b, a * b, -a, a + 300, a < 200, (a * 1.5).to(torch.uint8), \
            a.to(torch.int8), a.float() / 255, (a - b) // 7, a.sum()

    got, want = tgc.compile(f, fullgraph=True)(a, b), f(a, b)
    _compare(list(got), list(want), None)


def test_uint8_and_int8_get_their_own_compile():
    f = tgc.compile(lambda x: (x + x) // 3, fullgraph=True)
    u = torch.tensor([200, 100, 3], dtype=torch.uint8)
    i = u.to(torch.int8)
    assert torch.equal(f(u), (u + u) // 3)
    assert torch.equal(f(i), (i + i) // 3)  # not the uint8 code
    e = tgc.explain(f)
    assert e.compiles == 2
    assert "dtype(x) == ui8" in e.recompile_reasons[0]
    assert torch.equal(f(u), (u + u) // 3) and tgc.explain(f).compiles == 2


def test_uint8_graph_text():
    text = tgc.trace_to_mlir(lambda x: x + 1, torch.zeros(3, dtype=torch.uint8))
    assert "%arg0: tensor<3xi8> {tgc.unsigned}" in text
    assert "-> (tensor<3xi8>)" in text


def test_uint8_across_a_graph_break():
    def f(x):
        y = x * 3                 # wraps, compiled
        n = torch.nonzero(y > 100)  # a break: reads the uint8 value
        return y + 1, n.shape[0] + y.amax()

    x = torch.tensor([200, 100, 30, 1], dtype=torch.uint8)
    c = tgc.compile(f)
    got, want = c(x), f(x)
    assert got[0].dtype == torch.uint8
    _compare(list(got), list(want), None)
    assert len(tgc.explain(c).graph_breaks) == 1


def test_uint8_in_place_update_of_an_input():
    def f(x):
        x.add_(100)
        return x.float()

    a = torch.tensor([200, 100, 3], dtype=torch.uint8)
    b = a.clone()
    got = tgc.compile(f, fullgraph=True)(a)
    want = f(b)
    assert torch.equal(got, want) and torch.equal(a, b)


def test_uint8_module_buffer_and_image_normalization():
    class M(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.register_buffer("lut", torch.arange(255, -1, -1).to(torch.uint8))

        def forward(self, img):
            x = self.lut[img.long()]
            return (x.float() / 255 - 0.5) / 0.25

    img = torch.randint(0, 256, (2, 3, 8, 8), dtype=torch.int64).to(torch.uint8)
    m = M()
    torch.testing.assert_close(tgc.compile(m, fullgraph=True)(img), m(img))


U8 = torch.tensor([136, 48, 173, 130], dtype=torch.uint8)
I64 = torch.tensor([-3, 5, -2, -1])
F16 = torch.tensor([1.5, -2.25, 3.0, -0.3]).half()
F32 = torch.tensor([0.4, 1.1, -0.7, 0.9])
INTO_CASES = [
    (lambda u, i: u.clone().remainder_(i), (U8, I64)),
    (lambda u, i: u.clone().floor_divide_(i), (U8, I64)),
    (lambda u, i: u.clone().div_(i, rounding_mode="floor"), (U8, I64)),
    (lambda x, y: x.clone().floor_divide_(y),
     (torch.tensor([5, 7], dtype=torch.int32), torch.tensor([2**32, 3]))),
    (lambda h, f: h.clone().remainder_(f), (F16, F32)),
    (lambda h, f: h.clone().add_(f), (F16, F32)),
    (lambda h, f: h.clone().sub_(f, alpha=2), (F16, F32)),
    (lambda a, b: torch.sub(a, b, out=torch.empty(4, dtype=torch.float64)), (F32, F32 / 3)),
]


@pytest.mark.parametrize("case", range(len(INTO_CASES)))
def test_in_place_and_out_arithmetic_computes_in_the_promoted_dtype(case):
    """PyTorch computes a.op_(b) and op(a, b, out=c) in result_type(a, b)
    and converts the result: TGC computed in the destination's dtype
    (u8.remainder_(i64) gave [136, 3, 173, 130], f16.add_(f32) rounded its
    operands first; found by a helper's numerics sweep)."""
    fn, args = INTO_CASES[case]
    got, want = tgc.compile(fn)(*args), fn(*args)
    assert got.dtype == want.dtype and torch.equal(got, want)


def test_numerics_sweep_regressions():
    """threshold keeps NaN; an int scalar out of int8/int32 range wraps as
    PyTorch converts it; bool clamp with tensor bounds, bool fill_ and
    copy_, and copy_ of a Python number compile (internal errors before)."""
    F = torch.nn.functional
    x = torch.tensor([float("nan"), 0.3, 0.7, 0.5])
    fn = lambda x: F.threshold(x, 0.5, -9.0)  # noqa: E731
    torch.testing.assert_close(tgc.compile(fn)(x), fn(x), equal_nan=True)
    for dt, s in [(torch.int8, 300), (torch.int8, -200), (torch.int32, 2**40)]:
        t = torch.tensor([1, 2], dtype=dt)
        for fn in (lambda x: x + s, lambda x: x * s):
            assert torch.equal(tgc.compile(fn)(t), fn(t))
    b, c = torch.tensor([True, False, True]), torch.tensor([False, True, True])
    for fn, dynamic in [(lambda b, c: torch.clamp(b, min=c), None),
                        (lambda b, c: torch.clamp_max(b, c), None),
                        (lambda b, c: b.clone().fill_(torch.tensor(0)), None),
                        (lambda b, c: b.clone().copy_(c[:1]), None),
                        (lambda b, c: b.clone().copy_(c), True),
                        (lambda b, c: b.float().copy_(2.5), None)]:
        assert torch.equal(tgc.compile(fn, fullgraph=True, dynamic=dynamic)(b, c), fn(b, c))


def test_integer_true_division_and_atan2_into_a_float_destination():
    """The promoted dtype of two integers is an integer, but true division
    and atan2 compute them as floats: an out= float destination made the
    first review of the promotion fix find an internal error (atan2) and a
    graph break (div)."""
    a, b = torch.tensor([7, -7, 5]), torch.tensor([2, 2, -3])

    def atan2(a, b):
        out = torch.empty(3)
        torch.atan2(a, b, out=out)
        return out * 1

    def div(a, b):
        return torch.div(a, b, out=torch.empty(3, dtype=torch.float64))

    for fn in (atan2, div):
        c = tgc.compile(fn)
        torch.testing.assert_close(c(a, b), fn(a, b))
        assert not tgc.explain(c).graph_breaks
