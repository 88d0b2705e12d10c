"""
Writes that ride with the next statement (PostgreSQL): a unit of work's inserts of new records
sent in the same round trip as its next read or its ``COMMIT`` (decision 49).

A write whose answer nobody waits for (an insert of a record with a newly generated id, its
resource rows and span rows) is rendered at once to SQL with its values as literals -- by
psycopg's own client-side binding (``ClientCursor.mogrify``), the quoting the driver itself uses
-- and queued. The next statement that needs an answer carries the queue in front of it, as one
simple-protocol query of several statements: one round trip for all of them, nothing prepared on
the server (a transaction-mode pooler sees ordinary queries). PostgreSQL runs them in order and
stops at the first that fails; the transaction is then aborted, so nothing after the failure, and
nothing of the unit, is ever committed.
"""

from __future__ import annotations

import re
from contextlib import suppress
from typing import Any

from sqlalchemy import Connection, exc

__all__ = ["Queued", "compiled_sql", "send", "send_all"]

# The statements compiled for the hot path, per (statement, columns, schema map).
_COMPILED: dict[tuple[Any, tuple[str, ...], tuple[tuple[Any, Any], ...]], Any] = {}
# "Key (id)=(abc) already exists." -- the id of the row a unique violation met.
_KEY = re.compile(r"Key \(id\)=\((?P<id>.*)\) already exists")


class Queued:
    """The writes a unit of work has queued, and the new records among them (for errors)."""

    def __init__(self) -> None:
        self.sql: list[str] = []
        self.records: list[tuple[str, str, str]] = []
        """(table name, kind name, id) of each queued insert of a record."""

    def __bool__(self) -> bool:
        return bool(self.sql)

    def take(self) -> list[str]:
        """Return the queued statements and forget them (they are being sent)."""
        sent, self.sql = self.sql, []
        return sent

    def duplicate(self, error: BaseException) -> tuple[str, str] | None:
        """
        Return the (kind name, id) of the queued record a unique violation *error* is about, or
        ``None`` when it is about something else.
        """
        orig = getattr(error, "orig", error)
        if getattr(orig, "sqlstate", None) != "23505":
            return None
        diag = getattr(orig, "diag", None)
        table = getattr(diag, "table_name", None)
        found = _KEY.search(getattr(diag, "message_detail", None) or "")
        for name, kind, record_id in self.records:
            if name == table and (found is None or found.group("id") == record_id):
                return kind, record_id
        return None


def compiled_sql(conn: Connection, statement: Any, values: dict[str, Any]) -> str:
    """
    Return *statement* with *values* as one line of SQL for *conn*'s PostgreSQL connection: the
    SQLAlchemy statement compiled once (the store's schema written in), its values converted by
    the columns' types and bound by psycopg on the client.
    """
    import psycopg

    translate = conn.get_execution_options().get("schema_translate_map") or {}
    # Keyed by the statement itself (kept alive: an id could be reused), bounded.
    key = (statement, tuple(values), tuple(sorted(translate.items(), key=repr)))
    compiled = _COMPILED.get(key)
    if compiled is None:
        if len(_COMPILED) >= 1024:
            _COMPILED.clear()
        compiled = _COMPILED[key] = statement.compile(
            dialect=conn.dialect,
            column_keys=list(values),
            schema_translate_map=translate or None,
            render_schema_translate=bool(translate),
        )
    # IN lists expanded to one parameter per value, as SQLAlchemy does when it runs one.
    expanded = compiled.construct_expanded_state(values)
    parameters = dict(expanded.parameters)
    # The columns' own conversions (Instant to UTC), as SQLAlchemy applies them.
    for convert_all in (compiled._bind_processors, expanded.processors):
        for name, convert in convert_all.items():
            if name in parameters:
                parameters[name] = convert(parameters[name])
    driver = conn.connection.driver_connection
    assert driver is not None
    rendered: str = psycopg.ClientCursor(driver).mogrify(expanded.statement, parameters)
    return rendered


def send(conn: Connection, statements: list[str]) -> list[Any]:
    """
    Send *statements* in one simple-protocol query (one round trip); return the rows of the
    last one (empty when it returns none). See :func:`send_all`.
    """
    return send_all(conn, statements)[-1] or []


def send_all(conn: Connection, statements: list[str]) -> list[list[Any] | None]:
    """
    Send *statements* in one simple-protocol query (one round trip); return each one's rows
    (``None`` for a statement that returns none), in order (psycopg 3: psycopg 2 keeps only the
    last statement's).

    Raises:
        sqlalchemy.exc.DBAPIError: wrapping the driver's error for the first statement that
            failed (the rest did not run); the connection is invalidated when it was lost.
    """
    joined = "; ".join(statements)
    driver = conn.connection.driver_connection
    assert driver is not None
    cursor = driver.cursor()
    # SQLAlchemy's cursor events see each statement (with no parameters and no execution
    # context: they went below SQLAlchemy), so a host's statement logging still sees them.
    dispatch = conn.dispatch
    if dispatch.before_cursor_execute:
        for statement in statements:
            dispatch.before_cursor_execute(conn, cursor, statement, None, None, False)
    try:
        cursor.execute(joined)
        if dispatch.after_cursor_execute:
            for statement in statements:
                dispatch.after_cursor_execute(conn, cursor, statement, None, None, False)
        results: list[list[Any] | None] = []
        while True:
            results.append(list(cursor.fetchall()) if cursor.description is not None else None)
            if conn.dialect.driver != "psycopg" or not cursor.nextset():
                return results
    except conn.dialect.loaded_dbapi.Error as error:
        # As SQLAlchemy reports a statement it ran: wrapped, a lost connection invalidated.
        lost = conn.dialect.is_disconnect(error, driver, cursor)
        if lost:
            conn.invalidate(error)
        raise exc.DBAPIError.instance(
            joined[:200],
            None,
            error,
            conn.dialect.loaded_dbapi.Error,
            connection_invalidated=lost,
            dialect=conn.dialect,
        ) from error
    finally:
        with suppress(Exception):  # after a lost connection there is nothing left to close
            cursor.close()
