"""
iCalendar export: appointments, blocks, allocations and holidays as RFC 5545 events.

Every timed event is written in its location's zone (``DTSTART;TZID=...``) and the calendar
carries a ``VTIMEZONE`` for each ``TZID`` it uses (RFC 5545 section 3.6.5). A repeating window's
``DTSTART`` is its first occurrence (RFC 5545 counts ``DTSTART`` as the first instance whether
the rule selects it or not) and its ``UNTIL`` is a UTC date-time (required beside a zoned
``DTSTART``, section 3.3.10): the last instant of the window's end date in the location's zone,
so the last occurrence is kept. On DST transition dates where RFC 5545 reads a window edge
differently from slotwise (``slotwise.ics._dst``), that instance is written out at slotwise's
instants.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable
from datetime import UTC, date, datetime, time, timedelta
from typing import Final

import icalendar

from slotwise._time import to_utc, zone
from slotwise.errors import InvalidFormat
from slotwise.model import (
    Allocation,
    Appointment,
    AppointmentStatus,
    Block,
    Holiday,
    Location,
    Service,
)
from slotwise.model.blocks import OPEN_END
from slotwise.paging import all_pages
from slotwise.rules.repeat import occurrence_dates, to_rrule_text
from slotwise.scheduler import Workspace

from ._dst import divergences, wall

__all__ = ["PRODUCT", "export_appointments", "export_resource"]

PRODUCT: Final = "-//slotwise//slotwise//EN"
_STATUS: Final = {
    AppointmentStatus.CANCELLED: "CANCELLED",
    AppointmentStatus.INITIAL: "TENTATIVE",
}
# A fixed stamp for windows and holidays: they carry no modification time, and a stable stamp
# keeps the feed byte-identical between two reads of unchanged data.
_WINDOW_STAMP: Final = datetime(2000, 1, 1, tzinfo=UTC)
_FIRST_SEARCH_DAYS: Final = 400


def _calendar(name: str, timezone: str | None = None) -> icalendar.Calendar:
    calendar = icalendar.Calendar()
    calendar.add("prodid", PRODUCT)
    calendar.add("version", "2.0")
    calendar.add("calscale", "GREGORIAN")
    calendar.add("x-wr-calname", name)
    if timezone is not None:
        # The zone all-day events (holidays) are read in; readers that honour X-WR-TIMEZONE
        # (Google, slotwise's own IcsBusyTime) place them on the location's dates.
        calendar.add("x-wr-timezone", timezone)
    return calendar


@functools.lru_cache(maxsize=64)
def _vtimezone(tzid: str) -> icalendar.Timezone | None:
    """Return the ``VTIMEZONE`` of an IANA zone (built once: its transitions take a while)."""
    try:
        return icalendar.Timezone.from_tzid(tzid)
    except ValueError:
        return None


def _finish(calendar: icalendar.Calendar) -> bytes:
    """Add a ``VTIMEZONE`` for every ``TZID`` used and return the document's bytes."""
    for tzid in sorted(calendar.get_missing_tzids(), reverse=True):
        timezone = _vtimezone(tzid)
        if timezone is not None:
            # Before the events, where readers that stream the file meet them first.
            calendar.subcomponents.insert(0, timezone)
    return bytes(calendar.to_ical())


class _Names:
    """Services and locations read once per export."""

    def __init__(self, ws: Workspace) -> None:
        self._ws = ws
        self._services: dict[str, Service] = {}
        self._locations: dict[str, Location] = {}

    def service(self, service_id: str) -> Service:
        if service_id not in self._services:
            self._services[service_id] = self._ws.services.get(service_id)
        return self._services[service_id]

    def location(self, location_id: str) -> Location:
        if location_id not in self._locations:
            self._locations[location_id] = self._ws.locations.get(location_id)
        return self._locations[location_id]


def _place(location: Location) -> str:
    """Return the location's name and address as one line (the event's ``LOCATION``)."""
    address = location.address
    parts = (
        address.address_line1,
        address.address_line2,
        address.city,
        address.state,
        address.postal_code,
        address.country,
    )
    return ", ".join([location.name, *(part for part in parts if part)])


def _lineage(ws: Workspace, appointment: Appointment) -> tuple[str, int]:
    """Return the id of the appointment's first record and how many times it was moved."""
    moves, current = 0, appointment
    seen = {current.id}
    while current.rescheduled_id is not None and current.rescheduled_id not in seen:
        earlier = ws.appointments.get(current.rescheduled_id)
        seen.add(earlier.id)
        current, moves = earlier, moves + 1
    return current.id, moves


def _appointment_event(ws: Workspace, names: _Names, appointment: Appointment) -> icalendar.Event:
    root, moves = _lineage(ws, appointment)
    location = names.location(appointment.location_id)
    service = names.service(appointment.service_id)
    tz = zone(location.timezone)
    cancelled = appointment.status is AppointmentStatus.CANCELLED
    event = icalendar.Event()
    event.add("uid", f"{root}@slotwise")
    # RFC 5545 3.8.7.4: SEQUENCE rises with every significant change; a move and a cancel are.
    event.add("sequence", moves + (1 if cancelled else 0))
    event.add("dtstamp", appointment.last_modified_at or appointment.created_at)
    event.add("dtstart", appointment.start.astimezone(tz))
    event.add("dtend", appointment.end.astimezone(tz))
    person = " ".join(n for n in (appointment.first_name, appointment.last_name) if n)
    event.add("summary", f"{service.name}: {person}" if person else service.name)
    event.add("location", appointment.location_text or _place(location))
    if appointment.confirmation_number:
        event.add("description", f"Confirmation {appointment.confirmation_number}")
    event.add("status", _STATUS.get(appointment.status, "CONFIRMED"))
    event.add("transp", "TRANSPARENT" if cancelled else "OPAQUE")
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

    Each event is named after its service and customer (``SUMMARY``), placed at its location
    (``LOCATION``: the appointment's own location text, or the location's name and address) and
    written in the location's zone with its ``VTIMEZONE``. Records an appointment was
    rescheduled away from (``RE``) are left out: the new record carries the event, under the same
    UID with a higher ``SEQUENCE``. A cancelled appointment raises ``SEQUENCE`` once more.

    .. versionchanged:: 0.2
       Events carry the service and location names, their location's zone and ``VTIMEZONE``,
       and a cancelled one a raised ``SEQUENCE``.
    """
    calendar = _calendar(name)
    names = _Names(ws)
    for appointment in appointments:
        if appointment.status is not AppointmentStatus.RESCHEDULED:
            calendar.add_component(_appointment_event(ws, names, appointment))
    return _finish(calendar)


def first_occurrence(window: Block | Allocation) -> date | None:
    """Return the first date *window* applies on, or ``None`` when its rule selects none."""
    low, last = window.start_date, window.end_date
    span = _FIRST_SEARCH_DAYS
    while low <= last:
        high = date.fromordinal(min(last.toordinal(), low.toordinal() + span))
        found = occurrence_dates(window, low, high)
        if found:
            return found[0]
        if high == last:
            return None
        low, span = high + timedelta(days=1), span * 4
    return None


def _until(end_date: date, tz: object) -> str:
    """Return ``UNTIL``: the last second of *end_date* in *tz*, in UTC (RFC 5545 3.3.10)."""
    next_midnight = datetime.combine(end_date + timedelta(days=1), time(0), tz)  # type: ignore[arg-type]
    last = next_midnight.astimezone(UTC) - timedelta(seconds=1)
    return f"{last:%Y%m%dT%H%M%SZ}"


def _window_events(
    window: Block | Allocation, location: Location, *, kind: str
) -> list[icalendar.Event]:
    """
    Return the event of *window* (none when its rule selects no date), followed by one
    ``RECURRENCE-ID`` instance per date where a DST gap or fold would make RFC 5545 readers place
    it elsewhere than slotwise (``slotwise.ics._dst``); an instance slotwise reads as empty (a
    window wholly inside a gap) is an ``EXDATE`` instead.
    """
    first = first_occurrence(window)
    if first is None:
        return []
    tz = zone(location.timezone)
    moved = divergences(window, location.timezone, first)
    event = _window_base(window, location, kind=kind)
    rule: str | None = None
    if window.repeat is not None:
        # The start date, not the first occurrence, anchors the rule's defaults (a monthly
        # nth weekday without month_day is the start date's).
        rule = to_rrule_text(window.repeat, window.start_date, OPEN_END)
    elif window.end_date != first:
        # Without a repeat rule a window applies on each date of its range (docs/semantics.md).
        rule = "FREQ=DAILY"
    if rule is None and moved:
        # One instance: written at slotwise's instants (UTC), or not at all when empty.
        [(_, instants)] = moved
        if instants is None:
            return []
        event.add("dtstart", instants[0])
        event.add("dtend", instants[1])
        return [event]
    event.add("dtstart", wall(first, window.start_time, tz))
    event.add("dtend", wall(first, window.end_time, tz))
    if rule is not None:
        if window.end_date != OPEN_END:
            rule += f";UNTIL={_until(window.end_date, tz)}"
        event.add("rrule", icalendar.vRecur.from_ical(rule))
    overrides = []
    for recurrence, instants in moved:
        if instants is None:
            event.add("exdate", recurrence)
            continue
        override = _window_base(window, location, kind=kind)
        override.add("recurrence-id", recurrence)
        override.add("dtstart", instants[0])
        override.add("dtend", instants[1])
        overrides.append(override)
    return [event, *overrides]


def _window_base(window: Block | Allocation, location: Location, *, kind: str) -> icalendar.Event:
    event = icalendar.Event()
    event.add("uid", f"{window.id}@slotwise")
    event.add("dtstamp", _WINDOW_STAMP)
    event.add("summary", window.reason or kind)
    event.add("location", _place(location))
    event.add("transp", "OPAQUE" if kind == "block" else "TRANSPARENT")
    event.add("x-slotwise-kind", kind)
    return event


def _holiday_event(holiday: Holiday, location: Location) -> icalendar.Event:
    event = icalendar.Event()
    event.add("uid", f"holiday-{location.id}-{holiday.date:%Y%m%d}@slotwise")
    event.add("dtstamp", _WINDOW_STAMP)
    event.add("dtstart", holiday.date)
    event.add("dtend", holiday.date + timedelta(days=1))
    event.add("summary", holiday.name or "Holiday")
    event.add("location", _place(location))
    event.add("transp", "OPAQUE")
    event.add("x-slotwise-kind", "holiday")
    return event


def export_resource(
    ws: Workspace,
    resource_id: str,
    *,
    since: datetime | None = None,
    include_windows: bool = True,
) -> bytes:
    """
    Return a resource's calendar: its appointments from *since* (all when ``None``), its blocks
    (busy, ``OPAQUE``) and allocations (``TRANSPARENT``) with their repeat rules, and its
    location's holidays (all-day, busy).

    The calendar's ``X-WR-TIMEZONE`` is the location's zone. :class:`~slotwise.ics.IcsBusyTime`
    reads the feed back as the resource's busy time: its booked appointments and holds, its
    blocks and the holidays.

    .. versionchanged:: 0.2
       Holidays are in the feed; a window's ``DTSTART`` is its first occurrence and its
       ``UNTIL`` a UTC date-time; ``VTIMEZONE`` components are included.

    Raises:
        NotFound, Unauthorized: for an unknown or foreign resource.
        InvalidFormat: when *since* is not a datetime, or *include_windows* not a bool.
        NaiveDatetime: when *since* has no UTC offset.
    """
    if since is not None:
        if not isinstance(since, datetime):
            raise InvalidFormat(field="since", expected="an aware datetime", value=since)
        since = to_utc(since, field="since")
    if not isinstance(include_windows, bool):
        raise InvalidFormat(field="include_windows", expected="a bool", value=include_windows)
    resource = ws.resources.get(resource_id)
    location = ws.locations.get(resource.location_id)
    calendar = _calendar(resource.name, location.timezone)
    names = _Names(ws)
    for appointment in all_pages(
        ws.appointments.list, resource_id=resource.id, location_id=location.id
    ):
        if appointment.status is AppointmentStatus.RESCHEDULED:
            continue
        if since is None or appointment.end > since:
            calendar.add_component(_appointment_event(ws, names, appointment))
    if include_windows:
        blocks = all_pages(ws.resources.list_blocks, resource.id)
        allocations = all_pages(ws.resources.list_allocations, resource.id)
        windows: list[tuple[str, Block | Allocation]] = [
            *(("block", block) for block in blocks),
            *(("allocation", allocation) for allocation in allocations),
        ]
        for kind, window in windows:
            for event in _window_events(window, location, kind=kind):
                calendar.add_component(event)
    for holiday in location.holidays:
        calendar.add_component(_holiday_event(holiday, location))
    return _finish(calendar)
