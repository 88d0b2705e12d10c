"""
Refused operations leave the store exactly as it was (decisions 19 and 25; issue 4 "Prove it").

A store with appointments in every status, customers, queued reminders, audit entries and
delivered and undelivered events is snapshotted (every record kind through
``reader.find(kind, company_id=None)``, plus the undelivered events, the due reminders and the
expired holds as the store's feeds return them), then each kind of refused operation runs. The
snapshot after it equals the one before, value for value and character for character of its
``repr`` (attrs reprs show every field; records hold read-only mappings, which do not pickle). The refusal
also takes no outbox sequence number: ``slotwise.storage.outbox.append_event`` is called "after
every check of the unit of work passed, so a refused operation takes no sequence number", so the
next event gets the number right after the last one.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from slotwise import Scheduler, Workspace
from slotwise.errors import (
    AppointmentNotStarted,
    CapacityExceeded,
    CustomerLimitReached,
    FieldRequired,
    GroupSizeExceeded,
    HoldExpired,
    IdempotencyConflict,
    InvalidTransition,
    NaiveDatetime,
    NotFound,
    PastAppointment,
    SlotUnavailable,
    Unauthorized,
)
from slotwise.model import (
    RECORD_KINDS,
    Appointment,
    OutboxEvent,
    QueuedReminder,
    Reminder,
    ReminderSchedule,
    Trigger,
)
from slotwise.storage.memory import MemoryStore
from slotwise.testing import ManualClock, SequentialIds

NY = ZoneInfo("America/New_York")
START = datetime.fromisoformat("2026-01-05T09:00:00+00:00")
FAR = datetime.fromisoformat("2100-01-01T00:00:00+00:00")
HALF_HOUR = timedelta(minutes=30)
SCHEDULE = ReminderSchedule(
    email_first=Reminder(unit="days", value=1),
    email_second=Reminder(unit="hours", value=2),
    sms_first=Reminder(unit="hours", value=1),
)


def at(hhmm: int, day: int = 6) -> datetime:
    """Return *hhmm* New York time on 2026-01-*day* (default Tuesday 2026-01-06)."""
    return datetime(2026, 1, day, hhmm // 100, hhmm % 100, tzinfo=NY)


class _World:
    """
    A company whose store holds one of everything a refusal could disturb.

    Tuesday 2026-01-06, New York: Ana has a BK at 10:00 (Ann, idempotency key "key-1"), an RS at
    11:00, a CN at 12:00, a live hold at 13:00 and an expired hold at 14:00 whose time Bo booked
    since; Bea has a group of 2 at 10:00 (capacity 3) and Ann's booking of a service limited to
    one per customer at 15:00. Reminders are queued; the first two events are delivered.
    """

    def __init__(self) -> None:
        self.store = MemoryStore()
        self.clock = ManualClock(START)
        scheduler = Scheduler(self.store, clock=self.clock, ids=SequentialIds())
        company = scheduler.create_company(name="Acme", timezone="America/New_York")
        self.ws: Workspace = scheduler.for_company(company.id)
        location = self.ws.locations.create(name="Downtown")
        self.ws.locations.set_reminders(location.id, SCHEDULE)
        services = self.ws.services
        self.cut = services.create(name="Cut", duration=30, reason="r")
        self.group = services.create(
            name="Group",
            duration=30,
            booking_limit=3,
            max_capacity=3,
            max_group_size=2,
            reason="r",
        )
        self.limited = services.create(name="Once", duration=30, max_booking_limit=1, reason="r")
        self.ana = self.ws.resources.create(name="Ana", reason="r")
        self.bea = self.ws.resources.create(name="Bea", reason="r")
        self.ann = self.ws.customers.create(first_name="Ann", last_name="Lee", email="ann@x.com")
        ops = self.ws.appointments
        self.booked = ops.create(
            self.cut.id,
            at(1000),
            at(1030),
            resource_id=self.ana.id,
            customer_id=self.ann.id,
            complete_booking="BK",
            idempotency_key="key-1",
        )
        self.reserved = self.create(self.cut, self.ana, at(1100), complete_booking="RS")
        cancelled = self.create(self.cut, self.ana, at(1200), complete_booking="BK")
        self.cancelled = ops.cancel(cancelled.id)
        self.expired = ops.create(self.cut.id, at(1400), at(1430), resource_id=self.ana.id)
        self.clock.advance(timedelta(minutes=11))
        self.hold = ops.create(self.cut.id, at(1300), at(1330), resource_id=self.ana.id)
        self.create(self.cut, self.ana, at(1400), complete_booking="BK", email="bo@x.com")
        self.create(self.group, self.bea, at(1000), complete_booking="BK", group_size=2)
        self.create(self.limited, self.bea, at(1500), complete_booking="BK")
        delivered = self.ws.outbox.undelivered(limit=2)
        self.ws.outbox.mark_delivered(event.id for event in delivered)
        self.other = scheduler.for_company(
            scheduler.create_company(name="Other", timezone="Europe/London").id
        )
        self.other.locations.create(name="Elsewhere")

    def create(self, service: Any, resource: Any, start: datetime, **fields: Any) -> Appointment:
        """Create an appointment of *service* with *resource* at *start*, for Ann by default."""
        values: dict[str, Any] = {
            "resource_id": resource.id,
            "name": "Ann Lee",
            "email": "ann@x.com",
        }
        values.update(fields)
        return self.ws.appointments.create(service.id, start, start + HALF_HOUR, **values)

    def snapshot(self) -> dict[str, list[Any]]:
        """Return every record of every kind, and what the store's feeds return."""
        with self.store.read() as reader:
            found: dict[str, list[Any]] = {
                kind.__name__: reader.find(kind, company_id=None) for kind in RECORD_KINDS
            }
            found["undelivered"] = reader.undelivered_events(company_id=None, limit=10_000)
            found["reminders due"] = reader.reminders_due(company_id=None, before=FAR, limit=10_000)
            found["expired holds"] = reader.expired_holds(company_id=None, now=FAR, limit=10_000)
        return found

    def last_sequence(self) -> int:
        """Return the highest outbox sequence number handed out so far."""
        with self.store.read() as reader:
            return max(event.sequence for event in reader.find(OutboxEvent, company_id=None))


def _naive(world: _World) -> object:
    """Create with a start that has no UTC offset."""
    start = datetime(2026, 1, 6, 16, 0)
    return world.ws.appointments.create(
        world.cut.id, start, at(1630), resource_id=world.ana.id, complete_booking="BK"
    )


def _reminder_ids(world: _World) -> list[str]:
    """Return the id of one queued reminder, and an unknown id."""
    with world.store.read() as reader:
        queued = reader.find(QueuedReminder, company_id=None)
    return [queued[0].id, "missing"]


REFUSALS: dict[str, tuple[type[Exception], Callable[[_World], object]]] = {
    "invalid-transition-cancel-CN": (
        InvalidTransition,
        lambda w: w.ws.appointments.cancel(w.cancelled.id),
    ),
    "invalid-transition-book-BK": (
        InvalidTransition,
        lambda w: w.ws.appointments.book(w.booked.id, name="Bo Li", email="new@x.com"),
    ),
    "invalid-transition-delete-RS": (
        InvalidTransition,
        lambda w: w.ws.appointments.delete(w.reserved.id),
    ),
    "booking-408-group-size": (
        GroupSizeExceeded,
        lambda w: w.create(w.group, w.bea, at(1100), complete_booking="BK", group_size=3),
    ),
    "booking-138-capacity": (
        CapacityExceeded,
        lambda w: w.create(
            w.group, w.bea, at(1000), complete_booking="BK", group_size=2, email="new@x.com"
        ),
    ),
    "slot-unavailable-create": (
        SlotUnavailable,
        lambda w: w.create(w.cut, w.ana, at(1000), complete_booking="BK", email="new@x.com"),
    ),
    "slot-unavailable-reschedule": (
        SlotUnavailable,
        lambda w: w.ws.appointments.reschedule(w.booked.id, start=at(1100), end=at(1130)),
    ),
    "past-create": (
        PastAppointment,
        lambda w: w.create(w.cut, w.ana, at(330, day=5), complete_booking="BK"),
    ),
    "past-reschedule-target": (
        PastAppointment,
        lambda w: w.ws.appointments.reschedule(w.booked.id, start=at(330, 5), end=at(400, 5)),
    ),
    "unauthorized-cancel": (
        Unauthorized,
        lambda w: w.other.appointments.cancel(w.booked.id),
    ),
    "unauthorized-create": (
        Unauthorized,
        lambda w: w.other.appointments.create(
            w.cut.id, at(1600), at(1630), name="Eve", email="eve@x.com", complete_booking="BK"
        ),
    ),
    "naive-datetime": (NaiveDatetime, _naive),
    "idempotency-conflict": (
        IdempotencyConflict,
        lambda w: w.ws.appointments.create(
            w.cut.id,
            at(1600),
            at(1630),
            resource_id=w.ana.id,
            customer_id=w.ann.id,
            complete_booking="BK",
            idempotency_key="key-1",
        ),
    ),
    "hold-expired": (
        HoldExpired,
        lambda w: w.ws.appointments.book(w.expired.id, name="Cy Ng", email="cy@x.com"),
    ),
    "no-show-not-started": (
        AppointmentNotStarted,
        lambda w: w.ws.appointments.no_show(w.booked.id),
    ),
    "field-required": (
        FieldRequired,
        lambda w: w.ws.appointments.create(
            w.cut.id, at(1600), at(1630), resource_id=w.ana.id, complete_booking="BK"
        ),
    ),
    "customer-limit": (
        CustomerLimitReached,
        lambda w: w.create(w.limited, w.ana, at(1600), complete_booking="BK"),
    ),
    "mark-delivered-unknown": (
        NotFound,
        lambda w: w.ws.outbox.mark_delivered([w.ws.outbox.undelivered()[0].id, "missing"]),
    ),
    "mark-sent-unknown": (
        NotFound,
        lambda w: w.ws.reminders.mark_sent(_reminder_ids(w)),
    ),
}


class TestRejectionsLeaveNoTrace:
    @pytest.mark.parametrize("kind", list(REFUSALS))
    def test_store_is_unchanged(self, kind: str):
        """The refused operation raises its typed error and the full snapshot is unchanged."""
        world = _World()
        error, call = REFUSALS[kind]
        before = world.snapshot()
        text = repr(before)

        with pytest.raises(error):
            call(world)

        after = world.snapshot()
        assert before == after
        assert text == repr(after)

    @pytest.mark.parametrize("kind", list(REFUSALS))
    def test_no_sequence_number_is_taken(self, kind: str):
        """After the refusal, the next event is numbered right after the last one."""
        world = _World()
        error, call = REFUSALS[kind]
        last = world.last_sequence()
        with pytest.raises(error):
            call(world)

        world.ws.appointments.cancel(world.reserved.id)

        newest = max(world.ws.outbox.undelivered(limit=1000), key=lambda event: event.sequence)
        assert (Trigger.CANCEL_RESERVATION_CONFIRMATION, last + 1) == (
            newest.trigger,
            newest.sequence,
        )

    def test_the_world_has_something_of_everything(self):
        """The snapshot holds every status, reminders, delivered and undelivered events."""
        world = _World()

        found = world.snapshot()

        statuses = {appointment.status.value for appointment in found["Appointment"]}
        assert {"IN", "BK", "RS", "CN"} <= statuses
        assert found["QueuedReminder"]
        assert found["AuditEntry"]
        assert found["Customer"]
        assert found["undelivered"]
        assert len(found["OutboxEvent"]) > len(found["undelivered"])
        assert [world.expired.id] == [hold.id for hold in found["expired holds"]][:1]
