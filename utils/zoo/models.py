"""The models of the zoo: each a builder of (module, make_inputs) at a size.

Local models are written here (PyTorch 1.13 and 2.x, CPU and GPU); the
Hugging Face and torchvision ones are built from configs with random
weights (nothing is downloaded) where those packages are installed.
`make_inputs(batch, seq)` returns (args, kwargs) for one call; `sizes` are
the (batch, seq) pairs the harness calls the model with, in order.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable, Dict, List, Optional, Tuple

import torch
import torch.nn as nn
import torch.nn.functional as F


@dataclass
class Entry:
    name: str
    build: Callable[[], nn.Module]
    inputs: Callable[[int, int, torch.device], Tuple[tuple, dict]]
    sizes: List[Tuple[int, int]] = field(default_factory=lambda: [(2, 16), (4, 16), (3, 24)])
    family: str = "local"  # local, hf, torchvision
    needs: str = ""  # a module that must import (transformers, torchvision)
    # The ten (batch, seq) sizes of --varying (None: the harness's default).
    varying: Optional[List[Tuple[int, int]]] = None
    # Graphs its own Python branches on sizes need (each a compile, as in
    # Dynamo): HF ViT returns its position table as it is at 224 x 224.
    branches: int = 1


# --- local models ----------------------------------------------------------------


class MLP(nn.Module):
    def __init__(self, d=32):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(d, 64), nn.LayerNorm(64), nn.GELU(),
                                 nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 10))

    def forward(self, x):
        return torch.log_softmax(self.net(x), -1)


class Block(nn.Module):
    """Pre-norm transformer block with its own attention (no fast path)."""

    def __init__(self, d=32, heads=4):
        super().__init__()
        self.heads = heads
        self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.qkv, self.proj = nn.Linear(d, 3 * d), nn.Linear(d, d)
        self.ff = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d))

    def forward(self, x):
        h = self.ln1(x)
        q, k, v = self.qkv(h).unflatten(-1, (3, self.heads, -1)).permute(2, 0, 3, 1, 4)
        att = torch.softmax(q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1]), -1)
        x = x + self.proj((att @ v).transpose(1, 2).flatten(2))
        return x + self.ff(self.ln2(x))


class Encoder(nn.Module):
    def __init__(self, vocab=100, d=32, layers=3):
        super().__init__()
        self.embed = nn.Embedding(vocab, d)
        self.pos = nn.Parameter(torch.randn(64, d) * 0.02)
        self.blocks = nn.ModuleList(Block(d) for _ in range(layers))
        self.norm = nn.LayerNorm(d)
        self.head = nn.Linear(d, vocab)

    def forward(self, ids):
        x = self.embed(ids) + self.pos[: ids.shape[1]]
        for b in self.blocks:
            x = b(x)
        return self.head(self.norm(x))


class ReadsShape(nn.Module):
    """Reads its input's sizes in Python and builds views from them (issue
    19's example): one compile for every batch and sequence length."""

    def __init__(self, d=64):
        super().__init__()
        self.l = nn.Linear(d, d)

    def forward(self, x):
        B, S, D = x.shape
        return torch.softmax(self.l(x).view(B * S, D), -1).view(B, S, D)


class CNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.c1 = nn.Conv2d(3, 8, 3, padding=1)
        self.c2 = nn.Conv2d(8, 16, 3, padding=1, stride=2)
        self.c3 = nn.Conv2d(16, 16, 1)
        self.fc = nn.Linear(16, 10)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.c1(x)), 2)
        x = F.relu(self.c2(x))
        x = x + F.relu(self.c3(x))  # a residual
        return self.fc(F.adaptive_avg_pool2d(x, 1).flatten(1))


class ResidualStack(nn.Module):
    """Many repeated residual blocks with views: the fuzzer's whole-model
    shape as a model (reshapes, permutes, in-place adds on temporaries)."""

    def __init__(self, d=24, depth=6):
        super().__init__()
        self.layers = nn.ModuleList(nn.Linear(d, d) for _ in range(depth))
        self.norms = nn.ModuleList(nn.LayerNorm(d) for _ in range(depth))

    def forward(self, x):
        b, s, d = x.shape
        for lin, ln in zip(self.layers, self.norms):
            h = lin(ln(x)).view(b, s, 2, d // 2).transpose(2, 3).reshape(b, s, d)
            h = torch.tanh(h)
            h.mul_(0.5)
            x = x + h
        return x.sum(1), x.amax(-1)


class SeqRegressor(nn.Module):
    """Gather, cumulative masking and reductions over a sequence."""

    def __init__(self, vocab=50, d=16):
        super().__init__()
        self.embed = nn.Embedding(vocab, d)
        self.score = nn.Linear(d, 1)

    def forward(self, ids, mask):
        x = self.embed(ids)
        w = self.score(x).squeeze(-1).masked_fill(~mask, float("-inf"))
        p = torch.softmax(w, -1)
        return (p.unsqueeze(-1) * x).sum(1), p.argmax(-1)


def _ids(vocab):
    def make(batch, seq, device):
        return (torch.randint(0, vocab, (batch, seq), device=device),), {}
    return make


LOCAL = [
    Entry("mlp", MLP, lambda b, s, dev: ((torch.randn(b * 4, 32, device=dev),), {}),
          sizes=[(2, 0), (5, 0), (9, 0)]),
    Entry("encoder", Encoder, _ids(100), sizes=[(2, 16), (4, 16), (3, 24), (2, 40)]),
    Entry("cnn", CNN, lambda b, s, dev: ((torch.randn(b, 3, 16, 16, device=dev),), {}),
          sizes=[(2, 0), (4, 0), (3, 0)]),
    Entry("residual-stack", ResidualStack,
          lambda b, s, dev: ((torch.randn(b, s, 24, device=dev),), {}),
          sizes=[(2, 8), (3, 8), (2, 12)]),
    Entry("reads-shape", ReadsShape, lambda b, s, dev: ((torch.randn(b, s, 64, device=dev),), {}),
          sizes=[(2, 7), (2, 9), (3, 16)]),
    Entry("seq-regressor", SeqRegressor,
          lambda b, s, dev: ((torch.randint(0, 50, (b, s), device=dev),
                              torch.rand(b, s, device=dev) > 0.3), {}),
          sizes=[(2, 10), (4, 10), (3, 7)]),
]


# --- Hugging Face (transformers, configs with random weights) -------------------
# Decoders return their cache object (transformers 5: DynamicCache) by
# default: a result TGC rebuilds like any object of tensors.


def _hf(name: str, config_cls: str, model_cls: str, config: dict, kind: str = "ids",
        vocab: int = 1000):
    def build():
        import transformers

        cfg = getattr(transformers, config_cls)(**config)
        return getattr(transformers, model_cls)(cfg)

    def inputs(batch, seq, device):
        if kind == "pixels":
            return (), {"pixel_values": torch.randn(batch, 3, 224, 224, device=device)}
        if kind == "images":  # seq: the image size (position table interpolated)
            return (), {"pixel_values": torch.randn(batch, 3, seq, seq, device=device),
                        "interpolate_pos_encoding": True}
        ids = torch.randint(0, vocab, (batch, seq), device=device)
        if kind == "seq2seq":
            return (), {"input_ids": ids, "decoder_input_ids": ids[:, : max(1, seq // 2)]}
        if kind == "whisper":  # log-mel features: twice the encoder's 64 positions
            return (), {"input_features": torch.randn(batch, 80, 128, device=device),
                        "decoder_input_ids": ids[:, : max(1, seq // 2)]}
        if kind == "audio":  # raw samples: 50 per token
            return (), {"input_values": torch.randn(batch, 50 * seq, device=device)}
        return (), {"input_ids": ids}

    sizes = {"pixels": [(2, 0), (4, 0), (3, 0)],
             "images": [(2, 224), (2, 160), (3, 288)]}.get(kind, [(2, 32), (4, 32), (3, 48), (2, 64)])
    varying = [(2, 224), (3, 160), (2, 288), (4, 192), (2, 256), (3, 128), (2, 320),
               (5, 176), (2, 208), (3, 240)] if kind == "images" else None
    return Entry(name, build, inputs, sizes=sizes, family="hf", needs="transformers",
                 varying=varying, branches=2 if kind == "images" else 1)


HF = [
    _hf("hf-gpt2", "GPT2Config", "GPT2Model",
        dict(n_layer=2, n_embd=128, n_head=4, vocab_size=1000, n_positions=256)),
    _hf("hf-bert", "BertConfig", "BertModel",
        dict(num_hidden_layers=4, hidden_size=256, num_attention_heads=4,
             intermediate_size=1024, vocab_size=8000), vocab=8000),
    _hf("hf-llama", "LlamaConfig", "LlamaModel",
        dict(num_hidden_layers=2, hidden_size=128, num_attention_heads=4,
             num_key_value_heads=2, intermediate_size=256, vocab_size=1000)),
    _hf("hf-mistral", "MistralConfig", "MistralModel",
        dict(num_hidden_layers=2, hidden_size=128, num_attention_heads=4,
             num_key_value_heads=2, intermediate_size=256, vocab_size=1000)),
    _hf("hf-vit", "ViTConfig", "ViTModel",
        dict(num_hidden_layers=2, hidden_size=256, num_attention_heads=4,
             intermediate_size=1024), kind="pixels"),
    # ViT at varying image sizes (its position table interpolated, bicubic):
    # one compile for 224 (the table as it is) and one for every other size.
    _hf("hf-vit-images", "ViTConfig", "ViTModel",
        dict(num_hidden_layers=2, hidden_size=256, num_attention_heads=4,
             intermediate_size=1024), kind="images"),
    _hf("hf-t5", "T5Config", "T5Model",
        dict(num_layers=2, num_decoder_layers=2, d_model=128, num_heads=4, d_kv=32,
             d_ff=256, vocab_size=1000), kind="seq2seq"),
]


# A wider sweep of architectures (`--models hf-wide`): not in `hf`, whose
# runs every validation repeats; each is built from a small config of the
# installed transformers (a class it lacks: the model is skipped).
_SMALL = dict(num_hidden_layers=2, hidden_size=128, num_attention_heads=4,
              intermediate_size=256, vocab_size=1000)
_DECODER = dict(_SMALL, num_key_value_heads=2)
HF_WIDE = [
    _hf("hf-distilbert", "DistilBertConfig", "DistilBertModel",
        dict(n_layers=2, dim=128, n_heads=4, hidden_dim=256, vocab_size=1000)),
    _hf("hf-roberta", "RobertaConfig", "RobertaModel", dict(_SMALL)),
    _hf("hf-albert", "AlbertConfig", "AlbertModel", dict(_SMALL, embedding_size=64)),
    _hf("hf-electra", "ElectraConfig", "ElectraModel", dict(_SMALL, embedding_size=64)),
    _hf("hf-deberta-v2", "DebertaV2Config", "DebertaV2Model", dict(_SMALL)),
    _hf("hf-qwen2", "Qwen2Config", "Qwen2Model", dict(_DECODER)),
    _hf("hf-qwen3", "Qwen3Config", "Qwen3Model", dict(_DECODER, head_dim=32)),
    _hf("hf-phi3", "Phi3Config", "Phi3Model", dict(_DECODER, pad_token_id=0)),
    _hf("hf-gemma", "GemmaConfig", "GemmaModel", dict(_DECODER, head_dim=32)),
    _hf("hf-opt", "OPTConfig", "OPTModel",
        dict(num_hidden_layers=2, hidden_size=128, num_attention_heads=4, ffn_dim=256,
             word_embed_proj_dim=128, vocab_size=1000, max_position_embeddings=256)),
    _hf("hf-gpt-neo", "GPTNeoConfig", "GPTNeoModel",
        dict(num_layers=2, hidden_size=128, num_heads=4, vocab_size=1000,
             attention_types=[[["global", "local"], 1]], window_size=16,
             max_position_embeddings=256)),
    _hf("hf-gptj", "GPTJConfig", "GPTJModel",
        dict(n_layer=2, n_embd=128, n_head=4, rotary_dim=16, vocab_size=1000, n_positions=256)),
    _hf("hf-gpt-bigcode", "GPTBigCodeConfig", "GPTBigCodeModel",
        dict(n_layer=2, n_embd=128, n_head=4, vocab_size=1000, n_positions=256)),
    _hf("hf-bloom", "BloomConfig", "BloomModel",
        dict(n_layer=2, hidden_size=128, n_head=4, vocab_size=1000)),
    _hf("hf-falcon", "FalconConfig", "FalconModel",
        dict(num_hidden_layers=2, hidden_size=128, num_attention_heads=4, vocab_size=1000)),
    _hf("hf-bart", "BartConfig", "BartModel",
        dict(encoder_layers=2, decoder_layers=2, d_model=128, encoder_attention_heads=4,
             decoder_attention_heads=4, encoder_ffn_dim=256, decoder_ffn_dim=256,
             vocab_size=1000, max_position_embeddings=256), kind="seq2seq"),
    _hf("hf-deit", "DeiTConfig", "DeiTModel",
        dict(num_hidden_layers=2, hidden_size=128, num_attention_heads=4,
             intermediate_size=256), kind="pixels"),
    _hf("hf-convnext", "ConvNextConfig", "ConvNextModel",
        dict(depths=[1, 1, 1, 1], hidden_sizes=[32, 64, 128, 256]), kind="pixels"),
    _hf("hf-swin", "SwinConfig", "SwinModel",
        dict(embed_dim=32, depths=[1, 1, 1, 1], num_heads=[1, 2, 4, 8]), kind="pixels"),
    _hf("hf-resnet", "ResNetConfig", "ResNetModel",
        dict(depths=[1, 1, 1, 1], hidden_sizes=[32, 64, 128, 256], embedding_size=32),
        kind="pixels"),
]

# --- torchvision (random weights) ----------------------------------------------


def _tv(name: str, fn: str, res: int = 64):
    def build():
        import torchvision.models as tvm

        model = getattr(tvm, fn)()
        # Heads initialized to zero (ViT's) make every output 0 whatever the
        # network computes: random weights, so the comparison sees it all.
        for mod in model.modules():
            if isinstance(mod, torch.nn.Linear) and not bool(mod.weight.any()):
                torch.nn.init.normal_(mod.weight, std=0.02)
        return model

    def inputs(batch, seq, device):
        return (torch.randn(batch, 3, res, res, device=device),), {}

    return Entry(name, build, inputs, sizes=[(2, 0), (4, 0), (3, 0)],
                 family="torchvision", needs="torchvision")


TORCHVISION = [
    _tv("tv-resnet18", "resnet18"),
    _tv("tv-mobilenet-v3", "mobilenet_v3_small"),
    _tv("tv-efficientnet-b0", "efficientnet_b0"),
    _tv("tv-convnext-tiny", "convnext_tiny"),
    _tv("tv-swin-t", "swin_t", res=224),
    _tv("tv-vit-b-16", "vit_b_16", res=224),
    _tv("tv-squeezenet", "squeezenet1_1"),
]

HF_WIDE2 = [
    _hf("hf-clip-text", "CLIPTextConfig", "CLIPTextModel", dict(_SMALL)),
    _hf("hf-clip-vision", "CLIPVisionConfig", "CLIPVisionModel",
        dict(num_hidden_layers=2, hidden_size=128, num_attention_heads=4,
             intermediate_size=256), kind="pixels"),
    _hf("hf-whisper", "WhisperConfig", "WhisperModel",
        dict(encoder_layers=2, decoder_layers=2, d_model=128, encoder_attention_heads=4,
             decoder_attention_heads=4, encoder_ffn_dim=256, decoder_ffn_dim=256,
             vocab_size=1000, max_source_positions=64, max_target_positions=128,
             num_mel_bins=80, pad_token_id=0, bos_token_id=1, eos_token_id=2,
             decoder_start_token_id=3), kind="whisper"),
    _hf("hf-wav2vec2", "Wav2Vec2Config", "Wav2Vec2Model",
        dict(num_hidden_layers=2, hidden_size=128, num_attention_heads=4,
             intermediate_size=256, conv_dim=(32, 32, 32), conv_stride=(5, 2, 2),
             conv_kernel=(10, 3, 3), num_conv_pos_embeddings=16,
             num_conv_pos_embedding_groups=4), kind="audio"),
    _hf("hf-mobilebert", "MobileBertConfig", "MobileBertModel",
        dict(num_hidden_layers=2, hidden_size=128, num_attention_heads=4,
             intermediate_size=128, embedding_size=64, intra_bottleneck_size=64,
             true_hidden_size=64, vocab_size=1000)),
    _hf("hf-xlnet", "XLNetConfig", "XLNetModel",
        dict(n_layer=2, d_model=128, n_head=4, d_inner=256, vocab_size=1000)),
    _hf("hf-longformer", "LongformerConfig", "LongformerModel",
        dict(_SMALL, attention_window=16)),
    _hf("hf-mpnet", "MPNetConfig", "MPNetModel", dict(_SMALL)),
    _hf("hf-pegasus", "PegasusConfig", "PegasusModel",
        dict(encoder_layers=2, decoder_layers=2, d_model=128, encoder_attention_heads=4,
             decoder_attention_heads=4, encoder_ffn_dim=256, decoder_ffn_dim=256,
             vocab_size=1000, max_position_embeddings=256), kind="seq2seq"),
    _hf("hf-gpt-neox", "GPTNeoXConfig", "GPTNeoXModel", dict(_SMALL)),
    _hf("hf-stablelm", "StableLmConfig", "StableLmModel", dict(_DECODER)),
    _hf("hf-mixtral", "MixtralConfig", "MixtralModel",
        dict(_DECODER, num_local_experts=4, num_experts_per_tok=2)),
    _hf("hf-fnet", "FNetConfig", "FNetModel", dict(_SMALL)),
]

# The wider torchvision sweep (`--models torchvision-wide`).
TORCHVISION_WIDE = [
    _tv("tv-resnet50", "resnet50"),
    _tv("tv-resnext50", "resnext50_32x4d"),
    _tv("tv-densenet121", "densenet121"),
    _tv("tv-mobilenet-v2", "mobilenet_v2"),
    _tv("tv-mnasnet", "mnasnet0_5"),
    _tv("tv-shufflenet-v2", "shufflenet_v2_x0_5"),
    _tv("tv-regnet-y", "regnet_y_400mf"),
    _tv("tv-efficientnet-v2-s", "efficientnet_v2_s"),
    _tv("tv-googlenet", "googlenet"),
    _tv("tv-vgg11-bn", "vgg11_bn"),
    _tv("tv-alexnet", "alexnet", res=96),
    _tv("tv-maxvit-t", "maxvit_t", res=224),
    _tv("tv-swin-v2-t", "swin_v2_t", res=224),
]

ALL: Dict[str, Entry] = {e.name: e for e in LOCAL + HF + TORCHVISION + HF_WIDE
                          + HF_WIDE2 + TORCHVISION_WIDE}
