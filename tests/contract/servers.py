"""
The SQL stores under test: a SQLite file, and PostgreSQL and MariaDB on real servers.

Server URLs come from ``SLOTWISE_TEST_POSTGRES_URL`` and ``SLOTWISE_TEST_MARIADB_URL``. Every
store gets a schema (PostgreSQL) or database (MariaDB) of its own, named after this process and a
counter, so test runs sharing a server never collide. Creating one costs seconds on MariaDB, so a
disposed store's schema is emptied and handed to the next store of this run (which opens it as
an existing schema); the run drops its schemas when it exits.
A server that cannot be reached (or a driver that is not installed) skips the test with a reason
saying how to start it; with ``SLOTWISE_REQUIRE_SERVERS=1`` (as ``.ci/run`` sets) it fails it.
"""

from __future__ import annotations

import atexit
import itertools
import os
import shutil
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, NoReturn

import attrs
import pytest

POSTGRES_URL = os.environ.get(
    "SLOTWISE_TEST_POSTGRES_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/test"
)
MARIADB_URL = os.environ.get(
    "SLOTWISE_TEST_MARIADB_URL", "mysql+pymysql://root@127.0.0.1:3306/test"
)
REQUIRE_SERVERS = os.environ.get("SLOTWISE_REQUIRE_SERVERS") == "1"

_names = itertools.count()


def unique_name() -> str:
    """Return a schema name no other store of this or another test run uses."""
    return f"slotwise_t{os.getpid()}_{next(_names)}"


def unavailable(reason: str) -> NoReturn:
    """Skip the test, or fail it when servers are required (CI)."""
    if REQUIRE_SERVERS:
        pytest.fail(f"{reason} (SLOTWISE_REQUIRE_SERVERS=1 turns this skip into a failure)")
    pytest.skip(reason)


@attrs.frozen
class Server:
    """A database server the SQL store tests use."""

    name: str
    url: str
    driver: str
    extra: str
    start: str
    pool_mode: str = "session"
    """The stores' ``pool_mode`` (``"transaction"`` behind PgBouncer)."""
    locate: Callable[[], str] | None = None
    """Start the server (a pooler) and return its URL, when *url* is not fixed."""

    def drop(self, engine: Any, schema: str) -> None:
        """Drop the schema (PostgreSQL) or database (MariaDB) *schema* and its tables."""
        quoted = engine.dialect.identifier_preparer.quote_schema(schema)
        statement = (
            f"DROP SCHEMA IF EXISTS {quoted} CASCADE"
            if engine.dialect.name == "postgresql"
            else f"DROP DATABASE IF EXISTS {quoted}"
        )
        with engine.connect() as conn:
            conn.exec_driver_sql(statement)
            conn.commit()


POSTGRES = Server(
    name="PostgreSQL",
    url=POSTGRES_URL,
    driver="psycopg",
    extra="postgres",
    start="pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main start",
)
MARIADB = Server(
    name="MariaDB",
    url=MARIADB_URL,
    driver="pymysql",
    extra="mariadb",
    start="start-stop-daemon --start --oknodo --background --exec /usr/sbin/mariadbd",
)

_servers: list[Server] = []
"""Every server this run made an engine for (its schemas are dropped at exit)."""
_engines: dict[str, Any] = {}
_unreachable: dict[str, str] = {}


def server_engine(server: Server) -> Any:
    """Return this session's engine for *server*; skip (or fail) when it cannot be reached."""
    if server.name in _unreachable:
        unavailable(_unreachable[server.name])
    if server.name not in _engines:
        try:
            __import__(server.driver)
            import sqlalchemy
        except ImportError as error:
            _unreachable[server.name] = (
                f"{server.name} tests need the driver {server.driver!r}: "
                f"pip install 'slotwise[{server.extra}]' ({error})"
            )
            unavailable(_unreachable[server.name])
        url = server.url if server.locate is None else server.locate()
        # Behind a transaction-mode pooler the harness's own statements must not be prepared
        # on the server either (psycopg prepares a statement run 5 times on one connection).
        options = {"prepare_threshold": None} if server.pool_mode == "transaction" else {}
        engine = sqlalchemy.create_engine(url, pool_pre_ping=True, connect_args=options)
        try:
            with engine.connect():
                pass
        except sqlalchemy.exc.SQLAlchemyError as error:
            engine.dispose()
            # Only DBAPIError carries the driver's own error (.orig); show it when there is one.
            first_line = str(getattr(error, "orig", None) or error).strip().splitlines()[0]
            _unreachable[server.name] = (
                f"{server.name} is not reachable at {engine.url.render_as_string()} "
                f"({first_line}); start it with `{server.start}`, or point "
                f"SLOTWISE_TEST_{server.extra.upper()}_URL at one"
            )
            unavailable(_unreachable[server.name])
        _engines[server.name] = engine
        _servers.append(server)
    return _engines[server.name]


_spare: dict[str, list[str]] = {}
"""Per server, this run's emptied schemas waiting for their next store."""
_made: dict[str, list[str]] = {}
"""Per server, every schema this run created (dropped at exit)."""


@contextmanager
def server_store(server: Server, *, by_url: bool = False, **options: Any) -> Iterator[Any]:
    """
    Yield an ``SQLStore`` in an empty schema of its own on *server*: on this session's engine,
    or with *by_url* on an engine of its own made from the URL (as an application's would be).
    """
    from slotwise.storage.sql import SQLStore

    engine = server_engine(server)
    spare = _spare.setdefault(server.name, [])
    schema = spare.pop() if spare else unique_name()
    _made.setdefault(server.name, [])
    if schema not in _made[server.name]:
        _made[server.name].append(schema)
    reusable = False
    try:
        options.setdefault("pool_mode", server.pool_mode)
        store = SQLStore(engine.url if by_url else engine, schema=schema, **options)
        try:
            yield store
        finally:
            store.close()
        reusable = _empty(engine, schema)
    finally:
        if reusable:
            spare.append(schema)
        else:
            _made[server.name].remove(schema)
            server.drop(engine, schema)


def _empty(engine: Any, schema: str) -> bool:
    """Delete every record of *schema* (keeping the outbox counter); tell whether that worked."""
    from sqlalchemy.exc import SQLAlchemyError

    from slotwise.storage.sql._schema import counters, metadata, schema_version

    try:
        with engine.connect() as conn:
            conn.execution_options(schema_translate_map={None: schema})
            for table in reversed(metadata.sorted_tables):
                if table is not counters and table is not schema_version:
                    conn.execute(table.delete())
            conn.commit()
    except SQLAlchemyError:
        return False
    return True


def drop_schemas(server: Server) -> None:
    """Drop the schemas this run created on *server*."""
    engine = _engines.get(server.name)
    made = _made.pop(server.name, [])
    for schema in made:
        try:
            server.drop(engine, schema)
        except Exception:  # the server went away; nothing left to clean
            break


@atexit.register
def _drop_schemas() -> None:
    """Drop the schemas this run created."""
    for server in _servers:
        drop_schemas(server)


@contextmanager
def sqlite_store(*, host_engine: bool = False, **options: Any) -> Iterator[Any]:
    """
    Yield an ``SQLStore`` on a new SQLite file in a temporary directory; with *host_engine*, on
    an engine made as a host makes one (``create_engine(url)``: sqlite3's own transaction
    handling, not the AUTOCOMMIT engine the store makes from a URL), disposed of afterwards.
    """
    from sqlalchemy import create_engine

    from slotwise.storage.sql import SQLStore

    directory = Path(tempfile.mkdtemp(prefix="slotwise-sqlite-"))
    url = f"sqlite:///{directory / 'slotwise.db'}"
    engine = create_engine(url) if host_engine else None
    try:
        store = SQLStore(url if engine is None else engine, **options)
        try:
            yield store
        finally:
            store.close()
    finally:
        if engine is not None:
            engine.dispose()
        shutil.rmtree(directory, ignore_errors=True)
