"""MemoryStore keeps the store contract, and the contract catches stores that break it."""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from datetime import timedelta
from typing import Any, cast

import pytest

from slotwise.model import OutboxEvent
from slotwise.storage.memory import MemoryStore
from slotwise.storage.protocol import Store
from slotwise.testing import StoreContract


class TestMemoryStore(StoreContract):
    def make_store(self) -> Store:
        """Return a fresh MemoryStore."""
        return MemoryStore()


# -- deliberately broken stores, to prove the contract has teeth -----------------------------


class _Patched:
    """A MemoryStore reader or transaction with some methods replaced."""

    def __init__(self, inner: Any, patches: Mapping[str, Callable[..., Any]]) -> None:
        self._inner = inner
        self._patches = patches

    def __getattr__(self, name: str) -> Any:
        if name in self._patches:
            return functools.partial(self._patches[name], self._inner)
        return getattr(self._inner, name)


class _PatchedStore:
    """A MemoryStore whose readers and transactions have some methods replaced."""

    def __init__(self, **patches: Callable[..., Any]) -> None:
        self._inner = MemoryStore()
        self._patches = patches

    @contextmanager
    def read(self) -> Iterator[Any]:
        """Yield a patched reader."""
        with self._inner.read() as reader:
            yield _Patched(reader, self._patches)

    @contextmanager
    def transaction(self, *, locks: Any = ()) -> Iterator[Any]:
        """Yield a patched transaction."""
        with self._inner.transaction(locks=locks) as tx:
            yield _Patched(tx, self._patches)


class _AutocommitStore:
    """Writes every change at once: no unit of work, no lock, no rollback, no nesting check."""

    def __init__(self) -> None:
        self._inner = MemoryStore()

    def read(self) -> Any:
        """Return the inner store's reader."""
        return self._inner.read()

    @contextmanager
    def transaction(self, *, locks: Any = ()) -> Iterator[Any]:
        """Yield a transaction whose every call is its own unit of work."""
        yield _AutocommitTransaction(self._inner)


class _AutocommitTransaction:
    """A transaction that commits each write at once and reads through fresh readers."""

    def __init__(self, inner: MemoryStore) -> None:
        self._inner = inner

    def __getattr__(self, name: str) -> Any:
        def read(*args: Any, **kwargs: Any) -> Any:
            with self._inner.read() as reader:
                return getattr(reader, name)(*args, **kwargs)

        return read

    def insert(self, record: Any) -> None:
        """Insert in a unit of work of its own."""
        with self._inner.transaction() as tx:
            tx.insert(record)

    def update(self, record: Any) -> None:
        """Update in a unit of work of its own."""
        with self._inner.transaction() as tx:
            tx.update(record)

    def delete(self, kind: Any, record_id: str) -> None:
        """Delete in a unit of work of its own."""
        with self._inner.transaction() as tx:
            tx.delete(kind, record_id)


def _contract(make: Callable[[], Any]) -> StoreContract:
    """Return a StoreContract whose stores come from *make*."""

    class Contract(StoreContract):
        """The contract run on a broken store."""

        def make_store(self) -> Store:
            """Return a broken store."""
            return cast(Store, make())

    return Contract()


def _sorted_find(inner: Any, kind: Any, /, **filters: Any) -> Any:
    """find() in id order instead of creation order."""
    return sorted(inner.find(kind, **filters), key=lambda record: record.id)


def _closed_overlap(inner: Any, *, start: Any, end: Any, **query: Any) -> Any:
    """appointments_overlapping() on a closed range: touching appointments slip in."""
    tick = timedelta(microseconds=1)
    return inner.appointments_overlapping(start=start - tick, end=end + tick, **query)


def _exclusive_first(inner: Any, *, first: Any, **query: Any) -> Any:
    """blocks_touching() that misses blocks ending on the first day."""
    return inner.blocks_touching(first=first + timedelta(days=1), **query)


def _undelivered_in_insert_order(inner: Any, *, company_id: Any, limit: int) -> Any:
    """undelivered_events() in insert order instead of sequence order."""
    events = inner.find(OutboxEvent, company_id=company_id)
    return [event for event in events if event.delivered_at is None][:limit]


def _due_strictly_before(inner: Any, *, before: Any, **query: Any) -> Any:
    """reminders_due() that misses reminders due exactly at *before*."""
    return [r for r in inner.reminders_due(before=before, **query) if r.due_at < before]


def _sequence_always_one(inner: Any) -> int:
    """next_sequence() that hands out 1 every time."""
    return 1


class TestContractCatchesBrokenStores:
    @pytest.mark.parametrize(
        ("store", "test"),
        [
            pytest.param(
                lambda: _PatchedStore(find=_sorted_find),
                "test_find_returns_creation_order",
                id="find-sorted-by-id",
            ),
            pytest.param(
                lambda: _PatchedStore(appointments_overlapping=_closed_overlap),
                "test_appointments_touching_are_not_overlapping",
                id="closed-overlap",
            ),
            pytest.param(
                lambda: _PatchedStore(blocks_touching=_exclusive_first),
                "test_windows_touching_edges_are_inclusive",
                id="exclusive-window-edge",
            ),
            pytest.param(
                lambda: _PatchedStore(undelivered_events=_undelivered_in_insert_order),
                "test_undelivered_events_by_sequence",
                id="events-in-insert-order",
            ),
            pytest.param(
                lambda: _PatchedStore(reminders_due=_due_strictly_before),
                "test_reminders_due_boundary_order_company_and_limit",
                id="reminders-due-exclusive",
            ),
            pytest.param(
                lambda: _PatchedStore(next_sequence=_sequence_always_one),
                "test_next_sequence_strictly_increases_and_is_never_reused",
                id="sequence-repeats",
            ),
            pytest.param(
                _AutocommitStore,
                "test_exception_in_unit_of_work_leaves_no_trace",
                id="no-rollback",
            ),
            pytest.param(
                _AutocommitStore, "test_rollback_restores_deleted_record_position", id="no-restore"
            ),
            pytest.param(
                _AutocommitStore,
                "test_nested_unit_of_work_raises_store_error",
                id="no-nesting-check",
            ),
            pytest.param(
                _AutocommitStore,
                "test_units_of_work_on_a_common_lock_never_interleave",
                id="no-lock",
            ),
            pytest.param(
                _AutocommitStore, "test_readers_never_see_half_a_unit_of_work", id="torn-reads"
            ),
            pytest.param(
                _AutocommitStore,
                "test_rolled_back_writes_are_never_seen_by_another_thread",
                id="dirty-reads",
            ),
        ],
    )
    def test_broken_store_fails_the_contract(self, store: Callable[[], Any], test: str):
        """Each broken store fails the contract test for the rule it breaks."""
        contract = _contract(store)

        with pytest.raises(AssertionError):
            getattr(contract, test)()
        contract.teardown_method()

    def test_dispose_store_is_called_for_each_store(self):
        """teardown_method() hands every store the test made to dispose_store(), once."""
        disposed: list[Store] = []

        class Contract(StoreContract):
            def make_store(self) -> Store:
                return MemoryStore()

            def dispose_store(self, store: Store) -> None:
                disposed.append(store)

        contract = Contract()
        contract.test_get_missing_returns_none()
        contract.teardown_method()
        contract.teardown_method()

        assert 2 == len(disposed)
        assert all(isinstance(store, MemoryStore) for store in disposed)

    def test_make_store_must_be_implemented(self):
        """The base class raises NotImplementedError until make_store() is implemented."""
        with pytest.raises(NotImplementedError):
            StoreContract().make_store()
