"""
A padding edit applies to the appointments already booked (docs/semantics.md "A padding edit
applies to existing appointments"): the booking check, which reads back only as far as the
company's largest padding, sees it as the listing does.

The company is in New York; the clock stands at Monday 2026-01-05 09:00 UTC (04:00 local), so
Tuesday 2026-01-06 is wholly bookable (business hours 09:00-17:00).
"""

from __future__ import annotations

from datetime import date, datetime, time, timedelta
from zoneinfo import ZoneInfo

import pytest

from slotwise import SlotUnavailable, Workspace
from slotwise.model import Appointment, Resource, Service

NEW_YORK = ZoneInfo("America/New_York")
TUESDAY = date(2026, 1, 6)


def _at(hhmm: int) -> datetime:
    return datetime.combine(TUESDAY, time(hhmm // 100, hhmm % 100), NEW_YORK)


def _book(ws: Workspace, service: Service, resource: Resource, start: int) -> Appointment:
    """Book 30 minutes of *service* on *resource* from *start* (HHMM, Tuesday) for Ann."""
    return ws.appointments.create(
        service.id,
        _at(start),
        _at(start) + timedelta(minutes=30),
        resource_id=resource.id,
        complete_booking="BK",
        name="Ann Lee",
        email="ann@example.com",
    )


def _starts(ws: Workspace, service: Service, resource: Resource) -> list[datetime]:
    found = ws.availability.times(service.id, TUESDAY, TUESDAY, resource_id=resource.id)
    return [slot.start for slot in found.available_times]


class TestPaddingEdits:
    """The padding a service has now is what its appointments occupy, booked before or after."""

    def test_padding_raised_after_a_booking_blocks_the_time_after_it(
        self, ws: Workspace, service: Service, resource: Resource
    ):
        """Booked 10:00-10:30 without padding; padding raised to 60: 10:30 to 11:15 are taken."""
        _book(ws, service, resource, 1000)
        assert _at(1030) in _starts(ws, service, resource)

        ws.services.update(service.id, padding=60, reason="cleaning")

        starts = _starts(ws, service, resource)
        # A new slot needs its own 30 minutes plus 60 of padding free too: 09:00 cannot start.
        assert [_at(hhmm) for hhmm in (1130, 1145)] == [s for s in starts if s <= _at(1145)]
        for start in (1030, 1100):
            with pytest.raises(SlotUnavailable):
                _book(ws, service, resource, start)
        assert _book(ws, service, resource, 1130).start == _at(1130)

    def test_padding_of_another_service_raised_later_is_seen(
        self, ws: Workspace, service: Service, resource: Resource
    ):
        """A booking of a service whose padding later became a whole day blocks the day after it."""
        other = ws.services.create(name="Colour", duration=30, reason="r")
        _book(ws, other, resource, 900)

        ws.services.update(other.id, padding=1440, reason="drying")

        assert [] == _starts(ws, service, resource)
        with pytest.raises(SlotUnavailable):
            _book(ws, service, resource, 1600)

    def test_padding_lowered_frees_the_time_again(
        self, ws: Workspace, service: Service, resource: Resource
    ):
        """Padding 60 lowered to 0: the time after a booking is bookable again."""
        ws.services.update(service.id, padding=60, reason="cleaning")
        _book(ws, service, resource, 1000)
        with pytest.raises(SlotUnavailable):
            _book(ws, service, resource, 1030)

        ws.services.update(service.id, padding=0, reason="no cleaning")

        assert _at(1030) in _starts(ws, service, resource)
        assert _book(ws, service, resource, 1030).start == _at(1030)
