"""Appointment operations: create, book, reserve, confirm, cancel, reschedule, no-show, holds."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from slotwise import (
    BusinessHours,
    DayWindow,
    FieldTooLong,
    InvalidChoice,
    InvalidFormat,
    InvalidTimeRange,
    LocationSettings,
    NaiveDatetime,
    NotFound,
    Scheduler,
    Unauthorized,
    Workspace,
)
from slotwise.errors import (
    AppointmentNotStarted,
    CapacityExceeded,
    CustomerLimitReached,
    FieldRequired,
    GroupSizeExceeded,
    HoldExpired,
    IdempotencyConflict,
    InconsistentFields,
    InvalidReference,
    InvalidTransition,
    OutOfRange,
    PastAppointment,
    SlotUnavailable,
)
from slotwise.model import (
    RECORD_KINDS,
    Appointment,
    AppointmentStatus,
    Customer,
    FieldValue,
    Location,
    Operation,
    OutboxEvent,
    Principal,
    Resource,
    ResourceOptions,
    Service,
    Trigger,
    WeeklyHours,
)
from slotwise.storage.protocol import Store
from slotwise.testing import ManualClock, SequentialIds

NY = ZoneInfo("America/New_York")
IN, BK, RS = AppointmentStatus.INITIAL, AppointmentStatus.BOOKED, AppointmentStatus.RESERVED
CN, RE, NS = AppointmentStatus.CANCELLED, AppointmentStatus.RESCHEDULED, AppointmentStatus.NO_SHOW
HALF_HOUR = timedelta(minutes=30)
WEEK_24H = WeeklyHours.every_day(DayWindow(start_time=0, end_time=2400))


def at(hhmm: int, day: int = 6, month: int = 1) -> datetime:
    """Return *hhmm* New York time on 2026-*month*-*day* (default Tuesday 2026-01-06)."""
    return datetime(2026, month, day, hhmm // 100, hhmm % 100, tzinfo=NY)


def _store(ws: Workspace) -> Store:
    """Return the workspace's store."""
    return ws.appointments._ctx.store


def snapshot(ws: Workspace) -> dict[str, list[Any]]:
    """Return every record of every kind in the workspace's store."""
    with _store(ws).read() as reader:
        return {kind.__name__: reader.find(kind, company_id=None) for kind in RECORD_KINDS}


def events(ws: Workspace) -> list[Trigger]:
    """Return the triggers of the company's undelivered events, in order."""
    return [event.trigger for event in ws.outbox.undelivered(limit=1000)]


def count(ws: Workspace, kind: type[Any]) -> int:
    """Return how many records of *kind* the store holds."""
    with _store(ws).read() as reader:
        return len(reader.find(kind, company_id=None))


@pytest.fixture
def other_resource(ws: Workspace, location: Location) -> Resource:
    """A second resource at the primary location."""
    return ws.resources.create(name="Bea", reason="r")


def book(
    ws: Workspace,
    service: Service,
    resource: Resource,
    start: datetime,
    **fields: Any,
) -> Appointment:
    """Create a BK appointment for Ann at *start* for the service's duration."""
    values: dict[str, Any] = {
        "resource_id": resource.id,
        "name": "Ann Lee",
        "email": "ann@example.com",
        "complete_booking": "BK",
    }
    values.update(fields)
    return ws.appointments.create(
        service.id, start, start + timedelta(minutes=service.duration), **values
    )


def hold(ws: Workspace, service: Service, resource: Resource, start: datetime) -> Appointment:
    """Create an IN hold at *start*."""
    return ws.appointments.create(service.id, start, start + HALF_HOUR, resource_id=resource.id)


class TestCreate:
    def test_hold_is_initial_with_booking_timer(
        self, ws: Workspace, location: Location, service: Service, resource: Resource, clock
    ):
        """Without complete_booking: status IN, held until now + 10 minutes, no event, audited."""
        appointment = hold(ws, service, resource, at(900))

        assert IN == appointment.status
        assert clock.now() + timedelta(minutes=10) == appointment.hold_expires_at
        assert (location.id, location.primary_calendar_id) == (
            appointment.location_id,
            appointment.calendar_id,
        )
        assert ((resource.id,), at(900), at(930)) == (
            appointment.resource_ids,
            appointment.start,
            appointment.end,
        )
        assert [Trigger.RESOURCE_CREATED] == events(ws)
        assert [(Operation.CREATE_HOLD, None, IN)] == [
            (entry.operation, entry.status_before, entry.status_after)
            for entry in ws.appointments.history(appointment.id)
        ]

    def test_hold_uses_the_location_booking_timer(
        self, ws: Workspace, location: Location, service: Service, resource: Resource, clock
    ):
        """The hold lasts the location's booking_timer_mins."""
        ws.locations.update(location.id, settings=LocationSettings(booking_timer_mins=25))

        appointment = hold(ws, service, resource, at(900))

        assert clock.now() + timedelta(minutes=25) == appointment.hold_expires_at

    def test_complete_booking_in_is_a_hold(
        self, ws: Workspace, service: Service, resource: Resource
    ):
        """complete_booking="IN" is the same as none."""
        appointment = ws.appointments.create(
            service.id, at(900), at(930), resource_id=resource.id, complete_booking="IN"
        )

        assert IN == appointment.status

    def test_booked_with_name_and_email_creates_the_customer(
        self, ws: Workspace, service: Service, resource: Resource
    ):
        """BK with name and e-mail: booked, a customer created, CustomerCreated then BookingConfirmation."""
        appointment = book(ws, service, resource, at(900))

        customer = ws.customers.get(appointment.customer_id or "")
        assert (BK, None) == (appointment.status, appointment.hold_expires_at)
        assert ("Ann", "Lee", "ann@example.com") == (
            customer.first_name,
            customer.last_name,
            customer.email,
        )
        assert [
            Trigger.RESOURCE_CREATED,
            Trigger.CUSTOMER_CREATED,
            Trigger.BOOKING_CONFIRMATION,
        ] == events(ws)

    def test_existing_customer_is_found_by_email_ignoring_case(
        self, ws: Workspace, service: Service, resource: Resource
    ):
        """A second booking with the same address (other case) reuses the customer."""
        first = book(ws, service, resource, at(900))

        second = book(ws, service, resource, at(1000), email="ANN@Example.com")

        assert first.customer_id == second.customer_id
        assert 1 == count(ws, Customer)

    def test_booked_with_customer_id_takes_the_customer_details(
        self, ws: Workspace, service: Service, resource: Resource
    ):
        """BK with customer_id only copies the customer's name and e-mail to the appointment."""
        customer = ws.customers.create(first_name="Cy", last_name="Po", email="cy@example.com")

        appointment = ws.appointments.create(
            service.id,
            at(900),
            at(930),
            resource_id=resource.id,
            customer_id=customer.id,
            complete_booking="BK",
        )

        assert (customer.id, "Cy", "Po", "cy@example.com") == (
            appointment.customer_id,
            appointment.first_name,
            appointment.last_name,
            appointment.email,
        )

    def test_reserved_fires_no_booking_event(
        self, ws: Workspace, service: Service, resource: Resource
    ):
        """RS: reserved without expiry; the customer is created but no booking event fires."""
        appointment = book(ws, service, resource, at(900), complete_booking="RS")

        assert (RS, None) == (appointment.status, appointment.hold_expires_at)
        assert [Trigger.RESOURCE_CREATED, Trigger.CUSTOMER_CREATED] == events(ws)

    def test_location_defaults_to_the_primary(
        self, ws: Workspace, location: Location, service: Service, resource: Resource
    ):
        """Without location_id the appointment is placed at the primary location (spec rule 4)."""
        ws.locations.create(name="Uptown")

        appointment = hold(ws, service, resource, at(900))

        assert location.id == appointment.location_id

    def test_company_scoped_service_at_a_secondary_location(
        self, ws: Workspace, location: Location
    ):
        """A company-scoped service of the primary location is bookable at a secondary one."""
        service = ws.services.create(name="Cut", duration=30, reason="r", scope="company")
        uptown = ws.locations.create(name="Uptown")
        there = ws.resources.create(name="Cy", reason="r", location_id=uptown.id)

        appointment = ws.appointments.create(
            service.id, at(900), at(930), location_id=uptown.id, resource_id=there.id
        )

        assert (uptown.id, service.id) == (appointment.location_id, appointment.service_id)

    def test_service_of_another_location_is_refused(
        self, ws: Workspace, location: Location, service: Service
    ):
        """A location-scoped service cannot be booked at another location (spec rule 1)."""
        uptown = ws.locations.create(name="Uptown")
        there = ws.resources.create(name="Cy", reason="r", location_id=uptown.id)

        with pytest.raises(InvalidReference) as info:
            ws.appointments.create(
                service.id, at(900), at(930), location_id=uptown.id, resource_id=there.id
            )

        assert "service_id" == info.value.field

    def test_resource_of_another_location_is_refused(
        self, ws: Workspace, location: Location, service: Service
    ):
        """A resource must exist at the appointment's location (spec rule 2)."""
        uptown = ws.locations.create(name="Uptown")
        there = ws.resources.create(name="Cy", reason="r", location_id=uptown.id)

        with pytest.raises(InvalidReference) as info:
            ws.appointments.create(service.id, at(900), at(930), resource_id=there.id)

        assert "resource_id" == info.value.field

    def test_resource_not_taking_the_service_is_refused(
        self, ws: Workspace, location: Location, service: Service
    ):
        """A resource linked to other services only does not take this one."""
        other = ws.services.create(name="Colour", duration=30, reason="r")
        picky = ws.resources.create(name="Cy", reason="r", linked_service_ids=[other.id])

        with pytest.raises(InvalidReference):
            ws.appointments.create(service.id, at(900), at(930), resource_id=picky.id)

    def test_unknown_and_foreign_records(
        self, ws: Workspace, other_ws: Workspace, service: Service, resource: Resource
    ):
        """Unknown ids raise NotFound; another company's service raises Unauthorized."""
        with pytest.raises(NotFound):
            ws.appointments.create("missing", at(900), at(930), resource_id=resource.id)
        with pytest.raises(NotFound):
            ws.appointments.create(service.id, at(900), at(930), resource_id="missing")
        with pytest.raises(Unauthorized):
            other_ws.appointments.create(service.id, at(900), at(930))

    def test_naive_and_inverted_times_are_refused(
        self, ws: Workspace, service: Service, resource: Resource
    ):
        """Naive datetimes raise NaiveDatetime; an end not after the start InvalidTimeRange."""
        naive = datetime(2026, 1, 6, 9, 0)

        with pytest.raises(NaiveDatetime) as info:
            ws.appointments.create(service.id, naive, at(930), resource_id=resource.id)
        assert "start" == info.value.field
        with pytest.raises(InvalidTimeRange):
            ws.appointments.create(service.id, at(930), at(930), resource_id=resource.id)

    def test_unknown_complete_booking_is_refused(
        self, ws: Workspace, service: Service, resource: Resource
    ):
        """complete_booking takes only IN, BK or RS."""
        with pytest.raises(InvalidChoice):
            ws.appointments.create(
                service.id,
                at(900),
                at(930),
                resource_id=resource.id,
                complete_booking="CN",  # type: ignore[arg-type]
            )

    def test_failed_create_writes_nothing(
        self, ws: Workspace, service: Service, resource: Resource
    ):
        """A create refused by a late rule (booked_by too long) leaves the store as it was."""
        before = snapshot(ws)

        with pytest.raises(FieldTooLong):
            book(ws, service, resource, at(900), booked_by="x" * 256)

        assert before == snapshot(ws)


class TestSlotCheck:
    def test_a_listed_slot_is_bookable_and_then_gone(
        self, ws: Workspace, service: Service, resource: Resource
    ):
        """The first listed slot books; afterwards the listing no longer offers it."""
        listed = ws.availability.times(service.id, "2026-01-06", "2026-01-06")
        slot = listed.available_times[0]

        hold(ws, service, resource, slot.start)

        after = ws.availability.times(service.id, "2026-01-06", "2026-01-06")
        assert slot.start not in [s.start for s in after.available_times]

    def test_taken_slot_is_refused_with_start_and_resource(
        self, ws: Workspace, service: Service, resource: Resource
    ):
        """
        A second booking of a full slot raises SlotUnavailable naming the start and resource; the
        times in the location's wall time, as the wire shows them (decision 43).
        """
        book(ws, service, resource, at(900))

        with pytest.raises(SlotUnavailable) as info:
            book(ws, service, resource, at(915), email="bo@example.com")

        assert (at(915), (resource.id,)) == (info.value.start, info.value.resource_ids)
        assert "2026-01-06T09:15:00-05:00 to 2026-01-06T09:45:00-05:00" in info.value.message
        assert f"resource {resource.id!r}" in info.value.message

    def test_a_day_long_padding_from_yesterday_still_blocks_the_slot(
        self, ws: Workspace, service: Service, resource: Resource
    ):
        """Padding of 1,440 minutes reaches the next day: the check reads back that far."""
        long = ws.services.create(name="Deep clean", duration=30, padding=1440, reason="r")
        book(ws, long, resource, at(1600))  # occupies Ana until Wednesday 16:30

        with pytest.raises(SlotUnavailable):
            book(ws, service, resource, at(1000, day=7), email="bo@example.com")
        after = book(ws, service, resource, at(1630, day=7), email="cy@example.com")

        assert after.start == at(1630, day=7)

    def test_off_grid_and_closed_times_are_refused(
        self, ws: Workspace, service: Service, resource: Resource
    ):
        """Times off the 15-minute grid, outside business hours or past 17:00 are not slots."""
        for start in (at(905), at(800), at(1645), at(900, day=10)):
            with pytest.raises(SlotUnavailable):
                hold(ws, service, resource, start)

    def test_last_slot_of_the_day_boundary(
        self, ws: Workspace, service: Service, resource: Resource
    ):
        """16:30-17:00 is the last bookable slot; 16:45 is refused."""
        assert IN == hold(ws, service, resource, at(1630)).status
        with pytest.raises(SlotUnavailable):
            hold(ws, service, resource, at(1645))

    def test_wrong_length_is_refused(self, ws: Workspace, service: Service, resource: Resource):
        """A fixed-duration service refuses another length (decision 16)."""
        with pytest.raises(ValueError, match="duration"):
            ws.appointments.create(service.id, at(900), at(1000), resource_id=resource.id)

    def test_chosen_duration_of_a_duration_select_service(
        self, ws: Workspace, location: Location, resource: Resource
    ):
        """A duration_select service books a chosen length on its duration step."""
        service = ws.services.create(
            name="Flex",
            duration=30,
            reason="r",
            duration_select=True,
            duration_min=30,
            duration_max=90,
            duration_interval=30,
        )

        appointment = ws.appointments.create(service.id, at(900), at(1000), resource_id=resource.id)

        assert 60 == appointment.duration_minutes

    @pytest.mark.parametrize(
        ("end", "refused", "said"),
        [
            (1010, InconsistentFields, "a slot of 70 minutes"),
            (945, InconsistentFields, "its length must be 30 minutes plus a multiple of 30"),
            (1100, OutOfRange, "between 30 and 90 minutes after start"),
        ],
    )
    def test_a_length_the_service_does_not_offer_names_end(
        self,
        ws: Workspace,
        location: Location,
        resource: Resource,
        end: int,
        refused: type[Exception],
        said: str,
    ):
        """
        The slot's length comes from *end*: a length off the service's durations is refused
        naming ``end`` (the booking has no ``duration`` argument), and nothing is stored.
        """
        service = ws.services.create(
            name="Flex",
            duration=30,
            reason="r",
            duration_select=True,
            duration_min=30,
            duration_max=90,
            duration_interval=30,
        )
        before = snapshot(ws)

        with pytest.raises(refused) as info:
            ws.appointments.create(service.id, at(900), at(end), resource_id=resource.id)

        assert "end" == info.value.field  # type: ignore[attr-defined]
        assert said in str(info.value)
        assert before == snapshot(ws)

    def test_a_fixed_length_service_names_end_and_its_duration(
        self, ws: Workspace, service: Service, resource: Resource
    ):
        """A 60-minute slot of the 30-minute service: InconsistentFields naming ``end``."""
        with pytest.raises(InconsistentFields) as info:
            ws.appointments.create(service.id, at(900), at(1000), resource_id=resource.id)

        assert "end" == info.value.field
        assert info.value.message == (
            "end makes a slot of 60 minutes, which the service does not offer: service "
            f"{service.id!r} has a fixed duration of 30 minutes"
        )

    def test_an_end_before_the_start_is_quoted_as_sent(
        self, ws: Workspace, service: Service, resource: Resource
    ):
        """InvalidTimeRange names ``start`` and ``end`` with the caller's own offsets."""
        with pytest.raises(InvalidTimeRange) as info:
            ws.appointments.create(service.id, at(1000), at(930), resource_id=resource.id)

        assert "end" == info.value.field
        assert info.value.message == (
            "start (2026-01-06T10:00:00-05:00) must be less than end (2026-01-06T09:30:00-05:00)"
        )

    def test_book_ahead_boundary(
        self, ws: Workspace, service: Service, resource: Resource, clock: ManualClock
    ):
        """A slot one week ahead is bookable; beyond the one-week book-ahead it is not."""
        clock.set(at(900, day=6))

        assert IN == hold(ws, service, resource, at(900, day=13)).status
        with pytest.raises(SlotUnavailable):
            hold(ws, service, resource, at(915, day=13))

    def test_multi_resource_booking_takes_every_resource(
        self, ws: Workspace, service: Service, resource: Resource, other_resource: Resource
    ):
        """resource_ids books all resources at once; each is then busy at that time."""
        appointment = ws.appointments.create(
            service.id, at(900), at(930), resource_ids=[resource.id, other_resource.id]
        )

        assert (resource.id, other_resource.id) == appointment.resource_ids
        for taken in (resource, other_resource):
            with pytest.raises(SlotUnavailable):
                hold(ws, service, taken, at(900))

    def test_multi_resource_refused_when_one_is_busy(
        self, ws: Workspace, service: Service, resource: Resource, other_resource: Resource
    ):
        """A multi-resource booking fails as a whole when one resource is taken."""
        hold(ws, service, other_resource, at(900))
        before = snapshot(ws)

        with pytest.raises(SlotUnavailable):
            ws.appointments.create(
                service.id, at(900), at(930), resource_ids=f"{resource.id},{other_resource.id}"
            )

        assert before == snapshot(ws)

    @pytest.mark.parametrize("separated", ["{a},,{b}", ",{a}", "{a},", ""])
    def test_multi_resource_text_with_an_empty_member_is_refused(
        self,
        ws: Workspace,
        service: Service,
        resource: Resource,
        other_resource: Resource,
        separated: str,
    ):
        """``resource_ids="a,,b"`` is InvalidFormat naming resource_ids; nothing is booked."""
        before = snapshot(ws)
        named = separated.format(a=resource.id, b=other_resource.id)

        with pytest.raises(InvalidFormat) as refused:
            ws.appointments.create(service.id, at(900), at(930), resource_ids=named)

        assert "resource_ids" == refused.value.field
        assert before == snapshot(ws)

    def test_without_a_resource_the_round_robin_picks_a_free_one(
        self, ws: Workspace, service: Service, resource: Resource, other_resource: Resource
    ):
        """No resource named: a free resource is assigned; when both are taken the time is refused."""
        first = ws.appointments.create(service.id, at(900), at(930))
        second = ws.appointments.create(service.id, at(900), at(930))

        assert {resource.id, other_resource.id} == {*first.resource_ids, *second.resource_ids}
        with pytest.raises(SlotUnavailable):
            ws.appointments.create(service.id, at(900), at(930))

    def test_external_busy_time_is_respected(self, clock: ManualClock):
        """A resource busy in its external calendar cannot be booked then; the provider's answer counts."""
        busy: dict[str, list[tuple[datetime, datetime]]] = {}

        class Provider:
            """Busy intervals by resource id, filled in by the test."""

            def busy(self, resource: Resource, start: datetime, end: datetime) -> Any:
                """Return the resource's intervals."""
                return busy.get(resource.id, [])

        scheduler = Scheduler(clock=clock, ids=SequentialIds(), busy_provider=Provider())
        company = scheduler.create_company(name="Acme", timezone="America/New_York")
        ws = scheduler.for_company(company.id)
        ws.locations.create(name="Downtown")
        service = ws.services.create(name="Cut", duration=30, reason="r")
        synced = ws.resources.create(
            name="Ana", reason="r", options=ResourceOptions(calendar_availability=1)
        )
        busy[synced.id] = [(at(900), at(1000))]

        with pytest.raises(SlotUnavailable):
            hold(ws, service, synced, at(930))
        assert IN == hold(ws, service, synced, at(1000)).status

    def test_bookings_per_slot(self, ws: Workspace, location: Location, resource: Resource):
        """A service booking limit of 2 takes two bookings of one slot and refuses the third."""
        service = ws.services.create(name="Class", duration=30, reason="r", booking_limit=2)

        hold(ws, service, resource, at(900))
        hold(ws, service, resource, at(900))

        with pytest.raises(SlotUnavailable):
            hold(ws, service, resource, at(900))

    def test_daily_limit_of_a_resource(self, ws: Workspace, location: Location, resource: Resource):
        """daily_booking_limit_count 1: a second booking that day is refused, the next day is free."""
        service = ws.services.create(
            name="Cut", duration=30, reason="r", daily_booking_limit_count=1
        )
        hold(ws, service, resource, at(900))

        with pytest.raises(SlotUnavailable):
            hold(ws, service, resource, at(1100))
        assert IN == hold(ws, service, resource, at(1100, day=7)).status


class TestNameSplitting:
    @pytest.mark.parametrize(
        ("name", "first", "last"),
        [
            ("Ann", "Ann", None),
            ("Ann Lee", "Ann", "Lee"),
            ("Ann Marie de Vries", "Ann", "Marie de Vries"),
            ("  Ann   Marie  Lee ", "Ann", "Marie Lee"),
        ],
    )
    def test_name_is_split_into_first_and_last(
        self, ws: Workspace, service: Service, resource: Resource, name, first, last
    ):
        """The first word is the first name; every later word goes to the last name."""
        appointment = book(ws, service, resource, at(900), name=name)

        customer = ws.customers.get(appointment.customer_id or "")
        assert (first, last) == (appointment.first_name, appointment.last_name)
        assert (first, last) == (customer.first_name, customer.last_name)


class TestCustomerDetails:
    def test_booking_needs_a_name(self, ws: Workspace, service: Service, resource: Resource):
        """BK without customer_id or name raises FieldRequired(name) and creates nothing."""
        before = snapshot(ws)

        with pytest.raises(FieldRequired) as info:
            book(ws, service, resource, at(900), name=None)

        assert "name" == info.value.field
        assert before == snapshot(ws)

    def test_booking_needs_an_email(self, ws: Workspace, service: Service, resource: Resource):
        """BK with a name but no e-mail raises FieldRequired(email)."""
        with pytest.raises(FieldRequired) as info:
            book(ws, service, resource, at(900), email=None)

        assert "email" == info.value.field

    def test_malformed_email_is_refused(self, ws: Workspace, service: Service, resource: Resource):
        """An address without a domain dot is refused with InvalidFormat(email)."""
        with pytest.raises(InvalidFormat) as info:
            book(ws, service, resource, at(900), email="ann@example")

        assert "email" == info.value.field

    def test_email_may_be_left_out_when_notifications_are_off(
        self, ws: Workspace, service: Service, resource: Resource
    ):
        """With notifications disabled a name alone books; no customer record is created."""
        ws.company.update(notifications_disabled=True)

        appointment = book(ws, service, resource, at(900), email=None)

        assert (BK, None, "Ann") == (
            appointment.status,
            appointment.customer_id,
            appointment.first_name,
        )
        assert 0 == count(ws, Customer)

    def test_a_hold_needs_no_customer(self, ws: Workspace, service: Service, resource: Resource):
        """An IN hold is created without any customer details and creates no customer."""
        appointment = hold(ws, service, resource, at(900))

        assert (None, None) == (appointment.customer_id, appointment.email)
        assert 0 == count(ws, Customer)


class TestPastDates:
    def test_create_boundary_at_now(
        self, ws: Workspace, service: Service, resource: Resource, clock: ManualClock
    ):
        """A slot starting exactly now is bookable; one that started a step ago is past."""
        clock.set(at(930))

        assert IN == hold(ws, service, resource, at(930)).status
        with pytest.raises(PastAppointment) as info:
            hold(ws, service, resource, at(915))

        assert (Operation.CREATE_HOLD, at(915)) == (info.value.operation, info.value.start)
        # In the location's wall time (decision 43), with what the call does in words.
        assert info.value.message == (
            "cannot hold an appointment starting 2026-01-06T09:15:00-05:00: it is in the past "
            "(now 2026-01-06T09:30:00-05:00)"
        )

    def test_cancel_boundary_at_the_start(
        self, ws: Workspace, service: Service, resource: Resource, clock: ManualClock
    ):
        """Cancelling at the start instant is allowed; a microsecond later it is refused."""
        first = book(ws, service, resource, at(900))
        second = book(ws, service, resource, at(1000))
        clock.set(at(900))

        assert CN == ws.appointments.cancel(first.id).status
        clock.set(at(1000) + timedelta(microseconds=1))
        with pytest.raises(PastAppointment) as info:
            ws.appointments.cancel(second.id)
        assert "cannot cancel an appointment starting 2026-01-06T10:00:00-05:00" in str(info.value)
        assert BK == ws.appointments.get(second.id).status

    def test_reschedule_of_a_past_appointment_is_refused(
        self, ws: Workspace, service: Service, resource: Resource, clock: ManualClock
    ):
        """A BK appointment that started cannot be rescheduled, not even into the future."""
        appointment = book(ws, service, resource, at(900))
        clock.set(at(901))

        with pytest.raises(PastAppointment):
            ws.appointments.reschedule(appointment.id, start=at(1400), end=at(1430))

    def test_reschedule_into_the_past_is_refused(
        self, ws: Workspace, service: Service, resource: Resource, clock: ManualClock
    ):
        """The new start may not lie before now either."""
        appointment = book(ws, service, resource, at(1500))
        clock.set(at(1000))

        with pytest.raises(PastAppointment):
            ws.appointments.reschedule(appointment.id, start=at(945), end=at(1015))

    def test_booking_a_hold_that_started_is_refused(
        self, ws: Workspace, service: Service, resource: Resource, clock: ManualClock
    ):
        """A hold whose start passed cannot be booked (even within its timer)."""
        clock.set(at(855))
        appointment = hold(ws, service, resource, at(900))
        clock.set(at(901))

        with pytest.raises(PastAppointment):
            ws.appointments.book(appointment.id, name="Ann Lee", email="ann@example.com")


class TestGroupSize:
    @pytest.fixture
    def group_service(self, ws: Workspace, location: Location) -> Service:
        """Groups up to 4, 8 people and 5 bookings per slot."""
        return ws.services.create(
            name="Class", duration=30, reason="r", max_group_size=4, max_capacity=8, booking_limit=5
        )

    def test_group_size_boundary_booking_408(
        self, ws: Workspace, group_service: Service, resource: Resource
    ):
        """A group of 4 books; 5 raises BOOKING-408 with requested 5 and allowed 4."""
        assert 4 == book(ws, group_service, resource, at(900), group_size=4).group_size

        with pytest.raises(GroupSizeExceeded) as info:
            book(ws, group_service, resource, at(1000), group_size=5)

        assert ("BOOKING-408", 5, 4) == (info.value.code, info.value.requested, info.value.allowed)
        assert "5" in info.value.message
        assert "4" in info.value.message

    def test_without_group_booking_one_person(
        self, ws: Workspace, service: Service, resource: Resource
    ):
        """A service without group booking takes 1 person; 2 raises BOOKING-408 allowed 1."""
        assert 1 == book(ws, service, resource, at(900), group_size=1).group_size

        with pytest.raises(GroupSizeExceeded) as info:
            book(ws, service, resource, at(1000), group_size=2)

        assert (2, 1) == (info.value.requested, info.value.allowed)

    def test_capacity_boundary_booking_138(
        self, ws: Workspace, group_service: Service, resource: Resource
    ):
        """With 1 place left a group of 2 raises BOOKING-138 (requested 2, current 1); 1 fits."""
        book(ws, group_service, resource, at(900), group_size=4)
        book(ws, group_service, resource, at(900), group_size=3, email="bo@example.com")

        with pytest.raises(CapacityExceeded) as info:
            book(ws, group_service, resource, at(900), group_size=2, email="cy@example.com")

        assert ("BOOKING-138", 2, 1) == (
            info.value.code,
            info.value.requested,
            info.value.allowed,
        )
        assert "requested capacity 2" in info.value.message
        assert "current capacity 1" in info.value.message
        assert 1 == book(ws, group_service, resource, at(900), email="cy@example.com").group_size

    def test_group_size_below_one_is_refused(
        self, ws: Workspace, service: Service, resource: Resource
    ):
        """A group size of 0 is out of range."""
        with pytest.raises(ValueError, match="group_size"):
            book(ws, service, resource, at(900), group_size=0)


class TestCustomerLimits:
    def test_customer_bookings_per_day_boundary(
        self, ws: Workspace, location: Location, service: Service, resource: Resource
    ):
        """customer_bookings_per_day 2: two bookings that day pass, the third is refused."""
        ws.locations.update(location.id, settings=LocationSettings(customer_bookings_per_day=2))
        book(ws, service, resource, at(900))
        book(ws, service, resource, at(1000))

        with pytest.raises(CustomerLimitReached) as info:
            book(ws, service, resource, at(1100))

        assert ("customer_bookings_per_day", 2, 3) == (
            info.value.field,
            info.value.limit,
            info.value.requested,
        )
        assert BK == book(ws, service, resource, at(1100, day=7)).status

    def test_cancelled_bookings_do_not_count(
        self, ws: Workspace, location: Location, service: Service, resource: Resource
    ):
        """A cancelled booking frees its place in the customer's daily count."""
        ws.locations.update(location.id, settings=LocationSettings(customer_bookings_per_day=1))
        ws.appointments.cancel(book(ws, service, resource, at(900)).id)

        assert BK == book(ws, service, resource, at(1000)).status

    def test_max_booking_limit_boundary(
        self, ws: Workspace, location: Location, resource: Resource
    ):
        """max_booking_limit 1: one future booking of the service; the second is refused."""
        service = ws.services.create(name="Cut", duration=30, reason="r", max_booking_limit=1)
        book(ws, service, resource, at(900))

        with pytest.raises(CustomerLimitReached) as info:
            book(ws, service, resource, at(900, day=7))

        assert ("max_booking_limit", 1) == (info.value.field, info.value.limit)

    def test_max_resource_booking_limit(
        self, ws: Workspace, location: Location, resource: Resource, other_resource: Resource
    ):
        """max_resource_booking_limit 1: a second booking of the same resource is refused, another resource is fine."""
        service = ws.services.create(
            name="Cut", duration=30, reason="r", max_resource_booking_limit=1
        )
        book(ws, service, resource, at(900))

        with pytest.raises(CustomerLimitReached) as info:
            book(ws, service, resource, at(1000))

        assert "max_resource_booking_limit" == info.value.field
        assert BK == book(ws, service, other_resource, at(1000)).status


class TestHolds:
    def test_hold_counts_until_it_expires_without_a_sweep(
        self, ws: Workspace, service: Service, resource: Resource, clock: ManualClock
    ):
        """The slot is taken while the hold lives; at hold_expires_at it is free again."""
        first = hold(ws, service, resource, at(900))
        clock.set((first.hold_expires_at or clock.now()) - timedelta(microseconds=1))

        with pytest.raises(SlotUnavailable):
            hold(ws, service, resource, at(900))
        clock.set(first.hold_expires_at or clock.now())
        assert IN == hold(ws, service, resource, at(900)).status

    def test_dst_fall_back_hold_expires_ten_elapsed_minutes_later(
        self, ws: Workspace, service: Service, resource: Resource, clock: ManualClock
    ):
        """A hold made at 01:55 EDT on 2026-11-01 expires at 06:05Z (01:05 EST), 10 minutes later."""
        made = datetime(2026, 11, 1, 1, 55, tzinfo=NY, fold=0)
        clock.set(made)

        appointment = hold(ws, service, resource, at(900, day=2, month=11))

        expires = appointment.hold_expires_at
        assert datetime(2026, 11, 1, 6, 5, tzinfo=UTC) == expires
        assert expires is not None
        assert timedelta(minutes=10) == expires - made
        assert "2026-11-01T01:05:00-05:00" == expires.astimezone(NY).isoformat()

    def test_slots_inside_the_fall_back_fold_are_bookable(
        self, ws: Workspace, resource: Resource, clock: ManualClock
    ):
        """Both 01:30s of 2026-11-01 in New York (EDT then EST) are distinct bookable slots."""
        ws.locations.update(ws.locations.list().data[0].id, business_hours=BusinessHours.always())
        always = ws.resources.create(name="Night", reason="r", weekly_hours=WEEK_24H)
        service = ws.services.create(name="Cut", duration=30, reason="r")
        clock.set(datetime(2026, 10, 31, 12, 0, tzinfo=UTC))
        first = datetime(2026, 11, 1, 5, 30, tzinfo=UTC)  # 01:30 EDT
        second = datetime(2026, 11, 1, 6, 30, tzinfo=UTC)  # 01:30 EST

        made = [
            ws.appointments.create(
                service.id,
                start.astimezone(NY),
                (start + HALF_HOUR).astimezone(NY),
                resource_id=always.id,
            )
            for start in (first, second)
        ]

        assert [first, second] == [appointment.start for appointment in made]

    def test_a_slot_ending_on_the_second_pass_of_the_fold_is_bookable(
        self, ws: Workspace, resource: Resource, clock: ManualClock
    ):
        """00:30 EDT + 90 min ends at 01:00 EST (the fold's second 01:00): listed and bookable."""
        ws.locations.update(ws.locations.list().data[0].id, business_hours=BusinessHours.always())
        always = ws.resources.create(name="Night", reason="r", weekly_hours=WEEK_24H)
        service = ws.services.create(name="Long", duration=90, booking_interval=30, reason="r")
        clock.set(datetime(2026, 10, 31, 12, 0, tzinfo=UTC))
        start = datetime(2026, 11, 1, 4, 30, tzinfo=UTC)  # 00:30 EDT
        listed = ws.availability.times(
            service.id, "2026-11-01", "2026-11-01", resource_id=always.id
        )
        slot = next(s for s in listed.available_times if s.start.astimezone(UTC) == start)

        made = ws.appointments.create(service.id, slot.start, slot.end, resource_id=always.id)

        assert (made.start, made.end) == (start, datetime(2026, 11, 1, 6, 0, tzinfo=UTC))

    def test_book_a_live_hold(self, ws: Workspace, service: Service, resource: Resource):
        """Booking a hold within its timer: IN → BK, details saved, event and audit."""
        appointment = hold(ws, service, resource, at(900))

        booked = ws.appointments.book(
            appointment.id,
            name="Ann Lee",
            email="ann@example.com",
            phone="+1 212 555 0100",
            phone_type="mobile",
            phone_ext="12",
            customer_message="Window seat, please",
            custom_fields={"field2": "blue"},
            appointment_booking_fields=[{"name": "Parking", "value": "yes"}],
            customer_booking_fields=[FieldValue(name="Referral", value="friend")],
        )

        assert (BK, None) == (booked.status, booked.hold_expires_at)
        assert ("+1 212 555 0100", "mobile", "12", "Window seat, please") == (
            booked.phone,
            booked.phone_type,
            booked.phone_ext,
            booked.customer_message,
        )
        assert {"field2": "blue"} == dict(booked.custom_fields)
        assert (FieldValue(name="Parking", value="yes"),) == booked.appointment_booking_fields
        assert (FieldValue(name="Referral", value="friend"),) == booked.customer_booking_fields
        assert booked == ws.appointments.get(appointment.id)
        assert Trigger.BOOKING_CONFIRMATION == events(ws)[-1]

    def test_book_uses_details_given_with_the_hold(
        self, ws: Workspace, service: Service, resource: Resource
    ):
        """A hold created with name and e-mail can be booked without repeating them."""
        appointment = ws.appointments.create(
            service.id,
            at(900),
            at(930),
            resource_id=resource.id,
            name="Ann Lee",
            email="ann@example.com",
        )

        booked = ws.appointments.book(appointment.id)

        assert ("Ann", "ann@example.com") == (booked.first_name, booked.email)
        assert booked.customer_id is not None

    def test_book_without_details_is_refused(
        self, ws: Workspace, service: Service, resource: Resource
    ):
        """Booking a bare hold without name and e-mail raises FieldRequired; the hold stays IN."""
        appointment = hold(ws, service, resource, at(900))

        with pytest.raises(FieldRequired):
            ws.appointments.book(appointment.id)

        assert IN == ws.appointments.get(appointment.id).status

    def test_expired_hold_still_free_is_booked(
        self, ws: Workspace, service: Service, resource: Resource, clock: ManualClock
    ):
        """Decision 20: an expired hold whose time is still free is booked."""
        appointment = hold(ws, service, resource, at(900))
        clock.advance(timedelta(minutes=30))

        booked = ws.appointments.book(appointment.id, name="Ann Lee", email="ann@example.com")

        assert BK == booked.status

    def test_expired_hold_taken_meanwhile_raises_hold_expired(
        self, ws: Workspace, service: Service, resource: Resource, clock: ManualClock
    ):
        """An expired hold whose time someone else took raises HoldExpired and changes nothing."""
        appointment = hold(ws, service, resource, at(900))
        clock.advance(timedelta(minutes=10))
        book(ws, service, resource, at(900), email="bo@example.com")
        before = snapshot(ws)

        with pytest.raises(HoldExpired) as info:
            ws.appointments.book(appointment.id, name="Ann Lee", email="ann@example.com")

        assert (appointment.id, appointment.hold_expires_at) == (
            info.value.appointment_id,
            info.value.expired_at,
        )
        assert before == snapshot(ws)

    def test_expired_group_hold_with_too_little_room_is_booking_138(
        self, ws: Workspace, location: Location, resource: Resource, clock: ManualClock
    ):
        """
        A hold of 6 expires and a group of 4 books the time (capacity 8): the time is still
        offered, with room for 4, so booking the hold is BOOKING-138, not HoldExpired.
        """
        group = ws.services.create(
            name="Class", duration=30, reason="r", max_group_size=6, max_capacity=8, booking_limit=5
        )
        appointment = ws.appointments.create(
            group.id, at(900), at(930), resource_id=resource.id, group_size=6
        )
        clock.advance(timedelta(minutes=30))
        book(ws, group, resource, at(900), email="bo@example.com", group_size=4)
        before = snapshot(ws)

        with pytest.raises(CapacityExceeded) as info:
            ws.appointments.book(appointment.id, name="Ann Lee", email="ann@example.com")

        assert ("BOOKING-138", 6, 4) == (info.value.code, info.value.requested, info.value.allowed)
        assert before == snapshot(ws)

    def test_sweep_deletes_expired_holds_idempotently(
        self, ws: Workspace, service: Service, resource: Resource, clock: ManualClock
    ):
        """The sweep deletes expired holds only, records EXPIRE, and a second sweep deletes none."""
        old = hold(ws, service, resource, at(900))
        booked = book(ws, service, resource, at(1000))
        clock.advance(timedelta(minutes=10))
        young = hold(ws, service, resource, at(1100))

        first, second = ws.appointments.sweep_expired_holds(), ws.appointments.sweep_expired_holds()

        assert (1, 0) == (first, second)
        with pytest.raises(NotFound):
            ws.appointments.get(old.id)
        assert (BK, IN) == (
            ws.appointments.get(booked.id).status,
            ws.appointments.get(young.id).status,
        )
        assert (Operation.EXPIRE, IN, None) == (
            ws.appointments.history(old.id)[-1].operation,
            ws.appointments.history(old.id)[-1].status_before,
            ws.appointments.history(old.id)[-1].status_after,
        )

    def test_sweep_leaves_other_locations_of_a_limited_principal(
        self,
        scheduler: Scheduler,
        ws: Workspace,
        location: Location,
        service: Service,
        resource: Resource,
        clock: ManualClock,
    ):
        """A principal limited to another location sweeps nothing here."""
        uptown = ws.locations.create(name="Uptown")
        hold(ws, service, resource, at(900))
        clock.advance(timedelta(minutes=11))
        limited = scheduler.as_principal(
            Principal(company_id=ws.principal.company_id, location_ids=frozenset({uptown.id}))
        )

        assert (0, 1) == (
            limited.appointments.sweep_expired_holds(),
            ws.appointments.sweep_expired_holds(),
        )

    def test_delete_a_hold_keeps_its_history(
        self, ws: Workspace, service: Service, resource: Resource
    ):
        """delete() removes an IN hold for good and returns it; its audit history stays."""
        appointment = hold(ws, service, resource, at(900))

        deleted = ws.appointments.delete(appointment.id)

        assert appointment == deleted
        with pytest.raises(NotFound):
            ws.appointments.get(appointment.id)
        assert [Operation.CREATE_HOLD, Operation.DELETE] == [
            entry.operation for entry in ws.appointments.history(appointment.id)
        ]
        assert IN == hold(ws, service, resource, at(900)).status


class TestReserveAndConfirm:
    def test_reserve_then_confirm(self, ws: Workspace, service: Service, resource: Resource):
        """IN → RS (no event) → BK on confirm, with confirmed set and one booking event."""
        appointment = hold(ws, service, resource, at(900))

        reserved = ws.appointments.reserve(appointment.id, name="Ann Lee", email="ann@example.com")
        triggers_after_reserve = events(ws)
        confirmed = ws.appointments.confirm(appointment.id)

        assert (RS, None) == (reserved.status, reserved.hold_expires_at)
        assert Trigger.BOOKING_CONFIRMATION not in triggers_after_reserve
        assert (BK, True) == (confirmed.status, confirmed.confirmed)
        assert 1 == events(ws).count(Trigger.BOOKING_CONFIRMATION)

    def test_confirm_twice_records_once(self, ws: Workspace, service: Service, resource: Resource):
        """Confirming a confirmed appointment changes nothing: no audit entry, no event."""
        appointment = book(ws, service, resource, at(900), complete_booking="RS")
        ws.appointments.confirm(appointment.id)
        before = snapshot(ws)

        again = ws.appointments.confirm(appointment.id)

        assert (BK, True) == (again.status, again.confirmed)
        assert before == snapshot(ws)

    def test_confirm_and_undo_on_booked(self, ws: Workspace, service: Service, resource: Resource):
        """BK confirm sets confirmed (no event), undo clears it; a second undo records nothing."""
        appointment = book(ws, service, resource, at(900))
        booked_events = events(ws)

        confirmed = ws.appointments.confirm(appointment.id)
        undone = ws.appointments.undo_confirm(appointment.id)
        before = snapshot(ws)
        again = ws.appointments.undo_confirm(appointment.id)

        assert ((BK, True), (BK, False)) == (
            (confirmed.status, confirmed.confirmed),
            (undone.status, undone.confirmed),
        )
        assert booked_events == events(ws)
        assert undone == again
        assert before == snapshot(ws)


class TestCancel:
    def test_cancel_frees_the_slot_and_fires_the_event(
        self, ws: Workspace, service: Service, resource: Resource
    ):
        """BK → CN: the slot is bookable again; a CancelReservationConfirmation event is appended."""
        appointment = book(ws, service, resource, at(900))

        cancelled = ws.appointments.cancel(appointment.id)

        assert CN == cancelled.status
        assert Trigger.CANCEL_RESERVATION_CONFIRMATION == events(ws)[-1]
        assert IN == hold(ws, service, resource, at(900)).status

    def test_cancel_a_reservation(self, ws: Workspace, service: Service, resource: Resource):
        """RS → CN."""
        appointment = book(ws, service, resource, at(900), complete_booking="RS")

        assert CN == ws.appointments.cancel(appointment.id).status


class TestReschedule:
    def test_reschedule_makes_a_new_booked_record(
        self, ws: Workspace, service: Service, resource: Resource, clock: ManualClock
    ):
        """The old record becomes RE, the new one BK with rescheduled_id; one event; audit on both."""
        old = book(ws, service, resource, at(900))
        clock.advance(timedelta(minutes=5))

        new = ws.appointments.reschedule(old.id, start=at(1400), end=at(1430))

        moved = ws.appointments.get(old.id)
        assert (RE, clock.now()) == (moved.status, moved.last_modified_at)
        assert (BK, old.id, clock.now()) == (new.status, new.rescheduled_id, new.created_at)
        assert (old.customer_id, old.email, old.resource_ids) == (
            new.customer_id,
            new.email,
            new.resource_ids,
        )
        assert Trigger.RESCHEDULE_CONFIRMATION == events(ws)[-1]
        assert [(Operation.RESCHEDULE, None, BK)] == [
            (entry.operation, entry.status_before, entry.status_after)
            for entry in ws.appointments.history(new.id)
        ]

    def test_capacity_check_ignores_the_old_record(
        self, ws: Workspace, service: Service, resource: Resource
    ):
        """Moving by 15 minutes onto its own time is allowed (decision 23)."""
        old = book(ws, service, resource, at(900))

        new = ws.appointments.reschedule(old.id, start=at(915), end=at(945))

        assert at(915) == new.start

    def test_reschedule_to_another_resource_and_service(
        self, ws: Workspace, service: Service, resource: Resource, other_resource: Resource
    ):
        """Resource and service may change in the same call."""
        longer = ws.services.create(name="Long", duration=60, reason="r")
        old = book(ws, service, resource, at(900))

        new = ws.appointments.reschedule(
            old.id,
            start=at(1000),
            end=at(1100),
            resource_id=other_resource.id,
            service_id=longer.id,
        )

        assert ((other_resource.id,), longer.id) == (new.resource_ids, new.service_id)

    def test_reschedule_to_a_taken_time_changes_nothing(
        self, ws: Workspace, service: Service, resource: Resource
    ):
        """A new time that is not offered raises SlotUnavailable and leaves both records as they were."""
        old = book(ws, service, resource, at(900))
        book(ws, service, resource, at(1400), email="bo@example.com")
        before = snapshot(ws)

        with pytest.raises(SlotUnavailable):
            ws.appointments.reschedule(old.id, start=at(1400), end=at(1430))

        assert before == snapshot(ws)

    def test_only_booked_appointments_move(
        self, ws: Workspace, service: Service, resource: Resource
    ):
        """Rescheduling a hold raises InvalidTransition."""
        appointment = hold(ws, service, resource, at(900))

        with pytest.raises(InvalidTransition):
            ws.appointments.reschedule(appointment.id, start=at(1400), end=at(1430))


class TestNoShow:
    def test_no_show_boundary_at_the_start(
        self, ws: Workspace, service: Service, resource: Resource, clock: ManualClock
    ):
        """Before the start: AppointmentNotStarted; at the start instant: BK → NS."""
        appointment = book(ws, service, resource, at(900))
        clock.set(at(900) - timedelta(microseconds=1))

        with pytest.raises(AppointmentNotStarted):
            ws.appointments.no_show(appointment.id)
        clock.set(at(900))
        assert NS == ws.appointments.no_show(appointment.id).status

    def test_no_show_keeps_its_capacity(
        self, ws: Workspace, service: Service, resource: Resource, clock: ManualClock
    ):
        """An NS appointment still takes its slot (decision 8)."""
        appointment = book(ws, service, resource, at(900))
        clock.set(at(900))
        ws.appointments.no_show(appointment.id)

        with pytest.raises(SlotUnavailable):
            hold(ws, service, resource, at(915))


class TestIdempotency:
    def test_same_key_same_request_returns_the_same_appointment(
        self, ws: Workspace, service: Service, resource: Resource
    ):
        """A retried create returns the first appointment; nothing is created twice."""
        first = book(ws, service, resource, at(900), idempotency_key="k-1")
        before = snapshot(ws)

        again = book(ws, service, resource, at(900), idempotency_key="k-1")

        assert first == again
        assert before == snapshot(ws)

    def test_retry_after_a_change_returns_the_current_record(
        self, ws: Workspace, service: Service, resource: Resource
    ):
        """A hold created with a key and then booked is returned as booked on retry."""
        created = ws.appointments.create(
            service.id, at(900), at(930), resource_id=resource.id, idempotency_key="k-2"
        )
        ws.appointments.book(created.id, name="Ann Lee", email="ann@example.com")

        again = ws.appointments.create(
            service.id, at(900), at(930), resource_id=resource.id, idempotency_key="k-2"
        )

        assert (created.id, BK) == (again.id, again.status)

    def test_same_key_different_request_is_refused(
        self, ws: Workspace, service: Service, resource: Resource
    ):
        """Reusing a key for another time raises IdempotencyConflict naming key and appointment."""
        first = book(ws, service, resource, at(900), idempotency_key="k-3")
        before = snapshot(ws)

        with pytest.raises(IdempotencyConflict) as info:
            book(ws, service, resource, at(1000), idempotency_key="k-3")

        assert ("k-3", first.id) == (info.value.key, info.value.appointment_id)
        assert before == snapshot(ws)

    def test_keys_belong_to_one_company(
        self, ws: Workspace, other_ws: Workspace, service: Service, resource: Resource
    ):
        """Another company may use the same key for its own appointment."""
        book(ws, service, resource, at(900), idempotency_key="shared")
        other_service = other_ws.services.create(name="Cut", duration=30, reason="r")
        other_resource = other_ws.resources.create(name="Zed", reason="r")

        theirs = other_ws.appointments.create(
            other_service.id,
            datetime(2026, 1, 6, 9, 0, tzinfo=ZoneInfo("Europe/London")),
            datetime(2026, 1, 6, 9, 30, tzinfo=ZoneInfo("Europe/London")),
            resource_id=other_resource.id,
            idempotency_key="shared",
        )

        assert other_ws.principal.company_id == theirs.company_id

    def test_key_length_boundary(self, ws: Workspace, service: Service, resource: Resource):
        """A 255-character key is accepted; 256 characters are refused."""
        assert book(ws, service, resource, at(900), idempotency_key="k" * 255)
        with pytest.raises(FieldTooLong):
            book(ws, service, resource, at(1000), idempotency_key="k" * 256)


class TestReads:
    def test_list_filters_and_pages(
        self, ws: Workspace, service: Service, resource: Resource, other_resource: Resource
    ):
        """list() filters by e-mail, resource, customer and status, in creation order, with paging."""
        first = book(ws, service, resource, at(900))
        second = book(ws, service, other_resource, at(900), email="bo@example.com")
        third = hold(ws, service, resource, at(1000))

        ops = ws.appointments
        assert [first.id, second.id, third.id] == [a.id for a in ops.list().data]
        assert [second.id] == [a.id for a in ops.list(email="BO@example.com").data]
        assert [first.id, third.id] == [a.id for a in ops.list(resource_id=resource.id).data]
        assert [first.id] == [a.id for a in ops.list(customer_id=first.customer_id).data]
        assert [third.id] == [a.id for a in ops.list(status="IN").data]
        assert [first.id, second.id] == [
            a.id for a in ops.list(service_id=service.id, status=BK).data
        ]
        page = ops.list(offset=1, limit=1)
        assert ([second.id], 3, True) == ([a.id for a in page.data], page.total, page.has_more)

    def test_list_by_location(
        self, ws: Workspace, location: Location, service: Service, resource: Resource
    ):
        """list() defaults to the primary location; another location lists its own."""
        book(ws, service, resource, at(900))
        uptown = ws.locations.create(name="Uptown")

        assert (1, 0) == (
            ws.appointments.list().total,
            ws.appointments.list(location_id=uptown.id).total,
        )

    def test_list_limit_boundary(self, ws: Workspace, service: Service, resource: Resource):
        """limit 100 is accepted; 101 is refused."""
        assert 0 == ws.appointments.list(limit=100).total
        with pytest.raises(ValueError, match="limit"):
            ws.appointments.list(limit=101)

    def test_other_company_cannot_read_or_change(
        self, ws: Workspace, other_ws: Workspace, service: Service, resource: Resource
    ):
        """Another company's principal gets Unauthorized for every operation on the appointment."""
        appointment = book(ws, service, resource, at(900))
        before = snapshot(ws)

        for call in (
            other_ws.appointments.get,
            other_ws.appointments.cancel,
            other_ws.appointments.confirm,
            other_ws.appointments.history,
        ):
            with pytest.raises(Unauthorized):
                call(appointment.id)

        assert before == snapshot(ws)

    def test_history_names_the_user(
        self, scheduler: Scheduler, ws: Workspace, service: Service, resource: Resource
    ):
        """Audit entries and last_modified_by carry the principal's user."""
        desk = scheduler.as_principal(Principal(company_id=ws.principal.company_id, user="desk"))
        appointment = book(desk, service, resource, at(900))

        cancelled = desk.appointments.cancel(appointment.id)

        assert ["desk", "desk"] == [e.modified_by for e in ws.appointments.history(cancelled.id)]
        assert "desk" == cancelled.last_modified_by

    def test_history_of_an_unknown_appointment(self, ws: Workspace):
        """history() of an id with no appointment and no entries raises NotFound."""
        with pytest.raises(NotFound):
            ws.appointments.history("missing")


class TestOutboxIsAtomic:
    def test_refused_booking_appends_no_event(
        self, ws: Workspace, service: Service, resource: Resource
    ):
        """A refused create leaves no event, audit entry or customer behind."""
        book(ws, service, resource, at(900))
        before = (count(ws, OutboxEvent), count(ws, Customer), snapshot(ws))

        with pytest.raises(SlotUnavailable):
            book(ws, service, resource, at(900), email="new@example.com")

        assert before == (count(ws, OutboxEvent), count(ws, Customer), snapshot(ws))
