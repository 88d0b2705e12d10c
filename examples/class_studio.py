"""
A class studio: group classes with a capacity, held in allocations, and what to offer when one is full.

Harbor Yoga runs "Vinyasa Flow" (an event-type service) only in its allocations: Monday, Wednesday
and Friday at 07:00 and 18:00, twelve places a class, groups of up to four friends on one booking.
Monday's classes fill up; the script prints the week's timetable with the places left (a full
class is listed as full, from the unavailable times), refuses one more booking for the full class
and books a group of four into the next class with room for them.

Run it: ``pip install . && python examples/class_studio.py``
"""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

from slotwise import (
    BusinessHours,
    DayHours,
    Reason,
    RepeatRule,
    Scheduler,
    ServiceType,
    SlotUnavailable,
    Workspace,
)
from slotwise.testing import ManualClock, SequentialIds

MONDAY = date(2026, 11, 23)
PLACES = 12


def build() -> tuple[Workspace, str]:
    """Create Harbor Yoga: one studio, one teacher, the class and its weekly allocations."""
    sunday_ten = datetime(2026, 11, 22, 18, tzinfo=UTC)  # 10:00 in Los Angeles
    scheduler = Scheduler(clock=ManualClock(sunday_ten), ids=SequentialIds())
    company = scheduler.create_company(name="Harbor Yoga", timezone="America/Los_Angeles")
    studio = scheduler.for_company(company.id)
    early_to_late = DayHours.open(630, 2000)
    hours = BusinessHours(
        mon=early_to_late,
        tue=early_to_late,
        wed=early_to_late,
        thu=early_to_late,
        fri=early_to_late,
    )
    studio.locations.create(name="Harbor Studio", business_hours=hours)
    flow = studio.services.create(
        name="Vinyasa Flow",
        type=ServiceType.EVENT,  # open only inside its allocations
        duration=60,
        reason="class timetable",
        max_capacity=PLACES,  # people per class
        max_group_size=4,  # people on one booking
        booking_limit=PLACES,  # bookings per class
    )
    studio.resources.create(name="Maya", reason="teacher", linked_service_ids=[flow.id])
    for start_time in (700, 1800):
        studio.services.create_allocation(
            flow.id,
            start_date=MONDAY,
            end_date="never",
            start_time=start_time,
            end_time=start_time + 100,
            repeat=RepeatRule(frequency="W", weekdays="135"),  # Mon, Wed, Fri
        )
    return studio, flow.id


def book_group(studio: Workspace, flow_id: str, start: datetime, name: str, size: int) -> None:
    """Book *size* places of the class starting at *start* for *name* and friends."""
    studio.appointments.create(
        flow_id,
        start,
        start + timedelta(minutes=60),
        name=name,
        email=f"{name.split()[0].lower()}@example.com",
        group_size=size,
        complete_booking="BK",
    )


def timetable(studio: Workspace, flow_id: str) -> dict[datetime, int]:
    """Return the week's classes and the places left in each (0 for a full class)."""
    end = MONDAY + timedelta(days=6)
    week = studio.availability.times(flow_id, MONDAY, end)
    places = {slot.start: slot.available_capacity for slot in week.available_times}
    for stretch in studio.availability.unavailable(flow_id, MONDAY, end).unavailable_times:
        if stretch.reason_code is Reason.FULLY_BOOKED:
            places[stretch.start] = 0
    return dict(sorted(places.items()))


def main() -> None:
    """Fill Monday's classes, print the timetable, refuse a full class, find the next with room."""
    studio, flow_id = build()
    classes = list(timetable(studio, flow_id))
    monday_seven, monday_evening = classes[0], classes[1]
    for name, size in (("Ana Ruiz", 4), ("Ben Okafor", 4), ("Chloe Park", 3), ("Dev Patel", 1)):
        book_group(studio, flow_id, monday_seven, name, size)
    for name, size in (("Femi Ade", 4), ("Grace Liu", 4), ("Hugo Blanc", 1)):
        book_group(studio, flow_id, monday_evening, name, size)

    places = timetable(studio, flow_id)
    print(f"Vinyasa Flow, week of {MONDAY:%d %b}: {len(places)} classes of {PLACES} places")
    for start, left in places.items():
        print(f"  {start:%a %d %b %H:%M}  {f'{left} places left' if left else 'full'}")
    assert (len(places), places[monday_seven], places[monday_evening]) == (6, 0, 3)

    try:
        book_group(studio, flow_id, monday_seven, "Eve Stone", 1)
    except SlotUnavailable as refused:  # a full class is not offered at all
        print(f"Eve Stone on {monday_seven:%a %H:%M}: refused ({type(refused).__name__})")
    else:
        raise AssertionError("the full class took one more booking")

    group = 4
    next_class = next(start for start, left in places.items() if left >= group)
    book_group(studio, flow_id, next_class, "Eve Stone", group)
    print(f"Eve Stone and 3 friends: booked the next class with room, {next_class:%a %d %b %H:%M}")
    assert timetable(studio, flow_id)[next_class] == PLACES - group


if __name__ == "__main__":
    main()
