"""Appointment lists between two dates (decision 48): the location's dates, any store, any layer."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from slotwise import InvalidDateRange, InvalidFormat, OutOfRange, Scheduler
from slotwise.storage.memory import MemoryStore
from slotwise.testing import ManualClock, SequentialIds

AUCKLAND = ZoneInfo("Pacific/Auckland")  # UTC+13 in March: local mornings are UTC's evening before


@pytest.fixture
def booked():
    """A workspace in Auckland with a 09:00 appointment on each weekday of two weeks, each booked the day before."""
    clock = ManualClock(datetime(2026, 2, 25, tzinfo=UTC))
    scheduler = Scheduler(MemoryStore(), clock=clock, ids=SequentialIds())
    company = scheduler.create_company(name="Kiwi Spa", timezone="Pacific/Auckland")
    ws = scheduler.for_company(company.id)
    ws.locations.create(name="Ponsonby")
    service = ws.services.create(name="Massage", duration=60, reason="r")
    resource = ws.resources.create(name="Aroha", reason="r", linked_service_ids=[service.id])
    starts = {}
    for offset in range(14):
        day = date(2026, 3, 2) + timedelta(days=offset)
        if day.weekday() < 5:
            start = datetime(day.year, day.month, day.day, 9, tzinfo=AUCKLAND)
            clock.advance(start - timedelta(days=1) - clock.now())  # within the booking horizon
            made = ws.appointments.create(
                service.id,
                start,
                start + timedelta(hours=1),
                resource_id=resource.id,
                complete_booking="BK",
                name="A B",
                email="a@example.com",
            )
            starts[made.id] = day
    return ws, starts


class TestAppointmentDateFilters:
    def test_dates_are_the_locations_dates(self, booked):
        """Tuesday 09:00 in Auckland (Monday 20:00 UTC) is listed for Tuesday, not for Monday."""
        ws, starts = booked
        tuesday = date(2026, 3, 3)

        page = ws.appointments.list(start_date=tuesday, end_date=tuesday)

        assert [tuesday] == [starts[a.id] for a in page.data]
        assert tuesday == page.data[0].start.astimezone(AUCKLAND).date()
        assert page.data[0].start.astimezone(UTC).date() == date(2026, 3, 2)

    def test_ranges_are_inclusive_and_either_side_may_be_open(self, booked):
        """startDate..endDate keeps both ends; one side alone bounds only that side."""
        ws, starts = booked
        days = sorted(starts.values())

        between = ws.appointments.list(start_date="2026-03-04", end_date="2026-03-10", limit=100)
        since = ws.appointments.list(start_date=date(2026, 3, 12), limit=100)
        until = ws.appointments.list(end_date=date(2026, 3, 3), limit=100)

        assert [d for d in days if date(2026, 3, 4) <= d <= date(2026, 3, 10)] == [
            starts[a.id] for a in between.data
        ]
        assert (5, 5) == (between.total, between.count)
        assert [date(2026, 3, 12), date(2026, 3, 13)] == [starts[a.id] for a in since.data]
        assert [date(2026, 3, 2), date(2026, 3, 3)] == [starts[a.id] for a in until.data]

    def test_dates_combine_with_other_filters_and_pages(self, booked):
        """The total counts the matches in the range; pages walk them in creation order."""
        ws, _ = booked

        first = ws.appointments.list(start_date="2026-03-02", end_date="2026-03-13", limit=4)
        rest = ws.appointments.list(
            start_date="2026-03-02", end_date="2026-03-13", offset=4, limit=100
        )
        cancelled = ws.appointments.list(start_date="2026-03-02", status="CN")

        assert (10, True, 6) == (first.total, first.has_more, rest.count)
        assert 0 == cancelled.total

    @pytest.mark.parametrize(
        ("changes", "error", "field"),
        [
            ({"start_date": "2026-03-10", "end_date": "2026-03-09"}, InvalidDateRange, "end_date"),
            ({"start_date": "next tuesday"}, InvalidFormat, "start_date"),
            ({"end_date": 20260310}, InvalidFormat, "end_date"),
            ({"start_date": "1899-12-31"}, OutOfRange, "start_date"),
        ],
    )
    def test_bad_dates_are_refused_naming_the_field(self, booked, changes, error, field):
        """An inverted range, a non-date or a date out of bounds raises a typed error."""
        ws, _ = booked

        with pytest.raises(error) as info:
            ws.appointments.list(**changes)

        assert field == info.value.field
