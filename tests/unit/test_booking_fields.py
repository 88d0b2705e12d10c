"""
Field definitions at booking (docs/semantics.md "Field definitions at booking"): required fields
must be filled on BK/RS, select values must be among the choices; refusals write nothing.
"""

from __future__ import annotations

from typing import Any

import pytest

from slotwise import FieldKind, FieldType, Location, Workspace
from slotwise.errors import FieldRequired, InvalidChoice
from slotwise.model import FieldValue, Resource, Service

from .test_appointments import at, book, hold, snapshot


@pytest.fixture
def required_fields(ws: Workspace, location: Location) -> None:
    """A required custom field (field1) and a required select booking field (size: S/M/L)."""
    ws.fields.define(name="field1", label="Allergies", required=True)
    ws.fields.define(
        name="size",
        label="Size",
        kind=FieldKind.BOOKING,
        type=FieldType.SELECT,
        choices=("S", "M", "L"),
        required=True,
    )


FILLED: dict[str, Any] = {
    "custom_fields": {"field1": "none"},
    "appointment_booking_fields": [FieldValue(name="size", value="M")],
}


@pytest.mark.usefixtures("required_fields")
class TestRequiredFields:
    def test_a_booking_with_every_required_field_is_made(
        self, ws: Workspace, service: Service, resource: Resource
    ):
        """BK with field1 and size filled is booked and keeps the values."""
        booked = book(ws, service, resource, at(1000), **FILLED)

        assert (booked.custom_fields, booked.appointment_booking_fields) == (
            {"field1": "none"},
            (FieldValue(name="size", value="M"),),
        )

    @pytest.mark.parametrize(
        ("fields", "missing"),
        [
            (
                {"appointment_booking_fields": [FieldValue(name="size", value="M")]},
                "custom_fields.field1",
            ),
            (
                {
                    "custom_fields": {"field1": "  "},
                    "appointment_booking_fields": [FieldValue(name="size", value="M")],
                },
                "custom_fields.field1",
            ),
            ({"custom_fields": {"field1": "none"}}, "booking_fields.size"),
        ],
    )
    def test_a_booking_missing_a_required_field_is_refused_and_writes_nothing(
        self,
        ws: Workspace,
        service: Service,
        resource: Resource,
        fields: dict[str, Any],
        missing: str,
    ):
        """BK without (or with a blank) required field raises FieldRequired naming it; no record."""
        before = snapshot(ws)

        with pytest.raises(FieldRequired) as raised:
            book(ws, service, resource, at(1000), **fields)

        assert (raised.value.field, snapshot(ws)) == (missing, before)

    def test_a_customer_booking_field_fills_a_required_booking_field(
        self, ws: Workspace, service: Service, resource: Resource
    ):
        """A booking field may come from the customer's booking fields too."""
        booked = book(
            ws,
            service,
            resource,
            at(1000),
            custom_fields={"field1": "none"},
            customer_booking_fields=[FieldValue(name="size", value="L")],
        )

        assert booked.customer_booking_fields == (FieldValue(name="size", value="L"),)

    def test_a_hold_may_leave_required_fields_for_the_booking(
        self, ws: Workspace, service: Service, resource: Resource
    ):
        """An IN hold is made without them; booking it then needs them."""
        held = hold(ws, service, resource, at(1000))

        with pytest.raises(FieldRequired):
            ws.appointments.book(held.id, name="Ann Lee", email="ann@example.com")
        booked = ws.appointments.book(held.id, name="Ann Lee", email="ann@example.com", **FILLED)

        assert booked.status.value == "BK"

    def test_reserving_needs_them_too(self, ws: Workspace, service: Service, resource: Resource):
        """RS is a booking: a missing required field is refused."""
        with pytest.raises(FieldRequired) as raised:
            book(ws, service, resource, at(1000), complete_booking="RS")

        assert raised.value.field == "custom_fields.field1"

    def test_a_hold_is_reserved_with_the_fields_it_left(
        self, ws: Workspace, service: Service, resource: Resource
    ):
        """
        ``reserve`` takes what ``book`` takes: a hold made without the required fields is
        refused without them, and reserved with them (details and values kept).
        """
        held = hold(ws, service, resource, at(1000))

        with pytest.raises(FieldRequired):
            ws.appointments.reserve(held.id, name="Ann Lee", email="ann@example.com")
        reserved = ws.appointments.reserve(
            held.id,
            name="Ann Lee",
            email="ann@example.com",
            phone_type="mobile",
            customer_message="ground floor, please",
            **FILLED,
        )

        assert (reserved.status.value, reserved.custom_fields, reserved.customer_message) == (
            "RS",
            {"field1": "none"},
            "ground floor, please",
        )
        assert reserved.appointment_booking_fields == (FieldValue(name="size", value="M"),)

    def test_fields_of_another_location_do_not_apply(
        self, ws: Workspace, service: Service, resource: Resource
    ):
        """Definitions are per location: a second location's required field is not asked for here."""
        uptown = ws.locations.create(name="Uptown")
        ws.fields.define(name="field2", label="Parking", required=True, location_id=uptown.id)

        booked = book(ws, service, resource, at(1000), **FILLED)

        assert "field2" not in booked.custom_fields


class TestSelectChoices:
    def test_a_select_value_outside_its_choices_is_refused(
        self, ws: Workspace, location: Location, service: Service, resource: Resource
    ):
        """A select booking field's value must be a choice: InvalidChoice names field and choices."""
        ws.fields.define(
            name="size",
            label="Size",
            kind=FieldKind.BOOKING,
            type=FieldType.SELECT,
            choices=("S", "M"),
        )
        before = snapshot(ws)

        with pytest.raises(InvalidChoice) as raised:
            book(
                ws,
                service,
                resource,
                at(1000),
                appointment_booking_fields=[FieldValue(name="size", value="XL")],
            )

        assert (raised.value.field, raised.value.allowed, snapshot(ws)) == (
            "booking_fields.size",
            ("S", "M"),
            before,
        )

    def test_an_optional_select_may_be_left_out(
        self, ws: Workspace, location: Location, service: Service, resource: Resource
    ):
        """Without required, a select field may have no value at all."""
        ws.fields.define(
            name="field3", label="Colour", type=FieldType.SELECT, choices=("red", "blue")
        )

        booked = book(ws, service, resource, at(1000))

        assert booked.custom_fields == {}
