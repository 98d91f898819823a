"""The IR model of utils/fuzz-graphs.py: sizes and values, the Graph that
emits tgc ops with their types, the bounds that keep values finite, and the
flags of the bugs the fuzzer found. The op generators are in fuzz_ops.py."""

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
