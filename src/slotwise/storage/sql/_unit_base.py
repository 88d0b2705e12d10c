"""
What every unit of work of ``SQLStore`` shares: its connection, its store, failure translation.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from contextlib import suppress
from typing import Any, Protocol

from sqlalchemy import Connection, Engine

from slotwise.errors import ConflictError, DuplicateRecord, StoreError
from slotwise.storage.batched import ReadAgain
from slotwise.storage.protocol import R

from ._codec import decode
from ._dialect_base import Dialect
from ._riding import Queued, compiled_sql, direct_rows, send_all
from ._statements import _STATEMENTS

__all__ = ["UnitBase", "UnitHost", "ViewEnded"]

logger = logging.getLogger("slotwise.storage")


class ViewEnded(ReadAgain):
    """
    A read asked of a reader whose view already ended with the read announced as its last
    (``slotwise.storage.batched.last_read``); ``lagging_read`` then runs the read again.
    """


class UnitHost(Protocol):
    """What a unit of work needs of the store that opened it (``SQLStore``)."""

    @property
    def _dialect(self) -> Dialect: ...
    @property
    def _known_spans(self) -> dict[tuple[str, str], int]: ...
    @property
    def _lock_attempts(self) -> int: ...
    def _connect(
        self, options: dict[str, Any], doing: str, engine: Engine | None = None
    ) -> Connection: ...


class UnitBase:
    """A connection of one unit of work, and how its failures are reported."""

    def __init__(self, store: UnitHost, conn: Connection) -> None:
        self._store = store
        self._conn = conn
        self._failure: StoreError | None = None
        # Inserts of new records waiting to ride with the unit's next statement (PostgreSQL).
        self._queued = Queued()
        # BEGIN and the locks, waiting to ride with the unit's first statement (PostgreSQL).
        self._opening: list[str] = []
        self._riding = False
        # Whether this unit's reads run on the driver's cursor (``direct_rows``), not riding.
        self._direct = False
        # Reads asked for ahead, waiting to ride with the next round trip: (SQL, answered).
        self._ahead: list[tuple[str, Callable[[list[Any]], None]]] = []
        # A read's end (ROLLBACK), waiting to ride with its next round trip (``last_read``);
        # once it has, the view is over: nothing more may be sent.
        self._closing: list[str] = []
        self._ended = False
        # Records this unit of work read by id or wrote: a unit never reads one twice (a
        # booking asks for its company three times). Records are frozen values, so sharing
        # them is safe; the unit's own writes keep the entries current.
        self._known: dict[tuple[type[Any], str], Any] = {}

    def _rows(self, statement: Any, parameters: dict[str, Any] | None = None) -> Sequence[Any]:
        if self._riding:
            # Driver-level, with whatever waits to ride (BEGIN and the locks, queued inserts).
            try:
                read = compiled_sql(self._conn, statement, parameters or {})
            except Exception as error:
                raise self._failed(error, "reading") from error
            return self._send_queued([read])
        self._send_queued()
        try:
            if self._direct:
                return direct_rows(self._conn, statement, parameters or {})
            return self._conn.execute(statement, parameters).all()
        except Exception as error:
            raise self._failed(error, "reading") from error

    def _send_queued(self, tail: Sequence[str] = ()) -> list[Any]:
        """
        Send what waits to ride (``_riding``: BEGIN and the locks, queued inserts, reads asked
        for ahead) followed by *tail*, in one round trip; return the rows of *tail*'s last
        statement. Nothing is sent when there is nothing to send.

        Raises:
            DuplicateRecord: when a queued insert met an existing id (the unit is then failed).
        """
        if not self._queued and not tail and not self._opening and not self._ahead:
            return []
        if self._ended:
            raise ViewEnded(f"{self._store._dialect.name} store read after its view's last read")
        opening, self._opening = self._opening, []
        ahead, self._ahead = self._ahead, []
        closing, self._closing = self._closing, []
        writes = self._queued.take()
        statements = opening + writes + [sql for sql, _ in ahead] + list(tail) + closing
        try:
            # A lost connection is replaced only when the unit's first round trip does not
            # commit: nothing of the unit had run then.
            results = self._send_retrying(
                statements, retry=bool(opening), reconnect=bool(opening) and "COMMIT" not in tail
            )
        except Exception as error:
            duplicate = self._queued.duplicate(error)
            self._queued.records.clear()
            if duplicate is None:
                locking = opening and isinstance(
                    self._store._dialect.translate(error, ""), ConflictError
                )
                raise self._failed(error, "taking its locks" if locking else "writing") from error
            self._failed(error, "writing")  # the transaction is aborted: it must not commit
            raise DuplicateRecord(kind=duplicate[0], field="id", value=duplicate[1]) from error
        self._queued.records.clear()
        if closing:
            # Sent and answered, so run: the server ended the transaction (it stops a
            # query's statements at the first that fails, so a failed read leaves it open).
            self._ended = True
            results = results[: -len(closing)]
        first = len(opening) + len(writes)
        for (_, answered), rows in zip(ahead, results[first:], strict=False):
            answered(rows or [])
        return (results[-1] or []) if tail else []

    def _read_ahead(
        self, statement: Any, parameters: dict[str, Any], answered: Callable[[list[Any]], None]
    ) -> None:
        """
        Run a read whose answer can wait: riding, it goes with the unit's next round trip and
        *answered* gets its rows then; otherwise it runs now.
        """
        if not self._riding:
            answered(list(self._rows(statement, parameters)))
            return
        try:
            self._ahead.append((compiled_sql(self._conn, statement, parameters), answered))
        except Exception as error:
            raise self._failed(error, "reading") from error

    def _send_retrying(
        self, statements: list[str], *, retry: bool, reconnect: bool
    ) -> list[list[Any] | None]:
        """
        Send *statements*; with *retry* (they open the unit: nothing of it has been answered
        yet, so all of them can be sent again), a lock timeout or deadlock is retried as
        ``SQLStore`` retries taking its locks; with *reconnect* (they open the unit and do not
        commit it), a connection found lost (the server dropped it while it was pooled: the
        unit checked it out with no liveness ping) is replaced once and the statements sent on
        the new one. Nothing of them had taken effect: a transaction the server was running
        when the connection was lost never committed.
        """
        attempts = self._store._lock_attempts if retry else 1
        failures = 0
        while True:
            try:
                return send_all(self._conn, statements)
            except Exception as error:
                lost = getattr(error, "connection_invalidated", False)
                if reconnect and lost and self._reconnected(error):
                    reconnect = False
                    continue
                failures += 1
                failure = self._store._dialect.translate(error, "taking its locks")
                if not isinstance(failure, ConflictError) or failures >= attempts:
                    raise
                self._store._dialect.abort(self._conn)
                logger.warning(
                    "%s store: taking the locks failed (%s); retry %d of %d",
                    self._store._dialect.name,
                    failure.message,
                    failures,
                    attempts - 1,
                )

    def _reconnected(self, error: Exception) -> bool:
        """
        Replace the unit's lost connection by one checked out with its liveness ping; tell
        whether that worked (if not, *error* stands: the server is unavailable).
        """
        store = self._store
        try:
            fresh = store._connect(store._dialect.write_options(), "opening a unit of work")
        except StoreError:
            return False
        logger.warning(
            "%s store: the connection was lost before the unit of work began (%s); "
            "its first statements were sent again on another",
            store._dialect.name,
            (str(getattr(error, "orig", error)).strip().splitlines() or [""])[0],
        )
        lost, self._conn = self._conn, fresh
        with suppress(Exception):  # invalidated: the pool discards it
            lost.close()
        return True

    def _failed(self, error: Exception, doing: str) -> StoreError:
        failure = self._store._dialect.translate(error, doing)
        if self._failure is None:
            self._failure = failure
        return failure

    def _records(
        self, kind: type[R], statement: Any, parameters: dict[str, Any] | None = None
    ) -> list[R]:
        return [decode(kind, row[0]) for row in self._rows(statement, parameters)]

    def _statements(self, kind: type[Any]) -> dict[str, Any]:
        statements = _STATEMENTS.get(kind)
        if statements is None:
            raise StoreError(f"{kind.__name__} is not a record kind slotwise stores")
        return statements
