"""
The ``store`` fixture: a fresh store of every backend slotwise ships, one test run per id.

``sqlite`` is a new database file per store; ``postgres`` and ``mariadb`` are a new schema (or
database) per store on a real server, marked ``external_service`` (STYLE rule 28): they skip
with a reason when the server or driver is missing, and fail instead when
``SLOTWISE_REQUIRE_SERVERS=1`` (see ``tests/contract/servers.py``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, ExitStack, contextmanager

import pytest

from slotwise.storage.memory import MemoryStore
from slotwise.storage.protocol import Store

from .replication import Cluster, start_cluster
from .servers import MARIADB, POSTGRES, server_store, sqlite_store

StoreFactory = Callable[[pytest.FixtureRequest], AbstractContextManager[Store]]


@contextmanager
def _memory(request: pytest.FixtureRequest) -> Iterator[Store]:
    """Yield a fresh MemoryStore (nothing to clean up)."""
    yield MemoryStore()


@contextmanager
def _sqlite(request: pytest.FixtureRequest) -> Iterator[Store]:
    """Yield a SQLStore on a new SQLite file, removed afterwards."""
    with sqlite_store() as store:
        yield store


@contextmanager
def _postgres(request: pytest.FixtureRequest) -> Iterator[Store]:
    """Yield a SQLStore in a new PostgreSQL schema, dropped afterwards."""
    with server_store(POSTGRES) as store:
        yield store


@contextmanager
def _mariadb(request: pytest.FixtureRequest) -> Iterator[Store]:
    """Yield a SQLStore in a new MariaDB database, dropped afterwards."""
    with server_store(MARIADB) as store:
        yield store


STORES = [
    pytest.param(_memory, id="memory"),
    pytest.param(_sqlite, id="sqlite"),
    pytest.param(_postgres, id="postgres", marks=pytest.mark.external_service),
    pytest.param(_mariadb, id="mariadb", marks=pytest.mark.external_service),
]
"""One ``pytest.param(factory, id=...)`` per backend; a factory may clean up after its yield."""


@pytest.fixture(params=STORES)
def store_factory(request: pytest.FixtureRequest) -> Iterator[Callable[[], Store]]:
    """Make fresh, empty stores of one backend; each is disposed of after the test."""
    factory: StoreFactory = request.param
    with ExitStack() as stack:
        yield lambda: stack.enter_context(factory(request))


@pytest.fixture
def store(store_factory: Callable[[], Store]) -> Store:
    """A fresh, empty store of each backend in STORES."""
    return store_factory()


@pytest.fixture(scope="session")
def cluster() -> Iterator[Cluster]:
    """A PostgreSQL primary and a streaming replica of it, started once for the replica tests."""
    started = start_cluster()
    try:
        yield started
    finally:
        started.stop()
