"""
A company's configuration, read once per change and shared by the requests of one process.

Decision 49: the records that describe what can be booked -- the company, its locations,
calendars, services and service groups, resources and resource groups, blocks and allocations,
booking field definitions -- change rarely and are read by every availability request and
booking. A store that keeps a per-company *configuration version*, bumped by every write of
those records in the same unit of work, offers ``configuration_version(company_id)``: one
indexed read. :class:`ConfigurationCache` keeps each company's configuration with the version it
was read at, and hands out a :class:`CachedReader` that answers configuration reads from it as
long as the store still reports that version. Appointments, customers and everything else are
always read from the store.

Why it is safe across processes and hosts: a request reads the version first, so a change
committed before the request began is always seen (the version differs, the configuration is
read again). The configuration is read *after* the version it is labelled with, so a label is
never newer than its contents: a change committed in between only costs one more reload.

A read that can run again (``lagging_read``, ``Context.configured_read``) on a store whose reads
ride (``SQLStore`` on PostgreSQL, MariaDB) may ask for the version *with* its first read instead
(``checked_later``), answered from the configuration held meanwhile: :func:`confirmed` checks the
version of the same snapshot before the answer (or an error) leaves the read, and an older one
runs the read again (``ReadAgain``), reading the version first. Nothing answered from a stale
configuration reaches the caller; a warm availability read, or list of services, is one round trip.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Collection
from datetime import date, datetime
from typing import Any, Final, TypeVar

import attrs

from slotwise.errors import StoreError
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
from slotwise.storage._configuration_records import CONFIGURATION_KINDS, Configuration
from slotwise.storage.batched import (
    ReadAgain,
    insert_numbered,
    last_read,
    prefetch,
)
from slotwise.storage.listing import Listed, ListQuery
from slotwise.storage.protocol import R, Reader, Transaction

__all__ = [
    "CONFIGURATION_KINDS",
    "CachedReader",
    "CachedUnit",
    "Configuration",
    "ConfigurationCache",
    "company_of",
    "configuration_version",
    "confirmed",
]

_LOCATED: Final = frozenset(
    kind for kind in CONFIGURATION_KINDS if "location_id" in attrs.fields_dict(kind)
)

_T = TypeVar("_T")


def company_of(record: Record) -> str:
    """Return the company *record* belongs to (a company is its own)."""
    return record.company_id


def configuration_version(reader: Reader, company_id: str) -> int | None:
    """
    Return *company_id*'s configuration version as *reader* sees it, or ``None`` when the store
    keeps no versions (then nothing may be cached).
    """
    read = getattr(reader, "configuration_version", None)
    if read is None:
        return None
    return int(read(company_id))


class ConfigurationCache:
    """
    Each company's :class:`Configuration`, kept by one process for the stores it reads.

    Thread-safe. Holds at most *companies* configurations (the least recently used leaves
    first). A cache belongs to one store: give every store its own (``Scheduler`` does).

    .. versionadded:: 0.1
    """

    def __init__(self, *, companies: int = 1024) -> None:
        if companies < 1:
            raise ValueError(f"companies must be at least 1, not {companies}")
        self._companies = companies
        self._lock = threading.Lock()
        self._held: dict[str, Configuration] = {}
        self._derived: dict[object, Any] = {}
        """What readers work out from the configurations held, shared by all of them."""
        self.loads = 0
        """How many configurations were read from a store (a measure for tests and benchmarks)."""

    def __repr__(self) -> str:
        return f"ConfigurationCache(companies={self._companies})"

    def reader(self, reader: Reader, company_id: str, *, checked_later: bool = False) -> Reader:
        """
        Return a reader answering *company_id*'s configuration reads from this cache.

        Reads one version from *reader* (and the whole configuration when it changed). A store
        that keeps no versions gets *reader* back unchanged. Use it only on a read-only view:
        configuration read inside a unit of work that writes may never commit.

        With *checked_later* (a read run again on ``ReadAgain`` that returns through
        :func:`confirmed`): a held company's version is asked for with the store's next round
        trip where it can be, not read first, and checked when it arrives (module docstring).
        """
        if checked_later:
            with self._lock:
                held = self._held.get(company_id)
            ask_ahead = getattr(reader, "configuration_version_ahead", None)
            if held is not None and ask_ahead is not None:
                cached = CachedReader(reader, held)
                cached._unconfirmed = True
                if ask_ahead(company_id, lambda version: self._arrived(cached, version)):
                    return cached
        held = self.configuration(reader, company_id)
        return reader if held is None else CachedReader(reader, held)

    def _arrived(self, cached: CachedReader, version: int) -> None:
        """Check the version a read asked for ahead against what *cached* answered from."""
        cached._unconfirmed = False
        held = cached._configuration
        with self._lock:
            self._kept(held.company_id, version)  # a newer version: the read runs again, loads it
        if version == held.version:
            return
        raise ReadAgain(
            f"company {held.company_id}'s configuration changed (version {held.version} held, "
            f"{version} read)"
        )

    def configuration(self, reader: Reader, company_id: str) -> Configuration | None:
        """
        Return *company_id*'s configuration as *reader* sees it now (``None`` when the store keeps
        no versions): one version read, the rest only when it changed. Read-only views only.
        """
        version = configuration_version(reader, company_id)
        if version is None:
            return None
        with self._lock:
            held = self._kept(company_id, version)
        if held is not None:
            return held
        return self._load(reader, company_id, version)

    def _load(self, reader: Reader, company_id: str, version: int) -> Configuration:
        """Read *company_id*'s configuration, labelled *version* (read first), and hold it."""
        # Read outside the lock: other companies' requests need not wait for this one.
        fresh = Configuration.read(reader, company_id, version, derived=self._derived)
        with self._lock:
            self.loads += 1
            held = self._held.pop(company_id, None)  # a newer one (a lagging view's read) stays
            self._held[company_id] = held if held is not None and held.version > version else fresh
            while len(self._held) > self._companies:
                del self._held[next(iter(self._held))]
        return fresh

    def _kept(self, company_id: str, version: int) -> Configuration | None:
        """
        Return *company_id*'s configuration held at *version*, now the most recently used. One
        held at an older version is let go; a newer one stays (versions only rise: the reader
        lags behind it, a replica), so two servers' reads do not reload it in turn. Lock held.
        """
        held = self._held.pop(company_id, None)
        if held is not None and held.version >= version:
            self._held[company_id] = held  # most recently used last
        return held if held is not None and held.version == version else None

    def unit(self, tx: Transaction, company_id: str) -> Transaction:
        """
        Return *tx* with *company_id*'s configuration reads answered from this cache, for a unit
        of work that writes no configuration (a booking): call it before the unit writes
        anything, so what it loads is what was committed (decision 49). The version is read
        inside the unit, after its locks: a change committed before that read is seen.
        """
        # configuration(), inline: a booking's one version read, and no other call when the
        # company is held at that version (every booking but the first after a change).
        read = getattr(tx, "configuration_version", None)
        if read is None:
            return tx
        version = int(read(company_id))
        with self._lock:
            held = self._held.pop(company_id, None)
            if held is not None and held.version >= version:
                self._held[company_id] = held  # most recently used last, as _kept keeps it
        if held is None or held.version != version:
            held = self._load(tx, company_id, version)
        return CachedUnit(tx, held)


def confirmed(reader: Reader, read: Callable[[], _T]) -> _T:
    """
    Return ``read()``, an answer (or raise its error) only once *reader*'s configuration is
    known to be its view's: a :class:`CachedReader` made with ``checked_later`` confirms the
    version it asked for ahead first (``ReadAgain`` when the configuration changed, for
    ``lagging_read`` to run the read again). A store's failure is raised as it is.
    """
    try:
        answer = read()
    except StoreError:
        raise
    except Exception:
        # An error decided on the held configuration (a service not found, not the
        # principal's) stands only if that configuration is the view's.
        if isinstance(reader, CachedReader):
            reader.confirm()
        raise
    if isinstance(reader, CachedReader):
        reader.confirm()
    return answer


class CachedReader:
    """
    A :class:`~slotwise.storage.protocol.Reader` whose configuration reads of one company come
    from a :class:`Configuration`; every other read goes to the store's reader.
    """

    def __init__(self, reader: Reader, configuration: Configuration) -> None:
        self._reader = reader
        self._configuration = configuration
        self._unconfirmed = False
        """Whether the version asked for ahead has not arrived yet (``checked_later``)."""

    @property
    def configuration(self) -> Configuration:
        """The configuration this reader answers from."""
        return self._configuration

    def confirm(self) -> None:
        """
        Make sure the version asked for ahead has arrived and matched (``ReadAgain`` when not);
        nothing to do for a reader that read the version first.
        """
        if self._unconfirmed:
            # Sends what waits to ride, the version asked for ahead among it.
            send_ahead = getattr(self._reader, "send_ahead", None)
            if send_ahead is None:  # a store that cannot send it alone reads it once more
                configuration_version(self._reader, self._configuration.company_id)
            else:
                send_ahead()
            if self._unconfirmed:
                raise StoreError("the configuration version asked for ahead was never answered")

    def get(self, kind: type[R], record_id: str, /) -> R | None:
        if kind in CONFIGURATION_KINDS:
            held = self._configuration.by_id.get((kind, record_id))
            if held is not None:
                # The record of (kind, record_id); not typing.cast: a Python call, ~8 a booking.
                return held  # type: ignore[no-any-return]
        # Another company's record (the tenant check decides), or a kind not held.
        return self._reader.get(kind, record_id)

    def find(
        self, kind: type[R], /, *, company_id: str | None, location_id: str | None = None
    ) -> list[R]:
        if kind not in CONFIGURATION_KINDS or company_id != self._configuration.company_id:
            return self._reader.find(kind, company_id=company_id, location_id=location_id)
        held = self._configuration.records[kind]
        if location_id is None:
            return list(held)
        if kind not in _LOCATED:  # the store refuses a location filter on a kind without one
            return self._reader.find(kind, company_id=company_id, location_id=location_id)
        return [record for record in held if record.location_id == location_id]

    def page(self, kind: type[R], query: ListQuery, /) -> Listed[R]:
        return self._reader.page(kind, query)

    def blocks_touching(
        self, *, target_ids: Collection[str], first: date, last: date
    ) -> list[Block]:
        return self._configuration.touching(Block, target_ids, first, last)

    def allocations_touching(
        self, *, target_ids: Collection[str], first: date, last: date
    ) -> list[Allocation]:
        return self._configuration.touching(Allocation, target_ids, first, last)

    def windows_touching(
        self,
        *,
        block_targets: Collection[str],
        allocation_targets: Collection[str],
        first: date,
        last: date,
    ) -> tuple[list[Block], list[Allocation]]:
        """Both windows reads at once (see :func:`slotwise.storage.batched.windows_touching`)."""
        touching = self._configuration.touching
        return (
            touching(Block, block_targets, first, last),
            touching(Allocation, allocation_targets, first, last),
        )

    def appointments_overlapping(
        self,
        *,
        location_id: str,
        resource_ids: Collection[str] | None,
        start: datetime,
        end: datetime,
    ) -> list[Appointment]:
        return self._reader.appointments_overlapping(
            location_id=location_id, resource_ids=resource_ids, start=start, end=end
        )

    @property
    def appointments_occupying(self) -> Callable[..., list[Appointment]] | None:
        """
        The store's occupancy read (see :func:`slotwise.storage.batched.appointments_occupying`),
        its own bound method: nothing of it is configuration, so a caller calls the store's
        method with no layer between; ``None`` when the store has none (the caller then reads
        ``appointments_overlapping``, which this reader passes on).
        """
        read_narrower: Callable[..., list[Appointment]] | None = getattr(
            self._reader, "appointments_occupying", None
        )
        return read_narrower

    @property
    def prefetch(self) -> Callable[[Collection[tuple[type[Any], str]]], None] | None:
        """
        The store's capability (see :func:`slotwise.storage.batched.prefetch`), passing it the
        reads this cache cannot answer; ``None`` when the store has none, so that a booking
        on such a store builds no request at all.
        """
        if getattr(self._reader, "prefetch", None) is None:
            return None
        return self._prefetch_uncached

    def _prefetch_uncached(self, wanted: Collection[tuple[type[Any], str]], /) -> None:
        prefetch(
            self._reader,
            (
                (kind, record_id)
                for kind, record_id in wanted
                if (kind, record_id) not in self._configuration.by_id
            ),
        )

    def last_read(self) -> None:
        """Pass the hint on (see :func:`slotwise.storage.batched.last_read`)."""
        last_read(self._reader)

    def appointment_by_idempotency_key(self, company_id: str, key: str) -> Appointment | None:
        return self._reader.appointment_by_idempotency_key(company_id, key)

    def customer_by_email(self, company_id: str, email: str) -> Customer | None:
        return self._reader.customer_by_email(company_id, email)

    def token_by_hash(self, token_hash: str) -> ApiToken | None:
        return self._reader.token_by_hash(token_hash)

    def appointments_of_customer(self, customer_id: str) -> list[Appointment]:
        return self._reader.appointments_of_customer(customer_id)

    def expired_holds(
        self,
        *,
        company_id: str | None,
        location_ids: Collection[str] | None = None,
        now: datetime,
        limit: int,
    ) -> list[Appointment]:
        return self._reader.expired_holds(
            company_id=company_id, location_ids=location_ids, now=now, limit=limit
        )

    def undelivered_events(
        self,
        *,
        company_id: str | None,
        location_ids: Collection[str] | None = None,
        limit: int,
    ) -> list[OutboxEvent]:
        return self._reader.undelivered_events(
            company_id=company_id, location_ids=location_ids, limit=limit
        )

    def reminders_due(
        self,
        *,
        company_id: str | None,
        location_ids: Collection[str] | None = None,
        before: datetime,
        limit: int,
    ) -> list[QueuedReminder]:
        return self._reader.reminders_due(
            company_id=company_id, location_ids=location_ids, before=before, limit=limit
        )

    def reminders_of(self, appointment_id: str) -> list[QueuedReminder]:
        return self._reader.reminders_of(appointment_id)

    def audit_of(self, appointment_id: str) -> list[AuditEntry]:
        return self._reader.audit_of(appointment_id)


class CachedUnit(CachedReader):
    """
    A :class:`~slotwise.storage.protocol.Transaction` whose configuration reads come from a
    :class:`Configuration`; writes go to the unit of work. It refuses configuration writes:
    the configuration it answers from would no longer be the unit's.

    On a store whose unit offers ``refuse_configuration()`` (``MemoryStore``), the unit itself
    refuses them from then on, and this unit's ``insert``, ``insert_new`` and ``insert_numbered``
    are the three write methods it returns (no call of this class between a booking and its
    store).
    """

    insert: Callable[[Record], None]
    insert_new: Callable[[Record], None]
    """The store's ``insert_new`` (see :func:`slotwise.storage.batched.insert_new`)."""
    insert_numbered: Callable[[Callable[[int], OutboxEvent]], None]
    """The store's ``insert_numbered`` (see :func:`slotwise.storage.batched.insert_numbered`)."""

    def __init__(self, tx: Transaction, configuration: Configuration) -> None:
        # CachedReader's attributes, set here (no super() call: one per booking).
        self._reader = self._tx = tx
        self._configuration = configuration
        self._unconfirmed = False
        refusing = getattr(tx, "refuse_configuration", None)
        if refusing is not None:
            self.insert, self.insert_new, self.insert_numbered = refusing()
        else:
            self.insert = self._checked_insert
            self.insert_new = self._checked_insert_new
            self.insert_numbered = self._numbered
            # The store's own ``insert_new`` (or plain ``insert``), found once per unit.
            self._insert_new: Callable[[Record], None] = (
                getattr(tx, "insert_new", None) or tx.insert
            )

    def _writable(self, kind: type[Any]) -> None:
        if kind in CONFIGURATION_KINDS:
            raise TypeError(f"a cached unit of work writes no {kind.__name__} (configuration)")

    def _checked_insert(self, record: Record, /) -> None:
        self._writable(type(record))
        self._tx.insert(record)

    def _checked_insert_new(self, record: Record, /) -> None:
        if type(record) in CONFIGURATION_KINDS:
            self._writable(type(record))
        self._insert_new(record)

    def _numbered(self, numbered: Callable[[int], OutboxEvent], /) -> None:
        # An outbox event is no configuration: nothing to refuse.
        insert_numbered(self._tx, numbered)

    def update(self, record: Record, /) -> None:
        self._writable(type(record))
        self._tx.update(record)

    def delete(self, kind: type[Record], record_id: str, /) -> None:
        self._writable(kind)
        self._tx.delete(kind, record_id)

    def next_sequence(self) -> int:
        return self._tx.next_sequence()

    def claim_deliveries(
        self, *, owner: str, now: datetime, lease_until: datetime, limit: int
    ) -> list[OutboxEvent]:
        return self._tx.claim_deliveries(owner=owner, now=now, lease_until=lease_until, limit=limit)
