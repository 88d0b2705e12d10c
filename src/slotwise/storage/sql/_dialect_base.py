"""
The part of ``SQLStore``'s per-database support every database shares (``_dialects.py`` holds
each database's own).
"""

from __future__ import annotations

from collections.abc import Collection, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from sqlalchemy import Connection, Engine, Table, exc

from slotwise.errors import ConflictError, StoreError, StoreUnavailable

from ._schema import outbox_sequence

__all__ = ["Dialect"]


class Dialect:
    """The per-database part of ``SQLStore``; one instance per store."""

    name = "sql"
    numbers_at_insert = False
    """Whether an outbox event's insert can draw its number itself outside riding (MariaDB);
    SQLite's counter is a row, and PostgreSQL numbers at insert only when it rides (psycopg 3)."""
    supports_schema = True

    def __init__(
        self,
        *,
        namespace: str,
        lock_timeout: float,
        idle_timeout: float,
        pool_mode: str = "session",
    ) -> None:
        self.namespace = namespace
        self.lock_timeout = lock_timeout
        self.idle_timeout = idle_timeout
        self.pool_mode = pool_mode
        # Statements built once per table and run with parameters: building `.values(...)`
        # per call would cost SQLAlchemy a new cache key each time.
        self._inserts: dict[Table, Any] = {}
        self._ignoring: dict[Table, Any] = {}

    # -- connections and units of work -----------------------------------------------------

    def write_options(self) -> dict[str, Any]:
        """Execution options of a connection running a unit of work."""
        return {}

    def read_options(self, driver: str | None = None) -> dict[str, Any]:
        """
        Execution options of a connection running a read; *driver* names the connection's
        driver when the read may ride (see :meth:`read_opening`), else ``None``.
        """
        del driver
        return {}

    def configure(self, conn: Connection) -> None:
        """Prepare a newly checked-out connection (per DBAPI connection settings)."""

    def begin_read(self, conn: Connection) -> None:
        """Start a read-only transaction with one consistent snapshot."""

    def reads_direct(self, conn: Connection) -> bool:
        """
        Whether a read on *conn* runs its statements on the driver's cursor (``direct_rows``),
        compiled once, rather than through SQLAlchemy's execution (SQLite's ``sqlite3``,
        PyMySQL: drivers whose rows need no conversion for what a reader selects).
        """
        return conn.dialect.driver in ("pysqlite", "pymysql")

    def read_opening(self, conn: Connection) -> list[str]:
        """
        The statements beginning a read that ride with its first statement (``_riding``), on a
        connection opened with ``read_options(driver)``; empty: :meth:`begin_read` begins it.
        """
        del conn
        return []

    def reads_ride(self, engine: Engine) -> bool:
        """
        Whether every read on *engine* rides (:meth:`read_opening` gives statements): its
        first round trip then finds a connection lost while pooled and sends itself again on
        another (``_unit_base``), so a read needs no liveness ping at checkout.
        """
        del engine
        return False

    def ends_reads(self, conn: Connection) -> bool:
        """
        Whether a riding read on *conn* may send its ``ROLLBACK`` with its last read
        (``last_read``): the connection is then released with nothing more sent.
        """
        del conn
        return False

    def ended(self, conn: Connection) -> None:
        """Note that the read on *conn* ended its transaction itself, before *conn* is released."""

    def begin_write(self, conn: Connection, names: Collection[str]) -> bool:
        """
        Start a unit of work and take the locks *names*.

        Returns:
            ``False`` when the unit must be rolled back and begun again (a lock row had to be
            created first); the caller retries.
        """
        raise NotImplementedError

    def rides(self, bind: Connection | Engine) -> bool:
        """
        Whether units of work on *bind* send BEGIN and the locks with their first statement, and
        new records with a later one (``_riding``); then :meth:`opening` gives the statements.
        """
        del bind
        return False

    def opening(self, names: Collection[str]) -> list[str]:
        """The statements beginning a unit of work holding *names*, when :meth:`rides`."""
        raise NotImplementedError

    def commit(self, conn: Connection) -> None:
        """Commit the unit of work."""
        conn.commit()

    def rollback(self, conn: Connection, *, drawn: int | None) -> None:
        """Roll the unit of work back; *drawn* is the highest sequence number it drew."""
        del drawn  # a database sequence is not rolled back
        self.abort(conn)

    def abort(self, conn: Connection) -> None:
        """Roll back whatever is open on *conn* (a unit of work or a read)."""
        conn.rollback()

    def releases(self, conn: Connection) -> bool:
        """
        Roll back whatever is open on *conn* and close it in one step, if this database has a
        cheaper way than :meth:`abort` then ``close()``; tell whether it did.
        """
        del conn
        return False

    # -- writes ------------------------------------------------------------------------------

    def insert_record(self, conn: Connection, table: Table, values: dict[str, Any]) -> bool:
        """Insert a record row; return ``False`` (writing nothing) when its id exists."""
        statement = self._inserts.get(table)
        if statement is None:
            statement = self._inserts[table] = self._insert_statement(table)
        return self._inserted(conn, statement, values)

    def insert_numbered(self, conn: Connection, statement: Any, values: dict[str, Any]) -> bool:
        """
        Run *statement*, an insert of an outbox event that draws its sequence number as it
        writes the row (where :attr:`numbers_at_insert`); return whether the row was written
        (``False``: its id exists).
        """
        return self._inserted(conn, statement, values)

    def insert_ignoring_duplicates(
        self, conn: Connection, table: Table, rows: Sequence[dict[str, Any]]
    ) -> None:
        """Insert *rows*, skipping those whose key exists (rows must be in key order)."""
        conn.execute(self.ignoring(table), list(rows))

    def ignoring(self, table: Table) -> Any:
        """The insert into *table* that skips a row whose key exists (built once)."""
        statement = self._ignoring.get(table)
        if statement is None:
            statement = self._ignoring[table] = self._ignoring_statement(table)
        return statement

    def _insert_statement(self, table: Table) -> Any:
        """The insert of one record row that reports a duplicate id (see :meth:`_inserted`)."""
        raise NotImplementedError

    def _inserted(self, conn: Connection, statement: Any, values: dict[str, Any]) -> bool:
        """Run the insert; tell whether the row was written."""
        return conn.execute(statement, values).first() is not None

    def _ignoring_statement(self, table: Table) -> Any:
        """An insert that skips rows whose key exists."""
        raise NotImplementedError

    def next_sequence(self, conn: Connection) -> int:
        """Draw the next outbox sequence number."""
        value = conn.scalar(outbox_sequence.next_value())
        assert value is not None
        return int(value)

    # -- schema ------------------------------------------------------------------------------

    @contextmanager
    def schema_guard(self, conn: Connection) -> Iterator[None]:
        """Hold a lock while the tables are created or upgraded (processes start at once)."""
        yield

    def create_schema(self, conn: Connection, schema: str) -> None:
        """Create the schema (PostgreSQL) or database (MariaDB) *schema* if it is missing."""

    # -- errors ------------------------------------------------------------------------------

    def classify(self, error: exc.DBAPIError) -> type[StoreError]:
        """Return the slotwise error class a driver error maps to."""
        return StoreError

    def translate(self, error: BaseException, doing: str) -> StoreError:
        """Return the typed slotwise error for a driver (or SQLAlchemy) *error*."""
        if isinstance(error, exc.DBAPIError):
            if error.connection_invalidated:
                kind: type[StoreError] = StoreUnavailable
            else:
                kind = self.classify(error)
            detail = str(error.orig).strip().splitlines()[0] if error.orig else str(error)
        else:
            # Not wrapped by SQLAlchemy: a driver refusing a value (UnicodeEncodeError...).
            kind = StoreError
            detail = f"{type(error).__name__}: {str(error).strip()[:200]}"
        reason = {
            ConflictError: "conflicted with a concurrent unit of work; retrying may succeed",
            StoreUnavailable: "could not reach the database",
        }.get(kind, "failed")
        return kind(f"{self.name} store {doing} {reason}: {detail}")
