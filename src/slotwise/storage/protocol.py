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

from slotwise.model import Allocation, Appointment, Block, Record

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

        ``company_id`` ``None`` returns every company's records (platform-level reads only).
        ``location_id`` keeps only records whose ``location_id`` equals it; it must be ``None``
        for kinds without a ``location_id`` (companies, customers, subscriptions).
        An update keeps a record's position; a delete removes it.
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


class Transaction(Reader, Protocol):
    """
    One atomic unit of work: reads see the unit's own writes; all writes commit or none do.

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
    resource it takes, in sorted order, so no two bookings of one resource interleave.

    **Reads.** ``with store.read() as reader:`` gives one consistent view for the block's
    duration; it never sees half of a unit of work.

    Nested units of work on one store in one thread are not supported and raise ``StoreError``.

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
