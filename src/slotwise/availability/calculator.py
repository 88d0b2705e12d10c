"""
The availability calculator: available times, day availability and unavailable times.

Every public function here is a pure function of ``(snapshot, query, now)``: it reads no store
and no clock (STYLE rule 21), so the same inputs always give the same answer.

How one minute is judged (decisions 5-15, ``docs/semantics.md``). For each candidate resource R
and each searched location date D, the searched window is D's day in the location's zone
(``[D 00:00, D+1 00:00)``, 23 to 25 hours), narrowed to ``[start_time, end_time)`` when the query
gives them. Blocks and allocations count only when they belong to the searched location (and
deleted blocks never). Each minute m of it takes the **first** label that applies, in this order:

``TP``  m is before ``now`` + the lead time (book-in-advance);
``BA``  no slot starting by ``now`` + the book-ahead span reaches m (m is at or after that
        horizon + the duration: a slot may still start exactly at the horizon, decision 15);
``HO``  D is one of the location's holidays;
``CL``  m is outside D's business hours (not checked when R has ``ignore_business_hours``);
``SH``  m is outside D's service hours;
``AL``  the service is an event and m is outside every service allocation on D; or R has
        ``recurring_availability`` false and m is outside every allocation of R on D;
``RH``  R has recurring availability and m is outside R's weekly hours, read as wall times in
        R's own zone on whichever of R's dates overlap D;
``CB``/``SB``/``RB``  m is inside a live calendar / service / resource block on D (blocks in
        creation order; each block is its own cause);
``EB``  m is inside an external busy interval of R (slotwise's own code);
``BK``  at m, an active appointment of R of another service occupies m (decision 8a: a
        resource serves one service at a time), or the active appointments of R of the service
        (each occupying ``[start, end + padding)``) number at least the booking limit at m, or
        their group sizes sum to at least the capacity at m;
``DL``  R's daily limit for the service is reached on D;

and is **free** otherwise. Unavailable times are the labelled minutes, merged into contiguous
stretches per cause; free time and unavailable time partition the searched window.

**Open time** of R on D is the searched window minus the labels ``HO`` to ``RB``. A slot of R
starts at t when:

* t lies on D's grid: ``anchor + k * step`` (k >= 0) before the end of the anchor's window, where
  the windows are the service allocations on D (event services) and R's allocations on D
  (resources without recurring availability; both sets when both apply), else D's business ∩
  service window (D's service window when R ignores business hours); the step is the query's
  ``interval``, else the service's ``booking_interval``, else the calendar's ``interval``, else
  the duration, in absolute minutes;
* ``[t, t + duration)`` lies inside one interval of R's open time on D;
* ``now + lead <= t <= now + book-ahead`` (decision 11);
* R's daily limit is not reached on D (decision 10): fewer than ``daily_booking_limit_count``
  active appointments of the service start on D for R, and their minutes plus the duration do
  not exceed ``daily_booking_limit_minutes`` (0 = no limit);
* ``[t, t + duration + padding)`` meets no external busy interval of R, and the peak number of
  R's active appointments occupying any instant of it is below the slot's booking limit (the
  limit of the first service allocation, then of the first allocation of R, in creation order,
  whose window holds ``[t, t + duration)`` and sets one, whatever the service type or R's
  recurring availability; else the service's ``booking_limit`` when > 0, else the calendar's
  ``bookings_per_slot``), and the peak sum of their group sizes is below the slot's capacity
  (the service's ``max_capacity`` when > 0, else the booking limit). The ``BK`` label uses the
  same limits minute by minute (the allocation holding m).

Internally every instant is an integer number of minutes since the Unix epoch: wall times are
turned into instants once per (zone, date, time) and datetimes are built only for what is
returned.
"""

from __future__ import annotations

import bisect
import functools
import hashlib
import itertools
import operator
from collections.abc import Iterable, Sequence
from datetime import UTC, date, datetime, timedelta, timezone, tzinfo
from typing import Final, NamedTuple

from dateutil.relativedelta import relativedelta

from slotwise._time import (
    MINUTES_PER_DAY,
    WindowEdge,
    clock_text,
    hhmm_to_minutes,
    to_utc,
    wall_to_instant,
    zone,
)
from slotwise.errors import InconsistentFields, OutOfRange
from slotwise.model import (
    Allocation,
    AllocationTarget,
    Appointment,
    AppointmentStatus,
    Block,
    BlockTarget,
    DayWindow,
    Resource,
    RoundRobin,
    Service,
)
from slotwise.rules.intervals import Interval, IntervalSet
from slotwise.rules.repeat import occurrence_dates

from .busy import uses_external_calendar
from .query import AvailabilityQuery
from .results import (
    AvailableTimes,
    Day,
    DayAvailability,
    Reason,
    Slot,
    UnavailableTime,
    UnavailableTimes,
    new_slot,
)
from .snapshot import Snapshot

__all__ = [
    "available_times",
    "bookable_at",
    "day_availability",
    "effective_duration",
    "free_time",
    "slot_step",
    "unavailable_times",
]

Span = tuple[int, int]
"""A half-open interval ``[start, end)`` in minutes since the Unix epoch."""

_EPOCH: Final = datetime(1970, 1, 1, tzinfo=UTC)
_FAR: Final = 2**62

REASON_TEXTS: Final[dict[Reason, str]] = {
    Reason.TIME_PAST: "Time past",
    Reason.BEYOND_BOOK_AHEAD: "Beyond book-ahead",
    Reason.CLOSED: "Location closed",
    Reason.HOLIDAY: "Holiday",
    Reason.OUTSIDE_SERVICE_HOURS: "Outside service hours",
    Reason.OUTSIDE_RESOURCE_HOURS: "Outside resource hours",
    Reason.CALENDAR_BLOCK: "Calendar block",
    Reason.SERVICE_BLOCK: "Service block",
    Reason.RESOURCE_BLOCK: "Resource block",
    Reason.NO_ALLOCATION: "No allocation",
    Reason.FULLY_BOOKED: "Fully booked",
    Reason.DAILY_LIMIT: "Daily limit reached",
    Reason.EXTERNAL_BUSY: "Busy in external calendar",
}
"""The ``reason`` text of each code (blocks use their own reason when they have one)."""

# The order labels are applied in; it also breaks ties when a day's reason is chosen.
_PRECEDENCE: Final = (
    Reason.TIME_PAST,
    Reason.BEYOND_BOOK_AHEAD,
    Reason.HOLIDAY,
    Reason.CLOSED,
    Reason.OUTSIDE_SERVICE_HOURS,
    Reason.NO_ALLOCATION,
    Reason.OUTSIDE_RESOURCE_HOURS,
    Reason.CALENDAR_BLOCK,
    Reason.SERVICE_BLOCK,
    Reason.RESOURCE_BLOCK,
    Reason.EXTERNAL_BUSY,
    Reason.FULLY_BOOKED,
    Reason.DAILY_LIMIT,
)


class _Label(NamedTuple):
    reason: Reason
    text: str
    entity_type: str | None
    entity_id: str | None


# A layer is (keep, spans, label): a "keep" layer labels what lies outside its spans, a "cut"
# layer labels what lies inside them; either way the labelled part leaves the remaining time.
_Layer = tuple[bool, Sequence[Span], _Label]


def _label(reason: Reason, entity_type: str | None = None, entity_id: str | None = None) -> _Label:
    return _Label(reason, REASON_TEXTS[reason], entity_type, entity_id)


_TP: Final = _label(Reason.TIME_PAST)
_BA: Final = _label(Reason.BEYOND_BOOK_AHEAD)

_FULL: Final = 1 << 30
"""The load of an appointment of another service: more than any booking limit (decision 8a)."""
_BK: Final = _label(Reason.FULLY_BOOKED)


# -- public API ------------------------------------------------------------------------------


def effective_duration(service: Service, query: AvailabilityQuery) -> int:
    """
    Return the slot length a query asks for: its ``duration``, else the service's.

    Decision 16: a duration is accepted only for a service with ``duration_select``, between
    ``duration_min`` and ``duration_max`` inclusive, on a ``duration_interval`` step from
    ``duration_min`` (``duration_min`` itself is the step when the service sets no interval,
    since ``duration_max`` must be a multiple of it).

    Raises:
        InconsistentFields: when the service does not let customers choose the duration, or the
            duration is off the step (``field="duration"``).
        OutOfRange: when it lies outside ``[duration_min, duration_max]``.
    """
    requested = query.duration
    if requested is None:
        return service.duration
    if not service.duration_select:
        raise InconsistentFields(
            f"duration may be given only for services with duration_select; service "
            f"{service.id!r} has a fixed duration of {service.duration} minutes",
            field="duration",
        )
    low = service.duration_min or service.duration
    high = service.duration_max or service.duration
    if not low <= requested <= high:
        raise OutOfRange(
            field="duration", allowed=f"between {low} and {high} minutes", requested=requested
        )
    step = service.duration_interval or low
    if (requested - low) % step:
        raise InconsistentFields(
            f"duration must be {low} minutes plus a multiple of {step} minutes "
            f"(duration_interval), got {requested}",
            field="duration",
        )
    return requested


def slot_step(snapshot: Snapshot, query: AvailabilityQuery, duration: int) -> int:
    """
    Return the slot grid step in minutes (decision 6).

    The query's ``interval``, else the service's ``booking_interval``, else the calendar's
    ``interval``, else the duration.
    """
    return (
        query.interval
        or snapshot.service.booking_interval
        or snapshot.calendar.interval
        or duration
    )


def available_times(snapshot: Snapshot, query: AvailabilityQuery, now: datetime) -> AvailableTimes:
    """
    Return the bookable slots of *query* (spec: GET /consumer/v1/availability/{serviceId}/...).

    Slots are sorted by start, then by resource (sort key, then id). With named resources the
    slots are theirs (``resource_ids``: every listed resource must be free at once, decision 13);
    otherwise the round robin (the query's, else the service's) decides (decision 12): ``none``
    lists one slot per free resource and time, ``balanced`` one slot per time with the free
    resource holding the fewest active appointments in the searched dates (ties: sort key, then
    id), ``random`` one slot per time with a free resource picked by a hash of the query and the
    time, so the same query always gives the same answer.

    With ``day_availability`` N, ``available_days`` holds the N days from ``start_date``
    (decision 14); with ``first_day_available`` as well, the slots are those of the first
    available one of those days only (spec rule 3). ``first_available_date`` is the first date
    with a slot among the dates looked at.

    Args:
        snapshot: the records read for the query.
        query: the query.
        now: the current instant (aware), for holds, lead time and book-ahead.

    Raises:
        InconsistentFields, OutOfRange: for a ``duration`` the service does not allow.
        NaiveDatetime: when *now* is naive.
    """
    calc = _Calculator(snapshot, query, now)
    days: tuple[Day, ...] = ()
    if query.day_availability is not None:
        days = tuple(calc.day(day) for day in calc.dates(query.start_date, query.day_availability))
    if query.first_day_available:
        first = next((day.date for day in days if day.available), None)
        times = calc.slots(first, first) if first is not None else []
    else:
        times = calc.slots(query.start_date, query.end_date)
    available_dates = [day.date for day in days if day.available]
    if times:
        available_dates.append(calc.date_of(times[0]))
    named = calc.named_resource
    return AvailableTimes(
        business_name=snapshot.company.name,
        location_id=snapshot.location.id,
        service_id=snapshot.service.id,
        service_name=snapshot.service.name,
        service_description=snapshot.service.description,
        service_duration=snapshot.service.duration,
        start_date=query.start_date,
        end_date=query.end_date,
        resource_id=query.resource_id,
        resource_ids=query.resource_ids,
        resource_name=named.name if named else None,
        resource_description=named.description if named else None,
        calendar_id=snapshot.calendar.id,
        calendar_resource_group_id=query.resource_group_id,
        tz_requested=query.tz_offset,
        first_available_date=min(available_dates, default=None),
        available_days=days,
        available_times=tuple(times),
    )


def bookable_at(
    snapshot: Snapshot, query: AvailabilityQuery, now: datetime, start: datetime
) -> list[tuple[tuple[str, ...], int]]:
    """
    Return the slots of ``query.start_date`` that start at *start*, as the listing has them.

    The booking check's entry point: the same calculator and the same per-date offers as
    :func:`available_times` (named resources, round robin), without building ``Slot`` records
    or the response. Each item is ``(resource_ids, available_capacity)``, in the listing's
    order; a slot is ``duration`` long (the query's, else the service's), so it matches a
    booking of that length starting at *start*. A *start* off the whole minute matches nothing.

    Raises:
        InconsistentFields, OutOfRange: for a ``duration`` the service does not allow.
        NaiveDatetime: when *now* or *start* is naive.
    """
    start = to_utc(start, field="start")
    minute = _floor_minute(start)
    calc = _Calculator(snapshot, query, now)
    if _ceil_minute(start) != minute:
        return []
    return [
        (offer[6], offer[5])
        for offer in calc.day_offers(calc.day_record(query.start_date))
        if offer[0] == minute
    ]


def day_availability(
    snapshot: Snapshot, query: AvailabilityQuery, now: datetime
) -> DayAvailability:
    """
    Return one :class:`Day` per date (spec: GET /consumer/v1/availability/.../days).

    The dates are ``start_date``..``end_date``, or the ``day_availability`` days from
    ``start_date`` when the query gives that. A day is ``available`` when at least one slot is
    bookable, ``closed`` when the location is closed all day (holiday or closed business day,
    reason ``HO`` / ``CL``). An open day without slots takes the reason covering most minutes of
    its business hours over the candidate resources (ties: the label order of this module),
    location-closed time aside; ``None`` without candidates. ``booking_count`` sums the active
    appointments of the service starting that day over the candidates; ``booking_limit`` sums,
    per candidate, its ``daily_booking_limit_count`` when the service sets one, else the booking
    limits of the day's grid slots that fit its open time.

    Raises:
        InconsistentFields, OutOfRange: for a ``duration`` the service does not allow.
    """
    calc = _Calculator(snapshot, query, now)
    count = query.day_availability or (query.end_date - query.start_date).days + 1
    days = tuple(calc.day(day) for day in calc.dates(query.start_date, count))
    named = calc.named_resource
    return DayAvailability(
        service_id=snapshot.service.id,
        service_name=snapshot.service.name,
        service_description=snapshot.service.description,
        resource_id=query.resource_id,
        resource_name=named.name if named else None,
        resource_description=named.description if named else None,
        tz_requested=query.tz_offset,
        first_available_date=next((day.date for day in days if day.available), None),
        available_days=days,
    )


def unavailable_times(
    snapshot: Snapshot, query: AvailabilityQuery, now: datetime
) -> UnavailableTimes:
    """
    Return the non-bookable stretches of each candidate resource (decision 15).

    For each searched date and candidate (the named resources, else every resource that takes
    the service), every labelled minute of the searched window (see the module docstring) is
    returned, merged into contiguous stretches per cause and split at midnight of the output zone,
    so ``date``, ``from_time`` and ``to_time`` (``2400`` for midnight at the end) are wall values
    there. ``skip_time_past_unavailability`` leaves ``TP`` stretches out. Order: by start, then by
    resource.

    Raises:
        InconsistentFields, OutOfRange: for a ``duration`` the service does not allow.
    """
    calc = _Calculator(snapshot, query, now)
    found: list[tuple[int, int, UnavailableTime]] = []
    for day in calc.dates(query.start_date, (query.end_date - query.start_date).days + 1):
        record = calc.day_record(day)
        for res in calc.candidates:
            for start, end, label in calc.labels(record, res):
                if label.reason is Reason.TIME_PAST and query.skip_time_past_unavailability:
                    continue
                found.extend(
                    (minute, res.index, piece)
                    for minute, piece in calc.unavailable_pieces(start, end, label, res.id)
                )
    found.sort(key=lambda item: (item[0], item[1]))
    return UnavailableTimes(unavailable_times=tuple(item[2] for item in found))


def free_time(
    snapshot: Snapshot, query: AvailabilityQuery, now: datetime
) -> dict[str, IntervalSet[datetime]]:
    """
    Return the free (unlabelled) time of each candidate resource over the searched dates.

    Free time and :func:`unavailable_times` (without ``skip_time_past_unavailability``) partition
    each day's searched window: every minute is in exactly one of them. Slots start only in free
    time, though free time too short or off the grid offers none.
    """
    calc = _Calculator(snapshot, query, now)
    spans: dict[str, list[Span]] = {res.id: [] for res in calc.candidates}
    for day in calc.dates(query.start_date, (query.end_date - query.start_date).days + 1):
        record = calc.day_record(day)
        for res in calc.candidates:
            spans[res.id].extend(calc.free(record, res))
    return {
        rid: IntervalSet(Interval(_instant(low), _instant(high)) for low, high in found)
        for rid, found in spans.items()
    }


# -- integer-minute helpers ------------------------------------------------------------------


# Minutes since the epoch from a timedelta's normalised days and seconds: cheaper than
# ``timestamp()`` or ``timedelta // timedelta``, exact, and correct before 1970 too. Subtracting
# ``_EPOCH`` skips the UTC-offset calls when the instant's tzinfo is ``UTC`` itself, as it is
# for every stored record (``as_utc``).


def _floor_minute(instant: datetime) -> int:
    delta = instant - _EPOCH
    return delta.days * MINUTES_PER_DAY + delta.seconds // 60


def _ceil_minute(instant: datetime) -> int:
    delta = instant - _EPOCH
    minute = delta.days * MINUTES_PER_DAY + delta.seconds // 60
    return minute + 1 if delta.seconds % 60 or delta.microseconds else minute


def _instant(minute: int) -> datetime:
    return _EPOCH + timedelta(minutes=minute)


@functools.lru_cache(maxsize=16384)
def _wall(zone_name: str, day: date, minutes: int, edge: WindowEdge) -> int:
    """Return the minute of wall time *minutes* on *day* in the zone (decision 2 edges)."""
    return _floor_minute(wall_to_instant(day, minutes, zone(zone_name), edge=edge))


def _window_spans(zone_name: str, day: date, window: DayWindow) -> list[Span]:
    if window.is_closed:
        return []
    start = _wall(zone_name, day, hhmm_to_minutes(window.start_time), "start")
    end = _wall(zone_name, day, hhmm_to_minutes(window.end_time), "end")
    return [(start, end)] if start < end else []


def _intersect(first: Sequence[Span], second: Sequence[Span]) -> list[Span]:
    found: list[Span] = []
    i = j = 0
    while i < len(first) and j < len(second):
        low = max(first[i][0], second[j][0])
        high = min(first[i][1], second[j][1])
        if low < high:
            found.append((low, high))
        if first[i][1] < second[j][1]:
            i += 1
        else:
            j += 1
    return found


def _subtract(spans: Sequence[Span], cuts: Sequence[Span]) -> list[Span]:
    found: list[Span] = []
    j = 0
    for low, high in spans:
        while j < len(cuts) and cuts[j][1] <= low:
            j += 1
        cursor = low
        k = j
        while k < len(cuts) and cuts[k][0] < high:
            if cuts[k][0] > cursor:
                found.append((cursor, cuts[k][0]))
            cursor = max(cursor, cuts[k][1])
            if cursor >= high:
                break
            k += 1
        if cursor < high:
            found.append((cursor, high))
    return found


def _merge(spans: Iterable[Span]) -> list[Span]:
    found: list[Span] = []
    for low, high in sorted(spans):
        if low >= high:
            continue
        if found and low <= found[-1][1]:
            if high > found[-1][1]:
                found[-1] = (found[-1][0], high)
        else:
            found.append((low, high))
    return found


def _apply(
    remaining: list[Span], layers: Iterable[_Layer], out: list[tuple[int, int, _Label]] | None
) -> list[Span]:
    """Label *remaining* with each layer in turn; return what no layer labelled."""
    for keep, spans, label in layers:
        if not remaining:
            break
        if keep:
            taken = _subtract(remaining, spans) if out is not None else None
            remaining = _intersect(remaining, spans)
        else:
            taken = _intersect(remaining, spans) if out is not None else None
            remaining = _subtract(remaining, spans)
        if out is not None and taken:
            out.extend((low, high, label) for low, high in taken)
    return remaining


_DISPLAY: dict[int, str] = {}
"""Display texts by HHMM, filled as they are first needed (at most 1,440)."""


# -- per-day and per-resource data -------------------------------------------------------------


class _Window(NamedTuple):
    """One occurrence of an allocation on a date, in minutes."""

    start: int
    end: int
    limit: int
    id: str


class _DayRecord:
    """What a searched location date holds, whoever the resource."""

    __slots__ = (
        "business",
        "calendar_blocks",
        "closed",
        "date",
        "end",
        "holiday",
        "search",
        "service_blocks",
        "service_hours",
        "service_windows",
        "start",
    )

    def __init__(self, calc: _Calculator, day: date) -> None:
        snapshot = calc.snapshot
        name = calc.zone_name
        self.date = day
        self.start = _wall(name, day, 0, "start")
        self.end = _wall(name, day, MINUTES_PER_DAY, "end")
        low = calc.search_from
        high = calc.search_to
        search_start = self.start if low == 0 else _wall(name, day, low, "start")
        search_end = self.end if high == MINUTES_PER_DAY else _wall(name, day, high, "end")
        self.search: list[Span] = [(search_start, search_end)] if search_start < search_end else []
        self.holiday = next((h for h in snapshot.location.holidays if h.date == day), None)
        hours = snapshot.location.business_hours.for_date(day)
        self.closed = self.holiday is not None or not hours.is_open
        self.business = _window_spans(name, day, hours.window)
        self.service_hours = _window_spans(name, day, snapshot.service.availability.for_date(day))
        self.service_windows: list[_Window] = calc.service_windows.get(day, [])
        self.calendar_blocks: list[_Layer] = calc.calendar_blocks.get(day, [])
        self.service_blocks: list[_Layer] = calc.service_blocks.get(day, [])


class _Resource:
    """One candidate resource, with its appointments and windows in minutes."""

    __slots__ = (
        "allocations",
        "blocks",
        "busy_ends",
        "busy_starts",
        "daily",
        "daily_ids",
        "id",
        "ids",
        "ignore_business_hours",
        "index",
        "load",
        "own",
        "profile",
        "recurring",
        "resource",
        "segment_counts",
        "segment_ends",
        "segment_groups",
        "segment_starts",
        "segment_weights",
        "zone_name",
    )

    def __init__(self, resource: Resource, index: int) -> None:
        self.resource = resource
        self.id = resource.id
        self.ids = (resource.id,)
        self.index = index
        self.zone_name = resource.timezone
        self.ignore_business_hours = resource.options.ignore_business_hours
        self.recurring = resource.recurring_availability
        self.blocks: dict[date, list[_Layer]] = {}
        self.allocations: dict[date, list[_Window]] = {}
        self.own: list[Appointment] = []
        self.daily: dict[date, tuple[int, int]] | None = None
        self.daily_ids: dict[date, list[str]] = {}
        self.load = 0
        self.profile = 0
        self.segment_starts: list[int] = []
        self.segment_ends: list[int] = []
        self.segment_counts: list[int] = []
        self.segment_groups: list[int] = []
        self.segment_weights: list[int] = []
        self.busy_starts: list[int] = []
        self.busy_ends: list[int] = []

    def set_occupancy(self) -> None:
        """
        Turn the occupations into disjoint constant-load segments.

        ``_Calculator._appointments`` first appends each active appointment's ``[start, end)``,
        group size and weight to ``segment_starts``, ``segment_ends``, ``segment_groups`` and
        ``segment_weights``: 1 for an appointment of the searched service, :data:`_FULL` for
        one of another service, which leaves no room at all (decision 8a).
        """
        starts, ends, groups = self.segment_starts, self.segment_ends, self.segment_groups
        weights = self.segment_weights
        # The common case (one booking at a time, read in start order): each occupation ends
        # before the next starts, so each is its own segment of its own weight (start < end).
        if all(map(operator.le, ends, itertools.islice(starts, 1, None))):
            self.segment_counts = weights
            return
        changes: dict[int, list[int]] = {}
        for start, end, group, weight in zip(starts, ends, groups, weights, strict=True):
            first = changes.setdefault(start, [0, 0])
            first[0] += weight
            first[1] += group
            last = changes.setdefault(end, [0, 0])
            last[0] -= weight
            last[1] -= group
        self.segment_starts, self.segment_ends = [], []
        self.segment_counts, self.segment_groups = [], []
        count = groups_sum = 0
        previous = 0
        for point in sorted(changes):
            if count > 0 and point > previous:
                self.segment_starts.append(previous)
                self.segment_ends.append(point)
                self.segment_counts.append(count)
                self.segment_groups.append(groups_sum)
            count += changes[point][0]
            groups_sum += changes[point][1]
            previous = point

    def set_busy(self, spans: list[Span]) -> None:
        """Keep the merged external busy intervals."""
        for start, end in _merge(spans):
            self.busy_starts.append(start)
            self.busy_ends.append(end)


_Offer = tuple[int, int, int, int, int, int, tuple[str, ...]]
_offer_start: Final = operator.itemgetter(0)
"""A bookable time of one resource (or of all named resources together), as a plain tuple
(cheaper than a named one on the hot path): start minute, the resource's rank among the
candidates, allowable bookings, available bookings, allowable capacity, available capacity,
and the ids of the resource(s). ``(start, rank)`` is unique within a date, so offers sort by
it alone."""


class _Calculator:
    """One query's worth of derived data and caches; built per call, never shared."""

    def __init__(self, snapshot: Snapshot, query: AvailabilityQuery, now: datetime) -> None:
        self.snapshot = snapshot
        self.query = query
        now = to_utc(now, field="now")
        service = snapshot.service
        self.service = service
        self.duration = effective_duration(service, query)
        self.step = slot_step(snapshot, query, self.duration)
        self.padding = service.padding
        self.zone_name = snapshot.location.timezone
        self.search_from = hhmm_to_minutes(query.start_time) if query.start_time is not None else 0
        self.search_to = (
            hhmm_to_minutes(query.end_time) if query.end_time is not None else MINUTES_PER_DAY
        )
        self.default_limit = service.booking_limit or snapshot.calendar.bookings_per_slot
        self.max_capacity = service.max_capacity
        self.is_event = service.is_event
        self.daily_limited = bool(
            service.daily_booking_limit_count or service.daily_booking_limit_minutes
        )
        window = service.booking_window or snapshot.settings.booking_window
        earliest = now + timedelta(minutes=window.book_in_advance_mins)
        if window.book_ahead_unit == "months":
            horizon = now + relativedelta(months=window.book_ahead_value)
        else:
            days = window.book_ahead_value * (7 if window.book_ahead_unit == "weeks" else 1)
            horizon = now + timedelta(days=days)
        # A slot may start at t when earliest <= t <= horizon (decision 11: "starting after" the
        # horizon is refused). A minute is labelled TP when it starts before earliest, and BA
        # when no slot starting by the horizon can hold it: from the latest start + duration on,
        # so the minutes of a slot offered at the horizon are never listed unavailable
        # (decision 15).
        self.earliest = _ceil_minute(earliest)
        self.latest = _floor_minute(horizon)
        self.horizon = self.latest + self.duration
        self.now = now
        self.output = _Output(query, self.zone_name)
        self._profiles: dict[object, int] = {}
        self._profile_days: dict[tuple[int, date], tuple[list[Span], list[int], list[int]]] = {}
        self._day_records: dict[date, _DayRecord] = {}
        self._offers: dict[tuple[int, date], list[_Offer]] = {}
        first, last = query.start_date, query.end_date
        if query.day_availability is not None:
            last = max(last, first + timedelta(days=query.day_availability - 1))
        self.first, self.last = first, last
        self._windows(snapshot)
        self.candidates = self._candidates(snapshot, query)
        self.named = query.named_resources
        by_id = {res.id: res for res in self.candidates}
        self.named_resource: Resource | None = None
        if len(self.named) == 1 and self.named[0] in by_id:
            self.named_resource = by_id[self.named[0]].resource
        # The query's field is typed RoundRobin; a plain code ("none") is accepted too.
        self.round_robin = (
            RoundRobin(query.round_robin) if query.round_robin is not None else service.round_robin
        )
        # The random round robin's seed; repr(query) is worked out only when it is used.
        self._seed: bytes | None = None

    # -- set-up ------------------------------------------------------------------------------

    def _windows(self, snapshot: Snapshot) -> None:
        """Expand the calendar and service blocks and the service allocations into dates."""
        calendar_id, service = snapshot.calendar.id, snapshot.service
        self.calendar_blocks: dict[date, list[_Layer]] = {}
        self.service_blocks: dict[date, list[_Layer]] = {}
        self.service_windows: dict[date, list[_Window]] = {}
        for block in snapshot.blocks:
            if block.deleted or block.location_id != snapshot.location.id:
                continue
            if block.target is BlockTarget.CALENDAR and block.target_id == calendar_id:
                self._place_block(block, Reason.CALENDAR_BLOCK, self.calendar_blocks)
            elif block.target is BlockTarget.SERVICE and block.target_id == service.id:
                self._place_block(block, Reason.SERVICE_BLOCK, self.service_blocks)
        # Service allocations give an event service its time (decision 5) and may set a slot's
        # booking limit (decision 8); kept in creation order, the order limits are looked up in.
        for allocation in snapshot.allocations:
            if (
                allocation.target is AllocationTarget.SERVICE
                and allocation.target_id == service.id
                and allocation.location_id == snapshot.location.id
            ):
                self._place_allocation(allocation, self.service_windows)

    def _place_block(self, block: Block, reason: Reason, into: dict[date, list[_Layer]]) -> None:
        label = _Label(reason, block.reason or REASON_TEXTS[reason], "block", block.id)
        start_minutes = hhmm_to_minutes(block.start_time)
        end_minutes = hhmm_to_minutes(block.end_time)
        for day in occurrence_dates(block, self.first, self.last):
            start = _wall(self.zone_name, day, start_minutes, "start")
            end = _wall(self.zone_name, day, end_minutes, "end")
            if start < end:
                into.setdefault(day, []).append((False, [(start, end)], label))

    def _place_allocation(self, allocation: Allocation, into: dict[date, list[_Window]]) -> None:
        start_minutes = hhmm_to_minutes(allocation.start_time)
        end_minutes = hhmm_to_minutes(allocation.end_time)
        for day in occurrence_dates(allocation, self.first, self.last):
            start = _wall(self.zone_name, day, start_minutes, "start")
            end = _wall(self.zone_name, day, end_minutes, "end")
            if start < end:
                into.setdefault(day, []).append(
                    _Window(start, end, allocation.booking_limit, allocation.id)
                )

    def _candidates(self, snapshot: Snapshot, query: AvailabilityQuery) -> list[_Resource]:
        service, location = snapshot.service, snapshot.location
        usable = [
            resource
            for resource in snapshot.resources
            if resource.takes_service(service.id)
            and resource.location_id == location.id
            and (query.resource_group_id is None or resource.group_id == query.resource_group_id)
        ]
        named = query.named_resources
        if named:
            by_id = {resource.id: resource for resource in usable}
            chosen = [by_id[rid] for rid in named if rid in by_id]
        else:
            chosen = sorted(usable, key=lambda resource: (resource.options.sort_key, resource.id))
        candidates = [_Resource(resource, index) for index, resource in enumerate(chosen)]
        by_id_res = {res.id: res for res in candidates}
        location_id = snapshot.location.id
        for block in snapshot.blocks:
            if (
                block.deleted
                or block.target is not BlockTarget.RESOURCE
                or block.location_id != location_id
            ):
                continue
            res = by_id_res.get(block.target_id)
            if res is not None:
                self._place_block(block, Reason.RESOURCE_BLOCK, res.blocks)
        for allocation in snapshot.allocations:
            if (
                allocation.target is not AllocationTarget.RESOURCE
                or allocation.location_id != location_id
            ):
                continue
            res = by_id_res.get(allocation.target_id)
            if res is not None:
                # Open time only without recurring availability; a booking limit in any case.
                self._place_allocation(allocation, res.allocations)
        self._appointments(snapshot, by_id_res)
        for res in candidates:
            # External busy time counts only for resources with an external calendar.
            busy = snapshot.busy.get(res.id, ()) if uses_external_calendar(res.resource) else ()
            res.set_busy([(_floor_minute(low), _ceil_minute(high)) for low, high in busy])
            if res.blocks or res.allocations or len(candidates) == 1:
                # Nothing to share with (hashing the weekly hours is the costly part of the key).
                key: object = ("own", res.id)
            else:
                key = (
                    res.zone_name,
                    res.resource.weekly_hours,
                    res.ignore_business_hours,
                    res.recurring,
                )
            res.profile = self._profiles.setdefault(key, len(self._profiles))
        return candidates

    def _appointments(self, snapshot: Snapshot, by_id: dict[str, _Resource]) -> None:
        """Record each candidate's occupancy, daily totals and load from active appointments."""
        now = self.now
        service_id = snapshot.service.id
        padding = self.padding
        paddings = snapshot.paddings
        range_start = _wall(self.zone_name, self.query.start_date, 0, "start")
        range_end = _wall(self.zone_name, self.query.end_date, MINUTES_PER_DAY, "end")
        initial = AppointmentStatus.INITIAL
        booked, reserved, no_show = (
            AppointmentStatus.BOOKED,
            AppointmentStatus.RESERVED,
            AppointmentStatus.NO_SHOW,
        )
        get = by_id.get
        epoch = _EPOCH
        for appointment in snapshot.appointments:
            status = appointment.status
            if status is not booked and status is not reserved and status is not no_show:
                # Decision 8: an IN hold counts until it expires; CN and RE never count.
                expires = appointment.hold_expires_at
                if status is not initial or (expires is not None and now >= expires):
                    continue
            resource_ids = appointment.resource_ids
            if len(resource_ids) == 1:
                holder = get(resource_ids[0])
                if holder is None:
                    continue
                holders: Sequence[_Resource] = (holder,)
            else:
                holders = [by_id[rid] for rid in dict.fromkeys(resource_ids) if rid in by_id]
                if not holders:
                    continue
            # Whole minutes: a start is rounded down and an end up, so seconds never free time
            # (_floor_minute and _ceil_minute, inlined: this loop runs once per appointment).
            delta = appointment.start - epoch
            start = delta.days * MINUTES_PER_DAY + delta.seconds // 60
            delta = appointment.end - epoch
            end = delta.days * MINUTES_PER_DAY + delta.seconds // 60
            if delta.seconds % 60 or delta.microseconds:
                end += 1
            own_service = appointment.service_id == service_id
            occupied_end = end + (
                padding if own_service else paddings.get(appointment.service_id, 0)
            )
            group = appointment.group_size
            # Decision 8a: a resource serves one service at a time; an appointment of another
            # service leaves no room whatever the searched service's limit.
            weight = 1 if own_service else _FULL
            in_range = start < range_end and end > range_start
            for res in holders:
                res.segment_starts.append(start)
                res.segment_ends.append(occupied_end)
                res.segment_groups.append(group)
                res.segment_weights.append(weight)
                if in_range:
                    res.load += 1
                if own_service:
                    res.own.append(appointment)
        for res in by_id.values():
            res.set_occupancy()

    def _daily(self, res: _Resource, day: date) -> tuple[int, int]:
        """Return the count and minutes of R's active appointments of the service on *day*."""
        if res.daily is None:
            # Worked out on first use: only daily limits and day availability need it.
            dates = self.dates(self.first, (self.last - self.first).days + 2)
            day_starts = [_wall(self.zone_name, each, 0, "start") for each in dates]
            daily: dict[date, tuple[int, int]] = {}
            for appointment in res.own:
                start = _floor_minute(appointment.start)
                length = appointment.end - appointment.start
                minutes = length.days * MINUTES_PER_DAY + length.seconds // 60
                position = bisect.bisect_right(day_starts, start) - 1
                if 0 <= position < len(dates) - 1:
                    count, total = daily.get(dates[position], (0, 0))
                    daily[dates[position]] = (count + 1, total + minutes)
                    res.daily_ids.setdefault(dates[position], []).append(appointment.id)
            res.daily = daily
        return res.daily.get(day, (0, 0))

    def _padding_of(self, appointment: Appointment) -> int:
        if appointment.service_id == self.service.id:
            return self.padding
        return self.snapshot.paddings.get(appointment.service_id, 0)

    # -- dates -------------------------------------------------------------------------------

    @staticmethod
    def dates(first: date, count: int) -> list[date]:
        """Return *count* consecutive dates from *first*."""
        return [first + timedelta(days=offset) for offset in range(count)]

    def day_record(self, day: date) -> _DayRecord:
        """Return the (cached) data of one location date."""
        record = self._day_records.get(day)
        if record is None:
            record = self._day_records[day] = _DayRecord(self, day)
        return record

    def date_of(self, slot: Slot) -> date:
        """Return the location date a slot belongs to (its start's date in the location zone)."""
        return slot.start.astimezone(zone(self.zone_name)).date()

    # -- open time and the grid ----------------------------------------------------------------

    def _resource_hours(self, record: _DayRecord, res: _Resource) -> list[Span]:
        weekly = res.resource.weekly_hours
        if res.zone_name == self.zone_name:
            return _window_spans(res.zone_name, record.date, weekly.for_date(record.date))
        # The resource's own dates that can overlap this location date (offsets differ by at
        # most 26 hours), each read as wall time in the resource's zone (decision 1).
        spans: list[Span] = []
        for offset in (-2, -1, 0, 1, 2):
            day = record.date + timedelta(days=offset)
            spans.extend(_window_spans(res.zone_name, day, weekly.for_date(day)))
        return _merge(spans)

    def _open_layers(self, record: _DayRecord, res: _Resource) -> list[_Layer]:
        """Return the layers HO..RB of decision 15, in label order."""
        location = self.snapshot.location
        layers: list[_Layer] = []
        if record.holiday is not None:
            text = record.holiday.name or REASON_TEXTS[Reason.HOLIDAY]
            label = _Label(Reason.HOLIDAY, text, "location", location.id)
            layers.append((False, [(record.start, record.end)], label))
        if not res.ignore_business_hours:
            layers.append((True, record.business, _label(Reason.CLOSED, "location", location.id)))
        layers.append(
            (
                True,
                record.service_hours,
                _label(Reason.OUTSIDE_SERVICE_HOURS, "service", self.service.id),
            )
        )
        if self.is_event:
            spans = _merge((window.start, window.end) for window in record.service_windows)
            layers.append((True, spans, _label(Reason.NO_ALLOCATION, "service", self.service.id)))
        if res.recurring:
            layers.append(
                (
                    True,
                    self._resource_hours(record, res),
                    _label(Reason.OUTSIDE_RESOURCE_HOURS, "resource", res.id),
                )
            )
        else:
            windows = res.allocations.get(record.date, ())
            spans = _merge((window.start, window.end) for window in windows)
            layers.append((True, spans, _label(Reason.NO_ALLOCATION, "resource", res.id)))
        layers.extend(record.calendar_blocks)
        layers.extend(record.service_blocks)
        layers.extend(res.blocks.get(record.date, ()))
        return layers

    def _grid_windows(self, record: _DayRecord, res: _Resource) -> list[Span]:
        """Return the windows whose starts anchor the slot grid (decision 6)."""
        if self.is_event or not res.recurring:
            windows: list[_Window] = []
            if self.is_event:
                windows += record.service_windows
            if not res.recurring:
                windows += res.allocations.get(record.date, ())
            return [(window.start, window.end) for window in windows]
        if res.ignore_business_hours:
            return record.service_hours
        return _intersect(record.business, record.service_hours)

    def _allowable(self, record: _DayRecord, res: _Resource, start: int) -> int:
        """Return the booking limit of the slot at *start* (decision 8)."""
        end = start + self.duration
        for window in record.service_windows:
            if window.limit and window.start <= start and end <= window.end:
                return window.limit
        for window in res.allocations.get(record.date, ()):
            if window.limit and window.start <= start and end <= window.end:
                return window.limit
        return self.default_limit

    def _profile_day(
        self, record: _DayRecord, res: _Resource
    ) -> tuple[list[Span], list[int], list[int]]:
        """
        Return R's open time on the date and the grid starts that fit it, with their limits.

        Resources with the same zone, weekly hours and flags and no windows of their own share
        the result, so a day is worked out once per kind of resource, not once per resource.
        """
        key = (res.profile, record.date)
        cached = self._profile_days.get(key)
        if cached is not None:
            return cached
        open_spans = _apply(list(record.search), self._open_layers(record, res), None)
        starts: list[int] = []
        if open_spans:
            duration, step = self.duration, self.step
            windows = self._grid_windows(record, res)
            for anchor, window_end in windows:
                for low, high in open_spans:
                    if high <= anchor or low >= window_end:
                        continue
                    first = max(anchor, low)
                    start = anchor + -((anchor - first) // step) * step
                    last = min(window_end - 1, high - duration)
                    while start <= last:
                        starts.append(start)
                        start += step
            if len(windows) > 1:
                starts = sorted(set(starts))
        limits = [self._allowable(record, res, start) for start in starts]
        cached = self._profile_days[key] = (open_spans, starts, limits)
        return cached

    def _capped(self, record: _DayRecord, res: _Resource) -> bool:
        """Tell whether R's daily limit for the service is reached on the date (decision 10)."""
        service = self.service
        if not service.daily_booking_limit_count and not service.daily_booking_limit_minutes:
            return False
        totals = self._daily(res, record.date)
        count_limit = service.daily_booking_limit_count
        minutes_limit = service.daily_booking_limit_minutes
        if count_limit and totals[0] >= count_limit:
            return True
        return bool(minutes_limit) and totals[1] + self.duration > minutes_limit

    # -- offers ------------------------------------------------------------------------------

    def offers(self, record: _DayRecord, res: _Resource) -> list[_Offer]:
        """Return R's bookable times on the date, ascending."""
        key = (res.index, record.date)
        cached = self._offers.get(key)
        if cached is not None:
            return cached
        found: list[_Offer] = []
        self._offers[key] = found
        if not record.search or (self.daily_limited and self._capped(record, res)):
            return found
        _, starts, limits = self._profile_day(record, res)
        if not starts:
            return found
        low = bisect.bisect_left(starts, self.earliest)
        high = bisect.bisect_right(starts, self.latest)
        if low >= high:
            return found
        reach = self.duration + self.padding
        seg_starts, seg_ends = res.segment_starts, res.segment_ends
        seg_counts, seg_groups = res.segment_counts, res.segment_groups
        segments = len(seg_starts)
        busy_starts, busy_ends = res.busy_starts, res.busy_ends
        busies = len(busy_starts)
        max_capacity = self.max_capacity
        index, ids = res.index, res.ids
        append = found.append
        far = _FAR
        # j: the first segment that ends after the start (b: the same for busy intervals).
        # Without busy time, a start is clear when segment j begins at or after start + reach
        # (start <= clear_until); j moves on only when the start reaches its end (move_at),
        # so most starts cost two comparisons.
        j = bisect.bisect_right(seg_ends, starts[low]) if segments else 0
        b = bisect.bisect_right(busy_ends, starts[low]) if busies else 0
        if busies:
            move_at, clear_until = far, -far  # every start takes the full check
        elif segments:
            move_at = clear_until = -far  # found on the first start
        else:
            move_at = clear_until = far  # nothing is booked: every start is clear
        for position in range(low, high):
            start = starts[position]
            allowable = limits[position]
            if start >= move_at:
                while j < segments and seg_ends[j] <= start:
                    j += 1
                if j < segments:
                    move_at, clear_until = seg_ends[j], seg_starts[j] - reach
                else:
                    move_at = clear_until = far
            if start <= clear_until:
                capacity = max_capacity or allowable
                append((start, index, allowable, allowable, capacity, capacity, ids))
                continue
            end = start + reach
            if busies:
                while b < busies and busy_ends[b] <= start:
                    b += 1
                if b < busies and busy_starts[b] < end:
                    continue
            peak_count = peak_groups = 0
            if segments:
                while j < segments and seg_ends[j] <= start:
                    j += 1
                k = j
                while k < segments and seg_starts[k] < end:
                    if seg_counts[k] > peak_count:
                        peak_count = seg_counts[k]
                    if seg_groups[k] > peak_groups:
                        peak_groups = seg_groups[k]
                    k += 1
            available = allowable - peak_count
            if available < 1:
                continue
            capacity = max_capacity or allowable
            if capacity - peak_groups < 1:
                continue
            append((start, index, allowable, available, capacity, capacity - peak_groups, ids))
        return found

    def day_offers(self, record: _DayRecord) -> list[_Offer]:
        """Return the date's bookable times after the named-resource or round-robin rule."""
        candidates = self.candidates
        if len(self.named) > 1:
            if len(candidates) < len(self.named):
                return []  # a named resource cannot be booked for the service: none is free
            return self._together(record)
        if len(candidates) == 1:
            return self.offers(record, candidates[0])
        if self.named or self.round_robin is RoundRobin.NONE:
            found: list[_Offer] = []
            for res in candidates:
                found += self.offers(record, res)
            # Each resource's offers ascend and the resources come in rank order, so a stable
            # sort on the start alone orders by (start, rank), with integer keys only.
            found.sort(key=_offer_start)
            return found
        by_start: dict[int, list[_Offer]] = {}
        for res in candidates:
            for offer in self.offers(record, res):
                by_start.setdefault(offer[0], []).append(offer)
        chosen: list[_Offer] = []
        for start in sorted(by_start):
            free = by_start[start]  # in candidate order: sort key, then id
            if self.round_robin is RoundRobin.BALANCED:
                pick = min(free, key=lambda offer: (candidates[offer[1]].load, offer[1]))
            else:
                digest = hashlib.blake2b(
                    self._random_seed() + start.to_bytes(8, "big", signed=True), digest_size=8
                ).digest()
                pick = free[int.from_bytes(digest, "big") % len(free)]
            chosen.append(pick)
        return chosen

    def _random_seed(self) -> bytes:
        """Return the seed of the random round robin: a digest of the query (worked out once)."""
        if self._seed is None:
            self._seed = hashlib.blake2b(repr(self.query).encode(), digest_size=16).digest()
        return self._seed

    def _together(self, record: _DayRecord) -> list[_Offer]:
        """Return the times when every named resource is free, with the tightest figures."""
        ids = tuple(res.id for res in self.candidates)
        tables = [
            {offer[0]: offer for offer in self.offers(record, res)} for res in self.candidates
        ]
        found: list[_Offer] = []
        for start, offer in tables[0].items():
            others = [table.get(start) for table in tables[1:]]
            if any(other is None for other in others):
                continue
            group = [offer, *(other for other in others if other is not None)]
            found.append(
                (
                    start,
                    0,
                    min(item[2] for item in group),
                    min(item[3] for item in group),
                    min(item[4] for item in group),
                    min(item[5] for item in group),
                    ids,
                )
            )
        return found

    def slots(self, first: date, last: date) -> list[Slot]:
        """Return the slots of the dates ``first..last``, sorted by start then resource."""
        slots: list[Slot] = []
        append = slots.append
        duration = self.duration
        output = self.output
        known = output.slot_cache
        for day in self.dates(first, (last - first).days + 1):
            for start, _, allowable, available, capacity, free, ids in self.day_offers(
                self.day_record(day)
            ):
                times = known.get(start)
                if times is None:
                    times = output.slot_times(start, duration)
                append(
                    new_slot(
                        times[0],
                        times[1],
                        times[2],
                        times[3],
                        times[4],
                        duration,
                        allowable,
                        available,
                        capacity,
                        free,
                        ids[0],
                        ids,
                    )
                )
        return slots

    # -- labels ------------------------------------------------------------------------------

    def _full_spans(self, record: _DayRecord, res: _Resource) -> list[Span]:
        """Return where R is fully booked on the date: load at or above the limit (BK)."""
        if not res.segment_starts or not record.search:
            return []
        low, high = record.search[0]
        limited = [window for window in record.service_windows if window.limit]
        limited += [window for window in res.allocations.get(record.date, ()) if window.limit]
        found: list[Span] = []
        first = bisect.bisect_right(res.segment_ends, low)
        for k in range(first, len(res.segment_starts)):
            seg_start, seg_end = res.segment_starts[k], res.segment_ends[k]
            if seg_start >= high:
                break
            count, groups = res.segment_counts[k], res.segment_groups[k]
            points = sorted(
                {seg_start, seg_end}
                | {edge for w in limited for edge in (w.start, w.end) if seg_start < edge < seg_end}
            )
            for piece_start, piece_end in itertools.pairwise(points):
                limit = next(
                    (w.limit for w in limited if w.start <= piece_start < w.end),
                    self.default_limit,
                )
                if count >= limit or groups >= (self.max_capacity or limit):
                    found.append((piece_start, piece_end))
        return _merge(found)

    def _all_layers(self, record: _DayRecord, res: _Resource) -> list[_Layer]:
        layers: list[_Layer] = [
            (False, [(-_FAR, self.earliest)], _TP),
            (False, [(self.horizon, _FAR)], _BA),
        ]
        layers += self._open_layers(record, res)
        busy = list(zip(res.busy_starts, res.busy_ends, strict=True))
        if busy:
            layers.append((False, busy, _label(Reason.EXTERNAL_BUSY, "resource", res.id)))
        layers.append((False, self._full_spans(record, res), _BK))
        if self._capped(record, res):
            label = _label(Reason.DAILY_LIMIT, "service", self.service.id)
            layers.append((False, [(-_FAR, _FAR)], label))
        return layers

    def labels(self, record: _DayRecord, res: _Resource) -> list[tuple[int, int, _Label]]:
        """Return R's labelled stretches on the date, sorted, merged per cause."""
        found: list[tuple[int, int, _Label]] = []
        _apply(list(record.search), self._all_layers(record, res), found)
        found.sort(key=lambda item: item[0])
        merged: list[tuple[int, int, _Label]] = []
        for start, end, label in found:
            if merged and merged[-1][1] == start and merged[-1][2] == label:
                merged[-1] = (merged[-1][0], end, label)
            else:
                merged.append((start, end, label))
        return merged

    def free(self, record: _DayRecord, res: _Resource) -> list[Span]:
        """Return R's free (unlabelled) time on the date."""
        return _apply(list(record.search), self._all_layers(record, res), None)

    def unavailable_pieces(
        self, start: int, end: int, label: _Label, resource_id: str
    ) -> list[tuple[int, UnavailableTime]]:
        """Return one stretch as unavailable times (with their start minutes), split at midnight."""
        pieces: list[tuple[int, UnavailableTime]] = []
        output = self.output
        while start < end:
            begin, wall_date, from_time, _ = output.wall(start)
            midnight = output.next_midnight(start)
            cut = min(end, midnight)
            to_time = 2400 if cut == midnight else output.wall(cut)[2]
            pieces.append(
                (
                    start,
                    UnavailableTime(
                        date=wall_date,
                        from_time=from_time,
                        to_time=to_time,
                        start=begin,
                        end=output.instant(cut),
                        reason=label.text,
                        reason_code=label.reason,
                        entity_type=label.entity_type,
                        entity_id=label.entity_id,
                        resource_id=resource_id,
                    ),
                )
            )
            start = cut
        return pieces

    # -- days --------------------------------------------------------------------------------

    def day(self, day: date) -> Day:
        """Return the day-availability element of one date (decision 14)."""
        record = self.day_record(day)
        available = bool(self.day_offers(record))
        # Decision 8a: appointment records, so a booking of several candidates counts once.
        booked: set[str] = set()
        for res in self.candidates:
            self._daily(res, day)
            booked.update(res.daily_ids.get(day, ()))
        count = len(booked)
        limit = 0
        for res in self.candidates:
            if self.service.daily_booking_limit_count:
                limit += self.service.daily_booking_limit_count
            elif record.search:
                limit += sum(self._profile_day(record, res)[2])
        reason: str | None = None
        code: Reason | None = None
        # Decision 41: a day is closed only when no candidate has open time on it (a resource
        # that ignores business hours opens a closed business day).
        closed = record.closed and not (
            available or any(self._opens(record, res) for res in self.candidates)
        )
        if record.holiday is not None and closed:
            code, reason = Reason.HOLIDAY, record.holiday.name or REASON_TEXTS[Reason.HOLIDAY]
        elif closed:
            code, reason = Reason.CLOSED, REASON_TEXTS[Reason.CLOSED]
        elif not available:
            code, reason = self._main_reason(record)
        return Day(
            date=day,
            available=available,
            closed=closed,
            reason=reason,
            reason_code=code,
            booking_count=count,
            booking_limit=limit,
        )

    def _opens(self, record: _DayRecord, res: _Resource) -> bool:
        """Tell whether R has open time on the date (decision 5), booked or not."""
        return bool(record.search) and bool(self._profile_day(record, res)[0])

    def _main_reason(self, record: _DayRecord) -> tuple[Reason | None, str | None]:
        """Return the cause covering most of an open day's business hours without slots."""
        minutes: dict[Reason, int] = {}
        texts: dict[Reason, tuple[int, str]] = {}
        for res in self.candidates:
            for start, end, label in self.labels(record, res):
                if label.reason is Reason.CLOSED:
                    continue
                for low, high in _intersect([(start, end)], record.business):
                    minutes[label.reason] = minutes.get(label.reason, 0) + high - low
                    if high - low > texts.get(label.reason, (0, ""))[0]:
                        texts[label.reason] = (high - low, label.text)
        if not minutes:
            return None, None
        best = max(_PRECEDENCE, key=lambda code: (minutes.get(code, 0), -_PRECEDENCE.index(code)))
        return best, texts[best][1]


class _Output:
    """Turns minutes into datetimes and wall values of the requested output zone (decision 3)."""

    def __init__(self, query: AvailabilityQuery, location_zone: str) -> None:
        self.offset: int | None = query.tz_offset
        self.zone_name = query.timezone_name or location_zone
        self.tz: tzinfo = (
            timezone(timedelta(minutes=query.tz_offset))
            if query.tz_offset is not None
            else zone(self.zone_name)
        )
        self._walls: dict[int, tuple[datetime, date, int, str]] = {}
        self._instants: dict[int, datetime] = {}
        self.slot_cache: dict[int, tuple[datetime, datetime, date, int, str]] = {}

    def instant(self, minute: int) -> datetime:
        """Return the datetime of *minute* in the output zone."""
        found = self._instants.get(minute)
        if found is None:
            found = self._instants[minute] = datetime.fromtimestamp(minute * 60, self.tz)
        return found

    def wall(self, minute: int) -> tuple[datetime, date, int, str]:
        """Return ``(datetime, date, HHMM, display text)`` of *minute* in the output zone."""
        found = self._walls.get(minute)
        if found is None:
            moment = self.instant(minute)
            found = self._walls[minute] = (
                moment,
                moment.date(),
                moment.hour * 100 + moment.minute,
                clock_text(moment.hour, moment.minute),
            )
        return found

    def slot_times(self, minute: int, duration: int) -> tuple[datetime, datetime, date, int, str]:
        """Return ``(start, end, date, HHMM, display text)`` of a slot starting at *minute*."""
        found = self.slot_cache.get(minute)
        if found is None:
            moment = self.instant(minute)
            hhmm = moment.hour * 100 + moment.minute
            display = _DISPLAY.get(hhmm)
            if display is None:
                display = _DISPLAY[hhmm] = clock_text(moment.hour, moment.minute)
            found = self.slot_cache[minute] = (
                moment,
                self.instant(minute + duration),
                moment.date(),
                hhmm,
                display,
            )
        return found

    def next_midnight(self, minute: int) -> int:
        """Return the first midnight of the output zone after *minute*."""
        if self.offset is not None:
            return ((minute + self.offset) // MINUTES_PER_DAY + 1) * MINUTES_PER_DAY - self.offset
        next_day = self.wall(minute)[1] + timedelta(days=1)
        return _wall(self.zone_name, next_day, 0, "start")
