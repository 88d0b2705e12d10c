"""
Part of :class:`~slotwise.testing.StoreContract`. The configuration version (decision 49) and
the configuration cache over it: a store that offers ``configuration_version`` raises it with
every committed configuration write, and a cached reader answers exactly as the store does.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from datetime import date
from typing import Any

import attrs

from slotwise.model import Appointment, Block, Customer, Record
from slotwise.storage.configuration import (
    CONFIGURATION_KINDS,
    ConfigurationCache,
    configuration_version,
)
from slotwise.storage.protocol import Reader, Store, Transaction

from ._base import ContractBase, _insert, _raises, _shows
from ._world import (
    _WINDOW_KINDS,
    CO_A,
    CO_B,
    LOC_A1,
    LOC_A2,
    RES_1,
    RES_2,
    _appointment,
    _at,
    _bare_world,
    _changed,
    _full_world,
    _touching,
    _window,
)


class _Rollback(Exception):
    """Raised inside a unit of work to roll it back."""


def _version(store: Store, company_id: str = CO_A) -> int | None:
    with store.read() as reader:
        return configuration_version(reader, company_id)


def _rises(store: Store, change: Callable[[Transaction], None], what: str) -> None:
    """Commit *change* and check that company A's version rose and company B's did not."""
    before, other = _version(store), _version(store, CO_B)
    with store.transaction() as tx:
        change(tx)
    after = _version(store)
    assert before is not None, "the store stopped keeping versions"
    assert after is not None, "the store stopped keeping versions"
    assert after > before, f"{what}: version {before} -> {after}"
    assert other == _version(store, CO_B), f"{what}: another company's version moved"


def _configuration_reads(reader: Reader) -> dict[str, Any]:
    """Every configuration read an availability request makes, as ids, for comparison."""
    seen: dict[str, Any] = {}
    for kind in sorted(CONFIGURATION_KINDS, key=lambda kind: kind.__name__):
        for company_id in (CO_A, CO_B):
            records = reader.find(kind, company_id=company_id)
            seen[f"find {kind.__name__} {company_id}"] = [r.id for r in records]
            for record in records:
                seen[f"get {kind.__name__} {record.id}"] = record
        if "location_id" in attrs.fields_dict(kind):
            for location_id in (LOC_A1, LOC_A2):
                found = reader.find(kind, company_id=CO_A, location_id=location_id)
                seen[f"find {kind.__name__} {location_id}"] = [r.id for r in found]
    for _, method in _WINDOW_KINDS:
        for first, last in ((date(2026, 3, 1), date(2026, 3, 31)), (date(2026, 3, 12),) * 2):
            seen[f"{method} {first}"] = _touching(reader, method, [RES_1, RES_2], first, last)
    return seen


class ConfigurationContract(ContractBase):
    """The configuration version and the configuration cache (decision 49)."""

    def _versioned_store(self) -> Store | None:
        """A store of the bare world, or ``None`` when the store keeps no versions."""
        store = self._store(*_bare_world())
        return store if _version(store) is not None else None

    def test_configuration_version_rises_with_every_configuration_write(self) -> None:
        """Each committed insert, update and delete of a configuration record raises its company's version."""
        store = self._versioned_store()
        if store is None:
            return  # an optional capability: the cache then reads everything from the store
        for kind, _method in _WINDOW_KINDS:
            window = _window(
                kind, f"w-{kind.__name__}", RES_1, date(2026, 3, 10), date(2026, 3, 20)
            )

            def insert(tx: Transaction, record: Record = window) -> None:
                tx.insert(record)

            def update(tx: Transaction, record: Record = window) -> None:
                tx.update(_changed(record))

            def delete(tx: Transaction, record: Record = window) -> None:
                tx.delete(type(record), record.id)

            for change in (insert, update, delete):
                _rises(store, change, f"{change.__name__} {window.id}")
        for record in _bare_world():
            if record.company_id == CO_A:
                _rises(store, functools.partial(update, record=record), f"update {record.id}")

    def test_configuration_version_ignores_bookings_and_customers(self) -> None:
        """Appointments, customers and the other non-configuration kinds leave the version alone."""
        store = self._versioned_store()
        if store is None:
            return
        world = [r for r in _full_world() if type(r) not in CONFIGURATION_KINDS]
        before = _version(store)
        _insert(store, _appointment("apt-1", _at(9), _at(10)))
        with store.transaction() as tx:
            tx.update(_appointment("apt-1", _at(11), _at(12)))
        assert before == _version(store)
        assert {type(r) for r in world} >= {Appointment, Customer}, "the world lacks a kind"

    def test_rolled_back_configuration_write_is_not_cached(self) -> None:
        """A configuration write rolled back leaves what a cached reader answers unchanged."""
        store = self._store(*_bare_world())
        cache = ConfigurationCache()
        block = _window(Block, "w-gone", RES_1, date(2026, 3, 10), date(2026, 3, 20))
        with _raises(_Rollback), store.transaction() as tx:
            tx.insert(block)
            raise _Rollback
        with store.read() as reader:
            found = cache.reader(reader, CO_A).get(Block, "w-gone")

        assert found is None

    def test_cached_reader_agrees_with_the_store(self) -> None:
        """Every configuration read through the cache answers what the store answers, before and after changes."""
        store = self._store(*_bare_world())
        cache = ConfigurationCache()
        for kind, _method in _WINDOW_KINDS:
            _insert(
                store,
                _window(kind, f"{kind.__name__}-1", RES_1, date(2026, 3, 10), date(2026, 3, 20)),
                _window(kind, f"{kind.__name__}-2", RES_2, date(2026, 3, 12), date(2026, 3, 12)),
            )
        changes: list[Record] = [
            _changed(_window(Block, "Block-2", RES_2, date(2026, 3, 1), date(2026, 3, 2))),
        ]
        for step in range(len(changes) + 1):
            with store.read() as reader:
                expected = _configuration_reads(reader)
                cached = _configuration_reads(cache.reader(reader, CO_A))
            assert expected == cached, f"step {step}" + _shows(expected, cached)
            if step < len(changes):
                with store.transaction() as tx:
                    tx.update(changes[step])

    def test_cache_reads_configuration_once_per_change(self) -> None:
        """Reads at one version share one load; a committed change is seen by the very next read."""
        store = self._versioned_store()
        if store is None:
            return
        cache = ConfigurationCache()
        for _ in range(3):
            with store.read() as reader:
                cache.reader(reader, CO_A)
        loads = cache.loads
        resource = next(r for r in _bare_world() if r.id == RES_1)
        renamed = _changed(resource)
        with store.transaction() as tx:
            tx.update(renamed)
        with store.read() as reader:
            seen = cache.reader(reader, CO_A).get(type(resource), RES_1)

        assert 1 == loads
        assert renamed == seen
        assert 2 == cache.loads
