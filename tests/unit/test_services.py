"""Service operations: create, update, get, lists, availability, blocks, allocations, resources."""

from __future__ import annotations

from datetime import date
from typing import Any

import pytest

from slotwise import (
    AllocationTarget,
    BlockTarget,
    BusinessHours,
    Company,
    DayHours,
    DayWindow,
    FieldRequired,
    FieldTooLong,
    InconsistentFields,
    InvalidChoice,
    InvalidReference,
    InvalidTimeRange,
    Location,
    NotFound,
    OutOfRange,
    RepeatRule,
    Resource,
    ResourceOptions,
    Scheduler,
    Service,
    ServiceScope,
    ServiceType,
    Unauthorized,
    Weekday,
    WeeklyHours,
    Workspace,
)
from slotwise.model import OPEN_END

JAN = date(2026, 1, 1)
FEB = date(2026, 2, 1)


def make_service(ws: Workspace, **overrides: Any) -> Service:
    """Create a valid 30-minute service, with *overrides* applied."""
    fields: dict[str, Any] = {"name": "Haircut", "duration": 30, "reason": "new offering"}
    fields.update(overrides)
    return ws.services.create(**fields)


@pytest.fixture
def branch(ws: Workspace, location: Location) -> Location:
    """A second, non-primary location of the company."""
    return ws.locations.create(name="Uptown")


@pytest.fixture
def branch_only(scheduler: Scheduler, company: Company, branch: Location) -> Workspace:
    """A workspace of the same company limited to the branch location."""
    return scheduler.for_company(company.id, location_ids=frozenset({branch.id}))


def add_resource(scheduler: Scheduler, location: Location, name: str, **fields: Any) -> Resource:
    """Store a resource directly (resource operations are another module's job)."""
    resource = Resource(
        id=f"res-{name}",
        company_id=location.company_id,
        location_id=location.id,
        name=name,
        timezone=location.timezone,
        **fields,
    )
    with scheduler.store.transaction() as tx:
        tx.insert(resource)
    return resource


class TestCreate:
    def test_defaults(self, ws: Workspace, location: Location):
        """A service defaults to the primary location, its business hours and location scope."""
        service = make_service(ws)

        assert (location.id, ServiceScope.LOCATION, ServiceType.APPOINTMENT) == (
            service.location_id,
            service.scope,
            service.type,
        )
        assert location.business_hours.as_weekly() == service.availability
        assert (
            service.reason,
            service.booking_limit,
            service.max_capacity,
            service.max_group_size,
        ) == ("new offering", 0, 0, 0)
        assert service == ws.services.get(service.id)

    def test_availability_follows_the_named_locations_hours(
        self, ws: Workspace, location: Location
    ):
        """Without availability, a service takes its own location's business hours."""
        hours = BusinessHours.always()
        gym = ws.locations.create(name="Gym", business_hours=hours)

        service = make_service(ws, location_id=gym.id)

        assert (gym.id, WeeklyHours.always()) == (service.location_id, service.availability)

    def test_given_availability_is_kept(self, ws: Workspace, location: Location):
        """An explicit availability replaces the business-hours default."""
        hours = WeeklyHours(sat=DayWindow(start_time=1000, end_time=1400))

        assert hours == make_service(ws, availability=hours).availability

    def test_name_limit_boundary_on_create(self, ws: Workspace, location: Location):
        """A 50-character name is accepted on create; 51 are refused and nothing is stored."""
        assert make_service(ws, name="x" * 50).name == "x" * 50
        before = ws.services.list()

        with pytest.raises(FieldTooLong) as info:
            make_service(ws, name="y" * 51)

        assert (info.value.field, info.value.limit, info.value.requested) == ("name", 50, 51)
        assert before == ws.services.list()

    @pytest.mark.parametrize("name", ["", "   "])
    def test_name_required(self, ws: Workspace, location: Location, name: str):
        """A blank name is refused."""
        with pytest.raises(FieldRequired) as info:
            make_service(ws, name=name)

        assert info.value.field == "name"

    def test_duration_boundary(self, ws: Workspace, location: Location):
        """Duration 1 is accepted; 0 is refused (spec: Errors 1, greater than 0)."""
        assert make_service(ws, duration=1).duration == 1
        before = ws.services.list()

        with pytest.raises(OutOfRange) as info:
            make_service(ws, duration=0)

        assert info.value.field == "duration"
        assert before == ws.services.list()

    @pytest.mark.parametrize(("max_capacity", "max_group_size"), [(0, 0), (1, 1), (10, 4)])
    def test_capacity_and_group_size_pairs_accepted(
        self, ws: Workspace, location: Location, max_capacity: int, max_group_size: int
    ):
        """max_capacity and max_group_size both 0 or both positive are accepted."""
        service = make_service(ws, max_capacity=max_capacity, max_group_size=max_group_size)

        assert (max_capacity, max_group_size) == (service.max_capacity, service.max_group_size)

    @pytest.mark.parametrize(("max_capacity", "max_group_size"), [(1, 0), (0, 1)])
    def test_capacity_and_group_size_mismatch_refused(
        self, ws: Workspace, location: Location, max_capacity: int, max_group_size: int
    ):
        """One of max_capacity and max_group_size 0 and the other positive is refused."""
        before = ws.services.list()

        with pytest.raises(InconsistentFields):
            make_service(ws, max_capacity=max_capacity, max_group_size=max_group_size)

        assert before == ws.services.list()

    def test_duration_max_divisible_by_min(self, ws: Workspace, location: Location):
        """duration_max 45 with duration_min 15 is accepted; 50 is refused (spec: Errors 1)."""
        service = make_service(ws, duration_select=True, duration_min=15, duration_max=45)
        assert (service.duration_min, service.duration_max) == (15, 45)
        before = ws.services.list()

        with pytest.raises(InconsistentFields) as info:
            make_service(ws, duration_select=True, duration_min=15, duration_max=50)

        assert info.value.field == "duration_max"
        assert before == ws.services.list()

    def test_reason_is_required(self, ws: Workspace, location: Location):
        """A create without a reason is refused and stores nothing (spec: Errors 1)."""
        fields: dict[str, Any] = {"name": "Haircut", "duration": 30}
        before = ws.services.list()

        with pytest.raises(FieldRequired) as info:
            ws.services.create(**fields)

        assert info.value.field == "reason"
        assert before == ws.services.list()

    @pytest.mark.parametrize("reason", ["", "  "])
    def test_blank_reason_is_refused(self, ws: Workspace, location: Location, reason: str):
        """A blank reason counts as missing."""
        with pytest.raises(FieldRequired):
            make_service(ws, reason=reason)

    def test_one_character_reason_is_accepted(self, ws: Workspace, location: Location):
        """Any non-blank reason is stored."""
        assert make_service(ws, reason="x").reason == "x"

    def test_company_scope_at_primary_location(self, ws: Workspace, location: Location):
        """A company-scoped service may be created at the primary location."""
        service = make_service(ws, scope=ServiceScope.COMPANY)

        assert (ServiceScope.COMPANY, location.id) == (service.scope, service.location_id)

    def test_company_scope_away_from_primary_is_refused(
        self, ws: Workspace, location: Location, branch: Location
    ):
        """A company-scoped service at a secondary location is refused and nothing is stored."""
        with pytest.raises(InvalidReference) as info:
            make_service(ws, scope="company", location_id=branch.id)

        assert info.value.field == "scope"
        assert ws.services.list(location_id=branch.id).total == 0

    def test_service_group_of_the_company(self, ws: Workspace, location: Location):
        """A company-wide or same-location group may be named."""
        everywhere = ws.service_groups.create(name="All")
        here = ws.service_groups.create(name="Here", location_id=location.id)

        assert everywhere.id == make_service(ws, service_group_id=everywhere.id).service_group_id
        assert here.id == make_service(ws, service_group_id=here.id).service_group_id

    def test_unknown_service_group_is_refused(self, ws: Workspace, location: Location):
        """A service group id naming no group is refused and nothing is stored."""
        with pytest.raises(InvalidReference) as info:
            make_service(ws, service_group_id="nope")

        assert info.value.field == "service_group_id"
        assert ws.services.list().total == 0

    def test_group_of_another_location_is_refused(
        self, ws: Workspace, location: Location, branch: Location
    ):
        """A location-scoped service cannot join a group shown at another location."""
        group = ws.service_groups.create(name="Uptown only", location_id=branch.id)

        with pytest.raises(InvalidReference):
            make_service(ws, service_group_id=group.id)

    def test_company_service_may_join_any_location_group(
        self, ws: Workspace, location: Location, branch: Location
    ):
        """A company-scoped service is bookable everywhere, so any location's group may list it."""
        group = ws.service_groups.create(name="Uptown only", location_id=branch.id)

        service = make_service(ws, scope="company", service_group_id=group.id)

        assert group.id == service.service_group_id

    def test_other_company_group_is_unauthorized(
        self, ws: Workspace, location: Location, other_ws: Workspace
    ):
        """Naming another company's service group raises Unauthorized."""
        theirs = other_ws.service_groups.create(name="Theirs")

        with pytest.raises(Unauthorized):
            make_service(ws, service_group_id=theirs.id)

    def test_other_company_location_is_unauthorized(
        self, ws: Workspace, location: Location, other_ws: Workspace
    ):
        """A service cannot be created at another company's location."""
        theirs = other_ws.locations.list().data[0]

        with pytest.raises(Unauthorized):
            make_service(ws, location_id=theirs.id)

    def test_unknown_location_is_not_found(self, ws: Workspace, location: Location):
        """An unknown location id raises NotFound."""
        with pytest.raises(NotFound):
            make_service(ws, location_id="nope")


class TestUpdate:
    def test_name_limit_boundary_on_update(self, ws: Workspace, location: Location):
        """Updates allow 255-character names; 256 are refused and nothing changes."""
        service = make_service(ws)

        assert ws.services.update(service.id, name="x" * 255).name == "x" * 255
        before = ws.services.get(service.id)
        with pytest.raises(FieldTooLong) as info:
            ws.services.update(service.id, name="y" * 256)

        assert (info.value.limit, info.value.requested) == (255, 256)
        assert before == ws.services.get(service.id)

    def test_booking_limit_and_availability(self, ws: Workspace, location: Location):
        """booking_limit and the availability wrapper can be changed; other fields stay."""
        service = make_service(ws, description="Short")
        hours = WeeklyHours.always()

        updated = ws.services.update(service.id, booking_limit=3, availability=hours)

        assert (3, hours, "Short") == (
            updated.booking_limit,
            updated.availability,
            updated.description,
        )
        assert updated == ws.services.get(service.id)

    def test_duration_boundary_on_update(self, ws: Workspace, location: Location):
        """Duration may drop to 1 but not to 0; a refused change leaves the service as it was."""
        service = make_service(ws)

        assert ws.services.update(service.id, duration=1).duration == 1
        before = ws.services.get(service.id)
        with pytest.raises(OutOfRange):
            ws.services.update(service.id, duration=0)

        assert before == ws.services.get(service.id)

    def test_invalid_combination_leaves_service_unchanged(self, ws: Workspace, location: Location):
        """Setting only max_capacity breaks the pair rule; nothing is changed."""
        service = make_service(ws)

        with pytest.raises(InconsistentFields):
            ws.services.update(service.id, max_capacity=5, name="Changed")

        assert service == ws.services.get(service.id)

    def test_scope_change_is_checked(self, ws: Workspace, location: Location, branch: Location):
        """A branch service cannot become company-scoped; a primary one can."""
        at_branch = make_service(ws, location_id=branch.id)
        at_primary = make_service(ws)

        with pytest.raises(InvalidReference):
            ws.services.update(at_branch.id, scope=ServiceScope.COMPANY)

        assert at_branch == ws.services.get(at_branch.id)
        assert (
            ws.services.update(at_primary.id, scope=ServiceScope.COMPANY).scope
            == ServiceScope.COMPANY
        )

    def test_group_change_is_checked(self, ws: Workspace, location: Location):
        """A changed service group must exist; nothing changes when it does not."""
        service = make_service(ws)
        group = ws.service_groups.create(name="Hair")

        assert (
            group.id == ws.services.update(service.id, service_group_id=group.id).service_group_id
        )
        before = ws.services.get(service.id)
        with pytest.raises(InvalidReference):
            ws.services.update(service.id, service_group_id="nope")

        assert before == ws.services.get(service.id)

    def test_booking_limit_range(self, ws: Workspace, location: Location):
        """booking_limit 0 (calendar default) is accepted; negative values are refused."""
        service = make_service(ws, booking_limit=2)

        assert ws.services.update(service.id, booking_limit=0).booking_limit == 0
        with pytest.raises(OutOfRange):
            ws.services.update(service.id, booking_limit=-1)

    def test_restricted_principal_cannot_change_company_service(
        self, ws: Workspace, location: Location, branch_only: Workspace
    ):
        """A branch-only principal may read a company-scoped service but not change it."""
        service = make_service(ws, scope="company")

        assert service == branch_only.services.get(service.id)
        with pytest.raises(Unauthorized):
            branch_only.services.update(service.id, name="Mine")
        with pytest.raises(Unauthorized):
            branch_only.services.set_availability(service.id, {"mon": DayWindow.closed()})

        assert service == ws.services.get(service.id)

    def test_missing_service_is_not_found(self, ws: Workspace, location: Location):
        """Updating an unknown service raises NotFound."""
        with pytest.raises(NotFound):
            ws.services.update("nope", booking_limit=1)


class TestGetAndList:
    def test_missing_service_is_not_found(self, ws: Workspace, location: Location):
        """An unknown service id raises NotFound."""
        with pytest.raises(NotFound):
            ws.services.get("nope")

    def test_list_defaults_to_primary_location(
        self, ws: Workspace, location: Location, branch: Location
    ):
        """Without location_id the primary location's services are listed."""
        here = make_service(ws)
        make_service(ws, location_id=branch.id)

        page = ws.services.list()

        assert ([here.id], "/setup/v1/services") == ([s.id for s in page.data], page.url)

    def test_location_list_includes_company_services(
        self, ws: Workspace, location: Location, branch: Location
    ):
        """A location lists its own services and company-scoped ones, in creation order."""
        shared = make_service(ws, name="Shared", scope="company")
        make_service(ws, name="Primary only")
        local = make_service(ws, name="Local", location_id=branch.id)

        page = ws.services.list(location_id=branch.id)

        assert [shared.id, local.id] == [s.id for s in page.data]

    def test_filters(self, ws: Workspace, location: Location):
        """service_group_id and default_service filter the list."""
        group = ws.service_groups.create(name="Hair")
        grouped = make_service(ws, service_group_id=group.id)
        default = make_service(ws, default_service=True)

        assert [grouped.id] == [s.id for s in ws.services.list(service_group_id=group.id).data]
        assert [default.id] == [s.id for s in ws.services.list(default_service=True).data]
        assert [grouped.id] == [s.id for s in ws.services.list(default_service=False).data]

    def test_unknown_group_filter_is_not_found(self, ws: Workspace, location: Location):
        """Filtering by an unknown service group raises NotFound."""
        with pytest.raises(NotFound):
            ws.services.list(service_group_id="nope")

    def test_setup_list_limit_boundary(self, ws: Workspace, location: Location):
        """The setup list accepts limit 100 and refuses 101."""
        assert ws.services.list(limit=100).limit == 100
        with pytest.raises(OutOfRange):
            ws.services.list(limit=101)

    def test_consumer_list_shows_online_services_only(self, ws: Workspace, location: Location):
        """The consumer list leaves out services not shown online."""
        online = make_service(ws)
        make_service(ws, show_online=False)

        page = ws.services.list_consumer()

        assert ([online.id], "/consumer/v1/services") == ([s.id for s in page.data], page.url)

    def test_consumer_list_limit_boundary(self, ws: Workspace, location: Location):
        """The consumer list accepts limit 500 and refuses 501 (decision 31)."""
        assert ws.services.list_consumer(limit=500).limit == 500
        with pytest.raises(OutOfRange):
            ws.services.list_consumer(limit=501)

    def test_paging(self, ws: Workspace, location: Location):
        """Pages honour offset and limit."""
        ids = [make_service(ws, name=f"S{i}").id for i in range(3)]

        page = ws.services.list(offset=1, limit=1)

        assert ([ids[1]], 3, True) == ([s.id for s in page.data], page.total, page.has_more)

    def test_other_company_is_unauthorized(
        self, ws: Workspace, location: Location, other_ws: Workspace
    ):
        """Another company's services and locations cannot be read or listed."""
        theirs = make_service(other_ws)

        with pytest.raises(Unauthorized):
            ws.services.get(theirs.id)
        with pytest.raises(Unauthorized):
            ws.services.list(location_id=theirs.location_id)
        with pytest.raises(Unauthorized):
            ws.services.list_consumer(location_id=theirs.location_id)

    def test_restricted_principal_cannot_read_other_location_service(
        self, ws: Workspace, location: Location, branch_only: Workspace
    ):
        """A branch-only principal cannot read a location-scoped service of the primary location."""
        service = make_service(ws)

        with pytest.raises(Unauthorized):
            branch_only.services.get(service.id)


class TestAvailability:
    def test_get_availability(self, ws: Workspace, location: Location):
        """The weekly hours read back are the service's availability."""
        service = make_service(ws)

        assert service.availability == ws.services.get_availability(service.id)

    def test_named_days_change_and_others_keep(self, ws: Workspace, location: Location):
        """Days not given keep their window; keys may be Weekday members or names."""
        service = make_service(ws)

        hours = ws.services.set_availability(
            service.id,
            {
                Weekday.SAT: DayWindow(start_time=1000, end_time=1200),
                "mon": {"start_time": 800, "end_time": 1600},
            },
        )

        assert DayWindow(start_time=1000, end_time=1200) == hours.sat
        assert DayWindow(start_time=800, end_time=1600) == hours.mon
        assert service.availability.tue == hours.tue
        assert hours == ws.services.get_availability(service.id)

    def test_zero_zero_closes_a_day(self, ws: Workspace, location: Location):
        """A window of 0, 0 makes the day unavailable."""
        service = make_service(ws)

        hours = ws.services.set_availability(service.id, {"mon": {"start_time": 0, "end_time": 0}})

        assert hours.mon.is_closed

    def test_invalid_window_leaves_availability_unchanged(self, ws: Workspace, location: Location):
        """A window whose start is not before its end is refused; nothing changes."""
        service = make_service(ws)

        with pytest.raises(InvalidTimeRange):
            ws.services.set_availability(
                service.id,
                {"tue": DayWindow.closed(), "mon": {"start_time": 900, "end_time": 900}},
            )

        assert service == ws.services.get(service.id)

    def test_unknown_day_is_refused(self, ws: Workspace, location: Location):
        """A key that is not sun..sat is refused."""
        service = make_service(ws)

        with pytest.raises(InvalidChoice):
            ws.services.set_availability(service.id, {"funday": DayWindow.all_day()})

    def test_location_hours_are_the_default(self, ws: Workspace):
        """The default availability copies the location's open days and closes the rest."""
        hours = BusinessHours(mon=DayHours.open(700, 1900), tue=DayHours())
        ws.locations.create(name="Early", business_hours=hours)

        availability = ws.services.get_availability(make_service(ws).id)

        assert (DayWindow(start_time=700, end_time=1900), True) == (
            availability.mon,
            availability.tue.is_closed,
        )

    def test_other_company_is_unauthorized(
        self, ws: Workspace, location: Location, other_ws: Workspace
    ):
        """Another company's service hours cannot be read or changed."""
        theirs = make_service(other_ws)

        with pytest.raises(Unauthorized):
            ws.services.get_availability(theirs.id)
        with pytest.raises(Unauthorized):
            ws.services.set_availability(theirs.id, {"mon": DayWindow.closed()})

        assert theirs == other_ws.services.get(theirs.id)


class TestBlocks:
    def test_block_targets_the_service(self, ws: Workspace, location: Location):
        """A service block targets the service at the service's location by default."""
        service = make_service(ws)

        block = ws.services.create_block(
            service.id, start_date=JAN, end_date=FEB, start_time=1200, end_time=1300, reason="Lunch"
        )

        assert (BlockTarget.SERVICE, service.id, location.id) == (
            block.target,
            block.target_id,
            block.location_id,
        )
        assert block == ws.services.get_block(block.id)

    def test_company_service_block_at_secondary_location(
        self, ws: Workspace, location: Location, branch: Location
    ):
        """A company-scoped service may be blocked at any location of the company."""
        service = make_service(ws, scope="company")

        block = ws.services.create_block(
            service.id, location_id=branch.id, start_date=JAN, end_date=JAN
        )

        assert branch.id == block.location_id

    def test_location_service_blocked_elsewhere_is_refused(
        self, ws: Workspace, location: Location, branch: Location
    ):
        """A location-scoped service cannot be blocked at another location."""
        service = make_service(ws)

        with pytest.raises(InvalidReference):
            ws.services.create_block(
                service.id, location_id=branch.id, start_date=JAN, end_date=JAN
            )

        assert ws.services.list_blocks(service.id).total == 0

    def test_time_range_boundary(self, ws: Workspace, location: Location):
        """startTime one minute before endTime is accepted; equal is refused (spec: Errors 6)."""
        service = make_service(ws)

        ws.services.create_block(
            service.id, start_date=JAN, end_date=JAN, start_time=900, end_time=901
        )
        with pytest.raises(InvalidTimeRange):
            ws.services.create_block(
                service.id, start_date=JAN, end_date=JAN, start_time=900, end_time=900
            )

        assert ws.services.list_blocks(service.id).total == 1

    def test_all_day_and_never(self, ws: Workspace, location: Location):
        """allDay stores 0..2400 and 'never' stores the open end date."""
        service = make_service(ws)

        block = ws.services.create_block(
            service.id,
            start_date=JAN,
            end_date="never",
            start_time=800,
            end_time=900,
            all_day=True,
            repeat=RepeatRule(frequency="D"),
        )

        assert (block.start_time, block.end_time, block.end_date) == (0, 2400, OPEN_END)

    def test_update_get_list_delete(self, ws: Workspace, location: Location):
        """Blocks update in place keeping omitted fields; deleted ones leave the list."""
        service = make_service(ws)
        block = ws.services.create_block(
            service.id, start_date=JAN, end_date=JAN, start_time=900, end_time=1000, reason="A"
        )
        other = ws.services.create_block(service.id, start_date=FEB, end_date=FEB)

        updated = ws.services.update_block(block.id, start_time=930)
        assert (updated.start_time, updated.end_time, updated.reason) == (930, 1000, "A")
        with pytest.raises(InvalidTimeRange):
            ws.services.update_block(block.id, end_time=930)
        assert updated == ws.services.get_block(block.id)

        assert ws.services.delete_block(block.id).deleted
        page = ws.services.list_blocks(service.id)
        assert ([other.id], f"/setup/v1/services/{service.id}/block") == (
            [b.id for b in page.data],
            page.url,
        )
        with pytest.raises(NotFound):
            ws.services.get_block(block.id)

    def test_calendar_block_is_not_a_service_block(self, ws: Workspace, location: Location):
        """A calendar block cannot be read through the service operations."""
        block = ws.calendars.create_block(
            location.primary_calendar_id or "", start_date=JAN, end_date=JAN
        )

        with pytest.raises(NotFound):
            ws.services.get_block(block.id)

    def test_unknown_service_is_not_found(self, ws: Workspace, location: Location):
        """Blocks of an unknown service cannot be created or listed."""
        with pytest.raises(NotFound):
            ws.services.create_block("nope", start_date=JAN, end_date=JAN)
        with pytest.raises(NotFound):
            ws.services.list_blocks("nope")

    def test_other_company_is_unauthorized(
        self, ws: Workspace, location: Location, other_ws: Workspace
    ):
        """Another company's service blocks cannot be created, read, changed or deleted."""
        theirs = make_service(other_ws)
        block = other_ws.services.create_block(theirs.id, start_date=JAN, end_date=JAN)

        with pytest.raises(Unauthorized):
            ws.services.create_block(theirs.id, start_date=JAN, end_date=JAN)
        with pytest.raises(Unauthorized):
            ws.services.list_blocks(theirs.id)
        with pytest.raises(Unauthorized):
            ws.services.get_block(block.id)
        with pytest.raises(Unauthorized):
            ws.services.update_block(block.id, reason="x")
        with pytest.raises(Unauthorized):
            ws.services.delete_block(block.id)

        assert block == other_ws.services.get_block(block.id)


class TestAllocations:
    def test_appointment_service_is_refused(self, ws: Workspace, location: Location):
        """Only event-type services take allocations; nothing is stored otherwise."""
        service = make_service(ws)

        with pytest.raises(InvalidReference) as info:
            ws.services.create_allocation(service.id, start_date=JAN, end_date=JAN)

        assert info.value.field == "service_id"
        assert ws.services.list_allocations(service.id).total == 0

    def test_location_service_defaults_to_its_location(
        self, ws: Workspace, location: Location, branch: Location
    ):
        """A location-scoped event's allocation defaults to the service's own location."""
        service = make_service(ws, type="event", location_id=branch.id)

        allocation = ws.services.create_allocation(
            service.id,
            start_date=JAN,
            end_date=JAN,
            start_time=1000,
            end_time=1200,
            booking_limit=5,
        )

        assert (AllocationTarget.SERVICE, service.id, branch.id, 5) == (
            allocation.target,
            allocation.target_id,
            allocation.location_id,
            allocation.booking_limit,
        )
        assert allocation == ws.services.get_allocation(allocation.id)

    def test_company_service_defaults_to_primary(
        self, ws: Workspace, location: Location, branch: Location
    ):
        """A company-scoped event's allocation defaults to the primary location."""
        service = make_service(ws, type=ServiceType.EVENT, scope=ServiceScope.COMPANY)

        default = ws.services.create_allocation(service.id, start_date=JAN, end_date=JAN)
        named = ws.services.create_allocation(
            service.id, location_id=branch.id, start_date=JAN, end_date=JAN
        )

        assert (location.id, branch.id) == (default.location_id, named.location_id)

    def test_location_service_elsewhere_is_refused(
        self, ws: Workspace, location: Location, branch: Location
    ):
        """A location-scoped event cannot get an allocation at another location."""
        service = make_service(ws, type="event")

        with pytest.raises(InvalidReference):
            ws.services.create_allocation(
                service.id, location_id=branch.id, start_date=JAN, end_date=JAN
            )

    def test_time_range_boundary(self, ws: Workspace, location: Location):
        """An allocation from 10:00 to 10:01 is accepted; 10:00 to 10:00 is refused."""
        service = make_service(ws, type="event")

        ws.services.create_allocation(
            service.id, start_date=JAN, end_date=JAN, start_time=1000, end_time=1001
        )
        with pytest.raises(InvalidTimeRange):
            ws.services.create_allocation(
                service.id, start_date=JAN, end_date=JAN, start_time=1000, end_time=1000
            )

        assert ws.services.list_allocations(service.id).total == 1

    def test_update_booking_limit_to_zero(self, ws: Workspace, location: Location):
        """booking_limit 0 is allowed on update; negative values are refused without a change."""
        service = make_service(ws, type="event")
        allocation = ws.services.create_allocation(
            service.id, start_date=JAN, end_date="never", booking_limit=3
        )

        updated = ws.services.update_allocation(allocation.id, booking_limit=0)

        assert (updated.booking_limit, updated.end_date) == (0, OPEN_END)
        with pytest.raises(OutOfRange):
            ws.services.update_allocation(allocation.id, booking_limit=-1)
        assert updated == ws.services.get_allocation(allocation.id)

    def test_list_and_delete(self, ws: Workspace, location: Location):
        """Deleting an allocation removes it for good."""
        service = make_service(ws, type="event")
        first = ws.services.create_allocation(service.id, start_date=JAN, end_date=JAN)
        second = ws.services.create_allocation(service.id, start_date=FEB, end_date=FEB)

        assert first == ws.services.delete_allocation(first.id)

        page = ws.services.list_allocations(service.id)
        assert ([second.id], f"/setup/v1/services/{service.id}/allocations") == (
            [a.id for a in page.data],
            page.url,
        )
        with pytest.raises(NotFound):
            ws.services.get_allocation(first.id)
        with pytest.raises(NotFound):
            ws.services.delete_allocation(first.id)

    def test_other_company_is_unauthorized(
        self, ws: Workspace, location: Location, other_ws: Workspace
    ):
        """Another company's allocations cannot be created, read, changed or deleted."""
        theirs = make_service(other_ws, type="event")
        allocation = other_ws.services.create_allocation(theirs.id, start_date=JAN, end_date=JAN)

        with pytest.raises(Unauthorized):
            ws.services.create_allocation(theirs.id, start_date=JAN, end_date=JAN)
        with pytest.raises(Unauthorized):
            ws.services.list_allocations(theirs.id)
        with pytest.raises(Unauthorized):
            ws.services.get_allocation(allocation.id)
        with pytest.raises(Unauthorized):
            ws.services.update_allocation(allocation.id, booking_limit=9)
        with pytest.raises(Unauthorized):
            ws.services.delete_allocation(allocation.id)

        assert allocation == other_ws.services.get_allocation(allocation.id)


class TestResources:
    def test_location_service_resources(
        self, ws: Workspace, scheduler: Scheduler, location: Location, branch: Location
    ):
        """Live resources at the service's location that take it, by sort key then name."""
        service = make_service(ws)
        other = make_service(ws, name="Other")
        zed = add_resource(scheduler, location, "zed")
        amy = add_resource(scheduler, location, "Amy", linked_service_ids=(service.id,))
        first = add_resource(scheduler, location, "Yan", options=ResourceOptions(sort_key=-1))
        add_resource(scheduler, location, "Gone", deleted=True)
        add_resource(scheduler, location, "Busy", linked_service_ids=(other.id,))
        add_resource(scheduler, branch, "Far")

        page = ws.services.resources(service.id)

        assert [first.id, amy.id, zed.id] == [r.id for r in page.data]
        assert f"/consumer/v1/services/{service.id}/resources" == page.url

    def test_company_service_resources(
        self,
        ws: Workspace,
        scheduler: Scheduler,
        location: Location,
        branch: Location,
        branch_only: Workspace,
    ):
        """A company-scoped service lists resources of every location the principal may see."""
        service = make_service(ws, scope="company")
        here = add_resource(scheduler, location, "Amy")
        there = add_resource(scheduler, branch, "Bob")

        everywhere = ws.services.resources(service.id)
        limited = branch_only.services.resources(service.id)

        assert [here.id, there.id] == [r.id for r in everywhere.data]
        assert [there.id] == [r.id for r in limited.data]

    def test_consumer_view_carries_the_zone_offset(
        self, ws: Workspace, scheduler: Scheduler, location: Location
    ):
        """Resources are consumer views whose offset is the resource zone's offset now."""
        service = make_service(ws)
        add_resource(scheduler, location, "Amy")

        view = ws.services.resources(service.id).data[0]

        # The clock stands at 2026-01-05, winter in New York: UTC-5.
        assert (view.name, view.timezone_id, view.timezone_offset) == (
            "Amy",
            "America/New_York",
            -300,
        )

    def test_paging(self, ws: Workspace, scheduler: Scheduler, location: Location):
        """The resource list pages like every list."""
        service = make_service(ws)
        for name in ("A", "B", "C"):
            add_resource(scheduler, location, name)

        page = ws.services.resources(service.id, offset=2, limit=1)

        assert ([r.name for r in page.data], page.total, page.has_more) == (["C"], 3, False)

    def test_unknown_and_foreign_services(
        self, ws: Workspace, location: Location, other_ws: Workspace
    ):
        """An unknown service raises NotFound; another company's raises Unauthorized."""
        theirs = make_service(other_ws)

        with pytest.raises(NotFound):
            ws.services.resources("nope")
        with pytest.raises(Unauthorized):
            ws.services.resources(theirs.id)


class TestTenantIsolation:
    def test_other_company_service_cannot_be_changed(
        self, ws: Workspace, location: Location, other_ws: Workspace
    ):
        """Updating another company's service raises Unauthorized and changes nothing."""
        theirs = make_service(other_ws)

        with pytest.raises(Unauthorized):
            ws.services.update(theirs.id, name="Mine")

        assert theirs == other_ws.services.get(theirs.id)
