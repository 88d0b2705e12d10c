"""
Deleting customers, services, calendars and locations (decision 46): what goes, what refuses.

Every refusal is ``RecordInUse`` (or the tenant's ``Unauthorized``) and leaves the store as it
was; every delete returns the record as it was and takes what only it owned along.
"""

from __future__ import annotations

from datetime import UTC, date, datetime

import pytest

from slotwise import (
    Location,
    NotFound,
    Principal,
    RecordInUse,
    Scheduler,
    Unauthorized,
    Workspace,
)
from slotwise.model import RECORD_KINDS, Allocation, Block, Resource, Service, Subscription

TUESDAY = date(2026, 1, 6)
LUNCH = {"start_date": TUESDAY, "end_date": "never", "start_time": 1200, "end_time": 1300}


def _everything(scheduler: Scheduler) -> str:
    with scheduler.store.read() as reader:
        return repr([reader.find(kind, company_id=None) for kind in RECORD_KINDS])


def _ids(scheduler: Scheduler, kind: type) -> set[str]:
    with scheduler.store.read() as reader:
        return {record.id for record in reader.find(kind, company_id=None)}


@pytest.fixture
def branch(ws: Workspace, location: Location) -> Location:
    """A second location of the company (the first, ``location``, is primary)."""
    return ws.locations.create(name="Branch")


def _booked(ws: Workspace, location: Location, **extra: object) -> str:
    """Book Tuesday 10:00 of a new service and resource at *location*; return the service id."""
    service = ws.services.create(name="Cut", duration=30, reason="r", location_id=location.id)
    resource = ws.resources.create(name="Ann", reason="r", location_id=location.id)
    if "customer_id" not in extra:
        extra = {"name": "Zed Doe", "email": "zed@example.com", **extra}
    ws.appointments.create(
        service.id,
        datetime(2026, 1, 6, 15, 0, tzinfo=UTC),
        datetime(2026, 1, 6, 15, 30, tzinfo=UTC),
        location_id=location.id,
        resource_id=resource.id,
        complete_booking="BK",
        **extra,  # type: ignore[arg-type]
    )
    return service.id


class TestCustomers:
    def test_a_customer_goes_with_its_subscriptions(self, ws: Workspace, scheduler: Scheduler):
        """Delete returns the customer as it was and removes its subscriptions too."""
        customer = ws.customers.create(first_name="Cy")
        subscription = ws.subscriptions.create(customer.id, customer_plan_id="gold")

        assert customer == ws.customers.delete(customer.id)
        with pytest.raises(NotFound):
            ws.customers.get(customer.id)
        assert subscription.id not in _ids(scheduler, Subscription)

    def test_a_customer_appointments_name_stays(
        self, ws: Workspace, scheduler: Scheduler, location: Location
    ):
        """A customer named by an appointment raises RecordInUse; nothing changes."""
        customer = ws.customers.create(first_name="Cy", email="cy@example.com")
        _booked(ws, location, customer_id=customer.id)
        before = _everything(scheduler)

        with pytest.raises(RecordInUse) as info:
            ws.customers.delete(customer.id)

        assert ("appointments", 1) == (info.value.used_by, info.value.count)
        assert before == _everything(scheduler)

    def test_another_companys_customer_is_unauthorized(
        self, ws: Workspace, other_ws: Workspace, scheduler: Scheduler
    ):
        """Deleting another company's customer raises Unauthorized and keeps it."""
        theirs = other_ws.customers.create(first_name="Bo")

        with pytest.raises(Unauthorized):
            ws.customers.delete(theirs.id)
        assert theirs == other_ws.customers.get(theirs.id)


class TestServices:
    def test_an_unused_service_goes_with_its_blocks_and_allocations(
        self, ws: Workspace, scheduler: Scheduler, location: Location
    ):
        """Its blocks and allocations are removed in the same unit of work."""
        service = ws.services.create(name="Class", duration=60, reason="r", type="event")
        block = ws.services.create_block(service.id, **LUNCH)  # type: ignore[arg-type]
        allocation = ws.services.create_allocation(service.id, **LUNCH)  # type: ignore[arg-type]

        assert service == ws.services.delete(service.id)
        assert block.id not in _ids(scheduler, Block)
        assert allocation.id not in _ids(scheduler, Allocation)

    def test_a_booked_service_stays(self, ws: Workspace, scheduler: Scheduler, location: Location):
        """A service appointments name raises RecordInUse (the booking history stays)."""
        service_id = _booked(ws, location)
        before = _everything(scheduler)

        with pytest.raises(RecordInUse) as info:
            ws.services.delete(service_id)

        assert "appointments" == info.value.used_by
        assert before == _everything(scheduler)

    def test_a_linked_service_stays(self, ws: Workspace, location: Location):
        """A service a resource links raises RecordInUse: unlinking could open every service."""
        service = ws.services.create(name="Cut", duration=30, reason="r")
        ws.resources.create(name="Ann", reason="r", linked_service_ids=[service.id])

        with pytest.raises(RecordInUse) as info:
            ws.services.delete(service.id)

        assert ("resources linking it", 1) == (info.value.used_by, info.value.count)

    def test_a_limited_principal_cannot_delete_a_company_scoped_service(
        self, scheduler: Scheduler, ws: Workspace, location: Location
    ):
        """A company-scoped service is company-wide (decision 37): Unauthorized at one location."""
        service = ws.services.create(name="Everywhere", duration=30, reason="r", scope="company")
        limited = scheduler.as_principal(
            Principal(company_id=location.company_id, location_ids=frozenset({location.id}))
        )

        with pytest.raises(Unauthorized):
            limited.services.delete(service.id)
        assert service == ws.services.get(service.id)


class TestCalendars:
    def test_a_calendar_goes_with_its_blocks(
        self, ws: Workspace, scheduler: Scheduler, location: Location
    ):
        """A calendar that is not primary is removed with its blocks."""
        calendar = ws.calendars.create(name="Extra")
        block = ws.calendars.create_block(calendar.id, **LUNCH)  # type: ignore[arg-type]

        assert calendar == ws.calendars.delete(calendar.id)
        assert block.id not in _ids(scheduler, Block)
        with pytest.raises(NotFound):
            ws.calendars.get(calendar.id)

    def test_the_primary_calendar_stays(self, ws: Workspace, location: Location):
        """A location's primary calendar goes only with its location."""
        with pytest.raises(RecordInUse) as info:
            ws.calendars.delete(location.primary_calendar_id)

        assert "location as its primary calendar" == info.value.used_by


class TestLocations:
    def test_a_spare_location_goes_with_what_only_it_owns(
        self, ws: Workspace, scheduler: Scheduler, location: Location, branch: Location
    ):
        """Calendars, blocks, groups, field definitions and deleted resources go along."""
        calendar_block = ws.calendars.create_block(branch.primary_calendar_id, **LUNCH)  # type: ignore[arg-type]
        group = ws.service_groups.create(name="Spa", location_id=branch.id)
        field = ws.fields.define(name="field1", label="Notes", location_id=branch.id)
        resource = ws.resources.create(name="Gone", reason="r", location_id=branch.id)
        resource_block = ws.resources.create_block(resource.id, **LUNCH)  # type: ignore[arg-type]
        ws.resources.delete(resource.id)

        assert branch == ws.locations.delete(branch.id)
        left = {record_id for kind in RECORD_KINDS for record_id in _ids(scheduler, kind)}
        owned = {branch.id, branch.primary_calendar_id, calendar_block.id, group.id, field.id}
        owned |= {resource.id, resource_block.id}

        assert set() == owned & left
        assert [location.id] == [loc.id for loc in ws.locations.list().data]

    @pytest.mark.parametrize("what", ["services", "resources", "appointments"])
    def test_a_location_in_use_stays(
        self, ws: Workspace, scheduler: Scheduler, location: Location, branch: Location, what: str
    ):
        """Live services, live resources or appointments at it: RecordInUse, nothing changes."""
        if what == "services":
            ws.services.create(name="Cut", duration=30, reason="r", location_id=branch.id)
        elif what == "resources":
            ws.resources.create(name="Ann", reason="r", location_id=branch.id)
        else:
            service_id = _booked(ws, branch)
            with scheduler.store.transaction() as tx:  # leave only the appointment behind
                for resource in tx.find(Resource, company_id=branch.company_id):
                    if resource.location_id == branch.id:
                        tx.delete(Resource, resource.id)
                tx.delete(Service, service_id)
        before = _everything(scheduler)

        with pytest.raises(RecordInUse) as info:
            ws.locations.delete(branch.id)

        assert what == info.value.used_by
        assert before == _everything(scheduler)

    def test_the_primary_location_stays(self, ws: Workspace, location: Location, branch: Location):
        """The primary location is refused until another is made primary; then it goes."""
        with pytest.raises(RecordInUse) as info:
            ws.locations.delete(location.id)
        ws.locations.make_primary(branch.id)

        assert "company as its primary location" == info.value.used_by
        assert location.id == ws.locations.delete(location.id).id

    def test_a_limited_principal_cannot_delete_a_location(
        self, scheduler: Scheduler, location: Location, branch: Location
    ):
        """The set of locations is company-wide (decision 37): Unauthorized, even its own."""
        limited = scheduler.as_principal(
            Principal(company_id=branch.company_id, location_ids=frozenset({branch.id}))
        )

        with pytest.raises(Unauthorized):
            limited.locations.delete(branch.id)

    def test_another_companys_location_is_unauthorized(self, ws: Workspace, other_ws: Workspace):
        """Deleting another company's location raises Unauthorized and keeps it."""
        theirs = other_ws.locations.create(name="Theirs")

        with pytest.raises(Unauthorized):
            ws.locations.delete(theirs.id)
        assert theirs == other_ws.locations.get(theirs.id)
