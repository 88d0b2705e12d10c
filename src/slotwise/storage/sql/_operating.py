"""
What running a ``SQLStore`` in production asks of it: the engine it makes from a URL and the
pooler mode it sits behind (the readiness check, ``GET /readyz``, is ``_versions.check_tables``).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, Final, Literal

from sqlalchemy import URL, Engine, create_engine, event, exc, make_url
from sqlalchemy.exc import ArgumentError, NoSuchModuleError

from slotwise.errors import InvalidChoice, InvalidFormat, StoreError

__all__ = [
    "POOL_MODES",
    "PoolMode",
    "check_pool_mode",
    "check_sqlite_file",
    "make_engine",
    "parse_url",
    "unpinged",
]

_BACKENDS: Final = ("sqlite", "postgresql", "mariadb")
"""The databases a ``SQLStore`` runs on (MySQL is refused when the tables are opened)."""

PoolMode = Literal["session", "transaction"]
"""How connections reach the server: directly or through a session-mode pooler, or through a
transaction-mode pooler (PgBouncer ``pool_mode = transaction``)."""
POOL_MODES: Final[tuple[PoolMode, ...]] = ("session", "transaction")


def check_pool_mode(pool_mode: str, backend: str | None = None) -> None:
    """
    Refuse a *pool_mode* not in :data:`POOL_MODES`, or ``"transaction"`` off PostgreSQL.

    MariaDB's schema lock (``GET_LOCK``) and ``SET TRANSACTION`` are per session.
    """
    if pool_mode not in POOL_MODES:
        raise InvalidChoice(field="pool_mode", allowed=POOL_MODES, requested=pool_mode)
    if pool_mode == "transaction" and backend not in (None, "postgresql"):
        raise InvalidChoice(field="pool_mode", allowed=("session",), requested=pool_mode)


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


def make_engine(url: URL | str, lock_timeout: float, *, field: str = "url") -> Engine:
    """Return the engine a store makes from *url* (and disposes of on close)."""
    parsed = parse_url(url, field=field)
    try:
        if parsed.get_backend_name() == "sqlite":
            check_sqlite_file(parsed)
            # The driver's timeout is SQLite's busy timeout (a connection also sets the PRAGMA).
            return create_engine(parsed, connect_args={"timeout": lock_timeout})
        engine = create_engine(parsed, connect_args={"connect_timeout": 10})
        _ping_at_checkout(engine)
        return engine
    except (NoSuchModuleError, ImportError):
        # An unknown driver name, or a driver that is not installed.
        raise InvalidFormat(
            field=field,
            expected=(
                "a URL with an installed driver (sqlite, postgresql+psycopg, mariadb+pymysql; "
                "pip install 'slotwise[sql]')"
            ),
            value=f"{parsed.drivername}://...",
        ) from None


_CHECKOUT = threading.local()


@contextmanager
def unpinged() -> Iterator[None]:
    """
    Check connections out of an engine the store made without their liveness ping, on this
    thread: for a caller that finds a lost connection by its first round trip and sends that
    again on another (a PostgreSQL unit of work, ``_unit_base``).
    """
    _CHECKOUT.unpinged = True
    try:
        yield
    finally:
        _CHECKOUT.unpinged = False


def _ping_at_checkout(engine: Engine) -> None:
    """
    Ping a pooled connection as it is checked out, as SQLAlchemy's ``pool_pre_ping`` does (a
    connection the server dropped while pooled -- a restart, a terminated backend -- is
    replaced, and the pool's older connections with it, instead of failing the next unit of
    work), except for a fresh connection and inside :func:`unpinged`.
    """
    dialect = engine.dialect

    @event.listens_for(engine, "connect")
    def fresh(dbapi_connection: Any, record: Any) -> None:
        record.info["slotwise.fresh"] = True

    @event.listens_for(engine, "checkout")
    def ping(dbapi_connection: Any, record: Any, proxy: Any) -> None:
        if record.info.pop("slotwise.fresh", False) or getattr(_CHECKOUT, "unpinged", False):
            return
        try:
            dialect.do_ping(dbapi_connection)
        except dialect.loaded_dbapi.Error as error:
            if not dialect.is_disconnect(error, dbapi_connection, None):
                raise
            raise exc.InvalidatePoolError() from error


def check_sqlite_file(url: URL) -> None:
    """Refuse an in-memory SQLite database: each pooled connection would get its own."""
    database = url.database or ""
    if database in ("", ":memory:") or "mode=memory" in database or "mode=memory" in str(url.query):
        raise StoreError(
            "SQLStore needs a SQLite database file (each pooled connection would get its own "
            "in-memory database); use MemoryStore for an in-memory store"
        )
