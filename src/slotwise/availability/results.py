"""
What an availability search returns: available times, days and unavailable times.

Field names follow the spec's response elements in snake_case (decisions 14 and 15).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import UTC, date, datetime
from typing import Any

import attrs

from slotwise.model._enum import SpecEnum
from slotwise.tables import Table, Tabular

from .grid import (
    HtmlView,
    TimesView,
    UnavailableView,
    count_codes,
    days_html,
    range_text,
    times_html,
    title_text,
    unavailable_html,
)
from .slots import Slot, Slots

__all__ = [
    "AvailableTimes",
    "Day",
    "DayAvailability",
    "Named",
    "Reason",
    "Slot",
    "Slots",
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


class Named:
    """
    Mixin of the results that know the names of their resources, service and location.

    A class supplies ``_names`` (names by id); ids stay in the data, names are for people.

    .. versionadded:: 0.1
    """

    __slots__ = ()
    _names: Mapping[str, str]

    def name_of(self, entity_id: str | None) -> str | None:
        """
        Return the name of a resource, the service or the location of this result (else the id).

        .. versionadded:: 0.1
        """
        return None if entity_id is None else self._names.get(entity_id, entity_id)


def _as_slots(slots: Iterable[Slot]) -> Slots:
    """Return *slots* as :class:`Slots` (records made elsewhere are held as they are)."""
    return slots if isinstance(slots, Slots) else Slots(slots)


@attrs.frozen(kw_only=True, repr=False)
class AvailableTimes(Named, Tabular):
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
    available_times: Slots = attrs.field(converter=_as_slots)
    """The slots, sorted by start then resource (:class:`Slots`: columns, records built when read)."""
    object: str = "availableTimes"
    _names: Mapping[str, str] = attrs.field(factory=dict, eq=False, alias="names")
    """Names by id: the candidate resources, the service and the location (for people, not the wire)."""
    _zone_name: str = attrs.field(default="UTC", eq=False, alias="zone_name")
    """The zone the times are in (the query's offset or zone, else the location's)."""
    _resources: tuple[str, ...] = attrs.field(default=(), eq=False, alias="resources")
    """The candidate resources' ids, with slots or not."""
    _row_class = Slot
    _extra_columns = ("resource_name",)

    def _zone(self) -> str:
        return self._zone_name

    def _extra(self, row: dict[str, Any]) -> None:
        row["resource_name"] = self.name_of(row["resource_id"])

    def _table(self) -> tuple[list[dict[str, Any]], set[str]]:
        # The rows straight from the answer's columns (Slots.records): a slot holds no enum,
        # so no column is a code column.
        rows = self.available_times.records()
        for row in rows:
            self._extra(row)
        return rows, set()

    def _frame_table(self) -> tuple[Table, set[str]]:
        # The DataFrames from the answer's columns: a list per field, no dict per slot. The
        # same values as the rows: resource_ids as lists, resource_name beside the id.
        columns = self.available_times.columns()
        columns["resource_ids"] = [list(ids) for ids in columns["resource_ids"]]
        named = {rid: self.name_of(rid) for rid in set(columns["resource_id"])}
        columns["resource_name"] = list(map(named.__getitem__, columns["resource_id"]))
        return columns, set()

    @property
    def title(self) -> str:
        """
        The query in words: ``Massage at Downtown, Mon 23 Nov - Sun 29 Nov 2026 (America/New_York)``.

        .. versionadded:: 0.1
        """
        return title_text(
            self.service_name,
            self.name_of(self.location_id),
            self.start_date,
            self.end_date,
            self._zone_name,
        )

    def grid(self, view: TimesView = "times") -> HtmlView:
        """
        Return a week grid for Jupyter: ``times`` (each hour's starts with the resources' names),
        ``resources`` (one grid per resource) or ``counts`` (how many resources start a slot
        in each hour, their names on hover).

        .. versionadded:: 0.1
        """
        return HtmlView(times_html(self, view=view))

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
        # Several slots at one start (five staff free at 09:00) make a cell unreadable: counts.
        # Starts are compared as instants: the two 02:00s of a DST fold are equal as wall times.
        starts = {slot.start.astimezone(UTC) for slot in self.available_times}
        return times_html(
            self, view="times" if len(starts) == len(self.available_times) else "counts"
        )

    def resource_names(self) -> dict[str, str]:
        """
        Return the names of the candidate resources (and of any with slots), by id, sorted by name.

        .. versionadded:: 0.1
        """
        found = {rid for slot in self.available_times for rid in (slot.resource_ids or ())}
        found |= {slot.resource_id for slot in self.available_times if slot.resource_id}
        found |= set(self._resources)
        return _sorted_names(found, self._names)


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
    _row_class = Day

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
class UnavailableTimes(Named, Tabular):
    """
    The unavailable-times response.

    .. versionadded:: 0.1
    """

    unavailable_times: tuple[UnavailableTime, ...]
    object: str = "unavailableTimes"
    _names: Mapping[str, str] = attrs.field(factory=dict, eq=False, alias="names")
    """Names by id: the candidate resources, the service and the location (for people, not the wire)."""
    _resources: tuple[str, ...] = attrs.field(default=(), eq=False, alias="resources")
    """The candidate resources' ids, free or not."""
    _padding: tuple[UnavailableTime, ...] = attrs.field(default=(), eq=False, alias="padding")
    """The parts of the ``BK`` stretches that are an appointment's padding (its id the entity)."""
    _zone_name: str = attrs.field(default="UTC", eq=False, alias="zone_name")
    """The zone the times are in (the query's offset or zone, else the location's)."""
    _title: str = attrs.field(default="", eq=False, alias="title")
    """The query in words (service, location, dates, zone); see :attr:`title`."""
    _searched: tuple[datetime, datetime] | None = attrs.field(
        default=None, eq=False, alias="searched"
    )
    """The searched instants: the first location date's midnight to the one after the last."""
    _row_class = UnavailableTime
    _extra_columns = ("resource_name", "entity_name")

    def _rows(self) -> tuple[Any, ...]:
        return self.unavailable_times

    def _zone(self) -> str:
        return self._zone_name

    def _extra(self, row: dict[str, Any]) -> None:
        row["resource_name"] = self.name_of(row["resource_id"])
        row["entity_name"] = (
            self.name_of(row["entity_id"]) if row["entity_type"] != "block" else row["reason"]
        )

    @property
    def searched(self) -> tuple[datetime, datetime] | None:
        """
        The instants searched: from midnight of the first location date to midnight after the
        last (``None`` for a result not made by a query). With an output zone other than the
        location's, the dates shown begin and end inside it; views leave time outside it out.

        .. versionadded:: 0.2
        """
        return self._searched

    def resource_names(self) -> dict[str, str]:
        """
        Return the names of the candidate resources, by id, sorted by name.

        .. versionadded:: 0.1
        """
        found = set(self._resources)
        found |= {item.resource_id for item in self.unavailable_times if item.resource_id}
        return _sorted_names(found, self._names)

    @property
    def padding(self) -> tuple[UnavailableTime, ...]:
        """
        The parts of the ``BK`` stretches that are padding after an appointment.

        Each names the appointment as its entity (``entity_type`` ``"appointment"``); the
        stretches themselves stay as decision 15 merges them.

        .. versionadded:: 0.1
        """
        return self._padding

    @property
    def title(self) -> str:
        """
        The query in words (as :attr:`AvailableTimes.title`), else the dates the stretches cover.

        .. versionadded:: 0.1
        """
        if self._title:
            return self._title
        stretches = self.unavailable_times
        return range_text(stretches[0].date, stretches[-1].date) if stretches else ""

    def grid(self, view: UnavailableView = "combined") -> HtmlView:
        """
        Return a week grid for Jupyter: ``combined`` (each hour says what holds for whom) or
        ``resources`` (one grid per resource, each hour shaded by its main reason).

        .. versionadded:: 0.1
        """
        return HtmlView(unavailable_html(self, view=view))

    def __repr__(self) -> str:
        stretches = self.unavailable_times
        if not stretches:
            if not self._resources:
                return "UnavailableTimes(no resource takes the service here: nothing is bookable)"
            return "UnavailableTimes(nothing unavailable)"
        codes = count_codes(stretch.reason_code.value for stretch in stretches)
        span = range_text(stretches[0].date, stretches[-1].date)
        return f"UnavailableTimes({span}, {len(stretches)} stretches: {codes})"

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:
        printer.text(repr(self))

    def _repr_html_(self) -> str:
        return unavailable_html(self)


def _sorted_names(ids: set[str], names: Mapping[str, str]) -> dict[str, str]:
    """Return ``{id: name}`` for *ids*, sorted by name then id (a missing name is the id)."""
    return dict(sorted(((rid, names.get(rid, rid)) for rid in ids), key=lambda p: (p[1], p[0])))
