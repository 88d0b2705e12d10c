"""
Rarely set optional fields kept out of a record's slots (memory per stored record, issue 23).

A slotted attrs class gives every field its own slot: eight bytes in every instance, set or not.
For fields that are ``None`` in almost every record (an appointment's coordinates, payment ids,
meeting link, idempotency key...) that is most of what they cost. :func:`rare_fields` makes a
base class that holds all of them in one slot, ``_rare``: ``None`` while every one of them is
``None``, else a flat tuple ``(name, value, name, value, ...)`` of those set. Each name is a
property on the base class; attrs reuses a base class's descriptor for a name listed in its
``__slots__`` instead of adding a slot (``_ClassBuilder``: "reused slots"), which is what the base
class declares.

The fields stay attrs fields in every respect: ``attrs.fields``, ``__init__`` (its frozen
``object.__setattr__`` calls the property's setter), validators and converters, ``evolve``,
equality, hashing, ``repr`` and pickling (attrs' ``__setstate__`` sets each field the same way).
Only the layout differs. An attrs release that stopped reusing base descriptors would give the
fields their own slots again, which shadow the properties: the record would still be right, only
larger (``tests/unit/test_booking_footprint.py`` checks the layout).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = ["rare_fields"]


def _accessors(name: str, store: Callable[[Any, Any], None]) -> property:
    def get(self: Any) -> Any:
        rare = self._rare
        if rare is not None:
            for index in range(0, len(rare), 2):
                if rare[index] == name:
                    return rare[index + 1]
        return None

    def put(self: Any, value: Any) -> None:
        try:
            rare = self._rare
        except AttributeError:  # a record being unpickled: no __init__ set ``_rare``
            rare = None
            store(self, None)
        if rare is None:
            if value is not None:
                store(self, (name, value))
            return
        kept: tuple[Any, ...] = ()
        for index in range(0, len(rare), 2):
            if rare[index] != name:
                kept += rare[index : index + 2]
        if value is not None:
            kept += (name, value)
        store(self, kept or None)

    return property(get, put, doc=f"``{name}`` (kept in the record's ``_rare`` slot).")


def rare_fields(*names: str) -> type:
    """
    Return a base class for a slotted attrs class that keeps the fields *names* in one slot.

    Each of *names* must be a field of the attrs class defaulting to ``None``.
    """

    class RareFields:
        __slots__ = ("_rare",)
        rare_names = frozenset(names)

        def __attrs_pre_init__(self) -> None:
            # attrs calls this first in __init__: every field starts out unset (None).
            store(self, None)

    store: Callable[[Any, Any], None] = RareFields._rare.__set__  # type: ignore[attr-defined]
    for name in names:
        setattr(RareFields, name, _accessors(name, store))
    # Read by attrs only (the layout was fixed above with the one ``_rare`` slot): the names
    # listed here get the base class's descriptors, the properties, instead of slots.
    setattr(RareFields, "__slots__", ("_rare", *names))  # noqa: B010
    return RareFields
