"""
Hypothesis strategies for valid slotwise model values (STYLE rule 31: every strategy lives here).

Each strategy draws only values that the model's validators accept, so ``draw`` never raises;
``tests/unit/test_strategies.py`` proves it. Record ids are parameters, so a test can tie a block,
a service and an appointment to the same location.
"""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from typing import Any

from hypothesis import strategies as st

from slotwise._time import END_OF_DAY, MINUTES_PER_DAY, minutes_to_hhmm
from slotwise.model import (
    OPEN_END,
    SLOT_INTERVALS,
    Allocation,
    AllocationTarget,
    Appointment,
    AppointmentStatus,
    Block,
    BlockTarget,
    BusinessHours,
    DayHours,
    DayWindow,
    Frequency,
    MonthType,
    RepeatRule,
    Resource,
    RoundRobin,
    Service,
    ServiceType,
    WeeklyHours,
)

__all__ = [
    "ZONES",
    "allocations",
    "appointments",
    "blocks",
    "business_hours",
    "day_hours",
    "day_windows",
    "hhmm",
    "names",
    "repeat_rules",
    "resources",
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
