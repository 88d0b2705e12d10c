"""
What running a ``SQLStore`` in production asks of it: the engine it makes from a URL and the
pooler mode it sits behind (the readiness check, ``GET /readyz``, is ``_versions.check_tables``).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, Final, Literal
from weakref import WeakSet

from sqlalchemy import URL, Engine, create_engine, event, exc, make_url
from sqlalchemy.exc import ArgumentError, NoSuchModuleError

from slotwise.errors import InvalidChoice, InvalidFormat, StoreError

__all__ = [
    "POOL_MODES",
    "ENDED_VIEW",
    "RESETS_ITSELF",
    "PoolMode",
    "check_pool_mode",
    "check_sqlite_file",
    "make_engine",
    "parse_url",
    "statement_pooling",
    "unpinged",
]

_BACKENDS: Final = ("sqlite", "postgresql", "mariadb")
"""The databases a ``SQLStore`` runs on (MySQL is refused when the tables are opened)."""

PoolMode = Literal["session", "transaction"]
"""How connections reach the server: directly or through a session-mode pooler, or through a
transaction-mode pooler (PgBouncer ``pool_mode = transaction``)."""
# The MySQL protocol's CLIENT_MULTI_STATEMENTS capability flag.
_MULTI_STATEMENTS: Final = 1 << 16
POOL_MODES: Final[tuple[PoolMode, ...]] = ("session", "transaction")

RESETS_ITSELF: Final[WeakSet[Engine]] = WeakSet()
"""The store-made PyMySQL engines whose pool resets a returned connection by :func:`_reset`."""
ENDED_VIEW: Final = "slotwise.view_ended"
"""Set in a pooled connection's ``info`` just before its return: the read it served ended its
transaction itself (its ``ROLLBACK`` rode with its last read), so nothing is open to reset."""


def check_pool_mode(pool_mode: str, backend: str | None = None) -> None:
    """
    Refuse a *pool_mode* not in :data:`POOL_MODES`, or ``"transaction"`` off PostgreSQL.

    MariaDB's schema lock (``GET_LOCK``) and ``SET TRANSACTION`` are per session.
    """
    if pool_mode not in POOL_MODES:
        raise InvalidChoice(field="pool_mode", allowed=POOL_MODES, requested=pool_mode)
    if pool_mode == "transaction" and backend not in (None, "postgresql"):
        raise InvalidChoice(field="pool_mode", allowed=("session",), requested=pool_mode)


# What PgBouncer in statement pooling mode answers a transaction block (the words of recent
# releases), or a transaction left open (of older ones, which then drop the server connection).
_STATEMENT_POOLING = re.compile(
    r"not allowed in statement pooling mode|long transactions not allowed", re.IGNORECASE
)


def statement_pooling(driver_error: object) -> str | None:
    """
    Say what is wrong when *driver_error* is PgBouncer in statement pooling mode refusing a
    transaction (``None`` otherwise).

    It answers ``BEGIN`` with SQLSTATE 08P01, a "connection exception": the pooler was reached,
    but no unit of work can run through it, and "could not reach the database" would send the
    operator to look for a network fault.
    """
    if driver_error is None or not _STATEMENT_POOLING.search(str(driver_error)):
        return None
    detail = str(driver_error).strip().splitlines()[0]
    return (
        "the connection pooler refuses transactions (PgBouncer in statement pooling mode, which "
        f"slotwise does not support: set pool_mode = transaction or session in pgbouncer.ini): "
        f"{detail}"
    )


def parse_url(url: URL | str, *, field: str = "url") -> URL:
    """
    Return *url* parsed, or raise :class:`~slotwise.InvalidFormat` naming *field*.

    A text that is no database URL, or names a database slotwise does not run on, is the
    caller's mistake, not the store's: it gets a typed error, not SQLAlchemy's. The error shows
    only the URL's scheme, never the rest (it may hold a password).
    """
    expected = "a database URL: sqlite:///FILE, postgresql://USER@HOST/DB or mariadb://USER@HOST/DB"
    try:
        parsed = make_url(url)
    except (ArgumentError, ValueError, TypeError):
        scheme = url.partition(":")[0] if isinstance(url, str) and ":" in url else url
        raise InvalidFormat(field=field, expected=expected, value=_scheme_only(scheme)) from None
    backend = parsed.get_backend_name()
    if backend not in (*_BACKENDS, "mysql"):
        raise InvalidFormat(field=field, expected=expected, value=f"{parsed.drivername}://...")
    return parsed


def _scheme_only(scheme: object) -> object:
    # Text without "://" may be anything the user typed (a password pasted in the wrong
    # place): show only that it was text of this length.
    if isinstance(scheme, str) and (len(scheme) > 20 or not scheme.replace("+", "").isalnum()):
        return f"text of {len(scheme)} characters"
    return scheme


# The extra that installs each server database's driver.
_DRIVER_EXTRAS = {"postgresql": "postgres", "mysql": "mariadb", "mariadb": "mariadb"}


def make_engine(url: URL | str, lock_timeout: float, *, field: str = "url") -> Engine:
    """Return the engine a store makes from *url* (and disposes of on close)."""
    parsed = parse_url(url, field=field)
    try:
        if parsed.get_backend_name() == "sqlite":
            check_sqlite_file(parsed)
            # The driver's timeout is SQLite's busy timeout (a connection also sets the PRAGMA).
            # AUTOCOMMIT: the store begins and ends every transaction itself (``SQLite``), and a
            # connection returned to the pool is then not reset to another level (a PRAGMA).
            return create_engine(
                parsed, connect_args={"timeout": lock_timeout}, isolation_level="AUTOCOMMIT"
            )
        if (
            parsed.get_backend_name() in ("mysql", "mariadb")
            and parsed.get_driver_name() == "pymysql"
        ):
            # Several statements per query, so a read's SET TRANSACTION rides with its first
            # statement (``MariaDB.read_opening``). Every value the store sends is bound by the
            # driver or is an integer it computed: nothing a caller wrote is ever run as SQL.
            given = parsed.query.get("client_flag", "0")
            flags = int(given if isinstance(given, str) else given[-1]) | _MULTI_STATEMENTS
            parsed = parsed.update_query_dict({"client_flag": str(flags)})
        if parsed.get_driver_name() == "pymysql":
            # PyMySQL sends ROLLBACK on every rollback() whatever the server's state: the pool's
            # reset is done by _reset instead, which skips a connection whose read ended itself.
            engine = create_engine(
                parsed, connect_args={"connect_timeout": 10}, pool_reset_on_return=None
            )
            event.listen(engine, "reset", _reset)
            RESETS_ITSELF.add(engine)
        else:
            engine = create_engine(parsed, connect_args={"connect_timeout": 10})
    except (NoSuchModuleError, ImportError):
        # An unknown driver name, or a driver that is not installed: name the extra that
        # installs the database's driver (the sql extra alone has only SQLite's).
        extra = _DRIVER_EXTRAS.get(parsed.get_backend_name(), "sql")
        raise InvalidFormat(
            field=field,
            expected=(
                "a URL with an installed driver (sqlite, postgresql+psycopg, mariadb+pymysql; "
                f"pip install 'slotwise[{extra}]')"
            ),
            value=f"{parsed.drivername}://...",
        ) from None
    _ping_on_checkout(engine)
    return engine


def _reset(dbapi_connection: Any, record: Any, state: Any) -> None:
    """The pool's rollback on return, skipped where nothing is open (``ENDED_VIEW``)."""
    if record is not None and record.info.pop(ENDED_VIEW, False):
        return
    if state.transaction_was_reset or not state.asyncio_safe:
        return
    dbapi_connection.rollback()


# Set while a caller that runs again on a dead connection checks one out (see `unpinged`).
_UNPINGED: ContextVar[bool] = ContextVar("slotwise_unpinged", default=False)
_FRESH = "slotwise.fresh"


@contextmanager
def unpinged() -> Iterator[None]:
    """
    Check connections out of the engines ``make_engine`` made without their liveness ping, for
    a caller that finds a lost connection by its first round trip and sends that again on a
    pinged one: a read whose first round trip rides (``SQLStore.read``, ``_lagging``), a
    PostgreSQL unit of work (``_unit_base``).
    """
    token = _UNPINGED.set(True)
    try:
        yield
    finally:
        _UNPINGED.reset(token)


def _ping_on_checkout(engine: Engine) -> None:
    """
    Ping a pooled connection at checkout, as SQLAlchemy's ``pool_pre_ping`` does: a connection
    the server dropped while pooled (a restart, a terminated backend) is replaced instead of
    failing the next unit of work. Unlike ``pool_pre_ping`` (one round trip at every checkout)
    a read inside :func:`unpinged` skips it (``_lagging``).
    """
    dialect = engine.dialect

    def connected(dbapi_connection: Any, record: Any) -> None:
        del dbapi_connection
        record.info[_FRESH] = True  # just opened: nothing to ping

    def checkout(dbapi_connection: Any, record: Any, proxy: Any) -> None:
        del proxy
        if record.info.pop(_FRESH, False) or _UNPINGED.get():
            return
        try:
            dialect.do_ping(dbapi_connection)
        except dialect.loaded_dbapi.Error as error:
            if dialect.is_disconnect(error, dbapi_connection, None):
                # The pool discards this connection, and the others it holds (a restarted
                # server dropped them all), and checks out a new one.
                raise exc.InvalidatePoolError(str(error)) from error
            raise

    event.listen(engine, "connect", connected)
    event.listen(engine, "checkout", checkout)


def check_sqlite_file(url: URL) -> None:
    """Refuse an in-memory SQLite database: each pooled connection would get its own."""
    database = url.database or ""
    if database in ("", ":memory:") or "mode=memory" in database or "mode=memory" in str(url.query):
        raise StoreError(
            "SQLStore needs a SQLite database file (each pooled connection would get its own "
            "in-memory database); use MemoryStore for an in-memory store"
        )
