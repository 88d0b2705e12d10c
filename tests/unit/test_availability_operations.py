"""Availability operations through the Workspace: times, days, unavailable times, reschedule."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

import pytest

from slotwise import (
    Appointment,
    BookingWindow,
    InvalidReference,
    Location,
    LocationSettings,
    NotFound,
    Resource,
    ResourceOptions,
    RoundRobin,
    Scheduler,
    Service,
    Unauthorized,
    Workspace,
)
from slotwise.availability.results import Reason
from slotwise.testing import ManualClock, StaticBusyTime

TUE = date(2026, 1, 6)
"""A Tuesday in the week after the clock's start (Monday 2026-01-05 09:00 UTC)."""


def at(hour: int, minute: int = 0, day: date = TUE) -> datetime:
    """Return the UTC instant *hour*:*minute* on *day* (New York is UTC-5 in January)."""
    return datetime(day.year, day.month, day.day, hour, minute, tzinfo=UTC)


@pytest.fixture
def place(ws: Workspace) -> Location:
    """A New York location open 09:00-17:00 on weekdays, booking four weeks ahead."""
    return ws.locations.create(
        name="Downtown",
        settings=LocationSettings(booking_window=BookingWindow(book_ahead_value=4)),
    )


@pytest.fixture
def service(ws: Workspace, place: Location) -> Service:
    """A one-hour service on an hourly grid, listing every free resource."""
    return ws.services.create(
        name="Massage",
        duration=60,
        booking_interval=60,
        round_robin=RoundRobin.NONE,
        reason="test",
    )


@pytest.fixture
def ann(ws: Workspace, place: Location) -> Resource:
    """A resource working the location's hours."""
    return ws.resources.create(name="Ann", reason="test", options=ResourceOptions(sort_key=1))


def book(
    scheduler: Scheduler, service: Service, resource: Resource, start: datetime, **fields: object
) -> Appointment:
    """Put a one-hour BK appointment straight into the store."""
    record = Appointment(
        id=f"appt-{resource.id}-{start:%H%M}",
        company_id=service.company_id,
        location_id=resource.location_id,
        service_id=service.id,
        resource_ids=(resource.id,),
        status="BK",
        start=start,
        end=start + timedelta(hours=1),
        created_at=datetime(2026, 1, 1, tzinfo=UTC),
        **fields,  # type: ignore[arg-type]
    )
    with scheduler.store.transaction() as tx:
        tx.insert(record)
    return record


def starts(slots: object) -> list[str]:
    """Return the UTC ``HH:MM`` starts of a slot sequence."""
    return [slot.start.astimezone(UTC).strftime("%H:%M") for slot in slots]  # type: ignore[attr-defined]


class TestTimes:
    def test_lists_slots_with_header(
        self, ws: Workspace, place: Location, service: Service, ann: Resource
    ):
        """GET availability lists the day's slots in the location's zone, with header fields."""
        result = ws.availability.times(service.id, TUE, TUE)

        assert [f"{hour}:00" for hour in range(14, 22)] == starts(result.available_times)
        assert (
            "Acme Spa",
            place.id,
            "Massage",
            60,
            place.primary_calendar_id,
            TUE,
            None,
        ) == (
            result.business_name,
            result.location_id,
            result.service_name,
            result.service_duration,
            result.calendar_id,
            result.first_available_date,
            result.tz_requested,
        )
        assert "America/New_York" == str(result.available_times[0].start.tzinfo)

    def test_stored_appointments_take_their_slot(
        self, scheduler: Scheduler, ws: Workspace, service: Service, ann: Resource
    ):
        """A booked appointment in the store removes its time."""
        book(scheduler, service, ann, at(15))

        assert "15:00" not in starts(ws.availability.times(service.id, TUE, TUE).available_times)

    def test_iso_text_dates_are_accepted(self, ws: Workspace, service: Service, ann: Resource):
        """Path dates may be ISO text, as in the spec's URL."""
        result = ws.availability.times(service.id, "2026-01-06", "2026-01-06T00:00:00Z")

        assert (TUE, TUE) == (result.start_date, result.end_date)

    def test_named_resource_and_header(self, ws: Workspace, service: Service, ann: Resource):
        """resource_id limits slots to the resource and names it in the header."""
        ws.resources.create(name="Bob", reason="test")
        result = ws.availability.times(service.id, TUE, TUE, resource_id=ann.id)

        assert {ann.id} == {slot.resource_id for slot in result.available_times}
        assert ("Ann", ann.id) == (result.resource_name, result.resource_id)

    def test_unknown_service_is_not_found(self, ws: Workspace, place: Location):
        """An unknown service id raises NotFound."""
        with pytest.raises(NotFound):
            ws.availability.times("nope", TUE, TUE)

    def test_other_company_service_is_unauthorized(
        self, ws: Workspace, other_ws: Workspace, place: Location
    ):
        """Another company's service raises Unauthorized and reveals nothing."""
        theirs = other_ws.services.create(name="Theirs", duration=30, reason="test")

        with pytest.raises(Unauthorized) as info:
            ws.availability.times(theirs.id, TUE, TUE)

        assert "service_id" == info.value.field

    def test_resource_of_another_location_is_refused(
        self, ws: Workspace, place: Location, service: Service
    ):
        """A named resource working at another location is an invalid reference."""
        uptown = ws.locations.create(name="Uptown")
        elsewhere = ws.resources.create(name="Eve", reason="test", location_id=uptown.id)

        with pytest.raises(InvalidReference) as info:
            ws.availability.times(service.id, TUE, TUE, resource_id=elsewhere.id)

        assert "resource_id" == info.value.field

    def test_unknown_resource_group_is_not_found(
        self, ws: Workspace, service: Service, ann: Resource
    ):
        """An unknown resource group raises NotFound."""
        with pytest.raises(NotFound):
            ws.availability.times(service.id, TUE, TUE, resource_group_id="nope")

    def test_book_ahead_uses_the_clock(
        self, ws: Workspace, clock: ManualClock, service: Service, ann: Resource
    ):
        """Dates beyond the location's four-week book-ahead offer nothing."""
        later = TUE + timedelta(weeks=5)

        assert () == ws.availability.times(service.id, later, later).available_times
        clock.advance(timedelta(weeks=2))
        assert 8 == len(ws.availability.times(service.id, later, later).available_times)


class TestDefaultLocation:
    """Decision 46: without ``location_id`` a location-scoped service is searched where it lives."""

    def test_a_branch_service_is_searched_at_the_branch(self, ws: Workspace, place: Location):
        """Times, days, unavailable times and explain all use the service's own location."""
        branch = ws.locations.create(name="Uptown")
        cut = ws.services.create(
            name="Cut", duration=60, booking_interval=60, reason="r", location_id=branch.id
        )
        ws.resources.create(name="Bo", reason="r", location_id=branch.id)

        times = ws.availability.times(cut.id, TUE, TUE)
        named = ws.availability.times(cut.id, TUE, TUE, location_id=branch.id)
        days = ws.availability.days(cut.id, TUE, TUE)
        unavailable = ws.availability.unavailable(cut.id, TUE, TUE)
        explained = ws.availability.explain(cut.id, at(14))

        assert branch.id == times.location_id
        assert starts(named.available_times) == starts(times.available_times)
        assert times.available_times
        assert days.available_days[0].available
        assert ws.availability.unavailable(cut.id, TUE, TUE, location_id=branch.id) == unavailable
        assert explained.offered

    def test_a_company_scoped_service_is_searched_at_the_primary(
        self, ws: Workspace, place: Location, service: Service, ann: Resource
    ):
        """A company-scoped service without location_id is searched at the primary location."""
        ws.locations.create(name="Uptown")
        wide = ws.services.create(
            name="Wide", duration=60, booking_interval=60, reason="r", scope="company"
        )

        assert place.id == ws.availability.times(wide.id, TUE, TUE).location_id


class TestDays:
    def test_days_of_the_range(
        self, scheduler: Scheduler, ws: Workspace, service: Service, ann: Resource
    ):
        """GET .../days lists one Day per date: weekend closed, Tuesday available."""
        book(scheduler, service, ann, at(15))
        result = ws.availability.days(service.id, date(2026, 1, 4), TUE)

        assert [
            (date(2026, 1, 4), False, True),
            (date(2026, 1, 5), True, False),
            (TUE, True, False),
        ] == [(day.date, day.available, day.closed) for day in result.available_days]
        assert (1, 8) == (
            result.available_days[2].booking_count,
            result.available_days[2].booking_limit,
        )


class TestUnavailable:
    def test_reasons_of_the_day(
        self, scheduler: Scheduler, ws: Workspace, service: Service, ann: Resource
    ):
        """GET .../unavailable returns the closed and booked stretches of the day."""
        book(scheduler, service, ann, at(15))
        found = ws.availability.unavailable(service.id, TUE, TUE, resource_id=ann.id)

        assert [
            (Reason.CLOSED, 0, 900),
            (Reason.FULLY_BOOKED, 1000, 1100),
            (Reason.CLOSED, 1700, 2400),
        ] == [(item.reason_code, item.from_time, item.to_time) for item in found.unavailable_times]


class TestReschedule:
    def test_own_appointment_does_not_count(
        self, scheduler: Scheduler, ws: Workspace, service: Service, ann: Resource
    ):
        """Reschedule availability offers the appointment's own time and its resource's slots."""
        moving = book(scheduler, service, ann, at(15))
        book(scheduler, service, ann, at(17))
        other = ws.resources.create(name="Bob", reason="test")
        result = ws.availability.for_reschedule(moving.id, TUE, TUE)

        assert "15:00" in starts(result.available_times)
        assert "17:00" not in starts(result.available_times)
        assert {ann.id} == {slot.resource_id for slot in result.available_times}
        assert other.id not in {slot.resource_id for slot in result.available_times}

    def test_overrides_replace_the_defaults(
        self, scheduler: Scheduler, ws: Workspace, service: Service, ann: Resource
    ):
        """A resource_id override searches another resource."""
        moving = book(scheduler, service, ann, at(15))
        other = ws.resources.create(name="Bob", reason="test")
        result = ws.availability.for_reschedule(moving.id, TUE, TUE, resource_id=other.id)

        assert {other.id} == {slot.resource_id for slot in result.available_times}

    def test_unknown_appointment_is_not_found(self, ws: Workspace, place: Location):
        """An unknown appointment raises NotFound."""
        with pytest.raises(NotFound):
            ws.availability.for_reschedule("nope", TUE, TUE)

    def test_other_company_appointment_is_unauthorized(
        self,
        scheduler: Scheduler,
        other_ws: Workspace,
        ws: Workspace,
        service: Service,
        ann: Resource,
    ):
        """Another company's appointment raises Unauthorized."""
        moving = book(scheduler, service, ann, at(15))

        with pytest.raises(Unauthorized):
            other_ws.availability.for_reschedule(moving.id, TUE, TUE)


class TestBusyProvider:
    def test_provider_is_asked_only_for_external_calendars(
        self, scheduler: Scheduler, clock: ManualClock, ws: Workspace, service: Service
    ):
        """Scheduler(busy_provider=...) removes busy time of resources with calendar_availability."""
        synced = ws.resources.create(
            name="Sam", reason="test", options=ResourceOptions(calendar_availability=1)
        )
        plain = ws.resources.create(name="Pat", reason="test")
        busy = StaticBusyTime({rid: [(at(15), at(15, 30))] for rid in (synced.id, plain.id)})
        with_busy = Scheduler(scheduler.store, clock=clock, ids=scheduler.ids, busy_provider=busy)

        result = with_busy.for_company(service.company_id).availability.times(service.id, TUE, TUE)
        at_three = {slot.resource_id for slot in result.available_times if slot.start == at(15)}

        assert {plain.id} == at_three
        assert [synced.id] == [call[0] for call in busy.calls]
