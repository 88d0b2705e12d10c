"""
The life of one ``SQLStore`` unit of work on its connection: begun with its locks (lock
timeouts and deadlocks retried), committed with its last queued writes, or rolled back so that
nothing is written; and, after a commit, the primary's position for a client's consistency
token.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager, nullcontext
from typing import TYPE_CHECKING, Any

from sqlalchemy import Connection

from slotwise.errors import ConflictError, SlotwiseError, StoreError
from slotwise.storage.replicas import Consistency, current_consistency

from ._operating import unpinged
from ._writes import SQLTransaction

if TYPE_CHECKING:
    from ._dialects import Dialect
    from ._replicas import ReplicaSet
    from ._replication import Replication
    from ._store import SQLStore

__all__ = ["UnitLifecycle"]

logger = logging.getLogger("slotwise.storage")


class UnitLifecycle:
    """
    Runs the units of work of one store: one at a time per thread, and on SQLite one at a time
    per process (its threads queue on a lock, woken at once, instead of polling the database's
    busy handler, which sleeps up to 100 ms).
    """

    def __init__(
        self,
        store: SQLStore,
        *,
        lock_attempts: int,
        lock_timeout: float,
        replicas: Callable[[], ReplicaSet | None],
    ) -> None:
        self._store = store
        self._dialect: Dialect = store._dialect
        self._lock_attempts = lock_attempts
        self._replicas = replicas
        self._local = threading.local()
        self._writers = threading.Lock() if self._dialect.name == "SQLite" else None
        self._gate_timeout = lock_timeout * lock_attempts

    @contextmanager
    def run(self, names: Sequence[str]) -> Iterator[SQLTransaction]:
        """Run one unit of work holding the locks *names*; commit on normal exit."""
        if getattr(self._local, "active", False):
            raise StoreError("SQLStore does not support nested units of work on one thread")
        self._local.active = True
        gate = self._writers
        try:
            if gate is not None and not gate.acquire(timeout=self._gate_timeout):
                raise ConflictError(
                    f"{self._dialect.name} store: another thread kept the write lock for "
                    f"{self._gate_timeout:g} s"
                )
            try:
                store = self._store
                # A riding unit's first round trip is sent again on another connection when
                # this one turns out lost (_unit_base), so it needs no liveness ping first.
                riding = self._dialect.rides(store.engine)
                with unpinged() if riding else nullcontext():
                    conn = store._connect(self._dialect.write_options(), "opening a unit of work")
                tx = SQLTransaction(store, conn)
                try:
                    if riding:  # BEGIN and locks ride (and retry) later
                        tx._opening = self._dialect.opening(names)
                        tx._riding = True
                    else:
                        self._begin(conn, names)
                    try:
                        yield tx
                    except BaseException:
                        self._rollback(tx._conn, tx)
                        raise
                    self._commit(tx._conn, tx)
                finally:
                    tx._conn.close()  # the unit's connection: another if the first was lost
            finally:
                if gate is not None:
                    gate.release()
        finally:
            self._local.active = False

    def _begin(self, conn: Connection, names: Sequence[str]) -> None:
        """Begin the unit of work and take its locks, retrying lock timeouts and deadlocks."""
        failures = 0
        # One extra round for MariaDB, which may first have to create a lock row.
        for _ in range(self._lock_attempts + 1):
            try:
                if self._dialect.begin_write(conn, names):
                    return
            except Exception as error:
                failure = self._dialect.translate(error, "taking its locks")
                self._store._abandon(conn)
                failures += 1
                if not isinstance(failure, ConflictError) or failures >= self._lock_attempts:
                    raise failure from error
                logger.warning(
                    "%s store: taking the locks %s failed (%s); retry %d of %d",
                    self._dialect.name,
                    list(names),
                    failure.message,
                    failures,
                    self._lock_attempts - 1,
                )
        raise ConflictError(f"{self._dialect.name} store could not take the locks {names}")

    def _commit(self, conn: Connection, tx: SQLTransaction) -> None:
        failure = tx._failure
        if failure is not None:
            # A statement failed and the caller went on: the database may already have
            # abandoned the transaction (PostgreSQL, a MariaDB deadlock), so never commit it.
            self._rollback(conn, tx)
            raise type(failure)(
                f"{failure.message}; the unit of work was rolled back, nothing was written"
            ) from failure
        try:
            if tx._queued:
                tx._send_queued(["COMMIT"])  # the unit's last writes and its commit together
            elif tx._opening:
                tx._opening = []  # the unit sent nothing at all: there is nothing to commit
            else:
                self._dialect.commit(conn)
        except SlotwiseError:
            self._rollback(conn, tx)  # a queued write failed (DuplicateRecord...): as it is
            raise
        except Exception as error:
            self._rollback(conn, tx)
            raise self._dialect.translate(error, "committing") from error
        known: dict[tuple[str, str], Any] = self._store._known_spans
        for key, length in tx._new_spans:
            known[key] = max(length, known.get(key, 0))
        replicas = self._replicas()
        consistency = current_consistency()
        if replicas is not None and consistency is not None:
            _note_position(conn, consistency, replicas.replication)

    def _rollback(self, conn: Connection, tx: SQLTransaction) -> None:
        try:
            self._dialect.rollback(conn, drawn=tx._drawn)
        except Exception:
            # The connection is broken (the server ended the session): nothing was committed,
            # and the pool must not hand this connection out again.
            self._store._abandon(conn)


def _note_position(conn: Connection, consistency: Consistency, replication: Replication) -> None:
    """Raise *consistency*'s token to the primary's position after a commit."""
    try:
        position = replication.committed(conn)
    except Exception as error:
        # The write is committed: never report it as failed. Without a token the client's
        # next read may come from a replica that has not replayed it yet (logged).
        logger.warning("could not read the primary's position after a commit: %s", error)
        return
    if position is not None:
        consistency.written(position)
