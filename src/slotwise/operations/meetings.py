"""
The meeting-link hook (spec: Events 3): a link to an external conferencing tool for each booking.

When an appointment becomes booked (created with ``BK``, a hold booked, a reservation confirmed)
and its company has a ``meeting_webhook_url``, the scheduler's :class:`MeetingLinkProvider` is
asked for a link *after* the booking committed -- no lock is held while the host's service is
called -- and the answer is stored on the appointment (``meeting_url``). A provider that fails,
times out or answers something that is not an http(s) URL never undoes the booking: the reason
is stored in ``meeting_error`` and the booking stands. The link is asked for once per
appointment; a rescheduled appointment keeps its link.

The library calls no network itself: the default provider asks nothing, and the HTTP extra's
``slotwise.webhooks.meetings.HttpMeetingLinks`` posts to the company's URL.
"""

from __future__ import annotations

from typing import Protocol

from slotwise.model import Appointment, Company

__all__ = ["MeetingLinkProvider", "NoMeetingLinks"]


class MeetingLinkProvider(Protocol):
    """
    Makes the meeting link of a booked appointment.

    .. versionadded:: 0.1
    """

    def meeting_url(self, appointment: Appointment, company: Company) -> str | None:
        """
        Return the meeting link of *appointment* (``None``: none made), or raise.

        Called only when *company* has a ``meeting_webhook_url``; any exception is recorded on
        the appointment as ``meeting_error``, and the appointment stays booked.
        """
        ...


class NoMeetingLinks:
    """The default provider: no meeting links (the library makes no network call)."""

    def meeting_url(self, appointment: Appointment, company: Company) -> str | None:
        """Return ``None``: no link."""
        del appointment, company
        return None
