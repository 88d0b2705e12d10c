"""
What a booking leaves for the host to deliver: reminders queued for their time (decision 28)
and dropped when the appointment moves or ends, and the outbox and reminder feeds a host drains
(decisions 27 and 37).
"""

from __future__ import annotations

import builtins
from collections.abc import Iterable, Mapping
from datetime import datetime, timedelta
from typing import Any, Literal

import attrs

from slotwise.clock import Clock, IdGenerator
from slotwise.errors import (
    OutOfRange,
)
from slotwise.model import (
    Appointment,
    Customer,
    Location,
    OutboxEvent,
    QueuedReminder,
    Resource,
    Trigger,
    to_json_data,
)
from slotwise.operations._boundary import operations
from slotwise.operations._context import Context
from slotwise.paging import DEFAULT_LIMIT, Page, check_window
from slotwise.storage.batched import insert_new
from slotwise.storage.listing import ListQuery, as_page
from slotwise.storage.outbox import append_event, appointment_payload
from slotwise.storage.protocol import Store, Transaction

__all__ = ["REMINDER_LOCK", "OutboxOperations", "ReminderOperations", "release_due_reminders"]


_SWEEP_BATCH = 200
_MAX_FEED = 1000

_REMINDER_SLOTS: tuple[tuple[Literal["email", "sms"], Literal[1, 2], str], ...] = (
    ("email", 1, "email_first"),
    ("email", 2, "email_second"),
    ("sms", 1, "sms_first"),
    ("sms", 2, "sms_second"),
)


def _queue_reminders(
    ctx: Context, tx: Transaction, appointment: Appointment, location: Location, now: datetime
) -> None:
    """Queue the location's reminders of *appointment* (decision 28); none due before now."""
    reminders = location.reminders
    if (
        reminders.email_first is None
        and reminders.email_second is None
        and reminders.sms_first is None
        and reminders.sms_second is None
    ):
        return  # a location without reminders (the slots, read directly: no loop, no getattr)
    for channel, ordinal, name in _REMINDER_SLOTS:
        reminder = getattr(reminders, name)
        if reminder is None:
            continue
        due = appointment.start - timedelta(minutes=reminder.lead_minutes)
        if due < now:
            continue
        insert_new(
            tx,
            QueuedReminder(
                id=ctx.ids.new_id(),
                company_id=appointment.company_id,
                location_id=appointment.location_id,
                appointment_id=appointment.id,
                channel=channel,
                ordinal=ordinal,
                due_at=due,
            ),
        )


def _drop_unsent_reminders(tx: Transaction, appointment_id: str) -> None:
    for reminder in tx.reminders_of(appointment_id):
        if reminder.sent_at is None:
            tx.delete(QueuedReminder, reminder.id)


def _feed_limit(limit: object) -> int:
    if not isinstance(limit, int) or isinstance(limit, bool) or not 1 <= limit <= _MAX_FEED:
        raise OutOfRange(field="limit", allowed=f"between 1 and {_MAX_FEED}", requested=limit)
    return limit


@operations
@attrs.frozen
class OutboxOperations:
    """
    The outbox of the principal's company: events waiting for delivery (decision 27).

    A host (or the HTTP extra's webhook sender) reads :meth:`undelivered`, delivers each event,
    then calls :meth:`mark_delivered`; an event not marked is read again, so delivery is
    at-least-once.

    .. versionadded:: 0.1
    """

    _ctx: Context

    def undelivered(self, limit: int = 100) -> builtins.list[OutboxEvent]:
        """
        Return up to *limit* undelivered events of the principal, oldest (lowest sequence) first.

        A principal limited to some locations gets only its locations' events, never the
        company-wide ones (customer events); the store filters, so *limit* counts what is
        returned (decision 37).

        Raises:
            OutOfRange: when *limit* is outside 1..1000.
        """
        ctx = self._ctx
        size = _feed_limit(limit)
        with ctx.store.read() as reader:
            return reader.undelivered_events(
                company_id=ctx.company_id, location_ids=ctx.location_ids, limit=size
            )

    def mark_delivered(self, event_ids: Iterable[str], /) -> int:
        """
        Mark events delivered now, in one unit of work; return how many were newly marked.

        Events already delivered keep their first ``delivered_at``.

        Raises:
            NotFound: when an id names no event (nothing is marked).
            Unauthorized: when an event is another company's, or the principal is limited to
                some locations and the event is another location's or company-wide (decision
                37); nothing is marked.
        """
        ctx = self._ctx
        marked = 0
        with ctx.store.transaction() as tx:
            now = ctx.clock.now()
            # Check every id before the first write: a refused call marks nothing.
            events = [
                ctx.owned(tx, OutboxEvent, event_id, field="event_ids", change=True)
                for event_id in dict.fromkeys(event_ids)
            ]
            for event in events:
                if event.delivered_at is None:
                    tx.update(attrs.evolve(event, delivered_at=now))
                    marked += 1
        return marked

    def deliveries(
        self,
        *,
        status: DeliveryStatus | None = None,
        offset: int = 0,
        limit: int = DEFAULT_LIMIT,
    ) -> Page[OutboxEvent]:
        """
        List the principal's events with their delivery state, newest first (decision 38).

        Newest first is the reverse of the order the store recorded them: events of units of
        work committed at the same moment may stand in another order than their ``sequence``.

        Args:
            status: keep ``pending``, ``delivered`` or ``failed`` events only (failed: no
                attempt left, or the URL answered 410; see ``last_status`` and ``last_error``).

        A principal limited to some locations sees only its locations' events (decision 37).

        Raises:
            OutOfRange: for an invalid ``offset`` or ``limit``.

        .. versionadded:: 0.1
        """
        ctx = self._ctx
        check_window(offset, limit)
        allowed = ctx.location_ids
        query = ListQuery(
            company_id=ctx.company_id,
            equal={} if status is None else {"delivery_status": status},
            one_of={} if allowed is None else {"location_id": allowed},
            newest_first=True,
            offset=offset,
            limit=limit,
        )
        with ctx.store.read() as reader:
            listed = reader.page(OutboxEvent, query)
        return as_page(listed, query, url="/setup/v1/webhooks/deliveries")

    def redeliver(self, event_id: str, /) -> OutboxEvent:
        """
        Send an event again: a failed one (or a delivered one) becomes due now, attempts reset.

        The event keeps its id, so receivers that deduplicate by ``webhook-id`` see the same
        delivery again. A URL disabled by 410 stays disabled until
        ``workspace.company.enable_webhook_url()``.

        Raises:
            NotFound: when no event has *event_id*.
            Unauthorized: when it is not the principal's (decision 37).

        .. versionadded:: 0.1
        """
        ctx = self._ctx
        with ctx.store.transaction() as tx:
            event = ctx.owned(tx, OutboxEvent, event_id, field="event_id", change=True)
            again = attrs.evolve(
                event,
                delivered_at=None,
                failed_at=None,
                attempts=0,
                next_attempt_at=ctx.clock.now(),
                lease_owner=None,
                lease_until=None,
            )
            tx.update(again)
        return again


DeliveryStatus = Literal["pending", "delivered", "failed"]


@operations
@attrs.frozen
class ReminderOperations:
    """
    Queued appointment reminders of the principal's locations (decision 28).

    .. versionadded:: 0.1
    """

    _ctx: Context

    def due(self, limit: int = 100) -> builtins.list[QueuedReminder]:
        """
        Return up to *limit* unsent reminders due at or before now, by due time then id.

        Raises:
            OutOfRange: when *limit* is outside 1..1000.
        """
        ctx = self._ctx
        size = _feed_limit(limit)
        with ctx.store.read() as reader:
            # Filtered by the store (decision 37): *limit* counts the principal's reminders.
            return reader.reminders_due(
                company_id=ctx.company_id,
                location_ids=ctx.location_ids,
                before=ctx.clock.now(),
                limit=size,
            )

    def mark_sent(self, reminder_ids: Iterable[str], /) -> int:
        """
        Mark reminders sent now and append their ``EmailReminder`` / ``SmsReminder`` events.

        One unit of work; a reminder already sent is left alone (no second event). Returns how
        many were newly marked.

        Raises:
            NotFound: when an id names no reminder (nothing is marked).
            Unauthorized: when a reminder is not the principal's (nothing is marked).
        """
        ctx = self._ctx
        marked = 0
        with ctx.store.transaction() as tx:
            now = ctx.clock.now()
            # Check every id before the first write, so a refused call takes no event number.
            reminders = [
                ctx.owned(tx, QueuedReminder, reminder_id, field="reminder_ids")
                for reminder_id in dict.fromkeys(reminder_ids)
            ]
            for reminder in reminders:
                if reminder.sent_at is None:
                    _send_reminder(tx, ctx.ids, now, reminder)
                    marked += 1
        return marked


def _send_reminder(
    tx: Transaction, ids: IdGenerator, now: datetime, reminder: QueuedReminder
) -> None:
    """Mark *reminder* sent at *now* and append its ``EmailReminder`` / ``SmsReminder`` event."""
    sent = attrs.evolve(reminder, sent_at=now)
    tx.update(sent)
    appointment = tx.get(Appointment, reminder.appointment_id)
    if appointment is not None:
        customer = tx.get(Customer, appointment.customer_id) if appointment.customer_id else None
        resources = [r for rid in appointment.resource_ids if (r := tx.get(Resource, rid))]
        payload: Mapping[str, Any] = appointment_payload(
            appointment, customer=customer, resources=resources, reminder=sent
        )
    else:
        payload = {"appointment": None, "reminder": to_json_data(sent)}
    append_event(
        tx,
        ids=ids,
        now=now,
        company_id=reminder.company_id,
        location_id=reminder.location_id,
        trigger=Trigger.EMAIL_REMINDER if reminder.channel == "email" else Trigger.SMS_REMINDER,
        entity_id=reminder.appointment_id,
        payload=payload,
    )


REMINDER_LOCK = "slotwise:reminders"
"""The lock every release of due reminders holds, so no reminder is released twice."""


def release_due_reminders(store: Store, *, clock: Clock, ids: IdGenerator, limit: int) -> int:
    """
    Mark up to *limit* reminders of every company that are due now sent, each with its event.

    The platform-level form of :meth:`ReminderOperations.mark_sent` for the webhook worker: one
    unit of work holding :data:`REMINDER_LOCK`, so workers in several processes never release
    the same reminder twice; the events then go out with the other events (decision 28).
    Returns how many were released.
    """
    with store.transaction(locks=(REMINDER_LOCK,)) as tx:
        now = clock.now()
        due = tx.reminders_due(company_id=None, before=now, limit=_feed_limit(limit))
        for reminder in due:
            _send_reminder(tx, ids, now, reminder)
    return len(due)
