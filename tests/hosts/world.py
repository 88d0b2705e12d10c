"""
The business every host serves: set up through the public API by the test process, on the
harness's PostgreSQL, with the system clock (``slotwise serve`` uses it too).

A location open around the clock books 120 days ahead; its service takes 30 minutes on a
30-minute grid; its resources take ``seats`` bookings per slot (the calendar's bookings per
slot). Booking webhooks go to *webhook_url* (a loopback relay in each worker host), signed.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

import attrs

from slotwise import BookingWindow, BusinessHours, LocationSettings, Principal, Scheduler
from slotwise.storage.sql import SQLStore

KEY = "whsec-hosts-key-0123456789"
LENGTH = timedelta(minutes=30)


@attrs.frozen
class World:
    """The ids the clients need, a token, and the first half hour they may book."""

    url: str
    token: str
    company_id: str
    location_id: str
    service_id: str
    resource_ids: tuple[str, ...]
    first: datetime

    def start(self, number: int) -> datetime:
        """Return the start of half hour *number* from the first."""
        return self.first + number * LENGTH

    def booking(self, resource: int, number: int) -> list[Any]:
        """Return the client request booking *resource* at half hour *number* (``BK`` at once)."""
        start = self.start(number)
        body = {
            "serviceId": self.service_id,
            "locationId": self.location_id,
            "resourceId": self.resource_ids[resource],
            "startDateTime": start.isoformat(),
            "endDateTime": (start + LENGTH).isoformat(),
            "name": "Ann Lee",
            "email": "ann@example.com",
        }
        return ["POST", "/consumer/v1/appointments?completeBooking=BK", body]

    def availability(self, resource: int = 0) -> list[Any]:
        """Return the client request of a week's availability of one resource."""
        day = self.first.date()
        path = (
            f"/consumer/v1/availability/{self.service_id}/{day}/{day + timedelta(days=6)}"
            f"?resourceId={self.resource_ids[resource]}"
        )
        return ["GET", path, None]


def seed(url: str, *, seats: int = 1, resources: int = 1, webhook_url: str | None = None) -> World:
    """Set up the business in the database at *url*; return its :class:`World`."""
    store = SQLStore(url)
    try:
        scheduler = Scheduler(store, allow_local_webhooks=True)  # the relay is on loopback
        hooks: dict[str, Any] = {}
        if webhook_url is not None:
            hooks = {"booking_webhook_url": f"{webhook_url}/booking", "webhook_signature_hash": KEY}
        company = scheduler.create_company(name="Hosts", timezone="America/New_York", **hooks)
        ws = scheduler.for_company(company.id)
        location = ws.locations.create(
            name="Always open",
            business_hours=BusinessHours.always(),
            settings=LocationSettings(
                booking_window=BookingWindow(book_ahead_unit="days", book_ahead_value=120)
            ),
        )
        assert location.primary_calendar_id is not None
        ws.calendars.update(location.primary_calendar_id, bookings_per_slot=seats)
        service = ws.services.create(
            name="Cut", duration=30, booking_interval=30, reason="hosts", location_id=location.id
        )
        resource_ids = tuple(
            ws.resources.create(name=f"R{n}", reason="hosts", location_id=location.id).id
            for n in range(resources)
        )
        token = scheduler.tokens.create(Principal(company_id=company.id), label="hosts").token
        now = scheduler.clock.now()
    finally:
        store.close()
    first = (now + timedelta(days=1)).replace(hour=5, minute=0, second=0, microsecond=0)
    return World(
        url=url,
        token=token,
        company_id=company.id,
        location_id=location.id,
        service_id=service.id,
        resource_ids=resource_ids,
        first=first,
    )
