"""Small models against eager PyTorch: MLP, LayerNorm+GELU, attention, a
transformer encoder layer, a CNN; parameters are inputs, not constants."""

import math

import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F

import tgc
from conftest import assert_same

torch.manual_seed(0)


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(16, 32)
        self.fc2 = nn.Linear(32, 8)

    def forward(self, x):
        return torch.softmax(self.fc2(F.gelu(self.fc1(x))), dim=1)


class LNGelu(nn.Module):
    def __init__(self):
        super().__init__()
        self.ln = nn.LayerNorm(24)
        self.fc = nn.Linear(24, 24)

    def forward(self, x):
        return F.gelu(self.fc(self.ln(x)))


class Attention(nn.Module):
    def __init__(self, d=16, heads=2):
        super().__init__()
        self.heads, self.d = heads, d
        self.qkv = nn.Linear(d, 3 * d)
        self.out = nn.Linear(d, d)

    def forward(self, x):
        b, s, d = x.shape
        q, k, v = self._split(x, b, s)
        att = torch.softmax(q @ k.transpose(-2, -1) / math.sqrt(d // self.heads), dim=-1)
        y = (att @ v).transpose(1, 2).reshape(b, s, d)
        return self.out(y)

    def _split(self, x, b, s):
        qkv = self.qkv(x).view(b, s, 3, self.heads, self.d // self.heads).permute(2, 0, 3, 1, 4)
        return qkv[0], qkv[1], qkv[2]


class PackedAttention(Attention):
    """Attention that never reads a size: heads by unflatten, q/k/v as
    `qkv[0]`-style selects, so batch and sequence stay dynamic."""

    def forward(self, x):
        qkv = self.qkv(x).unflatten(-1, (3, self.heads, self.d // self.heads)).permute(2, 0, 3, 1, 4)
        q, k, v = qkv[0], qkv[1], qkv[2]
        att = torch.softmax(q @ k.transpose(-2, -1) / math.sqrt(self.d // self.heads), -1)
        return self.out((att @ v).transpose(1, 2).flatten(2))


class EncoderLayer(nn.Module):
    def __init__(self, d=16):
        super().__init__()
        self.att = Attention(d)
        self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.ff1, self.ff2 = nn.Linear(d, 4 * d), nn.Linear(4 * d, d)

    def forward(self, x):
        x = self.ln1(x + self.att(x))
        return self.ln2(x + self.ff2(F.relu(self.ff1(x))))


class CNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 8, 3, padding=1)
        self.conv2 = nn.Conv2d(8, 8, 3, padding=1)
        self.pool = nn.MaxPool2d(2)
        self.fc = nn.Linear(8 * 4 * 4, 10)

    def forward(self, x):
        x = self.pool(F.relu(self.conv1(x)))
        x = self.pool(F.relu(self.conv2(x)))
        return self.fc(torch.flatten(x, 1))


def entropy(x):
    p = torch.softmax(x, dim=-1)
    return -(p * torch.log(p + 1e-8)).sum(-1)


CASES = [
    (MLP, lambda b: torch.randn(b, 16)),
    (LNGelu, lambda b: torch.randn(b, 24)),
    (Attention, lambda b: torch.randn(b, 5, 16)),
    (EncoderLayer, lambda b: torch.randn(b, 5, 16)),
    (CNN, lambda b: torch.randn(b, 3, 16, 16)),
]


@pytest.mark.parametrize("cls,make", CASES, ids=[c[0].__name__ for c in CASES])
def test_model(cls, make):
    model = cls().eval()
    compiled = tgc.compile(model, dynamic=True)
    with torch.no_grad():
        for b in (2, 3, 7):
            x = make(b)
            assert_same(compiled(x), model(x), rtol=1e-4, atol=1e-4)


def test_entropy_dynamic_one_compile():
    compiled = tgc.compile(entropy, dynamic=True)
    for n in (3, 17, 64):
        x = torch.randn(n, 50)
        assert_same(compiled(x), entropy(x), rtol=1e-4, atol=1e-4)
    assert tgc.explain(compiled).compiles == 1


def test_packed_attention_one_compile():
    # Batch and sequence length both dynamic: the selects of the packed
    # projection keep two `?` sizes (this once emitted an invalid reshape).
    model = PackedAttention().eval()
    compiled = tgc.compile(model, dynamic=True)
    with torch.no_grad():
        for b, s in ((2, 5), (3, 9), (4, 2)):
            x = torch.randn(b, s, 16)
            assert_same(compiled(x), model(x), rtol=1e-4, atol=1e-4)
    assert tgc.explain(compiled).compiles == 1


def test_parameters_are_inputs_not_constants():
    model = MLP().eval()
    compiled = tgc.compile(model)
    x = torch.randn(4, 16)
    with torch.no_grad():
        assert_same(compiled(x), model(x), rtol=1e-4, atol=1e-4)
        model.fc1.weight.mul_(0.5)  # in-place: the same parameter object
        assert_same(compiled(x), model(x), rtol=1e-4, atol=1e-4)
    assert tgc.explain(compiled).compiles == 1
    graph = tgc.explain(compiled).graphs[0]
    assert "tensor<32x16xf32>" in graph.split("{")[0]  # fc1.weight is an argument
