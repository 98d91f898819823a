#!/usr/bin/python3
"""CPU benchmark of the models of the CPU pipeline (issue 4) at realistic
sizes: compile time, run time fused and planned vs the same graph op by op
(`tgc-run --no-fuse`), and PyTorch eager on the same shapes in the same run
(torch.compile where the installed PyTorch has it; Debian's 1.13 does not).

For each case it prints the median run time of each contender, the ratios
(PyTorch / TGC: above 1 means TGC is faster), and the achieved GB/s
(memory-bound cases: bytes of inputs and outputs over the run time) or
GFLOP/s (matmul-bound cases) next to the machine's limit: the copy
bandwidth measured in the same run (`torch` copy of 256 MiB), and the peak
FLOP/s of a large PyTorch matmul.

  utils/bench/cpu_models.py [--tgc-run build/bin/tgc-run] [--repeat 20]
                            [--only mlp,entropy] [--json out.json]
                            [--tgc-run-flag=--vector-width=256]
  utils/bench/cpu_models.py --python [--only resnet18,convs] [--repeat 10]
                            [--options direct-convolutions=0] [--no-torch-compile]

`--python` runs the rows of issue 25 from Python instead, where users call
TGC: `tgc.compile` against eager and, where PyTorch has it, torch.compile
(Inductor's C++ backend), in one process: matmul 512^3 and 2048^3, two
3x3 convolutions, torchvision ResNet-18, MobileNetV3-small and SqueezeNet
1.1 (112 x 112, batch 4), a BERT-size encoder (2 layers of 768, 12 heads,
2 x 128 tokens) and a softmax / layer-norm / GELU chain.

Standard library plus torch (for the PyTorch columns; without it they read
"n/a"). Every TGC run is also checked: the bench refuses to time a case
whose first call fails.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

try:
    import torch
    import torch.nn.functional as F
except ImportError:  # the TGC columns still work
    torch = None


# ---- models: MLIR text, shapes of one call, PyTorch equivalent, cost ----

def mlp(B=256, I=784, H=512, O=10):
    text = f"""
func.func @mlp(%x: tensor<?x{I}xf32>, %w1: tensor<{H}x{I}xf32>, %b1: tensor<{H}xf32>,
               %w2: tensor<{O}x{H}xf32>, %b2: tensor<{O}xf32>) -> tensor<?x{O}xf32> {{
  %h = tgc.linear %x, %w1, %b1 : tensor<?x{I}xf32>, tensor<{H}x{I}xf32>, tensor<{H}xf32> -> tensor<?x{H}xf32>
  %a = tgc.gelu %h : tensor<?x{H}xf32>
  %y = tgc.linear %a, %w2, %b2 : tensor<?x{H}xf32>, tensor<{O}x{H}xf32>, tensor<{O}xf32> -> tensor<?x{O}xf32>
  %p = tgc.softmax %y dim = 1 : tensor<?x{O}xf32>
  return %p : tensor<?x{O}xf32>
}}"""
    shapes = [[B, I], [H, I], [H], [O, H], [O]]

    def ref(x, w1, b1, w2, b2):
        return torch.softmax(F.linear(F.gelu(F.linear(x, w1, b1)), w2, b2), 1)
    flops = 2 * B * (I * H + H * O)
    return text, shapes, ref, ("flops", flops)


def chain(B=4096, N=1024):
    text = f"""
func.func @chain(%x: tensor<?x{N}xf32>, %w: tensor<{N}xf32>, %b: tensor<{N}xf32>) -> tensor<?x{N}xf32> {{
  %s = tgc.softmax %x dim = 1 : tensor<?x{N}xf32>
  %n = tgc.layer_norm %s weight(%w : tensor<{N}xf32>) bias(%b : tensor<{N}xf32>) normalized_rank = 1 eps = 1.0e-05 : tensor<?x{N}xf32>
  %g = tgc.gelu %n approximate = tanh : tensor<?x{N}xf32>
  return %g : tensor<?x{N}xf32>
}}"""
    shapes = [[B, N], [N], [N]]

    def ref(x, w, b):
        s = torch.softmax(x, 1)
        return F.gelu(F.layer_norm(s, (N,), w, b, 1e-5), approximate="tanh")
    return text, shapes, ref, ("bytes", 4 * (2 * B * N + 2 * N))


def entropy(B=1024, V=8192):
    text = f"""
func.func @entropy(%x: tensor<?x{V}xf32>) -> tensor<?xf32> {{
  %p = tgc.softmax %x dim = 1 : tensor<?x{V}xf32>
  %eps = tgc.constant dense<1.0e-08> : tensor<f32>
  %q = tgc.add %p, %eps : tensor<?x{V}xf32>, tensor<f32> -> tensor<?x{V}xf32>
  %l = tgc.log %q : tensor<?x{V}xf32>
  %m = tgc.mul %p, %l : tensor<?x{V}xf32>, tensor<?x{V}xf32> -> tensor<?x{V}xf32>
  %s = tgc.sum %m dims [1] : tensor<?x{V}xf32> -> tensor<?xf32>
  %e = tgc.neg %s : tensor<?xf32>
  return %e : tensor<?xf32>
}}"""

    def ref(x):
        p = torch.softmax(x, 1)
        return -(p * torch.log(p + 1e-8)).sum(-1)
    return text, [[B, V]], ref, ("bytes", 4 * (B * V + B))


def attention(B=4, H=8, T=256, D=64):
    t = f"tensor<{B}x{H}x?x{D}xf32>"
    text = f"""
func.func @attention(%q: {t}, %k: {t}, %v: {t}) -> {t} {{
  %o = tgc.scaled_dot_product_attention %q, %k, %v causal : {t}, {t}, {t} -> {t}
  return %o : {t}
}}"""

    def ref(q, k, v):
        s = (q @ k.transpose(-1, -2)) / (D ** 0.5)
        mask = torch.ones(T, T, dtype=torch.bool).tril()
        s = s.masked_fill(~mask, float("-inf"))
        return torch.softmax(s, -1) @ v
    flops = 4 * B * H * T * T * D  # both matmuls, full (causal skips none)
    return text, [[B, H, T, D]] * 3, ref, ("flops", flops)


def transformer(B=8, T=128, C=256, NH=4, M=1024):
    hd = C // NH
    x = f"tensor<?x?x{C}xf32>"
    text = f"""
func.func @block(%x: {x}, %ln1_w: tensor<{C}xf32>, %ln1_b: tensor<{C}xf32>,
                 %w_qkv: tensor<{3*C}x{C}xf32>, %b_qkv: tensor<{3*C}xf32>,
                 %w_o: tensor<{C}x{C}xf32>, %b_o: tensor<{C}xf32>,
                 %ln2_w: tensor<{C}xf32>, %ln2_b: tensor<{C}xf32>,
                 %w_1: tensor<{M}x{C}xf32>, %b_1: tensor<{M}xf32>,
                 %w_2: tensor<{C}x{M}xf32>, %b_2: tensor<{C}xf32>) -> {x} {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %B = tensor.dim %x, %c0 : {x}
  %T = tensor.dim %x, %c1 : {x}
  %h = tgc.layer_norm %x weight(%ln1_w : tensor<{C}xf32>) bias(%ln1_b : tensor<{C}xf32>) normalized_rank = 1 eps = 1.0e-05 : {x}
  %qkv = tgc.linear %h, %w_qkv, %b_qkv : {x}, tensor<{3*C}x{C}xf32>, tensor<{3*C}xf32> -> tensor<?x?x{3*C}xf32>
  %q = tgc.slice %qkv dim = 2 start = 0 end = {C} step = 1 : tensor<?x?x{3*C}xf32> -> {x}
  %k = tgc.slice %qkv dim = 2 start = {C} end = {2*C} step = 1 : tensor<?x?x{3*C}xf32> -> {x}
  %v = tgc.slice %qkv dim = 2 start = {2*C} end = {3*C} step = 1 : tensor<?x?x{3*C}xf32> -> {x}
  %q4 = tgc.reshape %q [%B, %T] : {x} -> tensor<?x?x{NH}x{hd}xf32>
  %k4 = tgc.reshape %k [%B, %T] : {x} -> tensor<?x?x{NH}x{hd}xf32>
  %v4 = tgc.reshape %v [%B, %T] : {x} -> tensor<?x?x{NH}x{hd}xf32>
  %qh = tgc.permute %q4 [0, 2, 1, 3] : tensor<?x?x{NH}x{hd}xf32> -> tensor<?x{NH}x?x{hd}xf32>
  %kh = tgc.permute %k4 [0, 2, 1, 3] : tensor<?x?x{NH}x{hd}xf32> -> tensor<?x{NH}x?x{hd}xf32>
  %vh = tgc.permute %v4 [0, 2, 1, 3] : tensor<?x?x{NH}x{hd}xf32> -> tensor<?x{NH}x?x{hd}xf32>
  %ah = tgc.scaled_dot_product_attention %qh, %kh, %vh causal : tensor<?x{NH}x?x{hd}xf32>, tensor<?x{NH}x?x{hd}xf32>, tensor<?x{NH}x?x{hd}xf32> -> tensor<?x{NH}x?x{hd}xf32>
  %a4 = tgc.permute %ah [0, 2, 1, 3] : tensor<?x{NH}x?x{hd}xf32> -> tensor<?x?x{NH}x{hd}xf32>
  %a = tgc.reshape %a4 [%B, %T] : tensor<?x?x{NH}x{hd}xf32> -> {x}
  %o = tgc.linear %a, %w_o, %b_o : {x}, tensor<{C}x{C}xf32>, tensor<{C}xf32> -> {x}
  %x1 = tgc.add %x, %o : {x}, {x} -> {x}
  %h2 = tgc.layer_norm %x1 weight(%ln2_w : tensor<{C}xf32>) bias(%ln2_b : tensor<{C}xf32>) normalized_rank = 1 eps = 1.0e-05 : {x}
  %m1 = tgc.linear %h2, %w_1, %b_1 : {x}, tensor<{M}x{C}xf32>, tensor<{M}xf32> -> tensor<?x?x{M}xf32>
  %g = tgc.gelu %m1 : tensor<?x?x{M}xf32>
  %m2 = tgc.linear %g, %w_2, %b_2 : tensor<?x?x{M}xf32>, tensor<{C}x{M}xf32>, tensor<{C}xf32> -> {x}
  %y = tgc.add %x1, %m2 : {x}, {x} -> {x}
  return %y : {x}
}}"""
    shapes = [[B, T, C], [C], [C], [3 * C, C], [3 * C], [C, C], [C], [C], [C],
              [M, C], [M], [C, M], [C]]

    def ref(x, ln1_w, ln1_b, w_qkv, b_qkv, w_o, b_o, ln2_w, ln2_b, w_1, b_1,
            w_2, b_2):
        h = F.layer_norm(x, (C,), ln1_w, ln1_b, 1e-5)
        q, k, v = F.linear(h, w_qkv, b_qkv).split(C, dim=2)
        q, k, v = [t.reshape(B, T, NH, hd).permute(0, 2, 1, 3) for t in (q, k, v)]
        s = (q @ k.transpose(-1, -2)) / (hd ** 0.5)
        mask = torch.ones(T, T, dtype=torch.bool).tril()
        a = torch.softmax(s.masked_fill(~mask, float("-inf")), -1) @ v
        a = a.permute(0, 2, 1, 3).reshape(B, T, C)
        x1 = x + F.linear(a, w_o, b_o)
        h2 = F.layer_norm(x1, (C,), ln2_w, ln2_b, 1e-5)
        return x1 + F.linear(F.gelu(F.linear(h2, w_1, b_1)), w_2, b_2)
    flops = 2 * B * T * (3 * C * C + C * C + 2 * C * M) + 4 * B * T * T * C
    return text, shapes, ref, ("flops", flops)


def cnn(B=32):
    text = """
func.func @cnn(%x: tensor<?x3x32x32xf32>,
               %w1: tensor<16x3x3x3xf32>, %b1: tensor<16xf32>,
               %w2: tensor<32x16x3x3xf32>, %b2: tensor<32xf32>,
               %w3: tensor<10x2048xf32>, %b3: tensor<10xf32>) -> tensor<?x10xf32> {
  %c1 = tgc.conv2d %x, %w1 bias(%b1 : tensor<16xf32>) stride [1, 1] padding [1, 1] dilation [1, 1] groups = 1 : tensor<?x3x32x32xf32>, tensor<16x3x3x3xf32> -> tensor<?x16x32x32xf32>
  %r1 = tgc.relu %c1 : tensor<?x16x32x32xf32>
  %p1 = tgc.max_pool2d %r1 kernel [2, 2] stride [2, 2] padding [0, 0] dilation [1, 1] : tensor<?x16x32x32xf32> -> tensor<?x16x16x16xf32>
  %c2 = tgc.conv2d %p1, %w2 bias(%b2 : tensor<32xf32>) stride [1, 1] padding [1, 1] dilation [1, 1] groups = 1 : tensor<?x16x16x16xf32>, tensor<32x16x3x3xf32> -> tensor<?x32x16x16xf32>
  %r2 = tgc.relu %c2 : tensor<?x32x16x16xf32>
  %p2 = tgc.max_pool2d %r2 kernel [2, 2] stride [2, 2] padding [0, 0] dilation [1, 1] : tensor<?x32x16x16xf32> -> tensor<?x32x8x8xf32>
  %f = tgc.reshape %p2 : tensor<?x32x8x8xf32> -> tensor<?x2048xf32>
  %l = tgc.linear %f, %w3, %b3 : tensor<?x2048xf32>, tensor<10x2048xf32>, tensor<10xf32> -> tensor<?x10xf32>
  %y = tgc.log_softmax %l dim = 1 : tensor<?x10xf32>
  return %y : tensor<?x10xf32>
}"""
    shapes = [[B, 3, 32, 32], [16, 3, 3, 3], [16], [32, 16, 3, 3], [32],
              [10, 2048], [10]]

    def ref(x, w1, b1, w2, b2, w3, b3):
        y = F.max_pool2d(F.relu(F.conv2d(x, w1, b1, padding=1)), 2)
        y = F.max_pool2d(F.relu(F.conv2d(y, w2, b2, padding=1)), 2)
        return torch.log_softmax(F.linear(y.flatten(1), w3, b3), 1)
    flops = 2 * B * (16 * 27 * 32 * 32 + 32 * 144 * 16 * 16 + 10 * 2048)
    return text, shapes, ref, ("flops", flops)


CASES = {
    "mlp": mlp, "chain": chain, "entropy": entropy, "attention": attention,
    "transformer": transformer, "cnn": cnn,
}


# ---- measurement ----

def run_tgc(tgc_run, path, shapes, repeat, fuse, flags=()):
    args = [tgc_run, path, "--json", f"--repeat={repeat}",
            "--print-results=false", *flags]
    args += [f"--shape={i}={'x'.join(map(str, s))}" for i, s in enumerate(shapes)]
    if not fuse:
        args.append("--no-fuse")
    out = subprocess.run(args, capture_output=True, text=True)
    if out.returncode != 0:
        raise RuntimeError(f"{' '.join(args)} failed:\n{out.stderr}")
    return json.loads(out.stdout)


def median(xs):
    xs = sorted(xs)
    return xs[len(xs) // 2]


def time_torch(fn, args, repeat):
    with torch.no_grad():
        fn(*args)  # warm up
        times = []
        for _ in range(repeat):
            start = time.perf_counter()
            fn(*args)
            times.append((time.perf_counter() - start) * 1e3)
    return median(times)


def machine_limits():
    """Copy bandwidth (GB/s) and matmul GFLOP/s, measured with PyTorch."""
    if torch is None:
        return None, None
    with torch.no_grad():
        a = torch.empty(64 * 1024 * 1024, dtype=torch.float32).fill_(1)
        b = torch.empty_like(a)
        ts = []
        for _ in range(5):
            s = time.perf_counter()
            b.copy_(a)
            ts.append(time.perf_counter() - s)
        bw = 2 * a.numel() * 4 / min(ts) / 1e9
        m = torch.randn(1024, 1024)
        ts = []
        for _ in range(5):
            s = time.perf_counter()
            m @ m
            ts.append(time.perf_counter() - s)
        flops = 2 * 1024 ** 3 / min(ts) / 1e9
    return bw, flops


# ---- Python rows: tgc.compile against eager and torch.compile, one process ----


def _py_cases():
    """name -> (build() -> (fn, args), GFLOP of one call or None)."""
    def matmul(n):
        def build():
            a, b = torch.randn(n, n), torch.randn(n, n)
            return (lambda x, y: x @ y), (a, b)
        return build, 2 * n ** 3 / 1e9

    def convs():
        conv1 = torch.nn.Conv2d(16, 32, 3, padding=1)
        conv2 = torch.nn.Conv2d(32, 32, 3, padding=1)
        model = torch.nn.Sequential(conv1, torch.nn.ReLU(), conv2, torch.nn.ReLU()).eval()
        return model, (torch.randn(8, 16, 32, 32),)

    def vision(fn):
        def build():
            import torchvision.models as tvm
            return getattr(tvm, fn)().eval(), (torch.randn(4, 3, 112, 112),)
        return build

    def encoder():
        layer = torch.nn.TransformerEncoderLayer(768, 12, 3072, dropout=0.0,
                                                 batch_first=True, activation="gelu")
        model = torch.nn.TransformerEncoder(layer, 2, enable_nested_tensor=False) \
            if "enable_nested_tensor" in torch.nn.TransformerEncoder.__init__.__code__.co_varnames \
            else torch.nn.TransformerEncoder(layer, 2)
        return model.eval(), (torch.randn(2, 128, 768),)

    def chain():
        ln = torch.nn.LayerNorm(1024).eval()

        def fn(x):
            return F.gelu(ln(torch.softmax(x, -1) * x), approximate="tanh")
        return fn, (torch.randn(4096, 1024),)

    def maxpool_backward():
        # ResNet's stem pool at batch 8: a training graph's backward op
        # (its arena is 83 MiB: the per-thread arena cache's row).
        x = torch.relu(torch.randn(8, 64, 112, 112))
        values, indices = F.max_pool2d(x, 3, 2, 1, return_indices=True)

        def fn(g, x, i):
            return torch.ops.aten.max_pool2d_with_indices_backward(
                g, x, [3, 3], [2, 2], [1, 1], [1, 1], False, i)
        return fn, (torch.randn_like(values), x, indices)

    conv_flops = 2 * 8 * 32 * 32 * 32 * 9 * (16 + 32) / 1e9
    enc_flops = 2 * (2 * 128) * 2 * (4 * 768 * 768 + 2 * 768 * 3072) / 1e9 \
        + 2 * 2 * 4 * 2 * 128 * 128 * 768 / 1e9
    return {
        "matmul512": (matmul(512)[0], matmul(512)[1]),
        "matmul2048": (matmul(2048)[0], matmul(2048)[1]),
        "convs": (convs, conv_flops),
        "resnet18": (vision("resnet18"), 4 * 1.82 * (112 / 224) ** 2),
        "mobilenetv3": (vision("mobilenet_v3_small"), 4 * 0.06 * (112 / 224) ** 2),
        "squeezenet": (vision("squeezenet1_1"), 4 * 0.35 * (112 / 224) ** 2),
        "encoder": (encoder, enc_flops),
        "chain": (chain, None),
        "maxpool_bwd": (maxpool_backward, None),
    }


def python_rows(names, repeat, options="", torch_compile=True):
    """tgc.compile from Python against eager and torch.compile (Inductor's
    C++ backend, where the installed PyTorch has it) on the CPU, in one
    process: the rows of issue 25. Median of `repeat` calls after one
    warm-up call (the compile)."""
    try:
        import tgc  # PYTHONPATH (the bundle on the GPU machine)
    except ImportError:
        sys.path.insert(0, os.path.join(ROOT, "python"))
        import tgc
    cases = _py_cases()
    names = [n for n in names if n in cases] or list(cases)
    has_compile = torch_compile and hasattr(torch, "compile")
    # Eager on every hardware thread, as TGC's OpenMP loops (Debian's
    # PyTorch starts with one).
    torch.set_num_threads(os.cpu_count())
    print(f"# tgc.compile vs eager{' vs torch.compile (Inductor C++)' if has_compile else ''},"
          f" {torch.get_num_threads()} threads, PyTorch {torch.__version__}")
    print(f"{'case':<12} {'eager ms':>9} {'tgc ms':>9} {'eager/tgc':>9} "
          f"{'inductor ms':>11} {'ind/tgc':>7} {'tgc compile s':>13}  achieved")
    rows = []
    for name in names:
        build, gflop = cases[name]
        torch.manual_seed(0)
        try:
            fn, args = build()
        except ImportError as e:
            print(f"{name:<12} skipped ({e})")
            continue
        eager = time_torch(fn, args, repeat)
        with torch.no_grad():
            expected = fn(*args)  # (not in the compile column: eager's time)
            start = time.perf_counter()
            compiled = tgc.compile(fn, options=options)
            got = compiled(*args)
            compile_s = time.perf_counter() - start
        err = (got - expected).abs().max().item()
        scale = expected.abs().max().item() or 1.0
        if err > 1e-3 * scale + 1e-4:
            print(f"{name:<12} WRONG: max abs error {err:.3g} (scale {scale:.3g})")
            continue
        t = time_torch(compiled, args, repeat)
        ind = None
        if has_compile:
            try:
                ind = time_torch(torch.compile(fn), args, repeat)
            except Exception as e:  # Inductor's C++ toolchain may be missing
                print(f"# {name}: torch.compile failed: {type(e).__name__}: {e}")
        achieved = f"{gflop / t * 1e3:.1f} GFLOP/s" if gflop else ""
        if name.startswith("matmul") and torch.backends.mkldnn.is_available():
            # oneDNN's GEMM (PyTorch's bundled copy, through its inner
            # product): the library option of issue 25.
            n = args[0].shape[0]
            lin = torch.nn.Linear(n, n, bias=False)
            with torch.no_grad():
                lin.weight.copy_(args[1].t())
            import torch.utils.mkldnn as mkldnn_utils
            lin = mkldnn_utils.to_mkldnn(lin)
            x = args[0].to_mkldnn()
            dnnl = time_torch(lin, (x,), repeat)
            achieved += f"; oneDNN {dnnl:.2f} ms ({gflop / dnnl * 1e3:.1f} GFLOP/s)"
        rows.append({"case": name, "eager_ms": eager, "tgc_ms": t, "inductor_ms": ind,
                     "tgc_compile_s": compile_s, "gflop": gflop})
        print(f"{name:<12} {eager:>9.2f} {t:>9.2f} {eager / t:>9.2f} "
              f"{(f'{ind:.2f}' if ind else 'n/a'):>11} "
              f"{(f'{ind / t:.2f}' if ind else 'n/a'):>7} {compile_s:>13.2f}  {achieved}",
              flush=True)
    return rows


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--tgc-run", default=os.path.join(ROOT, "build", "bin", "tgc-run"))
    p.add_argument("--repeat", type=int, default=10)
    p.add_argument("--only", default="", help="comma-separated case names")
    p.add_argument("--json", default="", help="also write the results here")
    p.add_argument("--python", action="store_true",
                   help="the Python rows instead: tgc.compile vs eager (and torch.compile)")
    p.add_argument("--no-torch-compile", action="store_true",
                   help="--python: leave out torch.compile's column")
    p.add_argument("--options", default="",
                   help="--python: tgc.compile's compiler options, e.g. "
                        "'direct-convolutions=0' (include/tgc-c/tgc_compiler.h)")
    p.add_argument("--tgc-run-flag", action="append", default=[],
                   help="the tgc-run rows: a flag for each tgc-run, e.g. "
                        "--tgc-run-flag=--vector-width=256 (repeatable)")
    a = p.parse_args()
    if a.python:
        if torch is None:
            sys.exit("--python needs torch")
        rows = python_rows([n for n in a.only.split(",") if n], a.repeat, a.options,
                           not a.no_torch_compile)
        if a.json:
            with open(a.json, "w") as f:
                json.dump({"python_rows": rows}, f, indent=2)
        return
    names = [n for n in a.only.split(",") if n] or list(CASES)
    for n in names:
        if n not in CASES:
            sys.exit(f"unknown case '{n}' (cases: {', '.join(CASES)})")
    if torch is not None:
        torch.manual_seed(0)
        # Eager on every hardware thread, as TGC's OpenMP loops (Debian's
        # PyTorch starts with one; runs before 2026-11-28 compared with
        # that one thread).
        torch.set_num_threads(os.cpu_count())
    bw, gflops = machine_limits()
    threads = os.cpu_count()
    print(f"# CPU: {threads} hardware threads; PyTorch {torch.__version__ if torch else 'n/a'}"
          f" (torch.compile: {'yes' if torch is not None and hasattr(torch, 'compile') else 'n/a'})")
    if bw:
        print(f"# limits measured now: copy {bw:.1f} GB/s, PyTorch 1024^3 matmul {gflops:.1f} GFLOP/s")
    header = (f"{'case':<12} {'compile ms':>10} {'tgc ms':>9} {'unfused ms':>10} "
              f"{'fuse x':>7} {'eager ms':>9} {'eager/tgc':>9} {'kernels':>7} "
              f"{'arena MiB':>9}  achieved")
    print(header)
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        for name in names:
            text, shapes, ref, (unit, amount) = CASES[name]()
            path = os.path.join(tmp, name + ".mlir")
            with open(path, "w") as f:
                f.write(text)
            fused = run_tgc(a.tgc_run, path, shapes, a.repeat, True, a.tgc_run_flag)
            unfused = run_tgc(a.tgc_run, path, shapes, a.repeat, False, a.tgc_run_flag)
            eager = None
            if torch is not None:
                args = [torch.randn(*s) for s in shapes]
                eager = time_torch(ref, args, a.repeat)
            t = fused["run_ms"]
            if unit == "bytes":
                achieved = f"{amount / t / 1e6:.1f} GB/s" + (
                    f" ({100 * amount / t / 1e6 / bw:.0f}% of copy)" if bw else "")
            else:
                achieved = f"{amount / t / 1e6:.1f} GFLOP/s" + (
                    f" ({100 * amount / t / 1e6 / gflops:.0f}% of torch mm)" if gflops else "")
            row = {
                "case": name, "shapes": shapes, "compile_ms": fused["compile_ms"],
                "tgc_ms": t, "unfused_ms": unfused["run_ms"],
                "eager_ms": eager, "kernels": fused["kernels"],
                "unfused_kernels": unfused["kernels"],
                "arena_bytes": fused["arena_bytes"],
                "unfused_arena_bytes": unfused["arena_bytes"],
                "achieved": achieved,
            }
            results.append(row)
            print(f"{name:<12} {fused['compile_ms']:>10.1f} {t:>9.3f} "
                  f"{unfused['run_ms']:>10.3f} {unfused['run_ms'] / t:>7.2f} "
                  f"{(f'{eager:.3f}' if eager is not None else 'n/a'):>9} "
                  f"{(f'{eager / t:.2f}' if eager is not None else 'n/a'):>9} "
                  f"{fused['kernels']:>3}/{unfused['kernels']:<3} "
                  f"{fused['arena_bytes'] / 2**20:>9.2f}  {achieved}", flush=True)
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"limits": {"copy_gbs": bw, "mm_gflops": gflops},
                       "results": results}, f, indent=2)


if __name__ == "__main__":
    main()
