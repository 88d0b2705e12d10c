"""
Configuration read once per change, across processes (decision 49): a process that caches a
company's configuration serves, on its very next request, a rule another process changed.

The parent keeps one ``Scheduler`` (one configuration cache) for the whole test; another OS
process (``tests/contract/configuration_worker.py``, its own engine and connections) adds a
block, then removes it, between the parent's availability queries, or renames a resource
between the parent's reads of it.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from contextlib import AbstractContextManager
from pathlib import Path

import pytest

from slotwise import Scheduler
from slotwise.storage.sql import SQLStore
from slotwise.testing import ManualClock, SequentialIds

from .configuration_worker import DAY, NOW
from .servers import MARIADB, POSTGRES, server_store, sqlite_store

ROOT = Path(__file__).resolve().parents[2]


def _sqlite() -> AbstractContextManager[SQLStore]:
    """Open a SQLStore on a new SQLite file."""
    return sqlite_store()


def _postgres() -> AbstractContextManager[SQLStore]:
    """Open a SQLStore in a new PostgreSQL schema."""
    return server_store(POSTGRES)


def _mariadb() -> AbstractContextManager[SQLStore]:
    """Open a SQLStore in a new MariaDB database."""
    return server_store(MARIADB)


@pytest.fixture(
    params=[
        pytest.param(_sqlite, id="sqlite"),
        pytest.param(_postgres, id="postgres", marks=pytest.mark.external_service),
        pytest.param(_mariadb, id="mariadb", marks=pytest.mark.external_service),
    ]
)
def store(request: pytest.FixtureRequest) -> Iterator[SQLStore]:
    """A fresh SQLStore of each SQL database; the other process opens its own on it."""
    with request.param() as opened:
        yield opened


def _other_process(store: SQLStore, *arguments: str) -> str:
    """Run one configuration change in another process; return what it printed."""
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "tests.contract.configuration_worker",
            store.engine.url.render_as_string(hide_password=False),
            store.schema or "",
            *arguments,
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert 0 == done.returncode, done.stderr
    return done.stdout.strip()


def test_a_change_in_another_process_is_served_on_the_next_request(store: SQLStore):
    """Blocks added and removed by another process change this process's next availability answer."""
    scheduler = Scheduler(store, clock=ManualClock(NOW), ids=SequentialIds())
    company = scheduler.create_company(name="Acme", timezone="America/New_York")
    ws = scheduler.for_company(company.id)
    ws.locations.create(name="Downtown")
    service = ws.services.create(name="Cut", duration=60, reason="r")
    ana = ws.resources.create(name="Ana", reason="r", linked_service_ids=[service.id])

    def starts() -> list[int]:
        day = ws.availability.times(service.id, DAY, DAY)
        return [slot.start.hour * 100 + slot.start.minute for slot in day.available_times]

    cache = scheduler.configuration_cache
    assert cache is not None
    opening = starts()
    starts()  # a second request at the same version reads no configuration
    loads_before = cache.loads
    block_id = _other_process(store, company.id, ana.id, "block")
    blocked = starts()
    _other_process(store, company.id, ana.id, "unblock", block_id)
    reopened = starts()

    assert {1000, 1100} <= set(opening)
    assert [t for t in opening if not 900 < t < 1200] == blocked
    assert opening == reopened
    assert loads_before + 2 == cache.loads


def test_a_record_another_process_changed_is_read_back_on_the_next_request(store: SQLStore):
    """Reads of configuration alone (a resource, a list) see another process's change at once."""
    scheduler = Scheduler(store, clock=ManualClock(NOW), ids=SequentialIds())
    company = scheduler.create_company(name="Acme", timezone="America/New_York")
    ws = scheduler.for_company(company.id)
    ws.locations.create(name="Downtown")
    ana = ws.resources.create(name="Ana", reason="r")
    cache = scheduler.configuration_cache
    assert cache is not None
    assert "Ana" == ws.resources.get(ana.id).name  # loads the configuration
    assert ["Ana"] == [resource.name for resource in ws.resources.list().data]
    loads_before = cache.loads

    _other_process(store, company.id, ana.id, "rename", "Ann")

    assert "Ann" == ws.resources.get(ana.id).name
    assert ["Ann"] == [resource.name for resource in ws.resources.list().data]
    assert loads_before + 1 == cache.loads
