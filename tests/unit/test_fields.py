"""Custom and booking field definitions: define, update, delete and the two spec lists."""

from __future__ import annotations

import pytest

from slotwise import (
    Company,
    DuplicateRecord,
    FieldKind,
    FieldTooLong,
    FieldType,
    InconsistentFields,
    InvalidFormat,
    Location,
    NotFound,
    Scheduler,
    Unauthorized,
    Workspace,
)
from slotwise.model import FieldDefinition
from slotwise.operations.fields import BookingFieldList, CustomFieldList


@pytest.fixture
def their_field(other_ws: Workspace) -> FieldDefinition:
    """A custom field at another company's primary location."""
    return other_ws.fields.define(name="field1", label="Theirs")


class TestDefine:
    def test_custom_field_at_the_primary_location(self, ws: Workspace, location: Location):
        """Without a location, a custom field is defined at the primary location."""
        definition = ws.fields.define(name="field1", label="Allergies")

        assert (definition.location_id, definition.kind, definition.type, definition.required) == (
            location.id,
            FieldKind.CUSTOM,
            FieldType.TEXT,
            False,
        )

    @pytest.mark.parametrize("name", ["field1", "field10"])
    def test_custom_names_field1_to_field10_are_accepted(
        self, ws: Workspace, location: Location, name: str
    ):
        """field1 and field10 are the ends of the custom field names."""
        assert name == ws.fields.define(name=name, label="Note").name

    @pytest.mark.parametrize("name", ["field0", "field11", "notes"])
    def test_other_custom_names_are_refused(self, ws: Workspace, location: Location, name: str):
        """Custom names outside field1..field10 raise InvalidFormat and store nothing."""
        with pytest.raises(InvalidFormat) as info:
            ws.fields.define(name=name, label="Note")

        assert info.value.field == "name"
        assert ws.fields.booking_fields().total == 0

    def test_duplicate_name_at_a_location_is_refused(self, ws: Workspace, location: Location):
        """A second field1 at one location raises DuplicateRecord; the list is unchanged."""
        first = ws.fields.define(name="field1", label="Allergies")

        with pytest.raises(DuplicateRecord) as info:
            ws.fields.define(name="field1", label="Again")

        assert (info.value.field, info.value.value) == ("name", "field1")
        assert (first,) == ws.fields.custom_fields().custom_fields

    def test_names_are_unique_across_kinds(self, ws: Workspace, location: Location):
        """A booking field may not take a custom field's name at the same location."""
        ws.fields.define(name="field1", label="Allergies")

        with pytest.raises(DuplicateRecord):
            ws.fields.define(kind=FieldKind.BOOKING, name="field1", label="Clash")

    def test_same_name_at_another_location_is_allowed(self, ws: Workspace, location: Location):
        """Names are unique per location, so another location may reuse field1."""
        uptown = ws.locations.create(name="Uptown")
        ws.fields.define(name="field1", label="Allergies")

        other = ws.fields.define(location_id=uptown.id, name="field1", label="Allergies")

        assert uptown.id == other.location_id

    def test_booking_field_takes_any_name(self, ws: Workspace, location: Location):
        """Booking fields are not limited to field1..field10."""
        definition = ws.fields.define(
            kind="booking", name="referral", label="How did you hear of us?", required=True
        )

        assert (
            definition.kind,
            definition.name,
            definition.required,
        ) == (FieldKind.BOOKING, "referral", True)

    def test_select_needs_choices(self, ws: Workspace, location: Location):
        """A select field needs choices; other types may not have them."""
        select = ws.fields.define(
            name="field2", label="Size", type=FieldType.SELECT, choices=["S", "M", "L"]
        )

        assert select.choices == ("S", "M", "L")
        with pytest.raises(InconsistentFields):
            ws.fields.define(name="field3", label="Size", type="select")
        with pytest.raises(InconsistentFields):
            ws.fields.define(name="field4", label="Note", choices=["x"])
        assert ws.fields.custom_fields().total == 1

    def test_label_length_boundary(self, ws: Workspace, location: Location):
        """A 255-character label is accepted; 256 are refused."""
        assert ws.fields.define(name="field1", label="x" * 255).label == "x" * 255
        with pytest.raises(FieldTooLong):
            ws.fields.define(name="field2", label="x" * 256)

    def test_other_company_location_is_unauthorized(
        self, ws: Workspace, other_ws: Workspace, location: Location
    ):
        """Defining a field at another company's location raises Unauthorized and stores nothing."""
        theirs = other_ws.locations.list().data[0]

        with pytest.raises(Unauthorized):
            ws.fields.define(location_id=theirs.id, name="field1", label="Mine")

        assert other_ws.fields.custom_fields().total == 0

    def test_location_outside_principal_set_is_unauthorized(
        self, scheduler: Scheduler, company: Company, ws: Workspace, location: Location
    ):
        """A principal limited to one location may not define fields at another."""
        uptown = ws.locations.create(name="Uptown")
        limited = scheduler.for_company(company.id, location_ids=frozenset({location.id}))

        with pytest.raises(Unauthorized):
            limited.fields.define(location_id=uptown.id, name="field1", label="No")

    def test_unknown_location_is_not_found(self, ws: Workspace, location: Location):
        """Defining a field at an unknown location raises NotFound."""
        with pytest.raises(NotFound):
            ws.fields.define(location_id="nope", name="field1", label="Note")

    def test_company_without_locations_is_not_found(self, ws: Workspace):
        """Without any location there is no primary location to default to."""
        with pytest.raises(NotFound):
            ws.fields.define(name="field1", label="Note")


class TestUpdate:
    def test_changes_given_fields(self, ws: Workspace, location: Location):
        """An update changes the label and sort order and keeps the rest."""
        definition = ws.fields.define(name="field1", label="Allergies")

        updated = ws.fields.update(definition.id, label="Allergies (if any)", sort_order=5)

        assert (
            updated.label,
            updated.sort_order,
            updated.name,
        ) == ("Allergies (if any)", 5, "field1")
        assert (updated,) == ws.fields.custom_fields().custom_fields

    def test_rename_to_a_taken_name_is_refused(self, ws: Workspace, location: Location):
        """Renaming onto another field's name raises DuplicateRecord and changes nothing."""
        ws.fields.define(name="field1", label="One")
        two = ws.fields.define(name="field2", label="Two")

        with pytest.raises(DuplicateRecord):
            ws.fields.update(two.id, name="field1")

        assert two in ws.fields.custom_fields().custom_fields

    def test_keeping_own_name_is_allowed(self, ws: Workspace, location: Location):
        """An update that re-sends the field's own name is not a duplicate."""
        one = ws.fields.define(name="field1", label="One")

        assert ws.fields.update(one.id, name="field1", label="Uno").name == "field1"

    def test_invalid_change_leaves_the_record_unchanged(self, ws: Workspace, location: Location):
        """Turning a field into a select without choices is refused; nothing changes."""
        one = ws.fields.define(name="field1", label="One")

        with pytest.raises(InconsistentFields):
            ws.fields.update(one.id, type=FieldType.SELECT)

        assert (one,) == ws.fields.custom_fields().custom_fields

    def test_other_company_is_unauthorized(
        self, ws: Workspace, other_ws: Workspace, their_field: FieldDefinition
    ):
        """Updating another company's field raises Unauthorized and changes nothing."""
        with pytest.raises(Unauthorized) as info:
            ws.fields.update(their_field.id, label="Mine")

        assert info.value.field == "field_id"
        assert (their_field,) == other_ws.fields.custom_fields().custom_fields

    def test_missing_field_is_not_found(self, ws: Workspace):
        """Updating an unknown id raises NotFound."""
        with pytest.raises(NotFound):
            ws.fields.update("nope", label="x")


class TestGet:
    def test_get_returns_the_definition(self, ws: Workspace, location: Location):
        """get returns the stored definition; an unknown id is NotFound."""
        one = ws.fields.define(name="field1", label="One")

        assert one == ws.fields.get(one.id)
        with pytest.raises(NotFound):
            ws.fields.get("nope")

    def test_other_company_is_unauthorized(self, ws: Workspace, their_field: FieldDefinition):
        """Reading another company's definition raises Unauthorized."""
        with pytest.raises(Unauthorized):
            ws.fields.get(their_field.id)


class TestDelete:
    def test_delete_removes_and_returns_the_record(self, ws: Workspace, location: Location):
        """Delete is permanent, returns the record, and frees its name."""
        one = ws.fields.define(name="field1", label="One")

        assert one == ws.fields.delete(one.id)
        assert ws.fields.custom_fields().total == 0
        assert ws.fields.define(name="field1", label="Again").name == "field1"

    def test_other_company_is_unauthorized(
        self, ws: Workspace, other_ws: Workspace, their_field: FieldDefinition
    ):
        """Deleting another company's field raises Unauthorized and keeps it."""
        with pytest.raises(Unauthorized):
            ws.fields.delete(their_field.id)

        assert (their_field,) == other_ws.fields.custom_fields().custom_fields

    def test_missing_field_is_not_found(self, ws: Workspace):
        """Deleting an unknown id raises NotFound."""
        with pytest.raises(NotFound):
            ws.fields.delete("nope")


class TestLists:
    def test_custom_fields_shape_and_order(self, ws: Workspace, location: Location):
        """customfields has the spec's shape, holds custom fields only, by sort order then creation."""
        late = ws.fields.define(name="field1", label="Late", sort_order=2)
        first = ws.fields.define(name="field2", label="First", sort_order=1)
        second = ws.fields.define(name="field3", label="Second", sort_order=1)
        ws.fields.define(kind=FieldKind.BOOKING, name="referral", label="Referral")

        listed = ws.fields.custom_fields()

        assert CustomFieldList(custom_fields=(first, second, late)) == listed
        assert (listed.object, listed.total) == ("customFields", 3)

    def test_booking_fields_include_custom_fields(self, ws: Workspace, location: Location):
        """bookingfields has the spec's shape and includes the custom fields (spec)."""
        custom = ws.fields.define(name="field1", label="Allergies", sort_order=2)
        booking = ws.fields.define(kind=FieldKind.BOOKING, name="referral", label="Referral")

        listed = ws.fields.booking_fields()

        assert BookingFieldList(booking_fields=(booking, custom)) == listed
        assert (listed.object, listed.total) == ("bookingFields", 2)

    def test_lists_are_per_location(self, ws: Workspace, location: Location):
        """Each location lists only its own definitions; the default is the primary location."""
        uptown = ws.locations.create(name="Uptown")
        mine = ws.fields.define(name="field1", label="Primary")
        theirs = ws.fields.define(location_id=uptown.id, name="field1", label="Uptown")

        assert (mine,) == ws.fields.custom_fields().custom_fields
        assert (theirs,) == ws.fields.custom_fields(uptown.id).custom_fields
        assert (theirs,) == ws.fields.booking_fields(uptown.id).booking_fields

    def test_empty_lists(self, ws: Workspace, location: Location):
        """A location without definitions gives empty lists with total 0."""
        assert (ws.fields.custom_fields().total, ws.fields.custom_fields().custom_fields) == (0, ())
        assert ws.fields.booking_fields().total == 0

    def test_other_company_location_is_unauthorized(
        self, ws: Workspace, other_ws: Workspace, their_field: FieldDefinition
    ):
        """Listing another company's location raises Unauthorized."""
        with pytest.raises(Unauthorized):
            ws.fields.custom_fields(their_field.location_id)
        with pytest.raises(Unauthorized):
            ws.fields.booking_fields(their_field.location_id)

    def test_unknown_location_is_not_found(self, ws: Workspace, location: Location):
        """Listing an unknown location raises NotFound."""
        with pytest.raises(NotFound):
            ws.fields.custom_fields("nope")
        with pytest.raises(NotFound):
            ws.fields.booking_fields("nope")
