"""Shared fixtures: a scheduler on a MemoryStore with a manual clock and sequential ids."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from hypothesis import settings

from slotwise import Company, Location, Scheduler, Workspace
from slotwise.storage.memory import MemoryStore
from slotwise.testing import ManualClock, SequentialIds

# CI is derandomized so a red run is reproducible; `dev` and `deep` explore new inputs.
settings.register_profile(
    "ci", max_examples=300, deadline=None, print_blob=True, derandomize=True, database=None
)
settings.register_profile("dev", max_examples=50, deadline=None)
settings.register_profile("deep", max_examples=10_000, deadline=None)
# .ci/run's lowest-versions environment proves the oldest declared dependencies work, not the
# properties again (the main run does that with the ci profile): fewer examples, same seedless runs.
settings.register_profile(
    "lowest", max_examples=40, deadline=None, print_blob=True, derandomize=True, database=None
)
settings.load_profile("ci")

START = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)


@pytest.fixture
def clock() -> ManualClock:
    """A clock standing at Monday 2026-01-05 09:00 UTC."""
    return ManualClock(START)


@pytest.fixture
def scheduler(clock: ManualClock) -> Scheduler:
    """A scheduler on a fresh MemoryStore with sequential ids."""
    return Scheduler(MemoryStore(), clock=clock, ids=SequentialIds())


@pytest.fixture
def company(scheduler: Scheduler) -> Company:
    """A company in New York."""
    return scheduler.create_company(name="Acme Spa", timezone="America/New_York")


@pytest.fixture
def ws(scheduler: Scheduler, company: Company) -> Workspace:
    """The company's workspace with access to every location."""
    return scheduler.for_company(company.id)


@pytest.fixture
def location(ws: Workspace) -> Location:
    """The company's primary location."""
    return ws.locations.create(name="Downtown")


@pytest.fixture
def other_ws(scheduler: Scheduler) -> Workspace:
    """A second company's workspace, for tenant-isolation tests."""
    other = scheduler.create_company(name="Other Co", timezone="Europe/London")
    workspace = scheduler.for_company(other.id)
    workspace.locations.create(name="Elsewhere")
    return workspace
