"""The outbox (events of every change) and queued reminders, with their read and mark APIs."""

from __future__ import annotations

import copy
import json
import math
import pickle
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from slotwise import (
    DayWindow,
    DuplicateRecord,
    InconsistentFields,
    Location,
    NotFound,
    Reminder,
    ReminderSchedule,
    Unauthorized,
    Workspace,
)
from slotwise.model import (
    FrozenJSON,
    OutboxEvent,
    QueuedReminder,
    Resource,
    Service,
    Trigger,
    freeze_json,
    to_json_data,
)
from slotwise.testing import ManualClock

NY = ZoneInfo("America/New_York")
HALF_HOUR = timedelta(minutes=30)
SCHEDULE = ReminderSchedule(
    email_first=Reminder(unit="days", value=1),
    email_second=Reminder(unit="hours", value=2),
    sms_first=Reminder(unit="hours", value=1),
)
"""E-mail 1 day and 2 hours before, SMS 1 hour before."""


def at(hhmm: int, day: int = 6) -> datetime:
    """Return *hhmm* New York time on 2026-01-*day* (default Tuesday 2026-01-06)."""
    return datetime(2026, 1, day, hhmm // 100, hhmm % 100, tzinfo=NY)


@pytest.fixture
def reminding(ws: Workspace, location: Location) -> Location:
    """The primary location with the e-mail and SMS reminders of SCHEDULE."""
    ws.locations.set_reminders(location.id, SCHEDULE)
    return ws.locations.get(location.id)


def book(ws: Workspace, service: Service, resource: Resource, start: datetime, **fields: Any):
    """Create a BK appointment for Ann at *start*."""
    values: dict[str, Any] = {
        "resource_id": resource.id,
        "name": "Ann Lee",
        "email": "ann@example.com",
        "complete_booking": "BK",
    }
    values.update(fields)
    return ws.appointments.create(service.id, start, start + HALF_HOUR, **values)


def plan(ws: Workspace, appointment_id: str) -> list[tuple[str, int, datetime, datetime | None]]:
    """Return (channel, ordinal, due_at, sent_at) of an appointment's reminders."""
    with ws.appointments._ctx.store.read() as reader:
        reminders = reader.reminders_of(appointment_id)
    return [(r.channel, r.ordinal, r.due_at, r.sent_at) for r in reminders]


class TestOutbox:
    def test_events_come_in_order_with_their_triggers(
        self, ws: Workspace, service: Service, resource: Resource
    ):
        """Each change appends its event; sequences strictly increase in change order."""
        appointment = book(ws, service, resource, at(900))
        moved = ws.appointments.reschedule(appointment.id, start=at(1000), end=at(1030))
        ws.appointments.cancel(moved.id)

        found = ws.outbox.undelivered()

        assert [
            Trigger.RESOURCE_CREATED,
            Trigger.CUSTOMER_CREATED,
            Trigger.BOOKING_CONFIRMATION,
            Trigger.RESCHEDULE_CONFIRMATION,
            Trigger.CANCEL_RESERVATION_CONFIRMATION,
        ] == [event.trigger for event in found]
        sequences = [event.sequence for event in found]
        assert sorted(set(sequences)) == sequences
        assert [resource.id, appointment.customer_id, appointment.id, moved.id, moved.id] == [
            event.entity_id for event in found
        ]

    def test_payload_has_appointment_customer_and_resources(
        self, ws: Workspace, service: Service, resource: Resource
    ):
        """A booking event carries the appointment, the customer and the resources as JSON data."""
        appointment = book(ws, service, resource, at(900))

        event = ws.outbox.undelivered()[-1]

        payload = json.loads(json.dumps(event.payload))
        assert appointment.id == payload["appointment"]["id"]
        assert "BK" == payload["appointment"]["status"]
        assert "2026-01-06T14:00:00+00:00" == payload["appointment"]["start"]
        assert "ann@example.com" == payload["customer"]["email"]
        assert [resource.id] == [item["id"] for item in payload["resources"]]
        assert "idempotency_fingerprint" not in payload["appointment"]

    def test_reschedule_event_carries_the_previous_record(
        self, ws: Workspace, service: Service, resource: Resource
    ):
        """The reschedule event's payload has the new appointment and the old one (now RE)."""
        old = book(ws, service, resource, at(900))

        new = ws.appointments.reschedule(old.id, start=at(1000), end=at(1030))

        payload = ws.outbox.undelivered()[-1].payload
        assert (new.id, old.id, "RE") == (
            payload["appointment"]["id"],
            payload["previous_appointment"]["id"],
            payload["previous_appointment"]["status"],
        )

    def test_payload_is_read_only(self, ws: Workspace, service: Service, resource: Resource):
        """Event payloads cannot be changed, not even nested parts."""
        book(ws, service, resource, at(900))
        payload = ws.outbox.undelivered()[-1].payload

        with pytest.raises(TypeError):
            payload["appointment"]["status"] = "CN"
        assert isinstance(payload["resources"], tuple)

    def test_mark_delivered(self, ws: Workspace, service: Service, resource: Resource, clock):
        """Marked events leave the undelivered list; marking again changes nothing."""
        book(ws, service, resource, at(900))
        first, *rest = ws.outbox.undelivered()

        marked = ws.outbox.mark_delivered([first.id, first.id])
        again = ws.outbox.mark_delivered([first.id])

        assert (1, 0) == (marked, again)
        assert rest == ws.outbox.undelivered()
        with ws.appointments._ctx.store.read() as reader:
            stored = reader.get(OutboxEvent, first.id)
        assert stored is not None
        assert clock.now() == stored.delivered_at

    def test_mark_delivered_unknown_or_foreign_marks_nothing(
        self, ws: Workspace, other_ws: Workspace, service: Service, resource: Resource
    ):
        """An unknown id raises NotFound and another company's Unauthorized; nothing is marked."""
        book(ws, service, resource, at(900))
        events = ws.outbox.undelivered()

        with pytest.raises(NotFound):
            ws.outbox.mark_delivered([events[0].id, "missing"])
        with pytest.raises(Unauthorized):
            other_ws.outbox.mark_delivered([events[0].id])

        assert events == ws.outbox.undelivered()

    def test_each_company_sees_its_own_events(
        self, ws: Workspace, other_ws: Workspace, service: Service, resource: Resource
    ):
        """The outbox of one company holds none of another's events."""
        book(ws, service, resource, at(900))

        assert [] == other_ws.outbox.undelivered()

    def test_limit_boundaries(self, ws: Workspace, service: Service, resource: Resource):
        """limit 1 returns the oldest event; 1000 is accepted; 0 and 1001 are refused."""
        book(ws, service, resource, at(900))

        assert [Trigger.RESOURCE_CREATED] == [e.trigger for e in ws.outbox.undelivered(limit=1)]
        assert 3 == len(ws.outbox.undelivered(limit=1000))
        for limit in (0, 1001):
            with pytest.raises(ValueError, match="limit"):
                ws.outbox.undelivered(limit=limit)


class TestSetupEvents:
    def test_customer_events(self, ws: Workspace):
        """Creating and updating a customer append CustomerCreated and CustomerUpdated."""
        customer = ws.customers.create(first_name="Ann", email="ann@example.com")
        ws.customers.update(customer.id, notes="VIP")

        found = ws.outbox.undelivered()

        assert [Trigger.CUSTOMER_CREATED, Trigger.CUSTOMER_UPDATED] == [e.trigger for e in found]
        assert ["VIP"] == [e.payload["customer"]["notes"] for e in found[1:]]

    def test_refused_customer_update_appends_nothing(self, ws: Workspace):
        """A customer update refused by a rule appends no event."""
        ws.customers.create(first_name="Ann", email="ann@example.com")
        other = ws.customers.create(first_name="Bo", email="bo@example.com")
        before = ws.outbox.undelivered()

        with pytest.raises(DuplicateRecord):
            ws.customers.update(other.id, email="ann@example.com")

        assert before == ws.outbox.undelivered()

    def test_resource_events(self, ws: Workspace, location: Location, service: Service):
        """Resource create appends ResourceCreated; update, availability, links, delete and recover append ResourceUpdated."""
        resource = ws.resources.create(name="Ana", reason="r")
        ws.resources.update(resource.id, name="Ana B")
        ws.resources.set_availability(
            resource.id, {"mon": DayWindow(start_time=800, end_time=1200)}
        )
        ws.resources.link_services(resource.id, [service.id])
        ws.resources.delete(resource.id)
        ws.resources.recover(resource.id)

        found = ws.outbox.undelivered()

        assert [Trigger.RESOURCE_CREATED] + [Trigger.RESOURCE_UPDATED] * 5 == [
            e.trigger for e in found
        ]
        assert {resource.id} == {e.entity_id for e in found}
        assert "Ana B" == found[1].payload["resource"]["name"]


class TestReminders:
    def test_booking_queues_the_location_schedule(
        self, ws: Workspace, reminding: Location, service: Service, resource: Resource
    ):
        """BK queues e-mail 1 and 2 and SMS 1 at start minus their lead times."""
        appointment = book(ws, service, resource, at(900, day=7))

        start = at(900, day=7)
        assert [
            ("email", 1, start - timedelta(days=1), None),
            ("email", 2, start - timedelta(hours=2), None),
            ("sms", 1, start - timedelta(hours=1), None),
        ] == plan(ws, appointment.id)

    def test_reminders_due_before_now_are_not_queued(
        self,
        ws: Workspace,
        reminding: Location,
        service: Service,
        resource: Resource,
        clock: ManualClock,
    ):
        """A reminder due exactly now is queued; one due a minute earlier is not."""
        clock.set(at(900) - timedelta(days=1))

        on_time = book(ws, service, resource, at(900))
        clock.set(at(1000) - timedelta(days=1) + timedelta(minutes=1))
        too_late = book(ws, service, resource, at(1000), email="bo@example.com")

        assert [("email", 1), ("email", 2), ("sms", 1)] == [
            (channel, ordinal) for channel, ordinal, _, _ in plan(ws, on_time.id)
        ]
        assert [("email", 2), ("sms", 1)] == [
            (channel, ordinal) for channel, ordinal, _, _ in plan(ws, too_late.id)
        ]

    def test_hold_queues_nothing_reserve_queues(
        self, ws: Workspace, reminding: Location, service: Service, resource: Resource
    ):
        """An IN hold has no reminders; reserving it queues them."""
        held = ws.appointments.create(
            service.id, at(900, day=7), at(930, day=7), resource_id=resource.id
        )
        before = plan(ws, held.id)

        ws.appointments.reserve(held.id, name="Ann Lee", email="ann@example.com")

        assert ([], 3) == (before, len(plan(ws, held.id)))

    def test_cancel_removes_unsent_reminders(
        self,
        ws: Workspace,
        reminding: Location,
        service: Service,
        resource: Resource,
        clock: ManualClock,
    ):
        """Cancelling removes the reminders not yet sent and keeps the sent ones."""
        appointment = book(ws, service, resource, at(900, day=7))
        clock.set(at(900, day=6))
        ws.reminders.mark_sent([r.id for r in ws.reminders.due()])

        ws.appointments.cancel(appointment.id)

        assert [("email", 1)] == [(c, o) for c, o, _, _ in plan(ws, appointment.id)]

    def test_reschedule_moves_reminders(
        self, ws: Workspace, reminding: Location, service: Service, resource: Resource
    ):
        """Reschedule drops the old record's unsent reminders and queues them for the new time."""
        old = book(ws, service, resource, at(900, day=7))

        new = ws.appointments.reschedule(old.id, start=at(1000, day=8), end=at(1030, day=8))

        assert [] == plan(ws, old.id)
        assert [at(1000, day=8) - timedelta(hours=1)] == [
            due for channel, _, due, _ in plan(ws, new.id) if channel == "sms"
        ]

    def test_due_boundary_and_mark_sent(
        self,
        ws: Workspace,
        reminding: Location,
        service: Service,
        resource: Resource,
        clock: ManualClock,
    ):
        """due() lists reminders due at or before now; mark_sent fires the channel's event once."""
        appointment = book(ws, service, resource, at(900, day=7))
        due_at = at(900, day=7) - timedelta(hours=2)
        clock.set(due_at - timedelta(microseconds=1))
        early = [(r.channel, r.ordinal) for r in ws.reminders.due()]
        clock.set(due_at)

        due = ws.reminders.due()
        marked = ws.reminders.mark_sent([r.id for r in due])
        again = ws.reminders.mark_sent([r.id for r in due])

        assert [("email", 1)] == early
        assert [("email", 1), ("email", 2)] == [(r.channel, r.ordinal) for r in due]
        assert (2, 0) == (marked, again)
        assert [] == ws.reminders.due()
        triggers = [e.trigger for e in ws.outbox.undelivered()]
        assert [Trigger.EMAIL_REMINDER, Trigger.EMAIL_REMINDER] == triggers[-2:]
        last = ws.outbox.undelivered()[-1]
        assert (appointment.id, "email", 2) == (
            last.entity_id,
            last.payload["reminder"]["channel"],
            last.payload["reminder"]["ordinal"],
        )

    def test_sms_reminder_event(
        self,
        ws: Workspace,
        reminding: Location,
        service: Service,
        resource: Resource,
        clock: ManualClock,
    ):
        """An SMS reminder marked sent appends an SmsReminder event."""
        book(ws, service, resource, at(900, day=7))
        clock.set(at(800, day=7))
        sms = [r for r in ws.reminders.due() if r.channel == "sms"]

        ws.reminders.mark_sent([r.id for r in sms])

        assert Trigger.SMS_REMINDER == ws.outbox.undelivered()[-1].trigger

    def test_mark_sent_unknown_marks_nothing(
        self,
        ws: Workspace,
        reminding: Location,
        service: Service,
        resource: Resource,
        clock: ManualClock,
    ):
        """An unknown reminder id raises NotFound and no reminder is marked."""
        book(ws, service, resource, at(900, day=7))
        clock.set(at(900, day=7))
        due = ws.reminders.due()

        with pytest.raises(NotFound):
            ws.reminders.mark_sent([due[0].id, "missing"])

        assert due == ws.reminders.due()

    def test_reminder_order_is_validated(self):
        """A second reminder must come closer to the start than the first (decision 28)."""
        assert ReminderSchedule(
            email_first=Reminder(unit="hours", value=3),
            email_second=Reminder(unit="hours", value=2),
        )
        with pytest.raises(InconsistentFields):
            ReminderSchedule(
                email_first=Reminder(unit="hours", value=2),
                email_second=Reminder(unit="hours", value=2),
            )


class TestFrozenJSON:
    def test_freeze_json_freezes_all_the_way_down(self):
        """Mappings become FrozenJSON, lists tuples; the result equals the input and dumps as JSON."""
        data = {"a": [1, {"b": None}], "c": 1.5, "d": "é"}

        frozen = freeze_json(data)

        assert data == json.loads(json.dumps(frozen))
        assert isinstance(frozen, FrozenJSON)
        assert (1, {"b": None}) == frozen["a"]
        assert frozen is freeze_json(frozen)

    @pytest.mark.parametrize(
        "value", [datetime(2026, 1, 1, tzinfo=UTC), {1: "x"}, {"x": math.nan}, {"x": {1, 2}}]
    )
    def test_not_json_ready_is_refused(self, value):
        """Datetimes, non-string keys, NaN and sets are refused with InvalidFormat."""
        with pytest.raises(ValueError, match="payload"):
            freeze_json(value)

    def test_every_change_is_refused(self):
        """Setting, deleting, updating, clearing and popping raise TypeError."""
        frozen = FrozenJSON({"a": [1]})

        changes: list[Callable[[], object]] = [
            lambda: frozen.__setitem__("a", 2),
            lambda: frozen.__delitem__("a"),
            lambda: frozen.update(a=2),
            lambda: frozen.clear(),
            lambda: frozen.pop("a"),
            lambda: frozen.popitem(),
            lambda: frozen.setdefault("b", 1),
        ]
        for change in changes:
            with pytest.raises(TypeError):
                change()
        assert ((1,), {"a": (1,)}) == (frozen["a"], frozen)

    def test_copies_and_pickles_stay_equal(self):
        """copy, deepcopy and pickle give equal read-only values."""
        frozen = FrozenJSON({"a": {"b": [1, 2]}})

        for other in (copy.copy(frozen), copy.deepcopy(frozen), pickle.loads(pickle.dumps(frozen))):
            assert frozen == other
            assert isinstance(other, FrozenJSON)

    def test_to_json_data_of_a_record(self):
        """Records become read-only data with ISO instants and enum values."""
        reminder = QueuedReminder(
            id="r",
            company_id="c",
            location_id="l",
            appointment_id="a",
            channel="sms",
            ordinal=1,
            due_at=datetime(2026, 1, 6, 9, 0, tzinfo=UTC),
        )

        data = to_json_data(reminder)

        assert "2026-01-06T09:00:00+00:00" == data["due_at"]
        assert isinstance(data, FrozenJSON)
        assert "BookingConfirmation" == to_json_data(Trigger.BOOKING_CONFIRMATION)
