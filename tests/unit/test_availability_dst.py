"""Availability on named DST dates and across zones (decisions 1-3); expected values in UTC."""

from __future__ import annotations

import itertools
from datetime import UTC, date, datetime, timedelta
from typing import Any

import pytest

from slotwise._time import wall_to_instant, zone
from slotwise.availability.calculator import available_times, unavailable_times
from slotwise.availability.query import AvailabilityQuery
from slotwise.availability.results import Reason
from slotwise.availability.snapshot import Snapshot
from slotwise.model import (
    Block,
    BookingWindow,
    BusinessHours,
    Calendar,
    Company,
    DayHours,
    DayWindow,
    Location,
    LocationSettings,
    RepeatRule,
    Resource,
    RoundRobin,
    Service,
    WeeklyHours,
)

NOW = datetime(2025, 12, 1, tzinfo=UTC)
"""Early enough that no searched date is in the past; the book-ahead window is two years."""


def every_day(start: int, end: int) -> BusinessHours:
    """Return business hours open *start*..*end* on every weekday."""
    day = DayHours.open(start, end)
    return BusinessHours(sun=day, mon=day, tue=day, wed=day, thu=day, fri=day, sat=day)


def snapshot(
    zone: str,
    hours: BusinessHours,
    *,
    resource_zone: str | None = None,
    resource_hours: WeeklyHours | None = None,
    **fields: Any,
) -> Snapshot:
    """Return a one-resource snapshot of a location in *zone* with *hours*, hourly 60-minute slots."""
    location = Location(
        id="l1",
        company_id="c1",
        name="Main",
        timezone=zone,
        is_primary=True,
        business_hours=hours,
        primary_calendar_id="cal1",
        settings=LocationSettings(
            booking_window=BookingWindow(book_ahead_unit="months", book_ahead_value=24)
        ),
    )
    return Snapshot(
        company=Company(id="c1", name="Acme", timezone=zone),
        location=location,
        calendar=Calendar(id="cal1", company_id="c1", location_id="l1", name="Main", interval=60),
        service=Service(
            id="s1",
            company_id="c1",
            location_id="l1",
            name="Hour",
            duration=60,
            availability=hours.as_weekly(),
            round_robin=RoundRobin.NONE,
        ),
        resources=(
            Resource(
                id="r1",
                company_id="c1",
                location_id="l1",
                name="Ann",
                timezone=resource_zone or zone,
                weekly_hours=resource_hours or hours.as_weekly(),
            ),
        ),
        **fields,
    )


def utc_starts(snap: Snapshot, first: date, last: date | None = None, **fields: Any) -> list[str]:
    """Return the slot starts of the dates as ``YYYY-MM-DDTHH:MMZ`` strings."""
    query = AvailabilityQuery(service_id="s1", start_date=first, end_date=last or first, **fields)
    return [
        slot.start.astimezone(UTC).strftime("%Y-%m-%dT%H:%MZ")
        for slot in available_times(snap, query, NOW).available_times
    ]


class TestSpringForward:
    def test_new_york_nine_to_five_on_2026_03_08(self):
        """New York 09:00-17:00 hourly on spring-forward day: 8 slots 13:00Z..20:00Z."""
        found = utc_starts(snapshot("America/New_York", every_day(900, 1700)), date(2026, 3, 8))

        assert [f"2026-03-08T{hour:02d}:00Z" for hour in range(13, 21)] == found

    def test_full_day_has_23_hourly_slots(self):
        """A 24-hour New York day on 2026-03-08 has 23 hourly slots."""
        snap = snapshot("America/New_York", BusinessHours.always())

        assert 23 == len(utc_starts(snap, date(2026, 3, 8)))

    def test_window_edge_in_the_gap(self):
        """01:00-03:00 on 2026-03-08 is one real hour (03:00 EDT = 07:00Z): one slot at 06:00Z."""
        found = utc_starts(snapshot("America/New_York", every_day(100, 300)), date(2026, 3, 8))

        assert ["2026-03-08T06:00Z"] == found


class TestFallBack:
    def test_full_day_has_25_hourly_slots(self):
        """A 24-hour New York day on 2026-11-01 has 25 hourly slots."""
        found = utc_starts(snapshot("America/New_York", BusinessHours.always()), date(2026, 11, 1))

        assert 25 == len(found)
        assert ("2026-11-01T04:00Z", "2026-11-02T04:00Z") == (found[0], found[-1])

    def test_window_in_the_fold_keeps_the_repeated_hour(self):
        """01:00-02:00 on 2026-11-01 starts at the earlier 01:00 and ends at the later 02:00."""
        found = utc_starts(snapshot("America/New_York", every_day(100, 200)), date(2026, 11, 1))

        assert ["2026-11-01T05:00Z", "2026-11-01T06:00Z"] == found

    def test_window_ending_where_the_fold_begins_holds_no_repeated_time(self):
        """A 00:00-01:00 block on 2026-11-01 ends at the first 01:00 (05:00Z), not the second."""
        block = Block(
            id="b1",
            company_id="c1",
            location_id="l1",
            target="calendar",
            target_id="cal1",
            start_date=date(2026, 11, 1),
            end_date=date(2026, 11, 1),
            start_time=0,
            end_time=100,
        )
        snap = snapshot("America/New_York", BusinessHours.always(), blocks=(block,))

        assert datetime(2026, 11, 1, 5, tzinfo=UTC) == wall_to_instant(
            date(2026, 11, 1), 60, zone("America/New_York"), edge="end"
        )
        assert "2026-11-01T05:00Z" == utc_starts(snap, date(2026, 11, 1))[0]


class TestOddOffsets:
    def test_kathmandu_quarter_hour_offset(self):
        """Asia/Kathmandu (+05:45) 09:00-12:00 hourly gives 03:15Z, 04:15Z, 05:15Z."""
        found = utc_starts(snapshot("Asia/Kathmandu", every_day(900, 1200)), date(2026, 3, 2))

        assert ["2026-03-02T03:15Z", "2026-03-02T04:15Z", "2026-03-02T05:15Z"] == found


class TestResourceZone:
    def test_new_york_resource_at_a_london_location_in_winter(self):
        """A New York 09:00-17:00 resource at a London 09:00-17:00 location: 14:00Z-17:00Z."""
        snap = snapshot("Europe/London", every_day(900, 1700), resource_zone="America/New_York")

        assert ["2026-01-12T14:00Z", "2026-01-12T15:00Z", "2026-01-12T16:00Z"] == utc_starts(
            snap, date(2026, 1, 12)
        )

    def test_when_only_new_york_has_moved_its_clocks(self):
        """Between the US and UK changes (2026-03-16) the overlap is 13:00Z-17:00Z."""
        snap = snapshot("Europe/London", every_day(900, 1700), resource_zone="America/New_York")

        assert [f"2026-03-16T{hour}:00Z" for hour in (13, 14, 15, 16)] == utc_starts(
            snap, date(2026, 3, 16)
        )

    def test_resource_evening_hours_fall_on_the_next_location_date(self):
        """New York 20:00-23:00 (winter) is 01:00Z-04:00Z of the next London date."""
        snap = snapshot(
            "Europe/London",
            BusinessHours.always(),
            resource_zone="America/New_York",
            resource_hours=WeeklyHours.every_day(DayWindow(start_time=2000, end_time=2300)),
        )

        assert ["2026-01-13T01:00Z", "2026-01-13T02:00Z", "2026-01-13T03:00Z"] == utc_starts(
            snap, date(2026, 1, 13)
        )


class TestOrdering:
    @pytest.mark.parametrize("zone", ["America/New_York", "Europe/London", "Australia/Lord_Howe"])
    def test_slots_strictly_increase_across_dst_dates(self, zone: str):
        """Over a year of 24-hour days every slot list is strictly increasing, without duplicates."""
        snap = snapshot(zone, BusinessHours.always())
        query = AvailabilityQuery(
            service_id="s1", start_date=date(2026, 1, 1), end_date=date(2026, 12, 31), interval=30
        )
        # Compare in UTC: Python compares two datetimes of one ZoneInfo by wall time, which
        # ignores the fold (01:30 EDT would sort after 01:00 EST).
        starts = [
            slot.start.astimezone(UTC) for slot in available_times(snap, query, NOW).available_times
        ]

        assert all(earlier < later for earlier, later in itertools.pairwise(starts))
        assert 365 * 47 == len(starts)


class TestBlocksAcrossDst:
    def test_weekly_evening_block_keeps_its_wall_time(self):
        """A weekly 18:00 New York block from 2026-10-26 lands at 22:00Z, 23:00Z, 23:00Z."""
        block = Block(
            id="b1",
            company_id="c1",
            location_id="l1",
            target="calendar",
            target_id="cal1",
            start_date=date(2026, 10, 26),
            end_date="never",
            start_time=1800,
            end_time=1900,
            repeat=RepeatRule(frequency="W", weekdays="1"),
        )
        snap = snapshot("America/New_York", BusinessHours.always(), blocks=(block,))
        query = AvailabilityQuery(
            service_id="s1", start_date=date(2026, 10, 26), end_date=date(2026, 11, 9)
        )
        found = unavailable_times(snap, query, NOW).unavailable_times

        assert [
            datetime(2026, 10, 26, 22, tzinfo=UTC),
            datetime(2026, 11, 2, 23, tzinfo=UTC),
            datetime(2026, 11, 9, 23, tzinfo=UTC),
        ] == [item.start for item in found if item.reason_code is Reason.CALENDAR_BLOCK]

    def test_unavailable_and_free_time_fill_a_23_hour_day(self):
        """On 2026-03-08 a closed New York day is one CL stretch of 23 hours."""
        snap = snapshot("America/New_York", BusinessHours(), blocks=())
        query = AvailabilityQuery(
            service_id="s1", start_date=date(2026, 3, 8), end_date=date(2026, 3, 8)
        )
        found = unavailable_times(snap, query, NOW).unavailable_times

        assert [(Reason.CLOSED, timedelta(hours=23), 0, 2400)] == [
            (
                item.reason_code,
                item.end.astimezone(UTC) - item.start.astimezone(UTC),
                item.from_time,
                item.to_time,
            )
            for item in found
        ]


def _answered_within(seconds: float, call: Any) -> Any:
    """Return ``call()``'s answer, failing the test (not hanging it) when none comes in time."""
    import threading

    answers: list[Any] = []
    worker = threading.Thread(target=lambda: answers.append(call()), daemon=True)
    worker.start()
    worker.join(seconds)
    assert not worker.is_alive(), f"no answer within {seconds} s"
    return answers[0]


class TestOffsetsWithSeconds:
    """
    Local mean time (Kolkata +05:21:10 until 1906, Riyadh +03:06:52 until 1947) puts midnight
    inside a minute: the walk from one day's midnight to the next must still move on.
    """

    @pytest.mark.parametrize(
        ("location_zone", "day", "output_zone"),
        [
            ("Asia/Kolkata", date(1905, 12, 31), None),
            ("Africa/Monrovia", date(1971, 6, 1), None),
            ("America/New_York", date(1946, 1, 1), "Asia/Riyadh"),
        ],
    )
    def test_unavailable_times_answer(self, location_zone, day, output_zone):
        """The day's unavailable stretches come back, split at the output zone's midnights."""
        from slotwise import Scheduler
        from slotwise.testing import ManualClock

        scheduler = Scheduler(clock=ManualClock(datetime(2026, 11, 20, 12, tzinfo=UTC)))
        company = scheduler.create_company(name="Acme", timezone=location_zone)
        ws = scheduler.for_company(company.id)
        ws.locations.create(name="Downtown")
        service = ws.services.create(name="Massage", duration=60, reason="x")
        ws.resources.create(name="Ana", reason="x")
        options = {"timezone_name": output_zone} if output_zone else {}

        gone = _answered_within(
            60, lambda: ws.availability.unavailable(service.id, day, day, **options)
        )
        explained = _answered_within(
            60,
            lambda: ws.availability.explain(
                service.id, datetime.combine(day, datetime.min.time(), UTC).replace(hour=6)
            ),
        )

        assert gone.unavailable_times
        assert {piece.reason_code for piece in gone.unavailable_times} == {Reason.TIME_PAST}
        assert explained.reasons
