"""The pure availability calculator on hand-built snapshots: decisions 5-16, one rule per class."""

from __future__ import annotations

import collections
from datetime import UTC, date, datetime, timedelta
from typing import Any

import attrs
import pytest
from hypothesis import given
from hypothesis import strategies as st

from slotwise._time import zone
from slotwise.availability.calculator import (
    available_times,
    day_availability,
    effective_duration,
    free_time,
    slot_step,
    unavailable_times,
)
from slotwise.availability.query import AvailabilityQuery
from slotwise.availability.results import Reason, Slot, UnavailableTime
from slotwise.availability.snapshot import Snapshot
from slotwise.errors import InconsistentFields, InvalidFormat, NaiveDatetime, OutOfRange
from slotwise.model import (
    Allocation,
    Appointment,
    Block,
    BookingWindow,
    BusinessHours,
    Calendar,
    Company,
    DayHours,
    DayWindow,
    Holiday,
    Location,
    LocationSettings,
    RepeatRule,
    Resource,
    ResourceOptions,
    RoundRobin,
    Service,
    WeeklyHours,
)
from slotwise.rules.intervals import Interval, IntervalSet

MON = date(2026, 3, 2)
TUE = date(2026, 3, 3)
SUN = date(2026, 3, 1)
NOW = datetime(2026, 3, 1, tzinfo=UTC)
"""Sunday midnight before the Monday most tests search."""

HOURS = BusinessHours(
    mon=DayHours.open(900, 1200),
    tue=DayHours.open(900, 1200),
    wed=DayHours.open(900, 1200),
    thu=DayHours.open(900, 1200),
    fri=DayHours.open(900, 1200),
)
"""Business hours: 09:00-12:00 on weekdays, closed at the weekend."""

COMPANY = Company(id="c1", name="Acme", timezone="UTC")
LOCATION = Location(
    id="l1",
    company_id="c1",
    name="Main",
    timezone="UTC",
    is_primary=True,
    business_hours=HOURS,
    primary_calendar_id="cal1",
    settings=LocationSettings(
        booking_window=BookingWindow(book_ahead_unit="months", book_ahead_value=24)
    ),
)
CALENDAR = Calendar(id="cal1", company_id="c1", location_id="l1", name="Main", interval=60)
SERVICE = Service(
    id="s1",
    company_id="c1",
    location_id="l1",
    name="Cut",
    duration=60,
    availability=HOURS.as_weekly(),
    round_robin=RoundRobin.NONE,
)


def at(hhmm: int, day: date = MON) -> datetime:
    """Return the UTC instant of *hhmm* on *day*."""
    return datetime(day.year, day.month, day.day, tzinfo=UTC) + timedelta(
        hours=hhmm // 100, minutes=hhmm % 100
    )


def resource(rid: str = "r1", **changes: Any) -> Resource:
    """Return a UTC resource working the business hours."""
    values: dict[str, Any] = {
        "id": rid,
        "company_id": "c1",
        "location_id": "l1",
        "name": rid.upper(),
        "timezone": "UTC",
        "weekly_hours": HOURS.as_weekly(),
    }
    values.update(changes)
    return Resource(**values)


def service(**changes: Any) -> Service:
    """Return the base service with *changes*."""
    return attrs.evolve(SERVICE, **changes)


def appointment(
    start: int, end: int, *, day: date = MON, resources: tuple[str, ...] = ("r1",), **fields: Any
) -> Appointment:
    """Return an appointment of the base service from *start* to *end* (HHMM, UTC)."""
    values: dict[str, Any] = {
        "id": f"a{start}-{end}-{day.isoformat()}-{'-'.join(resources)}",
        "company_id": "c1",
        "location_id": "l1",
        "service_id": "s1",
        "resource_ids": resources,
        "status": "BK",
        "start": at(start, day),
        "end": at(end, day),
        "created_at": NOW - timedelta(days=1),
    }
    values.update(fields)
    return Appointment(**values)


def block(target: str, target_id: str, start: int, end: int, **fields: Any) -> Block:
    """Return a one-day block on Monday from *start* to *end*."""
    values: dict[str, Any] = {
        "id": f"b-{target}-{start}",
        "company_id": "c1",
        "location_id": "l1",
        "target": target,
        "target_id": target_id,
        "start_date": MON,
        "end_date": MON,
        "start_time": start,
        "end_time": end,
    }
    values.update(fields)
    return Block(**values)


def allocation(target: str, target_id: str, start: int, end: int, **fields: Any) -> Allocation:
    """Return a one-day allocation on Monday from *start* to *end*."""
    values: dict[str, Any] = {
        "id": f"al-{target}-{start}",
        "company_id": "c1",
        "location_id": "l1",
        "target": target,
        "target_id": target_id,
        "start_date": MON,
        "end_date": MON,
        "start_time": start,
        "end_time": end,
    }
    values.update(fields)
    return Allocation(**values)


def snapshot(**fields: Any) -> Snapshot:
    """Return a snapshot of the base records with *fields* replaced."""
    values: dict[str, Any] = {
        "company": COMPANY,
        "location": LOCATION,
        "calendar": CALENDAR,
        "service": SERVICE,
        "resources": (resource(),),
    }
    values.update(fields)
    return Snapshot(**values)


def query(**fields: Any) -> AvailabilityQuery:
    """Return a query for the base service on Monday with *fields*."""
    values: dict[str, Any] = {"service_id": "s1", "start_date": MON, "end_date": MON}
    values.update(fields)
    return AvailabilityQuery(**values)


def slots(snap: Snapshot, now: datetime = NOW, **fields: Any) -> tuple[Slot, ...]:
    """Return the slots of a query."""
    return available_times(snap, query(**fields), now).available_times


def times(snap: Snapshot, now: datetime = NOW, **fields: Any) -> list[str]:
    """Return the UTC start times (``HH:MM``) of the slots of a query."""
    return [slot.start.astimezone(UTC).strftime("%H:%M") for slot in slots(snap, now, **fields)]


def pairs(snap: Snapshot, now: datetime = NOW, **fields: Any) -> list[tuple[str, str | None]]:
    """Return ``(HH:MM, resource id)`` of the slots of a query."""
    return [
        (slot.start.astimezone(UTC).strftime("%H:%M"), slot.resource_id)
        for slot in slots(snap, now, **fields)
    ]


def stretches(
    snap: Snapshot, now: datetime = NOW, **fields: Any
) -> list[tuple[str, int, int, str | None]]:
    """Return ``(code, from_time, to_time, resource id)`` of the unavailable times of a query."""
    found = unavailable_times(snap, query(**fields), now).unavailable_times
    return [
        (item.reason_code.value, item.from_time, item.to_time, item.resource_id) for item in found
    ]


class TestOpenTime:
    def test_business_service_and_resource_hours_intersect(self):
        """Open time is business ∩ service ∩ resource hours (decision 5)."""
        snap = snapshot(
            service=service(
                availability=WeeklyHours(mon=DayWindow(start_time=1000, end_time=1300))
            ),
            resources=(
                resource(weekly_hours=WeeklyHours(mon=DayWindow(start_time=900, end_time=1100))),
            ),
        )

        assert ["10:00"] == times(snap)

    def test_ignore_business_hours_skips_business_hours(self):
        """A resource with ignore_business_hours is open in service ∩ its own hours only."""
        early = WeeklyHours(mon=DayWindow(start_time=700, end_time=1200))
        ignoring = resource(weekly_hours=early, options=ResourceOptions(ignore_business_hours=True))

        assert ["07:00", "08:00", "09:00", "10:00", "11:00"] == times(
            snapshot(service=service(availability=early), resources=(ignoring,))
        )
        assert ["09:00", "10:00", "11:00"] == times(
            snapshot(service=service(availability=early), resources=(resource(weekly_hours=early),))
        )

    def test_holiday_closes_the_day(self):
        """A location holiday offers nothing that day."""
        closed = attrs.evolve(LOCATION, holidays=(Holiday(date=MON, name="Founders' Day"),))

        assert [] == times(snapshot(location=closed))

    @pytest.mark.parametrize(
        ("target", "target_id"), [("calendar", "cal1"), ("service", "s1"), ("resource", "r1")]
    )
    def test_blocks_take_time_away(self, target: str, target_id: str):
        """Calendar, service and resource blocks remove the time they cover."""
        snap = snapshot(blocks=(block(target, target_id, 1000, 1100),))

        assert ["09:00", "11:00"] == times(snap)

    def test_deleted_block_is_ignored(self):
        """A deleted block no longer takes time away."""
        snap = snapshot(blocks=(block("calendar", "cal1", 1000, 1100, deleted=True),))

        assert ["09:00", "10:00", "11:00"] == times(snap)

    def test_block_of_another_resource_is_ignored(self):
        """A resource block applies to its own resource only."""
        snap = snapshot(
            resources=(resource("r1"), resource("r2")),
            blocks=(block("resource", "r2", 900, 1200),),
        )

        assert [("09:00", "r1"), ("10:00", "r1"), ("11:00", "r1")] == pairs(snap)

    def test_service_block_at_another_location_is_ignored(self):
        """A service block placed at another location does not apply here."""
        snap = snapshot(blocks=(block("service", "s1", 900, 1200, location_id="l2"),))

        assert ["09:00", "10:00", "11:00"] == times(snap)

    def test_weekly_block_applies_on_its_weekdays_only(self):
        """A block repeating weekly on Mondays blocks Monday, not Tuesday."""
        weekly = block(
            "calendar",
            "cal1",
            900,
            1000,
            end_date="never",
            repeat=RepeatRule(frequency="W", weekdays="1"),
        )
        found = slots(snapshot(blocks=(weekly,)), end_date=TUE)

        assert [at(1000), at(1100), at(900, TUE), at(1000, TUE), at(1100, TUE)] == [
            slot.start for slot in found
        ]

    def test_event_service_is_open_only_in_its_allocations(self):
        """An event-type service offers times only inside its service allocations."""
        snap = snapshot(
            service=service(type="event"),
            allocations=(allocation("service", "s1", 1000, 1200),),
        )

        assert ["10:00", "11:00"] == times(snap)

    def test_event_service_without_allocations_offers_nothing(self):
        """An event-type service without allocations is closed."""
        assert [] == times(snapshot(service=service(type="event")))

    def test_non_recurring_resource_uses_its_allocations(self):
        """A resource without recurring availability is open only in its allocations."""
        snap = snapshot(
            resources=(resource(recurring_availability=False),),
            allocations=(allocation("resource", "r1", 930, 1130),),
        )

        assert ["09:30", "10:30"] == times(snap)


class TestGrid:
    @pytest.mark.parametrize(
        ("query_interval", "booking_interval", "expected"),
        [
            (30, None, ["09:00", "09:30", "10:00", "10:30", "11:00"]),
            (None, 30, ["09:00", "09:30", "10:00", "10:30", "11:00"]),
            (None, None, ["09:00", "10:00", "11:00"]),
            (20, 30, ["09:00", "09:20", "09:40", "10:00", "10:20", "10:40", "11:00"]),
        ],
    )
    def test_step_precedence(
        self, query_interval: int | None, booking_interval: int | None, expected: list[str]
    ):
        """The step is the query's interval, else the service's, else the calendar's (decision 6)."""
        snap = snapshot(service=service(booking_interval=booking_interval))

        assert expected == times(snap, interval=query_interval)

    def test_slot_step_falls_back_to_the_calendar(self):
        """slot_step returns the calendar's interval when the query and service set none."""
        assert 60 == slot_step(snapshot(), query(), 45)

    def test_grid_is_anchored_at_the_business_and_service_window(self):
        """A resource starting at 09:10 gets the 09:00 grid (10:00, 11:00), not 09:10."""
        late = resource(weekly_hours=WeeklyHours(mon=DayWindow(start_time=910, end_time=1200)))

        assert ["10:00", "11:00"] == times(snapshot(resources=(late,)))

    def test_each_allocation_anchors_its_own_grid(self):
        """Two allocations of a non-recurring resource each start a grid of their own."""
        snap = snapshot(
            resources=(resource(recurring_availability=False),),
            allocations=(
                allocation("resource", "r1", 900, 1000),
                allocation("resource", "r1", 1030, 1200),
            ),
        )

        assert ["09:00", "10:30"] == times(snap)

    def test_slot_must_fit_in_open_time(self):
        """A 90-minute slot on a 60-minute grid must end by closing time."""
        assert ["09:00", "10:00"] == times(snapshot(service=service(duration=90)))


class TestPadding:
    def test_appointment_padding_occupies_time_after_it(self):
        """An appointment 10:00-10:30 with 30 minutes padding occupies 10:00-11:00 (decision 7)."""
        snap = snapshot(service=service(padding=30), appointments=(appointment(1000, 1030),))

        assert ["11:00"] == times(snap, interval=30)

    def test_without_padding_only_the_appointment_is_occupied(self):
        """Without padding, 10:30 is free again after a 10:00-10:30 appointment."""
        snap = snapshot(appointments=(appointment(1000, 1030),))

        assert ["09:00", "10:30", "11:00"] == times(snap, interval=30)

    def test_candidate_padding_boundary(self):
        """A slot's own padding may end exactly where the next appointment starts, not later."""
        snap = snapshot(service=service(padding=30), appointments=(appointment(1100, 1130),))

        assert ["09:00", "09:30"] == times(snap, interval=30)

    def test_other_service_appointments_use_their_own_padding(self):
        """An appointment of another service is padded with that service's padding."""
        other = appointment(1000, 1030, service_id="s2")

        assert ["09:00", "11:00"] == times(
            snapshot(appointments=(other,), paddings={"s2": 30}), interval=30
        )


class TestBookingLimit:
    def test_calendar_bookings_per_slot(self):
        """With bookings_per_slot 2, one booking leaves one place (decision 8)."""
        snap = snapshot(
            calendar=attrs.evolve(CALENDAR, bookings_per_slot=2),
            appointments=(appointment(1000, 1100),),
        )
        ten = [slot for slot in slots(snap) if slot.start == at(1000)]

        assert [(2, 1)] == [(slot.allowable_bookings, slot.available_bookings) for slot in ten]

    def test_limit_reached_boundary(self):
        """With bookings_per_slot 2, two overlapping bookings take the slot."""
        snap = snapshot(
            calendar=attrs.evolve(CALENDAR, bookings_per_slot=2),
            appointments=(
                appointment(1000, 1100),
                appointment(1000, 1100, id="second"),
            ),
        )

        assert ["09:00", "11:00"] == times(snap)

    def test_service_limit_overrides_calendar(self):
        """A service booking_limit above 0 overrides the calendar's bookings_per_slot."""
        snap = snapshot(service=service(booking_limit=3))

        assert {3} == {slot.allowable_bookings for slot in slots(snap)}

    def test_allocation_limit_overrides_service(self):
        """An allocation's booking_limit overrides the service's for slots inside it."""
        snap = snapshot(
            service=service(type="event", booking_limit=3),
            allocations=(allocation("service", "s1", 900, 1100, booking_limit=5),),
        )

        assert [5, 5] == [slot.allowable_bookings for slot in slots(snap)]

    def test_peak_not_sum_of_overlapping_bookings(self):
        """Two back-to-back bookings inside one slot count once at their peak."""
        two = attrs.evolve(CALENDAR, bookings_per_slot=2)
        back_to_back = (appointment(1000, 1030), appointment(1030, 1100))
        stacked = (*back_to_back, appointment(1000, 1030, id="third"))

        assert ["09:00", "10:00", "11:00"] == times(
            snapshot(calendar=two, appointments=back_to_back)
        )
        assert ["09:00", "11:00"] == times(snapshot(calendar=two, appointments=stacked))

    def test_any_overlap_blocks_a_single_place(self):
        """With one place, a booking overlapping any part of the slot takes it."""
        assert ["09:00", "11:00"] == times(snapshot(appointments=(appointment(1015, 1030),)))


class TestActiveAppointments:
    @pytest.mark.parametrize(
        ("status", "blocks"),
        [("BK", True), ("RS", True), ("NS", True), ("CN", False), ("RE", False)],
    )
    def test_statuses(self, status: str, blocks: bool):
        """BK, RS and NS take capacity; CN and RE never do (decision 8)."""
        found = times(snapshot(appointments=(appointment(1000, 1100, status=status),)))

        assert (["09:00", "11:00"] if blocks else ["09:00", "10:00", "11:00"]) == found

    def test_hold_counts_until_it_expires(self):
        """An IN hold takes capacity before hold_expires_at and not from then on."""
        expires = NOW + timedelta(minutes=10)
        held = snapshot(
            appointments=(appointment(1000, 1100, status="IN", hold_expires_at=expires),)
        )

        assert ["09:00", "11:00"] == times(held, now=expires - timedelta(seconds=1))
        assert ["09:00", "10:00", "11:00"] == times(held, now=expires)


class TestCapacity:
    def test_capacity_boundary(self):
        """A slot with 1 place of capacity left is offered; with 0 it is not (decision 9)."""
        group = service(max_capacity=10, max_group_size=10, booking_limit=5)
        nine = snapshot(service=group, appointments=(appointment(1000, 1100, group_size=9),))
        ten = snapshot(service=group, appointments=(appointment(1000, 1100, group_size=10),))
        offered = [slot for slot in slots(nine) if slot.start == at(1000)]

        assert [(10, 1, 5, 4)] == [
            (
                slot.allowable_capacity,
                slot.available_capacity,
                slot.allowable_bookings,
                slot.available_bookings,
            )
            for slot in offered
        ]
        assert ["09:00", "11:00"] == times(ten)

    def test_capacity_defaults_to_the_booking_limit(self):
        """Without max_capacity, allowable capacity equals allowable bookings."""
        snap = snapshot(calendar=attrs.evolve(CALENDAR, bookings_per_slot=4))

        assert {(4, 4)} == {
            (slot.allowable_capacity, slot.available_capacity) for slot in slots(snap)
        }


class TestDailyLimits:
    def test_count_limit_boundary(self):
        """One booking under a daily count of 2 leaves the day open; two cap it (decision 10)."""
        capped = service(daily_booking_limit_count=2)
        one = (appointment(900, 1000),)
        two = (appointment(900, 1000), appointment(1000, 1100))

        assert ["10:00", "11:00"] == times(snapshot(service=capped, appointments=one))
        assert [] == times(snapshot(service=capped, appointments=two))

    def test_minutes_limit_boundary(self):
        """Booked minutes plus the duration may reach the daily minutes limit, not pass it."""
        one = (appointment(900, 1000),)

        assert ["10:00", "11:00"] == times(
            snapshot(service=service(daily_booking_limit_minutes=120), appointments=one)
        )
        assert [] == times(
            snapshot(service=service(daily_booking_limit_minutes=119), appointments=one)
        )

    def test_other_days_and_services_do_not_count(self):
        """Bookings of another day or another service leave the daily limit untouched."""
        capped = service(daily_booking_limit_count=1)
        others = (appointment(900, 1000, day=TUE), appointment(900, 1000, service_id="s2"))

        assert ["10:00", "11:00"] == times(snapshot(service=capped, appointments=others))


class TestBookingWindow:
    def test_lead_time_boundary(self):
        """A slot exactly at now + lead is offered; one minute more lead excludes it (decision 11)."""
        now = at(830)

        def window(lead: int) -> Snapshot:
            settings = LocationSettings(
                booking_window=BookingWindow(book_in_advance_mins=lead, book_ahead_value=4)
            )
            return snapshot(settings=settings)

        assert ["09:00", "10:00", "11:00"] == times(window(30), now=now)
        assert ["10:00", "11:00"] == times(window(31), now=now)

    def test_book_ahead_boundary(self):
        """A slot exactly at now + book-ahead is offered; a later one is not."""
        settings = LocationSettings(
            booking_window=BookingWindow(book_ahead_unit="days", book_ahead_value=7)
        )
        snap = snapshot(settings=settings)

        assert ["09:00", "10:00"] == times(snap, now=at(1000) - timedelta(days=7))
        assert ["09:00"] == times(snap, now=at(959) - timedelta(days=7))

    def test_service_window_overrides_location(self):
        """A service's booking window replaces the location's."""
        snap = snapshot(
            service=service(
                booking_window=BookingWindow(book_in_advance_mins=120, book_ahead_value=4)
            )
        )

        assert ["11:00"] == times(snap, now=at(900))

    def test_months_unit(self):
        """Book-ahead in months counts calendar months from now."""
        settings = LocationSettings(
            booking_window=BookingWindow(book_ahead_unit="months", book_ahead_value=2)
        )

        assert ["09:00", "10:00"] == times(
            snapshot(settings=settings), now=datetime(2026, 1, 2, 10, tzinfo=UTC)
        )

    def test_default_window_is_one_week(self):
        """Without settings, times beyond one week are not offered."""
        plain = attrs.evolve(LOCATION, settings=LocationSettings())

        assert [] == times(snapshot(location=plain), now=at(1200) - timedelta(days=8))


class TestRoundRobin:
    def two(self, **changes: Any) -> Snapshot:
        """Return a snapshot with resources r1 and r2."""
        return snapshot(resources=(resource("r1"), resource("r2")), **changes)

    def test_none_lists_every_free_resource(self):
        """Round robin none: one slot per free resource and time, sorted by time then resource."""
        snap = self.two(appointments=(appointment(1000, 1100, resources=("r2",)),))

        assert [
            ("09:00", "r1"),
            ("09:00", "r2"),
            ("10:00", "r1"),
            ("11:00", "r1"),
            ("11:00", "r2"),
        ] == pairs(snap, round_robin=RoundRobin.NONE)

    def test_balanced_picks_the_least_loaded_resource(self):
        """Balanced: each time once, with the free resource with fewest appointments in range."""
        snap = self.two(appointments=(appointment(1000, 1100, resources=("r1",)),))

        assert [("09:00", "r2"), ("10:00", "r2"), ("11:00", "r2")] == pairs(
            snap, round_robin=RoundRobin.BALANCED
        )

    def test_balanced_falls_back_to_a_busy_resource_peer(self):
        """Balanced: when the least-loaded resource is busy, another free one takes the time."""
        snap = self.two(
            appointments=(
                appointment(900, 1000, resources=("r1",)),
                appointment(1000, 1100, resources=("r1",)),
                appointment(1100, 1200, resources=("r2",)),
            )
        )

        assert [("09:00", "r2"), ("10:00", "r2"), ("11:00", "r1")] == pairs(
            snap, round_robin="balanced"
        )

    def test_balanced_ties_go_to_sort_key_then_id(self):
        """Balanced ties: lower sort key first, then lower id."""
        first = resource("r2", options=ResourceOptions(sort_key=-1))

        assert {"r2"} == {
            rid
            for _, rid in pairs(
                snapshot(resources=(resource("r1"), first)), round_robin=RoundRobin.BALANCED
            )
        }
        assert {"r1"} == {rid for _, rid in pairs(self.two(), round_robin=RoundRobin.BALANCED)}

    @given(
        booked=st.lists(
            st.tuples(
                st.sampled_from(("r1", "r2", "r3")), st.sampled_from((900, 1000, 1100, 1300))
            ),
            unique=True,
            max_size=10,
        ),
        keys=st.lists(st.integers(-1, 1), min_size=3, max_size=3),
    )
    def test_balanced_is_each_times_least_loaded_free_resource(
        self, booked: list[tuple[str, int]], keys: list[int]
    ):
        """
        Balanced equals, for each time of the none answer, the free resource with the fewest
        appointments in the searched dates (a 13:00 one too), ties by sort key then id.
        """
        resources = tuple(
            resource(rid, options=ResourceOptions(sort_key=key))
            for rid, key in zip(("r1", "r2", "r3"), keys, strict=True)
        )
        snap = snapshot(
            resources=resources,
            appointments=tuple(
                appointment(start, start + 100, resources=(rid,)) for rid, start in booked
            ),
        )
        load = collections.Counter(rid for rid, _ in booked)
        free: dict[str, list[str]] = {}
        for hhmm, rid in pairs(snap, round_robin=RoundRobin.NONE):
            free.setdefault(hhmm, []).append(str(rid))
        rank = {res.id: (res.options.sort_key, res.id) for res in resources}

        assert [
            (hhmm, min(rids, key=lambda rid: (load[rid], rank[rid]))) for hhmm, rids in free.items()
        ] == pairs(snap, round_robin=RoundRobin.BALANCED)

    def test_service_default_is_used_without_query_round_robin(self):
        """Without a round robin in the query, the service's setting applies."""
        snap = self.two(service=service(round_robin=RoundRobin.BALANCED))

        assert 3 == len(slots(snap))

    def test_random_is_deterministic_and_picks_free_resources(self):
        """Random: the same query gives the same picks, always among the free resources."""
        snap = snapshot(
            resources=tuple(resource(f"r{n}") for n in range(1, 6)),
            appointments=(appointment(900, 1200, resources=("r3",)),),
        )
        first = pairs(snap, round_robin=RoundRobin.RANDOM, interval=5)
        second = pairs(snap, round_robin=RoundRobin.RANDOM, interval=5)

        assert first == second
        assert len({start for start, _ in first}) == len(first)
        assert "r3" not in {rid for _, rid in first}
        assert len({rid for _, rid in first}) > 1

    def test_resource_ids_need_every_resource_free(self):
        """resource_ids: a time is offered only when all listed resources are free (decision 13)."""
        snap = self.two(appointments=(appointment(1000, 1100, resources=("r2",)),))
        found = slots(snap, resource_ids="r1,r2")

        assert [at(900), at(1100)] == [slot.start for slot in found]
        assert {("r1", ("r1", "r2"))} == {(slot.resource_id, slot.resource_ids) for slot in found}

    @pytest.mark.parametrize("named", ["r1,r2,r1", ("r1", "r2", "r1")])
    def test_a_resource_named_twice_is_one_resource(self, named: str | tuple[str, ...]):
        """r1 named twice: the slots name it once, as a booking of them takes it."""
        assert {("r1", "r2")} == {
            slot.resource_ids for slot in slots(self.two(), resource_ids=named)
        }

    @pytest.mark.parametrize("named", ["r1,,r2", ",r1", "r1,", "", " ", "r1, ,r2", ("r1", "")])
    def test_an_empty_resource_id_is_refused(self, named: str | tuple[str, ...]):
        """An empty member of resource_ids names no resource: InvalidFormat, not fewer ids."""
        with pytest.raises(InvalidFormat) as refused:
            slots(self.two(), resource_ids=named)

        assert ("resource_ids", named) == (refused.value.field, refused.value.value)

    def test_white_space_around_an_id_is_dropped(self):
        """``"r1, r2"`` names r1 and r2, as the spec's comma-separated text is written."""
        assert {("r1", "r2")} == {
            slot.resource_ids for slot in slots(self.two(), resource_ids=" r1, r2 ")
        }

    def test_resource_ids_with_an_unusable_resource_offer_nothing(self):
        """resource_ids naming a deleted resource offer no time."""
        snap = snapshot(resources=(resource("r1"), resource("r2", deleted=True)))

        assert [] == times(snap, resource_ids=("r1", "r2"))

    def test_named_resource_only(self):
        """resource_id limits the slots to that resource."""
        assert {"r2"} == {rid for _, rid in pairs(self.two(), resource_id="r2")}

    def test_resource_group_limits_candidates(self):
        """resource_group_id keeps only the group's resources."""
        snap = snapshot(resources=(resource("r1"), resource("r2", group_id="g1")))

        assert {"r2"} == {rid for _, rid in pairs(snap, resource_group_id="g1")}

    def test_linked_services_and_deleted_resources(self):
        """Resources linked to other services, and deleted resources, are never offered."""
        snap = snapshot(
            resources=(
                resource("r1", linked_service_ids=("s2",)),
                resource("r2", deleted=True),
                resource("r3", linked_service_ids=("s1",)),
            )
        )

        assert {"r3"} == {rid for _, rid in pairs(snap)}


class TestDuration:
    def choosing(self) -> Snapshot:
        """Return a snapshot whose service lets customers choose 30..90 minutes in 30s."""
        return snapshot(
            service=service(
                duration_select=True, duration_min=30, duration_max=90, duration_interval=30
            )
        )

    def test_chosen_duration_is_used(self):
        """A duration within the rules sets the slot length (decision 16)."""
        found = slots(self.choosing(), duration=90)

        assert [(90, at(1030))] == [(slot.duration, slot.end) for slot in found[:1]]
        assert ["09:00", "10:00"] == times(self.choosing(), duration=90)

    def test_range_boundary(self):
        """duration_min and duration_max are accepted; outside them OutOfRange names the rule."""
        assert 30 == effective_duration(self.choosing().service, query(duration=30))
        assert 90 == effective_duration(self.choosing().service, query(duration=90))
        with pytest.raises(OutOfRange) as info:
            effective_duration(self.choosing().service, query(duration=120))

        assert "duration" == info.value.field

    def test_off_step_is_refused(self):
        """A duration off the duration_interval step is refused."""
        with pytest.raises(InconsistentFields) as info:
            effective_duration(self.choosing().service, query(duration=45))

        assert "duration" == info.value.field

    def test_fixed_duration_service_refuses_a_duration(self):
        """A service without duration_select refuses a duration."""
        with pytest.raises(InconsistentFields):
            available_times(snapshot(), query(duration=60), NOW)


class TestOutputZone:
    def test_tz_offset(self):
        """tz_offset gives a fixed offset and wall values in it (decision 3)."""
        first = slots(snapshot(), tz_offset=120)[0]

        assert (timedelta(hours=2), 1100, "11:00 AM", MON) == (
            first.start.utcoffset(),
            first.time,
            first.display_time,
            first.date,
        )
        assert at(900) == first.start
        assert 120 == available_times(snapshot(), query(tz_offset=120), NOW).tz_requested

    def test_timezone_name(self):
        """timezone_name gives that zone's wall values."""
        first = slots(snapshot(), timezone_name="Asia/Tokyo")[0]

        assert (1800, "6:00 PM") == (first.time, first.display_time)

    def test_location_zone_by_default(self):
        """Without tz_offset or timezone_name the location's zone is used."""
        first = slots(snapshot())[0]

        assert (zone("UTC"), 900, "9:00 AM") == (first.start.tzinfo, first.time, first.display_time)

    def test_date_in_requested_zone_first_available_in_location_dates(self):
        """A negative offset moves slot dates back; first_available_date stays a location date."""
        result = available_times(snapshot(), query(tz_offset=-600), NOW)

        assert (SUN, 2300) == (result.available_times[0].date, result.available_times[0].time)
        assert MON == result.first_available_date


class TestSearchWindow:
    def test_start_and_end_time_narrow_the_day(self):
        """start_time/end_time keep only slots wholly inside them."""
        assert ["10:00", "11:00"] == times(snapshot(), start_time=1000, end_time=1200)
        assert ["10:00"] == times(snapshot(), start_time=1000, end_time=1130)


class TestDays:
    def test_closed_holiday_and_open_days(self):
        """Weekends are closed (CL), holidays closed (HO, their name), open days available."""
        location = attrs.evolve(LOCATION, holidays=(Holiday(date=TUE, name="Founders' Day"),))
        result = day_availability(
            snapshot(location=location), query(start_date=SUN, end_date=TUE), NOW
        )

        assert [
            (SUN, False, True, "CL", "Location closed"),
            (MON, True, False, None, None),
            (TUE, False, True, "HO", "Founders' Day"),
        ] == [
            (
                day.date,
                day.available,
                day.closed,
                day.reason_code.value if day.reason_code else None,
                day.reason,
            )
            for day in result.available_days
        ]
        assert MON == result.first_available_date

    def test_fully_booked_day(self):
        """An open day without slots because of bookings says BK, with its counts."""
        booked = (appointment(900, 1000), appointment(1000, 1100), appointment(1100, 1200))
        day = day_availability(snapshot(appointments=booked), query(), NOW).available_days[0]

        assert (False, False, Reason.FULLY_BOOKED, 3, 3) == (
            day.available,
            day.closed,
            day.reason_code,
            day.booking_count,
            day.booking_limit,
        )

    def test_booking_limit_uses_the_daily_count(self):
        """booking_limit sums the daily count limit of each candidate when the service sets one."""
        snap = snapshot(
            service=service(daily_booking_limit_count=2), resources=(resource("r1"), resource("r2"))
        )

        assert 4 == day_availability(snap, query(), NOW).available_days[0].booking_limit

    def test_day_availability_and_first_day_available(self):
        """day_availability N lists N days; first_day_available returns that day's times only."""
        booked = (appointment(900, 1000), appointment(1000, 1100), appointment(1100, 1200))
        result = available_times(
            snapshot(appointments=booked),
            query(start_date=SUN, end_date=SUN, day_availability=3, first_day_available=True),
            NOW,
        )

        assert [SUN, MON, TUE] == [day.date for day in result.available_days]
        assert {TUE} == {slot.date for slot in result.available_times}
        assert (3, TUE) == (len(result.available_times), result.first_available_date)


class TestUnavailable:
    def test_reasons_cover_the_day(self):
        """Closed time is CL and booked time BK, in contiguous stretches (decision 15)."""
        assert [
            ("CL", 0, 900, "r1"),
            ("BK", 1000, 1100, "r1"),
            ("CL", 1200, 2400, "r1"),
        ] == stretches(snapshot(appointments=(appointment(1000, 1100),)))

    def test_time_past_and_skip(self):
        """Minutes before now + lead are TP; skip_time_past_unavailability drops them."""
        now = at(930)

        assert [("TP", 0, 930, "r1"), ("CL", 1200, 2400, "r1")] == stretches(snapshot(), now=now)
        assert [("CL", 1200, 2400, "r1")] == stretches(
            snapshot(), now=now, skip_time_past_unavailability=True
        )

    def test_beyond_book_ahead(self):
        """BA starts where no slot starting by the horizon reaches: the horizon + the duration."""
        settings = LocationSettings(
            booking_window=BookingWindow(book_ahead_unit="days", book_ahead_value=7)
        )

        assert [("CL", 0, 900, "r1"), ("BA", 1100, 2400, "r1")] == stretches(
            snapshot(settings=settings), now=at(1000) - timedelta(days=7)
        )

    def test_slot_at_the_horizon_is_not_listed_unavailable(self):
        """Decision 15: the slot offered at the horizon has none of its minutes labelled BA."""
        settings = LocationSettings(
            booking_window=BookingWindow(book_ahead_unit="days", book_ahead_value=7)
        )
        now = at(1000) - timedelta(days=7)
        last = slots(snapshot(settings=settings), now=now)[-1]
        unavailable = stretches(snapshot(settings=settings), now=now)

        assert at(1000) == last.start
        assert all(not (start < 1100 and end > 1000) for _, start, end, _ in unavailable)

    def test_block_reason_and_entity(self):
        """A block's stretch carries the block's reason text and id; neighbours stay apart."""
        meeting = block("calendar", "cal1", 1000, 1100, reason="Staff meeting")
        training = block("resource", "r1", 1100, 1200, id="b-training")
        found = unavailable_times(
            snapshot(blocks=(meeting, training)), query(), NOW
        ).unavailable_times
        middle = [item for item in found if item.reason_code is not Reason.CLOSED]

        assert [
            ("CB", "Staff meeting", "block", "b-calendar-1000", 1000, 1100),
            ("RB", "Resource block", "block", "b-training", 1100, 1200),
        ] == [
            (
                item.reason_code.value,
                item.reason,
                item.entity_type,
                item.entity_id,
                item.from_time,
                item.to_time,
            )
            for item in middle
        ]

    def test_resource_hours_service_hours_and_allocations(self):
        """Outside resource hours is RH, outside service hours SH, outside allocations AL."""
        short = resource(weekly_hours=WeeklyHours(mon=DayWindow(start_time=900, end_time=1100)))
        morning = service(availability=WeeklyHours(mon=DayWindow(start_time=900, end_time=1130)))

        assert [("CL", 0, 900, "r1"), ("SH", 1130, 1200, "r1"), ("CL", 1200, 2400, "r1")] == [
            item for item in stretches(snapshot(service=morning)) if item[0] != "RH"
        ]
        assert ("RH", 1100, 1200, "r1") in stretches(snapshot(resources=(short,)))
        assert ("AL", 900, 1000, "r1") in stretches(
            snapshot(
                service=service(type="event"),
                allocations=(allocation("service", "s1", 1000, 1200),),
            )
        )

    def test_daily_limit_labels_the_free_time(self):
        """On a capped day, booked time is BK and the rest of the open time DL."""
        snap = snapshot(
            service=service(daily_booking_limit_count=1), appointments=(appointment(900, 1000),)
        )

        assert [
            ("CL", 0, 900, "r1"),
            ("BK", 900, 1000, "r1"),
            ("DL", 1000, 1200, "r1"),
            ("CL", 1200, 2400, "r1"),
        ] == stretches(snap)

    def test_split_at_midnight_of_the_output_zone(self):
        """With tz_offset 60, the evening stretch splits at the output zone's midnight."""
        found = unavailable_times(snapshot(), query(tz_offset=60), NOW).unavailable_times

        assert [
            (MON, 100, 1000),
            (MON, 1300, 2400),
            (TUE, 0, 100),
        ] == [(item.date, item.from_time, item.to_time) for item in found]

    def test_free_time_and_unavailable_times_partition_the_day(self):
        """Every minute of the searched day is either free or in exactly one unavailable stretch."""
        snap = snapshot(
            resources=(
                resource("r1"),
                resource("r2", options=ResourceOptions(calendar_availability=1)),
            ),
            blocks=(block("calendar", "cal1", 930, 1000), block("resource", "r1", 1100, 1115)),
            appointments=(appointment(1015, 1045), appointment(900, 1000, resources=("r2",))),
            busy={"r2": ((at(1130), at(1200)),)},
        )
        now = at(905)
        searched = IntervalSet([Interval(at(0), at(0, TUE))])
        free = free_time(snap, query(), now)
        unavailable: list[UnavailableTime] = list(
            unavailable_times(snap, query(), now).unavailable_times
        )
        for rid in ("r1", "r2"):
            pieces = [
                Interval(item.start, item.end) for item in unavailable if item.resource_id == rid
            ]
            total = sum(((piece.end - piece.start) for piece in pieces), timedelta())
            total += sum(((piece.end - piece.start) for piece in free[rid]), timedelta())

            assert searched == free[rid] | IntervalSet(pieces)
            assert timedelta(days=1) == total
        assert ("EB", 1130, 1200, "r2") in stretches(snap, now=now)


class TestExternalBusy:
    def test_busy_time_blocks_resources_with_an_external_calendar(self):
        """Busy intervals remove slots of a resource with calendar_availability 1 or 2 only."""
        busy = {"r1": ((at(1000), at(1030)),), "r2": ((at(1000), at(1030)),)}
        snap = snapshot(
            resources=(
                resource("r1", options=ResourceOptions(calendar_availability=2)),
                resource("r2"),
            ),
            busy=busy,
        )

        assert [
            ("09:00", "r1"),
            ("09:00", "r2"),
            ("10:00", "r2"),
            ("11:00", "r1"),
            ("11:00", "r2"),
        ] == pairs(snap)


class TestPurity:
    def test_same_inputs_same_answer(self):
        """The calculator is a pure function of snapshot, query and now."""
        snap = snapshot(appointments=(appointment(1000, 1100),))

        assert available_times(snap, query(), NOW) == available_times(snap, query(), NOW)

    def test_naive_now_is_refused(self):
        """A naive now is refused, never read as local time."""
        with pytest.raises(NaiveDatetime):
            available_times(snapshot(), query(), datetime(2026, 3, 1))
