"""
Bookings racing on ``MemoryStore`` with real threads (issue 4 "Prove it"; docs/appointments.md
"Concurrency").

Every race lines its workers up behind a ``threading.Barrier`` and runs with a tiny thread switch
interval, so the check and the write of one booking would interleave with another's if the unit
of work allowed it. Each race counts successes exactly and allows only the documented refusals:
any other exception fails the test.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable, Iterator
from datetime import datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from slotwise import Scheduler, Workspace
from slotwise.errors import CapacityExceeded, InvalidTransition, SlotUnavailable
from slotwise.model import (
    Appointment,
    AppointmentStatus,
    AuditEntry,
    Customer,
    Operation,
    OutboxEvent,
    Service,
    Trigger,
)
from slotwise.storage.memory import MemoryStore
from slotwise.testing import ManualClock, SequentialIds

NY = ZoneInfo("America/New_York")
START = datetime.fromisoformat("2026-01-05T09:00:00+00:00")
SLOT = datetime(2026, 1, 6, 10, 0, tzinfo=NY)
HALF_HOUR = timedelta(minutes=30)
WORKERS = 16
ATTEMPTS = 50

Outcome = tuple[int, int, Any]
"""(worker, attempt, the call's result or the exception it raised)."""


@pytest.fixture(autouse=True)
def eager_switching() -> Iterator[None]:
    """Switch threads every microsecond, so racing units of work would really interleave."""
    before = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    yield
    sys.setswitchinterval(before)


class _World:
    """A company with one location (default hours), a 30-minute service and one resource."""

    def __init__(self, *, bookings_per_slot: int = 1, **service: Any) -> None:
        self.store = MemoryStore()
        self.clock = ManualClock(START)
        scheduler = Scheduler(self.store, clock=self.clock, ids=SequentialIds())
        company = scheduler.create_company(name="Acme", timezone="America/New_York")
        self.ws: Workspace = scheduler.for_company(company.id)
        location = self.ws.locations.create(name="Downtown")
        assert location.primary_calendar_id is not None
        self.ws.calendars.update(location.primary_calendar_id, bookings_per_slot=bookings_per_slot)
        self.service: Service = self.ws.services.create(
            name="Cut", duration=30, reason="r", **service
        )
        self.resource = self.ws.resources.create(name="Ana", reason="r")

    def book(self, start: datetime = SLOT, **fields: Any) -> Appointment:
        """Create a BK appointment of the resource at *start* (Ann by default)."""
        values: dict[str, Any] = {
            "resource_id": self.resource.id,
            "name": "Ann Lee",
            "email": "ann@example.com",
            "complete_booking": "BK",
        }
        values.update(fields)
        return self.ws.appointments.create(self.service.id, start, start + HALF_HOUR, **values)

    def active_at(self, start: datetime) -> list[Appointment]:
        """Return the active appointments of the resource starting at *start*."""
        with self.store.read() as reader:
            found = reader.appointments_overlapping(
                location_id=self.resource.location_id,
                resource_ids=[self.resource.id],
                start=start,
                end=start + HALF_HOUR,
            )
        return [a for a in found if a.is_active(self.clock.now()) and a.start == start]

    def records(self, kind: type[Any]) -> list[Any]:
        """Return every record of *kind*."""
        with self.store.read() as reader:
            return reader.find(kind, company_id=None)


def race(workers: int, attempts: int, call: Callable[[int, int], Any]) -> list[Outcome]:
    """
    Run *call* (worker, attempt) *attempts* times in each of *workers* threads, all released
    together by a barrier; return every outcome, exceptions included.
    """
    barrier = threading.Barrier(workers, timeout=30)
    outcomes: list[Outcome] = []
    lock = threading.Lock()

    def work(worker: int) -> None:
        barrier.wait()
        for attempt in range(attempts):
            try:
                result: Any = call(worker, attempt)
            except Exception as error:
                result = error
            with lock:
                outcomes.append((worker, attempt, result))

    threads = [threading.Thread(target=work, args=(n,)) for n in range(workers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert not any(thread.is_alive() for thread in threads), "a worker hung"
    assert workers * attempts == len(outcomes)
    return outcomes


def split(outcomes: list[Outcome]) -> tuple[list[Appointment], list[Exception]]:
    """Return the appointments made and the exceptions raised."""
    made = [result for _, _, result in outcomes if isinstance(result, Appointment)]
    errors = [result for _, _, result in outcomes if isinstance(result, Exception)]
    return made, errors


def unexpected(errors: list[Exception], *allowed: type[Exception]) -> list[Exception]:
    """Return the errors that are none of *allowed* (exactly those classes)."""
    return [error for error in errors if type(error) not in allowed]


class TestLastSeat:
    def test_sixteen_workers_fifty_attempts_one_success(self):
        """16 workers x 50 attempts on the one seat left: exactly one booking, the rest refused."""
        world = _World(bookings_per_slot=3)
        world.book(email="first@example.com")
        world.book(email="second@example.com")

        made, errors = split(
            race(
                WORKERS,
                ATTEMPTS,
                lambda worker, _: world.book(name="Bo Li", email=f"w{worker}@example.com"),
            )
        )

        assert 1 == len(made)
        assert [] == unexpected(errors, SlotUnavailable)
        assert WORKERS * ATTEMPTS - 1 == len(errors)
        assert 3 == len(world.active_at(SLOT))
        # Refused bookings leave nothing: three audit entries, and only the winner's customer.
        assert 3 == len(world.records(AuditEntry))
        assert ["first@example.com", "second@example.com", made[0].email] == [
            customer.email for customer in world.records(Customer)
        ]
        assert 1 == sum(
            1
            for event in world.records(OutboxEvent)
            if event.trigger is Trigger.BOOKING_CONFIRMATION and event.entity_id == made[0].id
        )


class TestBookingsPerSlot:
    def test_five_bookings_per_slot_take_exactly_five(self):
        """With bookings per slot 5, the racing workers book exactly five times."""
        world = _World(bookings_per_slot=5)

        made, errors = split(race(WORKERS, ATTEMPTS, lambda worker, _: world.book()))

        assert 5 == len(made)
        assert [] == unexpected(errors, SlotUnavailable)
        assert 5 == len(world.active_at(SLOT))
        assert 5 == sum(
            1
            for event in world.records(OutboxEvent)
            if event.trigger is Trigger.BOOKING_CONFIRMATION
        )


class TestRoundRobinRace:
    def test_two_resources_without_a_named_one_take_two(self):
        """No resource named, two free resources: exactly two bookings, one on each resource."""
        world = _World()
        other = world.ws.resources.create(name="Bea", reason="r")

        made, errors = split(
            race(WORKERS, ATTEMPTS, lambda worker, _: world.book(resource_id=None))
        )

        assert sorted([(world.resource.id,), (other.id,)]) == sorted(a.resource_ids for a in made)
        assert [] == unexpected(errors, SlotUnavailable)

    def test_multi_resource_bookings_never_share_a_resource(self):
        """Bookings of Ana+Bea together race bookings of each alone: no resource is taken twice."""
        world = _World()
        other = world.ws.resources.create(name="Bea", reason="r")
        choices: list[dict[str, Any]] = [
            {"resource_id": world.resource.id, "resource_ids": [other.id]},
            {"resource_id": world.resource.id},
            {"resource_id": other.id},
        ]

        made, errors = split(
            race(WORKERS, ATTEMPTS, lambda worker, n: world.book(**choices[(worker + n) % 3]))
        )

        taken = [rid for appointment in made for rid in appointment.resource_ids]
        assert sorted(taken) == sorted(set(taken))
        assert {world.resource.id, other.id} == set(taken)
        assert [] == unexpected(errors, SlotUnavailable)


class TestCapacity:
    def test_groups_of_one_to_four_fill_ten_places_exactly(self):
        """Capacity 10, groups 1..4 racing: never above 10, and (draining with 1s) exactly 10."""
        # The booking limit (20) is not the binding figure here, the capacity (10) is.
        world = _World(booking_limit=20, max_capacity=10, max_group_size=4)

        def attempt(worker: int, number: int) -> Appointment:
            if number < ATTEMPTS - 10:
                return world.book(group_size=(worker + number) % 4 + 1)
            # The last attempts book one person each, so any place left is taken.
            return world.book(group_size=1)

        made, errors = split(race(WORKERS, ATTEMPTS, attempt))

        people = sum(appointment.group_size for appointment in made)
        assert 10 == people
        assert [] == unexpected(errors, SlotUnavailable, CapacityExceeded)
        assert 10 == sum(a.group_size for a in world.active_at(SLOT))
        with pytest.raises(SlotUnavailable):
            world.book(group_size=1)


class TestConfirmRace:
    def test_ten_confirms_of_one_reservation_change_it_once(self):
        """10 concurrent confirms of one RS: one CONFIRM audit entry, one BookingConfirmation."""
        world = _World()
        reserved = world.book(complete_booking="RS")

        made, errors = split(
            race(10, 1, lambda _worker, _attempt: world.ws.appointments.confirm(reserved.id))
        )

        assert [] == errors
        assert {(AppointmentStatus.BOOKED, True)} == {(a.status, a.confirmed) for a in made}
        confirms = [
            entry for entry in world.records(AuditEntry) if entry.operation is Operation.CONFIRM
        ]
        assert [(AppointmentStatus.RESERVED, AppointmentStatus.BOOKED)] == [
            (entry.status_before, entry.status_after) for entry in confirms
        ]
        events = [
            event
            for event in world.records(OutboxEvent)
            if event.trigger is Trigger.BOOKING_CONFIRMATION
        ]
        assert [reserved.id] == [event.entity_id for event in events]


class TestCancelRacingReschedule:
    @pytest.mark.parametrize("round_", range(20))
    def test_exactly_one_wins(self, round_: int):
        """A cancel and a reschedule of one BK race: one wins, the other raises InvalidTransition."""
        world = _World()
        start = SLOT + round_ % 4 * HALF_HOUR
        booked = world.book(start)
        later = start + 6 * HALF_HOUR
        ops = world.ws.appointments
        calls: list[Callable[[], Appointment]] = [
            lambda: ops.cancel(booked.id),
            lambda: ops.reschedule(booked.id, start=later, end=later + HALF_HOUR),
        ]

        outcomes = race(2, 1, lambda worker, _: calls[worker]())

        results = {worker: result for worker, _, result in outcomes}
        cancelled, moved = results[0], results[1]
        errors = [result for result in results.values() if isinstance(result, Exception)]
        assert 1 == len(errors)
        assert [] == unexpected(errors, InvalidTransition)
        stored = world.ws.appointments.get(booked.id)
        if isinstance(cancelled, Appointment):
            # The cancel won: the reschedule found a cancelled appointment.
            assert (AppointmentStatus.CANCELLED, AppointmentStatus.CANCELLED) == (
                stored.status,
                errors[0].status,  # type: ignore[attr-defined]
            )
            assert [booked.id] == [a.id for a in world.records(Appointment)]
        else:
            # The reschedule won: the cancel found the old record rescheduled.
            assert isinstance(moved, Appointment)
            assert (AppointmentStatus.RESCHEDULED, AppointmentStatus.RESCHEDULED) == (
                stored.status,
                errors[0].status,  # type: ignore[attr-defined]
            )
            assert [
                (booked.id, AppointmentStatus.RESCHEDULED),
                (moved.id, AppointmentStatus.BOOKED),
            ] == [(a.id, a.status) for a in world.records(Appointment)]
        winners = [
            event.trigger
            for event in world.records(OutboxEvent)
            if event.trigger
            in (Trigger.CANCEL_RESERVATION_CONFIRMATION, Trigger.RESCHEDULE_CONFIRMATION)
        ]
        assert 1 == len(winners)
