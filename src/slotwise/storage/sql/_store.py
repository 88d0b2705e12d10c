"""
``SQLStore``: the storage protocol on SQLAlchemy 2 Core, for SQLite, PostgreSQL and MariaDB.
"""

from __future__ import annotations

import threading
from collections.abc import Collection, Iterator, Sequence
from contextlib import contextmanager, suppress
from datetime import UTC, date, datetime, timedelta
from typing import Any

from sqlalchemy import (
    URL,
    Connection,
    Engine,
    Table,
    and_,
    bindparam,
    create_engine,
    delete,
    func,
    insert,
    inspect,
    make_url,
    or_,
    select,
    update,
)

from slotwise._time import ensure_aware
from slotwise.errors import (
    ConflictError,
    DuplicateRecord,
    FieldTooLong,
    NotFound,
    OutOfRange,
    SlotwiseError,
    StoreError,
)
from slotwise.model import (
    Allocation,
    Appointment,
    AuditEntry,
    Block,
    Customer,
    OutboxEvent,
    QueuedReminder,
    Record,
)
from slotwise.storage.protocol import R

from ._codec import decode, encode
from ._dialects import Dialect, dialect_for
from ._schema import (
    KEY_LENGTH,
    RECORD_TABLES,
    SCHEMA_VERSION,
    Instant,
    appointment_resources,
    counters,
    email_key,
    lookup_key,
    metadata,
    record_values,
    schema_version,
    spans,
)
from ._upgrades import UPGRADES

__all__ = ["SQLStore"]

_MICROSECOND = timedelta(microseconds=1)
_EARLIEST = datetime(1, 1, 1, tzinfo=UTC)
_KEY_FIELDS = ("id", "company_id", "location_id", "target_id", "customer_id", "appointment_id")


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
            the tables must exist at :data:`SCHEMA_VERSION`.
        lock_timeout: seconds to wait for a lock (SQLite busy timeout, PostgreSQL
            ``lock_timeout``, MariaDB ``FOR UPDATE WAIT``).
        idle_timeout: seconds a PostgreSQL unit of work may sit idle before the server ends it
            (``idle_in_transaction_session_timeout``), so a stalled process frees its locks.
        lock_attempts: how often taking the locks is tried before ``ConflictError``.

    Raises:
        StoreUnavailable: when the database cannot be reached.
        StoreError: for an unsupported database, an in-memory SQLite database, a schema of
            another version (with *create* ``False``, or newer than this slotwise), or a
            *schema* on SQLite.

    .. versionadded:: 0.1
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
    ) -> None:
        if lock_timeout <= 0 or idle_timeout <= 0:
            raise OutOfRange(
                field="lock_timeout" if lock_timeout <= 0 else "idle_timeout",
                allowed="more than 0 seconds",
                requested=lock_timeout if lock_timeout <= 0 else idle_timeout,
            )
        if lock_attempts < 1:
            raise OutOfRange(field="lock_attempts", allowed="at least 1", requested=lock_attempts)
        if isinstance(engine_or_url, Engine):
            self._engine, self._owns_engine = engine_or_url, False
        else:
            self._engine, self._owns_engine = _make_engine(engine_or_url, lock_timeout), True
        self._schema = schema
        self._lock_attempts = lock_attempts
        backend = self._engine.dialect.name
        self._dialect: Dialect = dialect_for(
            backend,
            namespace=schema or "",
            lock_timeout=lock_timeout,
            idle_timeout=idle_timeout,
        )
        if backend == "sqlite":
            _check_sqlite_file(self._engine.url)
            if schema is not None:
                raise StoreError("SQLite has no schemas: give each SQLStore its own database file")
        self._options: dict[str, Any] = (
            {} if schema is None else {"schema_translate_map": {None: schema}}
        )
        self._local = threading.local()
        # SQLite has one writer at a time: this process's threads queue on a lock (woken at
        # once) instead of polling the database's busy handler, which sleeps up to 100 ms.
        self._writers = threading.Lock() if backend == "sqlite" else None
        self._gate_timeout = lock_timeout * lock_attempts
        # (scope, scope id) -> the longest appointment length (microseconds) known to be
        # committed in slotwise_span; lets a write skip inserting a span row that exists.
        self._known_spans: dict[tuple[str, str], int] = {}
        try:
            self._prepare(create=create)
        except BaseException:
            if self._owns_engine:
                self._engine.dispose()
            raise

    def __repr__(self) -> str:
        url = self._engine.url.render_as_string(hide_password=True)
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

    def close(self) -> None:
        """Dispose of the engine's connections if the store made the engine from a URL."""
        if self._owns_engine:
            self._engine.dispose()

    # -- the protocol ----------------------------------------------------------------------

    @contextmanager
    def read(self) -> Iterator[_SQLReader]:
        """Yield a reader on one snapshot (a read-only transaction)."""
        conn = self._connect(self._dialect.read_options(), "opening a read")
        try:
            try:
                self._dialect.begin_read(conn)
            except Exception as error:
                raise self._dialect.translate(error, "beginning a read") from error
            yield _SQLReader(self, conn)
        finally:
            self._abandon(conn)
            conn.close()

    @contextmanager
    def transaction(self, *, locks: Collection[str] = ()) -> Iterator[_SQLTransaction]:
        """Run one unit of work holding *locks*; commit on normal exit, roll back otherwise."""
        if getattr(self._local, "active", False):
            raise StoreError("SQLStore does not support nested units of work on one thread")
        names = sorted(set(locks))
        self._local.active = True
        gate = self._writers
        try:
            if gate is not None and not gate.acquire(timeout=self._gate_timeout):
                raise ConflictError(
                    f"{self._dialect.name} store: another thread kept the write lock for "
                    f"{self._gate_timeout:g} s"
                )
            try:
                conn = self._connect(self._dialect.write_options(), "opening a unit of work")
                try:
                    self._begin(conn, names)
                    tx = _SQLTransaction(self, conn)
                    try:
                        yield tx
                    except BaseException:
                        self._rollback(conn, tx)
                        raise
                    self._commit(conn, tx)
                finally:
                    conn.close()
            finally:
                if gate is not None:
                    gate.release()
        finally:
            self._local.active = False

    # -- units of work -----------------------------------------------------------------------

    def _connect(self, options: dict[str, Any], doing: str) -> Connection:
        try:
            conn = self._engine.connect()
        except Exception as error:
            raise self._dialect.translate(error, doing) from error
        try:
            conn.execution_options(**self._options, **options)
            self._dialect.configure(conn)
        except Exception as error:
            conn.close()
            raise self._dialect.translate(error, doing) from error
        return conn

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
                self._abandon(conn)
                failures += 1
                if not isinstance(failure, ConflictError) or failures >= self._lock_attempts:
                    raise failure from error
        raise ConflictError(f"{self._dialect.name} store could not take the locks {names}")

    def _commit(self, conn: Connection, tx: _SQLTransaction) -> None:
        failure = tx._failure
        if failure is not None:
            # A statement failed and the caller went on: the database may already have
            # abandoned the transaction (PostgreSQL, a MariaDB deadlock), so never commit it.
            self._rollback(conn, tx)
            raise type(failure)(
                f"{failure.message}; the unit of work was rolled back, nothing was written"
            ) from failure
        try:
            self._dialect.commit(conn)
        except Exception as error:
            self._rollback(conn, tx)
            raise self._dialect.translate(error, "committing") from error
        for key, length in tx._new_spans:
            self._known_spans[key] = max(length, self._known_spans.get(key, 0))

    def _rollback(self, conn: Connection, tx: _SQLTransaction) -> None:
        try:
            self._dialect.rollback(conn, drawn=tx._drawn)
        except Exception:
            # The connection is broken (the server ended the session): nothing was committed,
            # and the pool must not hand this connection out again.
            self._abandon(conn)

    def _abandon(self, conn: Connection) -> None:
        """Roll back whatever is open on *conn*; discard the connection if that fails."""
        try:
            if self._dialect.name == "SQLite":
                if conn.connection.driver_connection.in_transaction:  # type: ignore[union-attr]
                    conn.exec_driver_sql("ROLLBACK")
            else:
                conn.rollback()
        except Exception:
            with suppress(Exception):
                conn.invalidate()

    # -- schema ------------------------------------------------------------------------------

    def _prepare(self, *, create: bool) -> None:
        """Check the schema version; create or upgrade the tables when *create*."""
        options = {"isolation_level": "AUTOCOMMIT"} if self._dialect.name == "SQLite" else {}
        conn = self._connect(options, "opening the schema")
        try:
            if conn.dialect.name in ("mysql", "mariadb") and not getattr(
                conn.dialect, "is_mariadb", False
            ):
                raise StoreError(
                    "SQLStore supports MariaDB; MySQL has no sequences or FOR UPDATE WAIT"
                )
            with self._dialect.schema_guard(conn):
                if self._schema is not None and create:
                    self._dialect.create_schema(conn, self._schema)
                self._create_or_upgrade(conn, create=create)
        except SlotwiseError:
            raise
        except Exception as error:
            raise self._dialect.translate(error, "preparing its tables") from error
        finally:
            self._abandon(conn)
            conn.close()

    def _create_or_upgrade(self, conn: Connection, *, create: bool) -> None:
        version: int | None = None
        if inspect(conn).has_table(schema_version.name, schema=self._schema):
            version = conn.scalar(select(func.max(schema_version.c.version)))
        where = f"the slotwise tables in {self!r}"
        if version is None:
            if not create:
                raise StoreError(f"{where} do not exist; open the store with create=True")
            metadata.create_all(conn, checkfirst=True)
            self._dialect.insert_ignoring_duplicates(
                conn, counters, [{"name": "outbox", "value": 0}]
            )
            conn.execute(insert(schema_version).values(version=SCHEMA_VERSION))
            return
        if version > SCHEMA_VERSION:
            raise StoreError(
                f"{where} are at schema version {version}; this slotwise knows up to "
                f"{SCHEMA_VERSION}: upgrade slotwise"
            )
        if version < SCHEMA_VERSION:
            if not create:
                raise StoreError(
                    f"{where} are at schema version {version}, this slotwise needs "
                    f"{SCHEMA_VERSION}: open the store once with create=True to upgrade them"
                )
            for step in range(version, SCHEMA_VERSION):
                UPGRADES[step](conn, self._schema)
                conn.execute(update(schema_version).values(version=step + 1))


def _make_engine(url: URL | str, lock_timeout: float) -> Engine:
    parsed = make_url(url)
    if parsed.get_backend_name() == "sqlite":
        _check_sqlite_file(parsed)
        # The driver's timeout is SQLite's busy timeout (a connection also sets the PRAGMA).
        return create_engine(parsed, connect_args={"timeout": lock_timeout})
    # pool_pre_ping: a connection the server dropped while pooled (a restart, a terminated
    # backend) is replaced at checkout instead of failing the next unit of work.
    return create_engine(parsed, pool_pre_ping=True, connect_args={"connect_timeout": 10})


def _check_sqlite_file(url: URL) -> None:
    database = url.database or ""
    if database in ("", ":memory:") or "mode=memory" in database or "mode=memory" in str(url.query):
        raise StoreError(
            "SQLStore needs a SQLite database file (each pooled connection would get its own "
            "in-memory database); use MemoryStore for an in-memory store"
        )


def _check_limit(limit: int) -> None:
    if not isinstance(limit, int) or isinstance(limit, bool) or limit < 1:
        raise OutOfRange(field="limit", allowed="at least 1", requested=limit)


def _minus(instant: datetime, microseconds: int) -> datetime:
    try:
        return instant - microseconds * _MICROSECOND
    except OverflowError:
        return _EARLIEST


def _by_id(table: Table) -> Any:
    return table.c.id == bindparam("record_id")


def _build_statements(kind: type[Any]) -> dict[str, Any]:
    """Statements of one record table, built once and run with parameters (cache-friendly)."""
    table = RECORD_TABLES[kind]
    doc = select(table.c.doc)
    built: dict[str, Any] = {
        "get": doc.where(_by_id(table)),
        "update": update(table).where(_by_id(table)),
        "delete": delete(table).where(_by_id(table)),
    }
    for company in (False, True):
        for location in (False, True) if "location_id" in table.c else (False,):
            statement = doc
            if company:
                statement = statement.where(table.c.company_id == bindparam("company_id"))
            if location:
                statement = statement.where(table.c.location_id == bindparam("location_id"))
            built[f"find{int(company)}{int(location)}"] = statement.order_by(table.c.seq)
    for column in ("appointment_id", "customer_id"):
        if column in table.c:
            built[column] = doc.where(table.c[column] == bindparam(column)).order_by(table.c.seq)
    if "target_id" in table.c:
        built["touching"] = doc.where(
            table.c.target_id.in_(bindparam("targets", expanding=True)),
            table.c.start_date <= bindparam("last"),
            table.c.end_date >= bindparam("first"),
        ).order_by(table.c.seq)
    return built


def _feed(column: Any, company: bool, located: bool, condition: Any) -> Any:
    """
    The statement of a feed: rows meeting *condition*, by *column* then id, up to a limit.

    With *located*, only rows whose ``location_id`` is one of the bound ``location_ids``: the
    filter is part of the read (decision 37), so the limit counts rows the caller may see.
    """
    table = column.table
    statement = select(table.c.doc).where(condition)
    if company:
        statement = statement.where(table.c.company_id == bindparam("company_id"))
    if located:
        statement = statement.where(
            table.c.location_id.in_(bindparam("location_ids", expanding=True))
        )
    return statement.order_by(column, table.c.id).limit(bindparam("limit"))


_STATEMENTS = {kind: _build_statements(kind) for kind in RECORD_TABLES}
_APPOINTMENTS = RECORD_TABLES[Appointment]
_REMINDERS = RECORD_TABLES[QueuedReminder]
_EVENTS = RECORD_TABLES[OutboxEvent]
_CUSTOMERS = RECORD_TABLES[Customer]
_LINK = appointment_resources

_LONGEST = (
    select(spans.c.scope_id, func.max(spans.c.length))
    .where(
        spans.c.scope == bindparam("scope"),
        spans.c.scope_id.in_(bindparam("scope_ids", expanding=True)),
    )
    .group_by(spans.c.scope_id)
)
_AT_LOCATION = (
    select(_APPOINTMENTS.c.doc)
    .where(
        _APPOINTMENTS.c.location_id == bindparam("location_id"),
        _APPOINTMENTS.c.start_at >= bindparam("earliest", type_=Instant()),
        _APPOINTMENTS.c.start_at < bindparam("end", type_=Instant()),
        _APPOINTMENTS.c.end_at > bindparam("start", type_=Instant()),
    )
    .order_by(_APPOINTMENTS.c.start_at, _APPOINTMENTS.c.id)
)
_BY_KEY = (
    select(_APPOINTMENTS.c.doc)
    .where(
        _APPOINTMENTS.c.company_id == bindparam("company_id"),
        _APPOINTMENTS.c.idempotency_key == bindparam("key"),
    )
    .order_by(_APPOINTMENTS.c.seq)
)
_BY_EMAIL = (
    select(_CUSTOMERS.c.doc)
    .where(
        _CUSTOMERS.c.company_id == bindparam("company_id"),
        _CUSTOMERS.c.email_key == bindparam("key"),
    )
    .order_by(_CUSTOMERS.c.seq)
)
_FEEDS: dict[tuple[str, bool, bool], Any] = {
    (name, company, located): _feed(column, company, located, condition)
    for name, column, condition in (
        (
            "holds",
            _APPOINTMENTS.c.hold_until,
            _APPOINTMENTS.c.hold_until <= bindparam("upto", type_=Instant()),
        ),
        ("events", _EVENTS.c.undelivered, _EVENTS.c.undelivered.is_not(None)),
        (
            "reminders",
            _REMINDERS.c.unsent_due,
            _REMINDERS.c.unsent_due <= bindparam("upto", type_=Instant()),
        ),
    )
    for company in (False, True)
    for located in (False, True)
}
_UNLINK = delete(_LINK).where(_LINK.c.appointment_id == bindparam("record_id"))
_LINK_ROWS = insert(_LINK)


class _SQLReader:
    """The protocol's reads, as SQL on one connection."""

    def __init__(self, store: SQLStore, conn: Connection) -> None:
        self._store = store
        self._conn = conn
        self._failure: StoreError | None = None

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

    def get(self, kind: type[R], record_id: str, /) -> R | None:
        statement = self._statements(kind)["get"]
        found = self._records(kind, statement, {"record_id": record_id})
        return found[0] if found else None

    def find(
        self, kind: type[R], /, *, company_id: str | None, location_id: str | None = None
    ) -> list[R]:
        statements = self._statements(kind)
        if location_id is not None and "find01" not in statements:
            raise StoreError(f"{kind.__name__} records have no location_id to filter on")
        key = f"find{int(company_id is not None)}{int(location_id is not None)}"
        parameters = {"company_id": company_id, "location_id": location_id}
        return self._records(kind, statements[key], parameters)

    def blocks_touching(
        self, *, target_ids: Collection[str], first: date, last: date
    ) -> list[Block]:
        return self._windows_touching(Block, target_ids, first, last)

    def allocations_touching(
        self, *, target_ids: Collection[str], first: date, last: date
    ) -> list[Allocation]:
        return self._windows_touching(Allocation, target_ids, first, last)

    def _windows_touching(
        self, kind: type[R], target_ids: Collection[str], first: date, last: date
    ) -> list[R]:
        targets = sorted(set(target_ids))
        if not targets:
            return []
        parameters = {"targets": targets, "first": first, "last": last}
        return self._records(kind, _STATEMENTS[kind]["touching"], parameters)

    def appointments_overlapping(
        self,
        *,
        location_id: str,
        resource_ids: Collection[str] | None,
        start: datetime,
        end: datetime,
    ) -> list[Appointment]:
        ensure_aware(start, field="start")
        ensure_aware(end, field="end")
        if resource_ids is None:
            scope, scope_ids = "location", [location_id]
        else:
            scope, scope_ids = "resource", sorted(set(resource_ids))
            if not scope_ids:
                return []
        longest = {
            row[0]: int(row[1])
            for row in self._rows(_LONGEST, {"scope": scope, "scope_ids": scope_ids})
        }
        if not longest:
            return []  # no appointment was ever stored there
        # An appointment overlapping [start, end) starts in [start - longest, end): an index
        # range read whose cost does not grow with the history before it.
        if resource_ids is None:
            parameters = {
                "location_id": location_id,
                "earliest": _minus(start, longest[location_id]),
                "start": start,
                "end": end,
            }
            return self._records(Appointment, _AT_LOCATION, parameters)
        ranges = [
            and_(
                _LINK.c.resource_id == resource_id,
                _LINK.c.start_at >= _minus(start, length),
                _LINK.c.start_at < end,
            )
            for resource_id, length in sorted(longest.items())
        ]
        # A derived table joined on the unique id, not "id IN (subquery)": SQLite would scan
        # the location's whole history and test each id against the list.
        taking = (
            select(_LINK.c.appointment_id)
            .where(or_(*ranges), _LINK.c.end_at > start)
            .distinct()
            .subquery()
        )
        statement = (
            select(_APPOINTMENTS.c.doc)
            .join_from(taking, _APPOINTMENTS, _APPOINTMENTS.c.id == taking.c.appointment_id)
            .where(_APPOINTMENTS.c.location_id == location_id)
            .order_by(_APPOINTMENTS.c.start_at, _APPOINTMENTS.c.id)
        )
        return self._records(Appointment, statement)

    def appointment_by_idempotency_key(self, company_id: str, key: str) -> Appointment | None:
        parameters = {"company_id": company_id, "key": lookup_key(key)}
        # The column holds a digest of a long key: the record's own key decides.
        for record in self._records(Appointment, _BY_KEY, parameters):
            if record.idempotency_key == key:
                return record
        return None

    def customer_by_email(self, company_id: str, email: str) -> Customer | None:
        folded = email.strip().casefold()
        parameters = {"company_id": company_id, "key": email_key(email)}
        for record in self._records(Customer, _BY_EMAIL, parameters):
            if record.email is not None and record.email.strip().casefold() == folded:
                return record
        return None

    def appointments_of_customer(self, customer_id: str) -> list[Appointment]:
        statement = _STATEMENTS[Appointment]["customer_id"]
        return self._records(Appointment, statement, {"customer_id": customer_id})

    def expired_holds(
        self,
        *,
        company_id: str | None,
        location_ids: Collection[str] | None = None,
        now: datetime,
        limit: int,
    ) -> list[Appointment]:
        _check_limit(limit)
        ensure_aware(now, field="now")
        return self._feed(Appointment, "holds", company_id, location_ids, limit, upto=now)

    def undelivered_events(
        self,
        *,
        company_id: str | None,
        location_ids: Collection[str] | None = None,
        limit: int,
    ) -> list[OutboxEvent]:
        _check_limit(limit)
        return self._feed(OutboxEvent, "events", company_id, location_ids, limit)

    def reminders_due(
        self,
        *,
        company_id: str | None,
        location_ids: Collection[str] | None = None,
        before: datetime,
        limit: int,
    ) -> list[QueuedReminder]:
        _check_limit(limit)
        ensure_aware(before, field="before")
        return self._feed(QueuedReminder, "reminders", company_id, location_ids, limit, upto=before)

    def _feed(
        self,
        kind: type[R],
        name: str,
        company_id: str | None,
        location_ids: Collection[str] | None,
        limit: int,
        **upto: Any,
    ) -> list[R]:
        parameters: dict[str, Any] = {"company_id": company_id, "limit": limit, **upto}
        if location_ids is not None:
            places = sorted(set(location_ids))
            if not places:
                return []
            parameters["location_ids"] = places
        statement = _FEEDS[(name, company_id is not None, location_ids is not None)]
        return self._records(kind, statement, parameters)

    def reminders_of(self, appointment_id: str) -> list[QueuedReminder]:
        return self._children(QueuedReminder, appointment_id)

    def audit_of(self, appointment_id: str) -> list[AuditEntry]:
        return self._children(AuditEntry, appointment_id)

    def _children(self, kind: type[R], appointment_id: str) -> list[R]:
        statement = _STATEMENTS[kind]["appointment_id"]
        return self._records(kind, statement, {"appointment_id": appointment_id})


class _SQLTransaction(_SQLReader):
    """The protocol's writes; every write checks before it changes anything."""

    def __init__(self, store: SQLStore, conn: Connection) -> None:
        super().__init__(store, conn)
        self._drawn: int | None = None
        self._new_spans: list[tuple[tuple[str, str], int]] = []

    def _execute(self, statement: Any, parameters: Any = None) -> Any:
        try:
            return self._conn.execute(statement, parameters)
        except Exception as error:
            raise self._failed(error, "writing") from error

    def insert(self, record: Record, /) -> None:
        kind = type(record)
        self._statements(kind)
        values = self._values(record)
        try:
            inserted = self._store._dialect.insert_record(self._conn, RECORD_TABLES[kind], values)
        except Exception as error:
            raise self._failed(error, "writing") from error
        if not inserted:
            raise DuplicateRecord(kind=kind.__name__, field="id", value=record.id)
        if isinstance(record, Appointment):
            self._link(record, replace=False)

    def update(self, record: Record, /) -> None:
        kind = type(record)
        statement = self._statements(kind)["update"]
        values = self._values(record)
        values["record_id"] = values.pop("id")
        if self._execute(statement, values).rowcount == 0:
            raise NotFound(kind=kind.__name__, record_id=record.id)
        if isinstance(record, Appointment):
            self._link(record, replace=True)

    def delete(self, kind: type[Record], record_id: str, /) -> None:
        statement = self._statements(kind)["delete"]
        if self._execute(statement, {"record_id": record_id}).rowcount == 0:
            raise NotFound(kind=kind.__name__, record_id=record_id)
        if kind is Appointment:
            self._execute(_UNLINK, {"record_id": record_id})

    def next_sequence(self) -> int:
        try:
            number = self._store._dialect.next_sequence(self._conn)
        except Exception as error:
            raise self._failed(error, "drawing a sequence number") from error
        self._drawn = number if self._drawn is None else max(self._drawn, number)
        return number

    def _values(self, record: Record) -> dict[str, Any]:
        """Return the row of *record*, refusing what the columns cannot hold."""
        try:
            document = encode(record)
            document.encode("utf-8")
        except (TypeError, ValueError) as error:
            # A lone surrogate (no UTF-8 database can hold it; the driver would raise), or a
            # value JSON cannot write.
            raise StoreError(
                f"{type(record).__name__} {record.id!r} cannot be stored: {error}"
            ) from error
        values = record_values(record, document)
        for field in _KEY_FIELDS:
            value = values.get(field)
            if isinstance(value, str) and len(value) > KEY_LENGTH:
                raise FieldTooLong(field=field, limit=KEY_LENGTH, requested=len(value))
        if isinstance(record, Appointment):
            for resource_id in record.resource_ids:
                if len(resource_id) > KEY_LENGTH:
                    raise FieldTooLong(
                        field="resource_ids", limit=KEY_LENGTH, requested=len(resource_id)
                    )
        return values

    def _link(self, record: Appointment, *, replace: bool) -> None:
        """Write the appointment's resource rows and grow the span bounds it exceeds."""
        if replace:
            self._execute(_UNLINK, {"record_id": record.id})
        resources = sorted(set(record.resource_ids))
        if resources:
            rows = [
                {
                    "appointment_id": record.id,
                    "resource_id": resource_id,
                    "start_at": record.start,
                    "end_at": record.end,
                }
                for resource_id in resources
            ]
            self._execute(_LINK_ROWS, rows)
        length = (record.end - record.start) // _MICROSECOND
        known = self._store._known_spans
        needed = [
            key
            for key in [("location", record.location_id)]
            + [("resource", resource_id) for resource_id in resources]
            if known.get(key, -1) < length
        ]
        if not needed:
            return
        rows = [
            {"scope": scope, "scope_id": scope_id, "length": length}
            for scope, scope_id in sorted(needed)
        ]
        try:
            self._store._dialect.insert_ignoring_duplicates(self._conn, spans, rows)
        except Exception as error:
            raise self._failed(error, "writing") from error
        self._new_spans += [(key, length) for key in needed]
