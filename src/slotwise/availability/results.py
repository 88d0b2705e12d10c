"""
What an availability search returns: available times, days and unavailable times.

Field names follow the spec's response elements in snake_case (decisions 14 and 15).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import date, datetime
from typing import Any, Final

import attrs

from slotwise.model._enum import SpecEnum
from slotwise.tables import Tabular

from .grid import count_codes, days_html, range_text, times_html, unavailable_html

__all__ = [
    "AvailableTimes",
    "Day",
    "DayAvailability",
    "Explanation",
    "Reason",
    "Slot",
    "UnavailableTime",
    "UnavailableTimes",
]


class Reason(SpecEnum):
    """
    Why a stretch of time is not bookable (decision 15), valued by its code.

    .. versionadded:: 0.1
    """

    TIME_PAST = "TP"
    BEYOND_BOOK_AHEAD = "BA"
    CLOSED = "CL"
    HOLIDAY = "HO"
    OUTSIDE_SERVICE_HOURS = "SH"
    OUTSIDE_RESOURCE_HOURS = "RH"
    CALENDAR_BLOCK = "CB"
    SERVICE_BLOCK = "SB"
    RESOURCE_BLOCK = "RB"
    NO_ALLOCATION = "AL"
    FULLY_BOOKED = "BK"
    DAILY_LIMIT = "DL"
    EXTERNAL_BUSY = "EB"
    """Busy in the resource's external calendar (slotwise's own code)."""


@attrs.frozen(kw_only=True)
class Slot:
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


_SLOT_FIELDS = (
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


def _slot_builder() -> Callable[..., Slot]:
    """
    Return a positional constructor of :class:`Slot` for the calculator's hot loop.

    attrs' generated ``__init__`` of a frozen class parses fourteen keywords and sets each
    field through ``object.__setattr__`` (about 1.5 µs a slot); a query of the benchmark
    workload builds thousands. Filling the slots through their member descriptors gives the
    same object (``Slot`` has no validators, converters or post-init hook) about three times
    faster. The field list is checked against attrs' own, so a new field cannot be missed.
    """
    if tuple(field.name for field in attrs.fields(Slot)) != _SLOT_FIELDS:
        raise TypeError("results._SLOT_FIELDS is out of date with Slot's fields")
    (
        set_start,
        set_end,
        set_date,
        set_time,
        set_display_time,
        set_duration,
        set_allowable_bookings,
        set_available_bookings,
        set_allowable_capacity,
        set_available_capacity,
        set_resource_id,
        set_resource_ids,
        set_travel_time_mins,
        set_travel_appointment_id,
    ) = (getattr(Slot, name).__set__ for name in _SLOT_FIELDS)
    new = object.__new__

    def new_slot(
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
        slot = new(Slot)
        set_start(slot, start)
        set_end(slot, end)
        set_date(slot, day)
        set_time(slot, time)
        set_display_time(slot, display_time)
        set_duration(slot, duration)
        set_allowable_bookings(slot, allowable_bookings)
        set_available_bookings(slot, available_bookings)
        set_allowable_capacity(slot, allowable_capacity)
        set_available_capacity(slot, available_capacity)
        set_resource_id(slot, resource_id)
        set_resource_ids(slot, resource_ids)
        set_travel_time_mins(slot, 0)
        set_travel_appointment_id(slot, None)
        return slot

    return new_slot


new_slot: Final = _slot_builder()
"""``Slot`` from positional values (travel fields at their defaults); see ``_slot_builder``."""


@attrs.frozen(kw_only=True, repr=False)
class AvailableTimes(Tabular):
    """
    The available-times response: header fields and the slots, sorted by start then resource.

    ``tz_requested`` is the requested offset in minutes (``None`` when the location's zone
    was used).

    .. versionadded:: 0.1
    """

    business_name: str
    location_id: str
    service_id: str
    service_name: str
    service_description: str | None
    service_duration: int
    start_date: date
    end_date: date
    resource_id: str | None
    resource_ids: tuple[str, ...]
    resource_name: str | None
    resource_description: str | None
    calendar_id: str
    calendar_resource_group_id: str | None
    tz_requested: int | None
    first_available_date: date | None
    available_days: tuple[Day, ...]
    available_times: tuple[Slot, ...]
    object: str = "availableTimes"

    def _rows(self) -> tuple[Any, ...]:
        return self.available_times

    def __repr__(self) -> str:
        first = self.available_times[0].start if self.available_times else None
        shown = f", first {first:%Y-%m-%d %H:%M}" if first is not None else ""
        return (
            f"AvailableTimes(service={self.service_name!r}, "
            f"{range_text(self.start_date, self.end_date)}, "
            f"{len(self.available_times)} slots{shown})"
        )

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:
        printer.text(repr(self))

    def _repr_html_(self) -> str:
        return times_html(self)


@attrs.frozen(kw_only=True)
class Day:
    """
    One date of day availability (decision 14).

    ``available``: at least one slot is bookable; ``closed``: the location is closed all day.
    ``booking_count``/``booking_limit`` sum active bookings and limits over the day's resources.

    .. versionadded:: 0.1
    """

    date: date
    available: bool
    closed: bool
    reason: str | None
    reason_code: Reason | None
    booking_count: int
    booking_limit: int


@attrs.frozen(kw_only=True, repr=False)
class DayAvailability(Tabular):
    """
    The day-availability response.

    .. versionadded:: 0.1
    """

    service_id: str
    service_name: str
    service_description: str | None
    resource_id: str | None
    resource_name: str | None
    resource_description: str | None
    tz_requested: int | None
    first_available_date: date | None
    available_days: tuple[Day, ...]
    object: str = "dayAvailability"

    def _rows(self) -> tuple[Any, ...]:
        return self.available_days

    def __repr__(self) -> str:
        days = self.available_days
        span = range_text(days[0].date, days[-1].date) if days else "no days"
        open_days = sum(1 for day in days if day.available)
        first = f", first {self.first_available_date}" if self.first_available_date else ""
        return (
            f"DayAvailability(service={self.service_name!r}, {span}, "
            f"{open_days} of {len(days)} days available{first})"
        )

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:
        printer.text(repr(self))

    def _repr_html_(self) -> str:
        return days_html(self)


@attrs.frozen(kw_only=True)
class UnavailableTime:
    """
    One contiguous stretch of non-bookable time of one resource, with one cause (decision 15).

    .. versionadded:: 0.1
    """

    date: date
    from_time: int
    to_time: int
    start: datetime
    end: datetime
    reason: str
    reason_code: Reason
    entity_type: str | None
    entity_id: str | None
    resource_id: str | None


@attrs.frozen(kw_only=True, repr=False)
class UnavailableTimes(Tabular):
    """
    The unavailable-times response.

    .. versionadded:: 0.1
    """

    unavailable_times: tuple[UnavailableTime, ...]
    object: str = "unavailableTimes"

    def _rows(self) -> tuple[Any, ...]:
        return self.unavailable_times

    def __repr__(self) -> str:
        stretches = self.unavailable_times
        if not stretches:
            return "UnavailableTimes(nothing unavailable)"
        codes = count_codes(stretch.reason_code.value for stretch in stretches)
        span = range_text(stretches[0].date, stretches[-1].date)
        return f"UnavailableTimes({span}, {len(stretches)} stretches: {codes})"

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:
        printer.text(repr(self))

    def _repr_html_(self) -> str:
        return unavailable_html(self)


@attrs.frozen(kw_only=True, repr=False)
class Explanation(Tabular):
    """
    Why one candidate time is or is not offered (``workspace.availability.explain``).

    ``offered`` tells whether the calculator lists the time (for ``resource_id``, or for any
    resource when none is named). ``reasons`` are the unavailable stretches (decision 15) of
    the candidate resources that overlap ``[start, end)``: each with its code, its text (a
    block's reason, "Fully booked", ...), the entity behind it and the resource. When the time
    is not offered and nothing overlaps, the time is between the slot grid's starts:
    ``off_grid`` is true and ``nearest`` holds the offered starts just before and after it.

    .. versionadded:: 0.1
    """

    service_id: str
    start: datetime
    end: datetime
    resource_id: str | None
    offered: bool
    reasons: tuple[UnavailableTime, ...]
    off_grid: bool = False
    nearest: tuple[datetime, ...] = ()
    object: str = "explanation"

    @property
    def summary(self) -> list[str]:
        """Return one line per reason ("RB Lunch 12:00-13:00 (resource r1)"), or why not."""
        if self.offered:
            return ["offered"]
        lines = [
            f"{reason.reason_code.value} {reason.reason} "
            f"{reason.from_time // 100:02d}:{reason.from_time % 100:02d}-"
            f"{reason.to_time // 100:02d}:{reason.to_time % 100:02d}"
            + (f" (resource {reason.resource_id})" if reason.resource_id else "")
            for reason in self.reasons
        ]
        if self.off_grid:
            shown = ", ".join(moment.isoformat() for moment in self.nearest) or "none that day"
            lines.append(f"not on the slot grid; nearest offered starts: {shown}")
        return lines

    def _rows(self) -> tuple[Any, ...]:
        return self.reasons

    def __repr__(self) -> str:
        verdict = "offered" if self.offered else "; ".join(self.summary)
        return f"Explanation({self.start.isoformat()}: {verdict})"

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:
        printer.text(repr(self))
