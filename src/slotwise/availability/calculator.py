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

from datetime import datetime

from slotwise._time import (
    MINUTES_PER_DAY,
    to_utc,
)
from slotwise.rules.intervals import Interval, IntervalSet

from ._collector import collector_paused
from ._minutes import (
    Span,
    _floor_minute,
    _instant,
    _wall,
)
from ._setup import effective_duration, slot_step
from .days import _Days
from .grid import title_text
from .holders import padding_pieces
from .query import AvailabilityQuery
from .results import (
    AvailableTimes,
    Day,
    DayAvailability,
    Reason,
    UnavailableTime,
    UnavailableTimes,
)
from .slots import Slots
from .snapshot import Snapshot

__all__ = [
    "available_times",
    "bookable_at",
    "day_availability",
    "effective_duration",
    "free_time",
    "names_of",
    "slot_step",
    "unavailable_times",
]


@collector_paused()
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
        times = calc.slots(first, first) if first is not None else Slots()
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
        available_times=times,
        names=names_of(calc),
        zone_name=str(calc.output.tz),
        resources=tuple(res.id for res in calc.candidates),
    )


def names_of(calc: _Calculator) -> dict[str, str]:
    """Return the names of the query's candidate resources, its service and its location."""
    snapshot = calc.snapshot
    names = {res.id: res.resource.name for res in calc.candidates}
    names[snapshot.service.id] = snapshot.service.name
    names[snapshot.location.id] = snapshot.location.name
    return names


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
    if start.second or start.microsecond:  # (in UTC: off the whole minute)
        return []
    calc.at = minute
    return [
        (offer[6], offer[5])
        for offer in calc.day_offers(calc.day_record(query.start_date))
        if offer[0] == minute
    ]


@collector_paused()
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


@collector_paused()
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
    padding: list[tuple[int, int, UnavailableTime]] = []
    padded = bool(calc.padding or snapshot.paddings)
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
                if padded and label.reason is Reason.FULLY_BOOKED:
                    padding.extend(
                        (minute, res.index, piece)
                        for minute, piece in padding_pieces(calc, res, start, end)
                    )
    found.sort(key=lambda item: (item[0], item[1]))
    padding.sort(key=lambda item: (item[0], item[1]))
    names = names_of(calc)
    return UnavailableTimes(
        unavailable_times=tuple(item[2] for item in found),
        names=names,
        zone_name=str(calc.output.tz),
        resources=tuple(res.id for res in calc.candidates),
        padding=tuple(item[2] for item in padding),
        searched=(
            calc.output.instant(_wall(calc.zone_name, query.start_date, 0, "start")),
            calc.output.instant(_wall(calc.zone_name, query.end_date, MINUTES_PER_DAY, "end")),
        ),
        title=title_text(
            snapshot.service.name,
            snapshot.location.name,
            query.start_date,
            query.end_date,
            str(calc.output.tz),
        ),
    )


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


class _Calculator(_Days):
    """One query's calculator: set-up, open time, offers, labels and days, composed."""
