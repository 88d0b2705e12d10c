"""
The keys a body's nested object accepts, found by its path (``mon``, ``[1].repeat``) in the
body's msgspec type: an unknown key deep in a body lists its own object's keys, not the root's.
"""

from __future__ import annotations

import re
from typing import Any, Final

from msgspec import inspect

__all__ = ["keys_at"]

_PART: Final = re.compile(r"\[\d+\]|[^.\[\]]+")


def keys_at(body: Any, path: str) -> list[str] | None:
    """
    Return the keys the object at *path* inside a body of type *body* accepts, by their JSON
    names; ``None`` when the path leads to no object of known keys (a mapping, an unknown type).
    """
    info: inspect.Type | None = inspect.type_info(body)
    for part in _PART.findall(path):
        info = _inside(info, part)
        if info is None:
            return None
    found = _object(info)
    if isinstance(found, inspect.StructType | inspect.DataclassType | inspect.TypedDictType):
        return [field.encode_name for field in found.fields]
    return None


def _inside(info: inspect.Type | None, part: str) -> inspect.Type | None:
    """Return the type of *part* (a key, or ``[n]``: an item) inside a value of type *info*."""
    if part.startswith("["):
        held = _of(info, inspect.ListType | inspect.VarTupleType | inspect.SetType)
        return held.item_type if held is not None else None
    found = _object(info)
    if isinstance(found, inspect.StructType | inspect.DataclassType | inspect.TypedDictType):
        for field in found.fields:
            if field.encode_name == part:
                return field.type
        return None
    mapping = _of(info, inspect.DictType)
    return mapping.value_type if mapping is not None else None


def _object(info: inspect.Type | None) -> inspect.Type | None:
    """Return the object type *info* is, or holds as a member of its union."""
    found: inspect.Type | None = _of(
        info, inspect.StructType | inspect.DataclassType | inspect.TypedDictType
    )
    return found


def _of(info: inspect.Type | None, kinds: Any) -> Any:
    """Return *info*, or the first member of its union, that is one of *kinds*; else None."""
    if isinstance(info, kinds):
        return info
    if isinstance(info, inspect.UnionType):
        return next((member for member in info.types if isinstance(member, kinds)), None)
    return None
