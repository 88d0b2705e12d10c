"""
What a booking without a named resource takes, beside what the listing showed (decision 12,
docs/semantics.md, "Round robin, listing and booking").

``random`` gives a time the same resource in a listing of any range or window and in the
booking of that time; ``balanced`` weighs the loads of the searched range, so a booking (judged
as a listing of its own date) takes the pick of that date's listing.
"""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

import pytest

from slotwise import Scheduler, Workspace
from slotwise.testing import ManualClock, SequentialIds

MONDAY = date(2026, 11, 23)


def _business(round_robin: str) -> tuple[Workspace, str, dict[str, str]]:
    """Ana, Ben and Cy take a 30-minute service; Ana is busier on Wednesday, Ben on Tuesday."""
    scheduler = Scheduler(
        clock=ManualClock(datetime(2026, 11, 20, 12, tzinfo=UTC)), ids=SequentialIds()
    )
    ws = scheduler.for_company(
        scheduler.create_company(name="Acme", timezone="America/New_York").id
    )
    ws.locations.create(name="Downtown")
    service = ws.services.create(
        name="Cut", duration=30, reason="launch", round_robin=round_robin,
        booking_window={"book_ahead_unit": "weeks", "book_ahead_value": 4},
    )  # fmt: skip
    names = {}
    for key, name in enumerate(("Ana", "Ben", "Cy"), start=1):
        resource = ws.resources.create(name=name, reason="hire", options={"sort_key": key})
        names[resource.id] = name
    ana, ben, _ = names
    for resource_id, day, hours in ((ana, 25, (14, 15)), (ben, 24, (16,))):
        for hour in hours:
            start = datetime(2026, 11, day, hour, tzinfo=UTC)
            ws.appointments.create(
                service.id, start, start + timedelta(minutes=30), resource_id=resource_id,
                name="Ann Lee", email="ann@example.com", complete_booking="RS",
            )  # fmt: skip
    return ws, service.id, names


def _picks(ws: Workspace, service_id: str, first: date, last: date, **window: int) -> dict:
    listed = ws.availability.times(service_id, first, last, **window)
    return {slot.start: slot.resource_id for slot in listed.available_times}


def test_random_gives_a_time_one_resource_whatever_the_range_or_window():
    """A week, its Tuesday, and Tuesday 10:00-12:00: each time gets the same resource."""
    ws, service_id, _ = _business("random")
    tuesday = MONDAY + timedelta(days=1)

    week = _picks(ws, service_id, MONDAY, MONDAY + timedelta(days=6))
    day = _picks(ws, service_id, tuesday, tuesday)
    window = _picks(ws, service_id, tuesday, tuesday, start_time=1000, end_time=1200)

    assert day
    assert window
    assert {start: week[start] for start in day} == day
    assert {start: day[start] for start in window} == window
    assert len(set(day.values())) > 1  # a real choice among the three


@pytest.mark.parametrize("first_offset", [0, 1])
def test_a_random_booking_takes_the_listed_resource(first_offset: int):
    """Booking each listed Tuesday time without a resource takes the resource the week showed."""
    ws, service_id, _ = _business("random")
    first = MONDAY + timedelta(days=first_offset)
    listed = ws.availability.times(service_id, first, first + timedelta(days=6))
    tuesday = [s for s in listed.available_times if s.date == MONDAY + timedelta(days=1)]

    booked = [
        ws.appointments.create(
            service_id,
            slot.start,
            slot.end,
            name="Bo Li",
            email="bo@example.com",
            complete_booking="BK",
        ).resource_ids
        for slot in tuesday[::4]
    ]

    assert [(slot.resource_id,) for slot in tuesday[::4]] == booked


def test_a_balanced_booking_takes_the_pick_of_its_date_s_listing():
    """Balanced weighs the searched range: the booking is the Tuesday listing's pick."""
    ws, service_id, names = _business("balanced")
    tuesday = MONDAY + timedelta(days=1)
    day = ws.availability.times(service_id, tuesday, tuesday).available_times[0]

    booked = ws.appointments.create(
        service_id, day.start, day.end, name="Bo Li", email="bo@example.com",
        complete_booking="BK",
    )  # fmt: skip

    assert (day.resource_id,) == booked.resource_ids
    assert "Ben" != names[day.resource_id]  # Ben is the busiest on Tuesday
