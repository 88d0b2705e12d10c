"""
Schema versions: which slotwise may run on which tables (rolling upgrades).

``slotwise_schema_version`` holds the tables' layout version and, since version 8,
``compatible_since``: the oldest layout version whose code still runs on them. Code of layout
*c* runs on tables at *t* when ``compatible_since <= c <= t``: its own tables, or newer ones
whose every step since *c* was additive (``Step.breaking``). Older tables are upgraded first;
tables whose ``compatible_since`` is above *c* are refused (see docs/sql.md, "Schema version and
upgrades", and docs/semantics.md, "Rolling upgrades").
"""

from __future__ import annotations

from typing import Final, Literal

import attrs
from sqlalchemy import URL, Connection, Engine, func, insert, inspect, select, update

from slotwise.errors import StoreError

from ._dialects import Dialect, dialect_for
from ._operating import make_engine
from ._schema import SCHEMA_VERSION, counters, metadata, schema_version
from ._upgrades import UPGRADES

__all__ = [
    "ROLLING_SINCE",
    "SchemaState",
    "SchemaStatus",
    "check_tables",
    "compatible_since_at",
    "prepare_tables",
    "create_or_upgrade",
    "schema_status",
]

ROLLING_SINCE: Final = 8
"""The first layout whose code reads ``compatible_since``; code of 7 or before refuses any
newer tables, so no tables at 8 or later say they run it."""

SchemaState = Literal["missing", "older", "current", "compatible", "incompatible"]
"""Where the tables stand for this slotwise: none; older (upgrade them); its own version; newer
and still running it; newer and no longer running it (upgrade slotwise)."""


@attrs.frozen(kw_only=True)
class SchemaStatus:
    """
    This slotwise's schema version beside its tables' (``slotwise schema status``).

    .. versionadded:: 0.1
    """

    code: int
    """The layout version of this slotwise (:data:`SCHEMA_VERSION`)."""
    tables: int | None
    """The tables' layout version (``None``: there are no tables)."""
    compatible_since: int | None
    """The oldest layout version whose code runs on the tables (``None``: no tables)."""
    upgraded_compatible_since: int
    """What ``compatible_since`` would be after this slotwise created or upgraded the tables."""

    @property
    def state(self) -> SchemaState:
        """Where the tables stand for this slotwise."""
        if self.tables is None:
            return "missing"
        if self.tables < self.code:
            return "older"
        if self.tables == self.code:
            return "current"
        since = self.tables if self.compatible_since is None else self.compatible_since
        return "compatible" if since <= self.code else "incompatible"

    @property
    def runs(self) -> bool:
        """Whether this slotwise can run on the tables as they are."""
        return self.state in ("current", "compatible")

    def problem(self, where: str) -> str | None:
        """Return why this slotwise cannot run on the tables in *where*, and what to do."""
        tables = f"the slotwise tables in {where}"
        upgrade = "run `slotwise schema upgrade` (or open the store once with create=True)"
        state = self.state
        if state == "missing":
            return f"{tables} do not exist; {upgrade}"
        if state == "older":
            return (
                f"{tables} are at schema version {self.tables}, this slotwise needs {self.code}: "
                f"{upgrade} to upgrade them"
            )
        if state == "incompatible":
            return (
                f"{tables} are at schema version {self.tables}, which runs slotwise of schema "
                f"version {self.compatible_since} or later; this slotwise knows up to "
                f"{self.code}: upgrade slotwise"
            )
        return None


def compatible_since_at(version: int) -> int:
    """Return ``compatible_since`` of tables at *version* (8 or later): after its last breaking step."""
    since = ROLLING_SINCE
    for step in range(ROLLING_SINCE, version):
        if UPGRADES[step].breaking:
            since = step + 1
    return since


def _status(tables: int | None, compatible_since: int | None) -> SchemaStatus:
    return SchemaStatus(
        code=SCHEMA_VERSION,
        tables=tables,
        compatible_since=compatible_since,
        upgraded_compatible_since=compatible_since_at(SCHEMA_VERSION),
    )


def _read(conn: Connection) -> SchemaStatus:
    """Read the versions (the table must exist); tables before 8 run only their own version."""
    version = conn.scalar(select(func.max(schema_version.c.version)))
    if version is None:
        return _status(None, None)
    since = None
    if version >= ROLLING_SINCE:
        since = conn.scalar(
            select(schema_version.c.compatible_since).where(schema_version.c.version == version)
        )
    return _status(version, version if since is None else since)


def read_status(conn: Connection, schema: str | None) -> SchemaStatus:
    """Read the versions on *conn* (schema translation on); no table: ``tables`` is None."""
    if not inspect(conn).has_table(schema_version.name, schema=schema):
        return _status(None, None)
    return _read(conn)


def check_tables(conn: Connection, dialect: Dialect, where: str) -> SchemaStatus:
    """Read the versions on *conn* in a read transaction; refuse tables this slotwise cannot run."""
    try:
        dialect.begin_read(conn)
        status = _read(conn)
    except Exception as error:
        raise dialect.translate(error, "checking its tables") from error
    problem = status.problem(where)
    if problem is not None:
        raise StoreError(problem)
    return status


def create_or_upgrade(
    conn: Connection, dialect: Dialect, schema: str | None, *, create: bool, where: str
) -> SchemaStatus:
    """
    Create missing tables or upgrade older ones when *create* (schema lock held); open newer
    ones this slotwise runs on; refuse the rest. Return the versions as they now are.
    """
    status = read_status(conn, schema)
    state = status.state
    if state not in ("current", "compatible") and not (create and state in ("missing", "older")):
        raise StoreError(status.problem(where) or where)
    if state == "missing":
        metadata.create_all(conn, checkfirst=True)
        dialect.insert_ignoring_duplicates(conn, counters, [{"name": "outbox", "value": 0}])
        conn.execute(
            insert(schema_version).values(
                version=SCHEMA_VERSION, compatible_since=status.upgraded_compatible_since
            )
        )
    elif state == "older":
        assert status.tables is not None
        for step in range(status.tables, SCHEMA_VERSION):
            UPGRADES[step](conn, schema)
            values: dict[str, int] = {"version": step + 1}
            if step + 1 >= ROLLING_SINCE:
                values["compatible_since"] = compatible_since_at(step + 1)
            conn.execute(update(schema_version).values(**values))
    else:
        return status
    return _status(SCHEMA_VERSION, status.upgraded_compatible_since)


def prepare_tables(
    conn: Connection, dialect: Dialect, schema: str | None, *, create: bool, where: str
) -> None:
    """
    Check the tables' version under the schema lock as a store opens; create *schema* and the
    tables, or upgrade them, when *create*. MySQL is refused (no sequences, no ``FOR UPDATE
    WAIT``).
    """
    if conn.dialect.name in ("mysql", "mariadb") and not getattr(conn.dialect, "is_mariadb", False):
        raise StoreError("SQLStore supports MariaDB; MySQL has no sequences or FOR UPDATE WAIT")
    with dialect.schema_guard(conn):
        if schema is not None and create:
            dialect.create_schema(conn, schema)
        create_or_upgrade(conn, dialect, schema, create=create, where=where)


def schema_status(
    engine_or_url: Engine | URL | str, /, *, schema: str | None = None
) -> SchemaStatus:
    """
    Return this slotwise's schema version beside the tables' at *engine_or_url*, changing nothing.

    Unlike opening a :class:`~slotwise.storage.sql.SQLStore`, this never refuses tables of another version: it says
    where they stand (``SchemaStatus.state``), as ``slotwise schema status`` prints.

    Args:
        engine_or_url: an ``Engine``, or a URL (its engine is disposed of afterwards).
        schema: the PostgreSQL schema or MariaDB database holding the tables.

    Raises:
        StoreUnavailable: when the database cannot be reached.
        StoreError: for an unsupported database.

    .. versionadded:: 0.1
    """
    if isinstance(engine_or_url, Engine):
        engine, owned = engine_or_url, False
    else:
        engine, owned = make_engine(engine_or_url, 10.0), True
    dialect = dialect_for(
        engine.dialect.name,
        namespace=schema or "",
        lock_timeout=10.0,
        idle_timeout=60.0,
        pool_mode="session",
    )
    try:
        with engine.connect() as conn:
            if schema is not None:
                conn = conn.execution_options(schema_translate_map={None: schema})
            status = read_status(conn, schema)
            conn.rollback()
            return status
    except StoreError:
        raise
    except Exception as error:
        raise dialect.translate(error, "reading its schema version") from error
    finally:
        if owned:
            engine.dispose()
