"""What the backward saves (tgc._partition, docs/training.md#what-the-backward-saves):
the min-cut flow network, the values a training specialization saves on
models whose pointwise work the backward should recompute, and gradients
against eager PyTorch with recomputation."""

import math

import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F

import tgc
from tgc import _autograd, _native_path, _partition
from conftest import cuda_ready

DEVICES = ["cpu"] + (["cuda"] if cuda_ready() else [])


def test_max_flow_of_a_known_network():
    # CLRS's example network (figure 26.1): the maximum flow is 23.
    f = _partition._Flow()
    s, v1, v2, v3, v4, t = (f.node() for _ in range(6))
    for u, v, c in ((s, v1, 16), (s, v2, 13), (v2, v1, 4), (v1, v3, 12), (v3, v2, 9),
                    (v2, v4, 14), (v4, v3, 7), (v3, t, 20), (v4, t, 4)):
        f.edge(u, v, float(c))
    assert f.max_flow(s, t) == 23
    # The minimum cut: {s, v1, v2, v4} on the source side.
    assert f.reachable(s) == {s, v1, v2, v4}


def test_unbounded_flow_is_reported():
    f = _partition._Flow()
    s, a, t = f.node(), f.node(), f.node()
    f.edge(s, a, math.inf)
    f.edge(a, t, math.inf)
    assert f.max_flow(s, t) == math.inf


class TanhGelu(nn.Module):
    """GPT-2's GELU, written with pointwise ops (HF's NewGELUActivation)."""

    def forward(self, x):
        return 0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) *
                                           (x + 0.044715 * torch.pow(x, 3.0))))


class Mlp(nn.Module):
    def __init__(self, d=16):
        super().__init__()
        self.fc, self.act, self.out = nn.Linear(d, 4 * d), TanhGelu(), nn.Linear(4 * d, d)

    def forward(self, x):
        return self.out(self.act(self.fc(x)))


class Attention(nn.Module):
    def __init__(self, d=16, heads=2, p=0.0):
        super().__init__()
        self.qkv, self.proj, self.heads, self.p = nn.Linear(d, 3 * d), nn.Linear(d, d), heads, p
        self.ln = nn.LayerNorm(d)

    def forward(self, x):
        b, t, c = x.shape
        q, k, v = self.qkv(self.ln(x)).split(c, 2)
        q, k, v = (y.view(b, t, self.heads, c // self.heads).transpose(1, 2) for y in (q, k, v))
        w = q @ k.transpose(-1, -2) / math.sqrt(c // self.heads)
        mask = torch.ones(t, t, dtype=torch.bool, device=x.device).tril()
        w = torch.where(mask, w, torch.tensor(torch.finfo(w.dtype).min, device=x.device))
        p = F.dropout(w.softmax(-1), self.p, self.training)
        return x + self.proj((p @ v).transpose(1, 2).reshape(b, t, c))


def _saved(model, inputs, loss_fn, recompute=True):
    """The values a training specialization of `model` saves for its
    backward (nodes of the joint graph, in order), and the compiled model."""
    joints = []

    def partition(joint, *args):
        joints.append(joint)
        return _partition.partition(joint, *args, recompute=recompute)

    saved_partition = _autograd.partition
    _autograd.partition = partition
    try:
        c = tgc.compile(model)
        loss_fn(c(*inputs)).backward()
    finally:
        _autograd.partition = saved_partition
    spec = c._training.specs[0]
    names = [n.name for n in spec.backward_graph.graph.nodes if n.op == "placeholder"]
    by_name = {n.name: n for n in joints[0].graph.nodes}
    return [by_name[name] for name in names[:spec.num_saved]], c


def _shape(n):
    return tuple(n.meta["tensor_meta"].shape)


def test_tanh_gelu_saves_its_input_and_output_only():
    torch.manual_seed(0)
    x = torch.randn(8, 16, requires_grad=True)
    saved, _ = _saved(Mlp(), [x], lambda y: y.square().sum())
    wide = [n for n in saved if _shape(n) == (8, 64)]
    # The first linear's result (GELU's input) and GELU's result (the
    # second linear's weight gradient reads it), not tanh's intermediates.
    assert len(wide) == 2, [n.name for n in wide]
    before, _ = _saved(Mlp(), [x], lambda y: y.square().sum(), recompute=False)
    assert len([n for n in before if _shape(n) == (8, 64)]) > 2


def test_cross_entropy_saves_its_input_and_row_statistics():
    torch.manual_seed(0)
    logits = torch.randn(32, 100, requires_grad=True)
    target = torch.randint(0, 100, (32,))
    saved, _ = _saved(lambda z, t: F.cross_entropy(z * 2.0, t), [logits, target],
                      lambda y: y)
    big = [n for n in saved if _shape(n) == (32, 100)]
    # The input (log_softmax in primitives: the backward recomputes it from
    # the input, its row maximum and its sum of exponentials), not
    # log_softmax's result, exp of it, nor nll_loss's one-hot bool mask
    # (recomputed from the targets).
    assert [n.op for n in big] == ["placeholder"], [n.name for n in big]
    stats = sorted(_partition._op_name(n) for n in saved if _shape(n) == (32, 1))
    assert stats == ["aten::amax", "aten::sum"], stats


def test_views_are_never_saved():
    torch.manual_seed(0)
    x = torch.randn(2, 8, 16)
    saved, _ = _saved(Attention(), [x], lambda y: y.sum())
    for n in saved:
        assert not _partition._is_view(n), n.name


def test_fewer_bytes_saved_than_every_value_the_backward_reads():
    torch.manual_seed(0)
    model = nn.Sequential(Attention(32, 4), Mlp(32), Attention(32, 4), Mlp(32))
    x = torch.randn(4, 8, 32)
    cut, _ = _saved(model, [x], lambda y: y.square().mean())
    everything, _ = _saved(model, [x], lambda y: y.square().mean(), recompute=False)
    cut_bytes = sum(_partition.size_of(n) for n in cut)
    all_bytes = sum(_partition.size_of(n) for n in everything)
    assert cut_bytes < 0.8 * all_bytes, (cut_bytes, all_bytes)


@pytest.mark.parametrize("device", DEVICES)
def test_dropout_masks_are_saved_not_recomputed(device):
    torch.manual_seed(0)
    model = Attention(16, 2, p=0.5).train().to(device)
    x = torch.randn(2, 8, 16, device=device)
    saved, _ = _saved(model, [x], lambda y: y.sum())

    def mask(n):
        if _partition._is_getitem(n):  # native_dropout: (output, mask)
            return n.args[1] == 1 and mask(n.args[0])
        return n.op == "call_function" and _partition._op_name(n) in _partition._RANDOM

    # The backward reads the forward's mask (CPU: the scaled Bernoulli
    # tensor; CUDA: native_dropout's bool mask), never draws one again.
    masks = [n for n in saved if mask(n)]
    assert len(masks) == 1 and _shape(masks[0]) == (2, 2, 8, 8), [n.name for n in saved]


# Batch 1: PyTorch 1.13's reshape of the attention's transposed result is
# an _reshape_alias with the strides of a non-contiguous base, which the
# backward must not recompute on the contiguous tensor it receives (it
# read out of bounds before strided views were checked).
@pytest.mark.parametrize("batch", [1, 4])
@pytest.mark.parametrize("device", DEVICES)
def test_gradients_match_eager_with_recomputation(device, batch):
    torch.manual_seed(0)
    model = nn.Sequential(Attention(32, 4), Mlp(32), nn.LayerNorm(32)).to(device)
    ref = type(model)(*[m for m in model])  # same modules
    x = torch.randn(batch, 8, 32, device=device, requires_grad=True)
    c = tgc.compile(model)
    out = c(x)
    (out.square().mean()).backward()
    got = [p.grad.clone() for p in model.parameters()] + [x.grad.clone()]
    model.zero_grad()
    x.grad = None
    ref(x).square().mean().backward()
    want = [p.grad for p in model.parameters()] + [x.grad]
    for g, w in zip(got, want):
        assert torch.allclose(g, w, rtol=1e-4, atol=1e-5), (g - w).abs().max()


def _compiled_training_node(loss):
    fn = loss.grad_fn
    while fn is not None and type(fn).__name__ != "CompiledTrainingBackward":
        fn = fn.next_functions[0][0] if fn.next_functions else None
    return fn


@pytest.mark.skipif(_native_path.load() is None, reason="the native call path is not built")
@pytest.mark.parametrize("device", DEVICES)
def test_saved_tensors_share_one_block_per_dtype(device):
    """From the native path's second call on, the saved tensors are views
    of one block per dtype (tgc_native_pool.h); gradients stay eager's."""
    torch.manual_seed(0)
    model = nn.Sequential(Attention(32, 4), Mlp(32), nn.LayerNorm(32)).to(device)
    ref = nn.Sequential(*[m for m in model])
    c = tgc.compile(model)
    x = torch.randn(4, 8, 32, device=device)
    for step in range(5):
        for p in model.parameters():
            p.grad = None
        loss = c(x * (step + 1)).square().mean()
        node = _compiled_training_node(loss)
        saved = [t for t in node.saved_tensors if t._base is not None]
        if step >= 2:
            # Pooled (parameters are saved as themselves, not pooled).
            assert saved and len({t._base.data_ptr() for t in saved}) <= 3, len(saved)
            for t in saved:
                assert t.is_contiguous() and (t.data_ptr() - t._base.data_ptr()) % 512 == 0
        loss.backward()
        got = [p.grad.clone() for p in model.parameters()]
        for p in model.parameters():
            p.grad = None
        ref(x * (step + 1)).square().mean().backward()
        for g, p in zip(got, model.parameters()):
            assert torch.allclose(g, p.grad, rtol=1e-4, atol=1e-5), (step, (g - p.grad).abs().max())


def test_outputs_the_caller_gets_are_not_pooled():
    outputs = ((0, 0), (0, 1), (1, 0), (0, 2), (0, 1), (0, 3))
    slot = _native_path._pool(outputs, 3, 4)
    # Results 2 and 3 only: result 1 is an output too.
    assert slot[0] == (False, False, True, True) and slot[1] is None
    assert _native_path._pool(outputs, None, 4) is None
    assert _native_path._pool(((0, 0),), 1, 1) is None


class ShiftThenUpdate(nn.Module):
    """Reads a buffer, then updates it in place: eager's backward reads
    only the ReLU's result, so the update is legal."""

    def __init__(self):
        super().__init__()
        self.register_buffer("shift", torch.tensor([-1.5, 0.5, -0.2, 0.3]))

    def forward(self, x):
        y = (x + self.shift).relu()
        self.shift.add_(1.0)
        return (y * y).sum()


@pytest.mark.parametrize("device", DEVICES)
def test_an_input_updated_in_place_is_never_saved(device):
    # Saving the buffer (and the input) is the cheapest cut, but the call
    # writes the buffer's new value after the forward: the backward would
    # recompute the ReLU's mask from it (before: autograd's version check
    # refused the backward, where eager's runs).
    got, want = [], []
    for compiled in (True, False):
        m = ShiftThenUpdate().to(device)
        f = tgc.compile(m) if compiled else m
        for step in range(3):
            x = torch.ones(4, device=device, requires_grad=True)
            f(x).backward()
            (got if compiled else want).append((x.grad.clone(), m.shift.clone()))
    for (g, s), (w, t) in zip(got, want):
        assert torch.equal(g, w) and torch.equal(s, t)


@pytest.mark.skipif(_native_path.load() is None, reason="the native call path is not built")
def test_pooled_results_follow_changing_sizes():
    """Pooled results of a function with a dynamic size (tgc_native_pool.c):
    a call whose sizes differ from the learnt layout allocates alone, and
    the next calls learn the new layout; values stay right throughout."""
    c = tgc.compile(lambda a: (a + 1, a * 2), dynamic=True)
    c(torch.ones(4))
    c.pooled_from = 0  # every result pooled (a training forward's saved ones)
    c._sync_native()
    shared = []
    for n in (4, 4, 4, 6, 6, 6, 6, 3):
        x = torch.arange(n, dtype=torch.float32)
        y, z = c(x)
        assert torch.equal(y, x + 1) and torch.equal(z, x * 2), n
        shared.append(y._base is not None and y._base is z._base)
    # The first call learns; then pooled. The first call at a new size
    # allocates alone, the next one learns again; then pooled again.
    assert shared == [False, True, True, False, False, True, True, False], shared


def test_strided_views_are_views_only_on_a_contiguous_base():
    """_reshape_alias is recomputed from its base only when that base was
    contiguous (the backward receives saved tensors contiguous, at offset
    0); as_strided (an absolute storage offset) never is."""
    from torch.fx.passes.shape_prop import TensorMetadata, _extract_tensor_metadata

    g = torch.fx.Graph()
    dense, strided = g.placeholder("dense"), g.placeholder("strided")
    dense.meta["tensor_meta"] = _extract_tensor_metadata(torch.empty(4, 6))
    strided.meta["tensor_meta"] = _extract_tensor_metadata(torch.empty(6, 4).t())
    aten = torch.ops.aten
    alias_dense = g.call_function(aten._reshape_alias.default, (dense, [24], [1]))
    alias_strided = g.call_function(aten._reshape_alias.default, (strided, [4, 6], [1, 4]))
    as_strided = g.call_function(aten.as_strided.default, (dense, [2], [1], 5))
    transpose = g.call_function(aten.t.default, (strided,))
    assert isinstance(dense.meta["tensor_meta"], TensorMetadata)
    assert _partition._is_view(alias_dense) and not _partition._strided_not_view(alias_dense)
    assert not _partition._is_view(alias_strided) and _partition._strided_not_view(alias_strided)
    assert not _partition._is_view(as_strided) and _partition._strided_not_view(as_strided)
    assert _partition._is_view(transpose) and not _partition._strided_not_view(transpose)


class TinyLM(nn.Module):
    """Returns its logits (3-d, a reshape of the head's 2-d product, which
    the loss's backward reads) and attention probabilities (returned and
    read by the backward), as Hugging Face's causal LMs can."""

    def __init__(self, vocab=50, d=16):
        super().__init__()
        self.emb, self.k, self.head = nn.Embedding(vocab, d), nn.Linear(d, d), nn.Linear(d, vocab)

    def forward(self, ids):
        h = self.emb(ids)
        att = (self.k(h) @ h.transpose(1, 2)).softmax(-1)
        logits = self.head(h + att @ h)
        loss = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), ids.reshape(-1))
        return logits, att, loss


@pytest.mark.parametrize("device", DEVICES)
def test_outputs_the_backward_reads_are_returned_once(device):
    torch.manual_seed(0)
    model = TinyLM().to(device)
    ids = torch.randint(0, 50, (2, 8), device=device)
    ref = TinyLM().to(device)
    ref.load_state_dict(model.state_dict())
    c = tgc.compile(model)
    logits, k, loss = c(ids)
    spec = c._training.specs[0]
    # The probabilities themselves and the logits' 2-d base are rebuilt
    # from the outputs, not returned (and copied) a second time.
    assert sorted(shape is None for _, _, shape in spec.shared_saved) == [False, True], \
        spec.shared_saved
    (logits.sum() * 0 + loss + k.square().sum()).backward()
    want_logits, want_k, want_loss = ref(ids)
    (want_logits.sum() * 0 + want_loss + want_k.square().sum()).backward()
    torch.testing.assert_close(logits, want_logits, rtol=1e-4, atol=1e-5)
    for p, q in zip(model.parameters(), ref.parameters()):
        torch.testing.assert_close(p.grad, q.grad, rtol=1e-4, atol=1e-5)
    # A shared saved tensor is the output: changing the output in place
    # before the backward is refused, as eager refuses it.
    logits, k, loss = c(ids)
    k.mul_(2)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        loss.backward()


@pytest.mark.parametrize("device", DEVICES)
def test_a_backward_per_set_of_absent_output_gradients(device):
    # The logits and probabilities the loss does not use get no gradient:
    # their backward is compiled without those tangents (no zeros filled
    # and added), and another set of gradients gets a backward of its own.
    torch.manual_seed(0)
    model = TinyLM().to(device)
    ref = TinyLM().to(device)
    ref.load_state_dict(model.state_dict())
    ids = torch.randint(0, 50, (2, 8), device=device)
    c = tgc.compile(model)
    for use in ("loss", "loss", "all"):
        for m in (model, ref):
            m.zero_grad(set_to_none=True)
        for m in (c, ref):
            logits, att, loss = m(ids)
            (loss if use == "loss" else loss + logits.square().mean() + att.sum()).backward()
        for p, q in zip(model.parameters(), ref.parameters()):
            torch.testing.assert_close(p.grad, q.grad, rtol=1e-4, atol=1e-5)
    spec = c._training.specs[0]
    assert sorted(spec.backwards) == [(), (0, 1)], list(spec.backwards)
    metas = [(t.shape, t.dtype, t.device) for t in c(ids)[:2]]
    graph = _autograd.without_tangents(spec.backward_graph, spec.num_saved, (0, 1), metas)
    tangents = [n for n in graph.graph.nodes if n.op == "placeholder"][spec.num_saved:]
    assert len(tangents) == 1
    # The gradients the logits' and probabilities' users add to the absent
    # ones are the gradients themselves: no zeros left to add.
    def zeros(g):
        return sum(n.target is torch.ops.aten.zeros.default for n in g.graph.nodes)

    assert zeros(graph) == zeros(spec.backward_graph)
