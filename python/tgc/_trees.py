"""A call's arguments as tensors and a key of the rest (flatten,
unflatten), and the output structure of a traced call rebuilt around new
leaves (rebuild)."""

from __future__ import annotations

import collections
import dataclasses
import enum
from typing import Any, List, Sequence, Tuple

import torch

from ._graph import Unsupported

_PLAIN_TORCH_FUNCTION = torch._C._disabled_torch_function_impl
_PLAIN_TORCH_DISPATCH = getattr(torch.Tensor, "__torch_dispatch__", None)


def plain_tensor_type(cls) -> bool:
    """Whether ops on a `cls` tensor compute as on a plain one and give
    plain tensors: Tensor, Parameter, and subclasses with torch function
    disabled (as Parameter's) and no dispatch override (a wrapper subclass
    such as FakeTensor has one)."""
    if cls is torch.Tensor or cls is torch.nn.Parameter:
        return True
    return (getattr(cls, "__torch_function__", None) is _PLAIN_TORCH_FUNCTION and
            getattr(cls, "__torch_dispatch__", None) is _PLAIN_TORCH_DISPATCH)


def _keyable(o) -> bool:
    """Whether flatten takes `o` as part of a key (without raising)."""
    if o is None or isinstance(o, (torch.Tensor, bool, int, float, str, torch.dtype,
                                   torch.device, enum.Enum)):
        return True
    if isinstance(o, (tuple, list)):
        return all(_keyable(e) for e in o)
    if isinstance(o, dict):
        return all(_keyable(k) and _keyable(v) for k, v in o.items())
    return dataclasses.is_dataclass(o) and not isinstance(o, type)


def dataclass_items(o):
    """A dataclass argument's attributes in flatten's order: (True, every
    field and the other attributes, []) when all are values of a key, else
    (False, the init fields, the other fields) for the constructor."""
    fields = dataclasses.fields(o)
    state = {f.name: getattr(o, f.name) for f in fields}
    extra = {n: v for n, v in getattr(o, "__dict__", {}).items() if n not in state}
    if all(_keyable(v) for v in extra.values()):
        return True, list(state.items()) + list(extra.items()), []
    return (False, [(f.name, state[f.name]) for f in fields if f.init],
            [(f.name, state[f.name]) for f in fields if not f.init])


def flatten(obj) -> Tuple[List[torch.Tensor], Any]:
    """The tensors of a call's arguments and a hashable key of the rest
    (constants by type and value, floats by their bits; tuples, lists,
    dicts and dataclasses by structure)."""
    tensors: List[torch.Tensor] = []

    def walk(o):
        if isinstance(o, torch.Tensor):
            if not plain_tensor_type(type(o)):
                # Eager runs a subclass's __torch_function__ (which may change
                # what an op computes) and returns the subclass; compiled
                # code computes on plain tensors. (A subclass with torch
                # function disabled, as Parameter, computes as a plain one.)
                raise Unsupported(
                    f"a tensor subclass argument ({type(o).__name__}): compiled code "
                    "computes on plain tensors, without its __torch_function__, and "
                    "returns plain tensors (pass t.as_subclass(torch.Tensor), or "
                    "compile with fallback=True to run such calls eagerly)")
            tensors.append(o)
            return ("T",)
        if isinstance(o, float):
            # By its bits: 0.0 and -0.0 differ (1 / x), and NaN is one key
            # (nan != nan: every call recompiled).
            return ("f", type(o), o.hex())
        if o is None or isinstance(o, (bool, int, str, torch.dtype, torch.device, enum.Enum)):
            # The type itself: 1 and True, or two enums of one name, differ.
            return ("c", type(o), o)
        if isinstance(o, tuple) and hasattr(type(o), "_fields"):  # a namedtuple
            return ("namedtuple", type(o), tuple(walk(e) for e in o))
        if type(o) in (tuple, list):
            return (type(o).__name__, tuple(walk(e) for e in o))
        if isinstance(o, (tuple, list)):  # torch.Size, other subclasses
            return ("seq", type(o), tuple(walk(e) for e in o))
        if isinstance(o, dict):
            entries = tuple((dict_key(k), walk(v)) for k, v in o.items())
            if isinstance(o, collections.defaultdict):
                return ("defaultdict", type(o), entries, o.default_factory)
            return ("dict", type(o), entries)
        if dataclasses.is_dataclass(o) and not isinstance(o, type):
            # Every field as the object holds it (init=False ones too) and
            # the other attributes __post_init__ set: rebuilt without running
            # __init__ or __post_init__ again. An attribute that is no value
            # of a key (a lock, a module) leaves the old way: the
            # constructor with the init fields, then the others set.
            whole, first, rest = dataclass_items(o)
            if whole:
                return ("dataclass", type(o), tuple((n, walk(v)) for n, v in first))
            return ("dataclass-init", type(o), tuple((n, walk(v)) for n, v in first),
                    tuple((n, walk(v)) for n, v in rest))
        raise Unsupported(
            f"an argument of type {type(o).__name__} (tensors, numbers, strings, "
            "enums and tuples, namedtuples, lists, dicts and dataclasses of them "
            "are supported)"
        )

    def dict_key(k):
        if isinstance(k, torch.Tensor):
            raise Unsupported("a dict argument with tensor keys")
        return walk(k)

    key = walk(obj)
    return tensors, key


def unflatten(key, tensors: List[torch.Tensor]):
    it = iter(tensors)

    def build(k):
        tag = k[0]
        if tag == "T":
            return next(it)
        if tag == "c":
            return k[2]
        if tag == "f":
            value = float.fromhex(k[2])
            return value if k[1] is float else k[1](value)
        if tag in ("dict", "defaultdict"):
            items = {build(name): build(v) for name, v in k[2]}
            if k[1] is dict:
                return items
            return k[1](k[3], items) if tag == "defaultdict" else k[1](items)
        if tag == "namedtuple":
            return k[1](*[build(e) for e in k[2]])
        if tag == "dataclass":
            obj = object.__new__(k[1])
            for name, v in k[2]:
                object.__setattr__(obj, name, build(v))
            return obj
        if tag == "dataclass-init":
            obj = k[1](**{name: build(v) for name, v in k[2]})
            for name, v in k[3]:
                object.__setattr__(obj, name, build(v))
            return obj
        if tag == "seq":
            return k[1]([build(e) for e in k[2]])
        items = [build(e) for e in k[1]]
        return tuple(items) if tag == "tuple" else items

    return build(key)


def rebuild(tree, leaves: Sequence[Any]):
    """The output structure of the traced call with `leaves` in it: the
    types eager returns (tuples, lists, namedtuples, torch.return_types,
    dicts and dict subclasses such as HF's ModelOutput, dataclasses, and
    other objects of tensors and values such as HF's caches)."""
    kind = tree[0]
    if kind == "leaf":
        return leaves[tree[1]]
    if kind == "object":
        obj = tree[1].__new__(tree[1])
        obj.__dict__.update({k: rebuild(v, leaves) for k, v in tree[2].items()})
        return obj
    if kind == "dataclass":
        cls, fields = tree[1], tree[2]
        return cls(**{n: rebuild(v, leaves) for n, v in fields.items()})
    payload = tree[1]
    if isinstance(kind, type) and issubclass(kind, dict):
        items = {k: rebuild(v, leaves) for k, v in payload.items()}
        if kind is dict:
            return items
        if dataclasses.is_dataclass(kind):  # HF ModelOutput: fields as keywords
            return kind(**items)
        return kind(items)
    items = [rebuild(e, leaves) for e in payload]
    if kind in (list, tuple) or not hasattr(kind, "_fields"):
        return kind(items)  # list, tuple, torch.return_types.*
    return kind(*items)  # a namedtuple
