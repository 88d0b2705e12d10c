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
from datetime import UTC, datetime, timedelta

import attrs
from hypothesis import given

from slotwise._time import zone
from slotwise.availability.calculator import available_times, free_time, unavailable_times
from slotwise.availability.query import AvailabilityQuery
from slotwise.availability.results import Reason, Slot, UnavailableTime
from slotwise.availability.snapshot import Snapshot
from slotwise.scheduler import Scheduler
from slotwise.storage.memory import MemoryStore
from slotwise.testing import ManualClock, SequentialIds
from tests import strategies
from tests.oracle import (
    Business,
    OracleSlot,
    candidate_ids,
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
            tx.insert(record)  # type: ignore[arg-type]
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
            # In UTC: aware arithmetic inside one ZoneInfo adds wall time, not elapsed time.
            assert slot.start.astimezone(UTC) + timedelta(minutes=slot.duration) == slot.end


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
