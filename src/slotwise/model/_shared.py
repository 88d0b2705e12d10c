"""
Shared values: one object for equal immutable values that many records hold.

Appointments of one resource hold equal ``resource_ids`` tuples; kept apart, each costs its own
object in every stored record (decision 49: memory per stored appointment). ``shared`` returns
the first equal value seen instead, from a bounded table that is emptied when full, so it never
grows with history (an emptied table only stops sharing until values are seen again).
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Final, TypeVar

__all__ = ["shared"]

H = TypeVar("H", bound=Hashable)

_LIMIT: Final = 4096
_SEEN: dict[object, object] = {}


def shared(value: H) -> H:
    """Return the value equal to *value* seen first (of the same type), else *value* itself."""
    key = (type(value), value)
    found = _SEEN.get(key)
    if found is None:
        if len(_SEEN) >= _LIMIT:
            _SEEN.clear()
        found = _SEEN.setdefault(key, value)
    return found  # type: ignore[return-value]
