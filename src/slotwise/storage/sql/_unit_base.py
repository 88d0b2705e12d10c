"""
What every unit of work of ``SQLStore`` shares: its connection, its store, failure translation.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from sqlalchemy import Connection

from slotwise.errors import DuplicateRecord, StoreError
from slotwise.storage.protocol import R

from ._codec import decode
from ._dialect_base import Dialect
from ._riding import Queued, send
from ._statements import _STATEMENTS

__all__ = ["UnitBase", "UnitHost"]


class UnitHost(Protocol):
    """What a unit of work needs of the store that opened it (``SQLStore``)."""

    @property
    def _dialect(self) -> Dialect: ...
    @property
    def _known_spans(self) -> dict[tuple[str, str], int]: ...


class UnitBase:
    """A connection of one unit of work, and how its failures are reported."""

    def __init__(self, store: UnitHost, conn: Connection) -> None:
        self._store = store
        self._conn = conn
        self._failure: StoreError | None = None
        # Inserts of new records waiting to ride with the unit's next statement (PostgreSQL).
        self._queued = Queued()
        # Records this unit of work read by id or wrote: a unit never reads one twice (a
        # booking asks for its company three times). Records are frozen values, so sharing
        # them is safe; the unit's own writes keep the entries current.
        self._known: dict[tuple[type[Any], str], Any] = {}

    def _rows(self, statement: Any, parameters: dict[str, Any] | None = None) -> Sequence[Any]:
        self._send_queued()
        try:
            return self._conn.execute(statement, parameters).all()
        except Exception as error:
            raise self._failed(error, "reading") from error

    def _send_queued(self, tail: Sequence[str] = ()) -> list[Any]:
        """
        Send the writes queued to ride (``_riding``) followed by *tail*, in one round trip;
        return the rows of the last statement. Nothing is sent when there is nothing to send.

        Raises:
            DuplicateRecord: when a queued insert met an existing id (the unit is then failed).
        """
        if not self._queued and not tail:
            return []
        try:
            rows = send(self._conn, self._queued.take() + list(tail))
        except Exception as error:
            duplicate = self._queued.duplicate(error)
            self._queued.records.clear()
            if duplicate is None:
                raise self._failed(error, "writing") from error
            self._failed(error, "writing")  # the transaction is aborted: it must not commit
            raise DuplicateRecord(kind=duplicate[0], field="id", value=duplicate[1]) from error
        self._queued.records.clear()
        return rows

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
