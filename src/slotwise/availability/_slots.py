"""
Building :class:`~slotwise.availability.results.Slot` records on the calculator's hot path.

A query returns thousands of slots, and a ``Slot`` is a frozen attrs class: attrs' ``__init__``
parses fourteen keywords and sets each field through ``object.__setattr__``, and even setting
the fields through their member descriptors costs one C call each (about 10,000 machine
instructions a slot, most of the listing's time on the benchmark workload). A draft class of
the same layout and no frozen ``__setattr__`` takes plain attribute stores instead, which the
interpreter specialises to one pointer write each; the finished draft then becomes a ``Slot``
by ``__class__`` assignment, which CPython allows between classes it can prove share one memory
layout. ``Slot`` and the draft both add nothing to one base that declares every slot
(``results._SlotLayout``), so CPython proves it at once, without comparing slot names. The
object is a ``Slot`` in every way (type, equality, hash, repr, weak references, pickling):
nothing outside this module sees a draft. Where the layouts cannot be proved equal (another
interpreter), the builder falls back to the member descriptors.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from datetime import date, datetime
from typing import Final

import attrs

from .output import _Output
from .records import _Figures
from .results import Slot, _SlotLayout

__all__ = ["build_slots", "new_slot"]

_SLOT_FIELDS: Final = (
    "start",
    "end",
    "date",
    "time",
    "display_time",
    "duration",
    "allowable_bookings",
    "available_bookings",
    "allowable_capacity",
    "available_capacity",
    "resource_id",
    "resource_ids",
    "travel_time_mins",
    "travel_appointment_id",
)


class _SlotDraft(_SlotLayout):
    """A ``Slot`` being filled in: ``Slot``'s layout, plain attribute stores."""

    __slots__ = ()
    # The fields are the base's slots; mypy learns their types from these annotations.
    start: datetime
    end: datetime
    date: date
    time: int
    display_time: str
    duration: int
    allowable_bookings: int
    available_bookings: int
    allowable_capacity: int
    available_capacity: int
    resource_id: str | None
    resource_ids: tuple[str, ...]
    travel_time_mins: int
    travel_appointment_id: str | None


_new: Final = object.__new__


def _drafted(
    start: datetime,
    end: datetime,
    day: date,
    time: int,
    display_time: str,
    duration: int,
    allowable_bookings: int,
    available_bookings: int,
    allowable_capacity: int,
    available_capacity: int,
    resource_id: str | None,
    resource_ids: tuple[str, ...],
) -> Slot:
    slot = _new(_SlotDraft)
    slot.start = start
    slot.end = end
    slot.date = day
    slot.time = time
    slot.display_time = display_time
    slot.duration = duration
    slot.allowable_bookings = allowable_bookings
    slot.available_bookings = available_bookings
    slot.allowable_capacity = allowable_capacity
    slot.available_capacity = available_capacity
    slot.resource_id = resource_id
    slot.resource_ids = resource_ids
    slot.travel_time_mins = 0
    slot.travel_appointment_id = None
    # The draft becomes the Slot it was laid out as (see the module docstring).
    slot.__class__ = Slot  # type: ignore[assignment]
    return slot  # type: ignore[return-value]


def _described() -> Callable[..., Slot]:
    """Return the fallback builder: each field set through ``Slot``'s member descriptor."""
    setters = [getattr(Slot, name).__set__ for name in _SLOT_FIELDS]

    def new_slot(*values: object) -> Slot:
        slot = _new(Slot)
        for setter, value in zip(setters, (*values, 0, None), strict=True):
            setter(slot, value)
        return slot

    return new_slot


def _builder() -> Callable[..., Slot]:
    """Return the fastest builder this interpreter allows, checked against attrs' own fields."""
    if tuple(field.name for field in attrs.fields(Slot)) != _SLOT_FIELDS or set(
        _SlotLayout.__slots__
    ) != {"__weakref__", *_SLOT_FIELDS}:
        raise TypeError("_slots._SLOT_FIELDS is out of date with Slot's fields")
    try:
        _drafted(*((None,) * 12))  # type: ignore[arg-type]
    except TypeError:
        return _described()
    return _drafted


new_slot: Final = _builder()
"""``Slot`` from positional values (travel fields at their defaults)."""


def build_slots(
    order: Iterable[int],
    starts: Sequence[int],
    figures: Sequence[_Figures],
    ids: Sequence[tuple[str, ...]],
    output: _Output,
    duration: int,
) -> list[Slot]:
    """
    Return the slots of the offers taken in *order*: ``starts[i]``, ``figures[i]``, ``ids[i]``.

    The draft is filled in here, inline, rather than through :data:`new_slot` (one call per
    slot saved); where drafts cannot become slots, :data:`new_slot` is the fallback builder.
    """
    slots: list[Slot] = []
    append = slots.append
    # Each distinct start's datetimes and wall values, worked out once before the loop.
    for start in set(starts).difference(output.slot_cache):
        output.slot_times(start, duration)
    known = output.slot_cache
    if new_slot is not _drafted:
        for i in order:
            resource_ids = ids[i]
            append(
                new_slot(*known[starts[i]], duration, *figures[i], resource_ids[0], resource_ids)
            )
        return slots
    new, draft, finished = _new, _SlotDraft, Slot
    for i in order:
        allowable, available, capacity, free = figures[i]
        resource_ids = ids[i]
        slot = new(draft)
        slot.start, slot.end, slot.date, slot.time, slot.display_time = known[starts[i]]
        slot.duration = duration
        slot.allowable_bookings = allowable
        slot.available_bookings = available
        slot.allowable_capacity = capacity
        slot.available_capacity = free
        slot.resource_id = resource_ids[0]
        slot.resource_ids = resource_ids
        slot.travel_time_mins = 0
        slot.travel_appointment_id = None
        # The draft becomes the Slot it was laid out as (see the module docstring).
        slot.__class__ = finished  # type: ignore[assignment]
        append(slot)  # type: ignore[arg-type]
    return slots
