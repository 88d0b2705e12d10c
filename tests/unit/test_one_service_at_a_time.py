"""
Issue 9, item 7: a resource serves one service at a time (decision 8a), days count appointment
records (decision 8a), and a day with open time is not closed (decision 41).

Each test failed before the fix. The company is in New York; the clock stands at Monday
2026-01-05 09:00 UTC (04:00 local), so Tuesday 2026-01-06 is wholly bookable.
"""

from __future__ import annotations

from datetime import date, datetime, time
from zoneinfo import ZoneInfo

import pytest

from slotwise import Reason, ResourceOptions, SlotUnavailable, Workspace
from slotwise.model import Appointment, Location, Resource, Service

NEW_YORK = ZoneInfo("America/New_York")
TUESDAY = date(2026, 1, 6)
SATURDAY = date(2026, 1, 10)


def _at(hhmm: int, day: date = TUESDAY) -> datetime:
    return datetime.combine(day, time(hhmm // 100, hhmm % 100), NEW_YORK)


@pytest.fixture
def group(ws: Workspace, location: Location) -> Service:
    """A 30-minute class service taking two bookings per slot."""
    return ws.services.create(name="Class", duration=30, reason="r", booking_limit=2)


def _book(ws: Workspace, service: Service, resource: Resource) -> Appointment:
    """Book *service* on *resource* at 10:00-10:30 on Tuesday for Ann."""
    return ws.appointments.create(
        service.id,
        _at(1000),
        _at(1030),
        resource_id=resource.id,
        complete_booking="BK",
        name="Ann Lee",
        email="ann@example.com",
    )


def _starts(ws: Workspace, service: Service, resource: Resource) -> list[datetime]:
    found = ws.availability.times(service.id, TUESDAY, TUESDAY, resource_id=resource.id)
    return [slot.start for slot in found.available_times]


class TestOneServiceAtATime:
    """Decision 8a: an appointment blocks every other service on its resources completely."""

    def test_one_to_one_booking_blocks_a_group_service(
        self, ws: Workspace, service: Service, group: Service, resource: Resource
    ):
        """A 1-to-1 booking at 10:00 leaves no place in a class (limit 2) at 10:00."""
        _book(ws, service, resource)

        assert _at(1000) not in _starts(ws, group, resource)
        with pytest.raises(SlotUnavailable):
            _book(ws, group, resource)

    def test_group_booking_blocks_a_one_to_one_service(
        self, ws: Workspace, service: Service, group: Service, resource: Resource
    ):
        """One seat taken in a class at 10:00 leaves the 1-to-1 service no room there."""
        _book(ws, group, resource)

        assert _at(1000) not in _starts(ws, service, resource)
        with pytest.raises(SlotUnavailable):
            _book(ws, service, resource)

    def test_bookings_of_the_same_service_share_the_slot(
        self, ws: Workspace, group: Service, resource: Resource
    ):
        """Two bookings of the class fill its two places; the second is still offered."""
        _book(ws, group, resource)
        offered = ws.availability.times(group.id, TUESDAY, TUESDAY, resource_id=resource.id)
        ten = next(slot for slot in offered.available_times if slot.start == _at(1000))
        _book(ws, group, resource)

        assert (2, 1) == (ten.allowable_bookings, ten.available_bookings)
        assert _at(1000) not in _starts(ws, group, resource)

    def test_other_service_is_listed_fully_booked(
        self, ws: Workspace, service: Service, group: Service, resource: Resource
    ):
        """The minutes another service holds read BK (fully booked) in unavailable times."""
        _book(ws, service, resource)
        found = ws.availability.unavailable(group.id, TUESDAY, TUESDAY, resource_id=resource.id)

        assert any(
            item.reason_code is Reason.FULLY_BOOKED
            and item.start == _at(1000)
            and item.end == _at(1030)
            for item in found.unavailable_times
        )


class TestDays:
    """Decision 8a (records counted once) and decision 41 (closed only without open time)."""

    def test_booking_of_two_resources_counts_once(
        self, ws: Workspace, location: Location, service: Service, resource: Resource
    ):
        """bookingCount counts appointment records, not the resources they take."""
        other = ws.resources.create(name="Bea", reason="r")
        ws.appointments.create(
            service.id,
            _at(1000),
            _at(1030),
            resource_ids=[resource.id, other.id],
            complete_booking="BK",
            name="Ann Lee",
            email="ann@example.com",
        )
        days = ws.availability.days(service.id, TUESDAY, TUESDAY)

        assert 1 == days.available_days[0].booking_count

    def test_resource_ignoring_business_hours_opens_a_closed_day(
        self, ws: Workspace, location: Location
    ):
        """Saturday is closed for the location, but a resource working it makes the day open."""
        service = ws.services.create(
            name="Weekend cut",
            duration=30,
            reason="r",
            availability={"sat": {"start_time": 900, "end_time": 1700}},  # type: ignore[typeddict-item]
        )
        ws.resources.create(
            name="Weekend",
            reason="r",
            options=ResourceOptions(ignore_business_hours=True),
            weekly_hours={"sat": {"start_time": 900, "end_time": 1700}},
        )
        saturday = ws.availability.days(service.id, SATURDAY, SATURDAY).available_days[0]

        assert (False, True) == (saturday.closed, saturday.available)

    def test_closed_day_without_such_a_resource_stays_closed(
        self, ws: Workspace, location: Location, service: Service, resource: Resource
    ):
        """With only business-hours resources, Saturday reads closed (CL)."""
        saturday = ws.availability.days(service.id, SATURDAY, SATURDAY).available_days[0]

        assert (True, Reason.CLOSED) == (saturday.closed, saturday.reason_code)
