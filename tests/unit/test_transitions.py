"""The transition table: every (status, operation) pair, as a function and through the operations."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

import pytest

from slotwise import Scheduler, Workspace
from slotwise.booking.transitions import DELETED, TRANSITIONS, Operation, transition
from slotwise.errors import InvalidTransition
from slotwise.model import RECORD_KINDS, Appointment, AppointmentStatus, Service
from slotwise.storage.memory import MemoryStore
from slotwise.testing import ManualClock, SequentialIds

IN, BK, RS = AppointmentStatus.INITIAL, AppointmentStatus.BOOKED, AppointmentStatus.RESERVED
CN, RE, NS = AppointmentStatus.CANCELLED, AppointmentStatus.RESCHEDULED, AppointmentStatus.NO_SHOW

EXPECTED: dict[tuple[AppointmentStatus | None, Operation], object] = {
    (None, Operation.CREATE_HOLD): IN,
    (None, Operation.CREATE_BOOKED): BK,
    (None, Operation.CREATE_RESERVED): RS,
    (None, Operation.RESCHEDULE): BK,
    (IN, Operation.BOOK): BK,
    (IN, Operation.RESERVE): RS,
    (IN, Operation.DELETE): DELETED,
    (IN, Operation.EXPIRE): DELETED,
    (RS, Operation.CONFIRM): BK,
    (BK, Operation.CONFIRM): BK,
    (BK, Operation.UNDO_CONFIRM): BK,
    (BK, Operation.CANCEL): CN,
    (RS, Operation.CANCEL): CN,
    (BK, Operation.RESCHEDULE): RE,
    (BK, Operation.NO_SHOW): NS,
}
"""Decisions 19-25, written out independently of the module under test."""

STATUSES: list[AppointmentStatus | None] = [None, *AppointmentStatus]
PAIRS = [(status, operation) for status in STATUSES for operation in Operation]


def _label(status: AppointmentStatus | None) -> str:
    """Return a status code, or "new"."""
    return "new" if status is None else status.value


class TestTable:
    @pytest.mark.parametrize(
        ("status", "operation"),
        PAIRS,
        ids=[f"{_label(status)}-{operation.value}" for status, operation in PAIRS],
    )
    def test_every_pair(self, status: AppointmentStatus | None, operation: Operation):
        """An allowed pair gives the decided outcome; any other raises naming status and operation."""
        if (status, operation) in EXPECTED:
            assert EXPECTED[(status, operation)] == transition(status, operation)
            return
        with pytest.raises(InvalidTransition) as info:
            transition(status, operation)

        assert (status, operation) == (info.value.status, info.value.operation)
        assert repr(operation.value) in info.value.message
        expected_status = "a new appointment" if status is None else f"status {status.value}"
        assert expected_status in info.value.message
        assert ("INVALID-TRANSITION", 409) == (info.value.code, info.value.http_status)

    def test_table_is_exactly_the_decisions(self):
        """The module's table holds exactly the decided pairs, nothing more."""
        assert EXPECTED == dict(TRANSITIONS)

    def test_final_statuses_have_no_way_out(self):
        """CN, RE and NS appear in no allowed pair as a starting status."""
        starts = {status for status, _ in TRANSITIONS}

        assert set() == starts & {CN, RE, NS}

    def test_table_is_read_only(self):
        """The table cannot be changed at run time."""
        with pytest.raises(TypeError):
            TRANSITIONS[(CN, Operation.BOOK)] = BK  # type: ignore[index]


# -- every operation on an appointment in every status ------------------------------------------

START = datetime.fromisoformat("2026-01-05T09:00:00+00:00")
SLOT = datetime.fromisoformat("2026-01-06T10:00:00-05:00")
HALF_HOUR = timedelta(minutes=30)


class _World:
    """A company with one location, service and resource, and a way to make appointments."""

    def __init__(self) -> None:
        self.clock = ManualClock(START)
        self.store = MemoryStore()
        scheduler = Scheduler(self.store, clock=self.clock, ids=SequentialIds())
        company = scheduler.create_company(name="Acme", timezone="America/New_York")
        self.ws: Workspace = scheduler.for_company(company.id)
        self.ws.locations.create(name="Downtown")
        self.service: Service = self.ws.services.create(name="Cut", duration=30, reason="r")
        self.resource = self.ws.resources.create(name="Ana", reason="r")
        self.ws.customers.create(first_name="Ann", email="ann@example.com")

    def make(self, status: AppointmentStatus) -> Appointment:
        """Return an appointment in *status*, made through the operations."""
        ops = self.ws.appointments
        code = {IN: None, RS: "RS"}.get(status, "BK")
        made = ops.create(
            self.service.id,
            SLOT,
            SLOT + HALF_HOUR,
            resource_id=self.resource.id,
            name="Ann Lee",
            email="ann@example.com",
            complete_booking=code,  # type: ignore[arg-type]
        )
        if status is CN:
            return ops.cancel(made.id)
        if status is RE:
            ops.reschedule(made.id, start=SLOT + HALF_HOUR, end=SLOT + 2 * HALF_HOUR)
            return ops.get(made.id)
        if status is NS:
            self.clock.set(SLOT)
            return ops.no_show(made.id)
        return made

    def snapshot(self) -> dict[str, list[Any]]:
        """Return every record of every kind."""
        with self.store.read() as reader:
            return {kind.__name__: reader.find(kind, company_id=None) for kind in RECORD_KINDS}


CALLS: dict[Operation, Callable[[_World, str], object]] = {
    Operation.BOOK: lambda world, id: world.ws.appointments.book(
        id, name="Bo Li", email="bo@example.com"
    ),
    Operation.RESERVE: lambda world, id: world.ws.appointments.reserve(
        id, name="Bo Li", email="bo@example.com"
    ),
    Operation.CONFIRM: lambda world, id: world.ws.appointments.confirm(id),
    Operation.UNDO_CONFIRM: lambda world, id: world.ws.appointments.undo_confirm(id),
    Operation.CANCEL: lambda world, id: world.ws.appointments.cancel(id),
    Operation.RESCHEDULE: lambda world, id: world.ws.appointments.reschedule(
        id, start=SLOT + 4 * HALF_HOUR, end=SLOT + 5 * HALF_HOUR
    ),
    Operation.NO_SHOW: lambda world, id: world.ws.appointments.no_show(id),
    Operation.DELETE: lambda world, id: world.ws.appointments.delete(id),
}
"""Each operation a caller can apply to an existing appointment."""

REFUSED = [
    (status, operation)
    for status in AppointmentStatus
    for operation in CALLS
    if (status, operation) not in EXPECTED
]


class TestOperationsFollowTheTable:
    @pytest.mark.parametrize(
        ("status", "operation"),
        REFUSED,
        ids=[f"{status.value}-{operation.value}" for status, operation in REFUSED],
    )
    def test_refused_pair_changes_nothing(self, status: AppointmentStatus, operation: Operation):
        """Each operation outside the table raises InvalidTransition and leaves the store as it was."""
        world = _World()
        appointment = world.make(status)
        before = world.snapshot()

        with pytest.raises(InvalidTransition) as info:
            CALLS[operation](world, appointment.id)

        assert (status, operation) == (info.value.status, info.value.operation)
        assert before == world.snapshot()

    @pytest.mark.parametrize(
        ("status", "operation"),
        [pair for pair in EXPECTED if pair[0] is not None and pair[1] in CALLS],
        ids=lambda value: getattr(value, "value", str(value)),
    )
    def test_allowed_pair_gives_the_table_status(
        self, status: AppointmentStatus, operation: Operation
    ):
        """Each allowed operation on a fresh appointment ends in the table's status."""
        world = _World()
        appointment = world.make(status)
        if operation is Operation.NO_SHOW:
            world.clock.set(SLOT)

        result = CALLS[operation](world, appointment.id)

        outcome = EXPECTED[(status, operation)]
        with world.store.read() as reader:
            stored = reader.get(Appointment, appointment.id)
        if outcome is DELETED:
            assert stored is None
        elif operation is Operation.RESCHEDULE:
            assert isinstance(result, Appointment)
            assert (outcome, BK) == (stored.status if stored else None, result.status)
        else:
            assert outcome == (stored.status if stored else None)
