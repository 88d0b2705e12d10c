"""
iCalendar import: a resource's busy time from ``.ics`` data (decision in ``docs/semantics.md``).

What counts as busy, in order:

* ``STATUS:CANCELLED`` events and instances are free;
* an event the resource declined (an ``ATTENDEE`` with the resource's e-mail address and
  ``PARTSTAT=DECLINED``) is free; not yet answered (``NEEDS-ACTION``) and ``TENTATIVE`` are busy;
* Outlook's ``X-MICROSOFT-CDO-BUSYSTATUS`` wins over ``TRANSP`` when present: ``FREE`` is free,
  ``BUSY``, ``TENTATIVE``, ``OOF`` and ``WORKINGELSEWHERE`` (not at the location) are busy;
* otherwise ``TRANSP:TRANSPARENT`` is free and everything else (``OPAQUE``, the default) busy;
* ``VFREEBUSY`` periods are busy except ``FBTYPE=FREE``.

Time: a date-time with ``TZID`` is read in that zone (IANA names, Windows names such as
``Eastern Standard Time``, or the calendar's own ``VTIMEZONE``); floating times and all-day dates
are read in the calendar's ``X-WR-TIMEZONE`` when it names a known zone, else in the resource's
zone. Google's UTC times under ``X-WR-TIMEZONE`` repeat in that zone (``x-wr-timezone``).
"""

from __future__ import annotations

import hashlib
import logging
import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import UTC, date, datetime, time, timedelta, tzinfo
from pathlib import Path
from typing import Any, Final, Literal
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

import icalendar
import recurring_ical_events
import x_wr_timezone

from slotwise._time import zone
from slotwise.errors import CalendarUnreadable, InvalidChoice, SlotwiseError
from slotwise.model import Resource

from ._bounds import repeats_of
from ._zones import own_zones

__all__ = ["IcsBusyTime", "Source", "Unreadable"]

LOGGER: Final = logging.getLogger("slotwise.ics")

Source = bytes | str | os.PathLike[str] | Callable[[], bytes | str]
"""A resource's calendar: ``.ics`` bytes or text, a file path, or a callable returning either."""

Unreadable = Literal["busy", "free", "raise"]
"""What a calendar that cannot be read means for its resource's availability."""

# Instances are asked for in a range widened by this much, then clipped: floating times and
# all-day dates compare as wall times, up to 14 hours from UTC.
_MARGIN: Final = timedelta(days=2)
_FREE_STATUSES: Final = frozenset({"FREE"})


class IcsBusyTime:
    """
    Busy time of resources read from iCalendar data (a ``BusyTimeProvider``).

    Args:
        sources: per resource id, its calendar: ``.ics`` bytes or text, a path to a file, or a
            callable returning bytes or text (called for each query, so it may fetch fresh data).
        unreadable: what a calendar that cannot be read (missing file, a callable that raises,
            data that is not iCalendar, a rule that cannot be expanded) means. ``"busy"`` (the
            default): the resource is busy for the whole range asked about, so nothing is booked
            against a calendar nobody could read, while every other resource stays available;
            ``"free"``: the calendar is ignored; ``"raise"``: :class:`CalendarUnreadable` is
            raised out of the availability call. With ``"busy"`` and ``"free"`` the error is
            logged on the ``slotwise.ics`` logger (``WARNING`` when it is new or its reason
            changed, ``DEBUG`` when it repeats, ``INFO`` when the calendar reads again; the
            resource id in the record's ``resource_id``) and kept in :attr:`failures` until the
            calendar reads again.

    The events of the calendar are busy from ``DTSTART`` to ``DTEND`` (or ``DURATION``), repeated
    by their ``RRULE`` and ``RDATE`` less their ``EXDATE``\\ s, with ``RECURRENCE-ID`` overrides
    moving or cancelling single instances; ``VFREEBUSY`` periods are busy too. The module
    docstring of ``slotwise.ics._import`` lists what counts as free. Like every busy-time provider
    it is consulted for resources whose ``options.calendar_availability`` is 1 or 2.

    Raises:
        CalendarUnreadable: with ``unreadable="raise"``, when a calendar cannot be read.

    .. versionadded:: 0.1
    .. versionchanged:: 0.2
       *unreadable*, :attr:`failures`; overrides, declined invitations, Outlook busy status,
       ``VFREEBUSY``, ``X-WR-TIMEZONE``, Windows zone names and floating times are read.
    """

    def __init__(self, sources: Mapping[str, Source], *, unreadable: Unreadable = "busy") -> None:
        if unreadable not in ("busy", "free", "raise"):
            raise InvalidChoice(
                field="unreadable", allowed=("busy", "free", "raise"), requested=unreadable
            )
        self.sources = dict(sources)
        self.unreadable: Unreadable = unreadable
        self.failures: dict[str, CalendarUnreadable] = {}
        """The last error of each resource whose calendar could not be read, by resource id."""
        # Parsing and indexing a calendar costs far more than asking it about a range (about
        # 1.5 s against 0.1 s for 2,000 events), and a source usually gives the same bytes
        # query after query: the last parse of each resource is kept, keyed by a digest.
        self._cache: dict[str, tuple[bytes, _ParsedCalendar]] = {}

    def __repr__(self) -> str:
        return f"IcsBusyTime({sorted(self.sources)!r}, unreadable={self.unreadable!r})"

    def busy(
        self, resource: Resource, start: datetime, end: datetime
    ) -> Sequence[tuple[datetime, datetime]]:
        """Return the busy intervals of *resource* overlapping ``[start, end)``."""
        source = self.sources.get(resource.id)
        if source is None:
            return ()
        try:
            found = self._parsed(resource.id, _read(source)).busy(resource, start, end)
        # A host's calendar is outside data: whatever it makes a parser or a fetch raise must
        # fail this resource only (the "one calendar takes down a service").
        except Exception as error:
            failure = _failure(resource, error)
            if self.unreadable == "raise":
                raise failure from error
            previous = self.failures.get(resource.id)
            self.failures[resource.id] = failure
            # A broken feed fails every query until it is fixed: the host hears of it once
            # (and again when the reason changes), not once per availability request.
            level = (
                logging.DEBUG if previous and previous.reason == failure.reason else logging.WARNING
            )
            consequence = "busy for the range" if self.unreadable == "busy" else "ignored"
            LOGGER.log(
                level,
                "%s (resource %s %s)",
                failure,
                resource.id,
                consequence,
                extra={"resource_id": resource.id},
                exc_info=error,
            )
            return [(start, end)] if self.unreadable == "busy" else []
        if self.failures.pop(resource.id, None) is not None:
            LOGGER.info(
                "the calendar of resource %r reads again",
                resource.id,
                extra={"resource_id": resource.id},
            )
        return found

    def _parsed(self, resource_id: str, data: bytes) -> _ParsedCalendar:
        """Return *data* parsed, reusing the resource's last parse when the bytes are the same."""
        digest = hashlib.sha256(data).digest()
        cached = self._cache.get(resource_id)
        if cached is not None and cached[0] == digest:
            return cached[1]
        self._cache.pop(resource_id, None)
        parsed = _ParsedCalendar(data)
        self._cache[resource_id] = (digest, parsed)
        return parsed


def _failure(resource: Resource, error: Exception) -> CalendarUnreadable:
    if isinstance(error, CalendarUnreadable):
        return error
    reason = str(error) if isinstance(error, SlotwiseError) else f"{type(error).__name__}: {error}"
    failure = CalendarUnreadable(resource_id=resource.id, reason=reason)
    failure.__cause__ = error
    return failure


def _read(source: Source) -> bytes:
    value: Any = source() if callable(source) else source
    if isinstance(value, os.PathLike):
        return Path(value).read_bytes()
    if isinstance(value, str) and "BEGIN:VCALENDAR" not in value.upper():
        return Path(value).read_bytes()
    if isinstance(value, str):
        return value.encode()
    if isinstance(value, bytes | bytearray | memoryview):
        return bytes(value)
    raise TypeError(f"a calendar source gave {type(value).__name__}, not bytes or text")


class _ParsedCalendar:
    """One calendar's data, parsed and indexed once, then asked about any number of ranges."""

    def __init__(self, data: bytes) -> None:
        calendar = icalendar.Calendar.from_ical(own_zones(data))
        if not isinstance(calendar, icalendar.Calendar):
            raise ValueError(f"expected a VCALENDAR, got {getattr(calendar, 'name', '?')}")
        self.declared = _declared_zone(calendar)
        if self.declared is not None:
            calendar = x_wr_timezone.to_standard(calendar)
        elif "X-WR-TIMEZONE" in calendar:
            # An unknown name is ignored (docs/semantics.md): the expansion would convert by it
            # again, and fail.
            del calendar["X-WR-TIMEZONE"]
        self._events = recurring_ical_events.of(calendar, components=["VEVENT"])
        self._repeats = repeats_of(calendar.walk("VEVENT"))
        self._free_busy = [
            period
            for component in calendar.walk("VFREEBUSY")
            for period in _free_busy_periods(component)
        ]

    def busy(
        self, resource: Resource, start: datetime, end: datetime
    ) -> list[tuple[datetime, datetime]]:
        """
        Return the busy intervals for *resource* that overlap ``[start, end)``.

        Raises:
            ValueError, and anything the expansion raises: when a rule cannot be expanded, or
                would cost more than ``_bounds.MOST_INSTANCES`` instances to expand.
        """
        home = self.declared or zone(resource.timezone)
        addresses = {f"mailto:{resource.email}".lower()} if resource.email else set()
        for repeat in self._repeats:
            # Before the expansion, which would walk every instance up to the range's end.
            repeat.check(end + _MARGIN)
        found = list(self._free_busy)
        for event in self._events.between(start - _MARGIN, end + _MARGIN):
            if not _event_is_busy(event, addresses):
                continue
            begin = _instant(event.decoded("dtstart"), home)
            finish = _instant(event.decoded("dtend"), home) if "dtend" in event else begin
            found.append((begin, finish))
        return [(low, high) for low, high in found if low < high and low < end and high > start]


def _declared_zone(calendar: icalendar.Calendar) -> tzinfo | None:
    """
    Return the zone the calendar's ``X-WR-TIMEZONE`` names, or ``None``.

    An unknown name is ignored, not an error: the events' own ``TZID`` values still place them,
    and floating times and dates fall back to the resource's zone.
    """
    name = str(calendar.get("x-wr-timezone", "")).strip()
    if name:
        try:
            return ZoneInfo(name)
        except (ZoneInfoNotFoundError, ValueError):
            LOGGER.info("X-WR-TIMEZONE %r is not a known zone; the resource's zone is used", name)
    return None


def _instant(value: date | datetime, home: tzinfo) -> datetime:
    """Return *value* as an aware UTC datetime; dates and floating times are wall time in *home*."""
    if not isinstance(value, datetime):
        value = datetime.combine(value, time(0))
    if value.tzinfo is None:
        value = value.replace(tzinfo=home)
    return value.astimezone(UTC)


def _text(component: icalendar.cal.Component, name: str) -> str:
    return str(component.get(name, "")).strip().upper()


def _event_is_busy(event: icalendar.Event, addresses: set[str]) -> bool:
    if _text(event, "status") == "CANCELLED":
        return False
    if addresses and _declined(event.get("attendee"), addresses):
        return False
    busy_status = _text(event, "x-microsoft-cdo-busystatus")
    if busy_status:
        return busy_status not in _FREE_STATUSES
    return _text(event, "transp") != "TRANSPARENT"


def _declined(attendees: object, addresses: set[str]) -> bool:
    """Tell whether one of *addresses* declined (``PARTSTAT=DECLINED``)."""
    found: Iterable[object] = (
        attendees if isinstance(attendees, list) else [] if attendees is None else [attendees]
    )
    for attendee in found:
        if str(attendee).strip().lower() in addresses:
            params = getattr(attendee, "params", {})
            return str(params.get("PARTSTAT", "")).upper() == "DECLINED"
    return False


def _free_busy_periods(component: icalendar.cal.Component) -> list[tuple[datetime, datetime]]:
    """Return the busy periods of a ``VFREEBUSY`` (RFC 5545 3.8.2.6; all values are UTC)."""
    values = component.get("freebusy")
    found: list[tuple[datetime, datetime]] = []
    for value in values if isinstance(values, list) else [] if values is None else [values]:
        if str(value.params.get("FBTYPE", "BUSY")).upper() == "FREE":
            continue
        for period in _periods(value):
            found.append(period)
    return found


def _periods(value: Any) -> list[tuple[datetime, datetime]]:
    """Return the periods of one ``FREEBUSY`` property (a comma-separated list)."""
    found = []
    for text in value.to_ical().decode().split(","):
        low, high = icalendar.vPeriod.from_ical(text)  # type: ignore[no-untyped-call]
        end = low + high if isinstance(high, timedelta) else high
        if low.tzinfo is None or end.tzinfo is None:
            raise ValueError(f"FREEBUSY period {text!r} is not in UTC")
        found.append((low.astimezone(UTC), end.astimezone(UTC)))
    return found
