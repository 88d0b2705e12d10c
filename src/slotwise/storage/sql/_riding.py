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

from ._binding import bound

__all__ = ["Queued", "compiled_sql", "direct_rows", "direct_sql", "send", "send_all"]

# Drivers that keep every statement's result of a multi-statement query (psycopg 2 keeps the last).
_MULTI_RESULT = frozenset({"psycopg", "pymysql"})
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
    Return *statement* with *values* as one line of SQL for *conn*'s PostgreSQL (psycopg 3) or
    MariaDB (PyMySQL) connection: the SQLAlchemy statement compiled once (the store's schema
    written in), its values converted by the columns' types and bound by the driver on the
    client.
    """
    sql, parameters = bound(conn, statement, values)
    driver = conn.connection.driver_connection
    assert driver is not None
    if conn.dialect.driver == "pymysql":
        # PyMySQL binds on the client anyway: its own quoting, as every query it sends.
        with driver.cursor() as cursor:
            mogrified: str = cursor.mogrify(sql, parameters)
        return mogrified
    import psycopg

    rendered: str = psycopg.ClientCursor(driver).mogrify(sql, parameters)
    return rendered


def direct_rows(conn: Connection, statement: Any, values: dict[str, Any]) -> list[Any]:
    """
    Run *statement* with *values* on *conn*'s driver cursor and return its rows as the driver
    gives them: compiled once as :func:`compiled_sql` is, without SQLAlchemy's per-execution
    work (for reads whose columns need no result processing: text, integers).

    Raises:
        sqlalchemy.exc.DBAPIError: wrapping the driver's error, as :func:`send_all` does.
    """
    sql, parameters = bound(conn, statement, values)
    return direct_sql(conn, sql, parameters)


def direct_sql(conn: Connection, sql: str, parameters: Any = ()) -> list[Any]:
    """
    Run the final SQL text *sql* (the driver's parameter style, *parameters* already converted)
    on *conn*'s driver cursor and return its rows: :func:`direct_rows` once bound, and what a
    fixed statement (SQLite's ``BEGIN`` and ``ROLLBACK``) runs directly.

    Raises:
        sqlalchemy.exc.DBAPIError: wrapping the driver's error, as :func:`send_all` does.
    """
    driver = conn.connection.driver_connection
    assert driver is not None
    cursor = driver.cursor()
    dispatch = conn.dispatch
    if dispatch.before_cursor_execute:
        dispatch.before_cursor_execute(conn, cursor, sql, parameters, None, False)
    try:
        cursor.execute(sql, parameters)
        rows = list(cursor.fetchall()) if cursor.description is not None else []
        if dispatch.after_cursor_execute:
            dispatch.after_cursor_execute(conn, cursor, sql, parameters, None, False)
        return rows
    except conn.dialect.loaded_dbapi.Error as error:
        raise _wrapped(conn, error, driver, cursor, sql) from error
    finally:
        with suppress(Exception):
            cursor.close()


def _wrapped(conn: Connection, error: Any, driver: Any, cursor: Any, sql: str) -> Any:
    """The driver's *error* as SQLAlchemy reports a statement it ran: a lost connection invalidated."""
    lost = conn.dialect.is_disconnect(error, driver, cursor)
    if lost:
        conn.invalidate(error)
    return exc.DBAPIError.instance(
        sql[:200],
        None,
        error,
        conn.dialect.loaded_dbapi.Error,
        connection_invalidated=lost,
        dialect=conn.dialect,
    )


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
            if conn.dialect.driver not in _MULTI_RESULT or not cursor.nextset():
                return results
    except conn.dialect.loaded_dbapi.Error as error:
        raise _wrapped(conn, error, driver, cursor, joined) from error
    finally:
        with suppress(Exception):  # after a lost connection there is nothing left to close
            cursor.close()
