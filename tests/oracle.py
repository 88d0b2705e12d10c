"""
A slow, obviously correct availability oracle (STYLE rule 32), written from decisions 2, 5-11 and 15-18.

It shares no code with ``slotwise.availability`` or ``slotwise.rules``: it works on integer UTC
minutes (minutes since 1970-01-01T00:00Z), turns every minute into the wall time of a zone with
``zoneinfo`` (tzdata, loaded through ``slotwise._time.zone`` so both sides read the same rules),
checks repeat rules date by date, and answers every rule with plain loops and sets of minutes. It
is meant to be read beside ``../shared/spec/decisions.md``; each step cites its decision. Speed
does not matter much; keep the searched ranges to a few days.

How a wall-time window becomes minutes (decision 2)
---------------------------------------------------
A minute ``u`` lies inside the wall window ``[start, end)`` when

* the wall clock has already shown a time at or after ``start`` (at ``u`` or before it), and
* the wall clock will still show a time before ``end`` (at ``u`` or after it).

Away from DST changes this is simply ``start <= wall(u) < end``. Inside a **gap** it puts a boundary
on the first minute after the gap. Inside a **fold** it makes a window that starts in the repeated
hour start at its first pass (the earlier instant) and one that ends in it end after its second
pass (the later instant): decision 2 word for word. (A plain ``start <= wall(u) < end`` test would
drop part of the repeated hour from such windows.)

Choices the decisions leave open (``POLICY`` in the code), taken as the calculator documents them
in ``slotwise.availability.calculator`` where it does, so that the comparison tests them:

* business hours, service hours, holidays, blocks and allocations are wall times of the location's
  dates; a resource's weekly hours are wall times of the resource's own dates in its own zone
  (decision 1); a slot must lie inside the open time of its own location date (decision 5 "on a
  date"), so no slot runs past that date's midnight;
* a resource with ``ignore_business_hours`` skips business hours for its open time and for its grid
  anchor (its grid starts at the day's service window);
* the grid (decision 6) starts at each service allocation of an event service, else at each
  allocation of a resource without recurring availability, else at the start of the day's
  business ∩ service window;
* the booking limit of a slot (decision 8) is that of the first allocation holding the whole slot
  ``[t, t + duration)`` and setting one, the service's allocations before the resource's, each in
  creation order;
* the peaks of bookings and of people are taken over the padded candidate ``[t, t + duration +
  padding)`` against appointments occupying ``[start, end + padding)`` (decisions 7 to 9);
* the daily limits (decision 10) count the resource's active appointments of the service starting on
  the location date; a day is capped when the count has reached its limit, or when the booked
  minutes plus one more slot would pass the minutes limit;
* book-ahead spans (decision 11) are absolute: ``now`` + N times 24 hours (or weeks); months by calendar
  arithmetic on the UTC instant; a slot starting exactly at the horizon is offered;
* a minute with several causes (decision 15) reports the first in :data:`REASON_ORDER`.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Sequence
from collections.abc import Set as AbstractSet
from datetime import UTC, date, datetime, timedelta

import attrs
from dateutil.relativedelta import relativedelta

from slotwise._time import zone
from slotwise.availability.query import AvailabilityQuery
from slotwise.availability.results import Reason
from slotwise.model import (
    Allocation,
    AllocationTarget,
    Appointment,
    AppointmentStatus,
    Block,
    BlockTarget,
    BookingWindow,
    Calendar,
    Company,
    DayWindow,
    Frequency,
    Location,
    MonthType,
    Record,
    RepeatRule,
    Resource,
    RoundRobin,
    Service,
    ServiceType,
)

__all__ = [
    "REASON_ORDER",
    "Business",
    "OracleSlot",
    "WallClock",
    "candidate_ids",
    "occurs_on",
    "oracle_reasons",
    "oracle_slots",
    "searched_minutes",
]

EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
EPOCH_ORDINAL = date(1970, 1, 1).toordinal()
MINUTES_PER_DAY = 1440

# Decision 15's codes. A minute with several causes reports the first that applies; decision 15
# lists the codes without settling an order, so this is the order the calculator documents
# (slotwise.availability.calculator module docstring).
REASON_ORDER = (
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
    Reason.FULLY_BOOKED,
    Reason.DAILY_LIMIT,
)


# --- minutes and wall times --------------------------------------------------------------------


def minute_of(instant: datetime) -> int:
    """Return the UTC minute holding *instant* (minutes since 1970-01-01T00:00Z)."""
    return int((instant - EPOCH).total_seconds() // 60)


def instant_of(minute: int) -> datetime:
    """Return the aware UTC instant where *minute* starts."""
    return EPOCH + timedelta(minutes=minute)


def wall_minute(day: date, hhmm: int) -> int:
    """Return wall time *hhmm* (``2400`` = next midnight) of *day* as minutes since 1970-01-01 (naive)."""
    return (day.toordinal() - EPOCH_ORDINAL) * MINUTES_PER_DAY + (hhmm // 100) * 60 + hhmm % 100


def days(first: date, last: date) -> list[date]:
    """Return every date from *first* to *last* inclusive."""
    return [first + timedelta(days=n) for n in range((last - first).days + 1)]


class WallClock:
    """
    What the wall clock of one zone shows at every UTC minute of ``[first, last)``.

    ``shown_by[u]`` is the latest wall time shown at or before minute ``u``; ``still_to_show[u]`` is
    the earliest wall time shown at or after it (see the module docstring, decision 2).
    """

    def __init__(self, zone_name: str, first: int, last: int) -> None:
        tz = zone(zone_name)
        self._windows: dict[tuple[date, int, int], frozenset[int]] = {}
        self.first = first
        self.last = last
        self.wall: list[int] = []
        for minute in range(first, last):
            offset = instant_of(minute).astimezone(tz).utcoffset()
            assert offset is not None
            self.wall.append(minute + int(offset.total_seconds()) // 60)
        self.shown_by: list[int] = []
        latest = self.wall[0]
        for wall in self.wall:
            latest = max(latest, wall)
            self.shown_by.append(latest)
        self.still_to_show: list[int] = [0] * len(self.wall)
        earliest = self.wall[-1]
        for index in range(len(self.wall) - 1, -1, -1):
            earliest = min(earliest, self.wall[index])
            self.still_to_show[index] = earliest

    def minutes(self) -> range:
        """Return every minute this clock knows."""
        return range(self.first, self.last)

    def date_at(self, minute: int) -> date:
        """Return the wall date at *minute*."""
        return date.fromordinal(EPOCH_ORDINAL + self.wall[minute - self.first] // MINUTES_PER_DAY)

    def inside(self, minute: int, wall_start: int, wall_end: int) -> bool:
        """Tell whether *minute* lies inside the wall window ``[wall_start, wall_end)`` (decision 2)."""
        index = minute - self.first
        return self.shown_by[index] >= wall_start and self.still_to_show[index] < wall_end

    def window(self, day: date, start_hhmm: int, end_hhmm: int) -> frozenset[int]:
        """Return the minutes of wall window ``[start_hhmm, end_hhmm)`` on *day* (remembered)."""
        key = (day, start_hhmm, end_hhmm)
        if key not in self._windows:
            low, high = wall_minute(day, start_hhmm), wall_minute(day, end_hhmm)
            self._windows[key] = self.span(low, high)
        return self._windows[key]

    def span(self, wall_start: int, wall_end: int) -> frozenset[int]:
        """Return the minutes inside the wall window ``[wall_start, wall_end)``: :meth:`inside`, inlined."""
        return frozenset(
            minute
            for minute, shown_by, still_to_show in zip(
                self.minutes(), self.shown_by, self.still_to_show, strict=True
            )
            if shown_by >= wall_start and still_to_show < wall_end
        )

    def whole_days(self, first: date, last: date) -> frozenset[int]:
        """Return the minutes of the dates *first* .. *last* (midnight to midnight)."""
        return self.span(wall_minute(first, 0), wall_minute(last + timedelta(days=1), 0))


@functools.lru_cache(maxsize=64)
def wall_clock(zone_name: str, first: int, last: int) -> WallClock:
    """Return the (shared, never changed) wall clock of *zone_name* over ``[first, last)``."""
    return WallClock(zone_name, first, last)


# --- repeat rules (decisions 17 and 18), checked date by date -----------------------------------


def weekday_digit(day: date) -> int:
    """Return the spec's weekday digit of *day* (0 = Sunday .. 6 = Saturday)."""
    return (day.weekday() + 1) % 7


def rule_selects(rule: RepeatRule, start: date, day: date) -> bool:
    """Tell whether *rule*, starting on *start*, selects *day* (on or after *start*)."""
    step = rule.interval
    if rule.frequency is Frequency.DAILY:
        # Every `interval` days from the start date.
        return (day - start).days % step == 0
    if rule.frequency is Frequency.WEEKLY:
        # Every `interval` weeks on the weekday digits; weeks run Sunday to Saturday and the week
        # holding the start date is week 0.
        start_sunday = start - timedelta(days=weekday_digit(start))
        day_sunday = day - timedelta(days=weekday_digit(day))
        week = (day_sunday - start_sunday).days // 7
        return weekday_digit(day) in rule.weekdays and week % step == 0
    if rule.frequency is Frequency.MONTHLY:
        months = (day.year - start.year) * 12 + (day.month - start.month)
        if months % step != 0:
            return False
        if rule.month_type is MonthType.DAY:
            # A month without that day is skipped (RFC 5545).
            wanted = start.day if rule.month_day is None else rule.month_day
            return day.day == wanted
        if rule.month_day is None:
            weekday, week = weekday_digit(start), (start.day - 1) // 7 + 1
        else:
            weekday, week = divmod(rule.month_day, 10)
        if weekday_digit(day) != weekday:
            return False
        if week == 5:
            # Week 5 means the last such weekday of the month.
            return (day + timedelta(days=7)).month != day.month
        return (day.day - 1) // 7 + 1 == week
    # Yearly: the start date's month and day, every `interval` years (Feb 29: leap years only).
    return (day.month, day.day) == (start.month, start.day) and (day.year - start.year) % step == 0


def occurs_on(window: Block | Allocation, day: date) -> bool:
    """Tell whether a block or allocation applies on *day* (decision 18: dates inclusive)."""
    if not window.start_date <= day <= window.end_date:
        return False
    if window.repeat is None:
        # Without a rule a window applies on every date of its range.
        return True
    return rule_selects(window.repeat, window.start_date, day)


# --- the business ----------------------------------------------------------------------------


@attrs.frozen(kw_only=True)
class Business:
    """
    Every record one availability query reads: one location, its calendar, the searched service.

    ``other_services`` are services of some of the appointments (their padding matters, decision 7).
    """

    company: Company
    location: Location
    calendar: Calendar
    service: Service
    resources: tuple[Resource, ...]
    blocks: tuple[Block, ...] = ()
    allocations: tuple[Allocation, ...] = ()
    appointments: tuple[Appointment, ...] = ()
    other_services: tuple[Service, ...] = ()

    def records(self) -> list[Record]:
        """Return every record, parents first, for inserting into a store."""
        return [
            self.company,
            self.location,
            self.calendar,
            self.service,
            *self.other_services,
            *self.resources,
            *self.blocks,
            *self.allocations,
            *self.appointments,
        ]


@attrs.frozen(kw_only=True, order=True)
class OracleSlot:
    """One offered slot: its UTC start, resource and booking figures (decisions 8 and 9)."""

    start: datetime
    resource_id: str
    allowable_bookings: int
    available_bookings: int
    allowable_capacity: int
    available_capacity: int


def is_active(appointment: Appointment, now: datetime) -> bool:
    """Decision 8: BK, RS and NS count; IN counts until its hold expires; CN and RE never do."""
    status = appointment.status
    if status in (AppointmentStatus.BOOKED, AppointmentStatus.RESERVED, AppointmentStatus.NO_SHOW):
        return True
    if status is AppointmentStatus.INITIAL:
        return appointment.hold_expires_at is None or now < appointment.hold_expires_at
    return False


def takes_service(resource: Resource, service: Service) -> bool:
    """Decision 13: deleted resources take nothing; no linked services means every service."""
    if resource.deleted:
        return False
    return not resource.linked_service_ids or service.id in resource.linked_service_ids


def booking_window(business: Business) -> BookingWindow:
    """Decision 11: the service's booking window overrides the location's."""
    if business.service.booking_window is not None:
        return business.service.booking_window
    return business.location.settings.booking_window


def book_ahead_end(window: BookingWindow, now: datetime) -> datetime:
    """Return now + the book-ahead span (POLICY: absolute days and weeks; months in UTC)."""
    now = now.astimezone(UTC)  # UTC arithmetic is elapsed time; a zone's would be wall time
    value = window.book_ahead_value
    if window.book_ahead_unit == "days":
        return now + timedelta(days=value)
    if window.book_ahead_unit == "weeks":
        return now + timedelta(weeks=value)
    return now + relativedelta(months=value)


def slot_step(business: Business, query: AvailabilityQuery) -> int:
    """Decision 6: the query's interval, else the service's, else the calendar's, else the duration."""
    for step in (query.interval, business.service.booking_interval, business.calendar.interval):
        if step:
            return step
    return business.service.duration


def booking_limit_default(business: Business) -> int:
    """Decision 8: the service's booking limit when > 0, else the calendar's bookings per slot."""
    if business.service.booking_limit > 0:
        return business.service.booking_limit
    return business.calendar.bookings_per_slot


# --- the minute sets ---------------------------------------------------------------------------


@attrs.define
class _World:
    """The minute sets one query needs, computed once."""

    business: Business
    query: AvailabilityQuery
    now: datetime
    location_clock: WallClock
    resource_clocks: dict[str, WallClock]
    searched: AbstractSet[int]
    dates: list[date]
    """The location dates whose windows may touch the clock's minutes."""


def _weekly_minutes(clock: WallClock, dates: Iterable[date], window_of: object) -> set[int]:
    minutes: set[int] = set()
    for day in dates:
        window: DayWindow = window_of(day)  # type: ignore[operator]
        if not window.is_closed:
            minutes |= clock.window(day, window.start_time, window.end_time)
    return minutes


def _window_occurrences(
    clock: WallClock, windows: Iterable[Block | Allocation], dates: Iterable[date]
) -> list[tuple[Block | Allocation, date, AbstractSet[int]]]:
    """Return (window, date, minutes) for every date each window applies on."""
    found: list[tuple[Block | Allocation, date, AbstractSet[int]]] = []
    for window in windows:
        for day in dates:
            if occurs_on(window, day):
                found.append((window, day, clock.window(day, window.start_time, window.end_time)))
    return found


def _union(occurrences: Iterable[tuple[object, date, AbstractSet[int]]]) -> set[int]:
    minutes: set[int] = set()
    for _window, _day, found in occurrences:
        minutes |= found
    return minutes


def _blocks(business: Business, target: BlockTarget, target_id: str) -> list[Block]:
    return [
        block
        for block in business.blocks
        if block.target is target
        and block.target_id == target_id
        and block.location_id == business.location.id
        and not block.deleted
    ]


def _allocations(business: Business, target: AllocationTarget, target_id: str) -> list[Allocation]:
    return [
        allocation
        for allocation in business.allocations
        if allocation.target is target
        and allocation.target_id == target_id
        and allocation.location_id == business.location.id
    ]


@attrs.define
class _ResourceMinutes:
    """Decision 5's ingredients for one resource, each a set of UTC minutes."""

    business_hours: AbstractSet[int]
    service_hours: AbstractSet[int]
    resource_hours: AbstractSet[int]
    """Weekly hours, or the resource's allocations when it has no recurring availability."""
    holidays: AbstractSet[int]
    calendar_blocks: AbstractSet[int]
    service_blocks: AbstractSet[int]
    resource_blocks: AbstractSet[int]
    service_allocations: AbstractSet[int] | None
    """The event service's allocations; None for appointment services."""
    limit_allocations: list[tuple[Allocation, AbstractSet[int]]]
    """Allocations whose booking limit can apply (decision 8)."""
    anchors: dict[date, list[AbstractSet[int]]]
    """Per location date, the windows whose first minute anchors the grid (decision 6)."""
    open: AbstractSet[int]


def _resource_minutes(world: _World, resource: Resource) -> _ResourceMinutes:
    business = world.business
    location, service = business.location, business.service
    clock = world.location_clock
    dates = world.dates
    # Decision 5: business hours of the location, in the location's zone.
    business_hours = _weekly_minutes(
        clock, dates, lambda day: location.business_hours.for_date(day).window
    )
    # Service hours, in the location's zone (decision 1).
    service_hours = _weekly_minutes(clock, dates, service.availability.for_date)
    holidays: set[int] = set()
    for day in dates:
        if any(holiday.date == day for holiday in location.holidays):
            holidays |= clock.window(day, 0, 2400)
    calendar_blocks = _union(
        _window_occurrences(
            clock, _blocks(business, BlockTarget.CALENDAR, business.calendar.id), dates
        )
    )
    service_blocks = _union(
        _window_occurrences(clock, _blocks(business, BlockTarget.SERVICE, service.id), dates)
    )
    resource_blocks = _union(
        _window_occurrences(clock, _blocks(business, BlockTarget.RESOURCE, resource.id), dates)
    )
    # Decision 8 (POLICY, as the calculator documents it): the allocations whose booking limit
    # can apply to a slot, the service's first and then the resource's, each in creation order.
    service_occurrences = _window_occurrences(
        clock, _allocations(business, AllocationTarget.SERVICE, service.id), dates
    )
    resource_occurrences = _window_occurrences(
        clock, _allocations(business, AllocationTarget.RESOURCE, resource.id), dates
    )
    limit_allocations = [
        (allocation, minutes)
        for allocation, _day, minutes in service_occurrences + resource_occurrences
        if isinstance(allocation, Allocation)
    ]
    if resource.recurring_availability:
        # A resource's weekly hours are wall times in its own zone, on its own dates (decision 1).
        own_clock = world.resource_clocks[resource.timezone]
        own_dates = days(
            own_clock.date_at(own_clock.first) - timedelta(days=1),
            own_clock.date_at(own_clock.last - 1) + timedelta(days=1),
        )
        resource_hours = _weekly_minutes(own_clock, own_dates, resource.weekly_hours.for_date)
    else:
        # Decision 5: without recurring availability, the union of the resource's allocations.
        resource_hours = _union(resource_occurrences)
    service_allocations: AbstractSet[int] | None = None
    if service.type is ServiceType.EVENT:
        # Decision 5: event services are open only inside their service allocations.
        service_allocations = _union(service_occurrences)
    # Decision 6: the grid starts at each allocation giving the time (POLICY: the event service's
    # allocations when it is an event, else the resource's when it has no recurring
    # availability), else at the start of each day's business ∩ service window (POLICY: the
    # service window alone for a resource that ignores business hours).
    anchors: dict[date, list[AbstractSet[int]]] = {
        day: [] for day in days(world.query.start_date, world.query.end_date)
    }
    for day in anchors:
        if service.type is ServiceType.EVENT:
            anchors[day] = [minutes for _a, on, minutes in service_occurrences if on == day]
        elif not resource.recurring_availability:
            anchors[day] = [minutes for _a, on, minutes in resource_occurrences if on == day]
        else:
            window = clock.window(day, *_hours(service.availability.for_date(day)))
            if not resource.options.ignore_business_hours:
                hours = location.business_hours.for_date(day).window
                window = window & clock.window(day, *_hours(hours))
            anchors[day] = [window]
        anchors[day] = [window for window in anchors[day] if window]
    everything = set(clock.minutes())
    open_minutes = (
        (everything if resource.options.ignore_business_hours else business_hours)
        & service_hours
        & resource_hours
    )
    if service_allocations is not None:
        open_minutes &= service_allocations
    open_minutes -= holidays | calendar_blocks | service_blocks | resource_blocks
    return _ResourceMinutes(
        business_hours=business_hours,
        service_hours=service_hours,
        resource_hours=resource_hours,
        holidays=holidays,
        calendar_blocks=calendar_blocks,
        service_blocks=service_blocks,
        resource_blocks=resource_blocks,
        service_allocations=service_allocations,
        limit_allocations=limit_allocations,
        anchors=anchors,
        open=open_minutes,
    )


def _hours(window: DayWindow) -> tuple[int, int]:
    return (0, 0) if window.is_closed else (window.start_time, window.end_time)


def _world(business: Business, query: AvailabilityQuery, now: datetime) -> _World:
    unsupported = (
        query.start_time,
        query.end_time,
        query.duration,
        query.resource_ids,
        query.resource_group_id,
    )
    if any(unsupported) or query.round_robin not in (None, RoundRobin.NONE):
        raise NotImplementedError("the oracle knows round robin none over whole days only")
    if business.service.duration + business.service.padding > MINUTES_PER_DAY:
        raise NotImplementedError("the oracle knows padded slots of at most a day")
    # The clock runs from a day before the first date (UTC) to three days after the last: UTC
    # offsets stay within a day, so every searched minute and every padded slot tail is on it
    # (and a fold is never at its very start).
    first = (
        minute_of(datetime.combine(query.start_date, datetime.min.time(), UTC)) - MINUTES_PER_DAY
    )
    last = minute_of(datetime.combine(query.end_date, datetime.min.time(), UTC)) + (
        3 * MINUTES_PER_DAY
    )
    location_clock = wall_clock(business.location.timezone, first, last)
    resource_clocks = {
        resource.timezone: wall_clock(resource.timezone, first, last)
        for resource in business.resources
    }
    dates = days(
        location_clock.date_at(first) - timedelta(days=1),
        location_clock.date_at(last - 1) + timedelta(days=1),
    )
    return _World(
        business=business,
        query=query,
        now=now,
        location_clock=location_clock,
        resource_clocks=resource_clocks,
        searched=location_clock.whole_days(query.start_date, query.end_date),
        dates=dates,
    )


def _candidates(business: Business, query: AvailabilityQuery) -> list[Resource]:
    """Decision 13: resources of the location taking the service (the named one, if any)."""
    found = [
        resource
        for resource in business.resources
        if resource.location_id == business.location.id
        and takes_service(resource, business.service)
    ]
    if query.resource_id is not None:
        found = [resource for resource in found if resource.id == query.resource_id]
    return found


OTHER_SERVICE = 10**9
"""The load of a minute held by an appointment of another service (decision 8a)."""


def _loads(
    business: Business, resource: Resource, now: datetime
) -> tuple[dict[int, int], dict[int, int]]:
    """Return, per minute, the active appointments of *resource* occupying it and their people."""
    bookings: dict[int, int] = {}
    people: dict[int, int] = {}
    paddings = {service.id: service.padding for service in business.other_services}
    paddings[business.service.id] = business.service.padding
    for appointment in business.appointments:
        if resource.id not in appointment.resource_ids or not is_active(appointment, now):
            continue
        # Decision 7: an appointment occupies [start, end + the padding of its own service).
        # Decision 8a: one of the searched service shares the limit; one of another service
        # leaves no room at all (OTHER_SERVICE exceeds every limit and capacity).
        padding = paddings.get(appointment.service_id, 0)
        own = appointment.service_id == business.service.id
        weight, size = (1, appointment.group_size) if own else (OTHER_SERVICE, OTHER_SERVICE)
        for minute in range(minute_of(appointment.start), minute_of(appointment.end) + padding):
            bookings[minute] = bookings.get(minute, 0) + weight
            people[minute] = people.get(minute, 0) + size
    return bookings, people


def _day_capped(business: Business, resource: Resource, day: date, now: datetime) -> bool:
    """
    Decision 10: tell whether a booking of the service on location date *day* would pass a cap.

    The count cap is reached when the resource's active appointments of the service starting
    that day number ``daily_booking_limit_count``; the minutes cap when their minutes plus one
    more slot would exceed ``daily_booking_limit_minutes`` (POLICY, as documented by the
    calculator: a cap is a bound the day's total may not pass). 0 means no cap.
    """
    service = business.service
    tz = zone(business.location.timezone)
    todays = [
        appointment
        for appointment in business.appointments
        if resource.id in appointment.resource_ids
        and appointment.service_id == service.id
        and is_active(appointment, now)
        and appointment.start.astimezone(tz).date() == day
    ]
    if service.daily_booking_limit_count and len(todays) >= service.daily_booking_limit_count:
        return True
    booked = sum(appointment.duration_minutes for appointment in todays)
    limit = service.daily_booking_limit_minutes
    return bool(limit) and booked + service.duration > limit


def _slot_limit(
    business: Business,
    slot: range,
    limit_allocations: Sequence[tuple[Allocation, AbstractSet[int]]],
) -> int:
    """
    Decision 8: the booking limit of *slot*.

    The first allocation (service allocations first, then the resource's) whose window holds the
    whole slot and sets a limit; else the service's limit when > 0; else the calendar's.
    """
    for allocation, minutes in limit_allocations:
        if allocation.booking_limit > 0 and all(minute in minutes for minute in slot):
            return allocation.booking_limit
    return booking_limit_default(business)


def _capacity(business: Business, limit: int) -> int:
    """Decision 9: the service's max capacity when > 0, else the booking limit."""
    return business.service.max_capacity if business.service.max_capacity > 0 else limit


def oracle_slots(business: Business, query: AvailabilityQuery, now: datetime) -> list[OracleSlot]:
    """
    Return every offered slot of every candidate resource (round robin ``none``), sorted.

    For each searched date D and candidate resource R, a grid start t (decision 6) is offered when
    ``[t, t + duration)`` lies in R's open time on D (decision 5, within D's day), t is neither
    time past nor beyond book-ahead (decision 11), D is not capped (decision 10), and the padded
    span ``[t, t + duration + padding)`` leaves at least one booking and one person of room at its
    busiest minute (decisions 7, 8 and 9).
    """
    world = _world(business, query, now)
    service = business.service
    window = booking_window(business)
    earliest = now + timedelta(minutes=window.book_in_advance_mins)
    latest = book_ahead_end(window, now)
    step = slot_step(business, query)
    found: set[OracleSlot] = set()
    for resource in _candidates(business, query):
        minutes = _resource_minutes(world, resource)
        bookings, people = _loads(business, resource, now)
        for day, windows in minutes.anchors.items():
            if _day_capped(business, resource, day, now):
                continue
            open_today = minutes.open & world.location_clock.window(day, 0, 2400)
            starts = {
                start
                for anchor_window in windows
                for start in range(min(anchor_window), max(anchor_window) + 1, step)
            }
            for start in sorted(starts):
                if instant_of(start) < earliest or instant_of(start) > latest:
                    continue  # Decision 11: time past (TP) or beyond book-ahead (BA).
                slot = range(start, start + service.duration)
                if not all(minute in open_today for minute in slot):
                    continue  # Decisions 5 and 6: the slot must lie in D's open time.
                limit = _slot_limit(business, slot, minutes.limit_allocations)
                capacity = _capacity(business, limit)
                # Decision 7: the padded span must leave room at its busiest minute.
                span = range(start, start + service.duration + service.padding)
                available = limit - max(bookings.get(minute, 0) for minute in span)
                available_capacity = capacity - max(people.get(minute, 0) for minute in span)
                if available >= 1 and available_capacity >= 1:
                    found.add(
                        OracleSlot(
                            start=instant_of(start),
                            resource_id=resource.id,
                            allowable_bookings=limit,
                            available_bookings=available,
                            allowable_capacity=capacity,
                            available_capacity=available_capacity,
                        )
                    )
    return sorted(found, key=lambda slot: (slot.start, slot.resource_id))


def oracle_reasons(
    business: Business, query: AvailabilityQuery, now: datetime
) -> dict[str, dict[datetime, Reason | None]]:
    """
    Return, per candidate resource, each searched minute's first cause (decision 15) or None.

    None means the minute is free: no cause applies. Causes, checked in :data:`REASON_ORDER`:
    ``TP`` before now + lead; ``BA`` at or after the horizon + the duration (decision 11: a slot
    starting exactly at the horizon is offered, so none of its minutes is beyond it, decision
    15); ``HO`` a holiday; ``CL`` outside
    business hours (unless the resource ignores them); ``SH`` outside service hours; ``AL`` outside
    the event service's allocations, or outside the allocations of a resource without recurring
    availability; ``RH`` outside the resource's weekly hours; ``CB``/``SB``/``RB`` inside a block;
    ``BK`` an appointment of another service occupies the minute (decision 8a), or the active
    appointments of the service occupying it leave no booking or no person of room under
    the limit of a one-minute slot there; ``DL`` the day is capped.
    """
    world = _world(business, query, now)
    window = booking_window(business)
    earliest = now + timedelta(minutes=window.book_in_advance_mins)
    latest = book_ahead_end(window, now)
    beyond = latest.replace(second=0, microsecond=0) + timedelta(minutes=business.service.duration)
    clock = world.location_clock
    result: dict[str, dict[datetime, Reason | None]] = {}
    for resource in _candidates(business, query):
        minutes = _resource_minutes(world, resource)
        bookings, people = _loads(business, resource, now)
        ignores_hours = resource.options.ignore_business_hours
        own = resource.recurring_availability
        capped = {
            day: _day_capped(business, resource, day, now)
            for day in days(query.start_date, query.end_date)
        }
        causes: dict[datetime, Reason | None] = {}
        for minute in sorted(world.searched):
            instant = instant_of(minute)
            limit = _slot_limit(business, range(minute, minute + 1), minutes.limit_allocations)
            # (cause, applies) in REASON_ORDER; the first that applies labels the minute.
            checks = (
                (Reason.TIME_PAST, instant < earliest),
                # Decision 15: BA only where no slot starting by the horizon reaches.
                (Reason.BEYOND_BOOK_AHEAD, instant >= beyond),
                (Reason.HOLIDAY, minute in minutes.holidays),
                (Reason.CLOSED, not ignores_hours and minute not in minutes.business_hours),
                (Reason.OUTSIDE_SERVICE_HOURS, minute not in minutes.service_hours),
                (
                    Reason.NO_ALLOCATION,
                    (not own and minute not in minutes.resource_hours)
                    or (
                        minutes.service_allocations is not None
                        and minute not in minutes.service_allocations
                    ),
                ),
                (Reason.OUTSIDE_RESOURCE_HOURS, own and minute not in minutes.resource_hours),
                (Reason.CALENDAR_BLOCK, minute in minutes.calendar_blocks),
                (Reason.SERVICE_BLOCK, minute in minutes.service_blocks),
                (Reason.RESOURCE_BLOCK, minute in minutes.resource_blocks),
                (
                    Reason.FULLY_BOOKED,
                    bookings.get(minute, 0) >= limit
                    or people.get(minute, 0) >= _capacity(business, limit),
                ),
                (Reason.DAILY_LIMIT, capped[clock.date_at(minute)]),
            )
            causes[instant] = next((reason for reason, applies in checks if applies), None)
        result[resource.id] = causes
    return result


def searched_minutes(business: Business, query: AvailabilityQuery) -> list[datetime]:
    """Return every minute of the searched dates, ``[start_date 00:00, end_date + 1 00:00)`` local."""
    world = _world(business, query, EPOCH)
    return [instant_of(minute) for minute in sorted(world.searched)]


def candidate_ids(business: Business, query: AvailabilityQuery) -> list[str]:
    """Return the ids of the resources the query considers (decision 13)."""
    return [resource.id for resource in _candidates(business, query)]
