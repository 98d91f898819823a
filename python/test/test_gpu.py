"""The CUDA path (skipped without a GPU): TGC kernels and cuBLASLt through
tgc.compile, with and without CUDA graphs, against eager PyTorch."""

import importlib.util

import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F

import tgc
from conftest import assert_same, requires_cuda, requires_torch2

pytestmark = requires_cuda


def test_elementwise_dynamic():
    f = tgc.compile(lambda x, y: torch.relu(x + y) * 2, dynamic=True)
    y = torch.randn(64, device="cuda")
    for n in (3, 100, 4097):
        x = torch.randn(n, 64, device="cuda")
        assert_same(f(x, y), torch.relu(x + y) * 2)
    assert tgc.explain(f).compiles == 1


def test_rows():
    def f(x, w, b):
        return F.layer_norm(torch.softmax(x, -1), (x.shape[-1],), w, b)

    w, b = torch.randn(1024, device="cuda"), torch.randn(1024, device="cuda")
    g = tgc.compile(f, dynamic=True)
    for n in (8, 33):
        x = torch.randn(n, 1024, device="cuda")
        assert_same(g(x, w, b), f(x, w, b), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("mode", ["default", "reduce-overhead"])
def test_sibling_kernels(mode):
    """Independent elementwise siblings of a group are one kernel with
    several outputs: cos and sin of one tensor, and a fused projection's
    q, k and v split into heads (GPT-2's attention), against eager."""
    def f(x, w):
        qkv = x @ w
        q, k, v = qkv.split(64, dim=-1)
        heads = [t.reshape(4, 16, 4, 16).permute(0, 2, 1, 3) for t in (q, k, v)]
        return heads[0], heads[1], heads[2], torch.cos(x), torch.sin(x)

    x = torch.randn(4, 16, 64, device="cuda")
    w = torch.randn(64, 192, device="cuda") / 8
    g = tgc.compile(f, mode=mode)
    for _ in range(3):
        for got, want in zip(g(x, w), f(x, w)):
            assert_same(got, want, rtol=1e-4, atol=1e-4)
    x.normal_()
    for got, want in zip(g(x, w), f(x, w)):
        assert_same(got, want, rtol=1e-4, atol=1e-4)


def test_entropy():
    def f(x):
        p = torch.softmax(x, -1)
        return -(p * torch.log(p + 1e-8)).sum(-1)

    g = tgc.compile(f, dynamic=True)
    for n in (5, 300):
        x = torch.randn(n, 1000, device="cuda")
        assert_same(g(x), f(x), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("mode", ["default", "reduce-overhead"])
def test_mlp(mode):
    model = nn.Sequential(nn.Linear(64, 128), nn.GELU(), nn.Linear(128, 10)).cuda().eval()
    g = tgc.compile(model, dynamic=True, mode=mode)
    with torch.no_grad():
        for b in (4, 4, 19, 19):
            x = torch.randn(b, 64, device="cuda")
            assert_same(g(x), model(x), rtol=2e-3, atol=2e-3)


@pytest.mark.parametrize("mode", ["default", "reduce-overhead"])
def test_attention_and_encoder(mode):
    # 4-d batched matmuls (one on a slice of the packed projection) as
    # cuBLASLt GEMMs; batch and sequence length dynamic.
    from test_models import EncoderLayer, PackedAttention

    for cls in (PackedAttention, EncoderLayer):
        model = cls().cuda().eval()
        g = tgc.compile(model, dynamic=True, mode=mode)
        with torch.no_grad():
            for b, s in ((2, 5), (3, 9), (3, 9)):
                x = torch.randn(b, s, 16, device="cuda")
                assert_same(g(x), model(x), rtol=2e-3, atol=2e-3)


def test_reduce_overhead_fresh_pointers():
    g = tgc.compile(lambda x: x * 3 + 1, mode="reduce-overhead", dynamic=True)
    for _ in range(5):
        x = torch.randn(1000, device="cuda")  # a new buffer each call
        assert_same(g(x), x * 3 + 1)


def test_topk_out_cuda():
    def f(x, out):
        torch.topk(x, 10, out=out)

    # Seed 000 on the GPU: one compile for every input size.
    g = tgc.compile(f, dynamic=True, fallback=False)
    v = torch.empty(10, device="cuda")
    i = torch.empty(10, dtype=torch.long, device="cuda")
    for n in (100, 137, 10, 4000):
        x = torch.randn(n, device="cuda")
        g(x, (v, i))
        ref = torch.topk(x, 10)
        assert_same(v, ref.values)
        assert torch.equal(i, ref.indices)
    assert tgc.explain(g).compiles == 1
    # An out= buffer that overlaps the input fails the plan's guard, and
    # eager PyTorch decides: PyTorch 1.13 refuses such arguments (a
    # TgcError naming the overlap), PyTorch 2.11's CUDA topk runs them.
    x = torch.randn(100, device="cuda")
    y = x.clone()
    try:
        torch.topk(y, 10, out=(y[:10], i.clone()))
        refused = None
    except RuntimeError as e:
        refused = e
    if refused is not None:
        with pytest.raises(tgc.TgcError, match="invalid arguments: .*does not alias"):
            g(x, (x[:10], i))
    else:
        g(x, (x[:10], i))
        assert any("overlap a buffer it writes" in r for r in tgc.explain(g).fallback_reasons)
    assert tgc.explain(g).compiles == 1


@requires_torch2
def test_torch_compile_backend_cuda():
    model = nn.Sequential(nn.Linear(32, 32), nn.ReLU(), nn.Linear(32, 4)).cuda().eval()
    c = torch.compile(model, backend="tgc")
    with torch.no_grad():
        x = torch.randn(8, 32, device="cuda")
        assert_same(c(x), model(x), rtol=2e-3, atol=2e-3)


# --- issue 17: Hugging Face models that returned wrong results ------------------

transformers_missing = pytest.mark.skipif(
    importlib.util.find_spec("transformers") is None, reason="needs transformers")


def _relative_error(got, want):
    return float((got.double() - want.double()).abs().max() / want.double().abs().max())


@requires_cuda
@transformers_missing
@pytest.mark.parametrize("layers", [2, 4])
def test_hf_vit_cuda(layers):
    """ViT composed of exact pieces had relative error ~1 (issue 17)."""
    import transformers

    torch.manual_seed(0)
    cfg = transformers.ViTConfig(num_hidden_layers=layers, hidden_size=256,
                                 num_attention_heads=4, intermediate_size=1024)
    vit = transformers.ViTModel(cfg).cuda().eval()
    pixels = torch.randn(4, 3, 224, 224, device="cuda")
    with torch.no_grad():
        want = vit(pixels)
        got = tgc.compile(vit)(pixels)
    assert type(got) is type(want)
    for key in ("last_hidden_state", "pooler_output"):
        assert _relative_error(got[key], want[key]) < 2e-3, key


@requires_cuda
@transformers_missing
@pytest.mark.parametrize("mode", ["default", "reduce-overhead"])
def test_hf_bert_cuda(mode):
    """BERT was intermittently wrong in either mode (issue 17): several
    calls with fresh ids, each compared with eager."""
    import transformers

    torch.manual_seed(0)
    cfg = transformers.BertConfig(num_hidden_layers=4, hidden_size=256,
                                  num_attention_heads=4, intermediate_size=1024,
                                  vocab_size=8000)
    bert = transformers.BertModel(cfg).cuda().eval()
    compiled = tgc.compile(bert, mode=mode)
    with torch.no_grad():
        for _ in range(4):
            ids = torch.randint(0, 8000, (4, 128), device="cuda")
            want = bert(ids)
            got = compiled(ids)
            torch.cuda.synchronize()
            assert _relative_error(got["last_hidden_state"], want["last_hidden_state"]) < 2e-3


def test_cpu_scalar_tensor_beside_cuda_tensors():
    # PyTorch treats a 0-d CPU tensor as a scalar in CUDA ops (Dynamo passes
    # the floats of a dynamic graph that way): not "several devices".
    f = lambda x, s: x * s + 1  # noqa: E731
    g = tgc.compile(f)
    x = torch.randn(4, 8, device="cuda")
    for v in (0.5, 2.0):
        s = torch.tensor(v, dtype=torch.float64)
        assert_same(g(x, s), f(x, s))


@requires_torch2
def test_backend_dynamic_one_compile_for_all_sequence_lengths():
    from models import ReadsShape

    import torch._dynamo
    from tgc import backend

    torch._dynamo.reset()
    backend._graphs.clear()
    m = ReadsShape().cuda().eval()
    c = torch.compile(m, backend="tgc", dynamic=True)
    with torch.no_grad():
        for s in (7, 9, 16, 33, 64, 100):
            x = torch.randn(2, s, 64, device="cuda")
            assert_same(c(x), m(x), rtol=1e-4, atol=1e-5)
    exps = [tgc.explain(g) for g in backend.graphs()]
    assert sum(e.compiles for e in exps) == 1, [str(e) for e in exps]
    assert sum(e.fallbacks for e in exps) == 0


@pytest.mark.parametrize("mode", ["default", "reduce-overhead"])
def test_device_transfers_inside_the_function(mode):
    # The graph runs on the inputs' device; every result and every island
    # argument is where eager PyTorch has it.
    def f(x):
        cpu = x.cpu() * 2                      # returned on the CPU
        pos = torch.arange(x.shape[1]).to(x.device)   # a CPU factory, moved
        c = torch.cumprod(x.cpu(), 1)          # an island on a CPU argument
        return cpu, x + pos, c.cuda() + 1, torch.ones(3), c * 2

    g = tgc.compile(f, mode=mode)
    for n in (4, 4, 6):
        x = torch.rand(n, 5, device="cuda") + 0.5
        got, want = g(x), f(x)
        assert [t.device for t in got] == [t.device for t in want]
        assert_same(got, want)
    e = tgc.explain(g)
    assert [b.op for b in e.graph_breaks] == ["cumprod"], e.graph_breaks


# --- TF32 as PyTorch's flags allow it (tgc-mark-tf32) ---------------------------


@pytest.fixture
def saved_tf32_flags():
    saved = (torch.backends.cuda.matmul.allow_tf32, torch.backends.cudnn.allow_tf32)
    yield
    torch.backends.cuda.matmul.allow_tf32, torch.backends.cudnn.allow_tf32 = saved


def _gemm_strategies(c):
    """The strategies of the products, cuBLASLt GEMMs and cuDNN convolutions."""
    return [s.strategy for spec in c.specs for s in spec.compiled.steps()
            if s.kind in ("gemm", "conv")]


def _step_kinds(c):
    return [s.kind for spec in c.specs for s in spec.compiled.steps()]


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
def test_gemms_read_transposed_operands(dtype):
    """A product of a transposed operand (x.t() @ y, a batched P^T dO, the
    weight gradients of a backward graph) is one cuBLASLt GEMM with the
    operand transposed, not a strided copy and a GEMM
    (tgc-gpu-fold-gemm-transposes); a transpose of a slice stays a copy.
    Results as eager's, in f32 and bf16."""
    torch.manual_seed(0)
    x = torch.randn(96, 40, device="cuda", dtype=dtype)
    y = torch.randn(96, 24, device="cuda", dtype=dtype)
    p = torch.randn(6, 33, 17, device="cuda", dtype=dtype)
    d = torch.randn(6, 33, 9, device="cuda", dtype=dtype)

    def f(x, y, p, d):
        return (x.t() @ y, torch.bmm(p.transpose(1, 2), d),
                y.t() @ x.t().t(), (x @ x.t()).t() @ x)

    c = tgc.compile(f)
    tol = dict(rtol=1e-4, atol=1e-4) if dtype == torch.float32 else dict(rtol=5e-2, atol=1.0)
    for _ in range(2):
        assert_same(c(x, y, p, d), f(x, y, p, d), **tol)
    assert _step_kinds(c).count("gemm") == 5
    assert "launch" not in _step_kinds(c), _step_kinds(c)

    def g(x, y):
        return x[:, :20].t() @ y  # a strided slice: copied, then one GEMM

    c = tgc.compile(g)
    assert_same(c(x, y), g(x, y), **tol)
    assert _step_kinds(c).count("gemm") == 1


def test_linear_gradients_with_transposed_gemms():
    """The weight gradients of Linear layers (dY^T X) run as GEMMs with a
    transposed operand (tgc-gpu-fold-gemm-transposes; its lit test checks
    the fold): the gradients are eager's."""
    torch.manual_seed(0)
    m = nn.Sequential(nn.Linear(48, 64), nn.GELU(), nn.Linear(64, 8)).cuda()
    x = torch.randn(4, 10, 48, device="cuda")
    c = tgc.compile(m)
    want = [t.detach().clone() for t in torch.autograd.grad(m(x).square().sum(), list(m.parameters()))]
    got = torch.autograd.grad(c(x).square().sum(), list(m.parameters()))
    for a, b in zip(got, want):
        assert_same(a, b, rtol=1e-4, atol=1e-4)


def test_tf32_follows_pytorchs_flags(saved_tf32_flags):
    """An f32 convolution's GEMM rounds to TF32 where cuDNN's flag lets
    eager PyTorch do so (on by default), a matmul's only under
    torch.backends.cuda.matmul.allow_tf32; changing a flag recompiles
    (the native path checks it too), and with both off every GEMM is f32
    again."""
    torch.manual_seed(0)
    conv = nn.Conv2d(64, 64, 3, padding=1).cuda().eval()
    w = torch.randn(512, 512, device="cuda")
    x = torch.randn(8, 64, 32, 32, device="cuda")
    a = torch.randn(256, 512, device="cuda")
    exact_conv = F.conv2d(x.double(), conv.weight.double(), conv.bias.double(), padding=1)
    exact_mm = a.double() @ w.double()

    def f(x, a):
        return conv(x), a @ w

    torch.backends.cudnn.allow_tf32 = True
    torch.backends.cuda.matmul.allow_tf32 = False
    c = tgc.compile(f)
    with torch.no_grad():
        for _ in range(2):  # the second call through the native path
            y, m = c(x, a)
    assert any("TF32" in s for s in _gemm_strategies(c))
    # TF32's 10-bit mantissa: errors of ~1e-3 relative over a 576-term sum.
    assert (y.double() - exact_conv).abs().max() < 5e-2
    assert (m.double() - exact_mm).abs().max() < 1e-3  # f32: exact to ~1e-5

    torch.backends.cudnn.allow_tf32 = False
    with torch.no_grad():
        y, m = c(x, a)
    assert tgc.explain(c).compiles == 2
    assert not any("TF32" in s for s in _gemm_strategies(c)[-2:])
    assert (y.double() - exact_conv).abs().max() < 1e-3

    torch.backends.cuda.matmul.allow_tf32 = True
    with torch.no_grad():
        y, m = c(x, a)
    assert tgc.explain(c).compiles == 3
    want = a @ w  # eager under the same flag
    assert_same(m, want, rtol=1e-2, atol=5e-2)
    assert "TF32" in _gemm_strategies(c)[-1]
    # Back to the first flags: the first specialization serves again.
    torch.backends.cudnn.allow_tf32, torch.backends.cuda.matmul.allow_tf32 = True, False
    with torch.no_grad():
        c(x, a)
    assert tgc.explain(c).compiles == 3


@pytest.mark.parametrize("stride,padding,dilation", [(1, 1, 1), (2, 3, 1), (1, 2, 2), (2, (0, 2), 1)])
def test_padded_convolutions_read_their_input_in_place(saved_tf32_flags, monkeypatch, stride,
                                                       padding, dilation):
    """The GPU's im2col gathers a padded convolution's patches from the
    input itself (im2col-pads): every window position past an edge reads
    zero, with strides, dilations and uneven padding, and a dynamic batch."""
    monkeypatch.setenv("TGC_CUDNN", "0")  # im2col and a GEMM
    torch.backends.cudnn.allow_tf32 = False  # f32 on both sides
    torch.manual_seed(0)
    conv = nn.Conv2d(5, 7, 3, stride=stride, padding=padding, dilation=dilation).cuda()
    # Static sizes, then a dynamic batch (the spatial sizes stay static:
    # a dynamic one keeps the padded copy).
    c = tgc.compile(lambda x: torch.relu(conv(x)))
    with torch.no_grad():
        for n in (2, 3, 4):
            x = torch.randn(n, 5, 11, 13, device="cuda")
            assert_same(c(x), torch.relu(conv(x)), rtol=1e-4, atol=1e-4)
    assert tgc.explain(c).compiles == 2
    assert "conv" not in _step_kinds(c)


# --- Convolutions on cuDNN (cudnn-convolutions) -----------------------------------


@pytest.mark.parametrize("case", [
    dict(cin=5, cout=7, k=3, stride=1, padding=1, dilation=1, groups=1, bias=True),
    dict(cin=6, cout=4, k=(3, 5), stride=(2, 1), padding=(0, 2), dilation=(1, 2), groups=1,
         bias=False),
    dict(cin=8, cout=8, k=3, stride=2, padding=1, dilation=1, groups=8, bias=True),  # depthwise
    dict(cin=8, cout=12, k=1, stride=1, padding=0, dilation=1, groups=4, bias=True),
])
def test_cudnn_convolutions(saved_tf32_flags, case):
    """f32 convolutions run as cuDNN calls (torch.backends.cudnn.enabled):
    strides, dilations, uneven padding, groups and depthwise, with bias and
    a ReLU after, a dynamic batch (one compile, cuDNN's choice made per
    size), TF32 off for an f32 comparison and then on (a recompile)."""
    torch.backends.cudnn.allow_tf32 = False
    torch.manual_seed(0)
    conv = nn.Conv2d(case["cin"], case["cout"], case["k"], stride=case["stride"],
                     padding=case["padding"], dilation=case["dilation"], groups=case["groups"],
                     bias=case["bias"]).cuda()
    c = tgc.compile(lambda x: torch.relu(conv(x)) * 2)
    with torch.no_grad():
        for n in (2, 3, 5, 3):
            x = torch.randn(n, case["cin"], 13, 11, device="cuda")
            assert_same(c(x), torch.relu(conv(x)) * 2, rtol=1e-4, atol=1e-4)
        assert "conv" in _step_kinds(c)
        assert all(s == "cuDNN" for s in _gemm_strategies(c))
        torch.backends.cudnn.allow_tf32 = True
        x = torch.randn(4, case["cin"], 13, 11, device="cuda")
        assert_same(c(x), torch.relu(conv(x)) * 2, rtol=1e-2, atol=1e-2)
        assert _gemm_strategies(c)[-1] == "cuDNN TF32"
    assert c.specs[0].compiled.gpu_stats()["convs"] > 0


def test_cudnn_convolution_edge_cases(saved_tf32_flags):
    """A batch of 0 (nothing to run), a strided (sliced) input, and a
    model with convolutions in a chain whose weights batch norm folds."""
    torch.backends.cudnn.allow_tf32 = False
    torch.manual_seed(0)
    model = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(),
                          nn.Conv2d(8, 8, 3, padding=1, groups=2), nn.BatchNorm2d(8)).cuda().eval()
    c = tgc.compile(model)
    with torch.no_grad():
        for n in (0, 2, 3):
            x = torch.randn(n, 3, 16, 16, device="cuda")
            assert_same(c(x), model(x), rtol=1e-4, atol=1e-4)
        big = torch.randn(2, 3, 16, 20, device="cuda")
        x = big[:, :, :, 2:18]  # not contiguous
        assert_same(c(x), model(x), rtol=1e-4, atol=1e-4)



@pytest.mark.parametrize("mode", ["default", "reduce-overhead"])
def test_index_checks_before_the_computation(mode):
    # The indices' range check runs first (tgc-hoist-checks) and the call
    # waits for it there, then issues the rest without waiting: results as
    # eager's, a bad index still an error naming the op, and the function
    # usable afterwards (no sticky device error, as a device assert leaves).
    # Reduce-overhead asserts on the device unless told not to (below).
    w = torch.randn(50, 16, device="cuda")

    def f(x, i):
        h = torch.tanh(x @ w.t())  # a GEMM and a kernel before the gather
        return F.embedding(i, h) * 2, h.sum()

    c = tgc.compile(f, mode=mode, options="device-asserts=0")
    x = torch.randn(40, 16, device="cuda")
    for _ in range(3):
        i = torch.randint(0, 40, (4, 7), device="cuda")
        assert_same(c(x, i), f(x, i), rtol=1e-5, atol=1e-5)
    bad = torch.full((4, 7), 40, device="cuda")
    with pytest.raises(tgc.TgcError, match="index out of range"):
        c(x, bad)
    i = torch.randint(0, 40, (4, 7), device="cuda")
    assert_same(c(x, i), f(x, i), rtol=1e-5, atol=1e-5)
    assert tgc.explain(c).compiles == 1
    stats = c.specs[0].compiled.gpu_stats()
    if mode == "reduce-overhead":
        # The check runs before the graph, which holds the rest (the
        # GEMM, the gather): the failed call replays nothing, every good
        # one replays the graph (and waits for the check only).
        assert stats["graph_replays"] == 4, stats
        assert stats["graph_captures"] >= 1, stats
    else:
        assert stats["graph_replays"] == 0, stats
    assert stats["check_waits"] == 5, stats  # every call read its check


def _six_calls_in_a_graph(f, args, bad: bool):
    """Six reduce-overhead calls of `f(*args())` (the indices first), the
    fourth with an index out of range when `bad`; eager's results for the
    others."""
    c = tgc.compile(f, mode="reduce-overhead")
    outs, wants = [], []
    for k in range(6):
        i, *rest = args()
        if bad and k == 3:
            i[2] = 1 << 20  # beyond every table below
        outs.append(c(i, *rest))
        wants.append(None if bad and k == 3 else f(i, *rest))
    return c, outs, wants


def _embedding_in_a_graph(bad: bool):
    emb = torch.randn(30, 8, device="cuda")
    x = torch.randn(5, 8, device="cuda")
    return _six_calls_in_a_graph(
        lambda i, x: F.embedding(i, emb) * torch.tanh(x),
        lambda: (torch.randint(0, 30, (5,), device="cuda"), x), bad)


@requires_torch2
def test_attention_masks_that_keep_everything_fold():
    # A bool mask built from aranges that keeps everything, and a float
    # mask of zeros, fold away (the attention runs without a mask); a
    # causal triangle of the same construction stays. Results as eager's.
    def f(q, k, v):
        b, t = q.shape[0], q.shape[-2]
        rows = torch.arange(t, device=q.device)[:, None]
        keep = (rows >= 0).expand(b, 1, t, t)
        causal = (torch.arange(t, device=q.device)[None, :] <= rows).expand(b, 1, t, t)
        zero = torch.zeros(b, 1, t, t, device=q.device)
        return (F.scaled_dot_product_attention(q, k, v, attn_mask=keep),
                F.scaled_dot_product_attention(q, k, v, attn_mask=zero),
                F.scaled_dot_product_attention(q, k, v, attn_mask=causal))

    q, k, v = (torch.randn(2, 4, 16, 8, device="cuda") for _ in range(3))
    for mode in ("default", "reduce-overhead"):
        got = tgc.compile(f, mode=mode)(q, k, v)
        for g, w in zip(got, f(q, k, v)):
            assert_same(g, w, rtol=1e-4, atol=1e-5)


@requires_torch2
def test_trace_runs_attention_without_a_mask_that_passes_everything(monkeypatch):
    # The trace's own eager attention drops a padding mask of all ones
    # (tgc._ops.core._eager_call): the masked kernel, which eager does not
    # run for it, cost about 50 ms of module loading per process. The graph
    # keeps the masks: a call whose mask masks matches eager (a causal
    # triangle is kept in the trace too).
    from tgc._ops import core

    dropped = []
    real = core.plain_attention

    def spy(args, kwargs):
        plain = real(args, kwargs)
        dropped.append(plain is not None)
        return plain

    monkeypatch.setattr(core, "plain_attention", spy)

    def f(q, k, v, padding):
        mask = padding[:, None, None, :].to(q.dtype)
        mask = (1.0 - mask) * torch.finfo(q.dtype).min
        t = q.shape[-2]
        causal = torch.ones(t, t, dtype=torch.bool, device=q.device).tril()
        causal = causal[None, None] & padding[:, None, None, :].bool()
        return (F.scaled_dot_product_attention(q, k, v, attn_mask=mask),
                F.scaled_dot_product_attention(q, k, v, attn_mask=causal))

    q, k, v = (torch.randn(2, 4, 16, 8, device="cuda") for _ in range(3))
    padding = torch.ones(2, 16, device="cuda")
    c = tgc.compile(f)
    for g, w in zip(c(q, k, v, padding), f(q, k, v, padding)):
        assert_same(g, w, rtol=1e-4, atol=1e-5)
    assert len(dropped) >= 2 and dropped[::2] == [True] * (len(dropped) // 2) \
        and not any(dropped[1::2])
    padding[1, 10:] = 0
    for g, w in zip(c(q, k, v, padding), f(q, k, v, padding)):
        assert_same(g, w, rtol=1e-4, atol=1e-5)
    assert tgc.explain(c).compiles == 1


def _scatter_add_in_a_graph(bad: bool):
    # scatter_add keeps its index check as a plan step: with device asserts
    # it runs as the runtime's check kernel (tgc_device_check).
    return _six_calls_in_a_graph(
        lambda i, src: torch.zeros(16, device="cuda").scatter_add(0, i, src) * 2,
        lambda: (torch.randint(0, 16, (40,), device="cuda"), torch.randn(40, device="cuda")),
        bad)


@pytest.mark.parametrize("case", [_embedding_in_a_graph, _scatter_add_in_a_graph])
def test_index_checks_as_device_asserts(case):
    # Reduce-overhead's index checks assert on the device (as eager's and
    # Inductor's): inside the gather's kernel, or a check step run as an
    # asserting kernel (scatter_add); no call waits for them, the graph
    # holds every step.
    c, outs, wants = case(bad=False)
    torch.cuda.synchronize()
    for out, want in zip(outs, wants):
        assert_same(out, want, rtol=1e-5, atol=1e-5)
    stats = c.specs[0].compiled.gpu_stats()
    assert stats["check_waits"] == 0, stats
    assert stats["graph_replays"] == 6, stats
    kinds = [s.kind for s in c.specs[0].compiled.steps()]
    assert ("check" in kinds) == (case is _scatter_add_in_a_graph), kinds


def test_other_checks_stay_recoverable_in_reduce_overhead():
    # An integer division by zero is no index check: eager raises nothing
    # on CUDA, TGC raises a recoverable error in every mode, and the
    # process goes on using CUDA.
    c = tgc.compile(lambda a, b: torch.div(a, b, rounding_mode="floor") + 1,
                    mode="reduce-overhead")
    a = torch.randint(-50, 50, (64,), device="cuda")
    b = torch.randint(1, 9, (64,), device="cuda")
    assert_same(c(a, b), torch.div(a, b, rounding_mode="floor") + 1)
    with pytest.raises(tgc.TgcError, match="integer division by zero"):
        c(a, torch.zeros_like(b))
    assert_same(c(a, b), torch.div(a, b, rounding_mode="floor") + 1)
    torch.cuda.synchronize()


@pytest.mark.parametrize("case,printed", [
    ("_embedding_in_a_graph", "index out of range at"),
    ("_scatter_add_in_a_graph", "TGC device-side check"),
])
def test_a_failed_device_assert_is_reported(tmp_path, case, printed):
    # A bad index in reduce-overhead mode ends CUDA's use in the process,
    # as eager's device-side asserts do: the device prints the check's
    # message with its location, and the next synchronizing call raises.
    # In a child process.
    import os
    import subprocess
    import sys

    script = tmp_path / "child.py"
    script.write_text(
        "import sys, torch\n"
        f"sys.path.insert(0, {os.path.dirname(__file__)!r})\n"
        "import test_gpu\n"
        "try:\n"
        f"    test_gpu.{case}(bad=True)\n"
        "    torch.cuda.synchronize()\n"
        "except Exception as e:\n"
        "    print('RAISED', type(e).__name__, e)\n"
        "    sys.exit(0)\n"
        "print('NOT RAISED')\n")
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                          timeout=300, env=dict(os.environ))
    out = done.stdout + done.stderr
    assert "RAISED" in done.stdout, out
    assert "index out of range" in out, out  # printed by the device
    assert printed in out, out
    assert "device-side assert" in out, out


@pytest.mark.parametrize("mode", ["default", "reduce-overhead"])
def test_index_checks_many_calls_in_flight(mode):
    # Calls with good and bad indices one after another, results read only
    # at the end: every good call's result is right (its check bytes are
    # its own), every bad one raises. Here the check is late in the plan,
    # so a graph holds it (read after the replay); the test above has
    # it before the graph.
    emb = torch.randn(30, 8, device="cuda")

    def f(i, x):
        return F.embedding(i, emb) + x

    c = tgc.compile(f, mode=mode, options="device-asserts=0")
    x = torch.randn(5, 8, device="cuda")
    outs, wants = [], []
    for k in range(12):
        if k % 4 == 3:
            with pytest.raises(tgc.TgcError, match="index out of range"):
                c(torch.full((5,), 30 + k, device="cuda"), x)
            continue
        i = torch.randint(0, 30, (5,), device="cuda")
        outs.append(c(i, x))
        wants.append(f(i, x))
    for out, want in zip(outs, wants):
        assert_same(out, want, rtol=0, atol=0)
