"""Graph breaks: compiled regions around eager islands.

With ``fullgraph=False`` (the default, as in ``torch.compile``) a call the
tracer cannot record (an operator without a handler, arguments a handler
rejects, a dtype TGC does not compile, a result whose size depends on the
data) does not send the whole function to eager PyTorch. The call becomes
an *island*: at run time it is called eagerly with the same arguments,
between compiled *regions*.

While tracing, an island's tensor results become new arguments of the
graph (their sizes static, or dynamic once a size was seen to change, or
with ``dynamic=True``: :class:`BreakSizes`); results of a
dtype TGC does not compile stay eager values, and a call that reads one is
an island too. When the trace finishes, :func:`partition` cuts the
recorded ops at the islands, in program order, into one ``func.func`` per
region: each takes the values it reads that are computed elsewhere
(inputs, parameters, earlier regions' results, islands' results) and
returns the values read after it. Size computations (``tensor.dim``,
``arith`` on indices) and constants are recomputed in every region that
needs them instead of crossing a boundary.

:func:`run_island` runs an island between the regions. The first region
takes every input of the call, so its compiled guards select the
specialization as before; a later region's guards and every island
result's size are checked when they are reached. A mismatch there
(:class:`BreakMiss`) is not an error: nothing has been written yet (an
island never updates an input in place; the final writes into inputs are
in the last region), and the caller compiles a new specialization in which
that size is dynamic. A Python decision on an island result's size makes
that size static (checked the same way).

Data-dependent Python control flow (``bool(t)``, ``t.item()``,
``t.tolist()``) is not a graph break: the tracer cannot resume Python after
it, and the function runs eagerly with ``fallback=True`` (see
docs/python.md).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Dict, List, Sequence, Set, Tuple

import torch

from ._graph import Dyn, Unsupported, format_type, narrow_u8, widen_u8


def _local_names(base: str):
    """Fresh SSA names for lines a region adds around `base`."""
    counter = [0]

    def fresh() -> str:
        counter[0] += 1
        return f"{base}_w{counter[0]}"
    return fresh
from ._scalars import DataScalar, kind_of, new_slot_value, to_tensor


@dataclass
class GraphBreak:
    """One eager island, as ``tgc.explain`` reports it."""

    op: str
    where: str
    reason: str

    def __str__(self) -> str:
        return f"{self.op} at {self.where}: {self.reason}"


@dataclass
class Slot:
    """A tensor result of an island: a graph argument (`name` is its
    Value's name) or an eager value (`eager`: a dtype TGC does not compile)."""

    name: str
    shape: List[int]
    dynamic: Set[int]
    eager: bool = False
    scalar: Any = None  # a Python number's kind (int, float, bool): a 0-d argument


@dataclass
class Island:
    index: int
    func: Any
    op: str
    args: Any  # template: see record_island
    kwargs: Any
    slots: List[Slot]
    position: int  # the number of graph lines recorded before the call
    reads: List[str]  # the names of the values its arguments read
    cloned: Set[int] = field(default_factory=set)  # leaves updated in place
    info: GraphBreak = None  # type: ignore[assignment]


@dataclass
class BreakSizes:
    """Which sizes of graph-break results are dynamic, per (island,
    result): those seen to change (or all, with dynamic=True), less the
    ones a Python decision pinned static for good (checked when the island
    runs). One per compiled function, shared by its traces."""

    all_dynamic: bool = False
    changed: Dict[Tuple[int, int], Set[int]] = field(default_factory=dict)
    pinned: Dict[Tuple[int, int], Set[int]] = field(default_factory=dict)

    def dynamic(self, key: Tuple[int, int], rank: int) -> Set[int]:
        dims = set(range(rank)) if self.all_dynamic else set(self.changed.get(key, ()))
        return dims - self.pinned.get(key, set())

    def make_dynamic(self, key: Tuple[int, int], dim: int) -> bool:
        """Whether `dim` became dynamic (a pinned one stays static)."""
        if dim in self.pinned.get(key, ()) or dim in self.changed.get(key, ()):
            return False
        self.changed.setdefault(key, set()).add(dim)
        return True

    def pin(self, key: Tuple[int, int], dim: int) -> bool:
        """Makes `dim` static for good; whether it was not already."""
        pinned = self.pinned.setdefault(key, set())
        if dim in pinned:
            return False
        pinned.add(dim)
        return True


class BreakMiss(Exception):
    """A later region's guard or an island result's size failed in a call
    whose first region's guards accepted it."""

    def __init__(self, message: str, dims: Sequence[Tuple[Tuple[int, int], int]] = ()):
        super().__init__(message)
        self.dims = list(dims)  # ((island, slot), dim) sizes that changed


# Operators whose result depends on the memory under a tensor, not only on
# its elements: an island of one cannot take a compiled view.
_STORAGE_READS = ("as_strided", "as_strided_", "as_strided_copy", "as_strided_scatter")


def _dense_storage(t: torch.Tensor) -> bool:
    """Whether `t` is laid out as compiled code returns it: row-major from
    offset 0 over exactly its own memory (a view of a whole tensor of the
    same size is; x[:1], x[1:], x.t() are not)."""
    if not t.is_contiguous() or t.storage_offset() != 0:
        return False
    try:
        elements = t.untyped_storage().nbytes() // t.element_size()
    except AttributeError:  # PyTorch 1.13
        elements = t.storage().size()
    return elements == t.numel()


def record_island(tr, func, op: str, args, kwargs, real, reason: str, where: str):
    """Records the call that just ran as an island and binds its results;
    returns the real result, or raises Unsupported (why it cannot be one)."""
    from ._ops.core import specialize_syms
    from ._ops.writes import written_operands
    from ._trace import _compiles, storage_ptr

    if op.split(".")[-1] in _STORAGE_READS:
        for t in list(args) + list(kwargs.values()):
            if isinstance(t, torch.Tensor) and tr.produced(t) and not _dense_storage(t):
                # The island would get the compiled value laid out anew
                # (dense, from offset 0): x.t().as_strided(...) read other
                # elements than eager's.
                raise Unsupported(f"{op.split('.')[-1]} reads the memory under a view that "
                                  "the compiled code lays out anew")
    args = specialize_syms(tr, args, f"size passed to {op} (graph break)", True)
    kwargs = specialize_syms(tr, dict(kwargs), f"size passed to {op} (graph break)", True)
    reads: List[str] = []
    mutated: List[torch.Tensor] = written_operands(op, args, kwargs)
    input_names = {v.name for v in tr.input_values if v is not None}
    input_names |= {v.name for v in tr.captured_values}
    input_names |= {w for w, a in tr.graph.widened.items() if a in input_names}
    cloned: Set[int] = set()
    written: Dict[int, int] = {}
    graph_device = tr.device
    leaves: List[Any] = []

    def template(o):
        if isinstance(o, torch.Tensor):
            if tr.stale.get(id(o)) is o:
                from ._trace import _STALE

                raise Unsupported(f"it reads {_STALE}")
            if tr.poisoned.get(id(o)) is o and id(o) not in tr.eager:
                raise Unsupported("it reads a result TGC does not compute (an auxiliary "
                                  "result of an operator it compiles in part)")
            name = tr.name_of(o)
            if any(o is m for m in mutated):
                arg = next((i for i, x in enumerate(tr.inputs) if x is o), None)
                captured = any(o is c for c in tr.captured)  # (name_of may add it)
                # A tensor whose graph value is an input's: an alias of it
                # (detach: the update must reach the caller's tensor), or a
                # copy the graph does not make (clone: the island updates
                # its own copy, as eager updates the clone).
                ptr = storage_ptr(o)
                alias = name in input_names and arg is None and ptr != 0 and any(
                    isinstance(x, torch.Tensor) and storage_ptr(x) == ptr
                    for x in list(tr.inputs) + list(tr.captured))
                if captured or alias or \
                        (arg is not None and tr.input_values[arg] is None):
                    raise Unsupported(
                        f"{op} updates a parameter or an eager input in place and TGC "
                        "cannot compile it (a graph break must not write the caller's "
                        "tensors)")
                if o._base is not None:
                    raise Unsupported(f"{op} updates a view in place")
                # The island updates a copy; an input gets the result
                # written back by the last region (tgc.write_out), so that
                # a BreakMiss before it has written nothing.
                if arg is not None:
                    v = tr.input_values[arg]
                    if v.concrete() != list(o.shape) or v.dtype != o.dtype:
                        raise Unsupported(f"{op} resizes an input (PyTorch resizes an out= "
                                          "tensor; a compiled function cannot)")
                    written[id(o)] = arg
                cloned.add(len(leaves))
            reads.append(name)
            leaves.append(o)
            # On the device eager PyTorch has it (the regions run on one).
            return ("t", name, o.device if o.device != graph_device else None)
        if isinstance(o, DataScalar):
            # The number of the current call, from the region before.
            reads.append(o.v.name)
            return ("s", o.v.name, o.kind)
        if type(o) is tuple:
            return ("tuple", [template(e) for e in o])
        if isinstance(o, list):
            return ("list", [template(e) for e in o])
        if isinstance(o, dict):
            return ("dict", {k: template(v) for k, v in o.items()})
        if isinstance(o, slice):  # (x[:n] with a tensor n: the call's n)
            return ("slice", [template(e) for e in (o.start, o.stop, o.step)])
        return ("c", o)

    targs = template(tuple(args))
    tkwargs = template(kwargs)
    # The results: tensors (and None), in tuples, lists or PyTorch's
    # named result tuples; Python values the function could read are not.
    tensors: List[torch.Tensor] = []

    def outs(o):
        if isinstance(o, torch.Tensor):
            tensors.append(o)
        elif isinstance(o, (tuple, list)):
            for e in o:
                outs(e)
        elif o is not None:
            raise Unsupported(f"{op} returns a {type(o).__name__}, which Python reads")

    index = len(tr.islands)
    slots: List[Slot] = []
    number = None
    if tr.fx_node is not None and kind_of(real) is not None:
        # In an FX graph, a number it returns stays a traced number: a 0-d
        # argument of the region after it (tgc._scalars).
        number = new_slot_value(tr, real)
        slots.append(Slot(number.v.name, [], set(), scalar=number.kind))
    else:
        outs(real)
    results = tensors + [m for m in mutated if not any(m is t for t in tensors)]
    # The compiled regions run on the inputs' device: a result on the other
    # one of CPU and CUDA is moved there when the island runs (and back
    # where eager has it when it leaves the graph); on any other device it
    # stays an eager value, as one of a dtype TGC does not compile.
    devices = {"cpu", "cuda"}
    bound: List[Tuple[torch.Tensor, Any]] = []
    for k, t in enumerate(results):
        dyn = tr.breaks.dynamic((index, k), t.dim())
        ok = _compiles(t) and (t.device == graph_device or {
            t.device.type, graph_device.type} <= devices)
        if not ok:
            key = f"%eager{len(tr.eager)}"
            tr.eager[id(t)] = (t, key)
            tr.poison(t)
            slots.append(Slot(key, list(t.shape), set(), eager=True))
            continue
        arg = tr.graph.nargs
        shape = [Dyn({(arg, d)}, s) if d in dyn and s > 1 else int(s)
                 for d, s in enumerate(t.shape)]
        v = tr.graph.add_arg(t.dtype, shape, f"{op} result {k}")
        tr.island_args[arg] = (index, k)
        bound.append((t, v))
        slots.append(Slot(v.name, [int(s) for s in t.shape],
                          {d for d, s in enumerate(shape) if isinstance(s, Dyn)}))
    tr.mutated.update(written)
    island = Island(index, func, op, targs, tkwargs, slots, len(tr.graph.lines),
                    list(dict.fromkeys(reads)), cloned, GraphBreak(op, where, reason))
    tr.islands.append(island)
    # After the island: the region after it widens a uint8 result.
    for t, v in bound:
        tr.bind(t, tr.graph.widen(v))
    if mutated:
        from ._ops.core import refresh_aliases

        for m in mutated:  # views of what the island updated (after it)
            if tr.eager.get(id(m), (None,))[0] is not m:
                refresh_aliases(tr, m)
    return real if number is None else number


# -- partitioning --------------------------------------------------------------

_DEFS = re.compile(r"^\s*(%[\w.$-]+(?:\s*,\s*%[\w.$-]+)*)\s*=\s")
_USES = re.compile(r"%[\w.$-]+")
_CHEAP = ("arith.", "tensor.dim", "tgc.constant")


@dataclass
class Region:
    index: int
    name: str
    args: List[str]
    results: List[str]
    text: str
    example_shapes: List[List[int]] = field(default_factory=list)
    compiled: Any = None
    # Results that are uint8 tensors, returned as their i8 storage.
    unsigned: List[int] = field(default_factory=list)


@dataclass
class Program:
    """Regions and islands in the order they run."""

    steps: List[Any]  # Region | Island
    islands: List[Island]
    outputs: List[str]  # the names of the function's tensor results

    @property
    def regions(self) -> List[Region]:
        return [s for s in self.steps if isinstance(s, Region)]

    @property
    def breaks(self) -> List[GraphBreak]:
        return [i.info for i in self.islands]


def _parse(line: str) -> Tuple[List[str], List[str], str]:
    body = line.split(" loc(", 1)[0]
    m = _DEFS.match(body)
    defs = [d.strip() for d in m.group(1).split(",")] if m else []
    rest = body[m.end():] if m else body
    op = rest.strip().split(" ", 1)[0]
    return defs, _USES.findall(rest), op


def partition(graph, islands: Sequence[Island], outputs: Sequence[str],
              first_args: Sequence[str], name: str) -> Program:
    """Cuts `graph`'s lines at the islands (see the module docstring).
    `first_args`: the call's inputs, all taken by the first region (its
    guards select the specialization)."""
    parsed = [_parse(l) for l in graph.lines]
    known = set(graph.values)
    defined_at: Dict[str, int] = {}
    cheap_def: Dict[str, int] = {}
    for i, (defs, _, op) in enumerate(parsed):
        for d in defs:
            defined_at[d] = i
            known.add(d)
            if op.startswith(_CHEAP):
                cheap_def[d] = i

    def cheap(i: int) -> bool:
        defs = parsed[i][0]
        return bool(defs) and all(d in cheap_def for d in defs)

    bounds = [i.position for i in islands] + [len(graph.lines)]
    starts = [0] + [i.position for i in islands]
    # A constant an island or the outputs read is a tensor the region
    # before them computes and returns (it cannot be recomputed there).
    exported_cheap: List[Set[int]] = [set() for _ in bounds]
    for k, names in [(k, isl.reads) for k, isl in enumerate(islands)] + \
            [(len(bounds) - 1, list(outputs))]:
        for u in names:
            if u in cheap_def:
                exported_cheap[k].add(cheap_def[u])
    # Each region's lines: its own (cheap ones only where read), plus the
    # cheap definitions its lines read, wherever they were recorded.
    region_lines: List[List[int]] = []
    for r in range(len(bounds)):
        own = [i for i in range(starts[r], bounds[r]) if not cheap(i)]
        own += sorted(exported_cheap[r] - set(own))
        need: Set[int] = set()
        stack = [u for i in own for u in parsed[i][1]]
        while stack:
            u = stack.pop()
            j = cheap_def.get(u)
            if j is not None and j not in need:
                need.add(j)
                stack += parsed[j][1]
        region_lines.append(sorted(set(own) | need))
    region_of: Dict[str, int] = {}
    for r in range(len(bounds)):
        for i in range(starts[r], bounds[r]):
            if not cheap(i):
                for d in parsed[i][0]:
                    region_of[d] = r
    for r, lines in enumerate(exported_cheap):
        for i in lines:
            for d in parsed[i][0]:
                region_of.setdefault(d, r)
    # reads_after[r]: names defined in region r and read by a later
    # consumer (a later region, an island after it, the outputs).
    reads_after: List[Set[str]] = [set() for _ in region_lines]
    consumers: List[Tuple[int, List[str]]] = []
    for r, ls in enumerate(region_lines):
        local = {d for i in ls for d in parsed[i][0]}
        consumers.append((r, [u for i in ls for u in parsed[i][1]
                              if u in known and u not in local]))
    for k, isl in enumerate(islands):
        consumers.append((k + 1, isl.reads))  # island k runs after region k
    consumers.append((len(region_lines), list(outputs)))
    for at, names in consumers:
        for u in names:
            r = region_of.get(u)
            if r is not None and r < at:
                reads_after[r].add(u)
    steps: List[Any] = []
    for r, ls in enumerate(region_lines):
        local = {d for i in ls for d in parsed[i][0]}
        ext: List[str] = list(first_args) if r == 0 else []
        for i in ls:
            for u in parsed[i][1]:
                if u in known and u not in local and u not in ext:
                    ext.append(u)
        results = sorted(reads_after[r], key=lambda n: defined_at[n])
        if r > 0 and not results and all(parsed[i][0] for i in ls):
            # Nothing read later and nothing written: no region.
            if r < len(islands):
                steps.append(islands[r])
            continue
        rname = f"{name}_part{r}"
        # uint8 values cross regions as their i8 storage (tgc._graph).
        params, lines, returned, rtypes_l, unsigned = [], [], [], [], []
        for a in ext:
            v = graph.values[a]
            if v.dtype == torch.uint8 and not v.storage:
                params.append(f"{a}_u8: {format_type(v.dtype, v.shape, True)} {{tgc.unsigned}}"
                              + graph.arg_loc(a))
                lines += widen_u8(f"{a}_u8", a, v.shape, _local_names(a))
            else:
                params.append(f"{a}: {v.type}" + (" {tgc.unsigned}" if v.storage else "")
                              + graph.arg_loc(a))
        lines += [graph.lines[i] for i in ls]
        for k, n in enumerate(results):
            v = graph.values[n]
            if v.dtype == torch.uint8 and not v.storage:
                lines.append(narrow_u8(n, f"{n}_u8", v.shape))
                returned.append(f"{n}_u8")
                rtypes_l.append(format_type(v.dtype, v.shape, True))
            else:
                returned.append(n)
                rtypes_l.append(v.type)
            if v.dtype == torch.uint8:
                unsigned.append(k)
        rtypes = ", ".join(rtypes_l)
        body = "\n".join("  " + l for l in lines)
        ret = f"  return {', '.join(returned)} : {rtypes}" if results else "  return"
        sig = f" -> ({rtypes})" if results else ""
        text = f"func.func @{rname}({', '.join(params)}){sig} {{\n{body}\n{ret}\n}}\n"
        steps.append(Region(r, rname, ext, results, text,
                            [graph.values[a].concrete() for a in ext], unsigned=unsigned))
        if r < len(islands):
            steps.append(islands[r])
    return Program(steps, list(islands), list(outputs))


# -- running ---------------------------------------------------------------------


def _build(t, env, island: Island, counter: List[int]):
    tag = t[0]
    if tag == "t":
        k = counter[0]
        counter[0] += 1
        x = env[t[1]]
        if t[2] is not None and x.device != t[2]:
            x = x.to(t[2])
        return x.clone() if k in island.cloned else x
    if tag == "c":
        return t[1]
    if tag == "s":
        return t[2](env[t[1]].item())
    if tag == "dict":
        return {k: _build(v, env, island, counter) for k, v in t[1].items()}
    items = [_build(e, env, island, counter) for e in t[1]]
    if tag == "slice":
        return slice(*items)
    return tuple(items) if tag == "tuple" else items


def run_island(island: Island, env: Dict[str, torch.Tensor], device=None) -> None:
    """Calls the island's function eagerly and binds its tensor results,
    checking their sizes against the ones the regions after it take (a
    number it returns becomes a 0-d tensor on `device`)."""
    counter = [0]
    args = _build(island.args, env, island, counter)
    kwargs = _build(island.kwargs, env, island, counter)
    mutated: List[torch.Tensor] = []
    if island.cloned:
        flat: List[torch.Tensor] = []
        _leaves(args, flat)
        _leaves(kwargs, flat)
        mutated = [flat[k] for k in sorted(island.cloned)]
    with torch.no_grad():
        real = island.func(*args, **kwargs)
    if island.slots and island.slots[0].scalar is not None:
        slot = island.slots[0]
        if kind_of(real) is None:
            raise BreakMiss(f"graph break {island.index} ({island.info.op}) returned a "
                            f"{type(real).__name__}, a {slot.scalar.__name__} when traced")
        env[slot.name] = to_tensor(real, slot.scalar, device)
        return
    tensors: List[torch.Tensor] = []
    _leaves(real, tensors)
    results = tensors + [m for m in mutated if not any(m is t for t in tensors)]
    if len(results) != len(island.slots):
        raise BreakMiss(f"graph break {island.index} ({island.info.op}) returned "
                        f"{len(results)} tensors, {len(island.slots)} when traced")
    changed = []
    for k, (t, slot) in enumerate(zip(results, island.slots)):
        if t.dim() != len(slot.shape):
            raise BreakMiss(f"graph break {island.index} ({island.info.op}): result {k} "
                            f"has rank {t.dim()}, {len(slot.shape)} when traced")
        for d, (a, b) in enumerate(zip(t.shape, slot.shape)):
            if a != b and d not in slot.dynamic:
                changed.append(((island.index, k), d))
        if slot.eager:
            env[slot.name] = t
        else:
            env[slot.name] = (t if device is None else t.to(device)).contiguous()
    if changed:
        raise BreakMiss(
            f"graph break {island.index} ({island.info.op}): the size of "
            + ", ".join(f"result {k} dim {d}" for (_, k), d in changed)
            + " changed", changed)


def _leaves(o, out: List[torch.Tensor]) -> None:
    if isinstance(o, torch.Tensor):
        out.append(o)
    elif isinstance(o, (tuple, list)):
        for e in o:
            _leaves(e, out)
    elif isinstance(o, dict):
        for e in o.values():
            _leaves(e, out)
