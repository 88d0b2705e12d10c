"""
Reads a store may answer together or narrower than the protocol's: records by id, the blocks and
allocations of a range, the appointments occupying a range.

Not part of the storage protocol: a store that can answer several reads in one round trip
(``SQLStore``) offers ``prefetch`` and ``windows_touching`` methods, and a store that knows how
much padding its services have (``SQLStore``, ``MemoryStore``) offers ``appointments_occupying``;
these functions use them, and on any other store fall back to the protocol's reads.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable
from datetime import date, datetime, timedelta
from typing import Any

from slotwise.errors import StoreError
from slotwise.model import Allocation, Appointment, Block, OutboxEvent, Record
from slotwise.storage.protocol import Reader, Transaction

__all__ = [
    "ReadAgain",
    "appointments_occupying",
    "insert_new",
    "insert_numbered",
    "last_read",
    "prefetch",
    "windows_touching",
]

# A service's padding is at most 1,440 minutes (slotwise.model.catalog.Service).
_LONGEST_PADDING = timedelta(days=1)


class ReadAgain(StoreError):
    """
    A read that must run again from the start on a new view: it went on after the view it
    announced as ended (:func:`last_read`), or the configuration it was answered from turned out
    older than its view's (``slotwise.storage.configuration.confirmed``).
    :func:`slotwise.storage.replicas.lagging_read` runs the read again on a new view, which
    reads the configuration version first (the cache let the older one go) and, on
    ``SQLStore``, ends as usual; only a read that fails so a second time raises it.
    """


def prefetch(reader: Reader, wanted: Iterable[tuple[type[Any], str | None]]) -> None:
    """Ask *reader* for the (kind, id) records in *wanted* at once, when its store can; ids ``None`` are skipped."""
    read_at_once = getattr(reader, "prefetch", None)
    if read_at_once is not None:
        read_at_once([(kind, record_id) for kind, record_id in wanted if record_id is not None])


def last_read(reader: Reader) -> None:
    """
    Tell *reader* that the next read reaching its store is the last of its view, so that a store
    may end the view (its read-only transaction) in the same round trip as that read
    (``SQLStore`` on PostgreSQL and MariaDB: the ``ROLLBACK`` rides with it); any other store
    ignores it.

    Only a read that :func:`slotwise.storage.replicas.lagging_read` runs may say so: should the
    read go to the store again after all, a store that ended the view raises, and
    ``lagging_read`` runs the read again from the start on a view that ends as usual (one
    snapshot throughout, either way).
    """
    end_with_next = getattr(reader, "last_read", None)
    if end_with_next is not None:
        end_with_next()


def insert_new(tx: Transaction, record: Record) -> None:
    """
    Insert *record*, whose id was just generated, letting a store send it with the unit's next
    statement when it can (``SQLStore`` on PostgreSQL: with the next read or the ``COMMIT``,
    decision 49).

    The one difference from ``tx.insert``: should the id exist after all, the store may raise
    ``DuplicateRecord`` from a later call of the unit (or from its commit) instead of this one;
    the unit of work then writes nothing. Use it only where a duplicate id ends the unit.
    """
    insert_later = getattr(tx, "insert_new", None)
    if insert_later is not None:
        insert_later(record)
    else:
        tx.insert(record)


def insert_numbered(tx: Transaction, numbered: Callable[[int], OutboxEvent]) -> None:
    """
    Insert the outbox event ``numbered(n)``, *n* the store's next sequence number, letting a
    store assign the number as it writes the row (``SQLStore`` on PostgreSQL: the insert rides
    with the unit's ``COMMIT``, decision 49), so that drawing it costs no round trip of its own.

    On any other store this is ``insert_new(tx, numbered(tx.next_sequence()))``. As with
    :func:`insert_new`, a duplicate id may be raised by a later call of the unit (or its commit).
    The event's id is generated; its number is known to the store alone until the unit commits
    (the caller gets nothing back).
    """
    number_at_insert = getattr(tx, "insert_numbered", None)
    if number_at_insert is not None:
        number_at_insert(numbered)
    else:
        insert_new(tx, numbered(tx.next_sequence()))


def windows_touching(
    reader: Reader,
    *,
    block_targets: Collection[str],
    allocation_targets: Collection[str],
    first: date,
    last: date,
) -> tuple[list[Block], list[Allocation]]:
    """
    Return ``blocks_touching(block_targets)`` and ``allocations_touching(allocation_targets)``
    over ``[first, last]``, in one read when the store can.
    """
    read_together = getattr(reader, "windows_touching", None)
    if read_together is not None:
        found: tuple[list[Block], list[Allocation]] = read_together(
            block_targets=block_targets,
            allocation_targets=allocation_targets,
            first=first,
            last=last,
        )
        return found
    blocks = reader.blocks_touching(target_ids=block_targets, first=first, last=last)
    allocations = reader.allocations_touching(target_ids=allocation_targets, first=first, last=last)
    return blocks, allocations


def appointments_occupying(
    reader: Reader,
    *,
    company_id: str,
    location_id: str,
    resource_ids: Collection[str],
    start: datetime,
    end: datetime,
) -> list[Appointment]:
    """
    Return the appointments at *location_id* taking one of *resource_ids* whose occupied time may
    meet ``[start, end)``, ordered by (start, id).

    An appointment occupies ``[its start, its end + its service's padding)``. The answer holds
    every appointment whose occupied time meets the range, and may hold more that only come
    near it (the caller judges each with its service's padding): a store that knows the largest
    padding of *company_id*'s services reads back that far before *start*; any other store reads
    back a whole day (the largest padding a service can have).
    """
    read_narrower = getattr(reader, "appointments_occupying", None)
    if read_narrower is not None:
        found: list[Appointment] = read_narrower(
            company_id=company_id,
            location_id=location_id,
            resource_ids=resource_ids,
            start=start,
            end=end,
        )
        return found
    return reader.appointments_overlapping(
        location_id=location_id,
        resource_ids=resource_ids,
        start=start - _LONGEST_PADDING,
        end=end,
    )
