"""Put back a class's C-level slots after a dunder patch is removed.

The tracer replaces ``torch.Tensor.__getitem__`` and ``__setitem__`` while
it runs (PyTorch 1.13 does not route ``x[i]`` through torch functions) and
removes them afterwards. Removing them does not make ``torch.Tensor`` what
it was: CPython maps ``__getitem__`` to two slots of a heap type,
``mp_subscript`` and ``sq_item``, and a ``__getitem__`` found on the base
class once both are filled fills both again. ``torch.Tensor`` had only
``mp_subscript``; afterwards it also has ``sq_item``, so ``PySequence_Check``
holds for every tensor, and eager PyTorch code that was fine before the
first compile breaks: ``torch.tensor([t])`` of a 0-d tensor ``t`` asks
``len(t)`` and raises ``TypeError: len() of a 0-d tensor``. ``__setitem__``
leaves ``sq_ass_item`` the same way.

:func:`snapshot` reads a class's sequence and mapping slot tables (and
those of its subclasses) before a patch; :func:`restore` writes back every
entry that differs, once the patch is removed and the class dicts are as
they were. The tables are read through ``ctypes`` at the offsets of
CPython's ``PyTypeObject``; a probe on a throwaway class checks that layout
and the effect once per process. Where the probe fails (another layout or
implementation) nothing is written and :func:`supported` is false.
"""

from __future__ import annotations

import ctypes
import sys
from typing import Dict, List, Optional, Tuple

_PTR = ctypes.sizeof(ctypes.c_void_p)
# PyTypeObject: ob_refcnt, ob_type, ob_size, tp_name, tp_basicsize,
# tp_itemsize, tp_dealloc, tp_vectorcall_offset, tp_getattr, tp_setattr,
# tp_as_async, tp_repr, tp_as_number, tp_as_sequence, tp_as_mapping.
_AS_SEQUENCE = 13 * _PTR
_AS_MAPPING = 14 * _PTR
_SEQUENCE_SLOTS = 10  # PySequenceMethods
_MAPPING_SLOTS = 3  # PyMappingMethods
_SQ_ITEM = 3

Snapshot = Dict[type, List[Tuple[int, Optional[int]]]]

_supported: Optional[bool] = None


def _entries(cls: type) -> List[Tuple[int, Optional[int]]]:
    out = []
    for offset, count in ((_AS_SEQUENCE, _SEQUENCE_SLOTS), (_AS_MAPPING, _MAPPING_SLOTS)):
        table = ctypes.c_void_p.from_address(id(cls) + offset).value
        if table:
            for i in range(count):
                address = table + i * _PTR
                out.append((address, ctypes.c_void_p.from_address(address).value))
    return out


def _family(cls: type) -> List[type]:
    seen, todo = [], [cls]
    while todo:
        c = todo.pop()
        if c not in seen:
            seen.append(c)
            todo.extend(type.__subclasses__(c))
    return seen


def _write(entries) -> None:
    for address, value in entries:
        cell = ctypes.c_void_p.from_address(address)
        if cell.value != value:
            cell.value = value


def _modified(cls: type) -> None:
    ctypes.pythonapi.PyType_Modified(ctypes.py_object(cls))


def _probe() -> bool:
    """The layout and the effect, on a class of this module's own."""
    if sys.implementation.name != "cpython" or not hasattr(ctypes, "pythonapi"):
        return False
    check = ctypes.pythonapi.PySequence_Check
    check.argtypes, check.restype = [ctypes.py_object], ctypes.c_int

    class Probe(dict):
        pass

    try:
        heap = id(Probe), id(Probe) + type(Probe).__basicsize__
        for offset in (_AS_SEQUENCE, _AS_MAPPING):
            table = ctypes.c_void_p.from_address(id(Probe) + offset).value
            if not table or not heap[0] <= table < heap[1]:
                return False  # a heap type's tables lie inside it
        probe = Probe()
        if check(probe):
            return False
        before = {Probe: _entries(Probe)}
        Probe.__getitem__ = lambda self, key: 0
        del Probe.__getitem__
        if not check(probe):
            return True  # no leftover slot here: nothing to put back
        restore(before, force=True)
        return not check(probe) and Probe({1: 2})[1] == 2
    except Exception:
        return False


def supported() -> bool:
    global _supported
    if _supported is None:
        _supported = _probe()
    return _supported


def snapshot(cls: type) -> Optional[Snapshot]:
    """The slot tables of ``cls`` and its subclasses, or None where
    unsupported (the layout is checked before any read)."""
    if not supported():
        return None
    return {c: _entries(c) for c in _family(cls)}


_SQ_ASS_ITEM = 5
_INDEXING = ("__getitem__", "__setitem__", "__delitem__")


def restore(saved: Optional[Snapshot], force: bool = False) -> None:
    """Write the saved slots back (the patch must be removed first). A
    subclass made while the patch was on (a class defined inside a forward)
    inherited its slots: it gets the base's saved ones, unless it defines
    indexing itself."""
    if saved is None or not (force or supported()):
        return
    for cls, entries in saved.items():
        _write(entries)
        _modified(cls)
    if force or not saved:
        return
    base = next(iter(saved))
    table = ctypes.c_void_p.from_address(id(base) + _AS_SEQUENCE).value
    if not table:
        return
    wanted = [(i, ctypes.c_void_p.from_address(table + i * _PTR).value)
              for i in (_SQ_ITEM, _SQ_ASS_ITEM)]
    for cls in _family(base):
        if cls in saved:
            continue
        own = [c for c in cls.__mro__[:cls.__mro__.index(base)]
               if any(n in vars(c) for n in _INDEXING)]
        sub = ctypes.c_void_p.from_address(id(cls) + _AS_SEQUENCE).value
        if own or not sub:
            continue
        _write([(sub + i * _PTR, v) for i, v in wanted])
        _modified(cls)
