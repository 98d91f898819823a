"""Which traces are under way: TGC's own tracers (tgc._trace) and traces by
other means (tgc._autograd's make_fx). A compiled function called inside
one runs its Python function (it is traced through), and the native call
path serves no call while any runs."""

from __future__ import annotations

import contextlib
import threading
from typing import TYPE_CHECKING, List, Optional

from . import _native_path

if TYPE_CHECKING:
    from ._trace import Tracer

_active: List["Tracer"] = []


def current_tracer() -> Optional["Tracer"]:
    return _active[-1] if _active else None


_through = threading.local()  # per thread: traces other than a Tracer's
_tracing_lock = threading.Lock()
_tracing = 0  # traces under way in every thread: the native path is off


def _count_trace(delta: int) -> None:
    global _tracing
    with _tracing_lock:
        _tracing += delta
        _native_path.set_flag("trace", _tracing == 0)


@contextlib.contextmanager
def tracing_through():
    """A trace of the caller's function by other means (tgc._autograd's
    make_fx): compiled functions it calls run their Python function, and
    the native path serves no call meanwhile."""
    _through.depth = getattr(_through, "depth", 0) + 1
    _count_trace(1)
    try:
        yield
    finally:
        _through.depth -= 1
        _count_trace(-1)


def tracing_here() -> bool:
    """Whether this thread is tracing (a compiled function called now is
    inside another's trace)."""
    if getattr(_through, "depth", 0):
        return True
    me = threading.get_ident()
    return any(t.thread == me for t in _active)
