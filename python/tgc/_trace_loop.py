"""Runs traces: :func:`trace` traces a call with a :class:`tgc._trace.Tracer`
and starts again where a trace asks for it (a size read that specializes a
dynamic size, a PyTorch call that does not take symbolic sizes, an
approximate trace that needs the values it did not compute: see
tgc._approximate), each time from the caller's inputs.
"""

from __future__ import annotations

import contextlib
import gc
import os
import sys
import threading
from typing import Any, Callable, Dict, List, Optional, Sequence, Set

import torch

from . import _names, _object_guards, _state
from ._graph import Unsupported
from ._trace import (NeedExact, NeedRetrace, Specialization, TraceResult, Tracer,
                     is_internal_file, user_frame)
from ._tracing import _active, _count_trace


@contextlib.contextmanager
def _grad_mode_reads():
    """Yields a list that receives each value torch.is_grad_enabled()
    returns to the model's code (a guard of the specialization; torch's own
    reads, such as set_grad_enabled saving the mode, are not decisions of
    the model)."""
    original = torch.is_grad_enabled
    reads: List[bool] = []

    thread = threading.get_ident()

    def recording():
        value = original()
        # (Grad mode is per thread: another thread's read is not the trace's.)
        if threading.get_ident() == thread and \
                not is_internal_file(sys._getframe(1).f_code.co_filename):
            reads.append(value)
        return value

    torch.is_grad_enabled = recording
    try:
        yield reads
    finally:
        torch.is_grad_enabled = original


def trace(
    fn: Callable,
    inputs: Sequence[Any],
    dynamic: Sequence[Set[int]],
    name: str = "traced",
    module: Optional[torch.nn.Module] = None,
    source: Optional[Callable] = None,
    breaks=None,
    data_inputs: Set[int] = frozenset(),
    input_names: Sequence[str] = (),
    approximate: Optional[bool] = None,
    originals: Optional[Sequence[Any]] = None,
) -> TraceResult:
    """Traces `fn(*inputs)`; dims of `dynamic` sizes read by Python become
    static and the trace restarts (at most once per input dim).
    `input_names`: the model's names of the inputs (tgc._names).
    `approximate`: large CPU products and convolutions are not computed
    (tgc._approximate; None: with TGC_TRACE_APPROXIMATE=1, an opt-in).
    `originals`: `inputs` as the caller has them (the trace runs on
    copies), put back into the copies before each restart; None: taken
    here."""
    if approximate is None:
        approximate = os.environ.get("TGC_TRACE_APPROXIMATE", "0") == "1"
    # One trace at a time in the process: the tracer patches
    # torch.Tensor.__getitem__ and keeps the active tracer in a global.
    with _trace_lock, _heap_frozen():
        return _trace(fn, inputs, dynamic, name, module, source, breaks, data_inputs,
                      input_names, approximate, originals)


_trace_lock = threading.RLock()
_trace_depth = [0]  # traces entered on this thread (under _trace_lock)
# A heap the program froze itself beyond this many objects is left alone:
# its passes already skip it, and unfreezing it would undo the program's
# own freeze (a server's, before forking workers).
_OWN_FREEZE_LIMIT = 10000


@contextlib.contextmanager
def _heap_frozen():
    """The objects alive when a trace starts (torch's, transformers', the
    model's: ~450 K with an HF model) are left out of the cyclic
    collector's passes until it ends (gc.freeze, then gc.unfreeze). A
    trace allocates long-lived objects for every operator (values, names,
    graph text), and each time those grew by a quarter of the oldest
    generation the collector made a full pass over the whole heap: on the
    H200 with Python 3.12, GPT-2-24's first call from the disk cache made
    one (200-300 ms) and took 555-869 ms, 390-518 with the heap frozen
    (cProfile had put the pass wherever an allocation started it).
    Raising the oldest generation's threshold instead only moved that
    pass to just after the trace. The young generations are collected
    first (gc.collect(1), well under a millisecond), so that the garbage
    cycles they hold are not frozen and then promoted to the oldest
    generation. Python unfreezes all or nothing: a program that froze
    more than _OWN_FREEZE_LIMIT objects itself is left as it is (its
    passes already skip them); a few (the H200 machine's python3 starts
    with 375 frozen) are unfrozen with the rest (docs/python.md, "The
    tracer"). Not done with the collector off, nor for a nested trace."""
    froze = False
    _trace_depth[0] += 1
    try:
        if _trace_depth[0] == 1 and gc.isenabled() and \
                gc.get_freeze_count() <= _OWN_FREEZE_LIMIT:
            gc.collect(1)
            gc.freeze()
            froze = True
        yield
    finally:
        _trace_depth[0] -= 1
        if froze:
            gc.unfreeze()


def _approximate_module():
    from . import _approximate

    return _approximate


def _module_scopes(tracer: "Tracer", module_names: Dict[int, str]):
    """Global module hooks that keep `tracer.module_stack`: the path and
    type of each submodule call of this thread, the compiled module itself
    as "" (its own ops are not scoped)."""
    from torch.nn.modules import module as nn_module

    thread = threading.get_ident()

    def enter(m, _inputs):
        if threading.get_ident() == thread:
            if tracer.tainted and (m._forward_pre_hooks or m._forward_hooks):
                # (the model's own hooks would keep values not computed)
                _approximate_module().need_values(tracer, _inputs)
            path = module_names.get(id(m))
            tracer.module_stack.append(
                "" if path == "self" else f"{path or type(m).__name__} ({type(m).__name__})")

    def leave(m, _inputs, _output):
        if threading.get_ident() == thread and tracer.tainted and m._forward_hooks:
            _approximate_module().need_values(tracer, (_inputs, _output))
        if threading.get_ident() == thread and tracer.module_stack:
            tracer.module_stack.pop()

    with _state.own_hooks():  # they change no compiled call
        return (nn_module.register_module_forward_pre_hook(enter),
                nn_module.register_module_forward_hook(leave))


def _trace(fn, inputs, dynamic, name, module, source, breaks=None,
           data_inputs: Set[int] = frozenset(), input_names: Sequence[str] = (),
           approximate: bool = False, originals: Optional[Sequence[Any]] = None) -> TraceResult:
    """`module`: the compiled module (its parameters and buffers are named,
    its attribute reads recorded); `source`: the user's function or module,
    whose globals and closure are guarded."""
    dyn = [set(d) for d in dynamic]
    specs: List[Specialization] = []
    names = _state.tensor_names(module) if module is not None else {}
    module_names = _state.module_names(module) if module is not None else {}
    labels = {k: "self." + v for k, v in names.items()}
    if source is not None:
        for k, v in _names.source_tensor_names(source).items():
            labels.setdefault(k, v)
    # The inputs as they were: a trace that starts again (a specialization,
    # an approximate trace that needs the values) may have updated them in
    # place, and the next one must see what the call passed.
    if originals is None:
        originals = [x.detach().clone() if isinstance(x, torch.Tensor) else x for x in inputs]
    for attempt in range(64):
        if attempt:
            _restore(inputs, originals)
        tracer = Tracer(inputs, dyn, name, specs, names, breaks, data_inputs,
                        input_names, labels)
        tracer.approximate = approximate and _approximate_module().allowed()
        recorder = _state.AttributeRecorder(module_names, user_frame, tracer.produced)
        tracer.frame_notes = _object_guards.FrameNotes(is_internal_file, sys._getframe())
        tracer.thread = threading.get_ident()
        hooks, recording = None, False
        _active.append(tracer)
        # Compiled functions called inside the trace are traced through
        # (CompiledFunction._call), never served by the native path.
        _count_trace(1)
        try:
            _state.start_recording(recorder)
            recording = True
            if tracer.approximate:
                _approximate_module().watch_attributes(tracer)
            hooks = _module_scopes(tracer, module_names)
            with tracer, _grad_mode_reads() as grad_reads:
                out = fn(*inputs)
            result = tracer.finish(out)
            if grad_reads:
                result.grad_mode = grad_reads[0]
            root = _state._code_of(source)[0] if source is not None else None
            result.value_guards = recorder.guards()
            if module is not None and isinstance(module, _object_guards.CONTAINERS):
                result.value_guards += _object_guards.container("self", module, "")
            if source is not None:
                result.value_guards += _state.function_value_guards(source)
            result.value_guards += tracer.frame_notes.guards(root)
            _object_guards.by_source(result)
            result.approximated = tracer.approximated
            return result
        except NeedExact:
            approximate = False
        except NeedRetrace:
            if tracer.need_exact:
                # (read by the model's handler of a swallowed NeedExact:
                # the exact trace decides)
                approximate = False
                continue
            specs = tracer.specializations
            for s in specs:
                dyn[s.arg].discard(s.dim)
        except TypeError as e:
            # A PyTorch function TGC does not route SymInts to rejected
            # one: the sizes Python read become static (what reading a size
            # did before SymInts), and the trace restarts.
            reads = {k: w for k, w in tracer.size_reads.items() if k[1] in dyn[k[0]]}
            if "SymInt" not in str(e) or not reads:
                if tracer.approximated or tracer.need_exact:
                    approximate = False
                    continue
                raise
            specs = tracer.specializations
            why = str(e).strip().splitlines()[0]
            for (arg, dim), where in sorted(reads.items()):
                specs.append(Specialization(
                    arg, dim, tracer.hint_size(arg, dim),
                    f"size read at {where}, passed to a PyTorch call that does not "
                    f"take symbolic sizes ({why})"))
                dyn[arg].discard(dim)
        except Exception:
            # (An error of the values the approximate trace did not compute,
            # or the model's own, or a report that may differ: the exact
            # trace tells.)
            if not (tracer.approximated or tracer.need_exact):
                raise
            approximate = False
        finally:
            if hooks is not None:
                _state.remove_own_hooks(hooks)
            if recording:
                _state.stop_recording()
                _approximate_module().unwatch_attributes()
            _active.pop()
            _count_trace(-1)
    raise Unsupported("tracing did not converge")


def _restore(inputs: Sequence[Any], originals: Sequence[Any]) -> None:
    """Puts each input tensor back to its original's values and layout
    (an in-place op, resize_ or t_ of the trace before)."""
    with torch.no_grad():
        for x, o in zip(inputs, originals):
            if not isinstance(x, torch.Tensor) or x is o:
                continue
            if x.shape == o.shape and x.stride() == o.stride() and x.dtype == o.dtype:
                x.copy_(o)
            else:
                x.set_(o.detach().clone())
