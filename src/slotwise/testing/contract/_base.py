"""
What every part of the contract shares: the store a test makes, and the checks and
thread helpers the tests use (no pytest: plain asserts and a local ``_raises``).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Collection, Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, date, datetime
from typing import Any, Generic, TypeVar

import attrs

from slotwise.errors import ConflictError
from slotwise.model import (
    OPEN_END,
    RECORD_KINDS,
    ApiToken,
    Appointment,
    Calendar,
    Customer,
    Location,
    Record,
    Resource,
    Service,
)
from slotwise.storage.protocol import Reader, Store
from slotwise.testing.samples import sample_customer

from ._world import CO_A

E = TypeVar("E", bound=BaseException)


def _shows(expected: object, actual: object) -> str:
    """Build an assertion message (pytest does not rewrite asserts in installed packages)."""
    return f"\n expected: {expected!r}\n   actual: {actual!r}"


class _Caught(Generic[E]):
    """What a ``_raises`` block caught."""

    def __init__(self) -> None:
        self.exception: E | None = None

    @property
    def value(self) -> E:
        """Return the exception caught."""
        assert self.exception is not None, "the block raised nothing"
        return self.exception


@contextmanager
def _raises(exc_type: type[E]) -> Iterator[_Caught[E]]:
    """Assert that the block raises *exc_type* (other exceptions propagate)."""
    caught: _Caught[E] = _Caught()
    try:
        yield caught
    except exc_type as exc:
        caught.exception = exc
        return
    raise AssertionError(f"{exc_type.__name__} was not raised")


class _Boom(Exception):
    """The exception a test raises to abort a unit of work."""


class _Interrupt(BaseException):
    """A non-``Exception`` abort, like ``KeyboardInterrupt``."""


def _run_threads(workers: Sequence[Callable[[], None]], *, timeout: float) -> None:
    """Run *workers* on threads; re-raise the first failure; fail when one hangs (deadlock)."""
    failures: list[BaseException] = []

    def guarded(worker: Callable[[], None]) -> Callable[[], None]:
        def run() -> None:
            try:
                worker()
            except BaseException as exc:  # reported to the test thread below
                failures.append(exc)

        return run

    threads = [threading.Thread(target=guarded(worker), daemon=True) for worker in workers]
    for thread in threads:
        thread.start()
    deadline = time.monotonic() + timeout
    for thread in threads:
        thread.join(max(0.0, deadline - time.monotonic()))
    # A guard against deadlocks, not a speed requirement: the timeout is generous.
    hung = sum(thread.is_alive() for thread in threads)
    assert not hung, f"{hung} of {len(threads)} threads were still running after {timeout} s"
    if failures:
        raise failures[0]


class ContractBase:
    """
    The store a contract test works on: :meth:`make_store` (the host implements it), and
    :meth:`dispose_store` after the test. Every part of :class:`StoreContract` derives from it,
    so a part may also be run alone (``class TestMyFeeds(FeedContract)``).

    .. versionadded:: 0.1
    """

    thread_count: int = 8
    """Threads in the concurrency tests."""
    increments_per_thread: int = 50
    """Read-modify-write units of work each thread runs in the counter test."""
    thread_timeout: float = 120.0
    """Seconds after which a thread test counts as deadlocked."""

    def make_store(self) -> Store:
        """
        Return a new, empty store to test.

        Raises:
            NotImplementedError: always; subclasses implement it.
        """
        raise NotImplementedError("StoreContract subclasses implement make_store()")

    def dispose_store(self, store: Store) -> None:
        """Release what *store* holds (connections, files); the default does nothing."""

    def teardown_method(self, method: object = None) -> None:
        """Dispose of the stores the test made (pytest calls this after each test)."""
        for store in self.__dict__.pop("_contract_stores", []):
            self.dispose_store(store)

    # -- helpers -------------------------------------------------------------------------

    def _store(self, *records: Record) -> Store:
        """Make a store holding *records*, inserted in one unit of work."""
        store = self.make_store()
        self.__dict__.setdefault("_contract_stores", []).append(store)
        if records:
            _insert(store, *records)
        return store


def _insert(store: Store, *records: Record) -> None:
    """Insert *records* in one unit of work."""
    with store.transaction() as tx:
        for record in records:
            tx.insert(record)


def _find_id(records: Sequence[Record], kind: type[Any], record_id: str) -> Any:
    """Return the record of *kind* with *record_id* among *records*."""
    for record in records:
        if type(record) is kind and record.id == record_id:
            return record
    raise AssertionError(f"no {kind.__name__} {record_id!r} among the records")


def _add_one(store: Store, *, locks: Collection[str] = ("counter",)) -> None:
    """Read the counter, yield the interpreter, write counter + 1: lost updates show."""
    with store.transaction(locks=locks) as tx:
        counter = tx.get(Customer, "counter")
        assert counter is not None, "the counter record vanished"
        time.sleep(0)  # invite a thread switch between the read and the write
        tx.update(attrs.evolve(counter, notes=str(int(counter.notes or "0") + 1)))


def _insert_pair(store: Store, number: int) -> None:
    """Insert pair *number* (two customers) and set the tally to *number* + 1, in one unit."""
    with store.transaction(locks=("tally",)) as tx:
        tx.insert(sample_customer(id=f"pair-{number:03}-a", company_id=CO_A))
        time.sleep(0)
        tx.insert(sample_customer(id=f"pair-{number:03}-b", company_id=CO_A))
        tally = tx.get(Customer, "tally")
        assert tally is not None, "the tally record vanished"
        tx.update(attrs.evolve(tally, notes=str(number + 1)))


def _retry_conflicts(unit: Callable[[], None], *, attempts: int = 100) -> None:
    """Run *unit*, retrying on ConflictError (the protocol says retrying is safe)."""
    for _ in range(attempts - 1):
        try:
            unit()
        except ConflictError:
            continue
        return
    unit()


@attrs.frozen
class _Universe:
    """Every company, location and window target a test knows, to snapshot all reads."""

    records: Sequence[Record]

    def snapshot(self, store: Store, *, reader: Reader | None = None) -> dict[str, object]:
        """Return every find() and range read over the known ids, by a description of the read."""
        if reader is None:
            with store.read() as fresh:
                return self._read(fresh)
        return self._read(reader)

    def _read(self, reader: Reader) -> dict[str, object]:
        """Run every read of the snapshot on *reader*."""
        companies = sorted({record.company_id for record in self.records})
        locations = sorted({record.id for record in self.records if isinstance(record, Location)})
        targets = sorted(
            {
                record.id
                for record in self.records
                if isinstance(record, Calendar | Service | Resource)
            }
        )
        resources = [record.id for record in self.records if isinstance(record, Resource)]
        first, last = date(1900, 1, 1), OPEN_END
        start, end = datetime(2000, 1, 1, tzinfo=UTC), datetime(2100, 1, 1, tzinfo=UTC)
        reads: dict[str, object] = {}
        for kind in RECORD_KINDS:
            name = kind.__name__
            reads[f"find({name})"] = reader.find(kind, company_id=None)
            for company_id in companies:
                reads[f"find({name}, {company_id})"] = reader.find(kind, company_id=company_id)
        for method in ("blocks_touching", "allocations_touching"):
            reads[f"{method}(all)"] = getattr(reader, method)(
                target_ids=targets, first=first, last=last
            )
            for target_id in targets:
                reads[f"{method}({target_id})"] = getattr(reader, method)(
                    target_ids=[target_id], first=first, last=last
                )
        for location_id in locations:
            for resource_ids in (None, resources, *([resource] for resource in resources)):
                reads[f"appointments_overlapping({location_id}, {resource_ids})"] = (
                    reader.appointments_overlapping(
                        location_id=location_id, resource_ids=resource_ids, start=start, end=end
                    )
                )
        for company in (None, *companies):
            for places in (None, *([location] for location in locations), locations):
                where = f"{company}, {places}"
                reads[f"undelivered_events({where})"] = reader.undelivered_events(
                    company_id=company, location_ids=places, limit=10_000
                )
                reads[f"reminders_due({where})"] = reader.reminders_due(
                    company_id=company, location_ids=places, before=end, limit=10_000
                )
                reads[f"expired_holds({where})"] = reader.expired_holds(
                    company_id=company, location_ids=places, now=end, limit=10_000
                )
        for record in self.records:
            if isinstance(record, Appointment):
                reads[f"reminders_of({record.id})"] = reader.reminders_of(record.id)
                reads[f"audit_of({record.id})"] = reader.audit_of(record.id)
                if record.idempotency_key is not None:
                    key = (record.company_id, record.idempotency_key)
                    reads[f"appointment_by_idempotency_key{key}"] = (
                        reader.appointment_by_idempotency_key(*key)
                    )
            elif isinstance(record, Customer):
                reads[f"appointments_of_customer({record.id})"] = reader.appointments_of_customer(
                    record.id
                )
                if record.email is not None:
                    key = (record.company_id, record.email)
                    reads[f"customer_by_email{key}"] = reader.customer_by_email(*key)
            elif isinstance(record, ApiToken):
                reads[f"token_by_hash({record.id})"] = reader.token_by_hash(record.token_hash)
        return reads

    def assert_same(self, before: dict[str, object], after: dict[str, object]) -> None:
        """Assert two snapshots are equal, naming the first read that differs."""
        for key, value in before.items():
            assert value == after.get(key), f"{key} changed" + _shows(value, after.get(key))
        assert before.keys() == after.keys()
