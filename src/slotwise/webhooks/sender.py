"""
Delivering the outbox: a worker that claims due events, posts them signed, and records the result.

One round (:meth:`DeliveryWorker.run_once`):

1. releases the reminders that are due (each becomes an ``EmailReminder`` / ``SmsReminder``
   event, once, under a store lock: :func:`~slotwise.booking.feeds.release_due_reminders`);
2. claims up to ``batch`` due events in one short unit of work (a lease of ``lease``:
   :meth:`~slotwise.Transaction.claim_deliveries`), so workers in any number of processes and
   hosts never send the same event while its lease holds;
3. posts each, outside any unit of work, to the company's URL for its kind (appointment and
   resource events to ``bookingWebhookUrl``, customer events to ``customerWebhookUrl``,
   reminders to ``reminderWebhookUrl``): JSON ``{"trigger", "data"}``, signed
   (:func:`~slotwise.webhooks.signature_headers`), after checking the destination
   (:func:`~slotwise.webhooks.check_destination`), with a 5 s connect and 15 s total timeout and
   no redirects followed;
4. records each outcome in its own short unit of work: a 2xx delivers; 410 Gone disables the URL
   (and fails the event); anything else is a failed attempt, tried again on the schedule of
   :func:`~slotwise.webhooks.next_attempt_at` (``Retry-After`` honoured) until the eighth
   attempt fails the event for good.

A worker that dies mid-round leaves leases that run out; the events are claimed again
(at-least-once: receivers deduplicate by ``webhook-id``, the event id). An event whose company
has no URL for its kind is marked delivered with nothing sent (``last_error`` says so).
"""

from __future__ import annotations

import email.utils
import logging
import threading
from datetime import datetime, timedelta, tzinfo
from typing import Any, Final

import attrs
import httpx
import msgspec

from slotwise.booking.feeds import release_due_reminders
from slotwise.errors import UnsafeDestination
from slotwise.http._documents import event_data
from slotwise.http._lookups import StoreLookups
from slotwise.model import Company, OutboxEvent, Trigger
from slotwise.scheduler import Scheduler

from .addresses import Resolver, system_resolver
from .posting import post_signed
from .schedule import next_attempt_at

__all__ = ["DeliveryWorker", "Outcome", "RoundReport", "body_of", "start_workers", "url_for"]

logger = logging.getLogger("slotwise.webhooks")

_CUSTOMER: Final = frozenset({Trigger.CUSTOMER_CREATED, Trigger.CUSTOMER_UPDATED})
_REMINDER: Final = frozenset({Trigger.EMAIL_REMINDER, Trigger.SMS_REMINDER})
TIMEOUT: Final = httpx.Timeout(15.0, connect=5.0)
"""Decision 38: 5 s to connect, 15 s in all (each step; the whole exchange: :data:`TOTAL`)."""
TOTAL: Final = 15.0
"""Decision 38: the seconds a delivery's whole exchange may take."""


def url_for(company: Company, trigger: Trigger) -> str | None:
    """Return the company's webhook URL for events of *trigger* (``None``: not set)."""
    if trigger in _CUSTOMER:
        return company.customer_webhook_url
    if trigger in _REMINDER:
        return company.reminder_webhook_url
    return company.booking_webhook_url


def body_of(event: OutboxEvent, zone: tzinfo | None = None) -> bytes:
    """
    Return the request body of *event*: ``{"trigger", "data"}`` as compact UTF-8 JSON.

    ``data`` is the event's record exactly as the HTTP interface returns it (decision 44), its
    instants in *zone*, the zone of the event's location (decision 43), and encoded by the same
    encoder as the HTTP answers, so every value has the same text.
    """
    document = {"trigger": event.trigger.value, "data": event_data(event, zone)}
    return msgspec.json.encode(document)


@attrs.frozen(kw_only=True)
class Outcome:
    """What one attempt came to."""

    event_id: str
    delivered: bool
    status: int | None = None
    error: str | None = None
    retry_after: timedelta | None = None
    gone: bool = False
    """The receiver answered 410 Gone: its URL is disabled."""
    nothing_to_send: bool = False


@attrs.frozen(kw_only=True)
class RoundReport:
    """What one round did."""

    reminders: int
    claimed: int
    delivered: int
    failed_attempts: int


class DeliveryWorker:
    """
    Delivers the outbox of every company in a scheduler's store (decision 38).

    Args:
        scheduler: whose store, clock and ids the worker uses.
        owner: this worker's name in leases (unique per worker: host, process, thread).
        client: the httpx client to post with (default: one with the decision's timeouts, no
            redirects followed); tests pass one with a mock transport.
        resolve: the resolver the destination check uses.
        allow_local: the development setting: allow ``http`` and loopback receivers; default:
            the scheduler's ``allow_local_webhooks`` (decision 47: one setting).
        batch: events claimed per round.
        lease: how long a claim holds.

    .. versionadded:: 0.1
    """

    def __init__(
        self,
        scheduler: Scheduler,
        *,
        owner: str,
        client: httpx.Client | None = None,
        resolve: Resolver = system_resolver,
        allow_local: bool | None = None,
        batch: int = 50,
        lease: timedelta = timedelta(minutes=1),
    ) -> None:
        self.scheduler = scheduler
        self.owner = owner
        self.client = client or httpx.Client(timeout=TIMEOUT, follow_redirects=False)
        self.resolve = resolve
        self.allow_local = scheduler.allow_local_webhooks if allow_local is None else allow_local
        self.batch = batch
        self.lease = lease

    def run_once(self, stop: threading.Event | None = None) -> RoundReport:
        """
        Release due reminders, claim due events, post them and record the outcomes.

        When *stop* is set during the round, the send in flight finishes and is recorded, and
        the events claimed but not yet sent are released at once (their leases cleared) for
        another worker.
        """
        scheduler = self.scheduler
        reminders = release_due_reminders(
            scheduler.store, clock=scheduler.clock, ids=scheduler.ids, limit=self.batch
        )
        now = scheduler.clock.now()
        with scheduler.store.transaction() as tx:
            claimed = tx.claim_deliveries(
                owner=self.owner, now=now, lease_until=now + self.lease, limit=self.batch
            )
        delivered = failed = 0
        for number, event in enumerate(claimed):
            if stop is not None and stop.is_set():
                self.release(claimed[number:])
                break
            outcome = self.attempt(event)
            self.record(outcome)
            if outcome.delivered:
                delivered += 1
            else:
                failed += 1
        return RoundReport(
            reminders=reminders, claimed=len(claimed), delivered=delivered, failed_attempts=failed
        )

    def run(self, stop: threading.Event, *, idle: float = 1.0) -> None:
        """
        Run rounds until *stop* is set; wait *idle* seconds after a round that found nothing.

        A round in progress finishes (its sends complete and are recorded) before it returns.
        """
        while not stop.is_set():
            try:
                report = self.run_once(stop)
            except Exception:  # a store outage must not end the worker: log, wait, go on
                logger.exception("webhook round failed (worker %s)", self.owner)
                report = None
            if report is None or report.claimed == 0:
                stop.wait(idle)

    def release(self, events: list[OutboxEvent]) -> None:
        """Clear this worker's leases on *events* (claimed, not sent) in one unit of work."""
        with self.scheduler.store.transaction() as tx:
            for claimed in events:
                event = tx.get(OutboxEvent, claimed.id)
                if event is not None and event.lease_owner == self.owner:
                    tx.update(attrs.evolve(event, lease_owner=None, lease_until=None))

    # -- one attempt ------------------------------------------------------------------------

    def attempt(self, event: OutboxEvent) -> Outcome:
        """Post *event* once; return what came of it (never raises for the receiver's faults)."""
        with self.scheduler.store.read() as reader:
            company = reader.get(Company, event.company_id)
        if company is None:
            return Outcome(event_id=event.id, delivered=True, nothing_to_send=True,
                           error="the company no longer exists")  # fmt: skip
        url = url_for(company, event.trigger)
        if url is None:
            return Outcome(
                event_id=event.id,
                delivered=True,
                nothing_to_send=True,
                error="no webhook URL is set for this kind of event",
            )
        if url in company.disabled_webhook_urls:
            return _failed(event, url, f"{url} is disabled (it answered 410 Gone)", gone=True)
        key = company.webhook_signature_hash
        if not key:
            return _failed(event, url, "the company has no webhook signature key")
        zone = None
        if event.location_id is not None:
            zone = StoreLookups(self.scheduler.store).zone(event.location_id)
        try:
            response = post_signed(
                self.client,
                url,
                body_of(event, zone),
                key,
                message_id=event.id,
                timestamp=self.scheduler.clock.now(),
                resolve=self.resolve,
                allow_local=self.allow_local,
                total=TOTAL,
                read_body=False,  # the status and headers are the answer
            )
        except UnsafeDestination as unsafe:
            return _failed(event, url, unsafe.message)
        except httpx.HTTPError as error:
            return _failed(event, url, f"{type(error).__name__}: {error}")
        status = response.status_code
        logger.info("event %s -> %s: %s", event.id, url, status)
        if 200 <= status < 300:
            return Outcome(event_id=event.id, delivered=True, status=status)
        return Outcome(
            event_id=event.id,
            delivered=False,
            status=status,
            error=f"the receiver answered {status}",
            retry_after=_retry_after(
                response.headers.get("Retry-After"), self.scheduler.clock.now()
            ),
            gone=status == 410,
        )

    def record(self, outcome: Outcome) -> None:
        """Record *outcome* in its own unit of work and release the lease."""
        store, now = self.scheduler.store, self.scheduler.clock.now()
        with store.transaction() as tx:
            event = tx.get(OutboxEvent, outcome.event_id)
            if event is None or event.delivered_at is not None:
                return  # deleted, or delivered by another worker after our lease ran out
            changes: dict[str, Any] = {
                "lease_owner": None,
                "lease_until": None,
                "last_status": outcome.status,
                "last_error": _short(outcome.error),
            }
            if outcome.nothing_to_send:
                changes["delivered_at"] = now
            else:
                attempts = event.attempts + 1
                changes["attempts"] = attempts
                if outcome.delivered:
                    changes["delivered_at"] = now
                elif outcome.gone:
                    changes["failed_at"] = now
                    self._disable(tx, event, outcome)
                else:
                    later = next_attempt_at(
                        attempts, now, event_id=event.id, retry_after=outcome.retry_after
                    )
                    if later is None:
                        changes["failed_at"] = now
                    else:
                        changes["next_attempt_at"] = later
            tx.update(attrs.evolve(event, **changes))

    def _disable(self, tx: Any, event: OutboxEvent, outcome: Outcome) -> None:
        if outcome.status != 410:
            return  # already disabled: nothing to add
        company = tx.get(Company, event.company_id)
        url = url_for(company, event.trigger) if company is not None else None
        if company is not None and url is not None and url not in company.disabled_webhook_urls:
            disabled = (*company.disabled_webhook_urls, url)[-3:]
            tx.update(attrs.evolve(company, disabled_webhook_urls=disabled))
            logger.warning("webhook URL %s answered 410 Gone: disabled", url)


def start_workers(
    scheduler: Scheduler,
    *,
    concurrency: int,
    stop: threading.Event,
    name: str,
    idle: float = 1.0,
    **options: Any,
) -> list[threading.Thread]:
    """
    Start *concurrency* worker threads running until *stop* is set; return them to join.

    Each thread is a :class:`DeliveryWorker` named ``<name>:<n>`` in its leases; *options* go to
    each worker (``allow_local``, ``batch``, ``lease``, ``resolve``).
    """
    threads = []
    for number in range(concurrency):
        worker = DeliveryWorker(scheduler, owner=f"{name}:{number}", **options)
        thread = threading.Thread(
            target=worker.run, args=(stop,), kwargs={"idle": idle}, name=f"slotwise-worker-{number}"
        )
        thread.start()
        threads.append(thread)
    return threads


def _failed(event: OutboxEvent, url: str, error: str, *, gone: bool = False) -> Outcome:
    """An attempt that got no answer to record: logged, as an answered one is, with why."""
    logger.warning("event %s -> %s: not sent: %s", event.id, url, error)
    return Outcome(event_id=event.id, delivered=False, error=error, gone=gone)


def _short(text: str | None) -> str | None:
    return None if text is None else text[:2000]


def _retry_after(value: str | None, now: datetime) -> timedelta | None:
    """Read ``Retry-After`` (seconds, or an HTTP date); ``None`` when absent or unreadable."""
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        return timedelta(seconds=int(value))
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        return None
    return max(when - now, timedelta(0))
