"""MemoryStore's write fast paths: per-kind index plans, the trusted outbox event, the unit of work."""

from __future__ import annotations

import enum
import threading
from collections.abc import Callable
from datetime import UTC, datetime, timedelta, timezone
from typing import Any

import attrs
import pytest

from slotwise.errors import DuplicateRecord, SlotwiseError, StoreError
from slotwise.model import (
    Allocation,
    Appointment,
    AppointmentStatus,
    AuditEntry,
    Block,
    Customer,
    FrozenJSON,
    OutboxEvent,
    QueuedReminder,
    Record,
    Trigger,
    freeze_json,
)
from slotwise.model.events import DeferredPayload
from slotwise.storage._memory_plans import (
    INDEXED_CONTAINS,
    INDEXED_EQUAL,
    INDEXED_FOLDED,
    list_keys,
    parent_of,
)
from slotwise.storage._memory_tables import MemoryTables
from slotwise.storage._memory_units import MemoryTransaction
from slotwise.storage.listing import fold
from slotwise.storage.memory import MemoryStore
from slotwise.storage.outbox import _new_event
from slotwise.testing.samples import sample_records

_NOW = datetime(2026, 3, 2, 9, 30, tzinfo=UTC)


def _reference_keys(record: Any) -> set[tuple[str | None, object]]:
    """The list indexes of *record*, worked out field by field (the meaning plans must keep)."""
    kind = type(record)
    keys: set[tuple[str | None, object]] = {(None, None)}
    if "location_id" in attrs.fields_dict(kind):
        keys.add(("location_id", record.location_id))
    for name in INDEXED_EQUAL.get(kind, ()):
        value = getattr(record, name)
        keys.add((name, value.value if isinstance(value, enum.Enum) else value))
    for name in INDEXED_CONTAINS.get(kind, ()):
        keys.update((name, member) for member in getattr(record, name))
    for name in INDEXED_FOLDED.get(kind, ()):
        if getattr(record, name) is not None:
            keys.add((name, fold(getattr(record, name))))
    return keys


def _reference_parent(record: Any) -> tuple[type[Any], Any] | None:
    """The child index of *record*: an appointment's customer (if any), a window's target, an
    entry's or reminder's appointment (even when built without one)."""
    if isinstance(record, Appointment):
        return None if record.customer_id is None else (Appointment, record.customer_id)
    if isinstance(record, Block | Allocation):
        return (type(record), record.target_id)
    if isinstance(record, QueuedReminder | AuditEntry):
        return (type(record), record.appointment_id)
    return None


def _records() -> list[Record]:
    """One record of every kind, and the variants whose indexes differ (None, repeats, states)."""
    records = sample_records(company_id="c", location_id="l", prefix="p")
    appointment = next(record for record in records if isinstance(record, Appointment))
    customer = next(record for record in records if isinstance(record, Customer))
    event = next(record for record in records if isinstance(record, OutboxEvent))
    block = next(record for record in records if isinstance(record, Block))
    return [
        *records,
        attrs.evolve(block, id="b2", target_id=None),  # no validator refuses it
        attrs.evolve(appointment, id="a2", customer_id=None, email=None),
        attrs.evolve(
            appointment,
            id="a3",
            resource_ids=("r1", "r2", "r1"),
            email="  Ana@Example.COM ",
            status=AppointmentStatus.INITIAL,
            hold_expires_at=_NOW,
        ),
        attrs.evolve(customer, id="cu2", email=None),
        attrs.evolve(event, id="e2", delivered_at=None),
        attrs.evolve(event, id="e3", delivered_at=None, failed_at=_NOW),
    ]


def _indexes(tables: MemoryTables) -> dict[str, Any]:
    """Every record and index a write keeps, as plain values (empty ones left out)."""
    return {
        "tables": {kind: dict(table) for kind, table in tables._tables.items()},
        "created": {kind: dict(created) for kind, created in tables._created.items()},
        "lists": {key: list(ids) for key, ids in tables._lists.items() if ids},
        "children": {key: list(ids) for key, ids in tables._children.items() if ids},
        "by_resource": {
            key: (index.starts, index.ids)
            for key, index in tables._by_resource.items()
            if index.ids
        },
        "by_location": {
            key: (index.starts, index.ids, index.takers)
            for key, index in tables._by_location.items()
            if index.ids
        },
        "due": list(tables._due),
        "holds": tables._holds.first(None, None, 1000),
        "undelivered": tables._undelivered.first(None, None, 1000),
        "unsent": tables._unsent.first(None, None, 1000),
        "emails": {key: ids for key, ids in tables._emails.items() if ids},
        "tokens": dict(tables._tokens),
        "idempotency": dict(tables._idempotency),
        # Not the configuration versions: a rollback draws a new one (never reused, decision 49).
    }


class TestPlans:
    @pytest.mark.parametrize("record", _records(), ids=lambda record: type(record).__name__)
    def test_list_keys_are_the_fields_indexes(self, record: Record):
        """A record's list indexes are its location, equal (enum values), members and folded text."""
        keys = list_keys(record)

        assert _reference_keys(record) == set(keys)
        assert len(set(keys)) == len(keys)

    def test_a_new_record_joins_its_lists_and_parent(self):
        """Each inserted record is in exactly the lists list_keys names, and its parent's children."""
        tables = MemoryTables()
        records = _records()
        for record in records:
            tables._add(record)

        expected: dict[Any, list[str]] = {}
        children: dict[Any, list[str]] = {}
        for record in records:
            for name, value in list_keys(record):
                expected.setdefault((type(record), "c", name, value), []).append(record.id)
            parent = _reference_parent(record)
            assert parent == parent_of(record)
            if parent is not None:
                children.setdefault(parent, []).append(record.id)
        assert expected == dict(tables._lists)
        assert children == dict(tables._children)

    def test_a_taken_id_or_an_unknown_kind_changes_nothing(self):
        """DuplicateRecord for a taken id, StoreError for a kind not stored; no index moves."""
        tables = MemoryTables()
        records = _records()
        for record in records:
            tables._add(record)
        before = _indexes(tables)

        with pytest.raises(DuplicateRecord):
            tables._add(records[-1])
        with pytest.raises(StoreError, match="is not a record kind"):
            tables._add(FrozenJSON())  # type: ignore[arg-type]
        assert before == _indexes(tables)


def _failing_unit(store: MemoryStore, work: Callable[[MemoryTransaction], None]) -> None:
    """Run *work* in a unit of work of *store* that then raises RuntimeError."""
    with store.transaction() as tx:
        work(tx)
        raise RuntimeError("failed unit")


class TestUnitOfWork:
    def test_a_failed_unit_leaves_every_index_as_it_was(self):
        """Inserts, updates and deletes of every kind, then an error: each index as before."""
        store = MemoryStore()
        records = _records()
        with store.transaction() as tx:
            for record in records[: len(records) // 2]:
                tx.insert(record)
        before = _indexes(store)

        def work(tx: MemoryTransaction) -> None:
            for record in records[len(records) // 2 :]:
                tx.insert_new(record)
            for record in records[: len(records) // 2]:
                if isinstance(record, OutboxEvent | Appointment):
                    tx.update(attrs.evolve(record, company_id="other"))
                else:
                    tx.delete(type(record), record.id)

        with pytest.raises(RuntimeError, match="failed unit"):
            _failing_unit(store, work)

        assert before == _indexes(store)

    def test_a_nested_unit_is_refused_and_the_lock_released(self):
        """A unit inside a unit is a StoreError; afterwards another thread's unit runs."""
        store = MemoryStore()
        with store.transaction(), pytest.raises(StoreError, match="nested"), store.transaction():
            pass
        done = threading.Event()

        def other() -> None:
            with store.transaction():
                done.set()

        thread = threading.Thread(target=other)
        thread.start()
        thread.join(5)
        assert done.is_set()

    def test_numbered_events_take_the_next_sequence(self):
        """insert_numbered numbers the event with the store's counter, which a rollback keeps."""
        store = MemoryStore()

        def numbered(sequence: int) -> OutboxEvent:
            return _new_event("e", "c", "l", Trigger.CUSTOMER_CREATED, "x", {}, _NOW, sequence)

        with pytest.raises(RuntimeError, match="failed unit"):
            _failing_unit(store, lambda tx: tx.insert_numbered(numbered))
        with store.transaction() as tx:
            tx.insert_numbered(numbered)
        with store.read() as reader:
            found = reader.get(OutboxEvent, "e")

        assert found is not None
        assert 2 == found.sequence


def _build(payload: object) -> Any:
    return {"made": payload}


_VALUES: dict[str, Any] = {
    "event_id": "e-1",
    "company_id": "c",
    "location_id": "l",
    "trigger": Trigger.BOOKING_CONFIRMATION,
    "entity_id": "a-1",
    "payload": freeze_json({"a": 1}),
    "created_at": _NOW,
    "sequence": 7,
}


def _both(**changes: Any) -> tuple[Any, Any]:
    """The outcome of _new_event and of the constructor for the same values: a record or error."""
    values = {**_VALUES, **changes}
    outcomes: list[Any] = []
    try:
        outcomes.append(_new_event(*values.values()))
    except SlotwiseError as error:
        outcomes.append((type(error), str(error)))
    arguments = dict(values)
    arguments["id"] = arguments.pop("event_id")
    try:
        outcomes.append(OutboxEvent(**arguments))
    except SlotwiseError as error:
        outcomes.append((type(error), str(error)))
    return outcomes[0], outcomes[1]


class TestNewEvent:
    def test_trusted_values_give_the_constructors_record(self):
        """Values the validators accept unchanged: the same record, every field, no validation."""
        fast, checked = _both()

        assert checked == fast
        assert attrs.asdict(checked) == attrs.asdict(fast)
        assert repr(checked) == repr(fast)
        assert hash(checked) == hash(fast)

    def test_a_deferred_payload_is_kept_deferred(self):
        """A DeferredPayload is built on the first read, as the constructor's event does."""
        fast, checked = _both(payload=DeferredPayload(_build, "x"))

        assert fast._payload.__class__ is DeferredPayload
        assert checked == fast
        assert {"made": "x"} == fast.payload

    @pytest.mark.parametrize(
        "changes",
        [
            {"sequence": 0},
            {"sequence": True},
            {"sequence": "7"},
            {"trigger": "BookingConfirmation"},
            {"trigger": "nope"},
            {"payload": {"a": [1, 2]}},
            {"payload": FrozenJSON()},
            {"payload": None},
            {"payload": [1]},
            {"created_at": _NOW.astimezone(timezone(timedelta(hours=2)))},
            {"created_at": _NOW.replace(tzinfo=None)},
            {"created_at": _NOW.replace(year=1800)},
            {"created_at": "2026-03-02"},
        ],
        ids=repr,
    )
    def test_other_values_go_through_the_constructor(self, changes: dict[str, Any]):
        """Any value the validators would convert or refuse: the constructor's record, or error."""
        fast, checked = _both(**changes)

        assert checked == fast
