"""
Hypothesis strategies for valid slotwise model values (STYLE rule 31: every strategy lives here).

Each strategy draws only values that the model's validators accept, so ``draw`` never raises;
``tests/unit/test_strategies.py`` proves it. Record ids are parameters, so a test can tie a block,
a service and an appointment to the same location.
"""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from typing import Any

import attrs
from hypothesis import strategies as st

from slotwise._time import END_OF_DAY, MINUTES_PER_DAY, minutes_to_hhmm
from slotwise._time import zone as load_zone
from slotwise.availability._minutes import _FULL
from slotwise.availability.query import AvailabilityQuery
from slotwise.model import (
    OPEN_END,
    SLOT_INTERVALS,
    Allocation,
    AllocationTarget,
    Appointment,
    AppointmentStatus,
    Block,
    BlockTarget,
    BookingWindow,
    BusinessHours,
    Calendar,
    Company,
    DayHours,
    DayWindow,
    Frequency,
    Holiday,
    Location,
    LocationSettings,
    MonthType,
    RepeatRule,
    Resource,
    ResourceOptions,
    RoundRobin,
    Service,
    ServiceType,
    WeeklyHours,
)
from slotwise.model.company import TimeUnit
from tests.oracle import Business, oracle_slots

__all__ = [
    "DST_DATES",
    "NAMED_DST_DATES",
    "ZONES",
    "allocations",
    "appointments",
    "availability_cases",
    "booking_windows",
    "blocks",
    "business_hours",
    "day_hours",
    "day_windows",
    "hhmm",
    "names",
    "repeat_rules",
    "resources",
    "searched_dates",
    "services",
    "utc_instants",
    "weekly_hours",
    "zones",
]

ZONES = (
    "UTC",
    "America/New_York",
    "America/Chicago",
    "America/Los_Angeles",
    "America/Sao_Paulo",
    "Europe/London",
    "Europe/Amsterdam",
    "Asia/Kathmandu",
    "Asia/Kolkata",
    "Asia/Tokyo",
    "Australia/Lord_Howe",
    "Australia/Sydney",
    "Pacific/Chatham",
    "Pacific/Auckland",
)
"""Real IANA zones with awkward offsets: +05:45, half-hour DST (Lord Howe), +12:45/+13:45 (Chatham),
southern-hemisphere DST, and the DST fixture zones of STYLE rule 24."""

# Dates and instants stay in a window with several DST changes in every zone above.
_FIRST_DAY = date(2023, 1, 1)
_LAST_DAY = date(2027, 12, 31)
_FIRST_INSTANT = datetime(2023, 1, 1, tzinfo=UTC)
_LAST_INSTANT = datetime(2027, 12, 31, tzinfo=UTC)


def zones() -> st.SearchStrategy[str]:
    """Draw an IANA zone name from :data:`ZONES`."""
    return st.sampled_from(ZONES)


def names(*, max_size: int = 50) -> st.SearchStrategy[str]:
    """Draw a non-blank display name of at most *max_size* characters (no control characters)."""
    return st.text(
        st.characters(exclude_categories=("Cs", "Cc")), min_size=1, max_size=max_size
    ).filter(str.strip)


def hhmm() -> st.SearchStrategy[int]:
    """Draw an HHMM time of day: ``0`` .. ``2359`` with minutes 00..59, or ``2400`` (decision 4)."""
    return st.one_of(
        st.builds(lambda hour, minute: hour * 100 + minute, st.integers(0, 23), st.integers(0, 59)),
        st.just(END_OF_DAY),
    )


@st.composite
def _open_window(draw: st.DrawFn) -> tuple[int, int]:
    """Draw HHMM ``(start, end)`` with start strictly before end."""
    start, end = sorted(
        draw(st.lists(st.integers(0, MINUTES_PER_DAY), min_size=2, max_size=2, unique=True))
    )
    return minutes_to_hhmm(start), minutes_to_hhmm(end)


def day_windows(*, closed: bool = True) -> st.SearchStrategy[DayWindow]:
    """Draw a :class:`DayWindow`: open with ``start < end``, or (when *closed*) ``0, 0``."""
    open_windows = _open_window().map(
        lambda window: DayWindow(start_time=window[0], end_time=window[1])
    )
    if not closed:
        return open_windows
    return st.one_of(st.just(DayWindow.closed()), open_windows)


def weekly_hours() -> st.SearchStrategy[WeeklyHours]:
    """Draw :class:`WeeklyHours` with an independent window (possibly closed) on each weekday."""
    days = ("sun", "mon", "tue", "wed", "thu", "fri", "sat")
    return st.builds(WeeklyHours, **{day: day_windows() for day in days})


@st.composite
def day_hours(draw: st.DrawFn) -> DayHours:
    """Draw one day of business hours: closed, open ``start < end``, or 24 hours (normalised)."""
    kind = draw(st.sampled_from(("closed", "open", "24h")))
    if kind == "closed":
        return DayHours()
    if kind == "24h":
        return DayHours(is_open=True, is_24_hours=True)
    start, end = draw(_open_window())
    return DayHours.open(start, end)


def business_hours() -> st.SearchStrategy[BusinessHours]:
    """Draw a location's :class:`BusinessHours`, one :func:`day_hours` per weekday."""
    days = ("sun", "mon", "tue", "wed", "thu", "fri", "sat")
    return st.builds(BusinessHours, **{day: day_hours() for day in days})


@st.composite
def repeat_rules(draw: st.DrawFn, *, max_interval: int = 99) -> RepeatRule:
    """
    Draw a :class:`RepeatRule` of any frequency (decision 17).

    Weekly rules get a non-empty weekday set; monthly rules use a day of month 1..31, an nth
    weekday (weekday digit then week 1..5), or the start date's (``month_day`` None).
    """
    frequency = draw(st.sampled_from(Frequency))
    interval = draw(st.integers(1, max_interval))
    if frequency is Frequency.WEEKLY:
        weekdays = draw(st.frozensets(st.integers(0, 6), min_size=1))
        return RepeatRule(frequency=frequency, interval=interval, weekdays=weekdays)
    if frequency is Frequency.MONTHLY:
        month_type = draw(st.sampled_from(MonthType))
        if month_type is MonthType.DAY:
            month_day = draw(st.none() | st.integers(1, 31))
        else:
            month_day = draw(
                st.none()
                | st.builds(
                    lambda weekday, week: weekday * 10 + week,
                    st.integers(0, 6),
                    st.integers(1, 5),
                )
            )
        return RepeatRule(
            frequency=frequency, interval=interval, month_day=month_day, month_type=month_type
        )
    return RepeatRule(frequency=frequency, interval=interval)


@st.composite
def _window_fields(draw: st.DrawFn) -> dict[str, Any]:
    """Draw the shared fields of a block or allocation: dates, times, all_day, reason, repeat."""
    start_date = draw(st.dates(_FIRST_DAY, _LAST_DAY))
    end_date = draw(st.just(OPEN_END) | st.dates(start_date, _LAST_DAY))
    all_day = draw(st.booleans())
    start_time, end_time = (0, END_OF_DAY) if all_day else draw(_open_window())
    return {
        "start_date": start_date,
        "end_date": end_date,
        "start_time": start_time,
        "end_time": end_time,
        "all_day": all_day,
        "reason": draw(st.none() | names(max_size=255)),
        "repeat": draw(st.none() | repeat_rules()),
    }


@st.composite
def blocks(
    draw: st.DrawFn,
    *,
    id: str = "block-1",
    company_id: str = "company-1",
    location_id: str = "location-1",
    target_id: str = "resource-1",
    target: BlockTarget | None = None,
) -> Block:
    """
    Draw a :class:`Block` with the given ids; *target* ``None`` draws any :class:`BlockTarget`.

    End dates are on or after the start date or :data:`OPEN_END`; times satisfy ``start < end``.
    """
    return Block(
        id=id,
        company_id=company_id,
        location_id=location_id,
        target_id=target_id,
        target=target if target is not None else draw(st.sampled_from(BlockTarget)),
        deleted=draw(st.booleans()),
        **draw(_window_fields()),
    )


@st.composite
def allocations(
    draw: st.DrawFn,
    *,
    id: str = "allocation-1",
    company_id: str = "company-1",
    location_id: str = "location-1",
    target_id: str = "resource-1",
    target: AllocationTarget | None = None,
) -> Allocation:
    """
    Draw an :class:`Allocation` with the given ids and a ``booking_limit`` of 0 (unset) .. 20.

    *target* ``None`` draws any :class:`AllocationTarget`.
    """
    return Allocation(
        id=id,
        company_id=company_id,
        location_id=location_id,
        target_id=target_id,
        target=target if target is not None else draw(st.sampled_from(AllocationTarget)),
        booking_limit=draw(st.integers(0, 20)),
        **draw(_window_fields()),
    )


@st.composite
def _group_limits(draw: st.DrawFn) -> tuple[int, int]:
    """Draw ``(max_capacity, max_group_size)``: both 0, or 1 <= group size <= capacity."""
    if draw(st.booleans()):
        return 0, 0
    capacity = draw(st.integers(1, 50))
    return capacity, draw(st.integers(1, capacity))


@st.composite
def _duration_choice(draw: st.DrawFn) -> dict[str, Any]:
    """Draw ``duration_select`` with ``duration_min``/``duration_max``/``duration_interval``."""
    if not draw(st.booleans()):
        return {}
    low = draw(st.sampled_from((5, 10, 15, 30, 60)))
    high = low * draw(st.integers(1, 8))
    return {
        "duration_select": True,
        "duration_min": low,
        "duration_max": high,
        "duration_interval": low,
    }


@st.composite
def services(
    draw: st.DrawFn,
    *,
    id: str = "service-1",
    company_id: str = "company-1",
    location_id: str = "location-1",
    type: ServiceType | None = None,
) -> Service:
    """
    Draw a :class:`Service` with the given ids; *type* ``None`` draws appointment or event.

    Group limits are both 0 or ``1 <= max_group_size <= max_capacity``; duration choices have
    ``duration_max`` a multiple of ``duration_min`` (spec: Errors, rule 1).
    """
    capacity, group_size = draw(_group_limits())
    return Service(
        id=id,
        company_id=company_id,
        location_id=location_id,
        name=draw(names(max_size=50)),
        duration=draw(st.integers(1, 8 * 60)),
        type=type if type is not None else draw(st.sampled_from(ServiceType)),
        padding=draw(st.sampled_from((0, 5, 10, 15, 30))),
        booking_interval=draw(st.none() | st.sampled_from(SLOT_INTERVALS)),
        booking_limit=draw(st.integers(0, 20)),
        max_capacity=capacity,
        max_group_size=group_size,
        daily_booking_limit_count=draw(st.integers(0, 20)),
        round_robin=draw(st.sampled_from(RoundRobin)),
        availability=draw(weekly_hours()),
        **draw(_duration_choice()),
    )


@st.composite
def resources(
    draw: st.DrawFn,
    *,
    id: str = "resource-1",
    company_id: str = "company-1",
    location_id: str = "location-1",
    service_ids: tuple[str, ...] = (),
) -> Resource:
    """
    Draw a :class:`Resource` in a zone from :func:`zones` with weekly hours.

    ``linked_service_ids`` is a subset of *service_ids* (empty: every service).
    """
    linked = draw(st.lists(st.sampled_from(service_ids), unique=True)) if service_ids else []
    return Resource(
        id=id,
        company_id=company_id,
        location_id=location_id,
        name=draw(names(max_size=255)),
        timezone=draw(zones()),
        recurring_availability=draw(st.booleans()),
        weekly_hours=draw(weekly_hours()),
        linked_service_ids=linked,
    )


def utc_instants(
    *, min_value: datetime = _FIRST_INSTANT, max_value: datetime = _LAST_INSTANT
) -> st.SearchStrategy[datetime]:
    """Draw an aware UTC instant on a whole minute between *min_value* and *max_value*."""
    return st.datetimes(
        min_value=min_value.replace(tzinfo=None), max_value=max_value.replace(tzinfo=None)
    ).map(lambda value: value.replace(second=0, microsecond=0, tzinfo=UTC))


@st.composite
def appointments(
    draw: st.DrawFn,
    *,
    id: str = "appointment-1",
    company_id: str = "company-1",
    location_id: str = "location-1",
    service_id: str = "service-1",
    resource_ids: tuple[str, ...] = ("resource-1",),
    status: AppointmentStatus | None = None,
) -> Appointment:
    """
    Draw an :class:`Appointment` with aware UTC ``start < end`` on whole minutes.

    ``created_at`` is up to 30 days before the start; an IN appointment holds until
    ``created_at`` + 10 minutes. *status* ``None`` draws any status.
    """
    start = draw(utc_instants())
    end = start + timedelta(minutes=draw(st.integers(1, 8 * 60)))
    created_at = start - timedelta(minutes=draw(st.integers(0, 30 * 1440)))
    chosen = status if status is not None else draw(st.sampled_from(AppointmentStatus))
    hold = created_at + timedelta(minutes=10) if chosen is AppointmentStatus.INITIAL else None
    return Appointment(
        id=id,
        company_id=company_id,
        location_id=location_id,
        service_id=service_id,
        resource_ids=resource_ids,
        status=chosen,
        start=start,
        end=end,
        group_size=draw(st.integers(1, 10)),
        created_at=created_at,
        hold_expires_at=hold,
    )


def occupations() -> st.SearchStrategy[list[tuple[int, int, int, int]]]:
    """
    Draw a resource's occupations as the calculator lays them out, before segments are made.

    Each is ``(start minute, length, group size, weight)``: lengths may be 0, occupations
    overlap and come in any order, and a weight is 1 (the searched service) or the calculator's
    "full" weight of another service's appointment (decision 8a).
    """
    return st.lists(
        st.tuples(
            st.integers(-30, 120),
            st.integers(0, 60),
            st.integers(1, 4),
            st.sampled_from([1, _FULL]),
        ),
        max_size=8,
    )


# --- Whole businesses for the availability oracle (tests/property/test_calculator_oracle.py) ---


def _transition_dates(zone_name: str, years: tuple[int, ...]) -> tuple[date, ...]:
    """Return the local dates in *years* on which *zone_name*'s UTC offset changes."""
    tz = load_zone(zone_name)
    found: set[date] = set()
    for year in years:
        instant = datetime(year, 1, 1, tzinfo=UTC)
        end = datetime(year + 1, 1, 1, tzinfo=UTC)
        before = instant.astimezone(tz).utcoffset()
        while instant < end:
            instant += timedelta(hours=1)
            after = instant.astimezone(tz).utcoffset()
            if after != before:
                found.add(instant.astimezone(tz).date())
            before = after
    return tuple(sorted(found))


NAMED_DST_DATES: dict[str, tuple[date, ...]] = {
    "America/New_York": (date(2026, 3, 8), date(2026, 11, 1)),
    "Europe/Amsterdam": (date(2023, 3, 26), date(2023, 10, 29)),
}
"""The named DST dates of issue 3 and STYLE rule 24 (spring forward, fall back)."""

DST_DATES: dict[str, tuple[date, ...]] = {
    name: tuple(
        sorted(set(_transition_dates(name, (2023, 2026))) | set(NAMED_DST_DATES.get(name, ())))
    )
    for name in ZONES
}
"""Per zone of :data:`ZONES`, the local dates of its offset changes in 2023 and 2026."""


@st.composite
def searched_dates(draw: st.DrawFn, *, zone_name: str, named: bool = False) -> tuple[date, date]:
    """
    Draw ``(start_date, end_date)``, 1 to 3 days, often touching a DST change of *zone_name*.

    Half the draws start two days before to one day after one of the zone's transition dates
    (the named dates of issue 3 for New York and Amsterdam among them); the rest anywhere in
    2023-2027. With *named*, the range always holds one of :data:`NAMED_DST_DATES` of the zone.
    """
    if named:
        named_day = draw(st.sampled_from(NAMED_DST_DATES[zone_name]))
        start = named_day - timedelta(days=draw(st.integers(0, 1)))
        end = max(named_day, start + timedelta(days=draw(st.integers(0, 2))))
        return start, end
    transitions = DST_DATES[zone_name]
    near_transition = draw(st.booleans())
    if transitions and near_transition:
        start = draw(st.sampled_from(transitions)) + timedelta(days=draw(st.integers(-2, 1)))
    else:
        start = draw(st.dates(_FIRST_DAY, _LAST_DAY))
    return start, start + timedelta(days=draw(st.integers(0, 2)))


@st.composite
def booking_windows(draw: st.DrawFn, *, friendly: bool = False) -> BookingWindow:
    """
    Draw a :class:`BookingWindow` short enough to cut into a few searched days.

    A *friendly* one books a week ahead with at most 90 minutes of lead time.
    """
    if friendly:
        lead = draw(st.sampled_from((0, 0, 30, 90)))
        return BookingWindow(book_ahead_unit="weeks", book_ahead_value=1, book_in_advance_mins=lead)
    units: tuple[TimeUnit, ...] = ("days", "days", "weeks", "months")
    unit = draw(st.sampled_from(units))
    value = draw(st.integers(1, 4)) if unit == "days" else 1
    return BookingWindow(
        book_ahead_unit=unit,
        book_ahead_value=value,
        book_in_advance_mins=draw(st.sampled_from((0, 0, 0, 30, 90, 600, 1440))),
    )


def _one_in(count: int) -> st.SearchStrategy[bool]:
    """Draw True about once in *count* draws (``st.integers`` favours its bounds too much)."""
    return st.sampled_from((False,) * (count - 1) + (True,))


def _near(day: date, *, before: int, after: int) -> st.SearchStrategy[date]:
    """Draw a date from *before* days before *day* to *after* days after it."""
    return st.dates(day - timedelta(days=before), day + timedelta(days=after))


@st.composite
def _near_window_fields(draw: st.DrawFn, *, around: date) -> dict[str, Any]:
    """Draw block or allocation fields whose dates mostly reach the searched days *around*."""
    start_date = draw(_near(around, before=40, after=3))
    end_date = draw(
        st.just(OPEN_END)
        | st.just(around + timedelta(days=3))
        | st.dates(start_date, start_date + timedelta(days=45))
    )
    all_day = draw(_one_in(6))
    times = st.one_of(_open_window(), _small_hours_window())
    start_time, end_time = (0, END_OF_DAY) if all_day else draw(times)
    return {
        "start_date": start_date,
        "end_date": end_date,
        "start_time": start_time,
        "end_time": end_time,
        "all_day": all_day,
        "reason": draw(st.none() | st.sampled_from(("Lunch", "Staff meeting", "Repairs"))),
        "repeat": draw(st.none() | repeat_rules(max_interval=3)),
    }


@st.composite
def _working_window(draw: st.DrawFn) -> tuple[int, int]:
    """
    Draw HHMM ``(start, end)``: a working day of 4 to 16 hours from a quarter hour, or a window
    with an edge in the small hours (01:00-04:00), where every zone of :data:`ZONES` changes
    its clocks.
    """
    if draw(_one_in(3)):
        return draw(_small_hours_window())
    start = draw(st.integers(0, 12 * 4)) * 15 + draw(st.sampled_from((0, 0, 0, 5, 7)))
    end = min(MINUTES_PER_DAY, start + draw(st.integers(4 * 4, 16 * 4)) * 15)
    return minutes_to_hhmm(start), minutes_to_hhmm(end)


@st.composite
def _small_hours_window(draw: st.DrawFn) -> tuple[int, int]:
    """Draw HHMM ``(start, end)`` with the start, the end or both between 01:00 and 04:00."""
    edge = draw(st.integers(60, 240))
    length = draw(st.sampled_from((15, 30, 45, 60, 90, 120, 600)))
    if draw(st.booleans()):
        return minutes_to_hhmm(edge), minutes_to_hhmm(min(MINUTES_PER_DAY, edge + length))
    return minutes_to_hhmm(max(0, edge - length)), minutes_to_hhmm(edge)


def _mostly_open_weekly_hours() -> st.SearchStrategy[WeeklyHours]:
    """Draw weekly hours: open all day every day, a working window every day, or random."""
    working = _working_window().map(
        lambda window: WeeklyHours.every_day(DayWindow(start_time=window[0], end_time=window[1]))
    )
    return st.one_of(st.just(WeeklyHours.always()), working, working, weekly_hours())


def _friendly_weekly_hours() -> st.SearchStrategy[WeeklyHours]:
    """Draw weekly hours open every day: all day, or one working window."""
    return st.one_of(
        st.just(WeeklyHours.always()),
        _working_window().map(
            lambda window: WeeklyHours.every_day(
                DayWindow(start_time=window[0], end_time=window[1])
            )
        ),
    )


def _friendly_business_hours() -> st.SearchStrategy[BusinessHours]:
    """Draw business hours open every day: 24 hours, or one working window."""
    return st.one_of(
        st.just(BusinessHours.always()),
        _working_window().map(
            lambda window: BusinessHours(
                **dict.fromkeys(
                    ("sun", "mon", "tue", "wed", "thu", "fri", "sat"), DayHours.open(*window)
                )
            )
        ),
    )


def _mostly_open_business_hours() -> st.SearchStrategy[BusinessHours]:
    """Draw business hours: 24 hours every day, random days, or one window every day."""
    return st.one_of(
        st.just(BusinessHours.always()),
        business_hours(),
        _working_window().map(
            lambda window: BusinessHours(
                **dict.fromkeys(
                    ("sun", "mon", "tue", "wed", "thu", "fri", "sat"), DayHours.open(*window)
                )
            )
        ),
    )


@st.composite
def availability_cases(
    draw: st.DrawFn,
    *,
    max_resources: int = 3,
    minute_grid: bool = False,
    named_dates: bool = False,
) -> tuple[Business, AvailabilityQuery, datetime]:
    """
    Draw ``(business, query, now)`` for the availability oracle: a location in a random zone.

    The business (``tests.oracle.Business``) has one calendar, one service (appointment or event;
    padding, booking interval, limits, capacity, daily limits, its own booking window or none),
    1 to *max_resources* resources (own zones, weekly hours or allocations, ignored business
    hours, links, deleted ones), calendar/service/resource blocks with repeats, service/resource
    allocations with booking limits, and appointments of every status around the searched days
    (IN holds both expired and not), some of them for another service with its own padding
    (``other_services``). ``now`` lies from three days before the first searched day
    (midnight UTC) to 6 hours after it. The query asks for every resource with round robin ``none``.

    With *minute_grid* the service lasts one minute and the query steps by one minute, so each
    offered slot is one bookable minute (for the partition property). With *named_dates* the
    location is in New York or Amsterdam and the searched days hold one of their named DST dates.
    """
    # Half the cases are "friendly" (open hours, recurring resources, appointment services, a
    # generous booking window) so that slots exist and appointments, padding, limits and blocks
    # decide which; the other half draw every restriction freely.
    friendly = draw(st.booleans())
    open_hours = _friendly_weekly_hours() if friendly else _mostly_open_weekly_hours()
    zone_name = draw(st.sampled_from(sorted(NAMED_DST_DATES)) if named_dates else zones())
    start_date, end_date = draw(searched_dates(zone_name=zone_name, named=named_dates))
    holidays = draw(
        st.lists(
            _near(start_date, before=1, after=3).map(lambda day: Holiday(date=day)),
            max_size=0 if friendly else 1,
        )
    )
    company = Company(id="company-1", name="Oracle Spa", timezone=zone_name)
    location = Location(
        id="location-1",
        company_id="company-1",
        name="Downtown",
        timezone=zone_name,
        is_primary=True,
        business_hours=draw(
            _friendly_business_hours() if friendly else _mostly_open_business_hours()
        ),
        holidays=holidays,
        settings=LocationSettings(booking_window=draw(booking_windows(friendly=friendly))),
        primary_calendar_id="calendar-1",
    )
    calendar = Calendar(
        id="calendar-1",
        name="Downtown",
        interval=draw(st.sampled_from(SLOT_INTERVALS)),
        bookings_per_slot=draw(st.integers(1, 3)),
        primary=True,
        company_id="company-1",
        location_id="location-1",
    )
    capacity = draw(st.sampled_from((0, 0, 1, 2, 4)))
    if minute_grid:
        duration, booking_interval = 1, None
    else:
        duration = draw(st.one_of(st.sampled_from((15, 30, 45, 60, 90)), st.integers(1, 180)))
        booking_interval = draw(st.none() | st.sampled_from(SLOT_INTERVALS[1:]))
    service = Service(
        id="service-1",
        name="Massage",
        duration=duration,
        type=ServiceType.EVENT if not friendly and draw(_one_in(5)) else ServiceType.APPOINTMENT,
        padding=draw(st.sampled_from((0, 0, 5, 10, 15, 30))),
        booking_interval=booking_interval,
        booking_limit=draw(st.sampled_from((0, 0, 1, 2, 3))),
        max_capacity=capacity,
        max_group_size=min(capacity, draw(st.integers(1, 2))) if capacity else 0,
        daily_booking_limit_count=draw(st.sampled_from((0, 0, 0, 1, 2, 3))),
        daily_booking_limit_minutes=draw(st.sampled_from((0, 0, 0, 30, 60, 120))),
        booking_window=draw(st.none() | booking_windows(friendly=friendly)),
        availability=draw(open_hours),
        company_id="company-1",
        location_id="location-1",
    )
    resource_ids = [f"resource-{n}" for n in range(1, draw(st.integers(1, max_resources)) + 1)]
    resource_list = []
    for resource_id in resource_ids:
        resource_list.append(
            Resource(
                id=resource_id,
                name=resource_id,
                timezone=draw(st.just(zone_name) | zones()),
                recurring_availability=friendly or not draw(_one_in(6)),
                weekly_hours=draw(open_hours),
                options=ResourceOptions(ignore_business_hours=draw(_one_in(5))),
                linked_service_ids=draw(
                    st.sampled_from(((), (), (), (), (), ("service-1",), ("service-2",)))
                ),
                deleted=not friendly and draw(_one_in(10)),
                company_id="company-1",
                location_id="location-1",
            )
        )
    block_targets = [
        (BlockTarget.CALENDAR, "calendar-1"),
        (BlockTarget.SERVICE, "service-1"),
        *((BlockTarget.RESOURCE, resource_id) for resource_id in resource_ids),
    ]
    block_list: list[Block] = []
    for number in range(draw(st.integers(0, 4))):
        block_target, target_id = draw(st.sampled_from(block_targets))
        block_list.append(
            Block(
                id=f"block-{number}",
                target=block_target,
                target_id=target_id,
                deleted=draw(_one_in(10)),
                company_id="company-1",
                location_id="location-1",
                **draw(_near_window_fields(around=start_date)),
            )
        )
    allocation_targets = [
        (AllocationTarget.SERVICE, "service-1"),
        *((AllocationTarget.RESOURCE, resource_id) for resource_id in resource_ids),
    ]
    allocation_list: list[Allocation] = []
    for number in range(draw(st.integers(0, 3))):
        # Event services and resources without recurring availability need allocations to
        # offer anything: the first allocation goes to the service of an event service.
        if number == 0 and service.type is ServiceType.EVENT:
            target, target_id = allocation_targets[0]
        else:
            target, target_id = draw(st.sampled_from(allocation_targets))
        same_window = draw(_one_in(3))
        if allocation_list and same_window:
            # The same window again (for another target, or with another booking limit), so
            # that several allocations hold one slot (decision 8's precedence).
            previous = allocation_list[-1]
            fields = {
                name: getattr(previous, name)
                for name in ("start_date", "end_date", "start_time", "end_time", "reason", "repeat")
            }
        else:
            fields = draw(_near_window_fields(around=start_date))
        allocation_list.append(
            Allocation(
                id=f"allocation-{number}",
                target=target,
                target_id=target_id,
                booking_limit=draw(st.sampled_from((0, 0, 1, 2, 4))),
                company_id="company-1",
                location_id="location-1",
                **fields,
            )
        )
    first_instant = datetime.combine(start_date, datetime.min.time(), UTC)
    now = first_instant + timedelta(minutes=draw(st.integers(-3 * 1440, 360)))
    interval = (
        1 if minute_grid else draw(st.none() | st.sampled_from((1, 5, 10, 15, 20, 30, 45, 60)))
    )
    query = AvailabilityQuery(
        service_id="service-1",
        start_date=start_date,
        end_date=end_date,
        location_id="location-1",
        interval=interval,
        round_robin=RoundRobin.NONE,
    )
    business = Business(
        company=company,
        location=location,
        calendar=calendar,
        service=service,
        resources=tuple(resource_list),
        blocks=tuple(block_list),
        allocations=tuple(allocation_list),
    )
    if draw(st.booleans()):
        # Another service some appointments are for: its own padding applies to them.
        other = Service(
            id="service-2",
            company_id="company-1",
            location_id="location-1",
            name="Facial",
            duration=30,
            padding=draw(st.sampled_from((0, 10, 45))),
        )
        business = attrs.evolve(business, other_services=(other,))
    appointments = draw(_appointments_for(business, query, now, resource_ids=resource_ids))
    return attrs.evolve(business, appointments=appointments), query, now


@st.composite
def _appointments_for(
    draw: st.DrawFn,
    business: Business,
    query: AvailabilityQuery,
    now: datetime,
    *,
    resource_ids: list[str],
) -> tuple[Appointment, ...]:
    """
    Draw 0 to 8 appointments, in every status, that meet the business's slots.

    Most start near a slot the oracle offers without them (so that they decide slots through
    padding, booking limits, capacity and daily limits); the rest start on a 5-minute grid over
    the searched days (local midnight to midnight, two hours either side). Some stack on the
    previous appointment's start. IN holds expire a minute before, at, or a minute after ``now``
    (or half an hour either side).
    """
    free_slots = oracle_slots(business, query, now)
    local_first = datetime.combine(
        query.start_date, datetime.min.time(), load_zone(business.location.timezone)
    )
    searched_minutes = ((query.end_date - query.start_date).days + 1) * MINUTES_PER_DAY
    statuses = (
        AppointmentStatus.BOOKED,
        AppointmentStatus.BOOKED,
        AppointmentStatus.RESERVED,
        AppointmentStatus.NO_SHOW,
        AppointmentStatus.INITIAL,
        AppointmentStatus.INITIAL,
        AppointmentStatus.CANCELLED,
        AppointmentStatus.RESCHEDULED,
    )
    service_ids = [business.service.id, business.service.id]
    service_ids += [service.id for service in business.other_services]
    found: list[Appointment] = []
    for number in range(draw(st.integers(0, 8))):
        resource_id = draw(st.sampled_from(resource_ids))
        stacked = draw(_one_in(3))
        if found and stacked:
            start = found[-1].start
            resource_id = found[-1].resource_ids[0]
        elif free_slots and not draw(_one_in(3)):
            slot = draw(st.sampled_from(free_slots))
            shift = draw(st.sampled_from((-30, -15, -5, -1, 0, 0, 1, 5, 15, 30)))
            start = slot.start + timedelta(minutes=shift)
            resource_id = slot.resource_id
        else:
            offset = draw(st.integers(-24, (searched_minutes + 120) // 5)) * 5
            start = (local_first + timedelta(minutes=offset)).astimezone(UTC)
        status = draw(st.sampled_from(statuses))
        hold = None
        if status is AppointmentStatus.INITIAL:
            hold = now + timedelta(minutes=draw(st.sampled_from((-30, -1, 0, 1, 30))))
        found.append(
            Appointment(
                id=f"appointment-{number}",
                company_id=business.company.id,
                location_id=business.location.id,
                service_id=draw(st.sampled_from(service_ids)),
                calendar_id=business.calendar.id,
                resource_ids=(resource_id,),
                status=status,
                start=start,
                end=start + timedelta(minutes=draw(st.sampled_from((1, 15, 30, 60, 90, 120)))),
                group_size=draw(st.integers(1, 2)),
                created_at=now - timedelta(minutes=20),
                hold_expires_at=hold,
            )
        )
    return tuple(found)


# --- Bookable businesses (tests/property/test_listing_agrees_with_booking.py) ------------------


@st.composite
def bookable_cases(
    draw: st.DrawFn, *, max_resources: int = 2
) -> tuple[Business, AvailabilityQuery, datetime]:
    """
    Draw ``(business, query, now)`` like :func:`availability_cases`, but one that usually offers
    slots on its first searched day: open every day, recurring resources, an appointment
    service, a week's book-ahead, and blocks, allocations, limits, padding and appointments
    still deciding which slots are free. Grid steps are 5 minutes or more, so a day lists at
    most a few hundred slots per resource. The query asks for every resource, round robin
    ``none``, on the service's own grid (no ``interval``).
    """
    zone_name = draw(zones())
    start_date, end_date = draw(searched_dates(zone_name=zone_name))
    company = Company(id="company-1", name="Bookable Spa", timezone=zone_name)
    location = Location(
        id="location-1",
        company_id="company-1",
        name="Downtown",
        timezone=zone_name,
        is_primary=True,
        business_hours=draw(_friendly_business_hours()),
        holidays=draw(
            st.lists(
                _near(start_date, before=1, after=1).map(lambda d: Holiday(date=d)), max_size=1
            )
            if draw(_one_in(8))
            else st.just([])
        ),
        settings=LocationSettings(booking_window=draw(booking_windows(friendly=True))),
        primary_calendar_id="calendar-1",
    )
    calendar = Calendar(
        id="calendar-1",
        name="Downtown",
        interval=draw(st.sampled_from(SLOT_INTERVALS[1:])),
        bookings_per_slot=draw(st.integers(1, 3)),
        primary=True,
        company_id="company-1",
        location_id="location-1",
    )
    capacity = draw(st.sampled_from((0, 0, 1, 2, 4)))
    service = Service(
        id="service-1",
        name="Massage",
        duration=draw(st.one_of(st.sampled_from((15, 30, 45, 60, 90)), st.integers(5, 180))),
        padding=draw(st.sampled_from((0, 0, 5, 10, 15, 30))),
        booking_interval=draw(st.none() | st.sampled_from(SLOT_INTERVALS[1:])),
        booking_limit=draw(st.sampled_from((0, 0, 1, 2, 3))),
        max_capacity=capacity,
        max_group_size=min(capacity, draw(st.integers(1, 2))) if capacity else 0,
        daily_booking_limit_count=draw(st.sampled_from((0, 0, 0, 2, 4))),
        daily_booking_limit_minutes=draw(st.sampled_from((0, 0, 0, 120, 240))),
        booking_window=draw(st.none() | booking_windows(friendly=True)),
        availability=draw(st.just(WeeklyHours.always()) | _friendly_weekly_hours()),
        company_id="company-1",
        location_id="location-1",
    )
    resource_ids = [f"resource-{n}" for n in range(1, draw(st.integers(1, max_resources)) + 1)]
    resource_list = [
        Resource(
            id=resource_id,
            name=resource_id,
            timezone=zone_name if draw(_one_in(4)) is False else draw(zones()),
            weekly_hours=draw(st.just(WeeklyHours.always()) | _friendly_weekly_hours()),
            options=ResourceOptions(ignore_business_hours=draw(_one_in(5))),
            linked_service_ids=draw(st.sampled_from(((),) * 6 + (("service-1",), ("service-2",)))),
            deleted=draw(_one_in(16)),
            company_id="company-1",
            location_id="location-1",
        )
        for resource_id in resource_ids
    ]
    block_targets = [
        (BlockTarget.CALENDAR, "calendar-1"),
        (BlockTarget.SERVICE, "service-1"),
        *((BlockTarget.RESOURCE, resource_id) for resource_id in resource_ids),
    ]
    block_list = []
    for number in range(draw(st.integers(0, 2))):
        block_target, target_id = draw(st.sampled_from(block_targets))
        fields = draw(_near_window_fields(around=start_date))
        # An all-day block of the calendar would close the whole day: keep blocks partial.
        fields.update(all_day=False)
        if (fields["start_time"], fields["end_time"]) == (0, END_OF_DAY):
            fields.update(end_time=1200)
        block_list.append(
            Block(
                id=f"block-{number}",
                target=block_target,
                target_id=target_id,
                company_id="company-1",
                location_id="location-1",
                **fields,
            )
        )
    allocation_targets = [
        (AllocationTarget.SERVICE, "service-1"),
        *((AllocationTarget.RESOURCE, resource_id) for resource_id in resource_ids),
    ]
    allocation_list = [
        Allocation(
            id=f"allocation-{number}",
            target=target,
            target_id=target_id,
            booking_limit=draw(st.sampled_from((0, 1, 2, 4))),
            company_id="company-1",
            location_id="location-1",
            **draw(_near_window_fields(around=start_date)),
        )
        for number, (target, target_id) in enumerate(
            draw(st.lists(st.sampled_from(allocation_targets), max_size=2))
        )
    ]
    # Mostly before the first searched day starts in the location's zone, sometimes inside it.
    local_midnight = datetime.combine(start_date, datetime.min.time(), load_zone(zone_name))
    now = local_midnight.astimezone(UTC) + timedelta(minutes=draw(st.integers(-2 * 1440, 240)))
    query = AvailabilityQuery(
        service_id="service-1",
        start_date=start_date,
        end_date=end_date,
        location_id="location-1",
        round_robin=RoundRobin.NONE,
    )
    business = Business(
        company=company,
        location=location,
        calendar=calendar,
        service=service,
        resources=tuple(resource_list),
        blocks=tuple(block_list),
        allocations=tuple(allocation_list),
    )
    appointments = draw(_appointments_for(business, query, now, resource_ids=resource_ids))
    return attrs.evolve(business, appointments=appointments), query, now
