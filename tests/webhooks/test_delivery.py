"""Webhook delivery against a real receiver on 127.0.0.1 (decisions 27, 28, 38)."""

from __future__ import annotations

import base64
import hashlib
import hmac
import itertools
import json
from datetime import datetime, timedelta

import pytest

from slotwise import ValidationError
from slotwise.model import OutboxEvent
from slotwise.webhooks import RETRY_DELAYS

from .conftest import KEY, Business, Received, Receiver


def _genuine(request: Received) -> bool:
    """Check both signatures of *request* with this test's own code (not slotwise's)."""
    headers = {name.lower(): value for name, value in request.headers.items()}
    plain = hmac.new(KEY.encode(), request.body, hashlib.sha256).hexdigest()
    signed = f"{headers['webhook-id']}.{headers['webhook-timestamp']}.".encode() + request.body
    standard = base64.b64encode(hmac.new(KEY.encode(), signed, hashlib.sha256).digest()).decode()
    return headers["x-message-signature"] == plain and headers["webhook-signature"] == (
        f"v1,{standard}"
    )


def _triggers(receiver: Receiver) -> list[tuple[str, str]]:
    return [(r.path, json.loads(r.body)["trigger"]) for r in receiver.received]


def _drain(business: Business, rounds: int = 5) -> None:
    worker = business.worker()
    for _ in range(rounds):
        worker.run_once()


def _events(business: Business) -> list[OutboxEvent]:
    with business.scheduler.store.read() as reader:
        return reader.find(OutboxEvent, company_id=business.company_id)


class TestEveryChangeArrives:
    """Each committed change's events reach the right URL, signed, once."""

    def test_triggers_of_every_path(self, business, receiver):
        """Resource, customer, booking, reschedule and cancel events, each to its URL, signed."""
        _drain(business)  # ResourceCreated of setup
        booked = business.book(10)
        moved = business.workspace.appointments.reschedule(
            booked.id,
            start=booked.start + timedelta(hours=1),
            end=booked.end + timedelta(hours=1),
        )
        business.workspace.appointments.cancel(moved.id)
        _drain(business)

        expected = [
            ("/booking", "ResourceCreated"),
            ("/customer", "CustomerCreated"),
            ("/booking", "BookingConfirmation"),
            ("/booking", "RescheduleConfirmation"),
            ("/booking", "CancelReservationConfirmation"),
        ]
        assert expected == _triggers(receiver)
        assert all(_genuine(request) for request in receiver.received)
        assert all(event.delivery_status == "delivered" for event in _events(business))

    def test_updates_and_sms_reminders(self, business, receiver):
        """CustomerUpdated, ResourceUpdated and SmsReminder complete decision 27's triggers."""
        from slotwise import Reminder, ReminderSchedule

        ws = business.workspace
        ws.locations.set_reminders(
            business.location_id, ReminderSchedule(sms_first=Reminder(unit="hours", value=1))
        )
        booked = business.book(10)
        ws.customers.update(booked.customer_id, phone="555-0100-22")
        ws.resources.update(business.resource_id, description="senior")
        business.clock.advance(timedelta(days=1, hours=1))  # Tuesday 09:00 New York
        _drain(business)
        triggers = {trigger for _, trigger in _triggers(receiver)}

        assert {"CustomerUpdated", "ResourceUpdated", "SmsReminder"} <= triggers
        assert ("/reminder", "SmsReminder") in _triggers(receiver)

    def test_body_is_the_camel_case_record(self, business, receiver):
        """data is the appointment with the HTTP interface's names; webhook-id is the event id."""
        booked = business.book(10)
        _drain(business)
        request = next(r for r in receiver.received if b"BookingConfirmation" in r.body)
        body = json.loads(request.body)
        event = next(e for e in _events(business) if e.trigger.value == "BookingConfirmation")

        assert booked.id == body["data"]["id"]
        assert {"startDateTime", "endDateTime", "locationId"} <= set(body["data"])
        assert event.id == request.headers["webhook-id"]

    def test_a_refused_change_sends_nothing(self, business, receiver):
        """A booking refused by validation writes no event, so nothing arrives."""
        _drain(business)
        before = len(receiver.received)
        with pytest.raises(ValidationError):
            business.workspace.appointments.create(
                business.service_id,
                datetime(2026, 3, 3, 15, tzinfo=business.clock.now().tzinfo),
                datetime(2026, 3, 3, 15, 30, tzinfo=business.clock.now().tzinfo),
                resource_id=business.resource_id,
                group_size=5,
            )
        _drain(business)

        assert before == len(receiver.received)

    def test_reminders_go_out_at_their_time_once(self, business, receiver):
        """The two-hour e-mail reminder is posted to /reminder when due, and only once."""
        business.book(10)  # Tuesday 10:00 New York: reminder due at 08:00
        _drain(business)
        early = [path for path, _ in _triggers(receiver) if path == "/reminder"]
        business.clock.advance(timedelta(days=1))  # Tuesday 08:00 New York
        _drain(business)
        _drain(business)

        assert [] == early
        assert [("/reminder", "EmailReminder")] == [
            pair for pair in _triggers(receiver) if pair[0] == "/reminder"
        ]

    def test_a_thirty_minute_reminder_goes_out_thirty_minutes_before(self, business, receiver):
        """A reminder set in minutes (decision 47) is posted at start - 30 min, not before."""
        from slotwise import Reminder, ReminderSchedule

        business.workspace.locations.set_reminders(
            business.location_id,
            ReminderSchedule(sms_first=Reminder(unit="minutes", value=30)),
        )
        business.book(10)  # Tuesday 10:00 New York: the reminder is due at 09:30
        business.clock.advance(timedelta(days=1, hours=1, minutes=29))  # Tuesday 09:29
        _drain(business)
        early = receiver.paths().count("/reminder")
        business.clock.advance(timedelta(minutes=1))  # Tuesday 09:30
        _drain(business)
        reminders = [r for r in receiver.received if r.path == "/reminder"]

        assert (0, ["SmsReminder"]) == (early, [json.loads(r.body)["trigger"] for r in reminders])
        assert all(_genuine(r) for r in reminders)

    def test_a_moved_appointment_is_reminded_at_its_new_time(self, business, receiver):
        """Rescheduled a day later, the reminder goes out before the new time, not the old."""
        booked = business.book(10)  # Tuesday 10:00 New York: reminder due Tuesday 08:00
        business.workspace.appointments.reschedule(
            booked.id, start=booked.start + timedelta(days=1), end=booked.end + timedelta(days=1)
        )
        business.clock.advance(timedelta(days=1, minutes=30))  # Tuesday 08:30
        _drain(business)
        at_old_time = receiver.paths().count("/reminder")
        business.clock.advance(timedelta(days=1))  # Wednesday 08:30
        _drain(business)

        assert (0, 1) == (at_old_time, receiver.paths().count("/reminder"))

    def test_a_cancelled_appointment_sends_no_reminder(self, business, receiver):
        """Cancelled before its reminder is due, the appointment's reminder never goes out."""
        booked = business.book(10)
        business.workspace.appointments.cancel(booked.id)
        business.clock.advance(timedelta(days=1))
        _drain(business)

        assert "/reminder" not in receiver.paths()


class TestRetries:
    """A receiver that fails is tried again on the schedule, and nothing is lost."""

    def test_down_then_up(self, business, receiver):
        """Three 503s, then 200: delivered on the fourth attempt, at the scheduled times."""
        _drain(business)
        receiver.received.clear()
        failures = iter([503, 503, 503])
        receiver.answer = lambda request: (
            (next(failures, 200), {}) if request.path == "/booking" else (200, {})
        )
        business.book(10)
        worker = business.worker()
        sent_at: list[datetime] = []
        for _ in range(200):
            before = receiver.paths().count("/booking")
            worker.run_once()
            if receiver.paths().count("/booking") > before:
                sent_at.append(business.clock.now())
            if len(sent_at) == 4:
                break
            business.clock.advance(
                timedelta(seconds=1) if len(sent_at) < 2 else timedelta(minutes=1)
            )
        events = [e for e in _events(business) if e.trigger.value == "BookingConfirmation"]

        assert 4 == len(sent_at)
        for gap, delay in zip(
            [b - a for a, b in itertools.pairwise(sent_at)], RETRY_DELAYS[1:4], strict=True
        ):
            assert delay * 0.8 <= gap <= delay * 1.2 + timedelta(minutes=1)
        assert ("delivered", 4) == (events[0].delivery_status, events[0].attempts)
        booking_ids = {r.headers["webhook-id"] for r in receiver.received if r.path == "/booking"}
        assert 1 == len(booking_ids)  # the same id on every attempt

    def test_retry_after_is_honoured(self, business, receiver):
        """A 429 with Retry-After: 3600 is not tried again before an hour."""
        _drain(business)
        receiver.answer = lambda request: (429, {"Retry-After": "3600"})
        business.book(10)
        worker = business.worker()
        worker.run_once()
        event = next(e for e in _events(business) if e.trigger.value == "BookingConfirmation")

        assert event.next_attempt_at == business.clock.now() + timedelta(hours=1)
        assert 429 == event.last_status

    def test_eight_attempts_then_failed(self, business, receiver):
        """A receiver that always fails: after the eighth attempt the event has failed."""
        _drain(business)
        receiver.answer = lambda request: (500, {})
        business.book(10)
        worker = business.worker()
        for _ in range(12):
            worker.run_once()
            business.clock.advance(timedelta(hours=13))
        event = next(e for e in _events(business) if e.trigger.value == "BookingConfirmation")

        assert ("failed", 8, 500) == (event.delivery_status, event.attempts, event.last_status)


class TestRefusals:
    """Redirects, 410, timeouts and unsafe destinations, as decision 38 says."""

    def test_redirects_are_not_followed(self, business, receiver):
        """A 302 is a failed attempt; the Location is never requested."""
        _drain(business)
        receiver.received.clear()
        receiver.answer = lambda request: (302, {"Location": f"{receiver.url}/elsewhere"})
        business.book(10)
        business.worker().run_once()
        event = next(e for e in _events(business) if e.trigger.value == "BookingConfirmation")

        assert ["/customer", "/booking"] == receiver.paths()
        assert ("pending", 1, 302) == (event.delivery_status, event.attempts, event.last_status)

    def test_410_disables_the_url(self, business, receiver):
        """410 Gone fails the event and disables the URL: later events are not sent there."""
        _drain(business)
        receiver.received.clear()
        receiver.answer = lambda request: (410 if request.path == "/booking" else 200, {})
        business.book(10)
        business.worker().run_once()
        business.book(11)
        business.worker().run_once()
        company = business.workspace.company.get()
        failed = [e for e in _events(business) if e.trigger.value == "BookingConfirmation"]

        assert [f"{receiver.url}/booking"] == list(company.disabled_webhook_urls)
        assert 1 == receiver.paths().count("/booking")
        assert ["failed", "failed"] == [e.delivery_status for e in failed]

    def test_a_timeout_is_a_failed_attempt(self, business, receiver):
        """A receiver slower than the client's timeout: the attempt fails and is rescheduled."""
        import time

        import httpx

        _drain(business)

        def slow(request: Received) -> tuple[int, dict[str, str]]:
            time.sleep(0.5)
            return 200, {}

        receiver.answer = slow
        business.book(10)
        business.worker(client=httpx.Client(timeout=0.1)).run_once()
        event = next(e for e in _events(business) if e.trigger.value == "BookingConfirmation")

        assert ("pending", 1) == (event.delivery_status, event.attempts)
        assert "Timeout" in (event.last_error or "")

    def test_the_connection_goes_to_the_checked_address(self, business, receiver):
        """A name is resolved once, by the check; the POST goes to that address, Host kept."""
        port = receiver.url.rsplit(":", 1)[1]
        business.workspace.company.update(booking_webhook_url=f"http://hooks.test:{port}/booking")
        _drain(business)
        receiver.received.clear()
        asked: list[str] = []

        def resolve(host: str, port: int) -> list[str]:
            asked.append(host)
            return ["127.0.0.1"]

        business.book(10)
        business.worker(resolve=resolve).run_once()
        request = next(r for r in receiver.received if r.path == "/booking")

        assert "hooks.test" in asked  # hooks.test resolves nowhere else: only the check knew it
        assert f"hooks.test:{port}" == request.headers["Host"]

    @pytest.mark.parametrize("address", ["127.0.0.1", "169.254.169.254"])
    def test_unsafe_destinations_are_not_posted_to(self, business, receiver, address):
        """Without the development setting, loopback and metadata addresses are refused."""
        _drain(business)
        receiver.received.clear()
        business.book(10)
        business.worker(allow_local=False, resolve=lambda host, port: [address]).run_once()
        event = next(e for e in _events(business) if e.trigger.value == "BookingConfirmation")

        assert [] == receiver.received
        assert "may not receive deliveries" in (event.last_error or "")
        assert "pending" == event.delivery_status

    def test_an_attempt_without_an_answer_is_logged_with_its_reason(
        self, business, receiver, caplog
    ):
        """A refused destination is logged as a warning naming the event, the URL and the
        reason (a worker run without --allow-local-webhooks said nothing while it failed)."""
        _drain(business)
        business.book(10)
        with caplog.at_level("WARNING", logger="slotwise.webhooks"):
            business.worker(allow_local=False).run_once()
        event = next(e for e in _events(business) if e.trigger.value == "BookingConfirmation")

        warnings = [r.getMessage() for r in caplog.records if r.levelname == "WARNING"]
        assert f"event {event.id} -> {receiver.url}/booking: not sent: {event.last_error}" in (
            warnings
        )
