"""
Booking-time rules of the location's field definitions (slotwise; docs/semantics.md "Field
definitions at booking").

A definition marked ``required`` must have a non-blank value when an appointment is booked or
reserved (a hold may still be incomplete); a ``select`` field's value, whenever one is given, must
be one of its choices. Custom fields (``field1``..``field10``) are read from the appointment's
``custom_fields``; booking fields from its appointment or customer booking fields, by name.
"""

from __future__ import annotations

from collections.abc import Iterable

from slotwise.errors import FieldRequired, InvalidChoice
from slotwise.model import Appointment, FieldDefinition, FieldKind, FieldType, FieldValue
from slotwise.storage.protocol import Reader

__all__ = ["check_field_values"]


def check_field_values(reader: Reader, appointment: Appointment, *, completing: bool) -> None:
    """
    Check *appointment*'s field values against its location's field definitions.

    Args:
        reader: the unit of work's view.
        appointment: the appointment about to be written.
        completing: whether it is being booked or reserved (required fields are enforced).

    Raises:
        FieldRequired: naming ``custom_fields.<name>`` or ``booking_fields.<name>`` when a
            required field is missing or blank on a booking.
        InvalidChoice: when a select field's value is not one of its choices.
    """
    definitions = reader.find(
        FieldDefinition, company_id=appointment.company_id, location_id=appointment.location_id
    )
    if not definitions:
        return
    booking_values = _booking_values(
        (*appointment.appointment_booking_fields, *appointment.customer_booking_fields)
    )
    for definition in definitions:
        if definition.kind is FieldKind.CUSTOM:
            value = appointment.custom_fields.get(definition.name)
            field = f"custom_fields.{definition.name}"
        else:
            value = booking_values.get(definition.name)
            field = f"booking_fields.{definition.name}"
        if value is None or not value.strip():
            if completing and definition.required:
                raise FieldRequired(field=field)
            continue
        if definition.type is FieldType.SELECT and value not in definition.choices:
            raise InvalidChoice(field=field, allowed=definition.choices, requested=value)


def _booking_values(values: Iterable[FieldValue]) -> dict[str, str]:
    """Return name -> value of booking-field values, the first non-blank value of a name winning."""
    found: dict[str, str] = {}
    for item in values:
        if item.value.strip() and item.name not in found:
            found[item.name] = item.value
    return found
