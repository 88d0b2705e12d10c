"""
The set-ups kept with a cached configuration (decision 49, ``availability._shared``): what the
configuration alone decides of a query is worked out once per version, never reused across a
change, never for records the configuration does not hold, and bounded in size.
"""

from __future__ import annotations

import gc
import weakref
from datetime import UTC, date, datetime, timedelta
from typing import Any

import attrs
import pytest

from slotwise import BusinessHours, DayWindow, Scheduler, Service, WeeklyHours, Workspace
from slotwise.availability import _setup, _shared, open_time
from slotwise.availability._shared import (
    WEIGHT_LIMIT,
    SetupMemo,
    SetupShape,
    SharedSetup,
    setup_memo,
    setup_weight,
)
from slotwise.availability.calculator import available_times
from slotwise.availability.query import AvailabilityQuery
from slotwise.availability.snapshot import read_snapshot, with_busy
from slotwise.model import Block, BlockTarget, Location, Resource
from slotwise.storage.configuration import ConfigurationCache
from slotwise.storage.memory import MemoryStore
from slotwise.testing import ManualClock, SequentialIds

DAY = date(2026, 3, 8)  # spring forward in New York: 02:00 -> 03:00
"""A DST change day, so the cut of a whole day crosses the missing hour."""
NOW = datetime(2026, 3, 5, 12, 0, tzinfo=UTC)


def _business() -> tuple[Scheduler, Workspace, Service, Resource]:
    scheduler = Scheduler(MemoryStore(), clock=ManualClock(NOW), ids=SequentialIds())
    company = scheduler.create_company(name="Acme", timezone="America/New_York")
    ws = scheduler.for_company(company.id)
    ws.locations.create(name="Downtown", business_hours=BusinessHours.always())
    service = ws.services.create(name="Cut", duration=30, booking_interval=30, reason="r")
    ana = ws.resources.create(name="Ana", reason="r", linked_service_ids=[service.id])
    return scheduler, ws, service, ana


def _derivations(monkeypatch: pytest.MonkeyPatch) -> list[SharedSetup]:
    """Record every set-up worked out from the configuration."""
    made: list[SharedSetup] = []
    original = _setup.derive_setup

    def derive(*args: Any) -> SharedSetup:
        made.append(original(*args))
        return made[-1]

    monkeypatch.setattr(_setup, "derive_setup", derive)
    return made


def _starts(ws: Workspace, service: Service, **fields: Any) -> list[datetime]:
    answer = ws.availability.times(service.id, DAY, DAY, **fields)
    return [slot.start.astimezone(UTC) for slot in answer.available_times]


class TestKeptPerVersion:
    def test_the_same_question_twice_is_worked_out_once(self, monkeypatch):
        """Two equal listings and the bookings of that day derive the set-up once."""
        _, ws, service, ana = _business()
        made = _derivations(monkeypatch)

        first = _starts(ws, service)
        second = _starts(ws, service)
        for start in first[:3]:
            ws.appointments.create(
                service.id, start, start + timedelta(minutes=30), resource_id=ana.id
            )
        after = _starts(ws, service)

        assert first == second
        assert first[3:] == after
        # The listing's set-up, then the bookings' (they name the resource): one each.
        assert 2 == len(made)

    def test_the_shared_candidates_stay_blank(self, monkeypatch):
        """Queries that book and list fill copies of the kept candidates, never the kept ones."""
        _, ws, service, ana = _business()
        made = _derivations(monkeypatch)
        free = _starts(ws, service)
        for start in free[:2]:
            ws.appointments.create(
                service.id, start, start + timedelta(minutes=30), resource_id=ana.id
            )

        after = _starts(ws, service, resource_id=ana.id, round_robin="balanced")

        assert free[2:] == after
        assert made
        for blank in (each for shared in made for each in shared.blanks):
            assert ([], [], [], {}) == (blank.held, blank.own, blank.segment_starts, blank.daily)
            assert (0, [], False) == (blank.load, blank.busy_starts, blank.saturated)

    def test_a_configuration_change_is_worked_out_again(self, monkeypatch):
        """New service hours make a new version: the next listing follows them, not the kept."""
        _, ws, service, _ = _business()
        made = _derivations(monkeypatch)
        before = _starts(ws, service)

        ws.services.update(
            service.id,
            availability=WeeklyHours.every_day(DayWindow(start_time=900, end_time=1000)),
            reason="r",
        )
        after = _starts(ws, service)

        assert 48 - 2 == len(before)  # 23 hours on the day the clocks go forward
        assert [
            datetime(2026, 3, 8, 13, 0, tzinfo=UTC),
            datetime(2026, 3, 8, 13, 30, tzinfo=UTC),
        ] == after
        assert 2 == len(made)

    def test_a_narrow_search_is_the_whole_days_cut(self):
        """A search of some wall hours lists the whole day's slots inside them, across the gap."""
        _, ws, service, _ = _business()
        whole = _starts(ws, service)

        narrow = _starts(ws, service, start_time=100, end_time=430)

        # 01:00-04:30 wall time on the day 02:00-03:00 does not exist: 01:00, 01:30 EST and
        # 03:00 to 04:00 EDT.
        assert [
            start
            for start in whole
            if datetime(2026, 3, 8, 6, 0, tzinfo=UTC)
            <= start
            <= datetime(2026, 3, 8, 8, 0, tzinfo=UTC)
        ] == narrow
        assert 5 == len(narrow)


class TestOnlyTheConfigurationsOwnRecords:
    def _snapshot(self, *, changed: bool) -> Any:
        scheduler, ws, service, _ = _business()
        cache = ConfigurationCache()
        query = AvailabilityQuery(service_id=service.id, start_date=DAY, end_date=DAY)
        with scheduler.store.read() as view:
            reader = cache.reader(view, ws.company.get().id)
            location = reader.find(Location, company_id=service.company_id)[0]
            held = reader.get(Service, service.id)
            assert held is not None
            given = attrs.evolve(held, duration=60) if changed else held
            return read_snapshot(
                reader, query, location=location, settings=location.settings, service=given
            )

    def test_records_read_from_the_configuration_carry_it(self):
        """Every record the configuration's own: the snapshot names the configuration."""
        assert self._snapshot(changed=False).configuration is not None

    def test_a_record_changed_by_the_caller_does_not(self):
        """A service the caller changed is not the configuration's: nothing is kept for it."""
        assert self._snapshot(changed=True).configuration is None

    def test_a_copy_the_caller_changes_keeps_nothing_and_spoils_nothing(self):
        """
        A snapshot copied with other hours or a what-if block drops its configuration: the copy
        answers by its own records, and the next honest query of that version by the store's.
        """
        honest = self._snapshot(changed=False)
        query = AvailabilityQuery(service_id=honest.service.id, start_date=DAY, end_date=DAY)
        nine_to_ten = WeeklyHours.every_day(DayWindow(start_time=900, end_time=1000))
        other_hours = attrs.evolve(
            honest, service=attrs.evolve(honest.service, availability=nine_to_ten)
        )
        closed = Block(
            id="what-if",
            company_id=honest.company.id,
            location_id=honest.location.id,
            target=BlockTarget.CALENDAR,
            target_id=honest.calendar.id,
            start_date=DAY,
            end_date=DAY,
            start_time=0,
            end_time=2400,
        )
        blocked = attrs.evolve(honest, blocks=(*honest.blocks, closed))

        other_answer = available_times(other_hours, query, NOW).available_times
        blocked_answer = available_times(blocked, query, NOW).available_times
        honest_answer = available_times(honest, query, NOW).available_times

        assert other_hours.configuration is None
        assert blocked.configuration is None
        assert 2 == len(other_answer)
        assert 0 == len(blocked_answer)
        assert 46 == len(honest_answer)

    def test_busy_time_added_keeps_the_configuration(self):
        """with_busy adds external busy time (not configuration) and keeps what is kept."""
        honest = self._snapshot(changed=False)

        busy = with_busy(honest, {})

        assert busy.configuration is honest.configuration is not None


class TestBounded:
    def test_a_set_up_weighs_the_grid_starts_it_may_hold(self):
        """Candidates times dates times a whole day's starts at the step, rounded up."""
        assert 1440 == setup_weight(1, 1, 1)
        assert 2 * 3 * 48 == setup_weight(2, 3, 30)
        assert 7 * 3 == setup_weight(0, 7, 700)  # no candidate still weighs its dates

    def test_the_companies_of_one_cache_share_one_memo(self):
        """One bound for every configuration a cache holds, not one per company and version."""
        scheduler, ws, _, _ = _business()
        other = scheduler.for_company(scheduler.create_company(name="B", timezone="UTC").id)
        other.locations.create(name="Main")
        cache = ConfigurationCache()
        with scheduler.store.read() as view:
            first = cache.configuration(view, ws.company.get().id)
            second = cache.configuration(view, other.company.get().id)

        assert first is not None
        assert second is not None
        assert setup_memo(first) is setup_memo(second)

    def test_the_oldest_leave_first_within_the_limit(self):
        """Keeping past the limit lets the oldest set-ups go; a kept key is kept once."""
        memo = SetupMemo()
        first, second, third = SharedSetup(), SharedSetup(), SharedSetup()

        memo.keep("first", first, WEIGHT_LIMIT // 2)
        memo.keep("first", SharedSetup(), WEIGHT_LIMIT // 2)
        memo.keep("second", second, WEIGHT_LIMIT // 2)
        memo.keep("third", third, 1)

        assert memo.get("first") is None
        assert memo.get("second") is second
        assert memo.get("third") is third
        assert WEIGHT_LIMIT // 2 + 1 == memo.weight

    def test_a_narrow_search_over_the_bound_is_worked_out_on_its_own(self, monkeypatch):
        """Not kept: a narrow search answers as a whole-day cut would, without the whole day."""
        monkeypatch.setattr(_shared, "WEIGHT_LIMIT", 0)
        _, ws, service, _ = _business()
        whole = _starts(ws, service)
        cuts: list[object] = []
        original = _setup._CalculatorSetup.whole_day_record

        def whole_day_record(self: Any, day: date) -> Any:
            cuts.append(day)
            return original(self, day)

        monkeypatch.setattr(_setup._CalculatorSetup, "whole_day_record", whole_day_record)

        narrow = _starts(ws, service, start_time=100, end_time=430)

        assert [start for start in whole if start in narrow] == narrow
        assert 5 == len(narrow)
        # The narrowed record is made from the whole day's record once; no whole day's open
        # time is worked out to be cut.
        assert [DAY] == cuts

    def test_a_set_up_larger_than_the_limit_is_not_kept(self):
        """A query over more candidate-dates than the limit is worked out each time."""
        memo = SetupMemo()

        memo.keep("huge", SharedSetup(), WEIGHT_LIMIT + 1)

        assert memo.get("huge") is None
        assert 0 == memo.weight


def _open_days(monkeypatch: pytest.MonkeyPatch) -> list[tuple[object, date]]:
    """Record every (resource, date) whose open time and grid starts are worked out."""
    worked: list[tuple[object, date]] = []
    original = open_time._OpenTime._open_day

    def open_day(self: Any, record: Any, res: Any) -> Any:
        worked.append((res.id, record.date))
        return original(self, record, res)

    monkeypatch.setattr(open_time._OpenTime, "_open_day", open_day)
    return worked


class TestSharedShapes:
    def test_resources_alike_share_a_days_open_time_across_set_ups(self, monkeypatch):
        """Ana's booking works the day out; Bo's listing of it (another set-up) reads it."""
        _, ws, service, ana = _business()
        bo = ws.resources.create(name="Bo", reason="r", linked_service_ids=[service.id])
        everyone = _starts(ws, service)
        made, worked = _derivations(monkeypatch), _open_days(monkeypatch)
        ws.services.update(service.id, padding=0, reason="r")  # a new version: nothing kept

        start = everyone[4]
        ws.appointments.create(service.id, start, start + timedelta(minutes=30), resource_id=ana.id)
        bos = _starts(ws, service, resource_id=bo.id)
        anas = _starts(ws, service, resource_id=ana.id)

        assert 2 == len(made)  # Ana's set-up and Bo's
        assert [(ana.id, DAY)] == worked
        assert everyone == bos
        assert everyone[:4] + everyone[5:] == anas

    def test_a_resource_with_its_own_block_works_out_its_own_day(self, monkeypatch):
        """Bo's block is his: his day is his own, and Ana's is not cut by it."""
        _, ws, service, ana = _business()
        bo = ws.resources.create(name="Bo", reason="r", linked_service_ids=[service.id])
        ws.resources.create_block(
            bo.id, start_date=DAY, end_date=DAY, start_time=0, end_time=1200, reason="off"
        )
        worked = _open_days(monkeypatch)

        anas = _starts(ws, service, resource_id=ana.id)
        bos = _starts(ws, service, resource_id=bo.id)

        assert [(ana.id, DAY), (bo.id, DAY)] == worked
        assert 46 == len(anas)
        assert all(start >= datetime(2026, 3, 8, 16, 0, tzinfo=UTC) for start in bos)
        assert anas[-len(bos) :] == bos

    def test_a_shape_goes_with_its_last_set_up(self):
        """The memo keeps a shape only while a set-up it holds has it."""
        memo = SetupMemo()
        shape = memo.shape("shape", SetupShape)
        memo.keep("one", SharedSetup(shape), 1)
        kept = weakref.ref(shape)
        del shape

        assert memo.shape("shape", SetupShape) is kept()
        memo.keep("two", SharedSetup(), WEIGHT_LIMIT)  # lets "one" go
        gc.collect()

        assert memo.get("one") is None
        assert kept() is None
