"""The shared Hypothesis strategies draw only valid model values (tests/strategies.py)."""

from __future__ import annotations

import datetime as datetime_module
from datetime import UTC
from typing import Any

import attrs
from hypothesis import given

import slotwise
from slotwise._time import is_valid_hhmm, zone
from slotwise.model import (
    OPEN_END,
    Allocation,
    AllocationTarget,
    Appointment,
    AppointmentStatus,
    Block,
    BlockTarget,
    BusinessHours,
    DayHours,
    DayWindow,
    Frequency,
    MonthType,
    RepeatRule,
    Resource,
    Service,
    ServiceType,
    WeeklyHours,
)
from tests import strategies

# What a pasted Hypothesis failure program has in scope: the public names and ``datetime``.
_NAMESPACE: dict[str, Any] = {name: getattr(slotwise, name) for name in slotwise.__all__}
_NAMESPACE["datetime"] = datetime_module


def _assert_round_trips(value: Any) -> None:
    """Evolving with no changes and evaluating the repr both give an equal value."""
    assert value == attrs.evolve(value)
    assert value == eval(repr(value), _NAMESPACE)


class TestTimes:
    @given(strategies.hhmm())
    def test_hhmm_is_valid(self, value: int):
        """hhmm() draws only HHMM values in 0..2400 with minutes 00..59."""
        assert is_valid_hhmm(value)

    @given(strategies.zones())
    def test_zones_are_iana(self, name: str):
        """zones() draws only names the zone validator accepts."""
        assert name == zone(name).key

    def test_zones_cover_the_awkward_offsets(self):
        """The curated zones include the DST fixtures and the odd offsets named in the brief."""
        expected = {
            "America/New_York",
            "Europe/London",
            "Europe/Amsterdam",
            "Asia/Kathmandu",
            "Australia/Lord_Howe",
            "UTC",
            "Pacific/Chatham",
        }

        assert expected <= set(strategies.ZONES)

    @given(strategies.utc_instants())
    def test_utc_instants_are_aware_whole_minutes(self, instant: datetime_module.datetime):
        """utc_instants() draws aware UTC datetimes on whole minutes."""
        assert (UTC, 0, 0) == (instant.tzinfo, instant.second, instant.microsecond)


class TestHours:
    @given(strategies.day_windows())
    def test_day_windows_are_valid(self, window: DayWindow):
        """day_windows() draws closed days or windows with start before end."""
        assert window.is_closed or window.start_time < window.end_time
        _assert_round_trips(window)

    @given(strategies.day_windows(closed=False))
    def test_open_day_windows_are_open(self, window: DayWindow):
        """day_windows(closed=False) never draws a closed day."""
        assert not window.is_closed

    @given(strategies.weekly_hours())
    def test_weekly_hours_round_trip(self, hours: WeeklyHours):
        """weekly_hours() values survive evolve and repr."""
        assert isinstance(hours, WeeklyHours)
        _assert_round_trips(hours)

    @given(strategies.day_hours())
    def test_day_hours_are_valid(self, day: DayHours):
        """day_hours() draws closed, open (start < end) or normalised 24-hour days."""
        if day.is_24_hours:
            assert (True, 0, 2400) == (day.is_open, day.start_time, day.end_time)
        elif day.is_open:
            assert day.start_time < day.end_time
        _assert_round_trips(day)

    @given(strategies.business_hours())
    def test_business_hours_round_trip(self, hours: BusinessHours):
        """business_hours() values survive evolve and repr and convert to weekly hours."""
        assert isinstance(hours.as_weekly(), WeeklyHours)
        _assert_round_trips(hours)


class TestRepeatRules:
    @given(strategies.repeat_rules())
    def test_repeat_rules_are_valid(self, rule: RepeatRule):
        """repeat_rules() draws weekly rules with weekdays and others without."""
        assert 1 <= rule.interval <= 99
        assert (rule.frequency is Frequency.WEEKLY) == bool(rule.weekdays)
        if rule.month_day is not None:
            assert rule.frequency is Frequency.MONTHLY
            if rule.month_type is MonthType.WEEKDAY:
                assert rule.month_day // 10 <= 6
                assert 1 <= rule.month_day % 10 <= 5
        _assert_round_trips(rule)


class TestWindows:
    @given(strategies.blocks(id="b9", location_id="loc-9", target=BlockTarget.SERVICE))
    def test_blocks_are_valid(self, block: Block):
        """blocks() keeps the given ids and draws ordered dates and times."""
        assert ("b9", "loc-9", BlockTarget.SERVICE) == (block.id, block.location_id, block.target)
        assert block.start_date <= block.end_date
        assert block.start_time < block.end_time
        _assert_round_trips(block)

    @given(strategies.allocations(target_id="svc-1", target=AllocationTarget.SERVICE))
    def test_allocations_are_valid(self, allocation: Allocation):
        """allocations() keeps the given ids and draws booking limits 0..20."""
        assert ("svc-1", AllocationTarget.SERVICE) == (allocation.target_id, allocation.target)
        assert 0 <= allocation.booking_limit <= 20
        assert allocation.start_date <= allocation.end_date
        if allocation.all_day:
            assert (0, 2400) == (allocation.start_time, allocation.end_time)
        _assert_round_trips(allocation)

    @given(strategies.blocks())
    def test_open_ended_blocks_use_open_end(self, block: Block):
        """An open-ended block ends on OPEN_END exactly."""
        assert block.is_open_ended == (OPEN_END == block.end_date)


class TestRecords:
    @given(strategies.services(id="s1", company_id="c1", type=ServiceType.EVENT))
    def test_services_are_valid(self, service: Service):
        """services() keeps the given ids and draws consistent group and duration limits."""
        assert ("s1", "c1", ServiceType.EVENT) == (service.id, service.company_id, service.type)
        assert (service.max_capacity == 0) == (service.max_group_size == 0)
        assert service.max_group_size <= service.max_capacity
        if service.duration_select:
            assert service.duration_min is not None
            assert service.duration_max is not None
            assert 0 == service.duration_max % service.duration_min
        _assert_round_trips(service)

    @given(strategies.resources(service_ids=("s1", "s2")))
    def test_resources_are_valid(self, resource: Resource):
        """resources() draws zones from the curated list and links only the given services."""
        assert resource.timezone in strategies.ZONES
        assert set(resource.linked_service_ids) <= {"s1", "s2"}
        _assert_round_trips(resource)

    @given(strategies.appointments(resource_ids=("r1", "r2")))
    def test_appointments_are_valid(self, appointment: Appointment):
        """appointments() draws aware UTC start < end and holds only on IN appointments."""
        assert appointment.start.tzinfo is UTC
        assert appointment.end.tzinfo is UTC
        assert appointment.start < appointment.end
        assert ("r1", "r2") == appointment.resource_ids
        has_hold = appointment.hold_expires_at is not None
        assert (appointment.status is AppointmentStatus.INITIAL) == has_hold
        _assert_round_trips(appointment)
