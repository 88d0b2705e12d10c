"""
``StoreContract``: the behaviour every store must show, as a reusable test suite.

A host application proves its own store keeps the contract of ``slotwise.storage.protocol`` by
subclassing :class:`StoreContract` in its test suite::

    from slotwise.testing import StoreContract

    class TestMyStore(StoreContract):
        def make_store(self):
            return MyStore(...)  # a fresh, empty store

pytest collects the inherited ``test_*`` methods. This module does not import pytest: it uses
plain ``assert`` with messages (pytest does not rewrite asserts in installed packages) and a
small local ``_raises`` context manager.
"""

from __future__ import annotations

import functools
import threading
import time
from collections.abc import Callable, Collection, Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, date, datetime, timedelta, timezone
from typing import Any, Generic, TypeVar, cast

import attrs

from slotwise.errors import ConflictError, DuplicateRecord, NotFound, OutOfRange, StoreError
from slotwise.model import (
    OPEN_END,
    RECORD_KINDS,
    Allocation,
    Appointment,
    AppointmentStatus,
    AuditEntry,
    Block,
    Calendar,
    Company,
    Customer,
    FieldDefinition,
    Frequency,
    Location,
    Operation,
    OutboxEvent,
    QueuedReminder,
    Record,
    RepeatRule,
    Resource,
    ResourceGroup,
    Service,
    ServiceGroup,
    Subscription,
    Trigger,
)
from slotwise.storage.protocol import R, Reader, Store

from ._refusals import RefusalContract
from .samples import (
    sample_allocation,
    sample_appointment,
    sample_audit_entry,
    sample_block,
    sample_calendar,
    sample_company,
    sample_customer,
    sample_location,
    sample_outbox_event,
    sample_queued_reminder,
    sample_records,
    sample_resource,
    sample_service,
)

__all__ = ["StoreContract"]

E = TypeVar("E", bound=BaseException)

# -- a small world every test starts from ---------------------------------------------------

CO_A, CO_B = "co-a", "co-b"
LOC_A1, LOC_A2, LOC_B1 = "loc-a1", "loc-a2", "loc-b1"
SVC_A1, SVC_A2, SVC_B1 = "svc-a1", "svc-a2", "svc-b1"
RES_1, RES_2, RES_3 = "res-1", "res-2", "res-3"  # at loc-a1
RES_4 = "res-4"  # at loc-a2
RES_B = "res-b"  # at loc-b1

_COMPANY_OF = {LOC_A1: CO_A, LOC_A2: CO_A, LOC_B1: CO_B}
_SERVICE_OF = {LOC_A1: SVC_A1, LOC_A2: SVC_A2, LOC_B1: SVC_B1}

_DAY = date(2026, 3, 10)
"""Appointment tests happen on this day (a Tuesday, before Europe's DST change)."""

_WINDOW_KINDS: tuple[tuple[type[Block] | type[Allocation], str], ...] = (
    (Block, "blocks_touching"),
    (Allocation, "allocations_touching"),
)

_DELETE_ORDER: tuple[type[Any], ...] = (
    OutboxEvent,
    AuditEntry,
    QueuedReminder,
    Appointment,
    FieldDefinition,
    Subscription,
    Customer,
    Allocation,
    Block,
    Resource,
    ResourceGroup,
    Service,
    ServiceGroup,
    Calendar,
    Location,
    Company,
)
"""Record kinds, children before the records they name."""

_CHANGE_FIELD: dict[type[Any], str] = {
    Company: "name",
    Location: "name",
    Calendar: "name",
    Service: "name",
    ServiceGroup: "name",
    Resource: "name",
    ResourceGroup: "name",
    Block: "reason",
    Allocation: "reason",
    Customer: "notes",
    Subscription: "customer_plan_name",
    FieldDefinition: "label",
    Appointment: "booked_by",
    AuditEntry: "modified_by",
}
"""A text field of each kind that an update may change freely (see also :func:`_changed`)."""


def _bare_world() -> list[Record]:
    """Two companies, three locations, their services and five resources; nothing else."""
    records: list[Record] = [sample_company(id=CO_A), sample_company(id=CO_B)]
    for location_id, company_id in _COMPANY_OF.items():
        calendar_id = f"cal-{location_id}"
        where: dict[str, Any] = {"company_id": company_id, "location_id": location_id}
        records += [
            sample_location(
                id=location_id,
                company_id=company_id,
                is_primary=location_id != LOC_A2,
                primary_calendar_id=calendar_id,
            ),
            sample_calendar(id=calendar_id, **where),
            sample_service(id=_SERVICE_OF[location_id], **where),
        ]
    for resource_id, location_id in (
        (RES_1, LOC_A1),
        (RES_2, LOC_A1),
        (RES_3, LOC_A1),
        (RES_4, LOC_A2),
        (RES_B, LOC_B1),
    ):
        records.append(
            sample_resource(
                id=resource_id, company_id=_COMPANY_OF[location_id], location_id=location_id
            )
        )
    return records


def _full_world() -> list[Record]:
    """Every kind three times: two locations of company A and one of company B."""
    return [
        *sample_records(company_id=CO_A, location_id=LOC_A1, prefix="a1"),
        *sample_records(company_id=CO_A, location_id=LOC_A2, prefix="a2", with_company=False),
        *sample_records(company_id=CO_B, location_id=LOC_B1, prefix="b1"),
    ]


def _minimal_world() -> list[Record]:
    """One record of every kind with only its required fields (optional ones left ``None``)."""
    where: dict[str, Any] = {"company_id": "co-min", "location_id": "loc-min"}
    start = datetime(2026, 3, 3, 9, 0, tzinfo=UTC)
    return [
        Company(id="co-min", name="M", timezone="UTC"),
        Location(id="loc-min", company_id="co-min", name="M", timezone="UTC"),
        Calendar(id="min-calendar", name="M", **where),
        Service(id="min-service", name="M", duration=1, **where),
        ServiceGroup(id="min-service-group", company_id="co-min", name="M"),
        Resource(id="min-resource", name="M", timezone="UTC", **where),
        ResourceGroup(id="min-resource-group", company_id="co-min", name="M"),
        Block(
            id="min-block",
            target="calendar",
            target_id="min-calendar",
            start_date=date(2026, 3, 3),
            end_date=date(2026, 3, 3),
            **where,
        ),
        Allocation(
            id="min-allocation",
            target="resource",
            target_id="min-resource",
            start_date=date(2026, 3, 3),
            end_date=date(2026, 3, 3),
            **where,
        ),
        # An empty string must come back as an empty string, not as None.
        Customer(id="min-customer", company_id="co-min", first_name="M", notes=""),
        Subscription(
            id="min-subscription",
            company_id="co-min",
            customer_id="min-customer",
            customer_plan_id="p",
        ),
        FieldDefinition(id="min-field", kind="booking", name="n", label="N", **where),
        Appointment(
            id="min-appointment",
            service_id="min-service",
            status=AppointmentStatus.INITIAL,
            start=start,
            end=start + timedelta(minutes=1),
            created_at=start,
            **where,
        ),
        QueuedReminder(
            id="min-reminder",
            appointment_id="min-appointment",
            channel="email",
            ordinal=1,
            due_at=start,
            **where,
        ),
        AuditEntry(
            id="min-audit",
            appointment_id="min-appointment",
            operation=Operation.CREATE_HOLD,
            modified_on=start,
            **where,
        ),
        OutboxEvent(
            id="min-event",
            company_id="co-min",
            sequence=1,
            trigger=Trigger.CUSTOMER_CREATED,
            entity_id="min-customer",
            created_at=start,
        ),
    ]


def _changed(record: R, value: str = "Changed ✓") -> R:
    """Return *record* with one free field changed to a value derived from *value*."""
    if isinstance(record, QueuedReminder):
        # No free text here: move the due time by a number of minutes that *value* decides.
        minutes = sum(map(ord, value)) % 997 + 1
        return cast(R, attrs.evolve(record, due_at=record.due_at + timedelta(minutes=minutes)))
    if isinstance(record, OutboxEvent):
        return cast(R, attrs.evolve(record, payload={**record.payload, "note": value}))
    changed: R = attrs.evolve(cast(Any, record), **{_CHANGE_FIELD[type(record)]: value})
    return changed


def _at(hour: int, minute: int = 0, *, day: date = _DAY) -> datetime:
    """Return *hour*:*minute* UTC on *day*."""
    return datetime(day.year, day.month, day.day, hour, minute, tzinfo=UTC)


def _appointment(
    record_id: str,
    start: datetime,
    end: datetime,
    *,
    resource_ids: Sequence[str] = (RES_1,),
    location_id: str = LOC_A1,
    **changes: Any,
) -> Appointment:
    """Return a booked appointment at *location_id* (company and service follow from it)."""
    return sample_appointment(
        id=record_id,
        company_id=_COMPANY_OF[location_id],
        location_id=location_id,
        service_id=_SERVICE_OF[location_id],
        start=start,
        end=end,
        resource_ids=tuple(resource_ids),
        **changes,
    )


def _window(
    kind: type[Block] | type[Allocation],
    record_id: str,
    target_id: str,
    first: date,
    last: date,
    **changes: Any,
) -> Block | Allocation:
    """Return a non-repeating block or allocation of *target_id* at ``loc-a1``."""
    fields: dict[str, Any] = {"repeat": None, **changes}
    where: dict[str, Any] = {"company_id": CO_A, "location_id": LOC_A1, "target_id": target_id}
    if kind is Block:
        return sample_block(id=record_id, start_date=first, end_date=last, **where, **fields)
    return sample_allocation(id=record_id, start_date=first, end_date=last, **where, **fields)


def _touching(
    reader: Reader,
    method: str,
    target_ids: Collection[str],
    first: date,
    last: date,
) -> list[str]:
    """Return the ids ``reader.<method>`` finds, in the order it returns them."""
    found = getattr(reader, method)(target_ids=target_ids, first=first, last=last)
    return [record.id for record in found]


def _overlapping(
    reader: Reader,
    start: datetime,
    end: datetime,
    *,
    resource_ids: Collection[str] | None = None,
    location_id: str = LOC_A1,
) -> list[str]:
    """Return the ids ``reader.appointments_overlapping`` finds, in its order."""
    found = reader.appointments_overlapping(
        location_id=location_id, resource_ids=resource_ids, start=start, end=end
    )
    return [appointment.id for appointment in found]


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


class StoreContract(RefusalContract):
    """
    The behaviour tests every :class:`~slotwise.storage.protocol.Store` must pass.

    Subclass it as ``TestMyStore(StoreContract)`` and implement :meth:`make_store`; override
    :meth:`dispose_store` to close what a store holds open. A test makes one or two stores.

    The tests write only consistent data: every id a record names belongs to a record written
    in the same or an earlier unit of work, and no record is deleted while another still names
    it, so a store may enforce references at commit. Ids are short ASCII strings; text fields
    carry non-ASCII characters, instants carry microseconds.

    The thread tests run :attr:`thread_count` threads; :attr:`thread_timeout` only guards
    against deadlocks and is not a speed requirement.

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

    # -- round trips ---------------------------------------------------------------------

    def test_every_kind_round_trips(self) -> None:
        """A record of every kind, inserted, is read back equal by get() and find()."""
        records = sample_records(company_id=CO_A, location_id=LOC_A1, prefix="a1")
        assert {type(record) for record in records} == set(RECORD_KINDS)
        store = self._store(*records)

        with store.read() as reader:
            for record in records:
                got = reader.get(type(record), record.id)
                assert got == record, _shows(record, got)
                assert type(got) is type(record), _shows(type(record), type(got))
                found = reader.find(type(record), company_id=CO_A)
                assert [record] == found, _shows([record], found)

    def test_minimal_records_round_trip(self) -> None:
        """Records with only required fields come back equal: None stays None, "" stays ""."""
        records = _minimal_world()
        assert {type(record) for record in records} == set(RECORD_KINDS)
        store = self._store(*records)

        with store.read() as reader:
            for record in records:
                got = reader.get(type(record), record.id)
                assert got == record, _shows(record, got)

    def test_every_kind_round_trips_an_update(self) -> None:
        """An update of every kind is read back equal, inside the unit of work and after it."""
        records = sample_records(company_id=CO_A, location_id=LOC_A1, prefix="a1")
        store = self._store(*records)
        changed = [_changed(record) for record in records]

        with store.transaction() as tx:
            for record in changed:
                tx.update(record)
                got = tx.get(type(record), record.id)
                assert got == record, _shows(record, got)

        with store.read() as reader:
            for record in changed:
                got = reader.get(type(record), record.id)
                assert got == record, _shows(record, got)

    def test_get_missing_returns_none(self) -> None:
        """get() of an id never inserted returns None, for every kind, in an empty or full store."""
        empty = self._store()
        with empty.read() as reader:
            for kind in RECORD_KINDS:
                assert reader.get(kind, "missing") is None, kind.__name__

        full = self._store(*_full_world())
        with full.read() as reader:
            for kind in RECORD_KINDS:
                assert reader.get(kind, "missing") is None, kind.__name__
                assert reader.find(kind, company_id="co-unknown") == [], kind.__name__

    def test_kinds_are_separate_id_spaces(self) -> None:
        """Records of different kinds may share an id; get() of one kind never returns another."""
        store = self._store(
            sample_company(id="same"), sample_customer(id="same", company_id="same")
        )

        with store.read() as reader:
            company = reader.get(Company, "same")
            customer = reader.get(Customer, "same")
            other = reader.get(Location, "same")
        assert (Company, Customer, None) == (type(company), type(customer), other)

    # -- write errors --------------------------------------------------------------------

    def test_insert_duplicate_raises_and_changes_nothing(self) -> None:
        """Inserting an existing id raises DuplicateRecord (kind, id) and keeps the stored record."""
        records = _full_world()
        store = self._store(*records)

        for record in records:
            kind = type(record)
            with _raises(DuplicateRecord) as caught, store.transaction() as tx:
                tx.insert(_changed(record, "duplicate"))
            assert (kind.__name__, record.id) == (caught.value.kind, caught.value.value)

            with store.read() as reader:
                got = reader.get(kind, record.id)
                found = reader.find(kind, company_id=None)
            assert got == record, _shows(record, got)
            expected = [item for item in records if type(item) is kind]
            assert expected == found, _shows(expected, found)

    def test_failed_write_leaves_the_unit_of_work_usable(self) -> None:
        """A DuplicateRecord or NotFound caught inside a unit of work wrote nothing; the rest commits."""
        existing = sample_customer(id="cus-1", company_id=CO_A)
        store = self._store(sample_company(id=CO_A), existing)
        added = sample_customer(id="cus-2", company_id=CO_A)

        with store.transaction() as tx:
            with _raises(DuplicateRecord):
                tx.insert(_changed(existing, "duplicate"))
            with _raises(NotFound):
                tx.update(_changed(added))
            with _raises(NotFound):
                tx.delete(Customer, "cus-missing")
            tx.insert(added)

        with store.read() as reader:
            found = reader.find(Customer, company_id=CO_A)
        assert [existing, added] == found, _shows([existing, added], found)

    def test_update_missing_raises_not_found(self) -> None:
        """update() of an id never inserted raises NotFound naming the kind and id, for every kind."""
        records = _full_world()
        store = self._store()

        for record in records:
            with _raises(NotFound) as caught, store.transaction() as tx:
                tx.update(record)
            actual = (caught.value.kind, caught.value.record_id)
            assert (type(record).__name__, record.id) == actual, _shows(record.id, actual)
        with store.read() as reader:
            for kind in RECORD_KINDS:
                assert reader.find(kind, company_id=None) == [], kind.__name__

    def test_delete_missing_raises_not_found(self) -> None:
        """delete() of an id never inserted raises NotFound naming the kind and id, for every kind."""
        store = self._store(*_bare_world())

        for kind in RECORD_KINDS:
            with _raises(NotFound) as caught, store.transaction() as tx:
                tx.delete(kind, "missing")
            actual = (caught.value.kind, caught.value.record_id)
            assert (kind.__name__, "missing") == actual, _shows(kind.__name__, actual)

    def test_deleted_record_is_gone_for_good(self) -> None:
        """After delete(), get() returns None and update() and delete() raise NotFound."""
        records = sample_records(company_id=CO_A, location_id=LOC_A1, prefix="a1")
        store = self._store(*records)
        by_kind: dict[type[Any], Any] = {type(record): record for record in records}
        with store.transaction() as tx:
            # The location and its calendar name each other; unlink them first.
            tx.update(attrs.evolve(by_kind[Location], primary_calendar_id=None))
        # Children first, so a store that enforces references accepts every delete.
        for kind in _DELETE_ORDER:
            record = by_kind[kind]
            with store.transaction() as tx:
                tx.delete(kind, record.id)
            with store.read() as reader:
                assert reader.get(kind, record.id) is None, kind.__name__
                assert reader.find(kind, company_id=None) == [], kind.__name__
            with _raises(NotFound), store.transaction() as tx:
                tx.update(record)
            with _raises(NotFound), store.transaction() as tx:
                tx.delete(kind, record.id)

    # -- find ----------------------------------------------------------------------------

    def test_find_returns_creation_order(self) -> None:
        """find() lists records in insert order, not id order, across and within units of work."""
        store = self._store(sample_company(id=CO_A))
        ids = ["cus-m", "cus-c", "cus-x", "cus-a", "cus-k"]
        _insert(store, sample_customer(id=ids[0], company_id=CO_A))
        _insert(store, sample_customer(id=ids[1], company_id=CO_A))
        _insert(store, *(sample_customer(id=record_id, company_id=CO_A) for record_id in ids[2:]))

        with store.read() as reader:
            found = [record.id for record in reader.find(Customer, company_id=CO_A)]
        assert ids == found, _shows(ids, found)

    def test_find_update_keeps_position(self) -> None:
        """An updated record keeps its place in find() and shows its new value."""
        customers = [sample_customer(id=f"cus-{n}", company_id=CO_A) for n in (3, 1, 2)]
        store = self._store(sample_company(id=CO_A), *customers)
        changed = _changed(customers[0])

        with store.transaction() as tx:
            tx.update(changed)

        with store.read() as reader:
            found = reader.find(Customer, company_id=CO_A)
        expected = [changed, *customers[1:]]
        assert expected == found, _shows(expected, found)

    def test_find_delete_removes_and_reinsert_goes_last(self) -> None:
        """A deleted record leaves find(); inserting its id again makes a new, last record."""
        customers = [sample_customer(id=f"cus-{n}", company_id=CO_A) for n in (3, 1, 2)]
        store = self._store(sample_company(id=CO_A), *customers)

        with store.transaction() as tx:
            tx.delete(Customer, "cus-1")
        with store.read() as reader:
            after_delete = [record.id for record in reader.find(Customer, company_id=CO_A)]
        _insert(store, customers[1])
        with store.read() as reader:
            after_insert = [record.id for record in reader.find(Customer, company_id=CO_A)]

        assert ["cus-3", "cus-2"] == after_delete, _shows(["cus-3", "cus-2"], after_delete)
        expected = ["cus-3", "cus-2", "cus-1"]
        assert expected == after_insert, _shows(expected, after_insert)

    def test_find_filters_by_company(self) -> None:
        """find(company_id=X) returns only X's records, in creation order, for every kind."""
        records = _full_world()
        store = self._store(*records)

        with store.read() as reader:
            for kind in RECORD_KINDS:
                for company_id in (CO_A, CO_B):
                    expected = [
                        record
                        for record in records
                        if type(record) is kind and record.company_id == company_id
                    ]
                    found = reader.find(kind, company_id=company_id)
                    assert expected == found, _shows(expected, found)

    def test_find_company_none_returns_every_company(self) -> None:
        """find(company_id=None) returns every company's records in one creation order."""
        store = self._store(sample_company(id=CO_A), sample_company(id=CO_B))
        order = [("cus-1", CO_B), ("cus-2", CO_A), ("cus-0", CO_B), ("cus-3", CO_A)]
        for record_id, company_id in order:
            _insert(store, sample_customer(id=record_id, company_id=company_id))

        with store.read() as reader:
            found = [
                (record.id, record.company_id) for record in reader.find(Customer, company_id=None)
            ]
            companies = [record.id for record in reader.find(Company, company_id=None)]
        assert order == found, _shows(order, found)
        assert [CO_A, CO_B] == companies, _shows([CO_A, CO_B], companies)

    def test_find_company_by_its_own_id(self) -> None:
        """A company's company_id is its id: find(Company, company_id=X) returns company X only."""
        store = self._store(sample_company(id=CO_A), sample_company(id=CO_B))

        with store.read() as reader:
            found = [record.id for record in reader.find(Company, company_id=CO_B)]
        assert [CO_B] == found, _shows([CO_B], found)

    def test_find_filters_by_location(self) -> None:
        """find(location_id=L) returns only L's records, for every kind that has a location_id."""
        records = _full_world()
        store = self._store(*records)
        located = [kind for kind in RECORD_KINDS if "location_id" in attrs.fields_dict(kind)]
        assert len(located) >= 9, located

        with store.read() as reader:
            for kind in located:
                for company_id, location_id in (
                    (CO_A, LOC_A1),
                    (CO_A, LOC_A2),
                    (CO_B, LOC_B1),
                    (None, LOC_A2),
                    (CO_B, LOC_A1),
                ):
                    expected = [
                        record
                        for record in records
                        if type(record) is kind
                        and company_id in (None, record.company_id)
                        and getattr(record, "location_id", None) == location_id
                    ]
                    found = reader.find(kind, company_id=company_id, location_id=location_id)
                    assert expected == found, _shows(expected, found)

    # -- blocks and allocations ------------------------------------------------------------

    def test_windows_touching_edges_are_inclusive(self) -> None:
        """A window meets [first, last] when start_date <= last and end_date >= first."""
        store = self._store(*_bare_world())
        for kind, _method in _WINDOW_KINDS:
            _insert(
                store,
                _window(kind, "w-range", RES_1, date(2026, 3, 10), date(2026, 3, 20)),
                _window(kind, "w-day", RES_2, date(2026, 3, 25), date(2026, 3, 25)),
            )
        cases = [
            (date(2026, 3, 1), date(2026, 3, 9), []),
            (date(2026, 3, 1), date(2026, 3, 10), ["w-range"]),
            (date(2026, 3, 20), date(2026, 3, 24), ["w-range"]),
            (date(2026, 3, 21), date(2026, 3, 24), []),
            (date(2026, 3, 12), date(2026, 3, 12), ["w-range"]),
            (date(2026, 3, 1), date(2026, 3, 31), ["w-range", "w-day"]),
            (date(2026, 3, 25), date(2026, 3, 25), ["w-day"]),
            (date(2026, 3, 26), date(2026, 3, 26), []),
        ]

        with store.read() as reader:
            for kind, method in _WINDOW_KINDS:
                for first, last, expected in cases:
                    found = _touching(reader, method, [RES_1, RES_2], first, last)
                    assert expected == found, f"{kind.__name__} {first}..{last}" + _shows(
                        expected, found
                    )

    def test_windows_touching_open_end_reaches_9999_12_31(self) -> None:
        """A window ending 9999-12-31 (open-ended) meets every range from its start on."""
        store = self._store(*_bare_world())
        for kind, _method in _WINDOW_KINDS:
            _insert(
                store,
                _window(kind, "w-open", RES_1, date(2026, 3, 10), OPEN_END),
                _window(kind, "w-closed", RES_1, date(2026, 3, 10), date(2026, 3, 20)),
            )
        cases = [
            (OPEN_END, OPEN_END, ["w-open"]),
            (date(2999, 1, 1), date(2999, 1, 31), ["w-open"]),
            (date(2026, 3, 10), date(2026, 3, 10), ["w-open", "w-closed"]),
            (date(2026, 3, 15), OPEN_END, ["w-open", "w-closed"]),
            (date(2026, 3, 1), date(2026, 3, 9), []),
        ]

        with store.read() as reader:
            for kind, method in _WINDOW_KINDS:
                for first, last, expected in cases:
                    found = _touching(reader, method, [RES_1], first, last)
                    assert expected == found, f"{kind.__name__} {first}..{last}" + _shows(
                        expected, found
                    )

    def test_windows_touching_excludes_other_targets(self) -> None:
        """Only windows of the named targets are returned; no target names nothing."""
        store = self._store(*_bare_world())
        first, last = date(2026, 3, 10), date(2026, 3, 20)
        for kind, _method in _WINDOW_KINDS:
            _insert(
                store,
                _window(kind, "w-1", RES_1, first, last),
                _window(kind, "w-2", RES_2, first, last),
                _window(kind, "w-svc", SVC_A1, first, last, target="service"),
            )
        cases: list[tuple[list[str], list[str]]] = [
            ([RES_1], ["w-1"]),
            ([RES_2, SVC_A1], ["w-2", "w-svc"]),
            ([RES_3], []),
            (["nobody"], []),
            ([], []),
        ]

        with store.read() as reader:
            for kind, method in _WINDOW_KINDS:
                for target_ids, expected in cases:
                    found = _touching(reader, method, target_ids, first, last)
                    assert expected == found, f"{kind.__name__} {target_ids}" + _shows(
                        expected, found
                    )

    def test_windows_touching_returns_creation_order(self) -> None:
        """Windows of several targets come in one creation order, kept by updates."""
        store = self._store(*_bare_world())
        first, last = date(2026, 3, 10), date(2026, 3, 20)
        order = [("w-z", RES_2), ("w-m", RES_1), ("w-a", RES_2), ("w-k", RES_1)]
        for kind, _method in _WINDOW_KINDS:
            for record_id, target_id in order:
                _insert(store, _window(kind, record_id, target_id, first, last))
            with store.transaction() as tx:
                tx.update(_window(kind, "w-z", RES_2, first, last, reason="updated"))
        expected = [record_id for record_id, _target in order]

        with store.read() as reader:
            for kind, method in _WINDOW_KINDS:
                for target_ids in ([RES_1, RES_2], [RES_2, RES_1]):
                    found = _touching(reader, method, target_ids, first, last)
                    assert expected == found, f"{kind.__name__} {target_ids}" + _shows(
                        expected, found
                    )

    def test_blocks_touching_includes_deleted_blocks(self) -> None:
        """Soft-deleted blocks (deleted=True) are still returned; callers decide."""
        store = self._store(*_bare_world())
        first, last = date(2026, 3, 10), date(2026, 3, 20)
        _insert(
            store,
            _window(Block, "b-deleted", RES_1, first, last, deleted=True),
            _window(Block, "b-live", RES_1, first, last),
        )
        with store.transaction() as tx:
            tx.update(_window(Block, "b-live", RES_1, first, last, deleted=True))

        with store.read() as reader:
            found = reader.blocks_touching(target_ids=[RES_1], first=first, last=last)
        assert [("b-deleted", True), ("b-live", True)] == [
            (block.id, block.deleted) for block in found
        ], _shows("both blocks, deleted", found)

    def test_windows_touching_does_not_expand_repeat_rules(self) -> None:
        """A repeating window is returned when its date range meets, even on dates it skips."""
        store = self._store(*_bare_world())
        mondays = RepeatRule(frequency=Frequency.WEEKLY, weekdays="1")
        for kind, _method in _WINDOW_KINDS:
            _insert(
                store,
                _window(
                    kind, "w-mondays", RES_1, date(2026, 3, 9), date(2026, 3, 31), repeat=mondays
                ),
            )
        tuesday = date(2026, 3, 10)

        with store.read() as reader:
            for kind, method in _WINDOW_KINDS:
                found = _touching(reader, method, [RES_1], tuesday, tuesday)
                assert ["w-mondays"] == found, kind.__name__ + _shows(["w-mondays"], found)

    def test_windows_touching_follows_updates_and_deletes(self) -> None:
        """A window moved to another target or dates is found only there; a deleted one nowhere."""
        store = self._store(*_bare_world())
        march = (date(2026, 3, 10), date(2026, 3, 20))
        april = (date(2026, 4, 1), date(2026, 4, 5))
        for kind, _method in _WINDOW_KINDS:
            _insert(
                store,
                _window(kind, "w-moved", RES_1, *march),
                _window(kind, "w-deleted", RES_1, *march),
            )
            with store.transaction() as tx:
                tx.update(_window(kind, "w-moved", RES_2, *april))
                tx.delete(kind, "w-deleted")

        with store.read() as reader:
            for kind, method in _WINDOW_KINDS:
                cases = [
                    ([RES_1], date(2026, 1, 1), OPEN_END, []),
                    ([RES_2], *march, []),
                    ([RES_2], april[1], date(2026, 4, 30), ["w-moved"]),
                    ([RES_1, RES_2], *april, ["w-moved"]),
                ]
                for target_ids, first, last, expected in cases:
                    found = _touching(reader, method, target_ids, first, last)
                    assert expected == found, f"{kind.__name__} {target_ids}" + _shows(
                        expected, found
                    )

    def test_blocks_and_allocations_are_kept_apart(self) -> None:
        """blocks_touching returns only blocks and allocations_touching only allocations."""
        store = self._store(*_bare_world())
        first, last = date(2026, 3, 10), date(2026, 3, 20)
        block = _window(Block, "w-same", RES_1, first, last)
        allocation = _window(Allocation, "w-same", RES_1, first, last)
        _insert(store, block, allocation)

        with store.read() as reader:
            blocks = reader.blocks_touching(target_ids=[RES_1], first=first, last=last)
            allocations = reader.allocations_touching(target_ids=[RES_1], first=first, last=last)
        assert ([block], [allocation]) == (blocks, allocations), _shows(
            ([block], [allocation]), (blocks, allocations)
        )

    # -- appointments --------------------------------------------------------------------

    def test_appointments_overlapping_is_half_open(self) -> None:
        """An appointment [10:00, 11:00) overlaps ranges that share at least one instant with it."""
        store = self._store(*_bare_world(), _appointment("apt", _at(10), _at(11)))
        ranges = [
            (_at(10), _at(11)),
            (_at(10, 59), _at(12)),
            (_at(9), _at(10, 1)),
            (_at(9), _at(12)),
            (_at(10, 15), _at(10, 30)),
        ]

        with store.read() as reader:
            for resource_ids in (None, [RES_1]):
                for start, end in ranges:
                    found = _overlapping(reader, start, end, resource_ids=resource_ids)
                    assert ["apt"] == found, f"{start}..{end} {resource_ids}" + _shows(
                        ["apt"], found
                    )

    def test_appointments_touching_are_not_overlapping(self) -> None:
        """An appointment ending at the range start or starting at the range end is excluded."""
        store = self._store(*_bare_world(), _appointment("apt", _at(10), _at(11)))

        with store.read() as reader:
            for resource_ids in (None, [RES_1]):
                for start, end in ((_at(11), _at(12)), (_at(9), _at(10))):
                    found = _overlapping(reader, start, end, resource_ids=resource_ids)
                    assert [] == found, f"{start}..{end} {resource_ids}" + _shows([], found)

    def test_multi_resource_appointment_is_returned_once(self) -> None:
        """An appointment taking two of the named resources is returned once."""
        store = self._store(
            *_bare_world(), _appointment("apt", _at(10), _at(11), resource_ids=[RES_1, RES_2])
        )

        with store.read() as reader:
            for resource_ids in ([RES_1, RES_2], [RES_2], [RES_2, RES_1, RES_3], None):
                found = _overlapping(reader, _at(9), _at(12), resource_ids=resource_ids)
                assert ["apt"] == found, f"{resource_ids}" + _shows(["apt"], found)

    def test_appointments_overlapping_filters_by_resource(self) -> None:
        """With resource_ids, only appointments taking one of them; with none named, nothing."""
        store = self._store(
            *_bare_world(),
            _appointment("apt-1", _at(10), _at(11), resource_ids=[RES_1]),
            _appointment("apt-2", _at(10), _at(11), resource_ids=[RES_2]),
            _appointment("apt-3", _at(10), _at(11), resource_ids=[RES_3]),
            _appointment("apt-none", _at(10), _at(11), resource_ids=[]),
        )
        cases: list[tuple[list[str], list[str]]] = [
            ([RES_1], ["apt-1"]),
            ([RES_3, RES_1], ["apt-1", "apt-3"]),
            (["res-unknown"], []),
            ([], []),
        ]

        with store.read() as reader:
            for resource_ids, expected in cases:
                found = _overlapping(reader, _at(9), _at(12), resource_ids=resource_ids)
                assert expected == found, f"{resource_ids}" + _shows(expected, found)

    def test_appointments_overlapping_none_returns_all_at_location(self) -> None:
        """resource_ids=None returns every overlapping appointment at the location."""
        store = self._store(
            *_bare_world(),
            _appointment("apt-1", _at(10), _at(11), resource_ids=[RES_1]),
            _appointment("apt-2", _at(10), _at(11), resource_ids=[RES_2, RES_3]),
            _appointment("apt-none", _at(10), _at(11), resource_ids=[]),
        )

        with store.read() as reader:
            found = _overlapping(reader, _at(9), _at(12))
        expected = ["apt-1", "apt-2", "apt-none"]
        assert expected == found, _shows(expected, found)

    def test_appointments_overlapping_excludes_other_locations(self) -> None:
        """Appointments at other locations are never returned, even taking a named resource."""
        store = self._store(
            *_bare_world(),
            _appointment("apt-a1", _at(10), _at(11), resource_ids=[RES_1]),
            _appointment("apt-a2", _at(10), _at(11), resource_ids=[RES_4], location_id=LOC_A2),
            _appointment("apt-a2-r1", _at(10), _at(11), resource_ids=[RES_1], location_id=LOC_A2),
            _appointment("apt-b1", _at(10), _at(11), resource_ids=[RES_B], location_id=LOC_B1),
        )
        cases: list[tuple[str, list[str] | None, list[str]]] = [
            (LOC_A1, None, ["apt-a1"]),
            (LOC_A1, [RES_1, RES_4, RES_B], ["apt-a1"]),
            (LOC_A2, None, ["apt-a2", "apt-a2-r1"]),
            (LOC_A2, [RES_1], ["apt-a2-r1"]),
            (LOC_B1, None, ["apt-b1"]),
            ("loc-unknown", None, []),
        ]

        with store.read() as reader:
            for location_id, resource_ids, expected in cases:
                found = _overlapping(
                    reader, _at(9), _at(12), resource_ids=resource_ids, location_id=location_id
                )
                assert expected == found, f"{location_id} {resource_ids}" + _shows(expected, found)

    def test_appointments_overlapping_orders_by_start_then_id(self) -> None:
        """Results come by start, then id, whatever the insert order or resources."""
        store = self._store(
            *_bare_world(),
            _appointment("apt-b", _at(10), _at(11), resource_ids=[RES_1]),
            _appointment("apt-0", _at(10, 30), _at(10, 45), resource_ids=[RES_2]),
            _appointment("apt-a", _at(10), _at(10, 30), resource_ids=[RES_2]),
            _appointment("apt-c", _at(9), _at(12), resource_ids=[RES_3]),
        )
        expected = ["apt-c", "apt-a", "apt-b", "apt-0"]

        with store.read() as reader:
            for resource_ids in (None, [RES_1, RES_2, RES_3], [RES_3, RES_2, RES_1]):
                found = _overlapping(reader, _at(8), _at(13), resource_ids=resource_ids)
                assert expected == found, f"{resource_ids}" + _shows(expected, found)

    def test_appointments_overlapping_includes_every_status(self) -> None:
        """Appointments are returned in any status, cancelled and rescheduled included."""
        appointments = [
            _appointment(f"apt-{status.value}", _at(10), _at(11), status=status)
            for status in AppointmentStatus
        ]
        store = self._store(*_bare_world(), *appointments)
        expected = sorted(appointment.id for appointment in appointments)

        with store.read() as reader:
            for resource_ids in (None, [RES_1]):
                found = _overlapping(reader, _at(9), _at(12), resource_ids=resource_ids)
                assert expected == found, f"{resource_ids}" + _shows(expected, found)

    def test_moved_appointment_is_found_at_its_new_time_only(self) -> None:
        """An update moving an appointment in time, resource or location moves it in every query."""
        original = _appointment("apt", _at(10), _at(11), resource_ids=[RES_1])
        store = self._store(*_bare_world(), original)
        moved = attrs.evolve(original, start=_at(14), end=_at(15), resource_ids=(RES_2,))
        cases: list[tuple[datetime, list[str] | None, list[str]]] = [
            (_at(10), None, []),
            (_at(10), [RES_1], []),
            (_at(10), [RES_2], []),
            (_at(14), [RES_1], []),
            (_at(14), [RES_2], ["apt"]),
            (_at(14), None, ["apt"]),
        ]

        with store.transaction() as tx:
            tx.update(moved)
        with store.read() as reader:
            for start, resource_ids, expected in cases:
                found = _overlapping(
                    reader, start, start + timedelta(hours=1), resource_ids=resource_ids
                )
                assert expected == found, f"{start} {resource_ids}" + _shows(expected, found)

        with store.transaction() as tx:
            tx.update(
                _appointment("apt", _at(14), _at(15), resource_ids=[RES_4], location_id=LOC_A2)
            )
        with store.read() as reader:
            at_a1 = _overlapping(reader, _at(9), _at(18))
            at_a2 = _overlapping(reader, _at(9), _at(18), location_id=LOC_A2)
        assert ([], ["apt"]) == (at_a1, at_a2), _shows(([], ["apt"]), (at_a1, at_a2))

    def test_deleted_appointment_is_not_returned(self) -> None:
        """A deleted appointment leaves every overlap query."""
        store = self._store(
            *_bare_world(),
            _appointment("apt-gone", _at(10), _at(11), resource_ids=[RES_1, RES_2]),
            _appointment("apt-kept", _at(10), _at(11), resource_ids=[RES_1]),
        )

        with store.transaction() as tx:
            tx.delete(Appointment, "apt-gone")

        with store.read() as reader:
            for resource_ids in (None, [RES_1], [RES_2]):
                found = _overlapping(reader, _at(9), _at(12), resource_ids=resource_ids)
                expected = [] if resource_ids == [RES_2] else ["apt-kept"]
                assert expected == found, f"{resource_ids}" + _shows(expected, found)

    def test_long_appointment_is_found_from_inside(self) -> None:
        """An appointment spanning days overlaps a short range far from its start."""
        long = _appointment("apt-long", _at(0, day=date(2026, 3, 8)), _at(0, day=date(2026, 3, 12)))
        store = self._store(*_bare_world(), long, _appointment("apt-short", _at(10), _at(10, 15)))

        with store.read() as reader:
            for resource_ids in (None, [RES_1]):
                found = _overlapping(reader, _at(10, 30), _at(11), resource_ids=resource_ids)
                assert ["apt-long"] == found, f"{resource_ids}" + _shows(["apt-long"], found)
        with store.transaction() as tx:
            tx.delete(Appointment, "apt-long")
        with store.read() as reader:
            found = _overlapping(reader, _at(10, 10), _at(11), resource_ids=[RES_1])
        assert ["apt-short"] == found, _shows(["apt-short"], found)

    def test_appointments_overlapping_compares_instants_across_zones(self) -> None:
        """Range bounds in another UTC offset select by instant, not by wall time."""
        store = self._store(*_bare_world(), _appointment("apt", _at(10), _at(11)))
        plus_one = timezone(timedelta(hours=1))

        with store.read() as reader:
            inside = _overlapping(
                reader,
                datetime(2026, 3, 10, 11, 30, tzinfo=plus_one),
                datetime(2026, 3, 10, 12, 30, tzinfo=plus_one),
            )
            touching = _overlapping(
                reader,
                datetime(2026, 3, 10, 12, 0, tzinfo=plus_one),
                datetime(2026, 3, 10, 13, 0, tzinfo=plus_one),
            )
        assert (["apt"], []) == (inside, touching), _shows((["apt"], []), (inside, touching))

    # -- idempotency keys, customers' appointments and holds ---------------------------------

    def test_appointment_by_idempotency_key(self) -> None:
        """The key finds its company's appointment exactly (case counts); updates and deletes follow."""
        store = self._store(
            *_bare_world(),
            _appointment("apt-1", _at(9), _at(10), idempotency_key="K-1"),
            _appointment("apt-2", _at(9), _at(10), idempotency_key=None),
            _appointment(
                "apt-b",
                _at(9),
                _at(10),
                resource_ids=(RES_B,),
                location_id=LOC_B1,
                idempotency_key="K-1",
            ),
        )

        def look(company_id: str, key: str) -> str | None:
            with store.read() as reader:
                found = reader.appointment_by_idempotency_key(company_id, key)
            return None if found is None else found.id

        before = (look(CO_A, "K-1"), look(CO_B, "K-1"), look(CO_A, "k-1"), look(CO_A, "K-2"))
        with store.transaction() as tx:
            tx.update(_appointment("apt-1", _at(9), _at(10), idempotency_key="K-2"))
        moved = (look(CO_A, "K-1"), look(CO_A, "K-2"))
        with store.transaction() as tx:
            tx.delete(Appointment, "apt-1")
        gone = look(CO_A, "K-2")

        expected = (("apt-1", "apt-b", None, None), (None, "apt-1"), None)
        assert expected == (before, moved, gone), _shows(expected, (before, moved, gone))

    def test_customer_by_email_ignores_case_per_company(self) -> None:
        """The folded address finds the company's first such customer; updates and deletes follow."""
        store = self._store(
            sample_company(id=CO_A),
            sample_company(id=CO_B),
            sample_customer(id="cus-2", company_id=CO_A, email="Ann.Lee@Example.com"),
            sample_customer(id="cus-1", company_id=CO_A, email="ann.lee@example.com"),
            sample_customer(id="cus-b", company_id=CO_B, email="ann.lee@example.com"),
            sample_customer(id="cus-none", company_id=CO_A, email=None),
        )

        def look(company_id: str, email: str) -> str | None:
            with store.read() as reader:
                found = reader.customer_by_email(company_id, email)
            return None if found is None else found.id

        before = (
            look(CO_A, " ANN.LEE@example.COM "),
            look(CO_B, "ann.lee@example.com"),
            look(CO_A, "bo@example.com"),
        )
        with store.transaction() as tx:
            tx.update(sample_customer(id="cus-2", company_id=CO_A, email="bo@example.com"))
        moved = (look(CO_A, "ann.lee@example.com"), look(CO_A, "BO@example.com"))
        with store.transaction() as tx:
            tx.delete(Customer, "cus-1")
        gone = look(CO_A, "ann.lee@example.com")

        expected: object = (("cus-2", "cus-b", None), ("cus-1", "cus-2"), None)
        assert expected == (before, moved, gone), _shows(expected, (before, moved, gone))

    def test_appointments_of_customer_in_creation_order(self) -> None:
        """A customer's appointments, any status, in creation order; re-assignment and deletes follow."""
        store = self._store(
            *_bare_world(),
            sample_customer(id="cus-1", company_id=CO_A),
            sample_customer(id="cus-2", company_id=CO_A),
            _appointment("apt-z", _at(15), _at(16), customer_id="cus-1"),
            _appointment("apt-a", _at(9), _at(10), customer_id="cus-1", status="CN"),
            _appointment("apt-m", _at(11), _at(12), customer_id="cus-2"),
            _appointment("apt-n", _at(12), _at(13), customer_id=None),
        )

        def of(customer_id: str) -> list[str]:
            with store.read() as reader:
                return [record.id for record in reader.appointments_of_customer(customer_id)]

        before = (of("cus-1"), of("cus-2"), of("cus-none"))
        with store.transaction() as tx:
            tx.update(_appointment("apt-m", _at(11), _at(12), customer_id="cus-1"))
            tx.delete(Appointment, "apt-z")
        after = (of("cus-1"), of("cus-2"))

        expected: object = ((["apt-z", "apt-a"], ["apt-m"], []), (["apt-a", "apt-m"], []))
        assert expected == (before, after), _shows(expected, (before, after))

    def test_expired_holds_boundary_order_company_and_limit(self) -> None:
        """IN holds expiring at or before now, by expiry then id, per company or all, up to limit."""
        hold = AppointmentStatus.INITIAL

        def held(record_id: str, expires: datetime, **changes: Any) -> Appointment:
            fields: dict[str, Any] = {"status": hold, "hold_expires_at": expires, **changes}
            return _appointment(record_id, _at(15), _at(16), **fields)

        store = self._store(
            *_bare_world(),
            held("h-late", _at(10, 1)),
            held("h-b", _at(10)),
            held("h-a", _at(10)),
            held("h-early", _at(9)),
            _appointment("bk", _at(15), _at(16), hold_expires_at=_at(8)),
            held("h-other", _at(9, 30), resource_ids=(RES_B,), location_id=LOC_B1),
        )

        def expired(company_id: str | None, now: datetime, limit: int = 100) -> list[str]:
            with store.read() as reader:
                found = reader.expired_holds(company_id=company_id, now=now, limit=limit)
            return [record.id for record in found]

        seen = (
            expired(CO_A, _at(10)),
            expired(CO_A, _at(9, 59)),
            expired(None, _at(10)),
            expired(None, _at(10), limit=2),
            expired(CO_B, _at(12)),
        )
        with store.transaction() as tx:
            tx.update(held("h-a", _at(10), status=AppointmentStatus.BOOKED))
            tx.delete(Appointment, "h-early")
        after = expired(CO_A, _at(12))

        expected = (
            (["h-early", "h-a", "h-b"]),
            (["h-early"]),
            (["h-early", "h-other", "h-a", "h-b"]),
            (["h-early", "h-other"]),
            (["h-other"]),
        )
        assert expected == seen, _shows(expected, seen)
        assert ["h-b", "h-late"] == after, _shows(["h-b", "h-late"], after)
        with _raises(OutOfRange), store.read() as reader:
            reader.expired_holds(company_id=None, now=_at(10), limit=0)

    # -- outbox, reminders, audit ----------------------------------------------------------

    def test_next_sequence_strictly_increases_and_is_never_reused(self) -> None:
        """next_sequence() gives numbers >= 1 that only go up, rolled-back units of work included."""
        store = self._store(sample_company(id=CO_A))
        numbers: list[int] = []

        with store.transaction() as tx:
            numbers += [tx.next_sequence(), tx.next_sequence()]
        with _raises(_Boom), store.transaction() as tx:
            numbers.append(tx.next_sequence())
            raise _Boom
        with store.transaction() as tx:
            numbers.append(tx.next_sequence())

        assert numbers[0] >= 1, _shows(">= 1", numbers[0])
        assert numbers == sorted(set(numbers)), f"not strictly increasing: {numbers}"

    def test_next_sequence_is_unique_across_threads(self) -> None:
        """Threads drawing sequence numbers at once never get the same number twice."""
        store = self._store(sample_company(id=CO_A))
        threads, rounds = self.thread_count, self.increments_per_thread
        barrier = threading.Barrier(threads, timeout=self.thread_timeout)
        drawn: list[list[int]] = [[] for _ in range(threads)]

        def draw(mine: list[int]) -> Callable[[], None]:
            def run() -> None:
                barrier.wait()
                for _ in range(rounds):
                    with store.transaction(locks=("outbox",)) as tx:
                        mine.append(tx.next_sequence())

            return run

        _run_threads([draw(mine) for mine in drawn], timeout=self.thread_timeout)

        everything = [number for mine in drawn for number in mine]
        assert len(everything) == len(set(everything)), "a sequence number was handed out twice"
        for mine in drawn:
            assert mine == sorted(mine), f"one thread's numbers went down: {mine}"

    def test_undelivered_events_by_sequence(self) -> None:
        """Undelivered events come by sequence (not insert order), per company or all, up to limit."""

        def event(record_id: str, sequence: int, company_id: str = CO_A, **changes: Any) -> Any:
            return sample_outbox_event(
                id=record_id,
                company_id=company_id,
                entity_id="apt",
                sequence=sequence,
                **{"delivered_at": None, **changes},
            )

        delivered = _at(12)
        store = self._store(
            sample_company(id=CO_A),
            sample_company(id=CO_B),
            event("ev-3", 3),
            event("ev-1", 1),
            event("ev-2", 2, company_id=CO_B),
            event("ev-4", 4, delivered_at=delivered),
            event("ev-5", 5),
        )

        def undelivered(company_id: str | None, limit: int = 100) -> list[str]:
            with store.read() as reader:
                found = reader.undelivered_events(company_id=company_id, limit=limit)
            return [record.id for record in found]

        seen = (undelivered(CO_A), undelivered(None), undelivered(None, limit=2), undelivered(CO_B))
        with store.transaction() as tx:
            tx.update(event("ev-1", 1, delivered_at=delivered))
            tx.update(event("ev-4", 4))
            tx.delete(OutboxEvent, "ev-5")
        after = undelivered(CO_A)

        expected = (
            ["ev-1", "ev-3", "ev-5"],
            ["ev-1", "ev-2", "ev-3", "ev-5"],
            ["ev-1", "ev-2"],
            ["ev-2"],
        )
        assert expected == seen, _shows(expected, seen)
        assert ["ev-3", "ev-4"] == after, _shows(["ev-3", "ev-4"], after)
        with _raises(OutOfRange), store.read() as reader:
            reader.undelivered_events(company_id=None, limit=0)

    def test_reminders_due_boundary_order_company_and_limit(self) -> None:
        """Unsent reminders due at or before the instant, by due time then id, up to limit."""

        def reminder(
            record_id: str, due: datetime, location_id: str = LOC_A1, **changes: Any
        ) -> QueuedReminder:
            return sample_queued_reminder(
                id=record_id,
                company_id=_COMPANY_OF[location_id],
                location_id=location_id,
                appointment_id="apt",
                due_at=due,
                **{"sent_at": None, **changes},
            )

        store = self._store(
            *_bare_world(),
            _appointment("apt", _at(15), _at(16)),
            reminder("r-late", _at(10, 1)),
            reminder("r-b", _at(10)),
            reminder("r-a", _at(10)),
            reminder("r-sent", _at(8), sent_at=_at(8)),
            reminder("r-early", _at(9)),
            reminder("r-other", _at(9, 30), location_id=LOC_B1),
        )

        def due(company_id: str | None, before: datetime, limit: int = 100) -> list[str]:
            with store.read() as reader:
                found = reader.reminders_due(company_id=company_id, before=before, limit=limit)
            return [record.id for record in found]

        seen = (
            due(CO_A, _at(10)),
            due(CO_A, _at(9, 59)),
            due(None, _at(10)),
            due(None, _at(23), limit=2),
            due(CO_B, _at(23)),
        )
        with store.transaction() as tx:
            tx.update(reminder("r-a", _at(10), sent_at=_at(10)))
            tx.update(reminder("r-late", _at(8)))
            tx.delete(QueuedReminder, "r-early")
        after = due(CO_A, _at(10))

        expected = (
            ["r-early", "r-a", "r-b"],
            ["r-early"],
            ["r-early", "r-other", "r-a", "r-b"],
            ["r-early", "r-other"],
            ["r-other"],
        )
        assert expected == seen, _shows(expected, seen)
        assert ["r-late", "r-b"] == after, _shows(["r-late", "r-b"], after)
        with _raises(OutOfRange), store.read() as reader:
            reader.reminders_due(company_id=None, before=_at(10), limit=0)

    def test_undelivered_events_by_location(self) -> None:
        """location_ids keeps those locations' events (never company-wide ones) before the limit."""

        def event(record_id: str, sequence: int, location_id: str | None, **changes: Any) -> Any:
            company_id = CO_A if location_id is None else _COMPANY_OF[location_id]
            return sample_outbox_event(
                id=record_id,
                company_id=company_id,
                location_id=location_id,
                entity_id="apt",
                sequence=sequence,
                **{"delivered_at": None, **changes},
            )

        store = self._store(
            *_bare_world(),
            event("ev-a2-1", 1, LOC_A2),
            event("ev-co-2", 2, None),
            event("ev-a1-3", 3, LOC_A1),
            event("ev-b1-4", 4, LOC_B1),
            event("ev-a2-5", 5, LOC_A2),
            event("ev-a1-6", 6, LOC_A1, delivered_at=_at(12)),
            event("ev-a1-7", 7, LOC_A1),
        )

        def undelivered(
            company_id: str | None, location_ids: Collection[str] | None, limit: int = 100
        ) -> list[str]:
            with store.read() as reader:
                found = reader.undelivered_events(
                    company_id=company_id, location_ids=location_ids, limit=limit
                )
            return [record.id for record in found]

        seen = (
            undelivered(CO_A, [LOC_A1]),
            undelivered(CO_A, [LOC_A1], limit=1),
            undelivered(CO_A, [LOC_A1, LOC_A2]),
            undelivered(CO_A, [LOC_A2, LOC_A1], limit=3),
            undelivered(CO_A, None),
            undelivered(CO_A, []),
            undelivered(CO_A, [LOC_B1]),
            undelivered(None, [LOC_B1, LOC_A2]),
        )
        with store.transaction() as tx:
            tx.update(event("ev-a1-3", 3, LOC_A1, delivered_at=_at(12)))
            tx.update(event("ev-a1-6", 6, LOC_A1))
            tx.update(event("ev-a2-5", 5, LOC_A1))
            tx.delete(OutboxEvent, "ev-a1-7")
        after = (undelivered(CO_A, [LOC_A1]), undelivered(CO_A, [LOC_A2]))

        expected: tuple[list[str], ...] = (
            ["ev-a1-3", "ev-a1-7"],
            ["ev-a1-3"],
            ["ev-a2-1", "ev-a1-3", "ev-a2-5", "ev-a1-7"],
            ["ev-a2-1", "ev-a1-3", "ev-a2-5"],
            ["ev-a2-1", "ev-co-2", "ev-a1-3", "ev-a2-5", "ev-a1-7"],
            [],
            [],
            ["ev-a2-1", "ev-b1-4", "ev-a2-5"],
        )
        assert expected == seen, _shows(expected, seen)
        expected_after = (["ev-a2-5", "ev-a1-6"], ["ev-a2-1"])
        assert expected_after == after, _shows(expected_after, after)

    def test_reminders_due_by_location(self) -> None:
        """location_ids keeps those locations' due reminders, by due time then id, before the limit."""

        def reminder(record_id: str, due: datetime, location_id: str, **changes: Any) -> Any:
            return sample_queued_reminder(
                id=record_id,
                company_id=_COMPANY_OF[location_id],
                location_id=location_id,
                appointment_id="apt",
                due_at=due,
                **{"sent_at": None, **changes},
            )

        store = self._store(
            *_bare_world(),
            _appointment("apt", _at(15), _at(16)),
            reminder("r-a2-early", _at(8), LOC_A2),
            reminder("r-a1-sent", _at(8, 30), LOC_A1, sent_at=_at(8)),
            reminder("r-a1", _at(9), LOC_A1),
            reminder("r-b1", _at(9), LOC_B1),
            reminder("r-a2", _at(9, 30), LOC_A2),
            reminder("r-a1-late", _at(11), LOC_A1),
        )

        def due(
            company_id: str | None, location_ids: Collection[str] | None, limit: int = 100
        ) -> list[str]:
            with store.read() as reader:
                found = reader.reminders_due(
                    company_id=company_id, location_ids=location_ids, before=_at(10), limit=limit
                )
            return [record.id for record in found]

        seen = (
            due(CO_A, [LOC_A1]),
            due(CO_A, [LOC_A1], limit=1),
            due(CO_A, [LOC_A1, LOC_A2]),
            due(CO_A, [LOC_A1, LOC_A2], limit=2),
            due(CO_A, []),
            due(CO_A, [LOC_B1]),
            due(None, [LOC_B1, LOC_A1]),
        )

        expected: tuple[list[str], ...] = (
            ["r-a1"],
            ["r-a1"],
            ["r-a2-early", "r-a1", "r-a2"],
            ["r-a2-early", "r-a1"],
            [],
            [],
            ["r-a1", "r-b1"],
        )
        assert expected == seen, _shows(expected, seen)

    def test_expired_holds_by_location(self) -> None:
        """location_ids keeps those locations' expired holds, by expiry then id, before the limit."""

        def held(record_id: str, expires: datetime, location_id: str) -> Appointment:
            resource = {LOC_A1: RES_1, LOC_A2: RES_4, LOC_B1: RES_B}[location_id]
            return _appointment(
                record_id,
                _at(15),
                _at(16),
                status=AppointmentStatus.INITIAL,
                hold_expires_at=expires,
                location_id=location_id,
                resource_ids=(resource,),
            )

        store = self._store(
            *_bare_world(),
            held("h-a2-early", _at(8), LOC_A2),
            held("h-a1", _at(9), LOC_A1),
            held("h-b1", _at(9), LOC_B1),
            held("h-a2", _at(9, 30), LOC_A2),
            held("h-a1-late", _at(11), LOC_A1),
        )

        def expired(
            company_id: str | None, location_ids: Collection[str] | None, limit: int = 100
        ) -> list[str]:
            with store.read() as reader:
                found = reader.expired_holds(
                    company_id=company_id, location_ids=location_ids, now=_at(10), limit=limit
                )
            return [record.id for record in found]

        seen = (
            expired(CO_A, [LOC_A1]),
            expired(CO_A, [LOC_A2], limit=1),
            expired(CO_A, [LOC_A1, LOC_A2]),
            expired(CO_A, []),
            expired(None, [LOC_B1, LOC_A1]),
        )

        expected: tuple[list[str], ...] = (
            ["h-a1"],
            ["h-a2-early"],
            ["h-a2-early", "h-a1", "h-a2"],
            [],
            ["h-a1", "h-b1"],
        )
        assert expected == seen, _shows(expected, seen)

    def test_reminders_and_audit_of_an_appointment_in_creation_order(self) -> None:
        """reminders_of() and audit_of() list one appointment's records in creation order."""
        where: dict[str, Any] = {"company_id": CO_A, "location_id": LOC_A1}
        store = self._store(
            *_bare_world(),
            _appointment("apt-1", _at(15), _at(16)),
            _appointment("apt-2", _at(15), _at(16)),
            sample_queued_reminder(id="rem-z", appointment_id="apt-1", **where),
            sample_queued_reminder(id="rem-a", appointment_id="apt-1", **where),
            sample_queued_reminder(id="rem-x", appointment_id="apt-2", **where),
            sample_audit_entry(id="aud-z", appointment_id="apt-1", **where),
            sample_audit_entry(id="aud-x", appointment_id="apt-2", **where),
            sample_audit_entry(id="aud-a", appointment_id="apt-1", **where),
        )
        _insert(store, sample_queued_reminder(id="rem-m", appointment_id="apt-1", **where))

        def listed() -> tuple[list[str], list[str], list[str]]:
            with store.read() as reader:
                return (
                    [record.id for record in reader.reminders_of("apt-1")],
                    [record.id for record in reader.audit_of("apt-1")],
                    [record.id for record in reader.audit_of("apt-missing")],
                )

        before = listed()
        with store.transaction() as tx:
            tx.delete(QueuedReminder, "rem-a")
            tx.update(
                sample_queued_reminder(id="rem-z", appointment_id="apt-1", ordinal=1, **where)
            )
        # Audit entries outlive their appointment (a deleted hold keeps its history).
        with store.transaction() as tx:
            for reminder in ("rem-z", "rem-m"):
                tx.delete(QueuedReminder, reminder)
            tx.delete(Appointment, "apt-1")
        after = listed()

        expected_before: object = (["rem-z", "rem-a", "rem-m"], ["aud-z", "aud-a"], [])
        assert expected_before == before, _shows(expected_before, before)
        assert ([], ["aud-z", "aud-a"], []) == after, _shows(([], ["aud-z", "aud-a"], []), after)

    # -- units of work -------------------------------------------------------------------

    def test_normal_exit_commits_every_write(self) -> None:
        """Every insert, update and delete of a unit of work that ends normally is kept."""
        customers = [sample_customer(id=f"cus-{n}", company_id=CO_A) for n in range(3)]
        store = self._store(sample_company(id=CO_A), *customers)
        added = sample_customer(id="cus-new", company_id=CO_A)

        with store.transaction() as tx:
            tx.insert(added)
            tx.update(_changed(customers[0]))
            tx.delete(Customer, "cus-1")

        with store.read() as reader:
            found = reader.find(Customer, company_id=CO_A)
        expected = [_changed(customers[0]), customers[2], added]
        assert expected == found, _shows(expected, found)

    def test_exception_in_unit_of_work_leaves_no_trace(self) -> None:
        """Inserts, updates and deletes of every kind vanish when the unit of work raises."""
        seeded = _full_world()
        store = self._store(*seeded)
        added = [
            *sample_records(company_id="co-c", location_id="loc-c1", prefix="c1"),
            *sample_records(company_id=CO_A, location_id="loc-a3", prefix="a3", with_company=False),
        ]
        universe = _Universe(seeded + added)
        before = universe.snapshot(store)
        boom = _Boom("abort")
        leaves = (
            OutboxEvent,
            AuditEntry,
            QueuedReminder,
            Appointment,
            FieldDefinition,
            Subscription,
            Allocation,
            Block,
        )

        with _raises(_Boom) as caught, store.transaction() as tx:
            for record in added:
                tx.insert(record)
            for record in seeded:
                tx.update(_changed(record))
            tx.update(
                attrs.evolve(
                    _changed(_find_id(seeded, Appointment, "a1-appointment")),
                    start=_at(8),
                    end=_at(9),
                    resource_ids=("b1-resource",),
                )
            )
            tx.update(
                attrs.evolve(
                    _find_id(seeded, Block, "a2-block"),
                    target_id="a1-resource",
                    start_date=date(2030, 1, 1),
                    end_date=date(2030, 1, 2),
                )
            )
            for record in seeded:
                if isinstance(record, leaves) and not record.id.startswith("a2-"):
                    tx.delete(type(record), record.id)
            # Delete a record in the middle of creation order, then insert its id again.
            for kind in (OutboxEvent, AuditEntry, QueuedReminder):
                name = {OutboxEvent: "event", AuditEntry: "audit", QueuedReminder: "reminder"}
                tx.delete(kind, f"a2-{name[kind]}")
            tx.delete(Appointment, "a2-appointment")
            tx.delete(Subscription, "a2-subscription")
            tx.delete(Customer, "a2-customer")
            tx.insert(_changed(_find_id(seeded, Customer, "a2-customer"), "re-inserted"))
            assert universe.snapshot(store, reader=tx) != before, "the writes were not seen"
            raise boom

        assert caught.value is boom, _shows(boom, caught.value)
        universe.assert_same(before, universe.snapshot(store))

    def test_rollback_restores_deleted_record_position(self) -> None:
        """A delete undone by an exception puts the record back in its place in find()."""
        customers = [sample_customer(id=f"cus-{n}", company_id=CO_A) for n in (5, 3, 9, 1)]
        store = self._store(sample_company(id=CO_A), *customers)

        with _raises(_Boom), store.transaction() as tx:
            tx.delete(Customer, "cus-3")
            tx.delete(Customer, "cus-9")
            tx.insert(customers[1])
            raise _Boom

        with store.read() as reader:
            found = reader.find(Customer, company_id=CO_A)
        assert customers == found, _shows(customers, found)

    def test_failed_write_propagating_rolls_back_earlier_writes(self) -> None:
        """A DuplicateRecord left to propagate undoes the unit of work's earlier writes."""
        existing = sample_customer(id="cus-1", company_id=CO_A)
        store = self._store(sample_company(id=CO_A), existing)

        with _raises(DuplicateRecord), store.transaction() as tx:
            tx.insert(sample_customer(id="cus-2", company_id=CO_A))
            tx.update(_changed(existing))
            tx.insert(existing)

        with store.read() as reader:
            found = reader.find(Customer, company_id=CO_A)
        assert [existing] == found, _shows([existing], found)

    def test_base_exception_rolls_back(self) -> None:
        """An exception that is not an Exception (like KeyboardInterrupt) also undoes the writes."""
        existing = sample_customer(id="cus-1", company_id=CO_A)
        store = self._store(sample_company(id=CO_A), existing)

        with _raises(_Interrupt), store.transaction() as tx:
            tx.insert(sample_customer(id="cus-2", company_id=CO_A))
            tx.delete(Customer, "cus-1")
            raise _Interrupt

        with store.read() as reader:
            found = reader.find(Customer, company_id=CO_A)
        assert [existing] == found, _shows([existing], found)

    def test_reads_inside_unit_of_work_see_its_own_writes(self) -> None:
        """get(), find() and the range reads of a unit of work see its inserts, updates and deletes."""
        first, last = date(2026, 3, 10), date(2026, 3, 20)
        store = self._store(
            *_bare_world(),
            sample_customer(id="cus-1", company_id=CO_A),
            sample_customer(id="cus-2", company_id=CO_A),
            _window(Block, "blk-old", RES_1, first, last),
            _appointment("apt-old", _at(10), _at(11)),
        )

        with store.transaction() as tx:
            tx.insert(sample_customer(id="cus-3", company_id=CO_A))
            tx.update(sample_customer(id="cus-1", company_id=CO_A, notes="seen"))
            tx.delete(Customer, "cus-2")
            tx.insert(_window(Block, "blk-new", RES_1, first, last))
            tx.update(_window(Block, "blk-old", RES_2, first, last))
            tx.insert(_appointment("apt-new", _at(10, 30), _at(11)))
            tx.update(_appointment("apt-old", _at(14), _at(15)))

            customer = tx.get(Customer, "cus-1")
            seen = (
                customer.notes if customer is not None else None,
                tx.get(Customer, "cus-2"),
                [record.id for record in tx.find(Customer, company_id=CO_A)],
                _touching(tx, "blocks_touching", [RES_1], first, last),
                _touching(tx, "blocks_touching", [RES_2], first, last),
                _overlapping(tx, _at(10), _at(11)),
                _overlapping(tx, _at(14), _at(15), resource_ids=[RES_1]),
            )

        expected = (
            "seen",
            None,
            ["cus-1", "cus-3"],
            ["blk-new"],
            ["blk-old"],
            ["apt-new"],
            ["apt-old"],
        )
        assert expected == seen, _shows(expected, seen)

    def test_nested_unit_of_work_raises_store_error(self) -> None:
        """A unit of work opened inside another on one thread raises StoreError; the outer goes on."""
        store = self._store(sample_company(id=CO_A))

        with store.transaction() as tx:
            tx.insert(sample_customer(id="cus-1", company_id=CO_A))
            with _raises(StoreError), store.transaction() as inner:
                inner.insert(sample_customer(id="cus-inner", company_id=CO_A))
            tx.insert(sample_customer(id="cus-2", company_id=CO_A))
        with store.transaction() as tx:
            tx.insert(sample_customer(id="cus-3", company_id=CO_A))

        with store.read() as reader:
            found = [record.id for record in reader.find(Customer, company_id=CO_A)]
        assert ["cus-1", "cus-2", "cus-3"] == found, _shows(["cus-1", "cus-2", "cus-3"], found)

    def test_locks_are_accepted_in_any_order(self) -> None:
        """A unit of work may name several locks, unsorted and repeated; it commits as usual."""
        store = self._store(sample_company(id=CO_A))

        with store.transaction(locks=["resource:9", "resource:10", "resource:9"]) as tx:
            tx.insert(sample_customer(id="cus-1", company_id=CO_A))
        with store.transaction(locks=("counter",)) as tx:
            tx.insert(sample_customer(id="cus-2", company_id=CO_A))

        with store.read() as reader:
            found = [record.id for record in reader.find(Customer, company_id=CO_A)]
        assert ["cus-1", "cus-2"] == found, _shows(["cus-1", "cus-2"], found)

    # -- threads ---------------------------------------------------------------------------

    def test_units_of_work_on_a_common_lock_never_interleave(self) -> None:
        """Concurrent read-modify-write units of work holding one lock lose no update."""
        store = self._store(
            sample_company(id=CO_A), sample_customer(id="counter", company_id=CO_A, notes="0")
        )
        threads, increments = self.thread_count, self.increments_per_thread
        barrier = threading.Barrier(threads, timeout=self.thread_timeout)

        def increment() -> None:
            barrier.wait()
            for _ in range(increments):
                _retry_conflicts(lambda: _add_one(store))

        _run_threads([increment] * threads, timeout=self.thread_timeout)

        with store.read() as reader:
            counter = reader.get(Customer, "counter")
        count = counter.notes if counter is not None else None
        assert str(threads * increments) == count, _shows(str(threads * increments), count)

    def test_readers_never_see_half_a_unit_of_work(self) -> None:
        """A reader sees both or neither of two records inserted by one unit of work."""
        store = self._store(
            sample_company(id=CO_A), sample_customer(id="tally", company_id=CO_A, notes="0")
        )
        pairs = 100
        writer_done = threading.Event()
        barrier = threading.Barrier(1 + max(1, self.thread_count - 1), timeout=self.thread_timeout)

        def write() -> None:
            barrier.wait()
            try:
                for number in range(pairs):
                    _retry_conflicts(functools.partial(_insert_pair, store, number))
            finally:
                writer_done.set()

        def read() -> None:
            barrier.wait()
            while True:
                last_round = writer_done.is_set()
                with store.read() as reader:
                    customers = reader.find(Customer, company_id=CO_A)
                    tally = reader.get(Customer, "tally")
                    halves = {
                        record.id: reader.get(Customer, record.id) for record in customers[-2:]
                    }
                counts: dict[str, int] = {}
                for record in customers:
                    if record.id.startswith("pair-"):
                        counts[record.id[:-2]] = counts.get(record.id[:-2], 0) + 1
                torn = sorted(pair for pair, count in counts.items() if count != 2)
                assert not torn, f"a reader saw half of the units of work {torn}"
                assert tally is not None
                assert str(len(counts)) == tally.notes, _shows(str(len(counts)), tally.notes)
                assert None not in halves.values(), f"find() and get() disagree: {halves}"
                if last_round:
                    assert len(counts) == pairs, _shows(pairs, len(counts))
                    return
                # Let the writer in: a store whose readers block writers must not starve it.
                time.sleep(0.001)

        readers = [read] * max(1, self.thread_count - 1)
        _run_threads([write, *readers], timeout=self.thread_timeout)

    def test_rolled_back_writes_are_never_seen_by_another_thread(self) -> None:
        """A record inserted by a unit of work that then raises is invisible to other threads."""
        store = self._store(sample_company(id=CO_A))
        inserted, looked = threading.Event(), threading.Event()
        seen: list[object] = []

        def write() -> None:
            with _raises(_Boom), store.transaction() as tx:
                tx.insert(sample_customer(id="cus-ghost", company_id=CO_A))
                inserted.set()
                # A store whose readers wait for writers lets this wait run out; one that
                # reads a snapshot answers at once. Either way the reader must not see the ghost.
                looked.wait(timeout=0.2)
                raise _Boom

        def read() -> None:
            assert inserted.wait(timeout=self.thread_timeout), "the writer never inserted"
            with store.read() as reader:
                seen.append(reader.get(Customer, "cus-ghost"))
                seen.append(len(reader.find(Customer, company_id=CO_A)))
            looked.set()

        _run_threads([write, read], timeout=self.thread_timeout)

        assert [None, 0] == seen, _shows([None, 0], seen)

    def test_opposite_lock_orders_do_not_deadlock(self) -> None:
        """Units of work naming the same locks in opposite orders all finish (locks are sorted)."""
        store = self._store(
            sample_company(id=CO_A), sample_customer(id="counter", company_id=CO_A, notes="0")
        )
        rounds = self.increments_per_thread
        barrier = threading.Barrier(2, timeout=self.thread_timeout)

        def worker(locks: tuple[str, ...]) -> Callable[[], None]:
            def run() -> None:
                barrier.wait()
                for _ in range(rounds):
                    _retry_conflicts(lambda: _add_one(store, locks=locks))

            return run

        _run_threads(
            [worker(("lock:a", "lock:b")), worker(("lock:b", "lock:a"))],
            timeout=self.thread_timeout,
        )

        with store.read() as reader:
            counter = reader.get(Customer, "counter")
        count = counter.notes if counter is not None else None
        assert str(2 * rounds) == count, _shows(str(2 * rounds), count)


# -- helpers used by the tests above ----------------------------------------------------------


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
        return reads

    def assert_same(self, before: dict[str, object], after: dict[str, object]) -> None:
        """Assert two snapshots are equal, naming the first read that differs."""
        for key, value in before.items():
            assert value == after.get(key), f"{key} changed" + _shows(value, after.get(key))
        assert before.keys() == after.keys()
