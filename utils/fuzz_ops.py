"""The op generators of utils/fuzz-graphs.py: one function per op kind,
each adding an op of that kind (with inputs of the right shapes and
ranges) to a fuzz_ir.Graph, and GEN, the table gen_graph draws from."""

from fuzz_ir import *  # noqa: F401,F403

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


def _norm_operands(g, dt, mnemonic, operands):
    """A normalization's input, its normalized rank and trailing dims, and
    its text with the optional affine operands (`operands`, each drawn with
    probability 0.6, in order); None when no value fits."""
    x = g.pick(lambda v: v.rank >= 1, dt)
    if x is None:
        return None
    nr = g.rng.randint(1, min(2, x.rank))
    tail = x.dims[x.rank - nr:]
    text = f"{mnemonic} {x.name}"
    for key in operands:
        if g.rng.random() < 0.6:
            w = g.add_arg(dt, tail)
            text += f" {key}({w.name} : {w.type()})"
    return x, nr, tail, text


def gen_layer_norm(g, dt):
    found = _norm_operands(g, dt, "tgc.layer_norm", ("weight", "bias"))
    if found is None:
        return None
    x, nr, tail, text = found
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
    found = _norm_operands(g, dt, "tgc.rms_norm", ("weight",))
    if found is None:
        return None
    x, nr, tail, text = found
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
