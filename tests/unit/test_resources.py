"""Resource operations: create, update, bulk, soft delete, reads, availability, links, windows."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, date, datetime, timedelta

import attrs
import pytest

from slotwise import (
    Block,
    BlockTarget,
    CalendarProvider,
    DayWindow,
    FieldRequired,
    FieldTooLong,
    FieldTooShort,
    InvalidChoice,
    InvalidFormat,
    InvalidReference,
    InvalidTimeOfDay,
    InvalidTimeRange,
    InvalidTimeZone,
    Location,
    NotFound,
    OutOfRange,
    PhoneNumbers,
    Resource,
    ResourceDeleted,
    ResourceOptions,
    ResourceWeeklyAvailability,
    Scheduler,
    Service,
    ServiceScope,
    Unauthorized,
    UnexpectedField,
    Weekday,
    WeeklyHours,
    Workspace,
)
from slotwise.testing import ManualClock


def _add_service(
    ws: Workspace,
    location: Location,
    service_id: str,
    *,
    scope: ServiceScope = ServiceScope.LOCATION,
) -> Service:
    """Insert a service straight into the store (the service operations live elsewhere)."""
    service = Service(
        id=service_id,
        company_id=location.company_id,
        location_id=location.id,
        name=f"Service {service_id}",
        duration=30,
        scope=scope,
    )
    with ws.locations._ctx.store.transaction() as tx:
        tx.insert(service)
    return service


def _stored(ws: Workspace) -> list[Resource]:
    """Return every resource record of the workspace's company, as stored."""
    with ws.locations._ctx.store.read() as reader:
        return reader.find(Resource, company_id=ws.principal.company_id)


def _blocks(ws: Workspace) -> list[Block]:
    """Return every block record of the workspace's company, as stored."""
    with ws.locations._ctx.store.read() as reader:
        return reader.find(Block, company_id=ws.principal.company_id)


@pytest.fixture
def branch(ws: Workspace, location: Location) -> Location:
    """A second, non-primary location of the company."""
    return ws.locations.create(name="Branch")


@pytest.fixture
def resource(ws: Workspace, location: Location) -> Resource:
    """A resource at the primary location with default hours."""
    return ws.resources.create(name="Alice", reason="new hire")


class TestCreate:
    def test_defaults_follow_the_location(self, ws: Workspace, location: Location):
        """Location, zone and weekly hours default to the primary location's; reason is stored."""
        resource = ws.resources.create(name="Alice", reason="new hire")

        assert resource.location_id == location.id
        assert resource.timezone == location.timezone
        assert resource.weekly_hours == location.business_hours.as_weekly()
        assert resource.recurring_availability is True
        assert resource.reason == "new hire"
        assert [resource] == _stored(ws)

    def test_named_location(self, ws: Workspace, branch: Location):
        """A resource may be created at a named location."""
        resource = ws.resources.create(name="Bob", reason="r", location_id=branch.id)

        assert branch.id == resource.location_id

    def test_name_limit_boundary(self, ws: Workspace, location: Location):
        """A 255-character name is accepted; 256 are refused and nothing is stored (spec: Limits)."""
        ok = ws.resources.create(name="x" * 255, reason="r")
        with pytest.raises(FieldTooLong) as info:
            ws.resources.create(name="y" * 256, reason="r")

        assert (info.value.field, info.value.limit, info.value.requested) == ("name", 255, 256)
        assert [ok] == _stored(ws)

    def test_blank_name_is_refused(self, ws: Workspace, location: Location):
        """A blank name is refused as required (spec: Errors 2)."""
        with pytest.raises(FieldRequired) as info:
            ws.resources.create(name="  ", reason="r")

        assert info.value.field == "name"
        assert _stored(ws) == []

    def test_reason_is_required(self, ws: Workspace, location: Location):
        """A missing or blank reason is refused (spec: Errors 1) and nothing is stored."""
        with pytest.raises(FieldRequired) as missing:
            ws.resources.create(name="Alice")  # type: ignore[call-arg]
        with pytest.raises(FieldRequired) as blank:
            ws.resources.create(name="Alice", reason="   ")

        assert (missing.value.field, blank.value.field) == ("reason", "reason")
        assert _stored(ws) == []

    def test_phone_length_boundaries(self, ws: Workspace, location: Location):
        """Phones of 7 and 15 characters are accepted; 6 and 16 are refused (spec: Errors 4)."""
        short_ok = ws.resources.create(
            name="A", reason="r", phone=PhoneNumbers(mobile_phone="1234567")
        )
        long_ok = ws.resources.create(
            name="B", reason="r", phone=PhoneNumbers(business_phone="+44 20 7946 000")
        )
        with pytest.raises(FieldTooShort) as too_short:
            ws.resources.create(name="C", reason="r", phone=PhoneNumbers(mobile_phone="123456"))
        with pytest.raises(FieldTooLong) as too_long:
            ws.resources.create(name="D", reason="r", phone=PhoneNumbers(home_phone="1" * 16))

        assert (
            short_ok.phone.mobile_phone,
            long_ok.phone.business_phone,
        ) == ("1234567", "+44 20 7946 000")
        assert (too_short.value.limit, too_long.value.limit) == (7, 15)
        assert [short_ok, long_ok] == _stored(ws)

    def test_calendar_availability_boundary(self, ws: Workspace, location: Location):
        """calendar_availability 0, 1 and 2 are accepted; 3 is refused."""
        created = [
            ws.resources.create(
                name=f"R{value}", reason="r", options=ResourceOptions(calendar_availability=value)
            )
            for value in (0, 1, 2)
        ]
        with pytest.raises(InvalidChoice) as info:
            ResourceOptions(calendar_availability=3)

        assert [r.options.calendar_availability for r in created] == [0, 1, 2]
        assert info.value.field == "calendar_availability"

    def test_invalid_timezone_is_refused(self, ws: Workspace, location: Location):
        """A zone that is not an IANA name is refused and nothing is stored."""
        with pytest.raises(InvalidTimeZone) as info:
            ws.resources.create(name="Alice", reason="r", timezone="Mars/Olympus_Mons")

        assert info.value.field == "timezone"
        assert _stored(ws) == []

    def test_unknown_location_is_not_found(self, ws: Workspace, location: Location):
        """A location id that names nothing raises NotFound."""
        with pytest.raises(NotFound):
            ws.resources.create(name="Alice", reason="r", location_id="nope")

    def test_group_must_be_usable_at_the_location(
        self, ws: Workspace, location: Location, branch: Location
    ):
        """group_id must name a group of the resource's location or a company-wide one."""
        company_wide = ws.resource_groups.create(name="All staff")
        local = ws.resource_groups.create(name="Downtown staff", location_id=location.id)
        elsewhere = ws.resource_groups.create(name="Branch staff", location_id=branch.id)

        a = ws.resources.create(name="A", reason="r", group_id=company_wide.id)
        b = ws.resources.create(name="B", reason="r", group_id=local.id)
        with pytest.raises(InvalidReference) as wrong_location:
            ws.resources.create(name="C", reason="r", group_id=elsewhere.id)
        with pytest.raises(InvalidReference) as missing:
            ws.resources.create(name="D", reason="r", group_id="nope")

        assert (company_wide.id, local.id) == (a.group_id, b.group_id)
        assert (wrong_location.value.field, missing.value.field) == ("group_id", "group_id")
        assert [a, b] == _stored(ws)

    def test_linked_services_must_be_usable_at_the_location(
        self, ws: Workspace, location: Location, branch: Location
    ):
        """Linked services must exist and be offered at the location (own or company-scoped)."""
        _add_service(ws, location, "svc-company", scope=ServiceScope.COMPANY)
        _add_service(ws, location, "svc-downtown")
        _add_service(ws, branch, "svc-branch")

        resource = ws.resources.create(
            name="A",
            reason="r",
            location_id=branch.id,
            linked_service_ids=["svc-branch", "svc-company", "svc-branch"],
        )
        with pytest.raises(InvalidReference) as elsewhere:
            ws.resources.create(
                name="B", reason="r", location_id=branch.id, linked_service_ids=["svc-downtown"]
            )
        with pytest.raises(InvalidReference):
            ws.resources.create(name="C", reason="r", linked_service_ids=["svc-missing"])

        assert resource.linked_service_ids == ("svc-branch", "svc-company")
        assert elsewhere.value.field == "linked_service_ids[0]"
        assert [resource] == _stored(ws)

    def test_one_string_of_service_ids_is_refused(self, ws: Workspace, location: Location):
        """A lone string is not read as a list of one-character ids."""
        with pytest.raises(InvalidFormat):
            ws.resources.create(name="A", reason="r", linked_service_ids="svc")

        assert _stored(ws) == []

    def test_caller_cannot_mark_a_calendar_authorized(self, ws: Workspace, location: Location):
        """auth_url and authorized come from the authorization flow, never from the caller."""
        provider = CalendarProvider(
            calendar_id="alice@example.com",
            auth_url="https://provider.example.com/auth",
            authorized=True,
        )

        resource = ws.resources.create(name="Alice", reason="r", provider_a=provider)

        assert CalendarProvider(calendar_id="alice@example.com") == resource.provider_a

    def test_protected_fields_cannot_be_set(self, ws: Workspace, location: Location):
        """Keywords outside ResourceFields (such as deleted) raise UnexpectedField."""
        with pytest.raises(UnexpectedField, match="deleted"):
            ws.resources.create(name="A", reason="r", deleted=True)  # type: ignore[call-arg]

        assert _stored(ws) == []


class TestOwnZone:
    def test_new_york_resource_at_a_london_location(self, scheduler: Scheduler, ws: Workspace):
        """A resource keeps its own zone: offsets use it, and default hours are its wall times."""
        london = ws.locations.create(name="London", timezone="Europe/London")

        resource = ws.resources.create(name="Remote", reason="r", timezone="America/New_York")
        ws.locations.update(london.id, timezone="Europe/Paris")

        assert ws.resources.get(resource.id).timezone == "America/New_York"
        assert london.business_hours.as_weekly() == resource.weekly_hours
        assert ws.resources.get_consumer(resource.id).timezone_offset == -300
        assert ws.resources.get_availability(resource.id).resource_tzo == -300

    def test_offset_follows_the_clock(self, ws: Workspace, clock: ManualClock, resource: Resource):
        """timezone_offset is the zone's offset now: EST in January, EDT in July."""
        january = ws.resources.get_consumer(resource.id).timezone_offset
        clock.set(datetime(2026, 7, 1, tzinfo=UTC))

        assert (january, ws.resources.get_consumer(resource.id).timezone_offset) == (-300, -240)


class TestUpdate:
    def test_changes_named_fields_only(self, ws: Workspace, resource: Resource):
        """An update changes the given fields and keeps every other one."""
        updated = ws.resources.update(resource.id, name="Alice B", timezone="Europe/London")

        assert attrs.evolve(resource, name="Alice B", timezone="Europe/London") == updated
        assert [updated] == _stored(ws)

    def test_invalid_change_leaves_store_unchanged(self, ws: Workspace, resource: Resource):
        """A refused update writes nothing."""
        with pytest.raises(FieldTooLong):
            ws.resources.update(resource.id, name="z" * 256)
        with pytest.raises(InvalidTimeZone):
            ws.resources.update(resource.id, timezone="Nowhere/Special")

        assert [resource] == _stored(ws)

    def test_deleted_resource_is_refused(self, ws: Workspace, resource: Resource):
        """A soft-deleted resource cannot be changed until it is recovered."""
        deleted = ws.resources.delete(resource.id)

        with pytest.raises(ResourceDeleted) as info:
            ws.resources.update(resource.id, name="Ghost")

        assert resource.id == info.value.resource_id
        assert [deleted] == _stored(ws)

    def test_location_cannot_change(self, ws: Workspace, resource: Resource, branch: Location):
        """location_id is not an update field; passing it raises UnexpectedField."""
        with pytest.raises(UnexpectedField, match="location_id"):
            ws.resources.update(resource.id, location_id=branch.id)  # type: ignore[call-arg]

        assert [resource] == _stored(ws)

    def test_group_change_is_checked(self, ws: Workspace, resource: Resource, branch: Location):
        """A new group_id must be usable at the resource's location; None leaves the group."""
        elsewhere = ws.resource_groups.create(name="Branch staff", location_id=branch.id)
        mine = ws.resource_groups.create(name="Everyone")

        with pytest.raises(InvalidReference):
            ws.resources.update(resource.id, group_id=elsewhere.id)
        joined = ws.resources.update(resource.id, group_id=mine.id)
        left = ws.resources.update(resource.id, group_id=None)

        assert (mine.id, None) == (joined.group_id, left.group_id)

    def test_new_calendar_id_clears_authorization(self, ws: Workspace, resource: Resource):
        """Authorization survives updates of the same account and is cleared by a new account."""
        authorized = CalendarProvider(
            calendar_id="alice@example.com",
            auth_url="https://provider.example.com/auth",
            authorized=True,
        )
        with ws.locations._ctx.store.transaction() as tx:
            tx.update(attrs.evolve(resource, provider_a=authorized))

        same = ws.resources.update(
            resource.id, provider_a=CalendarProvider(calendar_id="alice@example.com")
        )
        other = ws.resources.update(
            resource.id, provider_a=CalendarProvider(calendar_id="alice@work.example.com")
        )

        assert authorized == same.provider_a
        assert CalendarProvider(calendar_id="alice@work.example.com") == other.provider_a


class TestBulkUpdate:
    def test_every_update_applies(self, ws: Workspace, location: Location):
        """A bulk update applies each change in order (spec: PUT /setup/v1/resources/bulk)."""
        a = ws.resources.create(name="A", reason="r")
        b = ws.resources.create(name="B", reason="r")

        result = ws.resources.update_many(
            [(a.id, {"name": "A2"}), (b.id, {"email": "b@example.com"}), (a.id, {"name": "A3"})]
        )

        assert [r.name for r in result] == ["A2", "B", "A3"]
        assert [(r.name, r.email) for r in _stored(ws)] == [("A3", None), ("B", "b@example.com")]

    def test_one_failure_applies_none(self, ws: Workspace, location: Location):
        """When one update of a bulk is refused, none of them is written."""
        a = ws.resources.create(name="A", reason="r")
        b = ws.resources.create(name="B", reason="r")
        before = _stored(ws)

        with pytest.raises(FieldTooLong):
            ws.resources.update_many([(a.id, {"name": "A2"}), (b.id, {"name": "n" * 256})])
        with pytest.raises(NotFound):
            ws.resources.update_many([(a.id, {"name": "A2"}), ("nope", {"name": "X"})])

        assert before == _stored(ws)

    def test_refusal_names_the_update_it_is_about(self, ws: Workspace, location: Location):
        """A field refused after the call boundary names its update: updates[1][1].timezone."""
        a = ws.resources.create(name="A", reason="r")

        with pytest.raises(InvalidTimeZone) as info:
            ws.resources.update_many([(a.id, {"name": "A2"}), (a.id, {"timezone": "Mars/Base"})])

        assert "updates[1][1].timezone" == info.value.field
        assert info.value.message.startswith("updates[1][1].timezone must be")

    def test_link_names_the_refused_service_by_its_place(
        self, ws: Workspace, location: Location, resource: Resource
    ):
        """The second of two services to link, missing, is service_ids[1]."""
        _add_service(ws, location, "svc-here")

        with pytest.raises(InvalidReference) as info:
            ws.resources.link_services(resource.id, ["svc-here", "svc-missing"])

        assert "service_ids[1]" == info.value.field
        assert info.value.message.startswith("service_ids[1]: ")


class TestDeleteAndRecover:
    def test_delete_is_soft(self, ws: Workspace, clock: ManualClock, resource: Resource):
        """A deleted resource keeps its record with deleted true and the time of deletion."""
        deleted = ws.resources.delete(resource.id)

        assert (True, clock.now()) == (deleted.deleted, deleted.deleted_time)
        assert deleted == ws.resources.get(resource.id)
        assert ws.resources.get_consumer(resource.id).deleted_status
        assert ws.resources.list().total == 0
        assert [resource.id] == [r.id for r in ws.resources.list(include_deleted=True).data]

    def test_second_delete_keeps_first_time(
        self, ws: Workspace, clock: ManualClock, resource: Resource
    ):
        """Deleting a deleted resource changes nothing (DELETE is idempotent)."""
        first = ws.resources.delete(resource.id)
        clock.advance(timedelta(hours=1))

        assert first == ws.resources.delete(resource.id)
        assert [first] == _stored(ws)

    def test_recover_restores(self, ws: Workspace, resource: Resource):
        """Recovering clears deleted and deleted_time and lists the resource again."""
        ws.resources.delete(resource.id)

        recovered = ws.resources.recover(resource.id)

        assert resource == recovered
        assert [resource.id] == [r.id for r in ws.resources.list().data]

    def test_recover_of_active_resource_changes_nothing(self, ws: Workspace, resource: Resource):
        """Recovering an active resource returns it unchanged (PUT is idempotent)."""
        assert resource == ws.resources.recover(resource.id)
        assert [resource] == _stored(ws)

    def test_missing_resource_is_not_found(self, ws: Workspace, location: Location):
        """Deleting or recovering an unknown id raises NotFound."""
        with pytest.raises(NotFound):
            ws.resources.delete("nope")
        with pytest.raises(NotFound):
            ws.resources.recover("nope")


class TestAccess:
    def test_unknown_id_is_not_found(self, ws: Workspace, location: Location):
        """Every read of an unknown resource raises NotFound."""
        for read in (
            ws.resources.get,
            ws.resources.get_consumer,
            ws.resources.get_availability,
            ws.resources.services,
            ws.resources.list_blocks,
            ws.resources.list_allocations,
        ):
            with pytest.raises(NotFound):
                read("nope")

    def test_other_company_is_unauthorized(
        self, ws: Workspace, other_ws: Workspace, resource: Resource
    ):
        """Another company can neither read, change nor delete the resource, nor use its location."""
        calls: list[Callable[[], object]] = [
            lambda: other_ws.resources.get(resource.id),
            lambda: other_ws.resources.get_consumer(resource.id),
            lambda: other_ws.resources.update(resource.id, name="Mine"),
            lambda: other_ws.resources.update_many([(resource.id, {"name": "Mine"})]),
            lambda: other_ws.resources.delete(resource.id),
            lambda: other_ws.resources.recover(resource.id),
            lambda: other_ws.resources.set_availability(resource.id, {}),
            lambda: other_ws.resources.link_services(resource.id, []),
            lambda: other_ws.resources.create_block(
                resource.id, start_date=date(2026, 1, 6), end_date=date(2026, 1, 6)
            ),
            lambda: other_ws.resources.create(
                name="X", reason="r", location_id=resource.location_id
            ),
        ]
        for call in calls:
            with pytest.raises(Unauthorized):
                call()

        assert [resource] == _stored(ws)

    def test_foreign_group_and_service_are_unauthorized(
        self, ws: Workspace, other_ws: Workspace, resource: Resource
    ):
        """A group or service of another company named in a body raises Unauthorized."""
        theirs = other_ws.resource_groups.create(name="Theirs")
        their_location = other_ws.locations.list().data[0]
        _add_service(other_ws, their_location, "their-svc")

        with pytest.raises(Unauthorized):
            ws.resources.update(resource.id, group_id=theirs.id)
        with pytest.raises(Unauthorized):
            ws.resources.link_services(resource.id, ["their-svc"])

        assert [resource] == _stored(ws)

    def test_location_restricted_principal(
        self, scheduler: Scheduler, ws: Workspace, location: Location, branch: Location
    ):
        """A principal limited to the branch cannot touch a resource of the primary location."""
        downtown = ws.resources.create(name="Downtown", reason="r")
        restricted = scheduler.for_company(location.company_id, location_ids=frozenset({branch.id}))

        mine = restricted.resources.create(name="Branch", reason="r", location_id=branch.id)
        calls: list[Callable[[], object]] = [
            lambda: restricted.resources.get(downtown.id),
            lambda: restricted.resources.get_consumer(downtown.id),
            lambda: restricted.resources.update(downtown.id, name="Mine"),
            lambda: restricted.resources.delete(downtown.id),
            lambda: restricted.resources.create(name="X", reason="r", location_id=location.id),
            lambda: restricted.resources.list(location_id=location.id),
        ]
        for call in calls:
            with pytest.raises(Unauthorized):
                call()

        assert [mine.id] == [r.id for r in restricted.resources.list(location_id=branch.id).data]
        assert [downtown, mine] == _stored(ws)


class TestList:
    def test_default_order_is_sort_key_then_name(self, ws: Workspace, location: Location):
        """Consumer lists order by sort_key, then name ignoring case (decision 31)."""
        for name, key in (("carol", 1), ("Bob", 2), ("alice", 2), ("Dave", 0)):
            ws.resources.create(name=name, reason="r", options=ResourceOptions(sort_key=key))

        page = ws.resources.list()

        assert [r.name for r in page.data] == ["Dave", "carol", "alice", "Bob"]

    def test_name_order(self, ws: Workspace, location: Location):
        """sort_order "name" orders by name alone, ignoring case."""
        for name, key in (("carol", 1), ("Bob", 2), ("alice", 3)):
            ws.resources.create(name=name, reason="r", options=ResourceOptions(sort_key=key))

        page = ws.resources.list(sort_order="name")

        assert [r.name for r in page.data] == ["alice", "Bob", "carol"]

    def test_unknown_sort_order_is_refused(self, ws: Workspace, location: Location):
        """A sort_order other than sort_key or name raises InvalidChoice."""
        with pytest.raises(InvalidChoice) as info:
            ws.resources.list(sort_order="age")  # type: ignore[arg-type]

        assert info.value.field == "sort_order"

    def test_filters(self, ws: Workspace, location: Location):
        """email matches ignoring case; name matches parts ignoring case; group keeps members."""
        group = ws.resource_groups.create(name="Therapists")
        ws.resources.create(name="Alice Smith", reason="r", email="Alice@Example.com")
        ws.resources.create(name="Bob Smith", reason="r", group_id=group.id)
        ws.resources.create(name="Carol Jones", reason="r", group_id=group.id)

        by_email = ws.resources.list(email="alice@example.COM")
        by_name = ws.resources.list(name="SMITH")
        by_group = ws.resources.list(resource_group_id=group.id, name="smith")

        assert [r.name for r in by_email.data] == ["Alice Smith"]
        assert [r.name for r in by_name.data] == ["Alice Smith", "Bob Smith"]
        assert [r.name for r in by_group.data] == ["Bob Smith"]

    def test_defaults_to_the_primary_location(
        self, ws: Workspace, location: Location, branch: Location
    ):
        """Without location_id the primary location's resources are listed (spec: Endpoints)."""
        ws.resources.create(name="Here", reason="r")
        ws.resources.create(name="There", reason="r", location_id=branch.id)

        assert [r.name for r in ws.resources.list().data] == ["Here"]
        assert [r.name for r in ws.resources.list(location_id=branch.id).data] == ["There"]

    def test_paging(self, ws: Workspace, location: Location):
        """Pages report totals and has_more; limits outside 1..100 are refused (decision 31)."""
        for name in ("a", "b", "c"):
            ws.resources.create(name=name, reason="r")

        page = ws.resources.list(offset=1, limit=1)
        with pytest.raises(OutOfRange):
            ws.resources.list(limit=101)
        with pytest.raises(OutOfRange):
            ws.resources.list(offset=-1)

        assert ([r.name for r in page.data], page.total, page.has_more) == (["b"], 3, True)
        assert ws.resources.list(limit=100).limit == 100

    def test_consumer_views_and_setup_views(self, ws: Workspace, resource: Resource):
        """list gives consumer views with offsets; list_setup gives the stored records."""
        consumer = ws.resources.list().data[0]

        assert resource.consumer_view(timezone_offset=-300) == consumer
        assert (resource,) == ws.resources.list_setup().data
        assert ws.resources.list().url == "/consumer/v1/resources"

    def test_unknown_group_filter_is_not_found(self, ws: Workspace, location: Location):
        """Filtering by an unknown resource group raises NotFound."""
        with pytest.raises(NotFound):
            ws.resources.list(resource_group_id="nope")


class TestAvailability:
    def test_get_shows_the_default_business_hours(
        self, ws: Workspace, location: Location, resource: Resource
    ):
        """Day entries exist from creation and default to business hours, with display text."""
        availability = ws.resources.get_availability(resource.id)

        assert (
            ResourceWeeklyAvailability(
                business_id=location.id,
                resource_id=resource.id,
                resource_name="Alice",
                resource_tzo=-300,
                ignore_business_hours=False,
                weekdays=location.business_hours.as_weekly(),
            )
            == availability
        )
        assert availability.display_times(Weekday.MON) == ("9:00 AM", "5:00 PM")
        assert availability.display_times("sun") == ("12:00 AM", "12:00 AM")

    def test_put_keeps_omitted_days(self, ws: Workspace, resource: Resource):
        """Days left out of a PUT keep their window; 0..2400 is a whole day."""
        updated = ws.resources.set_availability(
            resource.id,
            {
                "mon": {"start_time": 1000, "end_time": 1430},
                Weekday.SUN: DayWindow.all_day(),
                "fri": DayWindow.closed(),
            },
        )

        expected = resource.weekly_hours.with_days(
            {
                "mon": DayWindow(start_time=1000, end_time=1430),
                "sun": DayWindow(start_time=0, end_time=2400),
                "fri": DayWindow.closed(),
            }
        )
        assert expected == updated.weekdays
        assert expected == ws.resources.get(resource.id).weekly_hours
        assert updated.display_times("mon") == ("10:00 AM", "2:30 PM")
        assert updated.display_times("tue") == ("9:00 AM", "5:00 PM")

    def test_invalid_window_leaves_store_unchanged(self, ws: Workspace, resource: Resource):
        """A start after its end, a time past 2400 or an unknown day change nothing."""
        with pytest.raises(InvalidTimeRange):
            ws.resources.set_availability(
                resource.id, {"mon": {"start_time": 1400, "end_time": 900}}
            )
        with pytest.raises(InvalidTimeOfDay):
            ws.resources.set_availability(
                resource.id, {"tue": {"start_time": 900, "end_time": 2401}}
            )
        with pytest.raises(InvalidChoice):
            ws.resources.set_availability(resource.id, {"funday": DayWindow.all_day()})

        assert [resource] == _stored(ws)

    def test_deleted_resource_is_refused(self, ws: Workspace, resource: Resource):
        """A soft-deleted resource's hours cannot be changed."""
        ws.resources.delete(resource.id)

        with pytest.raises(ResourceDeleted):
            ws.resources.set_availability(resource.id, {"mon": DayWindow.all_day()})

    def test_display_times_edges(self, ws: Workspace, resource: Resource):
        """Noon reads PM, 2400 reads midnight, and an unknown day is refused."""
        availability = attrs.evolve(
            ws.resources.get_availability(resource.id),
            weekdays=WeeklyHours(sat=DayWindow(start_time=1200, end_time=2400)),
        )

        assert availability.display_times(Weekday.SAT) == ("12:00 PM", "12:00 AM")
        with pytest.raises(InvalidFormat):
            availability.display_times("someday")


class TestLinkedServices:
    def test_link_replaces_and_lists_in_order(
        self, ws: Workspace, location: Location, resource: Resource
    ):
        """PUT services replaces the links; the consumer list shows them in link order."""
        first = _add_service(ws, location, "svc-1")
        second = _add_service(ws, location, "svc-2", scope=ServiceScope.COMPANY)

        linked = ws.resources.link_services(resource.id, ["svc-2", "svc-1"])
        page = ws.resources.services(resource.id)
        replaced = ws.resources.link_services(resource.id, ["svc-1"])
        cleared = ws.resources.link_services(resource.id, [])

        assert linked.linked_service_ids == ("svc-2", "svc-1")
        assert (second, first) == page.data
        assert replaced.linked_service_ids == ("svc-1",)
        assert cleared.linked_service_ids == ()
        assert ws.resources.services(resource.id).total == 0

    def test_service_of_another_location_is_refused(
        self, ws: Workspace, resource: Resource, branch: Location
    ):
        """A location-scoped service of another location cannot be linked; links stay as they were."""
        _add_service(ws, branch, "svc-branch")

        with pytest.raises(InvalidReference) as info:
            ws.resources.link_services(resource.id, ["svc-branch"])

        assert info.value.field == "service_ids[0]"
        assert [resource] == _stored(ws)

    def test_deleted_resource_is_refused(
        self, ws: Workspace, location: Location, resource: Resource
    ):
        """Links of a soft-deleted resource cannot be changed."""
        _add_service(ws, location, "svc-1")
        ws.resources.delete(resource.id)

        with pytest.raises(ResourceDeleted):
            ws.resources.link_services(resource.id, ["svc-1"])


class TestBlocks:
    def test_lifecycle(self, ws: Workspace, resource: Resource):
        """Create, read, update (omitted times and reason kept), list and soft-delete a block."""
        block = ws.resources.create_block(
            resource.id,
            start_date=date(2026, 1, 6),
            end_date=date(2026, 1, 6),
            start_time=1200,
            end_time=1300,
            reason="Lunch",
        )

        updated = ws.resources.update_block(block.id, end_date=date(2026, 1, 9))
        listed = ws.resources.list_blocks(resource.id)
        deleted = ws.resources.delete_block(block.id)

        assert (BlockTarget.RESOURCE, resource.id, resource.location_id) == (
            block.target,
            block.target_id,
            block.location_id,
        )
        assert attrs.evolve(block, end_date=date(2026, 1, 9)) == updated
        assert (updated,) == listed.data
        assert deleted.deleted
        assert ws.resources.list_blocks(resource.id).total == 0
        with pytest.raises(NotFound):
            ws.resources.get_block(block.id)

    def test_get_block(self, ws: Workspace, resource: Resource):
        """A live resource block is returned by id."""
        block = ws.resources.create_block(
            resource.id, start_date=date(2026, 1, 6), end_date="never", all_day=True
        )

        assert block == ws.resources.get_block(block.id)

    def test_invalid_times_are_refused(self, ws: Workspace, resource: Resource):
        """startTime must be less than endTime (spec: Errors 6); nothing is stored."""
        day = date(2026, 1, 6)

        ws.resources.create_block(
            resource.id, start_date=day, end_date=day, start_time=900, end_time=901
        )
        with pytest.raises(InvalidTimeRange):
            ws.resources.create_block(
                resource.id, start_date=day, end_date=day, start_time=900, end_time=900
            )

        assert len(_blocks(ws)) == 1

    def test_deleted_resource_gets_no_new_block(self, ws: Workspace, resource: Resource):
        """A soft-deleted resource cannot be given a new block."""
        ws.resources.delete(resource.id)

        with pytest.raises(ResourceDeleted):
            ws.resources.create_block(
                resource.id, start_date=date(2026, 1, 6), end_date=date(2026, 1, 6)
            )

        assert _blocks(ws) == []

    def test_other_kind_of_block_is_not_found(self, ws: Workspace, location: Location):
        """A service block id is not a resource block."""
        service_block = Block(
            id="blk-svc",
            company_id=location.company_id,
            location_id=location.id,
            target=BlockTarget.SERVICE,
            target_id="svc-1",
            start_date=date(2026, 1, 6),
            end_date=date(2026, 1, 6),
        )
        with ws.locations._ctx.store.transaction() as tx:
            tx.insert(service_block)

        with pytest.raises(NotFound):
            ws.resources.get_block("blk-svc")
        with pytest.raises(NotFound):
            ws.resources.delete_block("blk-svc")

    def test_other_company_block_is_unauthorized(
        self, ws: Workspace, other_ws: Workspace, resource: Resource
    ):
        """Another company cannot read, change or delete the block."""
        block = ws.resources.create_block(
            resource.id, start_date=date(2026, 1, 6), end_date=date(2026, 1, 6)
        )

        calls: list[Callable[[], object]] = [
            lambda: other_ws.resources.get_block(block.id),
            lambda: other_ws.resources.update_block(block.id, reason="mine"),
            lambda: other_ws.resources.delete_block(block.id),
        ]
        for call in calls:
            with pytest.raises(Unauthorized):
                call()

        assert [block] == _blocks(ws)


class TestAllocations:
    def test_lifecycle(self, ws: Workspace, resource: Resource):
        """Create, read, list, update (omitted fields kept) and delete an allocation."""
        allocation = ws.resources.create_allocation(
            resource.id,
            start_date=date(2026, 1, 6),
            end_date=date(2026, 1, 31),
            start_time=900,
            end_time=1200,
            booking_limit=3,
        )

        updated = ws.resources.update_allocation(allocation.id, booking_limit=0)
        fetched = ws.resources.get_allocation(allocation.id)
        listed = ws.resources.list_allocations(resource.id)
        removed = ws.resources.delete_allocation(allocation.id)

        assert attrs.evolve(allocation, booking_limit=0) == updated
        assert (updated, (updated,)) == (fetched, listed.data)
        assert updated == removed
        with pytest.raises(NotFound):
            ws.resources.get_allocation(allocation.id)

    def test_booking_limit_boundary(self, ws: Workspace, resource: Resource):
        """booking_limit 1000 is accepted; 1001 is refused and nothing is stored."""
        ok = ws.resources.create_allocation(
            resource.id, start_date=date(2026, 1, 6), end_date=date(2026, 1, 6), booking_limit=1000
        )
        with pytest.raises(OutOfRange):
            ws.resources.create_allocation(
                resource.id,
                start_date=date(2026, 1, 6),
                end_date=date(2026, 1, 6),
                booking_limit=1001,
            )

        assert (ok,) == ws.resources.list_allocations(resource.id).data

    def test_deleted_resource_gets_no_new_allocation(self, ws: Workspace, resource: Resource):
        """A soft-deleted resource cannot be given a new allocation."""
        ws.resources.delete(resource.id)

        with pytest.raises(ResourceDeleted):
            ws.resources.create_allocation(
                resource.id, start_date=date(2026, 1, 6), end_date=date(2026, 1, 6)
            )


class TestTimezones:
    def test_sorted_iana_names(self, ws: Workspace):
        """The zone list is sorted IANA names, without system aliases such as localtime."""
        names = ws.resources.timezones()

        assert sorted(names) == names
        assert {"America/New_York", "Europe/London", "UTC"} <= set(names)
        assert "localtime" not in names
