"""
A webhook's ``data`` is the HTTP interface's answer for its record at that moment (decision 44).

Each change is made, the record read over HTTP at once, and the worker later posts the event to
a real receiver on 127.0.0.1: the two JSON objects must be equal key for key, local times
(decision 43) included.
"""

from __future__ import annotations

import json
from datetime import date, datetime, time, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import httpx
import pytest

from slotwise import BusinessHours, DayHours, Principal, Reminder, ReminderSchedule
from slotwise.http import create_app
from tests.http._client import _SyncASGI

from .conftest import Business, Receiver

NEW_YORK = ZoneInfo("America/New_York")


def _client(business: Business) -> httpx.Client:
    token = business.scheduler.tokens.create(
        Principal(company_id=business.company_id), label="wire"
    ).token
    return httpx.Client(
        transport=_SyncASGI(create_app(business.scheduler)),
        base_url="http://slotwise.test",
        headers={"Authorization": f"Bearer {token}"},
    )


def _delivered(business: Business, receiver: Receiver) -> list[tuple[str, Any]]:
    worker = business.worker()
    for _ in range(5):
        worker.run_once()
    return [
        (document["trigger"], document["data"])
        for document in (json.loads(r.body) for r in receiver.received)
    ]


def _only(delivered: list[tuple[str, Any]], trigger: str) -> Any:
    (data,) = [data for kind, data in delivered if kind == trigger]
    return data


class TestWebhookDataIsTheHttpAnswer:
    """Every trigger's data equals what the HTTP interface returned for the record then."""

    def test_appointment_events_equal_the_appointment_get(self, business, receiver):
        """Booking, reschedule, cancel and both reminders: data == GET of the appointment."""
        ws = business.workspace
        ws.locations.set_reminders(
            business.location_id,
            ReminderSchedule(
                email_first=Reminder(unit="hours", value=2),
                sms_first=Reminder(unit="hours", value=1),
            ),
        )
        answers: dict[str, Any] = {}
        with _client(business) as client:
            booked = business.book(10)
            path = "/consumer/v1/appointments/{}"
            answers["BookingConfirmation"] = client.get(path.format(booked.id)).json()
            moved = ws.appointments.reschedule(
                booked.id,
                start=booked.start + timedelta(days=1),
                end=booked.end + timedelta(days=1),
            )
            answers["RescheduleConfirmation"] = client.get(path.format(moved.id)).json()
            business.clock.advance(timedelta(days=2))  # Wednesday 08:00 New York
            _delivered(business, receiver)  # the e-mail reminder (due 08:00) is released now
            answers["EmailReminder"] = client.get(path.format(moved.id)).json()
            business.clock.advance(timedelta(hours=1))  # 09:00: the SMS reminder
            _delivered(business, receiver)
            answers["SmsReminder"] = client.get(path.format(moved.id)).json()
            ws.appointments.cancel(moved.id)
            answers["CancelReservationConfirmation"] = client.get(path.format(moved.id)).json()
        delivered = _delivered(business, receiver)

        for trigger, answer in answers.items():
            assert answer == _only(delivered, trigger), trigger
        assert "2026-03-04T10:00:00-05:00" == answers["RescheduleConfirmation"]["startDateTime"]
        assert (1000, -300) == (
            answers["RescheduleConfirmation"]["time"],
            answers["RescheduleConfirmation"]["timezone"],
        )

    def test_resource_events_equal_the_setup_answers(self, business, receiver):
        """ResourceCreated and ResourceUpdated: data == the setup interface's POST and PUT answers."""
        with _client(business) as client:
            created = client.post(
                "/setup/v1/resources",
                json={"name": "Bo", "reason": "r", "locationId": business.location_id},
            )
            updated = client.put(
                f"/setup/v1/resources/{created.json()['id']}", json={"description": "senior"}
            )
        delivered = _delivered(business, receiver)
        mine = [
            data
            for kind, data in delivered
            if kind.startswith("Resource") and data["id"] == created.json()["id"]
        ]

        assert (201, 200) == (created.status_code, updated.status_code)
        assert [created.json(), updated.json()] == mine
        assert {"timezoneId", "providerACalendarId", "object"} <= set(mine[0])

    def test_customer_events_carry_the_customer_wire_record(self, business, receiver):
        """CustomerCreated and CustomerUpdated: the customer in camelCase with its object."""
        business.book(10)
        customer_id = business.workspace.appointments.list().data[0].customer_id
        business.workspace.customers.update(customer_id, phone="555-0100-22")
        delivered = _delivered(business, receiver)
        created = _only(delivered, "CustomerCreated")
        updated = _only(delivered, "CustomerUpdated")

        assert (customer_id, "customer") == (created["id"], created["object"])
        assert ("555-0100-22", None) == (updated["phone"], created["phone"])
        assert ("firstname", "first_name") == (
            "firstname" if "firstname" in created else None,
            "first_name" if "first_name" not in created else None,
        )

    @pytest.mark.parametrize(
        ("day", "offset"),
        [
            (date(2026, 3, 8), -240),  # spring forward at 02:00: 09:00 is already EDT
            (date(2026, 7, 1), -240),
            (date(2026, 11, 1), -300),  # fall back at 02:00: 09:00 is EST again
            (date(2026, 12, 29), -300),
        ],
    )
    def test_local_offset_follows_daylight_saving(self, business, receiver, day, offset):
        """A 09:00 New York booking carries -04:00 or -05:00 as that date has it, DST days too."""
        business.clock.advance(
            datetime.combine(day - timedelta(days=1), time(8), NEW_YORK) - business.clock.now()
        )
        seven_days = BusinessHours(
            **{
                d: DayHours(is_open=True, start_time=900, end_time=1700)
                for d in ("sun", "mon", "tue", "wed", "thu", "fri", "sat")
            }
        )
        business.workspace.locations.update(business.location_id, business_hours=seven_days)
        sunday = {"sun": {"start_time": 900, "end_time": 1700}}
        business.workspace.resources.set_availability(business.resource_id, sunday)
        business.workspace.services.set_availability(business.service_id, sunday)
        start = datetime.combine(day, time(9), NEW_YORK)
        booked = business.workspace.appointments.create(
            business.service_id, start, start + timedelta(minutes=30),
            resource_id=business.resource_id, name="Ann Lee", email="ann@example.com",
            complete_booking="BK",
        )  # fmt: skip
        data = _only(_delivered(business, receiver), "BookingConfirmation")
        text = f"{-offset // 60:02d}:00"

        assert f"{day.isoformat()}T09:00:00-{text}" == data["startDateTime"]
        assert f"{day.isoformat()}T09:30:00-{text}" == data["endDateTime"]
        assert (booked.id, day.isoformat(), 900, offset) == (
            data["id"],
            data["date"],
            data["time"],
            data["timezone"],
        )


def test_a_hand_written_payload_is_sent_as_given_in_wire_names(business, receiver):
    """An event a host wrote with a partial record is sent as given, keys in camelCase."""
    from slotwise.model import OutboxEvent, Trigger

    store = business.scheduler.store
    with store.transaction() as tx:
        tx.insert(
            OutboxEvent(
                id="ev-hand",
                company_id=business.company_id,
                location_id=business.location_id,
                sequence=tx.next_sequence(),
                trigger=Trigger.BOOKING_CONFIRMATION,
                entity_id="apt-hand",
                payload={"appointment": {"id": "apt-hand", "group_size": 2}},
                created_at=business.clock.now(),
            )
        )

    assert {"id": "apt-hand", "groupSize": 2} == _only(
        _delivered(business, receiver), "BookingConfirmation"
    )


class TestDeliveryListTimes:
    """GET /setup/v1/webhooks/deliveries gives a delivery's instants in one zone."""

    def test_due_at_carries_the_location_offset_like_next_attempt_at(self, business, receiver):
        """dueAt was UTC (Z) beside nextAttemptAt in New York time for the same instant."""
        receiver.answer = lambda _: (500, {})
        business.book(10)
        _delivered(business, receiver)
        with _client(business) as client:
            listed = client.get("/setup/v1/webhooks/deliveries", params={"status": "pending"})
        (booking,) = [d for d in listed.json()["data"] if d["trigger"] == "BookingConfirmation"]

        assert booking["nextAttemptAt"] == booking["dueAt"]
        assert booking["dueAt"].endswith("-05:00")
        assert booking["createDate"].endswith("-05:00")
