"""
What running a ``SQLStore`` in production asks of it: the engine it makes from a URL and the
pooler mode it sits behind (the readiness check, ``GET /readyz``, is ``_versions.check_tables``).
"""

from __future__ import annotations

from typing import Final, Literal

from sqlalchemy import URL, Engine, create_engine, make_url

from slotwise.errors import InvalidChoice, StoreError

__all__ = [
    "POOL_MODES",
    "PoolMode",
    "check_pool_mode",
    "check_sqlite_file",
    "make_engine",
]

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


def make_engine(url: URL | str, lock_timeout: float) -> Engine:
    """Return the engine a store makes from *url* (and disposes of on close)."""
    parsed = make_url(url)
    if parsed.get_backend_name() == "sqlite":
        check_sqlite_file(parsed)
        # The driver's timeout is SQLite's busy timeout (a connection also sets the PRAGMA).
        return create_engine(parsed, connect_args={"timeout": lock_timeout})
    # pool_pre_ping: a connection the server dropped while pooled (a restart, a terminated
    # backend) is replaced at checkout instead of failing the next unit of work.
    return create_engine(parsed, pool_pre_ping=True, connect_args={"connect_timeout": 10})


def check_sqlite_file(url: URL) -> None:
    """Refuse an in-memory SQLite database: each pooled connection would get its own."""
    database = url.database or ""
    if database in ("", ":memory:") or "mode=memory" in database or "mode=memory" in str(url.query):
        raise StoreError(
            "SQLStore needs a SQLite database file (each pooled connection would get its own "
            "in-memory database); use MemoryStore for an in-memory store"
        )
