"""
A real receiver on 127.0.0.1 (a threaded ``http.server``) and a business whose webhooks point
at it, for the webhook tests.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import attrs
import httpx
import pytest

from slotwise import Scheduler
from slotwise.testing import ManualClock, SequentialIds
from slotwise.webhooks.sender import DeliveryWorker

NOW = datetime(2026, 3, 2, 13, 0, tzinfo=UTC)  # Monday 08:00 in New York
KEY = "whsec-test-key-0123456789"


@attrs.define
class Received:
    """One request the receiver got."""

    path: str
    headers: dict[str, str]
    body: bytes


@attrs.define
class Receiver:
    """Records every POST; answers what ``answer(request)`` returns: (status, headers)."""

    url: str
    received: list[Received] = attrs.field(factory=list)
    answer: Callable[[Received], tuple[Any, ...]] = lambda _: (204, {})
    """Returns (status, headers) or (status, headers, body)."""
    lock: threading.Lock = attrs.field(factory=threading.Lock)

    def paths(self) -> list[str]:
        """Return the paths posted to, in arrival order."""
        with self.lock:
            return [request.path for request in self.received]


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    """A receiver on a free port of 127.0.0.1, stopped after the test."""
    state: dict[str, Receiver] = {}

    class Handler(BaseHTTPRequestHandler):
        """Records the request, then answers as the receiver's ``answer`` says."""

        def do_POST(self) -> None:
            """Read the body, record it, answer."""
            length = int(self.headers.get("Content-Length", "0"))
            request = Received(self.path, dict(self.headers.items()), self.rfile.read(length))
            target = state["receiver"]
            with target.lock:
                target.received.append(request)
            status, headers, *rest = target.answer(request)
            body = rest[0] if rest else b""
            self.send_response(status)
            for name, value in headers.items():
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: Any) -> None:
            """Keep the test output quiet."""

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    state["receiver"] = Receiver(url=f"http://127.0.0.1:{server.server_address[1]}")
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield state["receiver"]
    finally:
        server.shutdown()
        server.server_close()


@attrs.frozen
class Business:
    """A company whose three webhook URLs point at the receiver, with a bookable service."""

    scheduler: Scheduler
    clock: ManualClock
    company_id: str
    location_id: str
    service_id: str
    resource_id: str

    @property
    def workspace(self) -> Any:
        """The company's workspace."""
        return self.scheduler.for_company(self.company_id)

    def worker(self, **options: Any) -> DeliveryWorker:
        """A worker of the scheduler's development setting (http and loopback allowed)."""
        options.setdefault("client", httpx.Client(timeout=5, follow_redirects=False))
        return DeliveryWorker(self.scheduler, owner=options.pop("owner", "test-worker"), **options)

    def book(self, hour: int = 10, day: int = 3) -> Any:
        """Book the service at *hour* (New York) on March *day*, 2026."""
        start = datetime(2026, 3, day, hour + 5, 0, tzinfo=UTC)
        return self.workspace.appointments.create(
            self.service_id,
            start,
            start + timedelta(minutes=30),
            resource_id=self.resource_id,
            name="Ann Lee",
            email="ann@example.com",
            complete_booking="BK",
        )


@pytest.fixture
def business(receiver: Receiver) -> Business:
    """The business, its webhooks at the receiver's /booking, /customer and /reminder."""
    clock = ManualClock(NOW)
    # The development setting (decision 47): the receiver is http on loopback.
    scheduler = Scheduler(clock=clock, ids=SequentialIds(), allow_local_webhooks=True)
    company = scheduler.create_company(
        name="Acme",
        timezone="America/New_York",
        booking_webhook_url=f"{receiver.url}/booking",
        customer_webhook_url=f"{receiver.url}/customer",
        reminder_webhook_url=f"{receiver.url}/reminder",
        webhook_signature_hash=KEY,
    )
    ws = scheduler.for_company(company.id)
    from slotwise import Reminder, ReminderSchedule

    location = ws.locations.create(
        name="Downtown", reminders=ReminderSchedule(email_first=Reminder(unit="hours", value=2))
    )
    service = ws.services.create(name="Cut", duration=30, reason="r")
    resource = ws.resources.create(name="Ana", reason="r")
    return Business(scheduler, clock, company.id, location.id, service.id, resource.id)
