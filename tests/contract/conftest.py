"""
The ``store`` fixture: a fresh store of every backend slotwise ships, one test run per id.

Issue 5 adds ``sqlite``, ``postgres`` and ``mariadb``: one factory and one ``pytest.param`` line
each in :data:`STORES` (server-backed ones marked ``external_service``, STYLE rule 28).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, ExitStack, contextmanager

import pytest

from slotwise.storage.memory import MemoryStore
from slotwise.storage.protocol import Store

StoreFactory = Callable[[pytest.FixtureRequest], AbstractContextManager[Store]]


@contextmanager
def _memory(request: pytest.FixtureRequest) -> Iterator[Store]:
    """Yield a fresh MemoryStore (nothing to clean up)."""
    yield MemoryStore()


STORES = [
    pytest.param(_memory, id="memory"),
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
