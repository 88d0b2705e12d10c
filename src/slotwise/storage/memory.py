"""
MemoryStore: the default store, in process memory, with no dependencies.
"""

from __future__ import annotations

import bisect
import threading
from collections.abc import Callable, Collection, Iterator
from contextlib import contextmanager
from datetime import date, datetime, timedelta
from typing import Any, cast

from slotwise.errors import DuplicateRecord, NotFound, StoreError
from slotwise.model import RECORD_KINDS, Allocation, Appointment, Block, Record
from slotwise.storage.protocol import R

__all__ = ["MemoryStore"]

_Window = Block | Allocation


class MemoryStore:
    """
    Keeps records in dictionaries guarded by one re-entrant lock.

    Thread-safe within one process: every unit of work and every read holds the lock, so units
    of work are serialised (the *locks* argument is accepted and subsumed). Writes apply in
    place and are undone from a journal when the unit of work raises. Nothing survives the
    process; use ``SQLStore`` to share data between processes.

    Appointments are indexed per resource by start time, so a range read costs
    O(log n + overlapping) whatever the history.

    .. versionadded:: 0.1
    """

    def __init__(self) -> None:
        self._lock = threading.RLock()
        self._local = threading.local()
        self._tables: dict[type[Any], dict[str, Any]] = {kind: {} for kind in RECORD_KINDS}
        # resource id -> sorted [(start, id)], and the longest appointment seen for it, so an
        # overlap query can start its bisection at (range start - longest).
        self._by_resource: dict[str, list[tuple[datetime, str]]] = {}
        self._longest: dict[str, timedelta] = {}
        self._by_location: dict[str, list[tuple[datetime, str]]] = {}
        self._longest_at_location: dict[str, timedelta] = {}
        self._windows: dict[tuple[type[Any], str], dict[str, None]] = {}

    def __repr__(self) -> str:
        return "MemoryStore()"

    @contextmanager
    def read(self) -> Iterator[_MemoryReader]:
        """Hold the store's lock and yield a reader."""
        with self._lock:
            yield _MemoryReader(self)

    @contextmanager
    def transaction(self, *, locks: Collection[str] = ()) -> Iterator[_MemoryTransaction]:
        """Hold the store's lock for one unit of work; undo its writes if it raises."""
        del locks  # the store-wide lock already serialises every unit of work
        with self._lock:
            if getattr(self._local, "active", False):
                raise StoreError("MemoryStore does not support nested transactions")
            self._local.active = True
            tx = _MemoryTransaction(self)
            try:
                yield tx
            except BaseException:
                tx.rollback()
                raise
            finally:
                self._local.active = False

    # -- record access, used by readers and transactions (lock held) -----------------------

    def _table(self, kind: type[Any]) -> dict[str, Any]:
        try:
            return self._tables[kind]
        except KeyError:
            raise StoreError(f"{kind.__name__} is not a record kind slotwise stores") from None

    def _put(self, record: Record) -> None:
        table = self._table(type(record))
        old = table.get(record.id)
        if old is not None:
            self._unindex(old)
        table[record.id] = record
        self._index(record)

    def _remove(self, kind: type[Any], record_id: str) -> tuple[Any, int]:
        table = self._table(kind)
        position = list(table).index(record_id)
        record = table.pop(record_id)
        self._unindex(record)
        return record, position

    def _restore(self, record: Record, position: int) -> None:
        table = self._table(type(record))
        items = list(table.items())
        items.insert(position, (record.id, record))
        table.clear()
        table.update(items)
        self._index(record)

    def _index(self, record: Record) -> None:
        if isinstance(record, Appointment):
            span = record.end - record.start
            entry = (record.start, record.id)
            for resource_id in set(record.resource_ids):
                bisect.insort(self._by_resource.setdefault(resource_id, []), entry)
                self._longest[resource_id] = max(self._longest.get(resource_id, span), span)
            bisect.insort(self._by_location.setdefault(record.location_id, []), entry)
            self._longest_at_location[record.location_id] = max(
                self._longest_at_location.get(record.location_id, span), span
            )
        elif isinstance(record, Block | Allocation):
            self._windows.setdefault((type(record), record.target_id), {})[record.id] = None

    def _unindex(self, record: Record) -> None:
        if isinstance(record, Appointment):
            entry = (record.start, record.id)
            for resource_id in set(record.resource_ids):
                _discard_sorted(self._by_resource[resource_id], entry)
            _discard_sorted(self._by_location[record.location_id], entry)
        elif isinstance(record, Block | Allocation):
            self._windows[(type(record), record.target_id)].pop(record.id, None)


def _discard_sorted(entries: list[tuple[datetime, str]], entry: tuple[datetime, str]) -> None:
    index = bisect.bisect_left(entries, entry)
    if index < len(entries) and entries[index] == entry:
        del entries[index]


class _MemoryReader:
    def __init__(self, store: MemoryStore) -> None:
        self._store = store

    def get(self, kind: type[R], record_id: str, /) -> R | None:
        return cast("R | None", self._store._table(kind).get(record_id))

    def find(
        self, kind: type[R], /, *, company_id: str | None, location_id: str | None = None
    ) -> list[R]:
        records: list[Any] = list(self._store._table(kind).values())
        if company_id is not None:
            records = [record for record in records if record.company_id == company_id]
        if location_id is not None:
            records = [record for record in records if record.location_id == location_id]
        return records

    def blocks_touching(
        self, *, target_ids: Collection[str], first: date, last: date
    ) -> list[Block]:
        return cast(list[Block], self._windows_touching(Block, target_ids, first, last))

    def allocations_touching(
        self, *, target_ids: Collection[str], first: date, last: date
    ) -> list[Allocation]:
        return cast(list[Allocation], self._windows_touching(Allocation, target_ids, first, last))

    def _windows_touching(
        self, kind: type[Any], target_ids: Collection[str], first: date, last: date
    ) -> list[_Window]:
        store = self._store
        table = store._table(kind)
        ids: set[str] = set()
        for target_id in target_ids:
            ids.update(store._windows.get((kind, target_id), ()))
        found = [table[record_id] for record_id in ids]
        order = {record_id: index for index, record_id in enumerate(table)} if found else {}
        found.sort(key=lambda record: order[record.id])
        return [
            record for record in found if record.start_date <= last and record.end_date >= first
        ]

    def appointments_overlapping(
        self,
        *,
        location_id: str,
        resource_ids: Collection[str] | None,
        start: datetime,
        end: datetime,
    ) -> list[Appointment]:
        store = self._store
        table = store._table(Appointment)
        if resource_ids is None:
            sources = [
                (
                    store._by_location.get(location_id, []),
                    store._longest_at_location.get(location_id),
                )
            ]
        else:
            sources = [
                (store._by_resource.get(resource_id, []), store._longest.get(resource_id))
                for resource_id in set(resource_ids)
            ]
        seen: dict[str, Appointment] = {}
        for entries, longest in sources:
            if not entries or longest is None:
                continue
            index = bisect.bisect_left(entries, (start - longest, ""))
            while index < len(entries) and entries[index][0] < end:
                appointment: Appointment = table[entries[index][1]]
                if appointment.end > start and appointment.location_id == location_id:
                    seen[appointment.id] = appointment
                index += 1
        return sorted(seen.values(), key=lambda item: (item.start, item.id))


class _MemoryTransaction(_MemoryReader):
    def __init__(self, store: MemoryStore) -> None:
        super().__init__(store)
        self._undo: list[Callable[[], None]] = []

    def insert(self, record: Record, /) -> None:
        store = self._store
        if record.id in store._table(type(record)):
            raise DuplicateRecord(kind=type(record).__name__, field="id", value=record.id)
        store._put(record)
        self._undo.append(lambda: store._remove(type(record), record.id) and None)

    def update(self, record: Record, /) -> None:
        store = self._store
        old = store._table(type(record)).get(record.id)
        if old is None:
            raise NotFound(kind=type(record).__name__, record_id=record.id)
        store._put(record)
        self._undo.append(lambda: store._put(old))

    def delete(self, kind: type[Record], record_id: str, /) -> None:
        store = self._store
        if record_id not in store._table(kind):
            raise NotFound(kind=kind.__name__, record_id=record_id)
        record, position = store._remove(kind, record_id)
        self._undo.append(lambda: store._restore(record, position))

    def rollback(self) -> None:
        while self._undo:
            self._undo.pop()()
