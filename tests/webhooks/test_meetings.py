"""The meeting-link hook (spec: Events 3): asked after booking, stored, never undoing a booking."""

from __future__ import annotations

import json
import time
from datetime import UTC, datetime, timedelta

import httpx
import pytest

from slotwise import Scheduler
from slotwise.webhooks import verify
from slotwise.webhooks.meetings import HttpMeetingLinks

from .conftest import KEY, Business, Receiver

LINK = "https://meet.example/abc-def"


@pytest.fixture
def meetings(business: Business, receiver: Receiver) -> Business:
    """The business with its meeting-link URL at the receiver and the HTTP provider."""
    business.workspace.company.update(meeting_webhook_url=f"{receiver.url}/meeting")
    business.scheduler.meeting_links = HttpMeetingLinks(
        allow_local=True,
        client=httpx.Client(timeout=0.5, follow_redirects=False),
        store=business.scheduler.store,
    )
    # Workspaces built from now on use the provider (Scheduler passes it to each Context).
    return business


def _answer_link(request):
    return 200, {"Content-Type": "application/json"}, json.dumps({"meetingUrl": LINK}).encode()


def test_a_booking_gets_its_link(meetings, receiver):
    """Created with BK: the service is asked (signed request) and the link is stored and returned."""
    receiver.answer = _answer_link
    booked = meetings.book(10)
    request = next(r for r in receiver.received if r.path == "/meeting")
    stored = meetings.workspace.appointments.get(booked.id)

    assert (LINK, None) == (booked.meeting_url, booked.meeting_error)
    assert LINK == stored.meeting_url
    verify(request.body, request.headers, KEY, now=datetime.fromtimestamp(
        int(request.headers["webhook-timestamp"]), UTC))  # fmt: skip
    assert booked.id == json.loads(request.body)["data"]["appointment"]["id"]


def test_a_booked_hold_gets_its_link_once(meetings, receiver):
    """A hold is not asked for; booking it is, once; a reschedule keeps the link."""
    receiver.answer = _answer_link
    ws = meetings.workspace
    start = datetime(2026, 3, 3, 15, tzinfo=UTC)
    hold = ws.appointments.create(
        meetings.service_id, start, start + timedelta(minutes=30), resource_id=meetings.resource_id
    )
    asked_for_hold = receiver.paths().count("/meeting")
    booked = ws.appointments.book(hold.id, name="Bo Li", email="bo@example.com")
    moved = ws.appointments.reschedule(
        booked.id, start=start + timedelta(hours=1), end=start + timedelta(hours=1, minutes=30)
    )

    assert 0 == asked_for_hold
    assert (LINK, LINK) == (booked.meeting_url, moved.meeting_url)
    assert 1 == receiver.paths().count("/meeting")


@pytest.mark.parametrize(
    ("answer", "reason"),
    [
        (lambda request: (500, {}), "answered 500"),
        (lambda request: (200, {}, b"not json"), "no meetingUrl"),
        (lambda request: (200, {}, b'{"meetingUrl": "javascript:alert(1)"}'), "InvalidFormat"),
        (lambda request: (time.sleep(1) or 200, {}), "Timeout"),
    ],
    ids=["500", "not json", "not a URL", "timeout"],
)
def test_a_failing_service_books_anyway(meetings, receiver, answer, reason):
    """A failure, a bad answer or a timeout leaves the appointment booked, with the reason."""
    receiver.answer = answer
    booked = meetings.book(10)

    assert ("BK", None) == (booked.status.value, booked.meeting_url)
    assert reason in (booked.meeting_error or "")


def test_without_a_url_nothing_is_asked(business, receiver):
    """A company without a meeting-link URL: no request, no link, no error."""
    business.scheduler.meeting_links = HttpMeetingLinks(allow_local=True)
    booked = business.book(10)

    assert "/meeting" not in receiver.paths()
    assert (None, None) == (booked.meeting_url, booked.meeting_error)


def test_the_default_scheduler_makes_no_call():
    """Scheduler() has no meeting-link provider: the library makes no network call."""
    assert None is Scheduler().meeting_links.meeting_url(None, None)  # type: ignore[arg-type]


def test_the_request_carries_local_times(meetings, receiver):
    """The appointment in the meeting-link request is in the location's time (decision 43)."""
    receiver.answer = _answer_link
    meetings.book(10)  # Tuesday 10:00 in New York
    request = next(r for r in receiver.received if r.path == "/meeting")
    appointment = json.loads(request.body)["data"]["appointment"]

    assert ("2026-03-03T10:00:00-05:00", 1000, -300) == (
        appointment["startDateTime"],
        appointment["time"],
        appointment["timezone"],
    )


def test_the_request_is_stamped_when_it_is_sent(business, receiver):
    """A hold booked 20 minutes later is asked for its link stamped then, not at its creation."""
    business.workspace.company.update(meeting_webhook_url=f"{receiver.url}/meeting")
    business.scheduler.meeting_links = HttpMeetingLinks(
        allow_local=True, store=business.scheduler.store, clock=business.clock
    )
    receiver.answer = _answer_link
    ws = business.workspace
    start = datetime(2026, 3, 3, 15, tzinfo=UTC)
    hold = ws.appointments.create(
        business.service_id, start, start + timedelta(minutes=30), resource_id=business.resource_id
    )
    business.clock.advance(timedelta(minutes=20))
    booked = ws.appointments.book(hold.id, name="Bo Li", email="bo@example.com")
    request = next(r for r in receiver.received if r.path == "/meeting")
    sent = business.clock.now()

    assert int(sent.timestamp()) == int(request.headers["webhook-timestamp"])
    assert hold.created_at < sent
    verify(request.body, request.headers, KEY, now=sent)
    assert LINK == booked.meeting_url


def test_the_reference_library_verifies_a_late_booking_s_request(business, receiver):
    """
    A reservation confirmed long after it was made: its meeting-link request passes
    ``standardwebhooks``' ``Webhook.verify`` on the receiver's own clock (5 minutes' tolerance).
    """
    standardwebhooks = pytest.importorskip("standardwebhooks")
    key = "whsec_" + "c2xvdHdpc2UtbWVldGluZy1rZXk="
    business.workspace.company.update(
        meeting_webhook_url=f"{receiver.url}/meeting", webhook_signature_hash=key
    )
    business.scheduler.meeting_links = HttpMeetingLinks(allow_local=True)  # the system clock
    checked: list[str] = []

    def verified(request):
        try:
            standardwebhooks.Webhook(key).verify(request.body, request.headers)
        except Exception as error:  # the receiver answers 401 and says why
            checked.append(type(error).__name__)
            return 401, {}
        checked.append("verified")
        return _answer_link(request)

    receiver.answer = verified
    ws = business.workspace
    start = datetime(2026, 3, 3, 15, tzinfo=UTC)
    reserved = ws.appointments.create(
        business.service_id,
        start,
        start + timedelta(minutes=30),
        resource_id=business.resource_id,
        name="Bo Li",
        email="bo@example.com",
        complete_booking="RS",
    )
    business.clock.advance(timedelta(hours=2))
    confirmed = ws.appointments.confirm(reserved.id)

    assert ["verified"] == checked
    assert (LINK, None) == (confirmed.meeting_url, confirmed.meeting_error)
