"""
Listing agrees with booking (issue 4 "Prove it"; docs/appointments.md "Booking-time validation").

For random small businesses (``tests.strategies.bookable_cases``, which usually offer slots, and
the stricter ``availability_cases``: zones with DST changes, hours, holidays, blocks, allocations,
limits, capacity, padding, lead time, book-ahead, and appointments in every status), the first
searched day is listed with round robin ``none`` (one resource per slot, the service's own grid).
Then:

* every listed slot can be booked: ``create(..., complete_booking="BK")`` for a new customer,
  each slot on a fresh store holding the same records, succeeds with exactly that time and
  resource;
* no unlisted time can: every quarter hour of the location day, the listed starts of the other
  resources, a minute either side of some listed starts (the first, the last, a few drawn ones),
  and a few drawn minutes are refused for each resource that lacks them, with
  ``SlotUnavailable`` — or, as documented, ``PastAppointment`` for a start before now and
  ``InvalidReference`` for a resource that does not take the service;
* without a named resource, every time the default (balanced) listing offers books, taking the
  resource that listing showed ("the service's round robin picks one, as in the listing").

``TestOtherListingsAgreeWithBooking`` does the same for the reschedule listing of a booked
appointment (each listed slot takes it, unless its group does not fit the slot's available
capacity: ``CapacityExceeded``, docs/semantics.md "Listings are for a party of one") and for a
listing of several named resources together (each slot books them all at once).

``TestQueryInterval``: a listing asked for another grid (the query's ``interval``, decision 6) is a
view; booking keeps the business's grid (docs/semantics.md "The query's interval is a view").
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, date, datetime, time, timedelta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from slotwise import Scheduler, Workspace
from slotwise._time import zone
from slotwise.availability.query import AvailabilityQuery
from slotwise.availability.results import Slot
from slotwise.errors import CapacityExceeded, InvalidReference, PastAppointment, SlotUnavailable
from slotwise.model import AppointmentStatus, Resource, RoundRobin
from slotwise.storage.memory import MemoryStore
from slotwise.testing import ManualClock, SequentialIds
from tests import strategies
from tests.oracle import Business

# Each example lists a day and books every slot on its own store: 100 examples keep CI near ten
# seconds; a profile asking for more than CI's 300 (deep) gets all it asks for.
EXAMPLES = 100 if settings().max_examples <= 300 else settings().max_examples


def workspace(business: Business, now: datetime) -> Workspace:
    """Return a workspace on a fresh MemoryStore holding *business*'s records, at *now*."""
    store = MemoryStore()
    with store.transaction() as tx:
        for record in business.records():
            tx.insert(record)
    scheduler = Scheduler(store, clock=ManualClock(now), ids=SequentialIds("new-"))
    return scheduler.for_company(business.company.id)


def listed(ws: Workspace, business: Business, day: date) -> list[Slot]:
    """Return the slots of *day*, round robin none (one resource per slot), the service's grid."""
    result = ws.availability.times(
        business.service.id,
        day,
        day,
        location_id=business.location.id,
        round_robin=RoundRobin.NONE,
    )
    return list(result.available_times)


def day_minutes(business: Business, day: date) -> list[datetime]:
    """Return every quarter hour of the location's *day* as UTC instants (23 to 25 hours)."""
    tz = zone(business.location.timezone)
    first = datetime.combine(day, time(0), tz).astimezone(UTC)
    last = datetime.combine(day + timedelta(days=1), time(0), tz).astimezone(UTC)
    count = int((last - first) / timedelta(minutes=15))
    return [first + n * timedelta(minutes=15) for n in range(count)]


def refusal(resource: Resource, business: Business, start: datetime, now: datetime) -> type:
    """Return the documented refusal of an unlisted *start* for *resource* (create's order)."""
    if not resource.takes_service(business.service.id):
        return InvalidReference
    if start < now:
        return PastAppointment
    return SlotUnavailable


def candidates(
    business: Business, day: date, slots: Sequence[Slot], picks: Sequence[int]
) -> list[datetime]:
    """
    Return the starts to try: every quarter hour of the day, every listed start (of any
    resource), and a minute either side of the first, the last and the *picks* listed slots,
    and *picks* as minutes of the day.
    """
    quarters = day_minutes(business, day)
    found = set(quarters) | {slot.start.astimezone(UTC) for slot in slots}
    found |= {quarters[0] + timedelta(minutes=pick % (24 * 60)) for pick in picks}
    if slots:
        chosen = [slots[0], slots[-1], *(slots[pick % len(slots)] for pick in picks)]
        for slot in chosen:
            start = slot.start.astimezone(UTC)
            found |= {start - timedelta(minutes=1), start + timedelta(minutes=1)}
    return sorted(found)


def cases(
    *, max_resources: int = 2
) -> st.SearchStrategy[tuple[Business, AvailabilityQuery, datetime]]:
    """Three in four businesses usually offer slots; the rest draw every restriction."""
    return st.sampled_from((True, True, True, False)).flatmap(
        lambda bookable: (
            strategies.bookable_cases()
            if bookable
            else strategies.availability_cases(max_resources=max_resources)
        )
    )


class TestListingAgreesWithBooking:
    @settings(max_examples=EXAMPLES)
    @given(
        case=cases(),
        picks=st.lists(st.integers(0, 10_000), max_size=6),
    )
    def test_listed_slots_book_and_unlisted_times_do_not(
        self, case: tuple[Business, AvailabilityQuery, datetime], picks: list[int]
    ):
        """Every listed slot books as BK on a fresh store; every unlisted time is refused, typed."""
        business, query, now = case
        day = query.start_date
        shared = workspace(business, now)
        slots = listed(shared, business, day)
        duration = timedelta(minutes=business.service.duration)

        for slot in slots:
            booked = workspace(business, now).appointments.create(
                business.service.id,
                slot.start,
                slot.end,
                resource_id=slot.resource_id,
                complete_booking="BK",
                name="Ann Lee",
                email="ann@example.com",
            )

            assert (AppointmentStatus.BOOKED, (slot.resource_id,)) == (
                booked.status,
                booked.resource_ids,
            )
            # In UTC: PEP 495 makes a wall time in a DST fold unequal to every other zone's.
            assert (slot.start.astimezone(UTC), slot.end.astimezone(UTC)) == (
                booked.start,
                booked.end,
            )

        offered = {(slot.resource_id, slot.start.astimezone(UTC)) for slot in slots}
        for resource in business.resources:
            for start in candidates(business, day, slots, picks):
                if (resource.id, start) in offered:
                    continue
                expected = refusal(resource, business, start, now)
                with pytest.raises(expected):
                    shared.appointments.create(
                        business.service.id,
                        start,
                        start + duration,
                        resource_id=resource.id,
                        complete_booking="BK",
                        name="Ann Lee",
                        email="ann@example.com",
                    )

        # Without a named resource the service's round robin picks, "as in the listing": each
        # time its default listing offers books, taking the resource that listing showed.
        picked = shared.availability.times(
            business.service.id, day, day, location_id=business.location.id
        ).available_times
        for slot in picked:
            booked = workspace(business, now).appointments.create(
                business.service.id,
                slot.start,
                slot.end,
                complete_booking="BK",
                name="Ann Lee",
                email="ann@example.com",
            )

            assert slot.resource_ids == booked.resource_ids


class TestOtherListingsAgreeWithBooking:
    @settings(max_examples=EXAMPLES)
    @given(case=cases(), data=st.data())
    def test_reschedule_listing_slots_reschedule(
        self, case: tuple[Business, AvailabilityQuery, datetime], data: st.DataObject
    ):
        """A booked appointment moves to every slot its reschedule listing offers with room for its group."""
        business, query, now = case
        movable = [
            appointment
            for appointment in business.appointments
            if appointment.status is AppointmentStatus.BOOKED
            and appointment.start >= now
            and appointment.service_id == business.service.id
            # Moving re-validates the group against the service as it is now (BOOKING-408).
            and appointment.group_size
            <= (business.service.max_group_size if business.service.allows_groups else 1)
        ]
        if not movable:
            return
        appointment = data.draw(st.sampled_from(movable), label="appointment")
        day = query.start_date
        slots = (
            workspace(business, now)
            .availability.for_reschedule(appointment.id, day, day)
            .available_times
        )

        for slot in slots:
            moving = workspace(business, now).appointments
            if slot.available_capacity < appointment.group_size:
                # Listings are for one person; the slot's capacity says whether a group fits.
                with pytest.raises(CapacityExceeded):
                    moving.reschedule(
                        appointment.id,
                        start=slot.start,
                        end=slot.end,
                        resource_ids=slot.resource_ids,
                    )
                continue
            moved = moving.reschedule(
                appointment.id,
                start=slot.start,
                end=slot.end,
                resource_ids=slot.resource_ids,
            )

            assert (slot.start.astimezone(UTC), slot.resource_ids) == (
                moved.start,
                moved.resource_ids,
            )

    @settings(max_examples=EXAMPLES)
    @given(case=cases(max_resources=3), data=st.data())
    def test_multi_resource_listing_slots_book(
        self, case: tuple[Business, AvailabilityQuery, datetime], data: st.DataObject
    ):
        """Every slot listed for several resources together books them together as BK."""
        business, query, now = case
        takers = [r.id for r in business.resources if r.takes_service(business.service.id)]
        if len(takers) < 2:
            return
        named = data.draw(
            st.lists(st.sampled_from(takers), min_size=2, max_size=3, unique=True),
            label="resource_ids",
        )
        day = query.start_date
        slots = (
            workspace(business, now)
            .availability.times(
                business.service.id,
                day,
                day,
                location_id=business.location.id,
                resource_ids=named,
            )
            .available_times
        )

        for slot in slots:
            booked = workspace(business, now).appointments.create(
                business.service.id,
                slot.start,
                slot.end,
                resource_ids=named,
                complete_booking="BK",
                name="Ann Lee",
                email="ann@example.com",
            )

            assert (slot.start.astimezone(UTC), set(named)) == (
                booked.start,
                set(booked.resource_ids),
            )


class TestQueryInterval:
    def test_a_query_interval_changes_the_view_not_the_bookable_grid(self):
        """With interval=5 the 09:05 slot is listed but refused; the 09:30 one (on the service grid) books."""
        scheduler = Scheduler(
            MemoryStore(),
            clock=ManualClock(datetime(2026, 1, 5, 9, 0, tzinfo=UTC)),
            ids=SequentialIds(),
        )
        company = scheduler.create_company(name="Acme", timezone="America/New_York")
        ws = scheduler.for_company(company.id)
        ws.locations.create(name="Downtown")
        service = ws.services.create(name="Cut", duration=30, booking_interval=30, reason="r")
        resource = ws.resources.create(name="Ana", reason="r")
        slots = ws.availability.times(
            service.id, "2026-01-06", "2026-01-06", resource_id=resource.id, interval=5
        ).available_times
        off_grid, on_grid = slots[1], slots[6]
        details = {"name": "Ann Lee", "email": "ann@example.com", "complete_booking": "BK"}

        with pytest.raises(SlotUnavailable):
            ws.appointments.create(
                service.id, off_grid.start, off_grid.end, resource_id=resource.id, **details
            )
        booked = ws.appointments.create(
            service.id, on_grid.start, on_grid.end, resource_id=resource.id, **details
        )

        assert ((off_grid.time, on_grid.time), booked.start) == (
            (905, 930),
            on_grid.start.astimezone(UTC),
        )
