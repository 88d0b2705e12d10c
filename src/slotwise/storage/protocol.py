"""
The storage contract: what slotwise needs from a store, and what a store promises.

A host application may implement :class:`Store` on its own database; it conforms structurally
(no base class needed) and proves it keeps the contract by running
``slotwise.testing.StoreContract``. slotwise ships ``MemoryStore`` (the default) and, in a later
release, ``SQLStore``.
"""

from __future__ import annotations

from collections.abc import Collection
from contextlib import AbstractContextManager
from datetime import date, datetime
from typing import Protocol, TypeVar

from slotwise.model import (
    Allocation,
    ApiToken,
    Appointment,
    AuditEntry,
    Block,
    Customer,
    OutboxEvent,
    QueuedReminder,
    Record,
)
from slotwise.storage.listing import Listed, ListQuery

__all__ = ["R", "Reader", "Store", "Transaction"]

R = TypeVar("R", bound=Record)


class Reader(Protocol):
    """
    Reads from one consistent view of a store.

    Every record kind is one of ``slotwise.model.RECORD_KINDS``. Records are frozen values: a
    store returns equal values to the ones it was given (``==``), never partially filled ones.

    .. versionadded:: 0.1
    """

    def get(self, kind: type[R], record_id: str, /) -> R | None:
        """
        Return the record of *kind* with *record_id*, or ``None`` when there is none.

        Soft-deleted records (resources, blocks) are still returned; callers decide.
        """
        ...

    def find(
        self, kind: type[R], /, *, company_id: str | None, location_id: str | None = None
    ) -> list[R]:
        """
        Return the records of *kind* of *company_id*, in creation (first insert) order.

        ``company_id`` ``None`` returns every company's records (platform-level reads only); a
        company's ``company_id`` is its own ``id``.
        ``location_id`` keeps only records whose ``location_id`` equals it; it must be ``None``
        for kinds without a ``location_id`` (companies, locations, customers, subscriptions).
        An update keeps a record's position; a delete removes it, and inserting its id again
        makes a new record, placed last.
        """
        ...

    def page(self, kind: type[R], query: ListQuery, /) -> Listed[R]:
        """
        Return one page of the records of *kind* that *query* selects, and their total.

        The page holds the matching records (:meth:`ListQuery.matches`) in creation order, as
        :meth:`find` orders them, from ``query.offset``, at most ``query.limit`` of them;
        ``total`` counts every match. An *offset* past the end gives an empty page and the
        total. Filters name record fields; a store must answer any filter of the vocabulary
        (``equal``, ``contains``, ``folded``) on any field, and must answer these ones without
        reading the records outside the page (indexes, or one ``SELECT ... LIMIT`` and one
        ``COUNT``): for appointments at one location, ``service_id``, ``customer_id``,
        ``status`` (equal), ``resource_ids`` (contains) and ``email`` (folded); for customers,
        ``email`` (folded); for every kind, the company and the location.

        .. versionadded:: 0.1
        """
        ...

    def blocks_touching(
        self, *, target_ids: Collection[str], first: date, last: date
    ) -> list[Block]:
        """
        Return the blocks of any of *target_ids* whose date range meets ``[first, last]``.

        A block meets the range when ``start_date <= last`` and ``end_date >= first`` (its
        repeat rule is not expanded here). Deleted blocks are included. Order: creation order.
        The cost must not grow with blocks of other targets.
        """
        ...

    def allocations_touching(
        self, *, target_ids: Collection[str], first: date, last: date
    ) -> list[Allocation]:
        """
        Return the allocations of any of *target_ids* whose date range meets ``[first, last]``.

        Same rules as :meth:`blocks_touching`.
        """
        ...

    def appointments_overlapping(
        self,
        *,
        location_id: str,
        resource_ids: Collection[str] | None,
        start: datetime,
        end: datetime,
    ) -> list[Appointment]:
        """
        Return the appointments at *location_id* that overlap ``[start, end)``, in any status.

        An appointment overlaps when ``appointment.start < end`` and ``appointment.end > start``.
        With *resource_ids*, only appointments taking at least one of them are returned, each
        once. Order: by ``start``, then ``id``. The cost must grow with the appointments that
        overlap, not with the appointments stored outside the range (history).
        """
        ...

    def appointment_by_idempotency_key(self, company_id: str, key: str) -> Appointment | None:
        """
        Return the appointment of *company_id* whose ``idempotency_key`` equals *key*, or ``None``.

        Keys are compared exactly (case matters). Booking keeps at most one appointment per
        company and key (it looks the key up and inserts under the lock
        ``"idempotency:<company id>:<key>"``); a store need not enforce it, but must answer in
        time independent of the number of appointments (an index on company and key).
        """
        ...

    def customer_by_email(self, company_id: str, email: str) -> Customer | None:
        """
        Return the customer of *company_id* whose ``email`` equals *email* ignoring case, or ``None``.

        Case is ignored by ``str.casefold()`` on both sides, after stripping surrounding space
        from *email*. When several customers match (a store need not keep addresses unique),
        the first created is returned. The answer must not take time proportional to the
        company's customers (an index on company and folded address).
        """
        ...

    def token_by_hash(self, token_hash: str) -> ApiToken | None:
        """
        Return the API token whose ``token_hash`` is *token_hash*, or ``None`` (decision 39).

        Revoked and expired tokens are returned too (the caller tells them apart). The answer
        must not take time proportional to the number of tokens (a unique index on the hash).
        """
        ...

    def appointments_of_customer(self, customer_id: str) -> list[Appointment]:
        """
        Return the appointments whose ``customer_id`` is *customer_id*, in any status.

        Order: creation order. Used for the per-customer limits (decision 10); the cost must
        grow with that customer's appointments, not with everyone's.
        """
        ...

    def expired_holds(
        self,
        *,
        company_id: str | None,
        location_ids: Collection[str] | None = None,
        now: datetime,
        limit: int,
    ) -> list[Appointment]:
        """
        Return up to *limit* IN appointments whose ``hold_expires_at`` is at or before *now*.

        ``company_id`` ``None`` looks at every company. ``location_ids`` ``None`` looks at
        every location; a collection keeps only appointments of those locations (an empty one
        finds nothing). Order: by ``hold_expires_at``, then ``id``. The cost must grow with
        *limit* (and the number of *location_ids*), not with the appointments stored, nor
        with the holds of other locations.

        Raises:
            OutOfRange: when *limit* is below 1.
        """
        ...

    def undelivered_events(
        self,
        *,
        company_id: str | None,
        location_ids: Collection[str] | None = None,
        limit: int,
    ) -> list[OutboxEvent]:
        """
        Return up to *limit* outbox events whose ``delivered_at`` is ``None``, by ``sequence``.

        ``company_id`` ``None`` looks at every company. ``location_ids`` ``None`` returns the
        events of every location and the company-wide ones (``location_id`` ``None``); a
        collection keeps only events whose ``location_id`` is in it, so company-wide events
        are never returned then (decision 37: a principal limited to some locations sees only
        theirs). The filter is applied by the read itself: *limit* counts returned events.
        The cost must grow with *limit* (and the number of *location_ids*), not with the
        delivered history, nor with other locations' events.

        Raises:
            OutOfRange: when *limit* is below 1.
        """
        ...

    def reminders_due(
        self,
        *,
        company_id: str | None,
        location_ids: Collection[str] | None = None,
        before: datetime,
        limit: int,
    ) -> list[QueuedReminder]:
        """
        Return up to *limit* unsent reminders (``sent_at`` ``None``) due at or before *before*.

        ``company_id`` ``None`` looks at every company; ``location_ids`` as in
        :meth:`undelivered_events` (reminders always have a location). Order: by ``due_at``,
        then ``id``. The cost must grow with *limit* (and the number of *location_ids*), not
        with sent or later reminders, nor with other locations' reminders.

        Raises:
            OutOfRange: when *limit* is below 1.
        """
        ...

    def reminders_of(self, appointment_id: str) -> list[QueuedReminder]:
        """Return the reminders of *appointment_id*, sent or not, in creation order."""
        ...

    def audit_of(self, appointment_id: str) -> list[AuditEntry]:
        """
        Return the audit entries of *appointment_id* in creation order.

        Entries stay after the appointment itself is deleted (a deleted hold keeps its history).
        """
        ...


class Transaction(Reader, Protocol):
    """
    One atomic unit of work: reads see the unit's own writes; all writes commit or none do.

    A write that raises (``DuplicateRecord``, ``NotFound``) has written nothing, and the unit
    of work stays usable: a caller may catch the error and go on.

    .. versionadded:: 0.1
    """

    def insert(self, record: Record, /) -> None:
        """
        Add a new record.

        Raises:
            DuplicateRecord: when a record of the same kind has the same ``id``.
        """
        ...

    def update(self, record: Record, /) -> None:
        """
        Replace the stored record of the same kind and ``id`` with *record*.

        Raises:
            NotFound: when there is no such record.
        """
        ...

    def delete(self, kind: type[Record], record_id: str, /) -> None:
        """
        Remove a record for good.

        Raises:
            NotFound: when there is no such record.
        """
        ...

    def next_sequence(self) -> int:
        """
        Return the next outbox sequence number of this store (for ``OutboxEvent.sequence``).

        Numbers are at least 1 and strictly increase in the order units of work ask for them,
        across all units of work of the store; a number is never handed out twice, even when
        the unit of work that asked for it rolls back (gaps are allowed). A SQL store can back
        it with a database sequence, or with an identity column of a one-column table (insert a
        row, read its id). A unit of work's own events are numbered in the order it appended
        them; events of units of work running at once may interleave. Undelivered events are
        read by status, not from a cursor, so an event committed after a higher number was
        delivered is still found.
        """
        ...

    def claim_deliveries(
        self, *, owner: str, now: datetime, lease_until: datetime, limit: int
    ) -> list[OutboxEvent]:
        """
        Lease up to *limit* events due for delivery to *owner*; return them as leased.

        Due: ``delivered_at`` and ``failed_at`` are ``None``, ``due_at`` (``next_attempt_at``,
        else ``created_at``) is at or before *now*, and no lease holds (``lease_until`` is
        ``None`` or at or before *now*). Every company's events are considered. Order: by
        ``due_at``, then ``sequence``. Each returned event is stored (and returned) with
        ``lease_owner`` *owner* and ``lease_until`` *lease_until*, so that until then no other
        claim -- in this process or another, on this host or another -- returns it: SQL stores
        lock the rows they lease and skip rows other units of work have locked (PostgreSQL and
        MariaDB ``FOR UPDATE SKIP LOCKED``; SQLite's single writer), so concurrent claims never
        wait for each other nor return the same event. The cost must grow with *limit*, not with
        the delivered history. The lease commits with the unit of work; a sender that dies
        leaves a lease that runs out, and the event is claimed again (at-least-once delivery).

        Raises:
            OutOfRange: when *limit* is below 1.

        .. versionadded:: 0.1
        """
        ...


class Store(Protocol):
    """
    Where slotwise keeps its records.

    **Atomicity.** ``with store.transaction() as tx:`` opens a unit of work. When the block
    exits normally every write commits together; when it raises, nothing of it is written and
    the exception propagates. A store that cannot commit raises ``ConflictError`` (safe to
    retry) or ``StoreUnavailable``, and writes nothing. Driver errors never escape: they are
    converted to ``StoreError`` subclasses with ``raise ... from exc``.

    **Isolation.** Units of work naming a common lock in *locks* never interleave; a store may
    serialise more than that (``MemoryStore`` serialises every unit of work). Booking checks
    capacity and writes inside one unit of work holding the lock ``"resource:<id>"`` of each
    resource it takes, in sorted order, so no two bookings of one resource interleave. Other
    lock names slotwise uses: ``"customer-email:<company id>"`` (customer e-mail uniqueness) and
    ``"idempotency:<company id>:<key>"`` (one appointment per idempotency key).

    **Outbox.** Outbox events, queued reminders and audit entries are ordinary records written
    in the same unit of work as the change they describe, so they commit or vanish with it.

    **Reads.** ``with store.read() as reader:`` gives one consistent view for the block's
    duration; it never sees half of a unit of work.

    Nested units of work on one store in one thread are not supported and raise ``StoreError``;
    the outer unit of work is unaffected.

    .. versionadded:: 0.1
    """

    def read(self) -> AbstractContextManager[Reader]:
        """Return a context manager yielding a consistent :class:`Reader`."""
        ...

    def transaction(self, *, locks: Collection[str] = ()) -> AbstractContextManager[Transaction]:
        """
        Return a context manager yielding a :class:`Transaction` that commits on normal exit.

        Args:
            locks: names the unit of work must hold exclusively (for example ``"resource:42"``),
                acquired in sorted order before the block runs.
        """
        ...
