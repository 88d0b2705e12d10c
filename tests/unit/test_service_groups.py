"""Service group operations: create, get, list, update and delete."""

from __future__ import annotations

import pytest

from slotwise import (
    FieldRequired,
    FieldTooLong,
    Location,
    NotFound,
    OutOfRange,
    Unauthorized,
    Workspace,
)
from slotwise.errors import RecordInUse, StateError


@pytest.fixture
def branch(ws: Workspace, location: Location) -> Location:
    """A second, non-primary location of the company."""
    return ws.locations.create(name="Uptown")


class TestCreate:
    def test_company_wide_by_default(self, ws: Workspace, location: Location):
        """Without location_id a group belongs to the whole company."""
        group = ws.service_groups.create(name="Hair", description="Cuts", label="H")

        assert (
            group.location_id,
            group.name,
            group.description,
            group.label,
        ) == (None, "Hair", "Cuts", "H")
        assert group == ws.service_groups.get(group.id)

    def test_at_a_location(self, ws: Workspace, branch: Location):
        """A group may belong to one location."""
        assert (
            branch.id == ws.service_groups.create(name="Nails", location_id=branch.id).location_id
        )

    def test_name_limit_boundary(self, ws: Workspace, location: Location):
        """A 255-character name is accepted; 256 are refused and nothing is stored."""
        assert ws.service_groups.create(name="x" * 255).name == "x" * 255
        before = ws.service_groups.list()

        with pytest.raises(FieldTooLong):
            ws.service_groups.create(name="y" * 256)

        assert before == ws.service_groups.list()

    @pytest.mark.parametrize("name", ["", "  "])
    def test_name_required(self, ws: Workspace, location: Location, name: str):
        """A blank name is refused."""
        with pytest.raises(FieldRequired):
            ws.service_groups.create(name=name)

    def test_unknown_location_is_not_found(self, ws: Workspace, location: Location):
        """An unknown location id raises NotFound."""
        with pytest.raises(NotFound):
            ws.service_groups.create(name="Hair", location_id="nope")

    def test_other_company_location_is_unauthorized(
        self, ws: Workspace, location: Location, other_ws: Workspace
    ):
        """A group cannot be created at another company's location."""
        theirs = other_ws.locations.list().data[0]

        with pytest.raises(Unauthorized):
            ws.service_groups.create(name="Hair", location_id=theirs.id)


class TestGetAndList:
    def test_list_defaults_to_primary_location(
        self, ws: Workspace, location: Location, branch: Location
    ):
        """Without location_id the primary location's and company-wide groups are listed."""
        everywhere = ws.service_groups.create(name="All")
        here = ws.service_groups.create(name="Here", location_id=location.id)
        ws.service_groups.create(name="There", location_id=branch.id)

        page = ws.service_groups.list()

        assert ([everywhere.id, here.id], "/consumer/v1/servicegroups") == (
            [g.id for g in page.data],
            page.url,
        )

    def test_list_named_location(self, ws: Workspace, location: Location, branch: Location):
        """A location lists its own groups and the company-wide ones."""
        everywhere = ws.service_groups.create(name="All")
        ws.service_groups.create(name="Here", location_id=location.id)
        there = ws.service_groups.create(name="There", location_id=branch.id)

        page = ws.service_groups.list(location_id=branch.id)

        assert [everywhere.id, there.id] == [g.id for g in page.data]

    def test_paging(self, ws: Workspace, location: Location):
        """Pages honour offset and limit; limits above 100 are refused."""
        for name in ("A", "B", "C"):
            ws.service_groups.create(name=name)

        page = ws.service_groups.list(offset=1, limit=1)

        assert ([g.name for g in page.data], page.total, page.has_more) == (["B"], 3, True)
        with pytest.raises(OutOfRange):
            ws.service_groups.list(limit=101)

    def test_missing_group_is_not_found(self, ws: Workspace, location: Location):
        """An unknown group id raises NotFound."""
        with pytest.raises(NotFound):
            ws.service_groups.get("nope")

    def test_other_company_is_unauthorized(
        self, ws: Workspace, location: Location, other_ws: Workspace
    ):
        """Another company's groups cannot be read, and its locations cannot be listed."""
        theirs = other_ws.service_groups.create(name="Theirs")
        their_location = other_ws.locations.list().data[0]

        with pytest.raises(Unauthorized):
            ws.service_groups.get(theirs.id)
        with pytest.raises(Unauthorized):
            ws.service_groups.list(location_id=their_location.id)


class TestUpdate:
    def test_changes_only_named_fields(self, ws: Workspace, location: Location):
        """An update changes the given fields and keeps the rest."""
        group = ws.service_groups.create(name="Hair", description="Cuts")

        updated = ws.service_groups.update(group.id, name="Hair and beard", label="HB")

        assert (
            updated.name,
            updated.description,
            updated.label,
        ) == ("Hair and beard", "Cuts", "HB")
        assert updated == ws.service_groups.get(group.id)

    def test_name_limit_boundary(self, ws: Workspace, location: Location):
        """255 characters are accepted on update; 256 are refused and nothing changes."""
        group = ws.service_groups.create(name="Hair")

        assert ws.service_groups.update(group.id, name="x" * 255).name == "x" * 255
        before = ws.service_groups.get(group.id)
        with pytest.raises(FieldTooLong):
            ws.service_groups.update(group.id, name="y" * 256, description="changed")

        assert before == ws.service_groups.get(group.id)

    def test_missing_group_is_not_found(self, ws: Workspace, location: Location):
        """Updating an unknown group raises NotFound."""
        with pytest.raises(NotFound):
            ws.service_groups.update("nope", name="x")

    def test_other_company_is_unauthorized(
        self, ws: Workspace, location: Location, other_ws: Workspace
    ):
        """Another company's group cannot be changed and stays as it was."""
        theirs = other_ws.service_groups.create(name="Theirs")

        with pytest.raises(Unauthorized):
            ws.service_groups.update(theirs.id, name="Mine")

        assert theirs == other_ws.service_groups.get(theirs.id)


class TestDelete:
    def test_unused_group_is_deleted(self, ws: Workspace, location: Location):
        """A group no service names is deleted for good and returned."""
        group = ws.service_groups.create(name="Hair")

        assert group == ws.service_groups.delete(group.id)

        with pytest.raises(NotFound):
            ws.service_groups.get(group.id)
        with pytest.raises(NotFound):
            ws.service_groups.delete(group.id)

    def test_group_in_use_is_kept(self, ws: Workspace, location: Location):
        """A group still named by a service is refused with RecordInUse and kept."""
        group = ws.service_groups.create(name="Hair")
        service = ws.services.create(
            name="Cut", duration=30, reason="new", service_group_id=group.id
        )

        with pytest.raises(RecordInUse) as info:
            ws.service_groups.delete(group.id)

        assert isinstance(info.value, StateError)
        assert (info.value.count, info.value.http_status) == (1, 409)
        assert group == ws.service_groups.get(group.id)

        ws.services.update(service.id, service_group_id=None)
        assert group == ws.service_groups.delete(group.id)

    def test_other_company_is_unauthorized(
        self, ws: Workspace, location: Location, other_ws: Workspace
    ):
        """Another company's group cannot be deleted."""
        theirs = other_ws.service_groups.create(name="Theirs")

        with pytest.raises(Unauthorized):
            ws.service_groups.delete(theirs.id)

        assert theirs == other_ws.service_groups.get(theirs.id)
