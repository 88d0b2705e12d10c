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

On psycopg, each database connection keeps the two cursors these functions use (the pool's
``info`` of the connection), with the adapters they looked up: made afresh for every statement,
they cost a PostgreSQL week's read about a sixth of its client time (issue 23).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from contextlib import suppress
from typing import Any

from sqlalchemy import Connection, exc
from sqlalchemy.pool import StaticPool

from ._binding import bound

__all__ = ["Queued", "compiled_sql", "direct_rows", "direct_sql", "send", "send_all"]

# Drivers that keep every statement's result of a multi-statement query (psycopg 2 keeps the last).
_MULTI_RESULT = frozenset({"psycopg", "pymysql"})
# Where a connection's kept cursors are, in the pool's per-connection ``info`` (``_kept_cursor``).
_CLIENT_CURSOR = "slotwise.client_cursor"
_DRIVER_CURSOR = "slotwise.driver_cursor"
# The most rows a kept cursor may hold between statements: a booking's or a week's reads (tens
# of documents of about a kilobyte), not a long list's.
_KEPT_ROWS = 100
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
    # PyMySQL binds on the client anyway (its own cursor's quoting, as every query it sends).
    make = _driver_cursor if conn.dialect.driver == "pymysql" else _client_cursor
    cursor, kept = _cursor(conn, driver, _CLIENT_CURSOR, make)
    try:
        rendered: str = cursor.mogrify(sql, parameters)
    finally:
        if not kept:
            cursor.close()
    return rendered


def _keeps_cursors(conn: Connection) -> bool:
    """
    Whether *conn*'s database connection keeps its cursors: on psycopg, unless the engine's
    pool is a ``StaticPool``, which hands its one connection to every thread at once (a kept
    cursor would then be shared, and one thread's query would reset another's results).
    """
    return conn.dialect.driver == "psycopg" and not isinstance(conn.engine.pool, StaticPool)


def _kept_cursor(conn: Connection, driver: Any, key: str, make: Callable[[Any], Any]) -> Any:
    """
    The driver cursor of *conn*'s database connection kept under *key*, made by *make* from
    the driver connection once per connection, not once per statement (a booking sends three
    queries and renders seven statements; a cursor made for each copies the connection's
    adapters and looks every dumper up again). It lives in the pool's dictionary of the
    connection (``info``), which the pool clears when it replaces a lost connection; the
    identity check covers any other way the entry could be handed another driver connection.
    Only for a connection used by one thread at a time (:func:`_keeps_cursors`), and so is its
    cursor.
    """
    info = conn.connection.info
    cursor = info.get(key)
    if cursor is None or cursor.connection is not driver:
        cursor = info[key] = make(driver)
    return cursor


def _client_cursor(driver: Any) -> Any:
    """A psycopg cursor that binds on the client (``mogrify``)."""
    import psycopg

    return psycopg.ClientCursor(driver)


def _driver_cursor(driver: Any) -> Any:
    """The driver's own cursor."""
    return driver.cursor()


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
    cursor: Any = None
    kept = False
    rows: list[Any] = []
    finished = False  # a cursor that met an error (or was interrupted) is not kept
    try:
        # Made inside: a driver that already knows its connection is lost refuses a cursor,
        # and that error is wrapped (the connection invalidated) as a failed statement's is.
        cursor, kept = _cursor(conn, driver)
        dispatch = conn.dispatch
        if dispatch.before_cursor_execute:
            dispatch.before_cursor_execute(conn, cursor, sql, parameters, None, False)
        cursor.execute(sql, parameters)
        rows = list(cursor.fetchall()) if cursor.description is not None else []
        if dispatch.after_cursor_execute:
            dispatch.after_cursor_execute(conn, cursor, sql, parameters, None, False)
        finished = True
        return rows
    except conn.dialect.loaded_dbapi.Error as error:
        raise _wrapped(conn, error, driver, cursor, sql) from error
    finally:
        if cursor is not None:
            _done(conn, cursor, kept and finished and len(rows) <= _KEPT_ROWS)


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
    cursor: Any = None
    kept = False
    results: list[list[Any] | None] = []
    finished = False  # a cursor that met an error (or was interrupted) is not kept
    try:
        cursor, kept = _cursor(conn, driver)  # inside: see direct_sql
        # SQLAlchemy's cursor events see each statement (with no parameters and no execution
        # context: they went below SQLAlchemy), so a host's statement logging still sees them.
        dispatch = conn.dispatch
        if dispatch.before_cursor_execute:
            for statement in statements:
                dispatch.before_cursor_execute(conn, cursor, statement, None, None, False)
        cursor.execute(joined)
        if dispatch.after_cursor_execute:
            for statement in statements:
                dispatch.after_cursor_execute(conn, cursor, statement, None, None, False)
        while True:
            results.append(list(cursor.fetchall()) if cursor.description is not None else None)
            if conn.dialect.driver not in _MULTI_RESULT or not cursor.nextset():
                finished = True
                return results
    except conn.dialect.loaded_dbapi.Error as error:
        raise _wrapped(conn, error, driver, cursor, joined) from error
    finally:
        if cursor is not None:
            rows = sum(map(len, filter(None, results)))
            _done(conn, cursor, kept and finished and rows <= _KEPT_ROWS)


def _cursor(
    conn: Connection,
    driver: Any,
    key: str = _DRIVER_CURSOR,
    make: Callable[[Any], Any] = _driver_cursor,
) -> tuple[Any, bool]:
    """
    The driver cursor to use (made by *make*), and whether it is *conn*'s kept one under *key*
    (psycopg).
    """
    if _keeps_cursors(conn):
        return _kept_cursor(conn, driver, key, make), True
    return make(driver), False


def _done(conn: Connection, cursor: Any, keep: bool) -> None:
    """
    Close a cursor after its statements, unless it is to be kept for the connection's next
    ones (*keep*: psycopg, no error, a small result). A kept cursor holds its last result until
    its next statement, so one that read more than ``_KEPT_ROWS`` rows, or met an error, is
    closed and made again next time.
    """
    if keep:
        return
    # An invalidated connection's info went with it (and asking for ``conn.connection`` then
    # would open a new one).
    if not conn.invalidated:
        info = conn.connection.info
        if info.get(_DRIVER_CURSOR) is cursor:
            del info[_DRIVER_CURSOR]
    with suppress(Exception):  # after a lost connection there is nothing left to close
        cursor.close()
