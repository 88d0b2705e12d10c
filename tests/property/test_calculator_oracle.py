"""
The availability calculator agrees with the minute-by-minute oracle (``tests/oracle.py``).

Random businesses (``tests.strategies.availability_cases``): a location in a zone with DST changes
(often on a transition date, always on a named one in :class:`TestNamedDstDates`), resources in
other zones, hours, holidays, blocks and allocations with repeat rules, booking limits, capacity,
daily limits, padding, steps, lead time, book-ahead, and appointments in every status, IN holds
expired and not. Each case is run through the pure calculator on a snapshot built from the records
and through ``Workspace.availability`` on a ``MemoryStore`` (which reads the snapshot itself), and
both must equal the oracle exactly.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, date, datetime, timedelta

import attrs
from hypothesis import given

from slotwise._time import zone
from slotwise.availability.calculator import available_times, free_time, unavailable_times
from slotwise.availability.query import AvailabilityQuery
from slotwise.availability.results import Reason, Slot, UnavailableTime
from slotwise.availability.snapshot import Snapshot
from slotwise.model import (
    Block,
    BlockTarget,
    BookingWindow,
    BusinessHours,
    Calendar,
    Company,
    DayHours,
    Frequency,
    Location,
    LocationSettings,
    RepeatRule,
    Resource,
    RoundRobin,
    Service,
    WeeklyHours,
)
from slotwise.scheduler import Scheduler
from slotwise.storage.memory import MemoryStore
from slotwise.testing import ManualClock, SequentialIds
from tests import strategies
from tests.oracle import (
    Business,
    OracleSlot,
    candidate_ids,
    occurs_on,
    oracle_reasons,
    oracle_slots,
    searched_minutes,
)

Case = tuple[Business, AvailabilityQuery, datetime]


def snapshot_of(business: Business) -> Snapshot:
    """Return the snapshot the calculator would read for *business*."""
    return Snapshot(
        company=business.company,
        location=business.location,
        calendar=business.calendar,
        service=business.service,
        resources=business.resources,
        blocks=business.blocks,
        allocations=business.allocations,
        appointments=business.appointments,
        paddings={service.id: service.padding for service in business.other_services},
    )


def as_oracle_slots(slots: Iterable[Slot]) -> list[OracleSlot]:
    """Return the calculator's slots in the oracle's shape (UTC start), sorted."""
    return sorted(
        OracleSlot(
            start=slot.start.astimezone(UTC),
            resource_id=slot.resource_id or "",
            allowable_bookings=slot.allowable_bookings,
            available_bookings=slot.available_bookings,
            allowable_capacity=slot.allowable_capacity,
            available_capacity=slot.available_capacity,
        )
        for slot in slots
    )


def calculator_slots(case: Case) -> list[Slot]:
    """Return the pure calculator's slots for *case*."""
    business, query, now = case
    return list(available_times(snapshot_of(business), query, now).available_times)


def workspace_slots(case: Case) -> list[Slot]:
    """Return the slots ``Workspace.availability.times`` finds with the records in a store."""
    business, query, now = case
    store = MemoryStore()
    with store.transaction() as tx:
        for record in business.records():
            tx.insert(record)
    workspace = Scheduler(store, clock=ManualClock(now), ids=SequentialIds()).for_company(
        business.company.id
    )
    result = workspace.availability.times(
        query.service_id,
        query.start_date,
        query.end_date,
        location_id=query.location_id,
        interval=query.interval,
        round_robin=query.round_robin,
    )
    return list(result.available_times)


def difference(expected: list[OracleSlot], actual: list[OracleSlot]) -> str:
    """Describe the slots only one side has (the first few of each)."""
    missing = sorted(set(expected) - set(actual))
    extra = sorted(set(actual) - set(expected))
    return f"only the oracle has {missing[:5]} ({len(missing)}); only the calculator has {extra[:5]} ({len(extra)})"


def assert_agrees(case: Case) -> None:
    """Assert that the calculator, pure and through the workspace, gives the oracle's slots."""
    expected = oracle_slots(*case)
    pure = calculator_slots(case)
    actual = as_oracle_slots(pure)

    assert expected == actual, difference(expected, actual)
    via_store = as_oracle_slots(workspace_slots(case))
    assert expected == via_store, difference(expected, via_store)


def minutes_of(start: datetime, end: datetime) -> list[datetime]:
    """Return the minute instants of ``[start, end)`` in UTC."""
    first, last = start.astimezone(UTC), end.astimezone(UTC)
    count = int((last - first).total_seconds() // 60)
    return [first + timedelta(minutes=n) for n in range(count)]


class TestOracleAgreement:
    @given(strategies.availability_cases())
    def test_slots_equal_the_oracle(self, case: Case):
        """On random businesses every slot (start, resource, bookings, capacity) equals the oracle's."""
        assert_agrees(case)

    @given(strategies.availability_cases(named_dates=True))
    def test_slots_equal_the_oracle_on_named_dst_dates(self, case: Case):
        """New York 2026-03-08 / 2026-11-01 and Amsterdam 2023-03-26 / 2023-10-29 agree too."""
        assert_agrees(case)

    @given(strategies.availability_cases())
    def test_slots_are_sorted_and_unique(self, case: Case):
        """Slots come sorted by start; each resource's starts strictly increase in UTC."""
        slots = calculator_slots(case)
        starts = [slot.start.astimezone(UTC) for slot in slots]

        assert sorted(starts) == starts
        for resource_id in {slot.resource_id for slot in slots}:
            own = [slot.start.astimezone(UTC) for slot in slots if slot.resource_id == resource_id]
            assert sorted(set(own)) == own

    @given(strategies.availability_cases())
    def test_slot_fields_are_wall_values_of_the_location(self, case: Case):
        """Without a requested zone a slot carries the location's offset at its instant, and ends a duration later."""
        business, _query, _now = case
        tz = zone(business.location.timezone)
        for slot in calculator_slots(case):
            local = slot.start.astimezone(tz)

            assert local.utcoffset() == slot.start.utcoffset()
            assert (local.date(), local.hour * 100 + local.minute) == (slot.date, slot.time)
            assert business.service.duration == slot.duration
            # Both sides in UTC: arithmetic inside one ZoneInfo adds wall time, and an aware time
            # in a fold never equals one of another zone (PEP 495).
            assert slot.start.astimezone(UTC) + timedelta(
                minutes=slot.duration
            ) == slot.end.astimezone(UTC)


def labelled_minutes(stretches: Iterable[UnavailableTime], resource_id: str) -> list[datetime]:
    """Return the minutes of *resource_id*'s unavailable stretches, with repeats."""
    return [
        minute
        for stretch in stretches
        if stretch.resource_id == resource_id
        for minute in minutes_of(stretch.start, stretch.end)
    ]


class TestPartition:
    """
    Unavailable times and free time partition each resource's searched range.

    The calculator defines free time as the minutes that carry no decision-15 label
    (``free_time``), and documents that free time and ``unavailable_times`` partition each searched
    day. The properties, for each candidate resource R and the minutes m of the searched dates
    (``[start_date 00:00, end_date + 1 00:00)`` in the location's zone, decision 2):

    1. every m lies in exactly one of R's free time and R's unavailable stretches;
    2. m's label, or "free", is the oracle's first cause for m (``oracle_reasons``);
    3. with one-minute slots on a one-minute grid and no padding, R's available times (slot
       starts) and R's unavailable stretches cover every m exactly once.
    """

    @given(strategies.availability_cases())
    def test_free_and_unavailable_time_cover_each_minute_once(self, case: Case):
        """Every searched minute is in exactly one of R's free time and R's unavailable stretches."""
        business, query, now = case
        snapshot = snapshot_of(business)
        searched = searched_minutes(business, query)
        free = free_time(snapshot, query, now)
        unavailable = unavailable_times(snapshot, query, now).unavailable_times
        candidates = candidate_ids(business, query)

        assert set(candidates) == set(free) | {stretch.resource_id for stretch in unavailable}
        for resource_id in candidates:
            free_minutes = [
                minute
                for interval in free.get(resource_id, ())
                for minute in minutes_of(interval.start, interval.end)
            ]
            covered = sorted(free_minutes + labelled_minutes(unavailable, resource_id))
            assert searched == covered

    @given(strategies.availability_cases())
    def test_each_minute_has_the_oracles_cause(self, case: Case):
        """Each searched minute's label (None when free) is the first cause the oracle finds."""
        business, query, now = case
        unavailable = unavailable_times(snapshot_of(business), query, now).unavailable_times
        for resource_id, causes in oracle_reasons(*case).items():
            labels: dict[datetime, Reason | None] = dict.fromkeys(causes)
            for stretch in unavailable:
                if stretch.resource_id == resource_id:
                    for minute in minutes_of(stretch.start, stretch.end):
                        labels[minute] = stretch.reason_code
            wrong = sorted(
                (minute, cause, labels[minute])
                for minute, cause in causes.items()
                if labels[minute] != cause
            )

            assert [] == wrong[:3], (
                f"{resource_id}: {len(wrong)} minutes differ (oracle, calculator)"
            )

    @given(strategies.availability_cases(minute_grid=True))
    def test_one_minute_slots_and_unavailable_times_cover_each_minute_once(self, case: Case):
        """With 1-minute slots, a 1-minute step and no padding, slot starts + labels cover each minute once."""
        business, query, now = case
        business = attrs.evolve(business, service=attrs.evolve(business.service, padding=0))
        snapshot = snapshot_of(business)
        slots = available_times(snapshot, query, now).available_times
        unavailable = unavailable_times(snapshot, query, now).unavailable_times
        searched = searched_minutes(business, query)
        for resource_id in candidate_ids(business, query):
            starts = [
                slot.start.astimezone(UTC) for slot in slots if slot.resource_id == resource_id
            ]
            covered = sorted(starts + labelled_minutes(unavailable, resource_id))

            assert searched == covered


def simple_business(
    zone_name: str, start: int, end: int, *, blocks: tuple[Block, ...] = ()
) -> Business:
    """Return a business open ``start``..``end`` every day in *zone_name*, one resource, 60-minute slots."""
    day = DayHours.open(start, end)
    return Business(
        company=Company(id="company-1", name="Fixed", timezone=zone_name),
        location=Location(
            id="location-1",
            company_id="company-1",
            name="Fixed",
            timezone=zone_name,
            is_primary=True,
            business_hours=BusinessHours(**dict.fromkeys(WEEKDAYS, day)),
            settings=LocationSettings(
                booking_window=BookingWindow(book_ahead_unit="months", book_ahead_value=24)
            ),
            primary_calendar_id="calendar-1",
        ),
        calendar=Calendar(
            id="calendar-1",
            company_id="company-1",
            location_id="location-1",
            name="Fixed",
            interval=60,
        ),
        service=Service(
            id="service-1",
            company_id="company-1",
            location_id="location-1",
            name="Hour",
            duration=60,
            availability=WeeklyHours.always(),
        ),
        resources=(
            Resource(
                id="resource-1",
                name="Ana",
                timezone=zone_name,
                weekly_hours=WeeklyHours.always(),
                company_id="company-1",
                location_id="location-1",
            ),
        ),
        blocks=blocks,
    )


WEEKDAYS = ("sun", "mon", "tue", "wed", "thu", "fri", "sat")
NEW_YEAR = datetime(2026, 1, 1, tzinfo=UTC)
"""``now`` for the fixed points: 2026 lies within its 24-month book-ahead."""


def utc_hours(slots: Iterable[OracleSlot]) -> list[str]:
    """Return the UTC start times of *slots* as ``HH:MMZ``."""
    return [slot.start.strftime("%H:%MZ") for slot in slots]


def one_day(day: date) -> AvailabilityQuery:
    """Return a query for every resource on *day*."""
    return AvailabilityQuery(
        service_id="service-1", start_date=day, end_date=day, round_robin=RoundRobin.NONE
    )


class TestOracleFixedPoints:
    """The oracle itself reproduces the named-date values of issue 3 (so a disagreement is news)."""

    def test_new_york_spring_forward_office_hours(self):
        """New York 09:00-17:00 hourly on 2026-03-08 gives 8 slots, 13:00Z to 20:00Z."""
        slots = oracle_slots(
            simple_business("America/New_York", 900, 1700), one_day(date(2026, 3, 8)), NEW_YEAR
        )

        assert [f"{hour}:00Z" for hour in range(13, 21)] == utc_hours(slots)

    def test_new_york_whole_days_across_dst(self):
        """A 00:00-24:00 day hourly has 23 slots on 2026-03-08 and 25 on 2026-11-01."""
        business = simple_business("America/New_York", 0, 2400)

        assert 23 == len(oracle_slots(business, one_day(date(2026, 3, 8)), NEW_YEAR))
        assert 25 == len(oracle_slots(business, one_day(date(2026, 11, 1)), NEW_YEAR))

    def test_kathmandu_quarter_hour_offset(self):
        """Asia/Kathmandu 09:00-12:00 hourly gives 03:15Z, 04:15Z, 05:15Z."""
        slots = oracle_slots(
            simple_business("Asia/Kathmandu", 900, 1200), one_day(date(2026, 5, 5)), NEW_YEAR
        )

        assert ["03:15Z", "04:15Z", "05:15Z"] == utc_hours(slots)

    def test_window_starting_in_the_fold_takes_its_first_pass(self):
        """New York 01:30-03:00 on 2026-11-01 runs 05:30Z-08:00Z (decision 2): slots 05:30Z, 06:30Z."""
        slots = oracle_slots(
            simple_business("America/New_York", 130, 300), one_day(date(2026, 11, 1)), NEW_YEAR
        )

        assert ["05:30Z", "06:30Z"] == utc_hours(slots)

    def test_window_starting_in_the_gap_starts_after_it(self):
        """New York 02:30-05:00 on 2026-03-08 starts at 03:00 EDT (07:00Z): slots 07:00Z, 08:00Z."""
        slots = oracle_slots(
            simple_business("America/New_York", 230, 500), one_day(date(2026, 3, 8)), NEW_YEAR
        )

        assert ["07:00Z", "08:00Z"] == utc_hours(slots)

    def test_weekly_evening_block_lands_on_utc_instants(self):
        """A weekly Monday 18:00 New York block from 2026-10-26 starts at 22:00Z, 23:00Z, 23:00Z."""
        block = Block(
            id="block-1",
            company_id="company-1",
            location_id="location-1",
            target=BlockTarget.CALENDAR,
            target_id="calendar-1",
            start_date=date(2026, 10, 26),
            end_date=date(2026, 11, 9),
            start_time=1800,
            end_time=1900,
            repeat=RepeatRule(frequency=Frequency.WEEKLY, weekdays="1"),
        )
        business = simple_business("America/New_York", 0, 2400, blocks=(block,))
        starts = []
        for day in (date(2026, 10, 26), date(2026, 11, 2), date(2026, 11, 9)):
            free = {slot.start for slot in oracle_slots(business, one_day(day), NEW_YEAR)}
            every = {
                slot.start
                for slot in oracle_slots(
                    simple_business("America/New_York", 0, 2400), one_day(day), NEW_YEAR
                )
            }
            starts += sorted(every - free)

        assert ["22:00Z", "23:00Z", "23:00Z"] == [start.strftime("%H:%MZ") for start in starts]

    def test_monthly_on_the_31st_skips_short_months(self):
        """Monthly on the 31st from 2026-01-31 falls on Jan, Mar, May, Jul, Aug, Oct 31 (decision 17)."""
        block = Block(
            id="block-1",
            company_id="company-1",
            location_id="location-1",
            target=BlockTarget.CALENDAR,
            target_id="calendar-1",
            start_date=date(2026, 1, 31),
            end_date=date(2026, 11, 30),
            repeat=RepeatRule(frequency=Frequency.MONTHLY),
        )
        found = [
            day
            for day in (date(2026, 1, 1) + timedelta(days=n) for n in range(365))
            if occurs_on(block, day)
        ]

        assert [date(2026, month, 31) for month in (1, 3, 5, 7, 8, 10)] == found
