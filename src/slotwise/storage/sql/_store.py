"""
``SQLStore``: the storage protocol on SQLAlchemy 2 Core, for SQLite, PostgreSQL and MariaDB.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Collection, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager, suppress
from typing import Any, TypeVar

from sqlalchemy import URL, Connection, Engine
from sqlalchemy.pool import AssertionPool, QueuePool, StaticPool

from slotwise.errors import (
    OutOfRange,
    SlotwiseError,
    StoreError,
)

from ._dialects import Dialect, dialect_for
from ._lagging import primary_view, read_on_replicas, replica_view
from ._lifecycle import UnitLifecycle
from ._operating import (
    POOL_MODES,
    PoolMode,
    check_pool_mode,
    check_sqlite_file,
    make_engine,
    parse_url,
)
from ._replicas import ReplicaSet, open_replicas
from ._units import SQLReader
from ._versions import SchemaStatus, check_tables, prepare_tables
from ._writes import SQLTransaction

__all__ = ["POOL_MODES", "PoolMode", "SQLStore"]

logger = logging.getLogger("slotwise.storage")

T = TypeVar("T")


class SQLStore:
    """
    Keeps slotwise's records in a SQL database: a SQLite file, PostgreSQL or MariaDB.

    Give it an SQLAlchemy :class:`~sqlalchemy.engine.Engine` (to share a host application's
    database and connection pool) or a URL (``sqlite:///bookings.db``,
    ``postgresql+psycopg://user@host/db``, ``mysql+pymysql://user@host/db``). Records are stored
    as JSON documents with indexed columns for every read of the protocol; instants are UTC
    (``timestamptz`` on PostgreSQL, UTC microseconds elsewhere). Many processes on many hosts
    may share one PostgreSQL or MariaDB database, or one SQLite file on one host: units of work
    naming a common lock never interleave (see ``docs/sql.md``, "Running many processes").

    A lock the store cannot get within *lock_timeout* is retried *lock_attempts* times before
    ``ConflictError``; a conflict detected later (a deadlock, a serialization failure) raises
    ``ConflictError`` at once, with nothing written: run the unit of work again. Driver errors
    never escape; an unreachable database raises ``StoreUnavailable``.

    Args:
        engine_or_url: an ``Engine``, or a URL the store makes its own engine from (and
            disposes of on :meth:`close`).
        schema: the PostgreSQL schema or MariaDB database holding the tables (``None``: the
            connection's default). Not available on SQLite: use another file.
        create: create missing tables (and *schema*) and upgrade older ones; with ``False``
            the tables must exist at :data:`SCHEMA_VERSION`, or at a later version that still
            runs this slotwise (its ``compatible_since``; ``docs/sql.md``).
        lock_timeout: seconds to wait for a lock (SQLite busy timeout, PostgreSQL
            ``lock_timeout``, MariaDB ``FOR UPDATE WAIT``).
        idle_timeout: seconds a unit of work may sit idle before the server ends it (PostgreSQL
            ``idle_in_transaction_session_timeout``, MariaDB ``idle_transaction_timeout``), so
            a stalled or cut-off process frees its locks.
        lock_attempts: how often taking the locks is tried before ``ConflictError``.
        replicas: read replicas of the database (each an ``Engine`` or a URL): PostgreSQL
            streaming replicas, or MariaDB replicas following it by GTID,
            for reads that tolerate lag (:func:`slotwise.storage.replicas.lagging_read`:
            availability and lists). Every write, and every read a write depends on, runs on
            the primary (decision 50).
        max_lag: how many seconds a replica may be behind to answer a read; one further
            behind is skipped (and the read goes to another replica or the primary).
        replica_retry: seconds a replica that could not be reached is left alone before it is
            tried again.
        pool_mode: ``"transaction"`` behind PgBouncer in transaction pooling mode (PostgreSQL
            only: psycopg's prepared statements off; ``docs/sql.md``), else ``"session"``.

    Raises:
        StoreUnavailable: when the database cannot be reached.
        StoreError: for an unsupported database, an in-memory SQLite database, tables of an
            older version (with *create* ``False``) or of a newer one that no longer runs this
            slotwise (naming both versions), or a *schema* on SQLite.
        InconsistentFields: naming ``replicas``, when replicas are given on SQLite, or a
            replica is on another database than the store.
        OutOfRange: for a *max_lag* or *replica_retry* below 0.
        InvalidChoice: for a *pool_mode* not in :data:`POOL_MODES`, or ``"transaction"`` on
            SQLite or MariaDB.

    .. versionadded:: 0.1
    .. versionchanged:: 0.1
       *replicas*, *max_lag*, *replica_retry* and *pool_mode* (decision 50).
    .. versionchanged:: 0.1
       Opens newer tables whose ``compatible_since`` is at most :data:`SCHEMA_VERSION`.
    """

    def __init__(
        self,
        engine_or_url: Engine | URL | str,
        /,
        *,
        schema: str | None = None,
        create: bool = True,
        lock_timeout: float = 10.0,
        idle_timeout: float = 60.0,
        lock_attempts: int = 3,
        replicas: Sequence[Engine | URL | str] = (),
        max_lag: float = 5.0,
        replica_retry: float = 5.0,
        pool_mode: PoolMode = "session",
    ) -> None:
        if lock_timeout <= 0 or idle_timeout <= 0:
            raise OutOfRange(
                field="lock_timeout" if lock_timeout <= 0 else "idle_timeout",
                allowed="more than 0 seconds",
                requested=lock_timeout if lock_timeout <= 0 else idle_timeout,
            )
        if lock_attempts < 1:
            raise OutOfRange(field="lock_attempts", allowed="at least 1", requested=lock_attempts)
        for name, seconds in (("max_lag", max_lag), ("replica_retry", replica_retry)):
            if not seconds >= 0:
                raise OutOfRange(field=name, allowed="at least 0 seconds", requested=seconds)
        # The URL as the caller gave it, for repr() and the messages that quote it: the engine's
        # may carry query parameters the store added (PyMySQL's client_flag, make_engine).
        self._url: URL = (
            engine_or_url.url if isinstance(engine_or_url, Engine) else parse_url(engine_or_url)
        )
        check_pool_mode(pool_mode, self._url.get_backend_name())
        if isinstance(engine_or_url, Engine):
            self._engine, self._owns_engine = engine_or_url, False
        else:
            self._engine, self._owns_engine = make_engine(engine_or_url, lock_timeout), True
        self._schema = schema
        self._pool_mode: PoolMode = pool_mode
        self._lock_attempts = lock_attempts
        backend = self._engine.dialect.name
        self._dialect: Dialect = dialect_for(
            backend,
            namespace=schema or "",
            lock_timeout=lock_timeout,
            idle_timeout=idle_timeout,
            pool_mode=pool_mode,
        )
        if backend == "sqlite":
            check_sqlite_file(self._engine.url)
            if schema is not None:
                raise StoreError("SQLite has no schemas: give each SQLStore its own database file")
        self._options: dict[str, Any] = (
            {} if schema is None else {"schema_translate_map": {None: schema}}
        )
        # The isolation level every connection of the engine has from its start: an engine the
        # store made for a SQLite file is in AUTOCOMMIT (``make_engine``). Asking a connection
        # for that level again would set it on the driver at checkout and reset it at return.
        self._engine_isolation = "AUTOCOMMIT" if self._owns_engine and backend == "sqlite" else None
        self._units = UnitLifecycle(
            self,
            lock_attempts=lock_attempts,
            lock_timeout=lock_timeout,
            replicas=lambda: self._replicas,
        )
        # (scope, scope id) -> the longest appointment length (microseconds) known to be
        # committed in slotwise_span; lets a write skip inserting a span row that exists.
        self._known_spans: dict[tuple[str, str], int] = {}
        self._replicas: ReplicaSet | None = None
        self._owned_replicas: list[Engine] = []
        try:
            self._prepare(create=create)
            if replicas:
                self._replicas = open_replicas(
                    self._dialect,
                    replicas,
                    owned=self._owned_replicas,
                    max_lag=max_lag,
                    retry_after=replica_retry,
                    lock_timeout=lock_timeout,
                )
        except BaseException:
            self.close()
            raise

    def __repr__(self) -> str:
        url = self._url.render_as_string(hide_password=True)
        schema = "" if self._schema is None else f", schema={self._schema!r}"
        return f"SQLStore({url!r}{schema})"

    @property
    def engine(self) -> Engine:
        """The SQLAlchemy engine the store uses."""
        return self._engine

    @property
    def schema(self) -> str | None:
        """The PostgreSQL schema or MariaDB database holding the tables (``None``: the default)."""
        return self._schema

    @property
    def max_connections(self) -> int | None:
        """
        The most connections the engine's pool opens at once (``None``: no limit).

        A :class:`~sqlalchemy.pool.QueuePool` (what a URL gets) opens ``pool_size +
        max_overflow`` (5 + 10 unless the engine was made otherwise); a ``StaticPool`` or an
        ``AssertionPool`` one; a ``NullPool`` any number. Every read and unit of work holds one
        connection for its duration, so this is how many of them run at once without waiting for
        the pool: the HTTP service runs that many operations at once (``docs/http.md``).

        .. versionadded:: 0.1
        """
        pool = self._engine.pool
        if isinstance(pool, QueuePool):
            # QueuePool keeps max_overflow private; -1 (or a pool_size of 0) means no limit.
            overflow = int(getattr(pool, "_max_overflow", 0))
            return None if overflow < 0 else pool.size() + overflow
        if isinstance(pool, StaticPool | AssertionPool):
            return 1
        return None

    @property
    def replicas(self) -> tuple[Engine, ...]:
        """The engines of the store's read replicas (empty without replicas)."""
        return () if self._replicas is None else self._replicas.engines

    @property
    def pool_mode(self) -> PoolMode:
        """``"transaction"`` behind a transaction-mode pooler, else ``"session"``."""
        return self._pool_mode

    def close(self) -> None:
        """Dispose of the engines' connections that the store made from URLs."""
        if self._owns_engine:
            self._engine.dispose()
        for engine in self._owned_replicas:
            engine.dispose()

    def check(self) -> SchemaStatus:
        """
        Check that the database answers and this slotwise runs on its tables (at
        :data:`SCHEMA_VERSION`, or newer and compatible since it or before); return the versions.
        Raise ``StoreUnavailable`` or ``StoreError`` (naming the versions) otherwise
        (``GET /readyz``). .. versionadded:: 0.1
        """
        conn = self._connect(self._dialect.read_options(), "checking its tables")
        try:
            return check_tables(conn, self._dialect, repr(self))
        finally:
            self._release(conn)

    # -- the protocol ----------------------------------------------------------------------

    def read(self) -> AbstractContextManager[SQLReader]:
        """Yield a reader on one snapshot (a read-only transaction)."""
        # Where reads ride, the first round trip replaces a connection lost while pooled: the
        # checkout's ping would be one round trip more for nothing.
        return primary_view(self, pinged=not self._dialect.reads_ride(self._engine))

    def replica_read(self, read: Callable[[SQLReader], T], /) -> T:
        """
        Return ``read(reader)`` on one snapshot of a replica, for a read that tolerates lag.

        An optional capability of this store (used through
        :func:`slotwise.storage.replicas.lagging_read`): the snapshot comes from a replica at
        most *max_lag* seconds behind that has replayed the token of the innermost
        :func:`~slotwise.storage.replicas.consistent_with`, or from the primary when none
        qualifies (or the store has no replicas); ``reader.served_by`` says which. When the
        replica fails during the read (``StoreUnavailable`` from its connection), *read* runs
        again from the start on another replica or the primary: it must only read.

        .. versionadded:: 0.1
        """
        return read_on_replicas(self, self._replicas, read)

    def replica_view(self) -> AbstractContextManager[SQLReader]:
        """
        Open a reader as :meth:`replica_read` does, once: a replica that fails during the
        ``with`` block fails it (``StoreUnavailable``). Prefer :meth:`replica_read`.
        """
        return replica_view(self, self._replicas)

    @contextmanager
    def transaction(self, *, locks: Collection[str] = ()) -> Iterator[SQLTransaction]:
        """Run one unit of work holding *locks*; commit on normal exit, roll back otherwise."""
        with self._units.run(sorted(set(locks))) as tx:
            yield tx

    # -- units of work -----------------------------------------------------------------------

    def _connect(
        self, options: dict[str, Any], doing: str, engine: Engine | None = None
    ) -> Connection:
        try:
            conn = (engine or self._engine).connect()
        except Exception as error:
            raise self._dialect.translate(error, doing) from error
        try:
            if engine is None and options.get("isolation_level", False) == self._engine_isolation:
                options = dict(options)
                del options["isolation_level"]
            if options or self._options:
                conn.execution_options(**self._options, **options)
            self._dialect.configure(conn)
        except Exception as error:
            conn.close()
            raise self._dialect.translate(error, doing) from error
        return conn

    def _abandon(self, conn: Connection) -> None:
        """Roll back whatever is open on *conn*; discard the connection if that fails."""
        try:
            self._dialect.abort(conn)
        except Exception:
            with suppress(Exception):
                conn.invalidate()

    def _release(self, conn: Connection) -> None:
        """Roll back whatever is open on *conn* and return it to the pool (or discard it)."""
        if self._dialect.releases(conn):
            return
        self._abandon(conn)
        conn.close()

    # -- schema ------------------------------------------------------------------------------

    def _prepare(self, *, create: bool) -> None:
        """Check the schema version; create or upgrade the tables when *create*."""
        options = {"isolation_level": "AUTOCOMMIT"} if self._dialect.name == "SQLite" else {}
        conn = self._connect(options, "opening the schema")
        try:
            prepare_tables(conn, self._dialect, self._schema, create=create, where=repr(self))
        except SlotwiseError:
            raise
        except Exception as error:
            raise self._dialect.translate(error, "preparing its tables") from error
        finally:
            self._release(conn)
