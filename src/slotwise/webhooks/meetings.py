"""
The meeting-link hook over HTTP (spec: Events 3): ``slotwise serve`` uses it.

:class:`HttpMeetingLinks` posts ``{"trigger": "MeetingLinkRequest", "data": {"appointment":
...}}`` (the appointment in the HTTP interface's names), signed like every webhook, to the
company's ``meeting_webhook_url``, after the same destination check, with a 5 s timeout and no
redirects followed, and returns the ``meetingUrl`` of a 2xx JSON answer. Anything else raises,
and the booking records why in ``meeting_error`` (``slotwise.operations.meetings``).
"""

from __future__ import annotations

from typing import Final

import httpx
import msgspec

from slotwise.clock import Clock, SystemClock
from slotwise.http._documents import to_wire
from slotwise.http._lookups import StoreLookups
from slotwise.model import Appointment, Company
from slotwise.storage.protocol import Store

from .addresses import Resolver, system_resolver
from .posting import post_signed

__all__ = ["HttpMeetingLinks", "MeetingLinkFailed"]

TIMEOUT: Final = httpx.Timeout(5.0)
TOTAL: Final = 5.0
"""The seconds the whole exchange may take: a booking call waits for it."""


class MeetingLinkFailed(Exception):
    """The meeting-link service gave no link (recorded as the appointment's ``meeting_error``)."""


class HttpMeetingLinks:
    """
    Ask the company's meeting-link URL for each booked appointment's link.

    Args:
        client: the httpx client (default: 5 s timeout, no redirects).
        resolve: the resolver of the destination check.
        allow_local: the development setting (http and loopback receivers).
        store: where the appointment's location is read, so its date-times carry that
            location's offset as every webhook's do (decision 43); without it, UTC.
        clock: the time each request is stamped with (``webhook-timestamp``: when it is sent,
            which a receiver checks against its own clock); the system clock by default.

    .. versionadded:: 0.1
    """

    def __init__(
        self,
        *,
        client: httpx.Client | None = None,
        resolve: Resolver = system_resolver,
        allow_local: bool = False,
        store: Store | None = None,
        clock: Clock | None = None,
    ) -> None:
        self.client = client or httpx.Client(timeout=TIMEOUT, follow_redirects=False)
        self.clock: Clock = clock if clock is not None else SystemClock()
        self.resolve = resolve
        self.allow_local = allow_local
        self.store = store

    def meeting_url(self, appointment: Appointment, company: Company) -> str | None:
        """Post the appointment to the company's URL; return the ``meetingUrl`` it answers."""
        url = company.meeting_webhook_url
        if url is None:
            return None
        key = company.webhook_signature_hash
        if not key:
            raise MeetingLinkFailed("the company has no webhook signature key")
        lookups = None if self.store is None else StoreLookups(self.store)
        data = {"appointment": to_wire(appointment, lookups)}
        response = post_signed(
            self.client,
            url,
            msgspec.json.encode({"trigger": "MeetingLinkRequest", "data": data}),
            key,
            message_id=f"meeting-{appointment.id}",
            # When it is sent: a hold booked later, or a reservation confirmed, is asked for
            # its link then, and a receiver refuses a stamp minutes old (Standard Webhooks).
            timestamp=self.clock.now(),
            resolve=self.resolve,
            allow_local=self.allow_local,
            total=TOTAL,
        )
        if not 200 <= response.status_code < 300:
            raise MeetingLinkFailed(f"the meeting-link service answered {response.status_code}")
        try:
            link = response.json()["meetingUrl"]
        except (ValueError, KeyError, TypeError):
            raise MeetingLinkFailed("the answer has no meetingUrl") from None
        if not isinstance(link, str):
            raise MeetingLinkFailed("meetingUrl is not text")
        return link
