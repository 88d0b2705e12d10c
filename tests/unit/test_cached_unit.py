"""A cached unit of work's writes (decision 49): the store's own where it can refuse configuration itself."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import attrs
import pytest

from slotwise.model import (
    Appointment,
    AuditEntry,
    Customer,
    OutboxEvent,
    Record,
    Resource,
    Service,
    Trigger,
)
from slotwise.storage.configuration import CONFIGURATION_KINDS, CachedUnit, ConfigurationCache
from slotwise.storage.memory import MemoryStore
from slotwise.storage.outbox import (
    append_appointment_event,
    append_event,
    deferred_appointment_payload,
)
from slotwise.testing import SequentialIds
from slotwise.testing.samples import sample_records

_NOW = datetime(2026, 3, 2, 9, 30, tzinfo=UTC)


class _PlainUnit:
    """A store's unit of work with the protocol's writes only (no capabilities)."""

    def __init__(self, tx: Any) -> None:
        self._tx = tx

    def __getattr__(self, name: str) -> Any:
        if name in {"refuse_configuration", "insert_new", "insert_numbered"}:
            raise AttributeError(name)
        return getattr(self._tx, name)


def _stored() -> tuple[MemoryStore, list[Record]]:
    """A store holding one record of every kind of company ``c``."""
    store = MemoryStore()
    records = sample_records(company_id="c", location_id="l", prefix="p")
    with store.transaction() as tx:
        for record in records:
            tx.insert(record)
    return store, records


def _contents(store: MemoryStore) -> dict[Any, Any]:
    return {kind: dict(table) for kind, table in store._tables.items()}


def _one(records: list[Record], kind: type[Any]) -> Any:
    return next(record for record in records if isinstance(record, kind))


@pytest.mark.parametrize("plain", [False, True], ids=["refusing-store", "plain-store"])
class TestCachedUnitWrites:
    def _unit(self, tx: Any, plain: bool) -> CachedUnit:
        unit = ConfigurationCache().unit(_PlainUnit(tx) if plain else tx, "c")
        assert isinstance(unit, CachedUnit)
        return unit

    def test_every_configuration_write_is_a_type_error_and_writes_nothing(self, plain):
        """insert, insert_new, update and delete of a configuration record: TypeError, as before."""
        store, records = _stored()
        service = _one(records, Service)
        before = _contents(store)
        writes: list[Callable[[CachedUnit], None]] = [
            lambda unit: unit.insert(attrs.evolve(service, id="s2")),
            lambda unit: unit.insert_new(attrs.evolve(service, id="s3")),
            lambda unit: unit.update(attrs.evolve(service, name="Other")),
            lambda unit: unit.delete(Service, service.id),
            lambda unit: unit.delete(Service, "missing"),  # refused before NotFound
        ]

        for write in writes:
            with store.transaction() as tx:
                unit = self._unit(tx, plain)
                with pytest.raises(TypeError, match="writes no Service \\(configuration\\)"):
                    write(unit)

        assert before == _contents(store)
        assert all(kind in CONFIGURATION_KINDS for kind in (Service, Resource))

    def test_other_writes_go_through_and_a_failed_unit_undoes_them(self, plain):
        """An appointment, audit entry and numbered event written, then undone by an error."""
        store, records = _stored()
        appointment = _one(records, Appointment)
        entry = _one(records, AuditEntry)
        event = _one(records, OutboxEvent)
        before = _contents(store)

        def unit_of_work(tx: Any) -> CachedUnit:
            unit = self._unit(tx, plain)
            unit.insert_new(attrs.evolve(appointment, id="a2"))
            unit.insert(attrs.evolve(entry, id="au2"))
            unit.insert_numbered(lambda number: attrs.evolve(event, id="e2", sequence=number))
            return unit

        def failing() -> None:
            with store.transaction() as tx:
                unit_of_work(tx)
                raise RuntimeError("failed unit")

        with pytest.raises(RuntimeError, match="failed unit"):
            failing()
        assert before == _contents(store)

        with store.transaction() as tx:
            unit_of_work(tx)
        with store.read() as reader:
            assert reader.get(Appointment, "a2") is not None
            assert reader.get(AuditEntry, "au2") is not None
            numbered = reader.get(OutboxEvent, "e2")
        assert numbered is not None
        assert numbered.sequence >= 1


class TestRefusalEndsWithTheUnit:
    def test_the_next_unit_writes_configuration_again(self):
        """A cached unit's refusal is its own: the store's next unit may write a service."""
        store, records = _stored()
        service = _one(records, Service)
        with store.transaction() as tx:
            ConfigurationCache().unit(tx, "c")

        with store.transaction() as tx:
            tx.insert(attrs.evolve(service, id="s2"))

        with store.read() as reader:
            assert reader.get(Service, "s2") is not None


class TestWarmUnit:
    def test_a_held_version_loads_nothing_and_a_change_loads_once(self):
        """unit() answers a held company at its version from the cache; a new version reloads."""
        store, records = _stored()
        cache = ConfigurationCache()
        with store.transaction() as tx:
            cache.unit(tx, "c")
        with store.transaction() as tx:
            held = cache.unit(tx, "c")
        assert 1 == cache.loads
        assert isinstance(held, CachedUnit)

        with store.transaction() as tx:
            tx.update(attrs.evolve(_one(records, Service), name="Other"))
        with store.transaction() as tx:
            fresh = cache.unit(tx, "c")

        assert 2 == cache.loads
        assert isinstance(fresh, CachedUnit)
        assert fresh.configuration.version > held.configuration.version


class TestAppendAppointmentEvent:
    def test_the_same_event_as_append_event(self):
        """Its event equals append_event's with the appointment's deferred payload."""
        store, records = _stored()
        appointment = _one(records, Appointment)
        customer = _one(records, Customer)
        resources = [_one(records, Resource)]
        with store.transaction() as tx:
            append_appointment_event(
                tx,
                SequentialIds("x"),
                _NOW,
                Trigger.BOOKING_CONFIRMATION,
                appointment,
                customer,
                resources,
                None,
            )
            append_event(
                tx,
                ids=SequentialIds("y"),
                now=_NOW,
                company_id=appointment.company_id,
                location_id=appointment.location_id,
                trigger=Trigger.BOOKING_CONFIRMATION,
                entity_id=appointment.id,
                payload=deferred_appointment_payload(
                    appointment, customer=customer, resources=resources
                ),
            )
        with store.read() as reader:
            found = reader.undelivered_events(company_id="c", limit=10)
        ours = next(event for event in found if event.id.startswith("x"))
        theirs = next(event for event in found if event.id.startswith("y"))

        assert attrs.evolve(theirs, id=ours.id, sequence=ours.sequence) == ours
