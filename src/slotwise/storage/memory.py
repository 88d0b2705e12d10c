"""
MemoryStore: the default store, in process memory, with no dependencies.
"""

from __future__ import annotations

import threading
from collections.abc import Collection, Iterator
from contextlib import AbstractContextManager, contextmanager
from types import TracebackType

from slotwise.errors import StoreError

from ._memory_tables import MemoryTables
from ._memory_units import MemoryReader, MemoryTransaction

__all__ = ["MemoryStore"]


class MemoryStore(MemoryTables):
    """
    Keeps records in dictionaries guarded by one re-entrant lock.

    Thread-safe within one process: every unit of work and every read holds the lock, so units
    of work are serialised (the *locks* argument is accepted and subsumed). Writes apply in
    place and are undone from a journal when the unit of work raises. Nothing survives the
    process; use ``SQLStore`` to share data between processes.

    Appointments are indexed per resource by start time, so a range read costs
    O(log n + overlapping) whatever the history. Holds, undelivered events and unsent reminders
    are kept in sorted per-company, per-location indexes, and the children of a record (a customer's
    appointments, an appointment's reminders and audit entries, a target's blocks) in per-parent
    indexes, so none of those reads scans a table. Outbox sequence numbers come from a counter
    that a rolled-back unit of work does not rewind (like a SQL sequence).

    .. versionadded:: 0.1
    """

    def __init__(self) -> None:
        super().__init__()
        self._lock = threading.RLock()
        self._local = threading.local()

    def __repr__(self) -> str:
        return "MemoryStore()"

    @contextmanager
    def read(self) -> Iterator[MemoryReader]:
        """Hold the store's lock and yield a reader."""
        with self._lock:
            yield MemoryReader(self)

    def transaction(
        self, *, locks: Collection[str] = ()
    ) -> AbstractContextManager[MemoryTransaction]:
        """Hold the store's lock for one unit of work; undo its writes if it raises."""
        del locks  # the store-wide lock already serialises every unit of work
        return _MemoryUnit(self)


class _MemoryUnit(MemoryTransaction):
    """
    One ``MemoryStore.transaction()``, its own unit of work: the store's lock held from
    ``__enter__`` to ``__exit__``, the unit's writes undone when it raises (a class, and the
    transaction itself: every booking opens one, and a generator-based context manager, or a
    second object, costs more Python calls).
    """

    _store: MemoryStore

    def __enter__(self) -> MemoryTransaction:
        store = self._store
        store._lock.acquire()
        if getattr(store._local, "active", False):
            store._lock.release()
            raise StoreError("MemoryStore does not support nested transactions")
        store._local.active = True
        # The lock is held: the store's journal is this unit's from here on.
        store._journal = []
        store._refusing = False
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        store = self._store
        try:
            if kind is not None:
                self.rollback()
        finally:
            store._journal = []  # the records written are the store's now, not the journal's
            store._refusing = False
            store._local.active = False
            store._lock.release()
