"""
An answer's bookable times: the :class:`Slot` record, and :class:`Slots`, the answer's slots held
as columns with each ``Slot`` built when it is read.

A large query returns tens of thousands of slots (89,302 at 100 resources x 90 days). As records
they cost before any calculation: building a ``Slot`` takes about 385 ns, freeing it again about
as much, and CPython's cyclic collector walks every one while the caller works (instances of a
slotted class are always tracked) -- together more than the calculation itself. The calculator
already holds every value a slot carries, shared: one tuple of datetimes and wall values per
distinct start, the sweep's figure tuples, one owner pair per resource. ``Slots`` keeps
references to those in four columns, so an answer costs a list entry per slot per column, and
the collector walks four lists instead of a record per slot.

Reading a ``Slots`` (iterating, indexing) builds the records; :meth:`Slots.column` and
:meth:`Slots.columns` read one field of every slot without building any (a DataFrame, a
``(resource, start)`` list, an encoder).

A ``Slot`` is built fast: attrs' frozen ``__init__`` parses fourteen keywords and sets each field
through ``object.__setattr__``. A draft class of the same layout and no frozen ``__setattr__``
takes plain attribute stores instead (one pointer write each once the interpreter specialises
them); the finished draft becomes a ``Slot`` by ``__class__`` assignment, which CPython allows
between classes that add nothing to one base that declares every slot (:class:`_SlotLayout`).
The object is a ``Slot`` in every way (type, equality, hash, repr, weak references, pickling).
Where the layouts cannot be proved equal (another interpreter), the member descriptors are used.

.. versionadded:: 0.1
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Iterable, Iterator, Sequence
from datetime import date, datetime
from typing import TYPE_CHECKING, Any, Final, overload

import attrs

from slotwise.errors import InvalidChoice, InvalidFormat

if TYPE_CHECKING:
    from .output import _Output

__all__ = ["Slot", "Slots", "build_slots", "new_slot"]


class _SlotLayout:
    """
    The base that lays out :class:`Slot`'s memory: a weak-reference slot, then the fields.

    ``Slot`` declares no slot of its own (attrs reuses these), so a plain class of this layout
    can be filled in with plain stores and then turned into a ``Slot`` by ``__class__``
    assignment (the module docstring). The names are ``Slot``'s fields (checked on import).
    """

    __slots__ = (
        "__weakref__",
        "allowable_bookings",
        "allowable_capacity",
        "available_bookings",
        "available_capacity",
        "date",
        "display_time",
        "duration",
        "end",
        "resource_id",
        "resource_ids",
        "start",
        "time",
        "travel_appointment_id",
        "travel_time_mins",
    )


@attrs.frozen(kw_only=True)
class Slot(_SlotLayout):
    """
    One bookable time (an element of ``availableTimes``).

    ``start``/``end`` carry the requested zone; ``date``, ``time`` (HHMM) and ``display_time``
    are wall values in that zone.

    .. versionadded:: 0.1
    """

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
    travel_time_mins: int = 0
    travel_appointment_id: str | None = None


_Times = tuple[datetime, datetime, date, int, str, int]
"""``(start, end, date, time, display_time, duration)`` of a slot."""
_Figures = tuple[int, int, int, int]
"""``(allowable_bookings, available_bookings, allowable_capacity, available_capacity)``."""
_Owner = tuple[str | None, tuple[str, ...]]
"""``(resource_id, resource_ids)``."""
_Travel = tuple[int, str | None]
"""``(travel_time_mins, travel_appointment_id)``."""

_NO_TRAVEL: Final[_Travel] = (0, None)

_COLUMNS: Final[tuple[tuple[str, ...], ...]] = (
    ("start", "end", "date", "time", "display_time", "duration"),
    ("allowable_bookings", "available_bookings", "allowable_capacity", "available_capacity"),
    ("resource_id", "resource_ids"),
    ("travel_time_mins", "travel_appointment_id"),
)
_FIELDS: Final = tuple(name for group in _COLUMNS for name in group)
_WHERE: Final = {
    name: (group, index) for group, names in enumerate(_COLUMNS) for index, name in enumerate(names)
}


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


def _drafted(times: _Times, figures: _Figures, owner: _Owner, travel: _Travel) -> Slot:
    slot = _new(_SlotDraft)
    slot.start, slot.end, slot.date, slot.time, slot.display_time, slot.duration = times
    (
        slot.allowable_bookings,
        slot.available_bookings,
        slot.allowable_capacity,
        slot.available_capacity,
    ) = figures
    slot.resource_id, slot.resource_ids = owner
    slot.travel_time_mins, slot.travel_appointment_id = travel
    # The draft becomes the Slot it was laid out as (see the module docstring).
    slot.__class__ = Slot  # type: ignore[assignment]
    return slot  # type: ignore[return-value]


def _described() -> Callable[[_Times, _Figures, _Owner, _Travel], Slot]:
    """Return the fallback builder: each field set through ``Slot``'s member descriptor."""
    setters = [getattr(Slot, name).__set__ for name in _FIELDS]

    def new_slot(times: _Times, figures: _Figures, owner: _Owner, travel: _Travel) -> Slot:
        slot = _new(Slot)
        for setter, value in zip(setters, (*times, *figures, *owner, *travel), strict=True):
            setter(slot, value)
        return slot

    return new_slot


def _builder() -> Callable[[_Times, _Figures, _Owner, _Travel], Slot]:
    """Return the fastest builder this interpreter allows, checked against attrs' own fields."""
    if tuple(field.name for field in attrs.fields(Slot)) != _FIELDS or set(
        _SlotLayout.__slots__
    ) != {"__weakref__", *_FIELDS}:
        raise TypeError("slots._COLUMNS is out of date with Slot's fields")
    try:
        _drafted((None,) * 6, (0,) * 4, (None, ()), _NO_TRAVEL)  # type: ignore[arg-type]
    except TypeError:
        return _described()
    return _drafted


new_slot: Final = _builder()
"""``Slot`` from its four column values: times, figures, owner and travel."""


class Slots(Sequence[Slot]):
    """
    The slots of an answer, in order: an immutable sequence of :class:`Slot`.

    Iterating or indexing builds each ``Slot`` as it is read (a fresh, equal record each time);
    a slice is a ``Slots``. :meth:`column` and :meth:`columns` read fields without building
    records -- the fast way to a DataFrame or a list of ``(resource, start)`` pairs. A ``Slots``
    equals another with the same slots and a ``tuple`` of the same records (the field held a
    tuple until the answer became columns), hashes as that tuple, and pickles.
    ``Slots(records)`` holds records made elsewhere.

    .. versionadded:: 0.1
    """

    __slots__ = ("_figures", "_owners", "_times", "_travel")
    _times: Sequence[_Times]
    _figures: Sequence[_Figures]
    _owners: Sequence[_Owner]
    _travel: Sequence[_Travel]

    def __init__(self, slots: Iterable[Slot] = ()) -> None:
        times: list[_Times] = []
        figures: list[_Figures] = []
        owners: list[_Owner] = []
        travel: list[_Travel] = []
        for number, slot in enumerate(slots):
            if not isinstance(slot, Slot):
                raise InvalidFormat(field=f"slots[{number}]", expected="a Slot", value=slot)
            times.append(
                (slot.start, slot.end, slot.date, slot.time, slot.display_time, slot.duration)
            )
            figures.append(
                (
                    slot.allowable_bookings,
                    slot.available_bookings,
                    slot.allowable_capacity,
                    slot.available_capacity,
                )
            )
            owners.append((slot.resource_id, slot.resource_ids))
            travel.append((slot.travel_time_mins, slot.travel_appointment_id))
        self._set(times, figures, owners, travel)

    @classmethod
    def _of(
        cls,
        times: Sequence[_Times],
        figures: Sequence[_Figures],
        owners: Sequence[_Owner],
        travel: Sequence[_Travel],
    ) -> Slots:
        """Return the slots of four equally long columns (taken, not copied)."""
        slots = _new(cls)
        slots._set(times, figures, owners, travel)
        return slots

    def _set(
        self,
        times: Sequence[_Times],
        figures: Sequence[_Figures],
        owners: Sequence[_Owner],
        travel: Sequence[_Travel],
    ) -> None:
        self._times, self._figures, self._owners, self._travel = times, figures, owners, travel

    def __len__(self) -> int:
        return len(self._times)

    @overload
    def __getitem__(self, index: int) -> Slot: ...

    @overload
    def __getitem__(self, index: slice) -> Slots: ...

    def __getitem__(self, index: int | slice) -> Slot | Slots:
        if isinstance(index, slice):
            return Slots._of(
                self._times[index], self._figures[index], self._owners[index], self._travel[index]
            )
        return new_slot(
            self._times[index], self._figures[index], self._owners[index], self._travel[index]
        )

    def __iter__(self) -> Iterator[Slot]:
        rows = zip(self._times, self._figures, self._owners, self._travel, strict=True)
        if new_slot is not _drafted:
            for row in rows:
                yield new_slot(*row)
            return
        # _drafted inline: one call per slot saved on the answer's hottest loop.
        new, draft, finished = _new, _SlotDraft, Slot
        for times, figures, owner, travel in rows:
            slot = new(draft)
            slot.start, slot.end, slot.date, slot.time, slot.display_time, slot.duration = times
            (
                slot.allowable_bookings,
                slot.available_bookings,
                slot.allowable_capacity,
                slot.available_capacity,
            ) = figures
            slot.resource_id, slot.resource_ids = owner
            slot.travel_time_mins, slot.travel_appointment_id = travel
            slot.__class__ = finished  # type: ignore[assignment]
            yield slot  # type: ignore[misc]

    def column(self, name: str) -> list[Any]:
        """
        Return the field *name* of every slot, in order (``column("start")``), building no ``Slot``.

        Raises:
            InvalidChoice: *name* is not a field of :class:`Slot`.

        .. versionadded:: 0.1
        """
        where = _WHERE.get(name) if isinstance(name, str) else None
        if where is None:
            raise InvalidChoice(field="name", allowed=_FIELDS, requested=name)
        group, index = where
        rows = (self._times, self._figures, self._owners, self._travel)[group]
        return list(map(operator.itemgetter(index), rows))

    def columns(self, *names: str) -> dict[str, list[Any]]:
        """
        Return the fields *names* (every field when none is named) as lists, by name.

        ``pandas.DataFrame(times.available_times.columns())`` makes a frame of the slots.

        Raises:
            InvalidChoice: a name is not a field of :class:`Slot`.

        .. versionadded:: 0.1
        """
        return {name: self.column(name) for name in names or _FIELDS}

    def records(self) -> list[dict[str, Any]]:
        """
        Return one flat dict per slot, its fields by name (``resource_ids`` a list), in order,
        building no ``Slot``: the rows ``AvailableTimes.records()`` and its DataFrames are made of.

        .. versionadded:: 0.1
        """
        fields = _FIELDS
        return [
            dict(zip(fields, (*times, *figures, owner[0], list(owner[1]), *travel), strict=True))
            for times, figures, owner, travel in zip(
                self._times, self._figures, self._owners, self._travel, strict=True
            )
        ]

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Slots):
            return (
                len(self) == len(other)
                and list(self._times) == list(other._times)
                and list(self._figures) == list(other._figures)
                and list(self._owners) == list(other._owners)
                and list(self._travel) == list(other._travel)
            )
        if isinstance(other, tuple):
            return len(self) == len(other) and all(
                mine == theirs for mine, theirs in zip(self, other, strict=True)
            )
        return NotImplemented

    def __hash__(self) -> int:
        return hash(tuple(self))

    def __repr__(self) -> str:
        return f"Slots({tuple(self)!r})"

    def __reduce__(self) -> tuple[Any, ...]:
        return (
            Slots._of,
            (list(self._times), list(self._figures), list(self._owners), list(self._travel)),
        )


def build_slots(
    starts: Sequence[int],
    figures: list[_Figures],
    owners: list[_Owner],
    output: _Output,
    duration: int,
) -> Slots:
    """
    Return the slots of the offers in order: ``starts[i]``, ``figures[i]``, ``owners[i]``.

    Each distinct start's datetimes and wall values are worked out once
    (``output.add_slot_times``); every slot refers to them. *figures* and *owners* become the
    answer's columns (taken, not copied): the caller hands over lists it made for this answer.
    """
    output.add_slot_times(set(starts).difference(output.slot_cache), duration)
    times = list(map(output.slot_cache.__getitem__, starts))
    return Slots._of(times, figures, owners, [_NO_TRAVEL] * len(times))
