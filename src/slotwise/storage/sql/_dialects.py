"""
What differs per database: how a unit of work begins and takes its locks, how sequence numbers
are drawn, how an insert reports a duplicate id, and which driver errors mean what.

* **SQLite** serialises writers itself: every unit of work starts with ``BEGIN IMMEDIATE``,
  which takes the database's one write lock up front (waiting up to the busy timeout), so the
  capacity check and the write of two bookings can never interleave, whatever their locks. The
  journal is a write-ahead log (readers never block the writer) synced on every commit
  (``synchronous=FULL``).
* **PostgreSQL** writers run at READ COMMITTED and take one transaction-scoped advisory lock per
  lock name (``pg_advisory_xact_lock``) before the block runs, in one global order; each
  statement after that sees everything committed before the lock was granted. Readers use a
  REPEATABLE READ, READ ONLY snapshot. Nothing outlives a transaction on the server, so a
  transaction-mode pooler works (``pool_mode="transaction"``: no psycopg prepares).
* **MariaDB** writers run at READ COMMITTED and lock one row per lock name in
  ``slotwise_lock`` with ``SELECT ... FOR UPDATE`` in key order. Readers use a REPEATABLE READ,
  READ ONLY snapshot.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Collection, Iterator
from contextlib import contextmanager, suppress
from typing import Any

from sqlalchemy import (
    BigInteger,
    Connection,
    Engine,
    Table,
    bindparam,
    cast,
    exc,
    func,
    insert,
    select,
)
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert

from slotwise.errors import ConflictError, StoreError, StoreUnavailable

from ._dialect_base import Dialect
from ._operating import ENDED_VIEW, RESETS_ITSELF, statement_pooling
from ._riding import direct_sql, send
from ._schema import counters, locks, lookup_key

__all__ = ["Dialect", "MariaDB", "PostgreSQL", "SQLite", "dialect_for"]

_OUTBOX_COUNTER = "outbox"


class SQLite(Dialect):
    """
    SQLite through the standard library's ``sqlite3`` (a database file, not ``:memory:``).

    The connection runs in driver autocommit mode and the store writes ``BEGIN IMMEDIATE``,
    ``BEGIN``, ``COMMIT`` and ``ROLLBACK`` itself: ``sqlite3``'s legacy transaction handling
    would begin a transaction only at the first write, after the capacity check had read.
    Doing it per connection (rather than with engine-wide ``connect``/``begin`` event hooks)
    leaves a host application's own use of a shared engine as it was.
    """

    name = "SQLite"
    supports_schema = False
    # Busy codes: SQLITE_BUSY (5), SQLITE_LOCKED (6), including their extended codes.
    _BUSY = frozenset({5, 6})
    # SQLITE_READONLY, SQLITE_IOERR, SQLITE_CORRUPT, SQLITE_FULL, SQLITE_CANTOPEN, SQLITE_NOTADB.
    _UNAVAILABLE = frozenset({8, 10, 11, 13, 14, 26})

    def write_options(self) -> dict[str, Any]:
        return {"isolation_level": "AUTOCOMMIT"}

    def read_options(self, driver: str | None = None) -> dict[str, Any]:
        return {"isolation_level": "AUTOCOMMIT"}

    def configure(self, conn: Connection) -> None:
        info = conn.connection.info
        if info.get("slotwise.sqlite") is None:
            milliseconds = max(1, math.ceil(self.lock_timeout * 1000))
            conn.exec_driver_sql(f"PRAGMA busy_timeout = {milliseconds}")
            conn.exec_driver_sql("PRAGMA synchronous = FULL")
            info["slotwise.sqlite"] = True

    def begin_read(self, conn: Connection) -> None:
        # A deferred transaction: its first read pins one snapshot of the write-ahead log.
        # On the driver's cursor (``direct_sql``): no statement to compile or bind.
        direct_sql(conn, "BEGIN")

    def begin_write(self, conn: Connection, names: Collection[str]) -> bool:
        # The database's single write lock subsumes every named lock.
        del names
        conn.exec_driver_sql("BEGIN IMMEDIATE")
        # Rolling back to here keeps the write lock, so drawn sequence numbers can be kept.
        conn.exec_driver_sql("SAVEPOINT slotwise_unit")
        return True

    def commit(self, conn: Connection) -> None:
        conn.exec_driver_sql("COMMIT")

    def abort(self, conn: Connection) -> None:
        if conn.connection.driver_connection.in_transaction:  # type: ignore[union-attr]
            direct_sql(conn, "ROLLBACK")

    def rollback(self, conn: Connection, *, drawn: int | None) -> None:
        if drawn is None:
            conn.exec_driver_sql("ROLLBACK")
            return
        # Undo the unit's writes but keep the counter past the numbers it handed out, while
        # still holding the write lock: no other unit can draw one of them in between.
        conn.exec_driver_sql("ROLLBACK TO slotwise_unit")
        conn.execute(
            counters.update()
            .where(counters.c.name == _OUTBOX_COUNTER, counters.c.value < drawn)
            .values(value=drawn)
        )
        conn.exec_driver_sql("COMMIT")

    def _insert_statement(self, table: Table) -> Any:
        return (
            sqlite_insert(table)
            .on_conflict_do_nothing(index_elements=[table.c.id])
            .returning(table.c.seq)
        )

    def _ignoring_statement(self, table: Table) -> Any:
        return sqlite_insert(table).on_conflict_do_nothing()

    def next_sequence(self, conn: Connection) -> int:
        value = conn.scalar(
            counters.update()
            .where(counters.c.name == _OUTBOX_COUNTER)
            .values(value=counters.c.value + 1)
            .returning(counters.c.value)
        )
        if value is None:
            raise StoreError("the SQLite store's outbox counter is missing; recreate the schema")
        return int(value)

    @contextmanager
    def schema_guard(self, conn: Connection) -> Iterator[None]:
        # WAL is a property of the database file; switching needs no open transaction.
        conn.exec_driver_sql("PRAGMA journal_mode = WAL")
        conn.exec_driver_sql("BEGIN IMMEDIATE")
        try:
            yield
        except BaseException:
            conn.exec_driver_sql("ROLLBACK")
            raise
        conn.exec_driver_sql("COMMIT")

    def classify(self, error: exc.DBAPIError) -> type[StoreError]:
        code = getattr(error.orig, "sqlite_errorcode", None)
        if isinstance(code, int):
            primary = code & 0xFF
            if primary in self._BUSY:
                return ConflictError
            if primary in self._UNAVAILABLE:
                return StoreUnavailable
        text = str(error.orig).lower()
        if "locked" in text or "busy" in text:
            return ConflictError
        return StoreError


class PostgreSQL(Dialect):
    """PostgreSQL through psycopg 3."""

    name = "PostgreSQL"
    # serialization_failure, deadlock_detected, lock_not_available (lock_timeout),
    # query_canceled (statement_timeout), transaction_rollback.
    _CONFLICT = frozenset({"40001", "40P01", "55P03", "57014", "40000"})
    # admin_shutdown (pg_terminate_backend), crash_shutdown, cannot_connect_now,
    # too_many_connections, idle_in_transaction_session_timeout; class 08 is checked below.
    _UNAVAILABLE = frozenset({"57P01", "57P02", "57P03", "53300", "25P03"})
    # invalid_sql_statement_name (prepared statement does not exist), duplicate_prepared_statement
    _PREPARED = frozenset({"26000", "42P05"})

    def write_options(self) -> dict[str, Any]:
        # The driver in autocommit mode: the unit's BEGIN travels with its locks, its COMMIT
        # with its last writes (see begin_write and ``_riding``), not each in a round trip.
        return {"isolation_level": "AUTOCOMMIT"}

    def read_options(self, driver: str | None = None) -> dict[str, Any]:
        if driver == "psycopg":
            # The driver in autocommit mode: the read's BEGIN rides with its first statement.
            return {"isolation_level": "AUTOCOMMIT"}
        return {"isolation_level": "REPEATABLE READ", "postgresql_readonly": True}

    def read_opening(self, conn: Connection) -> list[str]:
        # The configuration version (decision 49) and BEGIN in one round trip, the other
        # reads driver-level: what units of work do (``_riding``), with the read's snapshot.
        if not self.rides(conn):
            return []
        return ["BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY"]

    def reads_ride(self, engine: Engine) -> bool:
        return self.rides(engine)

    def ends_reads(self, conn: Connection) -> bool:
        # psycopg's rollback() sends ROLLBACK only when the server reports a transaction open.
        return True

    def configure(self, conn: Connection) -> None:
        # psycopg 3 prepares a statement run 5 times on a connection; behind a transaction-mode
        # pooler the next transaction may reach another server connection.
        if self.pool_mode == "transaction":
            driver = conn.connection.driver_connection
            if getattr(driver, "prepare_threshold", None) is not None:
                driver.prepare_threshold = None  # type: ignore[union-attr]

    def advisory_key(self, name: str) -> int:
        """Return the 64-bit advisory lock key of lock *name* in this store's namespace."""
        digest = hashlib.blake2b(
            f"slotwise\0{self.namespace}\0{name}".encode(), digest_size=8
        ).digest()
        return int.from_bytes(digest, "big", signed=True)

    def begin_write(self, conn: Connection, names: Collection[str]) -> bool:
        send(conn, self.opening(names))
        return True

    def rides(self, bind: Connection | Engine) -> bool:
        """Whether *bind*'s units run driver-level, writes and BEGIN riding (psycopg 3)."""
        return bind.dialect.driver == "psycopg"

    def opening(self, names: Collection[str]) -> list[str]:
        """The statements beginning a unit of work holding the locks *names*."""
        # One round trip: BEGIN, the timeouts, then the locks, sorted by key, not by name (two
        # names sharing a key, a 2**-64 chance, must not be taken in opposite orders by two
        # units). Target-list items are evaluated in order, so the timeouts are set before the
        # first lock is waited for. Every value is an integer this store computed.
        keys = sorted({self.advisory_key(name) for name in names})
        columns = [
            f"set_config('lock_timeout', '{math.ceil(self.lock_timeout * 1000)}ms', true)",
            (
                "set_config('idle_in_transaction_session_timeout', "
                f"'{math.ceil(self.idle_timeout * 1000)}ms', true)"
            ),
        ]
        columns += [f"pg_advisory_xact_lock(CAST({key} AS bigint))" for key in keys]
        return ["BEGIN ISOLATION LEVEL READ COMMITTED", "SELECT " + ", ".join(columns)]

    def commit(self, conn: Connection) -> None:
        send(conn, ["COMMIT"])

    def abort(self, conn: Connection) -> None:
        conn.rollback()
        # The unit's BEGIN went by the driver's back (autocommit): psycopg sends ROLLBACK
        # whenever the server reports a transaction open.
        driver = conn.connection.driver_connection
        if driver is not None:
            driver.rollback()

    def _insert_statement(self, table: Table) -> Any:
        # ON CONFLICT DO NOTHING instead of catching the unique violation: a failed statement
        # would abort the whole PostgreSQL transaction, and the protocol keeps it usable.
        return (
            pg_insert(table)
            .on_conflict_do_nothing(index_elements=[table.c.id])
            .returning(table.c.seq)
        )

    def _ignoring_statement(self, table: Table) -> Any:
        return pg_insert(table).on_conflict_do_nothing()

    @contextmanager
    def schema_guard(self, conn: Connection) -> Iterator[None]:
        # DDL is transactional on PostgreSQL: the lock and the tables commit together.
        conn.execute(
            select(
                func.pg_advisory_xact_lock(
                    cast(bindparam("key", self.advisory_key("schema"), BigInteger), BigInteger)
                )
            )
        )
        try:
            yield
        except BaseException:
            conn.rollback()
            raise
        conn.commit()

    def create_schema(self, conn: Connection, schema: str) -> None:
        quoted = conn.dialect.identifier_preparer.quote_schema(schema)
        conn.exec_driver_sql(f"CREATE SCHEMA IF NOT EXISTS {quoted}")

    def translate(self, error: BaseException, doing: str) -> StoreError:
        translated = super().translate(error, doing)
        orig = getattr(error, "orig", None)
        if getattr(orig, "sqlstate", None) in self._PREPARED:
            hint = 'behind a transaction-mode pooler? open the store with pool_mode="transaction"'
            translated = type(translated)(f"{translated.message} ({hint})")
        elif (refusal := statement_pooling(orig)) is not None:
            # Same error class (a replica behind such a pooler is still skipped), other words.
            translated = type(translated)(f"{self.name} store {doing} failed: {refusal}")
        return translated

    def classify(self, error: exc.DBAPIError) -> type[StoreError]:
        orig = error.orig
        state = getattr(orig, "sqlstate", None) or getattr(orig, "pgcode", None)
        if state in self._CONFLICT:
            return ConflictError
        if state in self._UNAVAILABLE or (state or "").startswith("08"):
            return StoreUnavailable
        if state is None and isinstance(error, exc.OperationalError):
            return StoreUnavailable  # no server answer at all: refused, reset, timed out
        return StoreError


class MariaDB(Dialect):
    """MariaDB 10.3 or later through PyMySQL (or another MySQL-protocol driver)."""

    name = "MariaDB"
    numbers_at_insert = True  # NEXTVAL() in the event's insert: one statement, not two
    # ER_LOCK_DEADLOCK, ER_LOCK_WAIT_TIMEOUT, ER_CHECKREAD (record changed since last read).
    _CONFLICT = frozenset({1213, 1205, 1020})
    # Too many connections, server shutdown, connection killed, can't connect, server gone,
    # lost connection, lost connection (2055).
    _UNAVAILABLE = frozenset({1040, 1053, 1927, 2003, 2006, 2013, 2055})
    _DUPLICATE_KEY = 1062

    def configure(self, conn: Connection) -> None:
        # A unit of work left idle (its process stalled, or its host cut off from the network)
        # would keep its lock rows until the server noticed the connection gone (wait_timeout:
        # 8 hours by default): the server ends it after idle_timeout instead, as PostgreSQL's
        # idle_in_transaction_session_timeout does. Once per connection (a session setting).
        seconds = max(1, math.ceil(self.idle_timeout))
        info = conn.connection.info
        if info.get("slotwise.idle_transaction_timeout") != seconds:
            conn.exec_driver_sql(f"SET SESSION idle_transaction_timeout = {seconds}")
            info["slotwise.idle_transaction_timeout"] = seconds

    def begin_read(self, conn: Connection) -> None:
        # The first read creates the snapshot every later read of this reader sees.
        conn.exec_driver_sql(_READ_ONLY)

    def read_opening(self, conn: Connection) -> list[str]:
        # With multi-statement queries (a store's own PyMySQL engine: ``make_engine``), the
        # transaction's characteristics ride with the first read, the reads run driver-level.
        if not multi_statements(conn):
            return []
        if not self.ends_reads(conn) and not conn.in_transaction():  # (configure() may have)
            conn.begin()  # SQLAlchemy's view of the driver's implicit transaction: sends nothing
        return [_READ_ONLY]

    def reads_ride(self, engine: Engine) -> bool:
        # A store-made PyMySQL engine sends several statements per query (``make_engine``).
        return engine in RESETS_ITSELF

    def ends_reads(self, conn: Connection) -> bool:
        # A store-made engine's pool resets a returned connection itself (``make_engine``) and
        # skips one whose read ended: PyMySQL's rollback() sends ROLLBACK whatever the state.
        return conn.engine in RESETS_ITSELF

    def ended(self, conn: Connection) -> None:
        conn.connection.info[ENDED_VIEW] = True

    def releases(self, conn: Connection) -> bool:
        # Connection.close() rolls back the transaction it sees open, and the pool then skips
        # its own reset: one ROLLBACK, where abort() then close() send two (PyMySQL sends
        # ROLLBACK whether or not a transaction is open). A failed rollback discards the
        # connection (the pool resets it, invalidating it when that fails too).
        if not conn.in_transaction():
            return False
        try:
            conn.close()
        except Exception:
            with suppress(Exception):
                conn.invalidate()
        return True

    def begin_write(self, conn: Connection, names: Collection[str]) -> bool:
        # READ COMMITTED: no gap locks (fewer deadlocks between bookings of neighbouring
        # rows), and every read after the lock rows sees what their last holder committed.
        conn.exec_driver_sql("SET TRANSACTION ISOLATION LEVEL READ COMMITTED")
        keys = sorted({lookup_key(name) for name in names})
        if not keys:
            return True
        wait = max(1, math.ceil(self.lock_timeout))
        statement = (
            select(locks.c.name)
            .where(locks.c.name.in_(keys))
            .order_by(locks.c.name)
            .with_for_update()
            .suffix_with(f"WAIT {wait}")
        )
        found = set(conn.scalars(statement))
        if len(found) == len(keys):
            return True
        # A lock row is missing (first use of the name). Create it in a transaction of its
        # own: inserting it inside the unit would let two units wait on each other's insert.
        conn.rollback()
        missing = [{"name": key} for key in keys if key not in found]
        conn.execute(insert(locks).prefix_with("IGNORE"), missing)
        conn.commit()
        return False

    def _insert_statement(self, table: Table) -> Any:
        return insert(table)

    def _inserted(self, conn: Connection, statement: Any, values: dict[str, Any]) -> bool:
        # InnoDB rolls back only the failing statement on a duplicate key, so the unit of work
        # stays usable (PostgreSQL would abort it; see PostgreSQL._insert_statement).
        try:
            conn.execute(statement, values)
        except exc.IntegrityError as error:
            if _mysql_errno(error) == self._DUPLICATE_KEY:
                return False
            raise
        return True

    def _ignoring_statement(self, table: Table) -> Any:
        return insert(table).prefix_with("IGNORE")

    @contextmanager
    def schema_guard(self, conn: Connection) -> Iterator[None]:
        # MariaDB commits DDL implicitly; a named server lock keeps two processes from
        # creating the same tables at once. Lock names are limited to 64 characters.
        name = "slotwise:" + hashlib.sha256(self.namespace.encode()).hexdigest()[:40]
        wait = max(1, math.ceil(self.lock_timeout)) * 6
        if conn.scalar(select(func.get_lock(name, wait))) != 1:
            raise ConflictError(f"{self.name} store could not take the schema lock in {wait} s")
        try:
            yield
            conn.commit()
        finally:
            conn.scalar(select(func.release_lock(name)))
            conn.commit()

    def create_schema(self, conn: Connection, schema: str) -> None:
        quoted = conn.dialect.identifier_preparer.quote_schema(schema)
        conn.exec_driver_sql(
            f"CREATE DATABASE IF NOT EXISTS {quoted} "
            "CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin"
        )

    def classify(self, error: exc.DBAPIError) -> type[StoreError]:
        errno = _mysql_errno(error)
        if errno in self._CONFLICT:
            return ConflictError
        if errno in self._UNAVAILABLE or (
            errno is None and isinstance(error, exc.OperationalError)
        ):
            return StoreUnavailable
        return StoreError


MULTI_STATEMENTS = 1 << 16
"""The MySQL protocol's CLIENT_MULTI_STATEMENTS capability flag."""
_READ_ONLY = "SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY"


def multi_statements(conn: Connection) -> bool:
    """Whether *conn* is a PyMySQL connection that sends several statements in one query."""
    if conn.dialect.driver != "pymysql":
        return False
    flags = getattr(conn.connection.driver_connection, "client_flag", 0)
    return bool(flags & MULTI_STATEMENTS)


def _mysql_errno(error: exc.DBAPIError) -> int | None:
    orig = error.orig
    errno = getattr(orig, "errno", None)
    if isinstance(errno, int):
        return errno
    args = getattr(orig, "args", ())
    if args and isinstance(args[0], int):
        return args[0]
    return None


def dialect_for(name: str, **options: Any) -> Dialect:
    """
    Return the dialect support for the SQLAlchemy dialect *name*.

    Raises:
        StoreError: for a database slotwise does not support.
    """
    if name == "sqlite":
        return SQLite(**options)
    if name == "postgresql":
        return PostgreSQL(**options)
    if name in ("mysql", "mariadb"):
        return MariaDB(**options)
    raise StoreError(f"SQLStore supports SQLite, PostgreSQL and MariaDB, not {name!r}")
