#!/usr/bin/env python3
"""Differential fuzzing of the CPU compiler against the reference interpreter.

Generates seeded random, well-typed `tgc` functions (elementwise unary and
binary ops with broadcasting, cmp/where/logical ops, clamp, reductions,
argmax/max/topk, softmax/log_softmax/layer_norm/rms_norm, attention,
conv2d and pooling, reshape/permute/slice/concat/expand/(un)squeeze/pad,
gather/index_select/embedding, matmul/linear/bmm, integer chains,
f32/f64/f16/integer conversions, write_out), with static and `?` sizes,
and runs each through

    tgc-run FILE --check reference [--shape ...|--calls ... --calls ...]

which compiles the function for the CPU, runs it on seeded random inputs
and compares the results with the reference interpreter. Failures are
classified (mismatch, compile/run error, crash/signal, timeout, invalid
graph) and, with --keep-failures DIR, written out as graph-SEED.mlir,
graph-SEED.sh (the command that reproduces it) and graph-SEED.log.

Values are kept numerically tame so that tgc-run's default tolerances are
meaningful: every value has a bound on |x| (at most 4, rescaled by exact
powers of two when an op would exceed it); log/sqrt/rsqrt/reciprocal/div/pow
only see `|x| + c` with c >= 0.5; discontinuous ops (floor, ceil, round,
remainder, cmp, argmax, max/min indices, float -> int) only see values that
are bit-exact on both sides (arguments and exact ops on them); f64 only
starts from exact values; f16 only appears at the end of a graph, as a
result. Tolerances are never changed.

Usage: fuzz-graphs.py [--count N] [--seed S] [--time-budget SECONDS]
                      [--tgc-run PATH] [--jobs J] [--keep-failures DIR]
                      [--timeout SECONDS] [-v]
       fuzz-graphs.py --print SEED      (the graph and options of one seed)
Graph i of a run uses seed S + i. Exit status 1 when any graph failed.
"""

import argparse
import concurrent.futures
import os
import random
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time

INT64_MAX = 9223372036854775807

# Bound on |x| of every float value; inputs to reductions and contractions
# are first scaled to at most REDUCE_BOUND.
BOUND = 4.0
REDUCE_BOUND = 1.0
MAX_ELEMS = 512
# "Big" graphs (a quarter of them): larger sizes, odd ones included, so that
# vectorized loops have remainders and parallel loops several chunks.
BIG_SIZES = [1, 3, 8, 17, 33, 64, 100]
BIG_MAX_ELEMS = 16384

# Bugs the fuzzer found, and the patterns the generator avoids while a
# flag is set (see docs/testing.md). Flags of fixed bugs stay, off, so that
# a regression can be narrowed down by turning one back on.
#
# - RETURN_ALIAS_BUG: returning an argument, or a value that bufferizes to
#   a view of another buffer (reshape/unsqueeze/squeeze, often after a
#   permute, of an argument or of a computed value; an op that folds to its
#   operand), fails to compile: bufferization inserts a
#   `bufferization.clone` that the CPU pipeline never lowers ("LLVM
#   Translation failed for operation: builtin.unrealized_conversion_cast").
#   Views are not returned while this is set (they still feed other ops
#   and write_out).
# - DIV_BY_ONE_FOLD_BUG: DivOp::fold folds `x / 1` to `x` for every rounding
#   mode, so a float `tgc.div %x, 1.0 rounding = floor|trunc` returns x
#   instead of floor(x)/trunc(x) (a mismatch). Float floor/trunc division
#   by a constant is not generated while this is set.
# - F32_REDUCTION_LIMIT: f32 sum/mean/var/norm accumulate in f32, in order;
#   over many elements the rounding error exceeds f32's rtol of 1e-4 (var
#   of 65536 values in [0, 1): rel. error 2e-4; 135168 values: 6.6e-4).
#   Float reductions over more elements than this are amax/amin instead.
# - DUPLICATE_RESULT_BUG: a function returning one buffer twice (two
#   identical ops that CSE merges, both returned; or `max dim 0` and
#   `max dim 0 keepdim` of one value) gets garbage in one of them (its
#   first 16 bytes: a use after free). Identical ops are generated once, a
#   value is reduced at most once over the same dims, and results are
#   distinct values.
RETURN_ALIAS_BUG = False         # fixed (convert-bufferization-to-memref)
DIV_BY_ONE_FOLD_BUG = False       # fixed (TgcFolders.cpp: float floor/trunc x / 1 still rounds)
F32_REDUCTION_LIMIT = 1 << 30    # fixed (was 4096)
DUPLICATE_RESULT_BUG = False     # fixed


class Dim:
    """A static size, or a `?` with a key (equal keys: equal sizes) and its
    concrete size in each call."""

    def __init__(self, static=None, key=None, vals=None):
        self.static = static
        self.key = key
        self.vals = vals

    @property
    def dynamic(self):
        return self.static is None

    def val(self, call):
        return self.static if self.static is not None else self.vals[call]

    def same(self, other):
        if self.dynamic != other.dynamic:
            return False
        return self.key == other.key if self.dynamic else \
            self.static == other.static

    def text(self):
        return "?" if self.dynamic else str(self.static)


def S(n):
    return Dim(static=n)


class Value:
    def __init__(self, name, dtype, dims, bound=BOUND, exact=False,
                 nonneg=False, base=None):
        self.name = name
        self.dtype = dtype
        self.dims = list(dims)
        self.bound = bound
        self.exact = exact      # bit-identical in compiled code and oracle
        self.nonneg = nonneg
        # The value whose buffer this one may share (views: reshape,
        # (un)squeeze, slice, permute, expand); itself otherwise.
        self.base = base or name

    @property
    def rank(self):
        return len(self.dims)

    def type(self):
        return tensor_type(self.dims, self.dtype)

    def numel(self, call):
        n = 1
        for d in self.dims:
            n *= d.val(call)
        return n

    def is_float(self):
        return self.dtype in ("f32", "f64", "f16")


def tensor_type(dims, dtype):
    if not dims:
        return f"tensor<{dtype}>"
    return "tensor<" + "x".join(d.text() for d in dims) + "x" + dtype + ">"


def pow2_at_most(x):
    """The largest power of two <= x (x > 0)."""
    p = 1.0
    while p * 2 <= x:
        p *= 2
    while p > x:
        p /= 2
    return p


class Graph:
    def __init__(self, rng, ncalls, big=False):
        self.rng = rng
        self.ncalls = ncalls
        self.sizes = BIG_SIZES if big else [1, 2, 3, 4, 5, 6, 7, 8, 16]
        self.dyn_sizes = [1, 3, 5, 17, 40, 64, 65] if big else \
            [1, 2, 2, 3, 4, 5, 6, 7, 9]
        self.max_elems = BIG_MAX_ELEMS if big else MAX_ELEMS
        self.max_k = 128 if big else 32
        self.args = []          # (Value, attrs)
        self.lines = []
        self.values = []        # float values usable as operands
        self.next_id = 0
        self.next_key = 0
        self.roots = []         # root dynamic Dims (shared by arguments)
        self.outs = []          # (value, out-arg) pairs for write_out
        self.f16_results = []
        self.int_results = []
        self.wide_results = []
        self.ops_seen = {}
        self.reductions = set()
        self.consts = {}

    # -- names and dims ---------------------------------------------------
    def fresh(self):
        self.next_id += 1
        return f"%v{self.next_id}"

    def fresh_key(self):
        self.next_key += 1
        return f"k{self.next_key}"

    def new_root(self):
        first = self.rng.choice(self.dyn_sizes)
        vals = [first]
        for _ in range(1, self.ncalls):
            vals.append(self.rng.choice([v for v in self.dyn_sizes
                                         if v != vals[-1] and v > 1]))
        d = Dim(key=self.fresh_key(), vals=vals)
        self.roots.append(d)
        return d

    def random_dim(self, dyn_prob=0.3):
        r = self.rng.random()
        if r < dyn_prob:
            if self.roots and self.rng.random() < 0.6:
                return self.rng.choice(self.roots)
            return self.new_root()
        return S(self.rng.choice(self.sizes))

    def derived(self, fn):
        """A fresh `?` whose size in each call is fn(call)."""
        return Dim(key=self.fresh_key(),
                   vals=[fn(c) for c in range(self.ncalls)])

    def max_numel(self, dims):
        m = 0
        for c in range(self.ncalls):
            n = 1
            for d in dims:
                n *= d.val(c)
            m = max(m, n)
        return m

    def min_size(self, d):
        return min(d.val(c) for c in range(self.ncalls))

    # -- emission -----------------------------------------------------------
    def emit(self, text):
        self.lines.append("  " + text)

    def add_arg(self, dtype, dims, attrs=None, exact=True, bound=1.0):
        v = Value(f"%a{len(self.args)}", dtype, dims, bound=bound,
                  exact=exact)
        self.args.append((v, attrs))
        return v

    def add(self, v):
        if v.is_float() and v.dtype != "f16":
            self.values.append(v)
        return v

    def const(self, value, dtype):
        key = (value, dtype)
        if key not in self.consts:
            name = self.fresh()
            self.emit(f"{name} = tgc.constant dense<{value!r}> : "
                      f"tensor<{dtype}>")
            self.consts[key] = Value(name, dtype, [], bound=abs(value),
                                     exact=True, nonneg=value >= 0)
        return self.consts[key]

    def new_reduction(self, kind, x, dims):
        """False for a second reduction of x over dims (keepdim or not):
        after CSE one would be a view of the other, and two returned
        results sharing a buffer hit DUPLICATE_RESULT_BUG."""
        key = (kind, x.name, tuple(dims))
        if DUPLICATE_RESULT_BUG and key in self.reductions:
            return False
        self.reductions.add(key)
        return True

    def op(self, text, dtype, dims, **kw):
        # An op identical to an earlier one is that one (as after CSE), so
        # that one buffer is never returned twice (DUPLICATE_RESULT_BUG).
        if DUPLICATE_RESULT_BUG and text in self.ops_seen:
            return self.ops_seen[text]
        name = self.fresh()
        self.emit(f"{name} = {text}")
        v = Value(name, dtype, dims, **kw)
        self.ops_seen[text] = v
        return v

    def unary(self, opname, x, **kw):
        return self.op(f"tgc.{opname} {x.name} : {x.type()}", x.dtype,
                       x.dims, **kw)

    def binary(self, opname, a, b, dims, extra="", **kw):
        return self.op(f"tgc.{opname} {a.name}, {b.name}{extra} : "
                       f"{a.type()}, {b.type()} -> "
                       f"{tensor_type(dims, a.dtype)}", a.dtype, dims, **kw)

    # -- helpers keeping values tame -----------------------------------------
    def scale(self, x, target):
        """x * 2^-k so that the bound is at most target (exact)."""
        if x.bound <= target:
            return x
        f = pow2_at_most(target / x.bound)
        c = self.const(f, x.dtype)
        return self.binary("mul", x, c, x.dims, bound=x.bound * f,
                           exact=x.exact, nonneg=x.nonneg)

    def positive(self, x, lo=0.5):
        """|x| + c, c >= lo: a safe operand for log, sqrt, division."""
        a = x if x.nonneg else self.unary("abs", x, bound=x.bound,
                                          exact=x.exact, nonneg=True)
        c = self.const(self.rng.choice([lo, lo * 2, 1.0 + lo]), x.dtype)
        return self.binary("add", a, c, x.dims, bound=a.bound + c.bound,
                           nonneg=True)

    def tame(self, v):
        return self.scale(v, BOUND) if v.bound > BOUND else v

    # -- operand selection ------------------------------------------------
    def pick(self, pred=lambda v: True, dtype="f32"):
        cands = [v for v in self.values if v.dtype == dtype and pred(v)]
        if not cands:
            return None
        # Prefer recent values so graphs grow deep rather than wide.
        if self.rng.random() < 0.6:
            return cands[-1] if self.rng.random() < 0.5 else \
                self.rng.choice(cands[-3:])
        return self.rng.choice(cands)

    def broadcast_partner(self, x):
        """An operand broadcasting with x: an existing value, a new argument
        with some dims set to 1 or dropped, or a scalar."""
        r = self.rng.random()
        if r < 0.35:
            for _ in range(4):
                y = self.pick(lambda v: v is not x, x.dtype)
                if y is not None and broadcast(x.dims, y.dims) is not None:
                    if self.max_numel(broadcast(x.dims, y.dims)) <= self.max_elems:
                        return y
        if r < 0.5:
            return self.const(self.rng.choice([0.5, -0.25, 2.0, 1.5]),
                              x.dtype)
        dims = [d if self.rng.random() < 0.7 else S(1) for d in x.dims]
        drop = self.rng.randint(0, len(dims)) if self.rng.random() < 0.4 \
            else 0
        dims = dims[drop:]
        if self.rng.random() < 0.15 and len(x.dims) < 4:
            dims = [S(1)] + dims
        return self.add(self.add_arg(x.dtype, dims))


def broadcast(a, b):
    """Broadcast of two dim lists under the generator's rules (a static 1
    stretches; `?` only meets the same `?`); None if not compatible."""
    n = max(len(a), len(b))
    a = [S(1)] * (n - len(a)) + list(a)
    b = [S(1)] * (n - len(b)) + list(b)
    out = []
    for x, y in zip(a, b):
        if x.same(y):
            out.append(x)
        elif not x.dynamic and x.static == 1:
            out.append(y)
        elif not y.dynamic and y.static == 1:
            out.append(x)
        else:
            return None
    return out


def factorizations(n, parts):
    """Ordered factorizations of n into `parts` factors (small n)."""
    if parts == 1:
        return [[n]]
    out = []
    for f in range(1, n + 1):
        if n % f == 0:
            for rest in factorizations(n // f, parts - 1):
                out.append([f] + rest)
    return out


UNARY_SAFE = ["neg", "abs", "relu", "tanh", "sigmoid", "erf", "silu", "sin",
              "cos", "gelu"]
BINARY_SAFE = ["add", "sub", "mul", "maximum", "minimum"]


OP_KINDS = ["unary", "unary_pos", "exp", "binary", "div", "pow", "atan2",
            "disc", "cmp_where", "clamp", "reduce", "argreduce",
            "softmax", "layer_norm", "reshape", "permute", "slice",
            "concat", "expand", "unsqueeze", "matmul", "linear", "bmm",
            "convert64", "pad", "rms_norm", "topk", "indexing", "int",
            "sdpa", "conv_pool", "wide"]
OP_WEIGHTS = [8, 4, 3, 10, 3, 2, 1, 3, 3, 2, 6, 2, 3, 2, 4, 3, 3,
              3, 2, 2, 4, 2, 1, 2, 2, 1, 1, 2, 2, 1, 1, 2]


def random_op(g, rng, base_dtype, ops):
    kind = rng.choices(OP_KINDS, weights=OP_WEIGHTS)[0]
    v = GEN[kind](g, base_dtype)
    if v is not None:
        v = g.add(g.tame(v))
    ops.append(kind)
    return v


def model_blocks(g, rng, base_dtype, ops):
    """A whole model's shape: a stream [B, S, D] through 100-500 ops of
    repeated blocks. Each block draws its ops from the stream and its own
    values (views, reductions, contractions, ...), ends with a residual add
    into the stream when a value has the stream's shape, and sometimes
    writes a value into an out buffer (an in-place update of the caller's
    tensor)."""
    d = S(rng.choice([8, 16, 24, 32]))
    dims = [g.random_dim(0.6), g.random_dim(0.6), d]
    for i in (0, 1):  # small enough for the interpreter, batch first
        if g.max_numel(dims) > g.max_elems // 4:
            dims[i] = S(rng.choice([1, 2, 3]))
    x = g.add(g.add_arg(base_dtype, dims))
    target = rng.randint(100, 500)
    blocks = 0
    # A bound on the blocks: some draws emit nothing (an op that does not
    # fit the values at hand).
    while g.next_id < target and blocks < 4 * target:
        blocks += 1
        earlier = g.values
        g.values = [v for v in earlier if v is not x] + [x]
        start = len(g.values)
        for _ in range(rng.randint(4, 16)):
            random_op(g, rng, base_dtype, ops)
        fresh = g.values[start:]
        same = [v for v in fresh if v.dtype == x.dtype and v.rank == x.rank
                and all(a.same(b) for a, b in zip(v.dims, x.dims))]
        if same:
            y = rng.choice(same[-3:])
            x = g.add(g.tame(g.binary("add", x, y, x.dims,
                                      bound=x.bound + y.bound)))
            ops.append("residual")
        if fresh and rng.random() < 0.2:
            v = rng.choice(fresh)
            g.outs.append((v, g.add_arg(v.dtype, v.dims)))
            ops.append("write_out")
    ops.append(f"({blocks} blocks)")
    return x


def gen_graph(seed, ncalls=None, model=False):
    """Returns (mlir_text, shape-options list, description). With `model`,
    a graph of 100-500 ops shaped like a model (model_blocks)."""
    rng = random.Random(seed)
    if ncalls is None:
        ncalls = 2 if rng.random() < 0.35 else 1
    g = Graph(rng, ncalls, big=rng.random() < 0.25)
    base_dtype = "f64" if rng.random() < 0.15 else "f32"
    ops = []
    if model:
        model_blocks(g, rng, base_dtype, ops)
    else:
        # Arguments: 1-3 float inputs.
        nin = rng.randint(1, 3)
        for _ in range(nin):
            rank = rng.choice([1, 2, 2, 3, 3, 4])
            dims = [g.random_dim() for _ in range(rank)]
            while g.max_numel(dims) > g.max_elems:
                dims = dims[1:]
            g.add(g.add_arg(base_dtype, dims))
        for _ in range(rng.randint(2, 12)):
            random_op(g, rng, base_dtype, ops)

    # f16 tail: some results computed in f16 (one or two ops).
    if rng.random() < 0.15:
        x = g.pick(lambda v: v.bound <= BOUND, "f32") or \
            g.pick(lambda v: v.bound <= BOUND, base_dtype)
        if x is not None and x.dtype == "f32":
            h = g.op(f"tgc.convert {x.name} : {x.type()} -> "
                     f"{tensor_type(x.dims, 'f16')}", "f16", x.dims)
            for _ in range(rng.randint(1, 2)):
                o = rng.choice(["tanh", "sigmoid", "relu", "neg", "abs",
                                "exp", "sin", "mul", "add"])
                if o in ("mul", "add"):
                    h = g.binary(o, h, h, h.dims)
                else:
                    h = g.unary(o, h)
            g.f16_results.append(h)
            ops.append("f16")

    # Results: the last value plus some values nothing else uses (so that
    # little of the graph is dead), and the f16 and integer results.
    body = "\n".join(g.lines)

    def unused(v):
        return len(re.findall(re.escape(v.name) + r"(?![\w#])", body)) <= 1

    def returnable(v, taken):
        if DUPLICATE_RESULT_BUG and v.name in taken:
            return False
        if not RETURN_ALIAS_BUG:
            return True
        return v.base == v.name and not v.name.startswith("%a")

    results = []
    if g.values and returnable(g.values[-1], set()):
        results.append(g.values[-1])
    others = [v for v in g.values[:-1] if unused(v)]
    rng.shuffle(others)
    for v in others[:rng.randint(2, 6)]:
        if returnable(v, {r.name for r in results}):
            results.append(v)
    for v in g.f16_results + g.int_results + g.wide_results:
        if v.name not in {r.name for r in results}:
            results.append(v)
    # Out buffers: write a result into an argument.
    outs = list(g.outs)
    results = [r for r in results if r.name not in {v.name for v, _ in outs}]
    if results and rng.random() < 0.15:
        v = results.pop(rng.randrange(len(results)))
        outs.append((v, g.add_arg(v.dtype, v.dims)))
    if not results and not outs:
        x = g.values[-1]
        results = [g.unary("neg", x)]
    for v, o in outs:
        g.emit(f"tgc.write_out {v.name} into {o.name} : {v.type()} into "
               f"{o.type()}")

    sig = []
    for v, attrs in g.args:
        sig.append(f"{v.name}: {v.type()}" + (f" {attrs}" if attrs else ""))
    rtypes = ", ".join(r.type() for r in results)
    head = f"func.func @fuzz({', '.join(sig)})"
    if results:
        head += f" -> ({rtypes})" if len(results) > 1 else f" -> {rtypes}"
    text = (f"// fuzz-graphs seed {seed}: {' '.join(ops)}\n" + head + " {\n"
            + "\n".join(g.lines) + "\n")
    if results:
        text += ("  return " + ", ".join(r.name for r in results) + " : " +
                 rtypes + "\n")
    else:
        text += "  return\n"
    text += "}\n"

    # Sizes of the `?` arguments, per call.
    def spec(call):
        parts = []
        for i, (v, _) in enumerate(g.args):
            if any(d.dynamic for d in v.dims):
                parts.append(f"{i}=" + "x".join(str(d.val(call))
                                                for d in v.dims))
        return parts

    opts = []
    if ncalls == 1:
        for p in spec(0):
            opts += ["--shape", p]
    elif spec(0):
        for c in range(ncalls):
            opts += ["--calls", ",".join(spec(c))]
    variant = rng.random()
    if variant < 0.1:
        opts.append("--no-fuse")
    elif variant < 0.2:
        opts += ["--policy", rng.choice(["static", "auto"])]
    return text, opts, " ".join(ops)


# -- op generators ----------------------------------------------------------
def gen_unary(g, dt):
    x = g.pick(dtype=dt)
    if x is None:
        return None
    o = g.rng.choice(UNARY_SAFE)
    if o == "gelu" and g.rng.random() < 0.5:
        return g.op(f"tgc.gelu {x.name} approximate = tanh : {x.type()}",
                    x.dtype, x.dims, bound=x.bound)
    exact = x.exact and o in ("neg", "abs", "relu")
    bound = {"tanh": 1.0, "sigmoid": 1.0, "erf": 1.0, "sin": 1.0,
             "cos": 1.0}.get(o, x.bound)
    return g.unary(o, x, bound=bound, exact=exact,
                   nonneg=o in ("abs", "relu", "sigmoid"))


def gen_unary_pos(g, dt):
    x = g.pick(dtype=dt)
    if x is None:
        return None
    o = g.rng.choice(["log", "log2", "sqrt", "rsqrt", "reciprocal", "log1p"])
    p = g.unary("abs", x, bound=x.bound, exact=x.exact, nonneg=True) \
        if o == "log1p" else g.positive(x)
    bound = {"log": 2.0, "log2": 3.0, "sqrt": 3.0, "rsqrt": 1.5,
             "reciprocal": 2.0, "log1p": 2.0}[o]
    return g.unary(o, p, bound=bound, nonneg=o in ("sqrt", "rsqrt",
                                                   "reciprocal", "log1p"))


def gen_exp(g, dt):
    x = g.pick(dtype=dt)
    if x is None:
        return None
    o = g.rng.choice(["exp", "exp2", "expm1"])
    return g.unary(o, x, bound=2 ** x.bound if o == "exp2" else
                   2.72 ** x.bound, nonneg=o != "expm1")


def gen_binary(g, dt):
    x = g.pick(dtype=dt)
    if x is None:
        return None
    y = g.broadcast_partner(x)
    dims = broadcast(x.dims, y.dims)
    if dims is None or g.max_numel(dims) > g.max_elems:
        return None
    o = g.rng.choice(BINARY_SAFE)
    a, b = (x, y) if g.rng.random() < 0.7 else (y, x)
    bound = {"mul": a.bound * b.bound}.get(o, a.bound + b.bound)
    if o in ("maximum", "minimum"):
        bound = max(a.bound, b.bound)
    # maximum(x, x) folds to x: a view of x's buffer.
    same = o in ("maximum", "minimum") and a.base == b.base
    return g.binary(o, a, b, dims, bound=bound,
                    exact=a.exact and b.exact and o in ("maximum",
                                                        "minimum"),
                    base=a.base if same else None)


def gen_div(g, dt):
    x = g.pick(dtype=dt)
    if x is None:
        return None
    y = g.broadcast_partner(x)
    dims = broadcast(x.dims, y.dims)
    if dims is None or g.max_numel(dims) > g.max_elems:
        return None
    if g.rng.random() < 0.5:
        d = g.positive(y)
        return g.binary("div", x, d, dims, bound=x.bound * 2)
    # Floor/trunc division and remainder are discontinuous: exact operands
    # only (arguments and exact ops on them).
    if not (x.exact and y.exact):
        return None
    if DIV_BY_ONE_FOLD_BUG and y.rank == 0 and y in g.consts.values():
        return None
    d = g.positive(y)  # |y| + c: exact when c is a power of two and |y| < 1
    if not (y.bound <= 1.0):
        return None
    d.exact = True
    if g.rng.random() < 0.5:
        return g.binary("remainder", x, d, dims, bound=d.bound)
    mode = g.rng.choice(["floor", "trunc"])
    return g.binary("div", x, d, dims, extra=f" rounding = {mode}",
                    bound=x.bound * 2 + 1)


def gen_pow(g, dt):
    x = g.pick(dtype=dt)
    if x is None:
        return None
    y = g.broadcast_partner(x)
    dims = broadcast(x.dims, y.dims)
    if dims is None or g.max_numel(dims) > g.max_elems:
        return None
    base = g.positive(x)
    e = g.scale(y, 2.0)
    return g.binary("pow", base, e, dims, bound=base.bound ** e.bound,
                    nonneg=True)


def gen_atan2(g, dt):
    x = g.pick(dtype=dt)
    if x is None:
        return None
    y = g.broadcast_partner(x)
    dims = broadcast(x.dims, y.dims)
    if dims is None or g.max_numel(dims) > g.max_elems:
        return None
    # atan2(y, x) jumps across x < 0, y = 0: keep x positive.
    return g.binary("atan2", x, g.positive(y), dims, bound=1.6)


def gen_disc(g, dt):
    """floor/ceil/round and float -> int -> float on exact values."""
    x = g.pick(lambda v: v.exact, dt)
    if x is None:
        return None
    x = g.scale(x, 4.0)
    if g.rng.random() < 0.3:
        # *4 is exact; rounding then sees values with fractional parts.
        c = g.const(4.0, x.dtype)
        x = g.binary("mul", x, c, x.dims, bound=x.bound * 4, exact=True)
    r = g.rng.random()
    if r < 0.6:
        o = g.rng.choice(["floor", "ceil", "round"])
        return g.unary(o, x, bound=x.bound + 1, exact=True)
    it = g.rng.choice(["i32", "i64"])
    i = g.op(f"tgc.convert {x.name} : {x.type()} -> "
             f"{tensor_type(x.dims, it)}", it, x.dims)
    if g.rng.random() < 0.5:
        i2 = g.binary(g.rng.choice(["add", "mul", "maximum", "sub"]), i, i,
                      i.dims)
        i = i2
    return g.op(f"tgc.convert {i.name} : {i.type()} -> "
                f"{tensor_type(i.dims, x.dtype)}", x.dtype, x.dims,
                bound=x.bound * x.bound + 2 * x.bound, exact=True)


def gen_cmp_where(g, dt):
    x = g.pick(lambda v: v.exact, dt)
    if x is None:
        return None
    y = g.broadcast_partner(x)
    if not y.exact:
        y = g.const(0.25, x.dtype)
    cdims = broadcast(x.dims, y.dims)
    if cdims is None:
        return None
    pred = g.rng.choice(["eq", "ne", "lt", "le", "gt", "ge"])
    m = g.op(f"tgc.cmp {pred}, {x.name}, {y.name} : {x.type()}, {y.type()} "
             f"-> {tensor_type(cdims, 'i1')}", "i1", cdims)
    if g.rng.random() < 0.25:
        m2 = g.op(f"tgc.logical_not {m.name} : {m.type()}", "i1", cdims)
        o = g.rng.choice(["logical_and", "logical_or"])
        m = g.binary(o, m, m2, cdims) if g.rng.random() < 0.3 else m2
    if g.rng.random() < 0.2:
        return g.op(f"tgc.convert {m.name} : {m.type()} -> "
                    f"{tensor_type(cdims, dt)}", dt, cdims, bound=1.0,
                    exact=True, nonneg=True)
    a = g.pick(lambda v: broadcast(cdims, v.dims) is not None, dt) or x
    b = g.pick(lambda v: broadcast(cdims, v.dims) is not None, dt) or \
        g.const(0.0, dt)
    dims = broadcast(broadcast(cdims, a.dims), b.dims)
    if dims is None or g.max_numel(dims) > g.max_elems:
        return None
    return g.op(f"tgc.where {m.name}, {a.name}, {b.name} : {m.type()}, "
                f"{a.type()}, {b.type()} -> {tensor_type(dims, dt)}", dt,
                dims, bound=max(a.bound, b.bound), exact=a.exact and b.exact,
                base=a.base if a.base == b.base else None)


def gen_clamp(g, dt):
    x = g.pick(dtype=dt)
    if x is None:
        return None
    lo = g.rng.choice([None, -0.5, 0.0, -1.0])
    hi = g.rng.choice([None, 0.5, 1.0, 2.0])
    if lo is None and hi is None:
        lo = 0.0
    text = f"tgc.clamp {x.name}"
    if lo is not None:
        text += f" min {lo!r}"
    if hi is not None:
        text += f" max {hi!r}"
    return g.op(text + f" : {x.type()}", dt, x.dims, exact=x.exact,
                bound=min(x.bound, max(abs(lo or 0), abs(hi or x.bound))))


def pick_dims(g, rank):
    k = g.rng.randint(1, rank)
    return sorted(g.rng.sample(range(rank), k))


def gen_reduce(g, dt):
    x = g.pick(lambda v: v.rank >= 1, dt)
    if x is None:
        return None
    x = g.scale(x, REDUCE_BOUND)
    dims = pick_dims(g, x.rank)
    keep = g.rng.random() < 0.4
    o = g.rng.choice(["sum", "mean", "amax", "amin", "var", "norm"])
    if dt != "f64" and o in ("sum", "mean", "var", "norm") and \
            g.max_numel([x.dims[i] for i in dims]) > F32_REDUCTION_LIMIT:
        o = g.rng.choice(["amax", "amin"])
    if not g.new_reduction(o, x, dims):
        return None
    out = []
    for i, d in enumerate(x.dims):
        if i in dims:
            if keep:
                out.append(S(1))
        else:
            out.append(d)
    extra = ""
    bound = x.bound
    if o == "sum":
        bound = x.bound * g.max_numel([x.dims[i] for i in dims])
    elif o == "var":
        corr = g.rng.choice([0, 1])
        # correction 1 over a size-1 dim is NaN (both sides); fine, but
        # keep it meaningful: only when every reduced size is >= 2.
        if corr == 1 and any(g.min_size(x.dims[i]) < 2 for i in dims):
            corr = 0
        if corr != 1:
            extra = f" {{correction = {corr} : i64}}"
        bound = x.bound * x.bound * 2
    elif o == "norm":
        p = g.rng.choice([2.0, 1.0, 3.0, "inf"])
        if p == "inf":
            extra = " {p = 0x7FF0000000000000 : f64}"
        elif p != 2.0:
            extra = f" {{p = {p!r} : f64}}"
        bound = x.bound * g.max_numel([x.dims[i] for i in dims])
    elif o in ("amax", "amin"):
        pass
    kd = " keepdim" if keep else ""
    dl = ", ".join(map(str, dims))
    return g.op(f"tgc.{o} {x.name} dims [{dl}]{kd}{extra} : {x.type()} -> "
                f"{tensor_type(out, dt)}", dt, out, bound=bound,
                exact=x.exact and o in ("amax", "amin"))


def gen_argreduce(g, dt):
    x = g.pick(lambda v: v.exact and v.rank >= 1, dt)
    if x is None:
        return None
    d = g.rng.randrange(x.rank)
    keep = g.rng.random() < 0.4
    out = [S(1) if i == d else dd for i, dd in enumerate(x.dims)
           if i != d or keep]
    kd = " keepdim" if keep else ""
    o = g.rng.choice(["argmax", "argmin", "max", "min"])
    if not g.new_reduction(o.replace("arg", ""), x, [d]):
        return None
    it = tensor_type(out, "i64")
    if o in ("argmax", "argmin"):
        i = g.op(f"tgc.{o} {x.name} dim {d}{kd} : {x.type()} -> {it}", "i64",
                 out)
    else:
        name = g.fresh()
        g.emit(f"{name}:2 = tgc.{o} {x.name} dim {d}{kd} : {x.type()} -> "
               f"{tensor_type(out, dt)}, {it}")
        g.add(Value(f"{name}#0", dt, out, bound=x.bound, exact=True))
        i = Value(f"{name}#1", "i64", out)
    if g.rng.random() < 0.5:
        g.int_results.append(i)
        return None
    return g.op(f"tgc.convert {i.name} : {it} -> {tensor_type(out, dt)}",
                dt, out, bound=g.max_numel([x.dims[d]]), exact=True,
                nonneg=True)


def gen_softmax(g, dt):
    x = g.pick(lambda v: v.rank >= 1, dt)
    if x is None:
        return None
    d = g.rng.randrange(x.rank)
    o = g.rng.choice(["softmax", "log_softmax"])
    return g.op(f"tgc.{o} {x.name} dim = {d} : {x.type()}", dt, x.dims,
                bound=1.0 if o == "softmax" else 2 * x.bound + 7,
                nonneg=o == "softmax")


def gen_layer_norm(g, dt):
    x = g.pick(lambda v: v.rank >= 1, dt)
    if x is None:
        return None
    nr = g.rng.randint(1, min(2, x.rank))
    tail = x.dims[x.rank - nr:]
    text = f"tgc.layer_norm {x.name}"
    if g.rng.random() < 0.6:
        w = g.add_arg(dt, tail)
        text += f" weight({w.name} : {w.type()})"
    if g.rng.random() < 0.6:
        b = g.add_arg(dt, tail)
        text += f" bias({b.name} : {b.type()})"
    # A row that is (nearly) constant, e.g. after expand, has a variance of
    # rounding noise: a large eps keeps (x - mean) / sqrt(var + eps) tame.
    eps = "1.0e-05" if x.name.startswith("%a") else \
        g.rng.choice(["1.000000e-01", "5.000000e-01"])
    n = g.max_numel(tail)
    return g.op(f"{text} normalized_rank = {nr} eps = {eps} : {x.type()}",
                dt, x.dims, bound=max(2.0, n ** 0.5) * 2)


def gen_reshape(g, dt):
    x = g.pick(lambda v: v.rank >= 1, dt)
    if x is None:
        return None
    static = 1
    dyn = [d for d in x.dims if d.dynamic]
    for d in x.dims:
        if not d.dynamic:
            static *= d.static
    rank = g.rng.randint(1, 4)
    if not dyn:
        fs = factorizations(static, rank)
        if len(fs) > 200:
            fs = fs[:200]
        out = [S(f) for f in g.rng.choice(fs)]
    else:
        # Static part Q dividing the input's static part; one `?`.
        nstatic = rank - 1
        divisors = [q for q in range(1, static + 1) if static % q == 0]
        q = g.rng.choice(divisors) if nstatic else 1
        stat = g.rng.choice(factorizations(q, nstatic)) if nstatic else []
        pos = g.rng.randint(0, len(stat))
        if len(dyn) == 1 and q == static:
            nd = dyn[0]
        else:
            def size(c, dyn=dyn, static=static, q=q):
                n = static // q
                for d in dyn:
                    n *= d.vals[c]
                return n
            nd = g.derived(size)
        out = [S(s) for s in stat]
        out.insert(pos, nd)
    if [d.text() for d in out] == [d.text() for d in x.dims] and \
            g.rng.random() < 0.7:
        return None
    return g.op(f"tgc.reshape {x.name} : {x.type()} -> "
                f"{tensor_type(out, dt)}", dt, out, bound=x.bound,
                exact=x.exact, nonneg=x.nonneg, base=x.base)


def gen_permute(g, dt):
    x = g.pick(lambda v: v.rank >= 2, dt)
    if x is None:
        return None
    perm = list(range(x.rank))
    g.rng.shuffle(perm)
    out = [x.dims[p] for p in perm]
    return g.op(f"tgc.permute {x.name} [{', '.join(map(str, perm))}] : "
                f"{x.type()} -> {tensor_type(out, dt)}", dt, out,
                bound=x.bound, exact=x.exact, nonneg=x.nonneg, base=x.base)


def gen_slice(g, dt):
    x = g.pick(lambda v: v.rank >= 1, dt)
    if x is None:
        return None
    d = g.rng.randrange(x.rank)
    dim = x.dims[d]
    step = g.rng.choice([1, 1, 2, 3])
    if dim.dynamic:
        start, end = g.rng.choice([(0, INT64_MAX), (1, INT64_MAX),
                                   (-1, INT64_MAX), (0, 2), (0, -1),
                                   (-2, INT64_MAX)])
    else:
        n = dim.static
        start = g.rng.randint(-n, n - 1)
        end = g.rng.choice([INT64_MAX, g.rng.randint(-n, n + 2)])
    sizes = [len(range(dim.val(c))[start:end:step])
             for c in range(g.ncalls)]
    if min(sizes) == 0:
        return None
    if dim.dynamic:
        nd = dim if (start, end, step) == (0, INT64_MAX, 1) else \
            Dim(key=g.fresh_key(), vals=sizes)
    else:
        nd = S(sizes[0])
    out = list(x.dims)
    out[d] = nd
    return g.op(f"tgc.slice {x.name} dim = {d} start = {start} end = {end} "
                f"step = {step} : {x.type()} -> {tensor_type(out, dt)}", dt,
                out, bound=x.bound, exact=x.exact, nonneg=x.nonneg, base=x.base)


def gen_concat(g, dt):
    x = g.pick(lambda v: v.rank >= 1, dt)
    if x is None:
        return None
    d = g.rng.randrange(x.rank)
    parts = [x]
    for _ in range(g.rng.randint(1, 2)):
        cands = [v for v in g.values if v.dtype == dt and v.rank == x.rank
                 and all(a.same(b) for i, (a, b) in
                         enumerate(zip(v.dims, x.dims)) if i != d)]
        if cands and g.rng.random() < 0.6:
            parts.append(g.rng.choice(cands))
        else:
            dims = list(x.dims)
            dims[d] = g.random_dim(0.2) if g.rng.random() < 0.5 else x.dims[d]
            parts.append(g.add(g.add_arg(dt, dims)))
    cat = [p.dims[d] for p in parts]
    if all(not c.dynamic for c in cat):
        nd = S(sum(c.static for c in cat))
    else:
        nd = g.derived(lambda c: sum(p.val(c) for p in cat))
    out = list(x.dims)
    out[d] = nd
    if g.max_numel(out) > g.max_elems:
        return None
    ins = ", ".join(p.name for p in parts)
    tys = ", ".join(p.type() for p in parts)
    return g.op(f"tgc.concat {ins} dim = {d} : ({tys}) -> "
                f"{tensor_type(out, dt)}", dt, out,
                bound=max(p.bound for p in parts),
                exact=all(p.exact for p in parts),
                nonneg=all(p.nonneg for p in parts))


def gen_expand(g, dt):
    x = g.pick(lambda v: v.rank < 4, dt)
    if x is None:
        return None
    out = [S(g.rng.choice([2, 3, 4])) if (not d.dynamic and d.static == 1
                                         and g.rng.random() < 0.8) else d
           for d in x.dims]
    lead = g.rng.randint(0, 4 - x.rank) if g.rng.random() < 0.5 else 0
    out = [S(g.rng.choice([1, 2, 3])) for _ in range(lead)] + out
    if g.max_numel(out) > g.max_elems or \
            [d.text() for d in out] == [d.text() for d in x.dims]:
        return None
    return g.op(f"tgc.expand {x.name} : {x.type()} -> "
                f"{tensor_type(out, dt)}", dt, out, bound=x.bound,
                exact=x.exact, nonneg=x.nonneg, base=x.base)


def gen_unsqueeze(g, dt):
    x = g.pick(lambda v: v.rank < 4, dt)
    if x is None:
        return None
    ones = [i for i, d in enumerate(x.dims) if not d.dynamic and d.static == 1]
    if ones and g.rng.random() < 0.4:
        ds = sorted(g.rng.sample(ones, g.rng.randint(1, len(ones))))
        out = [d for i, d in enumerate(x.dims) if i not in ds]
        return g.op(f"tgc.squeeze {x.name} dims [{', '.join(map(str, ds))}] "
                    f": {x.type()} -> {tensor_type(out, dt)}", dt, out,
                    bound=x.bound, exact=x.exact, nonneg=x.nonneg,
                    base=x.base)
    d = g.rng.randint(0, x.rank)
    out = list(x.dims)
    out.insert(d, S(1))
    return g.op(f"tgc.unsqueeze {x.name} dim = {d} : {x.type()} -> "
                f"{tensor_type(out, dt)}", dt, out, bound=x.bound,
                exact=x.exact, nonneg=x.nonneg, base=x.base)


def gen_matmul(g, dt):
    x = g.pick(lambda v: v.rank >= 1 and v.rank <= 3, dt)
    if x is None:
        return None
    x = g.scale(x, REDUCE_BOUND)
    k = x.dims[-1]
    if g.max_numel([k]) > g.max_k:
        return None
    r = g.rng.random()
    if r < 0.2:
        rdims = [k]
    elif r < 0.8 or x.rank < 2:
        rdims = [k, g.random_dim(0.2)]
    else:
        # Batched rhs broadcasting against x's batch dims.
        bdims = x.dims[:-2] if x.rank > 2 else [g.random_dim(0.1)]
        rdims = [d if g.rng.random() < 0.7 else S(1) for d in bdims] + \
            [k, g.random_dim(0.2)]
    y = g.add_arg(dt, rdims, exact=False)
    lhs = [S(1)] + x.dims if x.rank == 1 else x.dims
    rhs = rdims + [S(1)] if len(rdims) == 1 else rdims
    batch = broadcast(lhs[:-2], rhs[:-2])
    if batch is None:
        return None
    out = batch + ([] if x.rank == 1 else [lhs[-2]]) + \
        ([] if len(rdims) == 1 else [rhs[-1]])
    if g.max_numel(out) > g.max_elems:
        return None
    a, b = x, y
    return g.op(f"tgc.matmul {a.name}, {b.name} : {a.type()}, {b.type()} -> "
                f"{tensor_type(out, dt)}", dt, out,
                bound=g.max_numel([k]) * x.bound)


def gen_linear(g, dt):
    x = g.pick(lambda v: v.rank >= 1, dt)
    if x is None:
        return None
    x = g.scale(x, REDUCE_BOUND)
    k = x.dims[-1]
    if g.max_numel([k]) > g.max_k:
        return None
    n = g.random_dim(0.15)
    w = g.add_arg(dt, [n, k])
    out = x.dims[:-1] + [n]
    if g.max_numel(out) > g.max_elems:
        return None
    if g.rng.random() < 0.6:
        b = g.add_arg(dt, [n])
        return g.op(f"tgc.linear {x.name}, {w.name}, {b.name} : {x.type()}, "
                    f"{w.type()}, {b.type()} -> {tensor_type(out, dt)}", dt,
                    out, bound=g.max_numel([k]) * x.bound + 1)
    return g.op(f"tgc.linear {x.name}, {w.name} : {x.type()}, {w.type()} -> "
                f"{tensor_type(out, dt)}", dt, out,
                bound=g.max_numel([k]) * x.bound)


def gen_bmm(g, dt):
    x = g.pick(lambda v: v.rank == 3, dt)
    if x is None:
        return None
    x = g.scale(x, REDUCE_BOUND)
    k = x.dims[2]
    if g.max_numel([k]) > g.max_k:
        return None
    m = g.random_dim(0.2)
    y = g.add_arg(dt, [x.dims[0], k, m])
    out = [x.dims[0], x.dims[1], m]
    if g.max_numel(out) > g.max_elems:
        return None
    return g.op(f"tgc.bmm {x.name}, {y.name} : {x.type()}, {y.type()} -> "
                f"{tensor_type(out, dt)}", dt, out,
                bound=g.max_numel([k]) * x.bound)


def gen_convert64(g, dt):
    """f32 <-> f64 round trips. Up only from exact values (f64 tolerances
    are 1e-9: an f32 rounding difference must not be widened); some f64
    ops; back down to f32."""
    other = "f64" if dt == "f32" else "f32"
    # Both ways, only exact values: going up must not widen an f32 rounding
    # difference into f64's tolerance; coming back up from f32 (when the
    # graph is f64) must not either, so an f64 graph only does exact ops
    # in f32.
    x = g.pick(lambda v: v.exact, dt)
    if x is None:
        return None
    up = g.op(f"tgc.convert {x.name} : {x.type()} -> "
              f"{tensor_type(x.dims, other)}", other, x.dims, bound=x.bound,
              exact=x.exact)
    v = up
    for _ in range(g.rng.randint(0, 2)):
        o = g.rng.choice(["tanh", "exp", "mul", "add", "sigmoid", "sin"]
                         if other == "f64" else ["neg", "abs", "relu"])
        if o in ("neg", "abs", "relu"):
            v = g.unary(o, v, bound=v.bound, exact=True)
        elif o in ("mul", "add"):
            v = g.binary(o, v, v, v.dims, bound=v.bound * max(v.bound, 2))
        elif o == "exp":
            v = g.unary(o, g.scale(v, 2.0), bound=7.4)
        else:
            v = g.unary(o, v, bound=1.0)
        v = g.scale(v, BOUND)
    # f32 -> f64 -> f32 folds to the input: a view of its buffer.
    return g.op(f"tgc.convert {v.name} : {v.type()} -> "
                f"{tensor_type(v.dims, dt)}", dt, v.dims, bound=v.bound,
                exact=v.exact, base=x.base if v is up and dt == "f32"
                else None)


def gen_pad(g, dt):
    x = g.pick(lambda v: v.rank >= 1, dt)
    if x is None:
        return None
    low = [g.rng.choice([0, 0, 1, 2]) for _ in x.dims]
    high = [g.rng.choice([0, 0, 1, 3]) for _ in x.dims]
    out = []
    for d, lo, hi in zip(x.dims, low, high):
        if lo == hi == 0:
            out.append(d)
        elif d.dynamic:
            out.append(g.derived(lambda c, d=d, n=lo + hi: d.vals[c] + n))
        else:
            out.append(S(d.static + lo + hi))
    if g.max_numel(out) > g.max_elems:
        return None
    val = g.rng.choice([0.0, 1.0, -0.5])
    return g.op(f"tgc.pad {x.name} low [{', '.join(map(str, low))}] high "
                f"[{', '.join(map(str, high))}] value {val!r} : {dt} : "
                f"{x.type()} -> {tensor_type(out, dt)}", dt, out,
                bound=max(x.bound, 1.0), exact=x.exact)


def gen_rms_norm(g, dt):
    x = g.pick(lambda v: v.rank >= 1, dt)
    if x is None:
        return None
    nr = g.rng.randint(1, min(2, x.rank))
    tail = x.dims[x.rank - nr:]
    text = f"tgc.rms_norm {x.name}"
    if g.rng.random() < 0.6:
        w = g.add_arg(dt, tail)
        text += f" weight({w.name} : {w.type()})"
    text += f" normalized_rank = {nr}"
    # As for layer_norm: rows of (nearly) zeros are amplified by
    # 1 / sqrt(eps); computed inputs get a large eps.
    if not x.name.startswith("%a"):
        text += " eps = " + g.rng.choice(["1.000000e-01", "5.000000e-01"])
    elif g.rng.random() < 0.5:
        text += " eps = 1.000000e-06"
    n = g.max_numel(tail)
    return g.op(f"{text} : {x.type()}", dt, x.dims,
                bound=max(2.0, n ** 0.5))


def gen_topk(g, dt):
    x = g.pick(lambda v: v.exact and v.rank >= 1, dt)
    if x is None:
        return None
    d = g.rng.randrange(x.rank)
    k = g.rng.randint(1, min(3, g.min_size(x.dims[d])))
    out = list(x.dims)
    out[d] = S(k)
    attrs = ""
    if g.rng.random() < 0.4:
        attrs = " {largest = false}"
    name = g.fresh()
    g.emit(f"{name}:2 = tgc.topk {x.name} k = {k} dim = {d}{attrs} : "
           f"{x.type()} -> {tensor_type(out, dt)}, "
           f"{tensor_type(out, 'i64')}")
    g.int_results.append(Value(f"{name}#1", "i64", out))
    return Value(f"{name}#0", dt, out, bound=x.bound, exact=True)


def index_arg(g, dims, hi, dtype="i64"):
    return g.add_arg(dtype, dims,
                     attrs=f"{{tgc.input_range = array<i64: 0, {hi}>}}")


def gen_indexing(g, dt):
    x = g.pick(lambda v: v.rank >= 1, dt)
    if x is None:
        return None
    d = g.rng.randrange(x.rank)
    hi = g.min_size(x.dims[d])
    r = g.rng.random()
    if r < 0.4:
        n = g.random_dim(0.3)
        idx = index_arg(g, [n], hi, g.rng.choice(["i64", "i32"]))
        out = list(x.dims)
        out[d] = n
        if g.max_numel(out) > g.max_elems:
            return None
        return g.op(f"tgc.index_select {x.name}, {idx.name} dim = {d} : "
                    f"{x.type()}, {idx.type()} -> {tensor_type(out, dt)}",
                    dt, out, bound=x.bound, exact=x.exact)
    if r < 0.75:
        out = list(x.dims)
        out[d] = S(g.rng.randint(1, 4))
        idx = index_arg(g, out, hi)
        return g.op(f"tgc.gather {x.name}, {idx.name} dim = {d} : "
                    f"{x.type()}, {idx.type()} -> {tensor_type(out, dt)}",
                    dt, out, bound=x.bound, exact=x.exact)
    # embedding: rows of a rank-2 value.
    if x.rank != 2:
        return None
    idims = [g.random_dim(0.4) for _ in range(g.rng.randint(1, 2))]
    idx = index_arg(g, idims, g.min_size(x.dims[0]))
    out = idims + [x.dims[1]]
    if g.max_numel(out) > g.max_elems:
        return None
    return g.op(f"tgc.embedding {x.name}, {idx.name} : {x.type()}, "
                f"{idx.type()} -> {tensor_type(out, dt)}", dt, out,
                bound=x.bound, exact=x.exact)


def gen_int(g, dt):
    """Integer chains (exact, wrapping): arguments, elementwise ops,
    floor/trunc division and remainder by |y| + 1, reductions; back to
    float (exact) or returned as integers."""
    it = g.rng.choice(["i32", "i64"])
    rank = g.rng.randint(1, 3)
    dims = [g.random_dim() for _ in range(rank)]
    if g.max_numel(dims) > g.max_elems:
        return None
    x = g.add_arg(it, dims, attrs="{tgc.input_range = array<i64: -8, 9>}")
    for _ in range(g.rng.randint(1, 4)):
        o = g.rng.choice(["add", "sub", "mul", "maximum", "minimum", "abs",
                          "neg", "div", "remainder", "reduce", "clamp",
                          "pow"])
        if o in ("abs", "neg"):
            x = g.unary(o, x)
        elif o == "clamp":
            x = g.op(f"tgc.clamp {x.name} min -3.0 max 5.0 : {x.type()}", it,
                     x.dims)
        elif o == "reduce" and x.rank >= 1:
            ds = pick_dims(g, x.rank)
            keep = g.rng.random() < 0.4
            out = [S(1) if i in ds else d for i, d in enumerate(x.dims)
                   if i not in ds or keep]
            r = g.rng.choice(["sum", "amax", "amin"])
            kd = " keepdim" if keep else ""
            x = g.op(f"tgc.{r} {x.name} dims [{', '.join(map(str, ds))}]{kd}"
                     f" : {x.type()} -> {tensor_type(out, it)}", it, out)
        elif o == "reduce":
            continue
        else:
            y = g.add_arg(it, [d if g.rng.random() < 0.8 else S(1)
                               for d in x.dims],
                          attrs="{tgc.input_range = array<i64: -8, 9>}")
            a, b = (x, y) if g.rng.random() < 0.5 else (y, x)
            od = broadcast(a.dims, b.dims)
            if o in ("div", "remainder"):
                pb = g.unary("abs", b)
                one = g.const(1, it)
                b = g.binary("add", pb, one, b.dims)
            if o == "pow":
                b = g.op(f"tgc.clamp {b.name} min -1.0 max 3.0 : {b.type()}",
                         it, b.dims)
            if o == "div":
                mode = g.rng.choice(["floor", "trunc"])
                x = g.binary("div", a, b, od, extra=f" rounding = {mode}")
            else:
                x = g.binary(o, a, b, od)
    if g.rng.random() < 0.4:
        g.int_results.append(x)
        return None
    return g.op(f"tgc.convert {x.name} : {x.type()} -> "
                f"{tensor_type(x.dims, dt)}", dt, x.dims, bound=1e6,
                exact=True)


def gen_sdpa(g, dt):
    q = g.pick(lambda v: v.rank >= 2 and v.rank <= 4, dt)
    if q is None:
        return None
    q = g.scale(q, REDUCE_BOUND)
    e = q.dims[-1]
    if g.max_numel([e]) > g.max_k:
        return None
    sdim = g.random_dim(0.4)
    ev = g.random_dim(0.2)
    k = g.add_arg(dt, q.dims[:-2] + [sdim, e])
    v = g.add_arg(dt, q.dims[:-2] + [sdim, ev])
    out = q.dims[:-1] + [ev]
    if g.max_numel(out) > g.max_elems:
        return None
    r = g.rng.random()
    extra = ""
    if r < 0.3 and q.dims[-2].same(sdim):
        extra = " causal"
    elif r < 0.5:
        m = g.add_arg("i1", [q.dims[-2], sdim],
                      attrs="{tgc.input_range = array<i64: %d, 2>}"
                      % g.rng.randint(0, 1))
        extra = f" mask({m.name} : {m.type()})"
    elif r < 0.6:
        m = g.add_arg(dt, [q.dims[-2], sdim])
        extra = f" mask({m.name} : {m.type()})"
    if g.rng.random() < 0.3:
        extra += " {scale = 2.500000e-01 : f64}"
    return g.op(f"tgc.scaled_dot_product_attention {q.name}, {k.name}, "
                f"{v.name}{extra} : {q.type()}, {k.type()}, {v.type()} -> "
                f"{tensor_type(out, dt)}", dt, out, bound=1.0)


def gen_conv_pool(g, dt):
    x = g.pick(lambda v: v.rank in (3, 4) and
               all(not d.dynamic for d in v.dims[-3:]), dt)
    if x is None:
        # A fresh image, possibly with a dynamic batch.
        dims = [g.random_dim(0.5), S(g.rng.randint(1, 3)),
                S(g.rng.randint(3, 7)), S(g.rng.randint(3, 7))]
        x = g.add(g.add_arg(dt, dims))
    x = g.scale(x, REDUCE_BOUND)
    c, h, w = (d.static for d in x.dims[-3:])
    kh, kw = g.rng.randint(1, min(3, h)), g.rng.randint(1, min(3, w))
    stride = [g.rng.randint(1, 2), g.rng.randint(1, 2)]
    pad = [g.rng.randint(0, kh // 2), g.rng.randint(0, kw // 2)]
    r = g.rng.random()

    def osize(n, k, s, p, dil=1):
        return (n + 2 * p - dil * (k - 1) - 1) // s + 1

    lst = lambda v: "[" + ", ".join(map(str, v)) + "]"
    if r < 0.5:
        groups = g.rng.choice([gr for gr in (1, 2, 3) if c % gr == 0])
        o = groups * g.rng.randint(1, 3)
        dil = [1, 1] if g.rng.random() < 0.7 else [2, 1]
        if osize(h, kh, stride[0], pad[0], dil[0]) < 1:
            dil = [1, 1]
        wt = g.add_arg(dt, [S(o), S(c // groups), S(kh), S(kw)])
        out = x.dims[:-3] + [S(o), S(osize(h, kh, stride[0], pad[0], dil[0])),
                             S(osize(w, kw, stride[1], pad[1], dil[1]))]
        bias = ""
        if g.rng.random() < 0.5:
            b = g.add_arg(dt, [S(o)])
            bias = f" bias({b.name} : {b.type()})"
        return g.op(f"tgc.conv2d {x.name}, {wt.name}{bias} stride "
                    f"{lst(stride)} padding {lst(pad)} dilation {lst(dil)} "
                    f"groups = {groups} : {x.type()}, {wt.type()} -> "
                    f"{tensor_type(out, dt)}", dt, out,
                    bound=c // groups * kh * kw * x.bound + 1)
    out = x.dims[:-2] + [S(osize(h, kh, stride[0], pad[0])),
                         S(osize(w, kw, stride[1], pad[1]))]
    if r < 0.75:
        return g.op(f"tgc.max_pool2d {x.name} kernel {lst([kh, kw])} stride "
                    f"{lst(stride)} padding {lst(pad)} dilation [1, 1] : "
                    f"{x.type()} -> {tensor_type(out, dt)}", dt, out,
                    bound=x.bound, exact=x.exact)
    attrs = ""
    if g.rng.random() < 0.4:
        attrs = " {count_include_pad = false}"
    return g.op(f"tgc.avg_pool2d {x.name} kernel {lst([kh, kw])} stride "
                f"{lst(stride)} padding {lst(pad)}{attrs} : {x.type()} -> "
                f"{tensor_type(out, dt)}", dt, out, bound=x.bound)


def gen_wide(g, dt):
    """One transcendental op over a wide range: an exact value times 2^k
    (exact), the op, and the result is returned as is (it is not tame, so
    nothing else uses it). Tests the math library or approximations at
    large, tiny and overflowing arguments; inf must match inf."""
    x = g.pick(lambda v: v.exact and v.bound <= 4, dt)
    if x is None:
        return None
    o, k = g.rng.choice([
        ("exp", 5), ("exp", 7), ("exp2", 7), ("expm1", 6), ("tanh", 5),
        ("sigmoid", 6), ("erf", 3), ("silu", 7), ("gelu", 4), ("sin", 8),
        ("cos", 8), ("log", -60), ("log", 20), ("log2", -100),
        ("log1p", 10), ("log1p", -20), ("sqrt", 30), ("rsqrt", -30),
        ("atan2", 10)])
    c = g.const(2.0 ** k, dt)
    y = g.binary("mul", x, c, x.dims, bound=x.bound * 2.0 ** k,
                 exact=True)
    if o in ("log", "log2", "log1p", "sqrt", "rsqrt"):
        y = g.unary("abs", y, bound=y.bound, exact=True, nonneg=True)
    if o == "atan2":
        z = g.broadcast_partner(x)
        dims = broadcast(y.dims, z.dims)
        if dims is None or not z.exact:
            return None
        r = g.binary("atan2", y, z, dims)
    elif o == "gelu" and g.rng.random() < 0.5:
        r = g.op(f"tgc.gelu {y.name} approximate = tanh : {y.type()}", dt,
                 y.dims)
    else:
        r = g.unary(o, y)
    g.wide_results.append(r)
    return None


GEN = {
    "unary": gen_unary, "unary_pos": gen_unary_pos, "exp": gen_exp,
    "binary": gen_binary, "div": gen_div, "pow": gen_pow,
    "atan2": gen_atan2, "disc": gen_disc, "cmp_where": gen_cmp_where,
    "clamp": gen_clamp, "reduce": gen_reduce, "argreduce": gen_argreduce,
    "softmax": gen_softmax, "layer_norm": gen_layer_norm,
    "reshape": gen_reshape, "permute": gen_permute, "slice": gen_slice,
    "concat": gen_concat, "expand": gen_expand, "unsqueeze": gen_unsqueeze,
    "matmul": gen_matmul, "linear": gen_linear, "bmm": gen_bmm,
    "convert64": gen_convert64, "pad": gen_pad, "rms_norm": gen_rms_norm,
    "topk": gen_topk, "indexing": gen_indexing, "int": gen_int,
    "sdpa": gen_sdpa, "conv_pool": gen_conv_pool, "wide": gen_wide,
}


# -- running ------------------------------------------------------------------
def classify(rc, stderr):
    if rc is None:
        return "timeout"
    if rc < 0:
        return f"crash (signal {-rc}: {signal.Signals(-rc).name})"
    if rc == 1 and "mismatch" in stderr:
        return "mismatch"
    if rc == 2:
        if "reference interpreter failed" in stderr:
            return "reference error"
        if "cannot parse" in stderr:
            return "invalid graph (generator bug)"
        return "compile/run error"
    return f"exit {rc}"


def is_model_seed(seed, fraction):
    """Whether graph `seed` is model-shaped (--models FRACTION)."""
    return random.Random(seed * 31 + 7).random() < fraction


def run_one(index, seed, tgc_run, workdir, timeout, models=0.0):
    text, opts, desc = gen_graph(seed, model=is_model_seed(seed, models))
    path = os.path.join(workdir, f"graph-{seed}.mlir")
    with open(path, "w") as f:
        f.write(text)
    cmd = [tgc_run, path, "--check", "reference", "--seed", str(seed % 1000),
           "--json"] + opts
    try:
        proc = subprocess.run(cmd, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, timeout=timeout)
        rc, out, err = proc.returncode, proc.stdout.decode(errors="replace"), \
            proc.stderr.decode(errors="replace")
    except subprocess.TimeoutExpired:
        rc, out, err = None, "", f"timed out after {timeout} s"
    ok = rc == 0
    return dict(index=index, seed=seed, ok=ok, rc=rc, text=text, opts=opts,
                desc=desc, stderr=err, path=path,
                kind=None if ok else classify(rc, err), cmd=cmd)


def save_failure(res, keep_dir, tgc_run):
    os.makedirs(keep_dir, exist_ok=True)
    base = os.path.join(keep_dir, f"graph-{res['seed']}")
    with open(base + ".mlir", "w") as f:
        f.write(res["text"])
    cmd = [tgc_run, base + ".mlir"] + res["cmd"][2:]
    cmd = [c for c in cmd if c != "--json"]
    with open(base + ".sh", "w") as f:
        f.write("#!/bin/sh\n# " + res["kind"] + "\n" +
                " ".join(shlex.quote(c) for c in cmd) + "\n")
    with open(base + ".log", "w") as f:
        f.write(res["stderr"])
    return base


def run_seeds(args, start, report, task):
    """Runs `task(i)` (a function and its arguments) for i < args.count on
    args.jobs threads, calling `report` with each result as it finishes; no
    new one starts after args.time_budget seconds from `start`. Returns the
    results. fuzz-crash.py uses it too."""
    results = []
    with concurrent.futures.ThreadPoolExecutor(max(1, args.jobs)) as ex:
        pending, i, stopped = set(), 0, False
        while i < args.count or pending:
            while (i < args.count and len(pending) < max(1, args.jobs)
                   and not stopped):
                if (args.time_budget is not None and
                        time.monotonic() - start > args.time_budget):
                    stopped = True
                    break
                fn, *fn_args = task(i)
                pending.add(ex.submit(fn, *fn_args))
                i += 1
            if not pending:
                break
            done, pending = concurrent.futures.wait(
                pending, return_when=concurrent.futures.FIRST_COMPLETED)
            for fut in done:
                res = fut.result()
                results.append(res)
                report(res)
            if stopped and not pending:
                break
    return results


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tgc-run", default="tgc-run")
    parser.add_argument("--seed", type=int, default=1,
                        help="first graph seed; graph i uses seed + i")
    parser.add_argument("--count", type=int, default=100)
    parser.add_argument("--time-budget", type=float, default=None,
                        help="stop starting new graphs after this many "
                             "seconds")
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--timeout", type=float, default=120,
                        help="per-graph limit in seconds")
    parser.add_argument("--keep-failures", default=None, metavar="DIR")
    parser.add_argument("--models", type=float, default=0.0, metavar="FRACTION",
                        help="fraction of the graphs that are model-shaped: "
                             "100-500 ops of repeated blocks with residuals, "
                             "views and out-buffer updates (1 = all)")
    parser.add_argument("--print", dest="print_seed", type=int, default=None,
                        help="print the graph and options of one seed; "
                             "run nothing")
    parser.add_argument("-v", "--verbose", action="store_true")
    args = parser.parse_args()

    if args.print_seed is not None:
        text, opts, _ = gen_graph(args.print_seed,
                                  model=is_model_seed(args.print_seed, args.models))
        sys.stdout.write(text)
        print("// options: " + " ".join(opts))
        return 0

    tgc_run = shutil.which(args.tgc_run) or args.tgc_run
    start = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="fuzz-graphs-") as workdir:
        def report(res):
            if args.verbose:
                print(f"seed {res['seed']}: "
                      f"{'ok' if res['ok'] else res['kind']} "
                      f"[{res['desc']}]", flush=True)
            if not res["ok"]:
                where = ""
                if args.keep_failures:
                    where = " -> " + save_failure(
                        res, args.keep_failures, tgc_run) + ".mlir"
                lines = res["stderr"].strip().splitlines()
                print(f"FAIL seed {res['seed']}: {res['kind']}{where}"
                      f"\n  ops: {res['desc']}\n  " +
                      "\n  ".join(lines[-6:]), flush=True)

        results = run_seeds(
            args, start, report,
            lambda i: (run_one, i, args.seed + i, tgc_run, workdir,
                       args.timeout, args.models))
    elapsed = time.monotonic() - start
    failed = [r for r in results if not r["ok"]]
    kinds = {}
    for r in failed:
        kinds.setdefault(r["kind"], []).append(r["seed"])
    print(f"{len(results)} graphs, {len(failed)} failures "
          f"({elapsed:.1f} s, seeds {args.seed}..{args.seed + len(results) - 1})")
    for k, seeds in sorted(kinds.items()):
        print(f"  {k}: {len(seeds)} (seeds {' '.join(map(str, sorted(seeds)[:20]))})")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
