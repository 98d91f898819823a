"""The output structure of a traced call, rebuilt around new leaves."""

from __future__ import annotations

import dataclasses
from typing import Any, Sequence


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
