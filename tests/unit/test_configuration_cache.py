"""The configuration cache of a Scheduler (decision 49): on by default, off on request."""

from __future__ import annotations

from datetime import date
from typing import Any

import pytest

from slotwise import InvalidFormat, Scheduler, Service, Workspace
from slotwise.model import Resource
from slotwise.storage._memory_units import MemoryReader
from slotwise.storage.memory import MemoryStore
from slotwise.testing import ManualClock, SequentialIds
from tests.conftest import START

DAY = date(2026, 1, 6)


def _resource_finds(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Record every company-wide or location read of resources the MemoryStore answers."""
    seen: list[str] = []
    original = MemoryReader.find

    def find(self, kind, /, *, company_id, location_id=None):
        if kind is Resource:
            seen.append(str(location_id))
        return original(self, kind, company_id=company_id, location_id=location_id)

    monkeypatch.setattr(MemoryReader, "find", find)
    return seen


def _business(**options: Any) -> tuple[Scheduler, Workspace, Service]:
    scheduler = Scheduler(MemoryStore(), clock=ManualClock(START), ids=SequentialIds(), **options)
    company = scheduler.create_company(name="Acme", timezone="America/New_York")
    ws = scheduler.for_company(company.id)
    ws.locations.create(name="Downtown")
    service = ws.services.create(name="Cut", duration=60, reason="r")
    ws.resources.create(name="Ana", reason="r", linked_service_ids=[service.id])
    return scheduler, ws, service


class TestConfigurationCache:
    def test_on_by_default_the_configuration_is_read_once_per_change(self, monkeypatch):
        """Three availability reads at one version read the resources once; a change once more."""
        scheduler, ws, service = _business()
        seen = _resource_finds(monkeypatch)

        for _ in range(3):
            ws.availability.times(service.id, DAY, DAY)
        once = len(seen)
        ben = ws.resources.create(name="Ben", reason="r", linked_service_ids=[service.id])
        answer = ws.availability.times(service.id, DAY, DAY, resource_id=ben.id)

        assert 1 == once
        assert 2 == len(seen)
        assert answer.available_times
        assert {(ben.id,)} == {slot.resource_ids for slot in answer.available_times}
        assert scheduler.configuration_cache is not None

    def test_off_reads_the_configuration_every_time(self, monkeypatch):
        """cache_configuration=False: every availability read reads the configuration again."""
        scheduler, ws, service = _business(cache_configuration=False)
        seen = _resource_finds(monkeypatch)

        for _ in range(3):
            ws.availability.times(service.id, DAY, DAY)

        assert scheduler.configuration_cache is None
        assert 3 == len(seen)

    def test_the_setting_must_be_a_bool(self):
        """A value that is not true or false is refused naming the setting."""
        with pytest.raises(InvalidFormat) as info:
            Scheduler(cache_configuration="yes")  # type: ignore[arg-type]

        assert "cache_configuration" == info.value.field
