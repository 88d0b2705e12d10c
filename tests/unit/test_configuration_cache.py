"""The configuration cache of a Scheduler (decision 49): on by default, off on request."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import date
from typing import Any

import pytest

from slotwise import InvalidFormat, NotFound, Scheduler, Service, StoreUnavailable, Workspace
from slotwise.model import Principal, Resource
from slotwise.operations._context import Context
from slotwise.storage._memory_units import MemoryReader
from slotwise.storage.batched import ReadAgain
from slotwise.storage.configuration import CachedReader, ConfigurationCache, confirmed
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


class _AheadReader:
    """A MemoryStore reader that, like a riding SQL view, answers the version asked for ahead only with its next store read."""

    def __init__(self, store: MemoryStore, version: int) -> None:
        self._store = store
        self.version = version
        self.waiting: list[Any] = []
        self.sent = 0

    def configuration_version_ahead(self, company_id: str, answered: Any) -> bool:
        self.waiting.append(answered)
        return True

    def configuration_version(self, company_id: str) -> int:
        self._send()
        return self.version

    def get(self, kind: Any, record_id: str) -> Any:
        self._send()
        with self._store.read() as reader:
            return reader.get(kind, record_id)

    def find(self, kind: Any, /, *, company_id: str | None, location_id: str | None = None) -> Any:
        self._send()
        with self._store.read() as reader:
            return reader.find(kind, company_id=company_id, location_id=location_id)

    def _send(self) -> None:
        self.sent += 1
        waiting, self.waiting = self.waiting, []
        for answered in waiting:
            answered(self.version)


def _held_cache() -> tuple[ConfigurationCache, MemoryStore, Service, int]:
    """A business on a MemoryStore and a cache holding its configuration, with that version."""
    scheduler, _, service = _business()
    store = scheduler.store
    assert isinstance(store, MemoryStore)
    cache = ConfigurationCache()
    with store.read() as reader:
        held = cache.configuration(reader, service.company_id)
    assert held is not None
    return cache, store, service, held.version


class TestCheckedLater:
    """A read answered from the held configuration before its version arrives (``checked_later``)."""

    def test_an_answer_waits_for_the_version_and_stands_when_it_matches(self):
        """Nothing read from the store before the answer: confirmed() sends the version then."""
        cache, store, service, version = _held_cache()
        ahead = _AheadReader(store, version)
        reader = cache.reader(ahead, service.company_id, checked_later=True)  # type: ignore[arg-type]

        answer = confirmed(reader, lambda: reader.get(Service, service.id))

        assert service == answer
        assert 1 == ahead.sent
        assert not ahead.waiting

    def test_an_answer_from_an_older_configuration_makes_the_read_run_again(self):
        """The version arrives newer than the held one: ReadAgain, and the cache lets it go."""
        cache, store, service, version = _held_cache()
        ahead = _AheadReader(store, version + 1)
        reader = cache.reader(ahead, service.company_id, checked_later=True)  # type: ignore[arg-type]

        with pytest.raises(ReadAgain, match="configuration changed"):
            confirmed(reader, lambda: reader.get(Service, service.id))

        again = _AheadReader(store, version + 1)
        cached = cache.reader(again, service.company_id, checked_later=True)  # type: ignore[arg-type]
        assert isinstance(cached, CachedReader)
        assert not cached._unconfirmed  # nothing held: the version was read first
        assert 2 == cache.loads

    def test_an_error_decided_on_an_older_configuration_makes_the_read_run_again(self):
        """A NotFound from the held records stands only once their version is confirmed."""
        cache, store, service, version = _held_cache()
        company = service.company_id

        def refused() -> Service:
            raise NotFound(kind="Service", record_id="svc-new")

        stale = cache.reader(_AheadReader(store, version + 1), company, checked_later=True)  # type: ignore[arg-type]
        with pytest.raises(ReadAgain):
            confirmed(stale, refused)
        cache.reader(_AheadReader(store, version + 1), company)  # type: ignore[arg-type]
        ahead = _AheadReader(store, version + 1)
        current = cache.reader(ahead, company, checked_later=True)  # type: ignore[arg-type]
        with pytest.raises(NotFound):
            confirmed(current, refused)
        assert 1 == ahead.sent
        assert 2 == cache.loads

    def test_a_store_failure_is_raised_as_it_is(self):
        """A StoreError is the store's answer: not turned into a version check."""
        cache, store, service, version = _held_cache()
        ahead = _AheadReader(store, version + 1)
        reader = cache.reader(ahead, service.company_id, checked_later=True)  # type: ignore[arg-type]

        def failing() -> None:
            raise StoreUnavailable("the server went away")

        with pytest.raises(StoreUnavailable):
            confirmed(reader, failing)
        assert 0 == ahead.sent

    def test_a_store_that_cannot_ask_ahead_reads_the_version_first(self):
        """MemoryStore's reader has no configuration_version_ahead: the usual cached reader."""
        cache, store, service, _ = _held_cache()
        with store.read() as reader:
            cached = cache.reader(reader, service.company_id, checked_later=True)
            assert isinstance(cached, CachedReader)
            assert not cached._unconfirmed

    def test_a_confirmed_answer_keeps_its_company_most_recently_used(self):
        """With room for one more, the company whose version arrived matching is not the one evicted."""
        cache, store, service, version = _held_cache()
        scheduler = Scheduler(store, clock=ManualClock(START), ids=SequentialIds("b-"))
        other = scheduler.create_company(name="Other", timezone="Europe/London").id
        with store.read() as reader:
            cache.configuration(reader, other)  # the other company now most recently used
        ahead = _AheadReader(store, version)
        reader = cache.reader(ahead, service.company_id, checked_later=True)  # type: ignore[arg-type]

        confirmed(reader, lambda: reader.get(Service, service.id))

        assert [other, service.company_id] == list(cache._held)


class _AheadStore:
    """A store whose views ask for the version ahead; view *n* reports ``versions[n]``."""

    def __init__(self, store: MemoryStore, versions: list[int]) -> None:
        self._store = store
        self._versions = versions
        self.views: list[_AheadReader] = []

    @contextmanager
    def read(self) -> Iterator[_AheadReader]:
        reader = _AheadReader(self._store, self._versions[len(self.views)])
        self.views.append(reader)
        yield reader


class TestConfiguredRead:
    """``Context.configured_read``: configuration reads (a service, a list) on one view."""

    def _context(self, versions: list[int] | None) -> tuple[Context, _AheadStore, Service]:
        cache, store, service, version = _held_cache()
        views = _AheadStore(store, [version] if versions is None else versions)
        ctx = Context(
            store=views,  # type: ignore[arg-type]
            clock=ManualClock(START),
            ids=SequentialIds(),
            caller=Principal(company_id=service.company_id),
            configuration=cache,
        )
        return ctx, views, service

    def test_a_warm_read_is_answered_from_the_cache_and_sends_only_the_version(self):
        """The held service is returned once the version asked for ahead matched."""
        ctx, views, service = self._context(None)

        found = ctx.configured_read(lambda r: ctx.owned(r, Service, service.id, field="id"))

        assert service == found
        assert [1] == [view.sent for view in views.views]  # the version, nothing else
        assert [] == views.views[0].waiting

    def test_a_newer_version_runs_the_read_again_on_a_view_reading_the_version_first(self):
        """The first view's answer never leaves; the second view reads the version first."""
        ctx, views, service = self._context([10_000, 10_000])
        runs: list[object] = []

        def read(reader: Any) -> Service:
            runs.append(reader)
            return ctx.owned(reader, Service, service.id, field="id")

        found = ctx.configured_read(read)

        assert service == found
        assert 2 == len(runs)
        assert 2 == len(views.views)
        assert isinstance(runs[1], CachedReader)
        assert not runs[1]._unconfirmed  # read after its version, not ahead of it

    def test_an_error_decided_on_an_older_configuration_is_not_raised(self):
        """A service made after the cache loaded: found by the second view, not NotFound."""
        ctx, views, service = self._context([10_000, 10_000])
        elsewhere = Scheduler(views._store, clock=ManualClock(START), ids=SequentialIds("new-"))
        made = elsewhere.for_company(service.company_id).services.create(
            name="New", duration=30, reason="r"
        )
        runs: list[Any] = []

        def read(reader: Any) -> Service:
            runs.append(reader)
            return ctx.owned(reader, Service, made.id, field="id")

        assert made == ctx.configured_read(read)
        assert 2 == len(runs)
        assert not runs[1]._unconfirmed  # the second view read the version first

    def test_a_list_of_services_reads_the_store_once_per_change(self, monkeypatch):
        """With the cache, repeated lists read the services once; without it, every time."""
        counts = {}
        for cached in (True, False):
            _, ws, service = _business(cache_configuration=cached)
            seen: list[str] = []
            original = MemoryReader.find

            def find(self, kind, /, *, company_id, location_id=None, seen=seen, original=original):
                if kind is Service:
                    seen.append(company_id)
                return original(self, kind, company_id=company_id, location_id=location_id)

            monkeypatch.setattr(MemoryReader, "find", find)
            for _ in range(3):
                assert [service] == list(ws.services.list().data)
            counts[cached] = len(seen)
            monkeypatch.undo()

        assert {True: 1, False: 3} == counts  # the first list loads the configuration


class TestNewerKept:
    """Versions only rise: a reader behind the held version (a lagging replica) does not evict it."""

    def test_a_reader_behind_is_answered_at_its_version_and_the_newer_one_stays(self):
        cache, store, service, version = _held_cache()

        behind = cache.configuration(_AheadReader(store, version - 1), service.company_id)
        loads = cache.loads
        current = cache.configuration(_AheadReader(store, version), service.company_id)

        assert behind is not None
        assert version - 1 == behind.version
        assert current is not None
        assert version == current.version
        assert loads == cache.loads  # the held one answered: not read again

    def test_a_reader_ahead_replaces_the_older_one(self):
        cache, store, service, version = _held_cache()

        ahead = cache.configuration(_AheadReader(store, version + 1), service.company_id)
        loads = cache.loads
        again = cache.configuration(_AheadReader(store, version + 1), service.company_id)
        older = cache.configuration(_AheadReader(store, version), service.company_id)

        assert ahead is again
        assert loads == cache.loads - 1  # the older version is read for its reader, not kept
        assert older is not None
        assert version == older.version
        assert cache.configuration(_AheadReader(store, version + 1), service.company_id) is ahead


class TestCachedReads:
    """The reads a cached reader answers or hands on for the booking check's snapshot."""

    def test_windows_touching_is_the_two_reads(self):
        """Both windows reads at once give what blocks_touching and allocations_touching give."""
        scheduler, ws, service = _business()
        resource = ws.resources.list().data[0]
        ws.resources.create_block(
            resource.id, start_date=DAY, end_date=DAY, start_time=900, end_time=1000
        )
        with scheduler.store.read() as view:
            reader = ConfigurationCache().reader(view, ws.company.get().id)
            assert isinstance(reader, CachedReader)
            targets = [service.id, resource.id]

            together = reader.windows_touching(
                block_targets=targets, allocation_targets=targets, first=DAY, last=DAY
            )

            assert together == (
                reader.blocks_touching(target_ids=targets, first=DAY, last=DAY),
                reader.allocations_touching(target_ids=targets, first=DAY, last=DAY),
            )
            assert len(together[0]) == 1

    def test_the_occupancy_read_is_the_stores_own(self):
        """A cached reader hands out the store's occupancy read, and None for a store without one."""
        scheduler, ws, _ = _business()
        with scheduler.store.read() as view:
            reader = ConfigurationCache().reader(view, ws.company.get().id)
            assert isinstance(reader, CachedReader)

            assert reader.appointments_occupying == view.appointments_occupying

            class _Plain:
                """A reader without the capability (only its version is read)."""

                def configuration_version(self, company_id: str) -> int:
                    return view.configuration_version(company_id)

            bare = CachedReader(_Plain(), reader.configuration)  # type: ignore[arg-type]

            assert bare.appointments_occupying is None
