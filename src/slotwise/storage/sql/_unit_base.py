"""
What every unit of work of ``SQLStore`` shares: its connection, its store, failure translation.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from sqlalchemy import Connection

from slotwise.errors import StoreError
from slotwise.storage.protocol import R

from ._codec import decode
from ._dialects import Dialect
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
        # Records this unit of work read by id or wrote: a unit never reads one twice (a
        # booking asks for its company three times). Records are frozen values, so sharing
        # them is safe; the unit's own writes keep the entries current.
        self._known: dict[tuple[type[Any], str], Any] = {}

    def _rows(self, statement: Any, parameters: dict[str, Any] | None = None) -> Sequence[Any]:
        try:
            return self._conn.execute(statement, parameters).all()
        except Exception as error:
            raise self._failed(error, "reading") from error

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
