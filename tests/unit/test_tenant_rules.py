"""Tenant rules of decisions 30, 34, 37 and 42: located events, feeds read per principal, company-wide records."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from slotwise import (
    FieldTooLong,
    InvalidFormat,
    Location,
    NotAuthenticated,
    NotFound,
    Reminder,
    ReminderSchedule,
    Scheduler,
    Unauthorized,
    Workspace,
)
from slotwise.model import Appointment, Customer, OutboxEvent, Resource, Service, Trigger
from slotwise.testing import ManualClock

NY = ZoneInfo("America/New_York")
HALF_HOUR = timedelta(minutes=30)


def at(hhmm: int, day: int = 6) -> datetime:
    """Return *hhmm* New York time on 2026-01-*day* (default Tuesday 2026-01-06)."""
    return datetime(2026, 1, day, hhmm // 100, hhmm % 100, tzinfo=NY)


def book(ws: Workspace, service: Service, resource: Resource, start: datetime, **fields: Any):
    """Create an appointment (BK for Ann unless *fields* say otherwise) at *start*."""
    values: dict[str, Any] = {
        "resource_id": resource.id,
        "location_id": resource.location_id,
        "name": "Ann Lee",
        "email": "ann@example.com",
        "complete_booking": "BK",
    }
    values.update(fields)
    return ws.appointments.create(service.id, start, start + HALF_HOUR, **values)


def stored(ws: Workspace, kind: type[Any]) -> list[Any]:
    """Return every record of *kind* in the workspace's store."""
    with ws.appointments._ctx.store.read() as reader:
        return reader.find(kind, company_id=None)


class Place:
    """A location with a service and a resource of its own."""

    def __init__(self, ws: Workspace, location: Location) -> None:
        self.location = location
        self.service = ws.services.create(
            name=f"Cut {location.name}", duration=30, reason="r", location_id=location.id
        )
        self.resource = ws.resources.create(
            name=f"Ana {location.name}", reason="r", location_id=location.id
        )


@pytest.fixture
def downtown(ws: Workspace, location: Location) -> Place:
    """The primary location (L1 of the tests) with its service and resource."""
    return Place(ws, location)


@pytest.fixture
def branch(ws: Workspace, downtown: Place) -> Place:
    """A second location (L2), created after the primary one."""
    return Place(ws, ws.locations.create(name="Branch"))


@pytest.fixture
def at_branch(scheduler: Scheduler, ws: Workspace, branch: Place) -> Workspace:
    """A workspace limited to the branch."""
    return scheduler.for_company(
        branch.location.company_id, location_ids=frozenset({branch.location.id})
    )


class TestEventLocations:
    def test_every_event_names_its_location(self, ws: Workspace, downtown: Place, branch: Place):
        """Appointment and resource events carry their location; customer events carry none."""
        appointment = book(ws, branch.service, branch.resource, at(900))
        ws.customers.update(appointment.customer_id, notes="VIP")

        found = {(e.trigger, e.entity_id): e.location_id for e in ws.outbox.undelivered()}

        assert {
            (Trigger.RESOURCE_CREATED, downtown.resource.id): downtown.location.id,
            (Trigger.RESOURCE_CREATED, branch.resource.id): branch.location.id,
            (Trigger.CUSTOMER_CREATED, appointment.customer_id): None,
            (Trigger.BOOKING_CONFIRMATION, appointment.id): branch.location.id,
            (Trigger.CUSTOMER_UPDATED, appointment.customer_id): None,
        } == found

    def test_reminder_events_name_the_reminder_location(
        self, ws: Workspace, branch: Place, clock: ManualClock
    ):
        """An EmailReminder event carries the location of its reminder."""
        schedule = ReminderSchedule(email_first=Reminder(unit="hours", value=1))
        ws.locations.set_reminders(branch.location.id, schedule)
        book(ws, branch.service, branch.resource, at(900))
        clock.set(at(800))

        ws.reminders.mark_sent([r.id for r in ws.reminders.due()])

        event = ws.outbox.undelivered()[-1]
        assert (Trigger.EMAIL_REMINDER, branch.location.id) == (event.trigger, event.location_id)


class TestOutboxByPrincipal:
    def test_limited_principal_sees_only_its_locations_events(
        self, ws: Workspace, at_branch: Workspace, downtown: Place, branch: Place
    ):
        """Regression: a principal limited to L2 read L1's events and customer events (issue 9, fault 2)."""
        book(ws, downtown.service, downtown.resource, at(900))
        mine = book(ws, branch.service, branch.resource, at(1000))

        found = at_branch.outbox.undelivered()

        assert [
            (Trigger.RESOURCE_CREATED, branch.resource.id),
            (Trigger.BOOKING_CONFIRMATION, mine.id),
        ] == [(e.trigger, e.entity_id) for e in found]
        assert {branch.location.id} == {e.location_id for e in found}

    def test_limit_counts_only_the_principals_events(
        self, ws: Workspace, at_branch: Workspace, downtown: Place, branch: Place
    ):
        """The store filters before the limit: limit 1 gives L2's oldest event, not nothing."""
        book(ws, downtown.service, downtown.resource, at(900))

        first = at_branch.outbox.undelivered(limit=1)

        assert [(Trigger.RESOURCE_CREATED, branch.resource.id)] == [
            (e.trigger, e.entity_id) for e in first
        ]

    def test_company_wide_principal_sees_everything(
        self, ws: Workspace, downtown: Place, branch: Place
    ):
        """A principal of the whole company reads every location's and company-wide events."""
        book(ws, downtown.service, downtown.resource, at(900))

        found = ws.outbox.undelivered()

        assert {downtown.location.id, branch.location.id, None} == {e.location_id for e in found}

    def test_mark_delivered_refuses_other_locations_and_company_wide_events(
        self, ws: Workspace, at_branch: Workspace, downtown: Place, branch: Place
    ):
        """A limited principal may not mark L1's event or a customer event; nothing is marked."""
        book(ws, downtown.service, downtown.resource, at(900))
        everything = ws.outbox.undelivered()
        by_trigger = {e.trigger: e for e in everything if e.location_id != branch.location.id}
        mine = at_branch.outbox.undelivered()[0]

        for event in (
            by_trigger[Trigger.BOOKING_CONFIRMATION],
            by_trigger[Trigger.CUSTOMER_CREATED],
        ):
            with pytest.raises(Unauthorized) as info:
                at_branch.outbox.mark_delivered([mine.id, event.id])
            assert ("event_ids", event.id) == (info.value.field, info.value.value)

        assert everything == ws.outbox.undelivered()
        assert 1 == at_branch.outbox.mark_delivered([mine.id])


class TestRemindersByPrincipal:
    def test_due_counts_only_the_principals_reminders(
        self, ws: Workspace, at_branch: Workspace, downtown: Place, branch: Place, clock
    ):
        """Regression: L1's earlier reminders filled the page, and L2's principal got none."""
        schedule = ReminderSchedule(email_first=Reminder(unit="hours", value=1))
        for place in (downtown, branch):
            ws.locations.set_reminders(place.location.id, schedule)
        book(ws, downtown.service, downtown.resource, at(900))
        book(ws, downtown.service, downtown.resource, at(930), email="bo@example.com")
        theirs = book(ws, branch.service, branch.resource, at(1000))
        clock.set(at(1000))

        due = at_branch.reminders.due(limit=1)

        assert [theirs.id] == [r.appointment_id for r in due]
        assert 3 == len(ws.reminders.due())


class TestSweepByPrincipal:
    def test_sweep_deletes_only_the_principals_holds(
        self, ws: Workspace, at_branch: Workspace, downtown: Place, branch: Place, clock
    ):
        """A limited sweep deletes its own expired holds and leaves L1's in place."""
        theirs = book(ws, downtown.service, downtown.resource, at(900), complete_booking=None)
        mine = book(ws, branch.service, branch.resource, at(900), complete_booking=None)
        clock.advance(timedelta(hours=2))

        deleted = at_branch.appointments.sweep_expired_holds()

        assert 1 == deleted
        assert [theirs.id] == [a.id for a in stored(ws, Appointment)]
        with pytest.raises(NotFound):
            ws.appointments.get(mine.id)
        assert 1 == ws.appointments.sweep_expired_holds()


class TestCompanyWideRecords:
    """Decision 37: a principal limited to some locations changes no company-wide record."""

    def test_company_and_locations_are_refused(
        self, ws: Workspace, at_branch: Workspace, downtown: Place, branch: Place
    ):
        """company.update, locations.create/create_many and make_primary raise Unauthorized."""
        company_id = branch.location.company_id
        calls: list[tuple[Callable[[], object], str]] = [
            (lambda: at_branch.company.update(name="Mine"), "company_id"),
            (lambda: at_branch.locations.create(name="New"), "company_id"),
            (lambda: at_branch.locations.create_many([{"name": "New"}]), "company_id"),
            (lambda: at_branch.locations.make_primary(branch.location.id), "location_id"),
        ]
        before = (ws.company.get(), ws.locations.list().data)

        for call, field in calls:
            with pytest.raises(Unauthorized) as info:
                call()
            assert field == info.value.field

        assert (ws.company.get(), ws.locations.list().data) == before
        assert company_id == ws.company.get().id

    def test_company_scoped_services_are_refused(
        self, scheduler: Scheduler, ws: Workspace, downtown: Place, branch: Place
    ):
        """Even a principal limited to the primary location may not create or change a company-scoped service."""
        shared = ws.services.create(name="Shared", duration=30, reason="r", scope="company")
        limited = scheduler.for_company(
            downtown.location.company_id, location_ids=frozenset({downtown.location.id})
        )
        calls: list[Callable[[], object]] = [
            lambda: limited.services.create(name="S", duration=30, reason="r", scope="company"),
            lambda: limited.services.update(shared.id, name="Mine"),
            lambda: limited.services.set_availability(shared.id, {}),
            lambda: limited.services.update(downtown.service.id, scope="company"),
        ]
        before = stored(ws, Service)

        for call in calls:
            with pytest.raises(Unauthorized):
                call()

        assert before == stored(ws, Service)
        assert shared == limited.services.get(shared.id)
        assert "Own" == limited.services.update(downtown.service.id, name="Own").name

    @pytest.mark.parametrize("kind", ["service_groups", "resource_groups"])
    def test_groups_not_tied_to_a_location_are_refused(
        self, ws: Workspace, at_branch: Workspace, branch: Place, kind: str
    ):
        """
        A limited principal may not update or delete a group of no location; one it creates
        naming no location is made at its first permitted location (decision 42), never
        company-wide.
        """
        shared = getattr(ws, kind).create(name="Shared")
        operations = getattr(at_branch, kind)
        before = getattr(ws, kind).list().data

        with pytest.raises(Unauthorized):
            operations.update(shared.id, name="Mine")
        with pytest.raises(Unauthorized):
            operations.delete(shared.id)

        assert before == getattr(ws, kind).list().data
        mine = operations.create(name="Mine")
        assert branch.location.id == mine.location_id
        own = operations.create(name="Own", location_id=branch.location.id)
        assert "Own 2" == operations.update(own.id, name="Own 2").name


class TestFirstPermittedLocation:
    """Decision 42: a limited principal naming no location gets its first permitted one."""

    def test_default_is_the_first_permitted_location(
        self, at_branch: Workspace, downtown: Place, branch: Place
    ):
        """Regression: a principal limited to L2 got Unauthorized about the primary location it never named."""
        resource = at_branch.resources.create(name="New", reason="r")

        assert branch.location.id == resource.location_id
        assert [branch.service.id] == [s.id for s in at_branch.services.list().data]

    def test_creation_order_decides(self, scheduler: Scheduler, ws: Workspace, branch: Place):
        """With two permitted locations the one created first is the default."""
        third = ws.locations.create(name="Third")
        limited = scheduler.for_company(
            third.company_id, location_ids=frozenset({third.id, branch.location.id})
        )

        assert branch.location.id == limited.resources.create(name="N", reason="r").location_id

    def test_no_permitted_location_is_not_found(
        self, scheduler: Scheduler, ws: Workspace, downtown: Place
    ):
        """A principal none of whose locations exist gets NotFound "(first permitted)"."""
        limited = scheduler.for_company(downtown.location.company_id, location_ids=frozenset())

        with pytest.raises(NotFound, match=r"\(first permitted\)"):
            limited.resources.list()


class TestEmailWithoutNotifications:
    """Decision 34: with notifications disabled, booking neither requires nor validates an e-mail."""

    def test_any_text_is_stored_as_given(self, ws: Workspace, downtown: Place):
        """Regression: a malformed e-mail was refused although notifications are off."""
        ws.company.update(notifications_disabled=True)

        booked = book(ws, downtown.service, downtown.resource, at(900), email="front desk")
        held = book(
            ws, downtown.service, downtown.resource, at(1000), email="n/a", complete_booking=None
        )
        done = ws.appointments.book(held.id)

        assert ("front desk", None) == (booked.email, booked.customer_id)
        assert ("n/a", None) == (done.email, done.customer_id)
        assert [] == stored(ws, Customer)

    def test_an_address_still_links_a_customer(self, ws: Workspace, downtown: Place):
        """With notifications off a real address still finds or creates the customer."""
        ws.company.update(notifications_disabled=True)

        booked = book(ws, downtown.service, downtown.resource, at(900))

        assert [booked.customer_id] == [c.id for c in stored(ws, Customer)]

    def test_length_is_still_bounded(self, ws: Workspace, downtown: Place):
        """The stored text is at most 255 characters."""
        ws.company.update(notifications_disabled=True)

        with pytest.raises(FieldTooLong) as info:
            book(ws, downtown.service, downtown.resource, at(900), email="x" * 256)

        assert "email" == info.value.field

    @pytest.mark.parametrize("complete_booking", [None, "BK"])
    def test_notifications_on_validate_the_address(
        self, ws: Workspace, downtown: Place, complete_booking: str | None
    ):
        """With notifications on a malformed e-mail is refused, for a hold too."""
        with pytest.raises(InvalidFormat) as info:
            book(
                ws,
                downtown.service,
                downtown.resource,
                at(900),
                email="front desk",
                complete_booking=complete_booking,
            )

        assert "email" == info.value.field
        assert [] == stored(ws, Appointment)


class TestListFilterIds:
    """Decision 30: a list filter naming a record the principal may not use is refused."""

    def test_other_companys_ids_are_unauthorized(
        self, ws: Workspace, other_ws: Workspace, downtown: Place
    ):
        """Regression: appointments.list(service_id=<B's>) returned an empty page."""
        other_service = other_ws.services.create(name="B", duration=30, reason="r")
        other_resource = other_ws.resources.create(name="B", reason="r")
        other_customer = other_ws.customers.create(first_name="B", email="b@example.com")

        calls: list[tuple[Callable[[], object], str, str]] = [
            (
                lambda: ws.appointments.list(service_id=other_service.id),
                "service_id",
                other_service.id,
            ),
            (
                lambda: ws.appointments.list(resource_id=other_resource.id),
                "resource_id",
                other_resource.id,
            ),
            (
                lambda: ws.appointments.list(customer_id=other_customer.id),
                "customer_id",
                other_customer.id,
            ),
        ]
        for call, field, value in calls:
            with pytest.raises(Unauthorized) as info:
                call()
            assert (field, value) == (info.value.field, info.value.value)

    def test_other_locations_ids_are_unauthorized(
        self, at_branch: Workspace, downtown: Place, branch: Place
    ):
        """A principal limited to L2 naming L1's service, resource or location is refused."""
        calls: list[Callable[[], object]] = [
            lambda: at_branch.appointments.list(service_id=downtown.service.id),
            lambda: at_branch.appointments.list(resource_id=downtown.resource.id),
            lambda: at_branch.appointments.list(location_id=downtown.location.id),
        ]
        for call in calls:
            with pytest.raises(Unauthorized):
                call()

    def test_unknown_ids_are_not_found(self, ws: Workspace, downtown: Place):
        """An id naming nothing raises NotFound, not an empty page."""
        with pytest.raises(NotFound):
            ws.appointments.list(resource_id="missing")

    def test_own_filters_still_work(self, ws: Workspace, downtown: Place):
        """The principal's own ids filter as before."""
        booked = book(ws, downtown.service, downtown.resource, at(900))

        page = ws.appointments.list(
            service_id=downtown.service.id,
            resource_id=downtown.resource.id,
            customer_id=booked.customer_id,
        )

        assert [booked.id] == [a.id for a in page.data]

    def test_windows_of_a_company_scoped_service_are_per_location(
        self, ws: Workspace, at_branch: Workspace, downtown: Place, branch: Place
    ):
        """Blocks of a company-scoped service at L1 are not listed to L2's principal."""
        shared = ws.services.create(name="Shared", duration=30, reason="r", scope="company")
        fields: dict[str, Any] = {
            "start_date": at(900).date(),
            "end_date": at(900).date(),
            "start_time": 900,
            "end_time": 1000,
        }
        ws.services.create_block(shared.id, location_id=downtown.location.id, **fields)
        mine = ws.services.create_block(shared.id, location_id=branch.location.id, **fields)

        assert [mine.id] == [b.id for b in at_branch.services.list_blocks(shared.id).data]
        assert 2 == len(ws.services.list_blocks(shared.id).data)


class TestNoPrincipalEverywhere:
    def test_every_operation_raises_not_authenticated(self, scheduler: Scheduler, ws: Workspace):
        """Decision 37: every public operation of every group, without a principal, raises NotAuthenticated."""
        nobody = scheduler.as_principal(None)
        called = 0

        for group_name, group in vars(nobody).items():
            if group_name == "principal":
                continue
            for name in dir(group):
                if name.startswith("_") or not callable(getattr(group, name)):
                    continue
                with pytest.raises(NotAuthenticated):
                    getattr(group, name)()
                called += 1

        assert called > 100
        assert [] == stored(ws, OutboxEvent)


class TestCustomersAreTheCompanys:
    """docs/semantics.md, "Customers and limited principals": one customer, every branch."""

    def test_a_branch_desk_books_and_updates_a_customer_met_downtown(
        self, ws: Workspace, downtown: Place, branch: Place, at_branch: Workspace
    ):
        """The branch finds Ann (booked downtown), books her, updates her; downtown's booking stays hidden."""
        first = book(ws, downtown.service, downtown.resource, at(1000))
        assert first.customer_id is not None

        found = at_branch.customers.get(first.customer_id)
        again = book(at_branch, branch.service, branch.resource, at(1100))
        updated = at_branch.customers.update(first.customer_id, phone="2125550100")

        assert (found.id, again.customer_id, updated.phone) == (
            first.customer_id,
            first.customer_id,
            "2125550100",
        )
        assert 1 == len(stored(ws, Customer))
        with pytest.raises(Unauthorized):
            at_branch.appointments.get(first.id)
