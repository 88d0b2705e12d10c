"""Resource group operations: create, get, list, update and delete."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from slotwise import (
    FieldRequired,
    FieldTooLong,
    Location,
    NotFound,
    OutOfRange,
    Resource,
    ResourceGroup,
    Scheduler,
    Unauthorized,
    Workspace,
)
from slotwise.errors import RecordInUse


def _stored(ws: Workspace) -> list[ResourceGroup]:
    """Return every resource group record of the workspace's company, as stored."""
    with ws.locations._ctx.store.read() as reader:
        return reader.find(ResourceGroup, company_id=ws.principal.company_id)


@pytest.fixture
def branch(ws: Workspace, location: Location) -> Location:
    """A second, non-primary location of the company."""
    return ws.locations.create(name="Branch")


class TestCreate:
    def test_company_wide_by_default(self, ws: Workspace, location: Location):
        """A group without location_id is company-wide."""
        group = ws.resource_groups.create(name="Therapists", description="All therapists")

        assert (group.location_id, group.company_id) == (None, location.company_id)
        assert [group] == _stored(ws)

    def test_at_a_location(self, ws: Workspace, branch: Location):
        """A group may belong to one location."""
        group = ws.resource_groups.create(name="Rooms", location_id=branch.id)

        assert branch.id == group.location_id

    def test_name_limit_boundary(self, ws: Workspace, location: Location):
        """A 255-character name is accepted; 256 are refused and nothing is stored."""
        ok = ws.resource_groups.create(name="g" * 255)
        with pytest.raises(FieldTooLong) as info:
            ws.resource_groups.create(name="h" * 256)

        assert (info.value.field, info.value.limit, info.value.requested) == ("name", 255, 256)
        assert [ok] == _stored(ws)

    def test_blank_name_is_refused(self, ws: Workspace, location: Location):
        """A blank name is refused as required."""
        with pytest.raises(FieldRequired):
            ws.resource_groups.create(name=" ")

        assert _stored(ws) == []

    def test_unknown_or_foreign_location(
        self, ws: Workspace, other_ws: Workspace, location: Location
    ):
        """An unknown location is NotFound; another company's is Unauthorized."""
        theirs = other_ws.locations.list().data[0]

        with pytest.raises(NotFound):
            ws.resource_groups.create(name="G", location_id="nope")
        with pytest.raises(Unauthorized):
            ws.resource_groups.create(name="G", location_id=theirs.id)

        assert _stored(ws) == []


class TestGetAndList:
    def test_get(self, ws: Workspace, location: Location):
        """A group is returned by id; an unknown id raises NotFound."""
        group = ws.resource_groups.create(name="Rooms")

        assert group == ws.resource_groups.get(group.id)
        with pytest.raises(NotFound):
            ws.resource_groups.get("nope")

    def test_list_shows_the_location_and_company_wide_groups(
        self, ws: Workspace, location: Location, branch: Location
    ):
        """A location's list holds its own groups and the company-wide ones, in creation order."""
        everyone = ws.resource_groups.create(name="Everyone")
        downtown = ws.resource_groups.create(name="Downtown", location_id=location.id)
        there = ws.resource_groups.create(name="Branch", location_id=branch.id)

        assert (everyone, downtown) == ws.resource_groups.list().data
        assert (everyone, there) == ws.resource_groups.list(location_id=branch.id).data

    def test_paging(self, ws: Workspace, location: Location):
        """Pages report totals and has_more; a limit above 100 is refused (decision 31)."""
        for name in ("a", "b", "c"):
            ws.resource_groups.create(name=name)

        page = ws.resource_groups.list(limit=2)
        with pytest.raises(OutOfRange):
            ws.resource_groups.list(limit=101)

        assert ([g.name for g in page.data], page.total, page.has_more) == (["a", "b"], 3, True)

    def test_other_company_is_unauthorized(
        self, ws: Workspace, other_ws: Workspace, location: Location
    ):
        """Another company can neither read, change nor delete a group."""
        group = ws.resource_groups.create(name="Rooms")

        calls: list[Callable[[], object]] = [
            lambda: other_ws.resource_groups.get(group.id),
            lambda: other_ws.resource_groups.update(group.id, name="Mine"),
            lambda: other_ws.resource_groups.delete(group.id),
            lambda: other_ws.resource_groups.list(location_id=location.id),
        ]
        for call in calls:
            with pytest.raises(Unauthorized):
                call()

        assert [group] == _stored(ws)

    def test_location_restricted_principal(
        self, scheduler: Scheduler, ws: Workspace, location: Location, branch: Location
    ):
        """A branch-only principal sees company-wide groups but not another location's."""
        everyone = ws.resource_groups.create(name="Everyone")
        downtown = ws.resource_groups.create(name="Downtown", location_id=location.id)
        restricted = scheduler.for_company(location.company_id, location_ids=frozenset({branch.id}))

        assert everyone == restricted.resource_groups.get(everyone.id)
        assert (everyone,) == restricted.resource_groups.list(location_id=branch.id).data
        with pytest.raises(Unauthorized):
            restricted.resource_groups.get(downtown.id)
        with pytest.raises(Unauthorized):
            restricted.resource_groups.delete(downtown.id)
        assert [everyone, downtown] == _stored(ws)

    def test_a_limited_principal_naming_no_location_gets_its_first(
        self, scheduler: Scheduler, ws: Workspace, location: Location, branch: Location
    ):
        """Decision 42: a branch-only principal's group without location_id is the branch's."""
        restricted = scheduler.for_company(location.company_id, location_ids=frozenset({branch.id}))

        made = restricted.resource_groups.create(name="Branch staff")
        everyone = ws.resource_groups.create(name="Everyone")

        assert (branch.id, None) == (made.location_id, everyone.location_id)
        assert [made, everyone] == _stored(ws)


class TestUpdate:
    def test_changes_named_fields(self, ws: Workspace, location: Location):
        """An update changes the given fields and keeps the others."""
        group = ws.resource_groups.create(name="Rooms", description="All rooms")

        updated = ws.resource_groups.update(group.id, name="Treatment rooms")

        assert (updated.name, updated.description) == ("Treatment rooms", "All rooms")
        assert [updated] == _stored(ws)

    def test_invalid_change_leaves_store_unchanged(self, ws: Workspace, location: Location):
        """A refused update writes nothing."""
        group = ws.resource_groups.create(name="Rooms")

        with pytest.raises(FieldTooLong):
            ws.resource_groups.update(group.id, name="r" * 256)

        assert [group] == _stored(ws)


class TestDelete:
    def test_empty_group_is_deleted(self, ws: Workspace, location: Location):
        """A group no resource belongs to is deleted for good and returned."""
        group = ws.resource_groups.create(name="Rooms")

        assert group == ws.resource_groups.delete(group.id)
        assert _stored(ws) == []
        with pytest.raises(NotFound):
            ws.resource_groups.get(group.id)

    def test_group_in_use_is_refused(self, ws: Workspace, location: Location):
        """A group active resources belong to raises RecordInUse naming how many; nothing changes."""
        group = ws.resource_groups.create(name="Rooms")
        ws.resources.create(name="Room 1", reason="r", group_id=group.id)
        ws.resources.create(name="Room 2", reason="r", group_id=group.id)

        with pytest.raises(RecordInUse) as info:
            ws.resource_groups.delete(group.id)

        assert (info.value.kind, info.value.record_id, info.value.count) == (
            "ResourceGroup",
            group.id,
            2,
        )
        assert [group] == _stored(ws)

    def test_soft_deleted_members_leave_the_group(self, ws: Workspace, location: Location):
        """Soft-deleted members do not hold a group; deleting it clears their group_id."""
        group = ws.resource_groups.create(name="Rooms")
        room = ws.resources.create(name="Room 1", reason="r", group_id=group.id)
        ws.resources.delete(room.id)

        ws.resource_groups.delete(group.id)
        recovered = ws.resources.recover(room.id)

        assert recovered.group_id is None
        assert _stored(ws) == []

    def test_missing_group_is_not_found(self, ws: Workspace, location: Location):
        """Deleting an unknown id raises NotFound."""
        with pytest.raises(NotFound):
            ws.resource_groups.delete("nope")

    def test_members_are_listed_by_group(self, ws: Workspace, location: Location):
        """The resource list narrowed to a group shows exactly its active members."""
        group = ws.resource_groups.create(name="Rooms")
        room = ws.resources.create(name="Room 1", reason="r", group_id=group.id)
        ws.resources.create(name="Desk", reason="r")

        page = ws.resources.list_setup(resource_group_id=group.id)

        assert (room,) == page.data
        assert isinstance(page.data[0], Resource)
