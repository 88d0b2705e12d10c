"""
iCalendar (RFC 5545) export and import, with the ``icalendar`` library (extra ``slotwise[ics]``).

Export: appointments become ``VEVENT``s whose ``UID`` is the id of the appointment's first record
(``<id>@slotwise``): a reschedule makes a new record, and the calendar event it belongs to keeps
its UID with ``SEQUENCE`` raised by one per move, so calendar clients update the event instead of
adding one. A cancelled appointment is ``STATUS:CANCELLED``; a hold ``STATUS:TENTATIVE``. Blocks
and allocations become events of their first window with their repeat rule as ``RRULE``
(``slotwise.rules.repeat.to_rrule_text``), in the location's zone.

Import: :class:`IcsBusyTime` is a :class:`~slotwise.availability.busy.BusyTimeProvider` that
reads busy time from ``.ics`` data the host supplies (bytes, a file, or a callable returning
either), so a resource's external calendar can block availability without a provider account.

.. versionadded:: 0.1
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import UTC, date, datetime, time, timedelta
from pathlib import Path
from typing import Any, Final
from zoneinfo import ZoneInfo

from dateutil.rrule import rruleset, rrulestr

from slotwise._time import zone
from slotwise.errors import InvalidFormat, MissingDependency
from slotwise.model import Allocation, Appointment, AppointmentStatus, Block, Location, Resource
from slotwise.rules.repeat import to_rrule_text
from slotwise.scheduler import Workspace

try:
    import icalendar
except ImportError as missing:  # pragma: no cover - exercised without the extra
    raise MissingDependency(feature="iCalendar export and import", extra="ics") from missing

__all__ = ["IcsBusyTime", "export_appointments", "export_resource"]

PRODUCT: Final = "-//slotwise//slotwise//EN"
_STATUS: Final = {
    AppointmentStatus.CANCELLED: "CANCELLED",
    AppointmentStatus.INITIAL: "TENTATIVE",
}


def _calendar(name: str) -> icalendar.Calendar:
    calendar = icalendar.Calendar()
    calendar.add("prodid", PRODUCT)
    calendar.add("version", "2.0")
    calendar.add("x-wr-calname", name)
    return calendar


def _lineage(ws: Workspace, appointment: Appointment) -> tuple[str, int]:
    """Return the id of the appointment's first record and how many times it was moved."""
    moves, current = 0, appointment
    seen = {current.id}
    while current.rescheduled_id is not None and current.rescheduled_id not in seen:
        earlier = ws.appointments.get(current.rescheduled_id)
        seen.add(earlier.id)
        current, moves = earlier, moves + 1
    return current.id, moves


def _appointment_event(ws: Workspace, appointment: Appointment) -> icalendar.Event:
    root, moves = _lineage(ws, appointment)
    event = icalendar.Event()
    event.add("uid", f"{root}@slotwise")
    event.add("sequence", moves)
    event.add("dtstamp", appointment.last_modified_at or appointment.created_at)
    event.add("dtstart", appointment.start)
    event.add("dtend", appointment.end)
    names = " ".join(n for n in (appointment.first_name, appointment.last_name) if n)
    event.add("summary", names or f"Appointment {appointment.confirmation_number or ''}".strip())
    event.add("status", _STATUS.get(appointment.status, "CONFIRMED"))
    if appointment.meeting_url:
        event.add("url", appointment.meeting_url)
    event.add("x-slotwise-appointment-id", appointment.id)
    event.add("x-slotwise-status", appointment.status.value)
    return event


def export_appointments(
    ws: Workspace, appointments: Iterable[Appointment], *, name: str = "slotwise"
) -> bytes:
    """
    Return *appointments* as an iCalendar document (UTF-8 bytes).

    Records an appointment was rescheduled away from (``RE``) are left out: the new record
    carries the event, under the same UID with a higher ``SEQUENCE``.
    """
    calendar = _calendar(name)
    for appointment in appointments:
        if appointment.status is not AppointmentStatus.RESCHEDULED:
            calendar.add_component(_appointment_event(ws, appointment))
    return bytes(calendar.to_ical())


def _window_event(window: Block | Allocation, location: Location, *, kind: str) -> icalendar.Event:
    tz = zone(location.timezone)
    first = window.start_date
    start = datetime.combine(first, time(window.start_time // 100, window.start_time % 100), tz)
    end_minutes = (window.end_time // 100) * 60 + window.end_time % 100
    end = datetime.combine(first, time(0), tz) + timedelta(minutes=end_minutes)
    event = icalendar.Event()
    event.add("uid", f"{window.id}@slotwise")
    event.add("dtstamp", datetime(2000, 1, 1, tzinfo=UTC))
    event.add("dtstart", start)
    event.add("dtend", end)
    event.add("summary", window.reason or kind)
    event.add("transp", "OPAQUE" if kind == "block" else "TRANSPARENT")
    event.add("x-slotwise-kind", kind)
    if window.repeat is not None:
        rule = to_rrule_text(window.repeat, window.start_date, window.end_date)
        event.add("rrule", icalendar.vRecur.from_ical(rule))
    elif window.end_date != window.start_date:
        # Without a repeat rule a window applies on each date of its range (docs/semantics.md).
        until = window.end_date
        event.add("rrule", icalendar.vRecur.from_ical(f"FREQ=DAILY;UNTIL={until:%Y%m%d}"))
    return event


def export_resource(
    ws: Workspace,
    resource_id: str,
    *,
    since: datetime | None = None,
    include_windows: bool = True,
) -> bytes:
    """
    Return a resource's calendar: its appointments from *since* (all when ``None``), and its
    blocks and allocations with their repeat rules.

    Raises:
        NotFound, Unauthorized: for an unknown or foreign resource.
    """
    resource = ws.resources.get(resource_id)
    location = ws.locations.get(resource.location_id)
    appointments: list[Appointment] = []
    offset = 0
    while True:
        page = ws.appointments.list(resource_id=resource.id, location_id=location.id,
                                    offset=offset, limit=100)  # fmt: skip
        appointments += [a for a in page.data if since is None or a.end > since]
        offset += page.count
        if not page.has_more:
            break
    calendar = _calendar(resource.name)
    for appointment in appointments:
        if appointment.status is not AppointmentStatus.RESCHEDULED:
            calendar.add_component(_appointment_event(ws, appointment))
    if include_windows:
        for kind, lister in (
            ("block", ws.resources.list_blocks),
            ("allocation", ws.resources.list_allocations),
        ):
            offset = 0
            while True:
                windows = lister(resource.id, offset=offset, limit=100)
                for window in windows.data:
                    calendar.add_component(_window_event(window, location, kind=kind))
                offset += windows.count
                if not windows.has_more:
                    break
    return bytes(calendar.to_ical())


# -- import -----------------------------------------------------------------------------------

Source = bytes | str | os.PathLike[str] | Callable[[], bytes | str]


class IcsBusyTime:
    """
    Busy time of resources read from iCalendar data (a ``BusyTimeProvider``).

    Args:
        sources: per resource id, its calendar: ``.ics`` bytes or text, a path to a file, or a
            callable returning bytes or text (called for each query, so it may fetch fresh data).

    Every ``VEVENT`` is busy from ``DTSTART`` to ``DTEND`` (or ``DURATION``), repeated by its
    ``RRULE`` (with ``EXDATE``), except cancelled and transparent (free) ones. A date without a
    time is the whole day in the resource's zone. Like every busy-time provider it is consulted
    for resources whose ``options.calendar_availability`` is 1 or 2.

    Raises:
        InvalidFormat: when a calendar cannot be read (naming the resource).

    .. versionadded:: 0.1
    """

    def __init__(self, sources: Mapping[str, Source]) -> None:
        self.sources = dict(sources)

    def __repr__(self) -> str:
        return f"IcsBusyTime({sorted(self.sources)!r})"

    def busy(
        self, resource: Resource, start: datetime, end: datetime
    ) -> Sequence[tuple[datetime, datetime]]:
        """Return the busy intervals of *resource* overlapping ``[start, end)``."""
        source = self.sources.get(resource.id)
        if source is None:
            return ()
        data = _read(source)
        try:
            calendar = icalendar.Calendar.from_ical(data)
        except ValueError as error:
            raise InvalidFormat(
                field=f"calendar of {resource.id}", expected="iCalendar data", value=str(error)
            ) from None
        tz = zone(resource.timezone)
        found: list[tuple[datetime, datetime]] = []
        for event in calendar.walk("VEVENT"):
            if str(event.get("status", "")).upper() == "CANCELLED":
                continue
            if str(event.get("transp", "")).upper() == "TRANSPARENT":
                continue
            found += _occurrences(event, tz, start, end)
        return found


def _read(source: Source) -> bytes:
    value: Any = source() if callable(source) else source
    if isinstance(value, os.PathLike):
        return Path(value).read_bytes()
    if isinstance(value, str) and "BEGIN:VCALENDAR" not in value:
        return Path(value).read_bytes()
    return value.encode() if isinstance(value, str) else bytes(value)


def _aware(value: date | datetime, tz: ZoneInfo) -> datetime:
    if isinstance(value, datetime):
        return value if value.tzinfo is not None else value.replace(tzinfo=tz)
    return datetime.combine(value, time(0), tz)


def _occurrences(
    event: Any, tz: ZoneInfo, start: datetime, end: datetime
) -> list[tuple[datetime, datetime]]:
    first = event.decoded("dtstart")
    if "dtend" in event:
        length = _aware(event.decoded("dtend"), tz) - _aware(first, tz)
    elif "duration" in event:
        length = event.decoded("duration")
    else:
        length = timedelta(days=1) if not isinstance(first, datetime) else timedelta(0)
    begin = _aware(first, tz)
    if "rrule" not in event:
        return [(begin, begin + length)] if begin < end and begin + length > start else []
    rules = rruleset()
    rule_text = event["rrule"].to_ical().decode()
    rules.rrule(rrulestr(rule_text, dtstart=begin, ignoretz=False))  # type: ignore[arg-type]
    excluded = event.get("exdate")
    for group in excluded if isinstance(excluded, list) else ([excluded] if excluded else []):
        for moment in group.dts:
            rules.exdate(_aware(moment.dt, tz))
    return [
        (moment, moment + length)
        for moment in rules.between(start - length, end, inc=True)
        if moment + length > start
    ]
