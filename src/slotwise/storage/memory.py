"""
MemoryStore: the default store, in process memory, with no dependencies.
"""

from __future__ import annotations

import threading
from collections.abc import Collection, Iterator
from contextlib import contextmanager

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

    @contextmanager
    def transaction(self, *, locks: Collection[str] = ()) -> Iterator[MemoryTransaction]:
        """Hold the store's lock for one unit of work; undo its writes if it raises."""
        del locks  # the store-wide lock already serialises every unit of work
        with self._lock:
            if getattr(self._local, "active", False):
                raise StoreError("MemoryStore does not support nested transactions")
            self._local.active = True
            tx = MemoryTransaction(self)
            try:
                yield tx
            except BaseException:
                tx.rollback()
                raise
            finally:
                self._local.active = False
