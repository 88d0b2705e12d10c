"""MemoryStore agrees with a plain dict model under random writes and aborted units of work."""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from datetime import UTC, date, datetime, timedelta
from typing import Any

import pytest
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import Bundle, RuleBasedStateMachine, invariant, rule

from slotwise import DuplicateRecord, NotFound
from slotwise.model import OPEN_END, Appointment, AppointmentStatus, Block, Customer
from slotwise.storage.memory import MemoryStore
from slotwise.storage.protocol import Reader, Transaction
from slotwise.testing.samples import sample_appointment, sample_block, sample_customer

LOCATIONS = {"loc-a1": "co-a", "loc-a2": "co-a", "loc-b": "co-b"}
COMPANIES = ("co-a", "co-b")
RESOURCES = ("r1", "r2", "r3")
TARGETS = (*RESOURCES, "svc")
KINDS: tuple[type[Any], ...] = (Customer, Block, Appointment)
IDS: dict[type[Any], tuple[str, ...]] = {
    Customer: ("c0", "c1", "c2", "c3"),
    Block: ("b0", "b1", "b2", "b3"),
    Appointment: ("a0", "a1", "a2", "a3", "a4", "a5"),
}
DAY = date(2026, 3, 2)
MIDNIGHT = datetime(2026, 3, 2, tzinfo=UTC)
HALF_HOUR = timedelta(minutes=30)

Model = dict[type[Any], dict[str, Any]]
"""kind -> {id: record}; a dict keeps insertion order, an update keeps the key's place."""


def _customer(record_id: str) -> st.SearchStrategy[Customer]:
    """Customers with *record_id* of either company."""
    return st.builds(
        lambda company_id, notes: sample_customer(id=record_id, company_id=company_id, notes=notes),
        st.sampled_from(COMPANIES),
        st.sampled_from(("", "vip", "late")),
    )


def _block(record_id: str) -> st.SearchStrategy[Block]:
    """Blocks with *record_id*: any location and target, bounded or open-ended, some deleted."""

    def build(location_id: str, target_id: str, start: int, length: int | None, deleted: bool):
        first = DAY + timedelta(days=start)
        return sample_block(
            id=record_id,
            company_id=LOCATIONS[location_id],
            location_id=location_id,
            target_id=target_id,
            start_date=first,
            end_date=OPEN_END if length is None else first + timedelta(days=length),
            deleted=deleted,
        )

    return st.builds(
        build,
        st.sampled_from(sorted(LOCATIONS)),
        st.sampled_from(TARGETS),
        st.integers(0, 20),
        st.none() | st.integers(0, 6),
        st.booleans(),
    )


def _appointment(record_id: str) -> st.SearchStrategy[Appointment]:
    """Appointments with *record_id*: any location, resources, status, half-hour grid times."""

    def build(
        location_id: str,
        resource_ids: list[str],
        start: int,
        length: int,
        status: AppointmentStatus,
    ) -> Appointment:
        return sample_appointment(
            id=record_id,
            company_id=LOCATIONS[location_id],
            location_id=location_id,
            service_id="svc",
            resource_ids=resource_ids,
            start=MIDNIGHT + start * HALF_HOUR,
            end=MIDNIGHT + (start + length) * HALF_HOUR,
            status=status,
        )

    return st.builds(
        build,
        st.sampled_from(sorted(LOCATIONS)),
        st.lists(st.sampled_from(RESOURCES), unique=True, max_size=3),
        st.integers(0, 48),
        # Up to two days long, so the index must find appointments that began long before.
        st.integers(1, 96),
        st.sampled_from(AppointmentStatus),
    )


RECORDS = {Customer: _customer, Block: _block, Appointment: _appointment}

any_record = st.sampled_from(KINDS).flatmap(
    lambda kind: st.sampled_from(IDS[kind]).flatmap(RECORDS[kind])
)
any_key = st.sampled_from([(kind, record_id) for kind in KINDS for record_id in IDS[kind]])
operations = st.one_of(
    any_record.map(lambda record: ("insert", record)),
    any_record.map(lambda record: ("update", record)),
    any_key.map(lambda key: ("delete", *key)),
)


def _apply(model: Model, operation: tuple[Any, ...]) -> type[Exception] | None:
    """Apply *operation* to the model; return the error the store must raise instead, if any."""
    if operation[0] == "delete":
        _, kind, record_id = operation
        if record_id not in model[kind]:
            return NotFound
        del model[kind][record_id]
        return None
    verb, record = operation
    table = model[type(record)]
    if verb == "insert" and record.id in table:
        return DuplicateRecord
    if verb == "update" and record.id not in table:
        return NotFound
    table[record.id] = record
    return None


def _perform(tx: Transaction, operation: tuple[Any, ...]) -> None:
    """Apply *operation* to the store."""
    if operation[0] == "delete":
        tx.delete(operation[1], operation[2])
    elif operation[0] == "insert":
        tx.insert(operation[1])
    else:
        tx.update(operation[1])


def _overlapping(
    model: Model,
    location_id: str,
    resource_ids: Sequence[str] | None,
    start: datetime,
    end: datetime,
) -> list[Appointment]:
    """The brute-force overlap query: a filter over every appointment, sorted by start and id."""
    found = [
        appointment
        for appointment in model[Appointment].values()
        if appointment.location_id == location_id
        and (resource_ids is None or set(appointment.resource_ids) & set(resource_ids))
        and appointment.start < end
        and appointment.end > start
    ]
    return sorted(found, key=lambda appointment: (appointment.start, appointment.id))


def _assert_agrees(model: Model, reader: Reader) -> None:
    """Assert find() and get() of *reader* show exactly the model."""
    for kind in KINDS:
        expected = list(model[kind].values())
        assert expected == reader.find(kind, company_id=None)
        for company_id in COMPANIES:
            assert [record for record in expected if record.company_id == company_id] == (
                reader.find(kind, company_id=company_id)
            )
        for record_id in IDS[kind]:
            assert model[kind].get(record_id) == reader.get(kind, record_id)


class _Abort(Exception):
    """Raised to abort a unit of work."""


class MemoryStoreMachine(RuleBasedStateMachine):
    """Random inserts, updates, deletes and aborted units of work against a dict model."""

    keys = Bundle("keys")

    def __init__(self) -> None:
        super().__init__()
        self.store = MemoryStore()
        self.model: Model = {kind: {} for kind in KINDS}

    def _unit(self, operations: Sequence[tuple[Any, ...]], *, abort: bool) -> None:
        """Run *operations* in one unit of work, checking each against a working model copy."""
        working = {kind: dict(table) for kind, table in self.model.items()}
        with contextlib.suppress(_Abort), self.store.transaction() as tx:
            for operation in operations:
                error = _apply(working, operation)
                if error is None:
                    _perform(tx, operation)
                else:
                    # Contract: a refused write wrote nothing and the unit of work goes on.
                    with pytest.raises(error):
                        _perform(tx, operation)
                _assert_agrees(working, tx)
            if abort:
                raise _Abort
        if not abort:
            self.model = working

    @rule(target=keys, record=any_record)
    def insert(self, record: Any) -> tuple[type[Any], str]:
        """Insert a record in its own unit of work (DuplicateRecord when the id is taken)."""
        self._unit([("insert", record)], abort=False)
        return type(record), record.id

    @rule(key=keys, data=st.data())
    def update(self, key: tuple[type[Any], str], data: st.DataObject) -> None:
        """Replace a record (NotFound when it was deleted meanwhile)."""
        kind, record_id = key
        self._unit([("update", data.draw(RECORDS[kind](record_id)))], abort=False)

    @rule(key=keys)
    def delete(self, key: tuple[type[Any], str]) -> None:
        """Delete a record (NotFound when it is already gone)."""
        self._unit([("delete", *key)], abort=False)

    @rule(operations=st.lists(operations, min_size=1, max_size=6), abort=st.booleans())
    def unit_of_work(self, operations: list[tuple[Any, ...]], abort: bool) -> None:
        """Run several writes in one unit of work, then commit it or abort it with an exception."""
        self._unit(operations, abort=abort)

    @rule(
        location_id=st.sampled_from(sorted(LOCATIONS)),
        resource_ids=st.none() | st.lists(st.sampled_from(RESOURCES), unique=True, max_size=3),
        start=st.integers(0, 150),
        length=st.integers(1, 12),
    )
    def overlap_query(
        self, location_id: str, resource_ids: list[str] | None, start: int, length: int
    ) -> None:
        """appointments_overlapping equals the brute-force filter for a random range."""
        begin, end = MIDNIGHT + start * HALF_HOUR, MIDNIGHT + (start + length) * HALF_HOUR

        with self.store.read() as reader:
            found = reader.appointments_overlapping(
                location_id=location_id, resource_ids=resource_ids, start=begin, end=end
            )

        assert _overlapping(self.model, location_id, resource_ids, begin, end) == found

    @rule(
        target_ids=st.lists(st.sampled_from(TARGETS), unique=True, max_size=4),
        first=st.integers(0, 30),
        length=st.none() | st.integers(0, 10),
    )
    def blocks_query(self, target_ids: list[str], first: int, length: int | None) -> None:
        """blocks_touching equals a filter of the model in creation order."""
        start = DAY + timedelta(days=first)
        last = OPEN_END if length is None else start + timedelta(days=length)

        with self.store.read() as reader:
            found = reader.blocks_touching(target_ids=target_ids, first=start, last=last)

        expected = [
            block
            for block in self.model[Block].values()
            if block.target_id in target_ids
            and block.start_date <= last
            and block.end_date >= start
        ]
        assert expected == found

    @invariant()
    def find_and_get_agree(self) -> None:
        """find() lists the model's records in order, per company too; get() agrees on every id."""
        with self.store.read() as reader:
            _assert_agrees(self.model, reader)

    @invariant()
    def day_overlaps_agree(self) -> None:
        """Whole-day overlap queries agree with the brute force, per location and resource."""
        start, end = MIDNIGHT, MIDNIGHT + timedelta(days=3)
        with self.store.read() as reader:
            for location_id in LOCATIONS:
                for resource_ids in (None, *([resource] for resource in RESOURCES)):
                    found = reader.appointments_overlapping(
                        location_id=location_id, resource_ids=resource_ids, start=start, end=end
                    )
                    assert _overlapping(self.model, location_id, resource_ids, start, end) == found


MemoryStoreMachine.TestCase.settings = settings(
    max_examples=100, stateful_step_count=30, deadline=None
)
TestMemoryStoreModel = MemoryStoreMachine.TestCase
