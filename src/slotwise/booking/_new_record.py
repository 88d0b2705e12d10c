"""
The record a new appointment is (a part of creating one): built from the values the booking's
checks passed, with the customer's details, without checking again what is known valid.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from slotwise.model import Appointment, Customer
from slotwise.model._checks import INSTANT_YEARS
from slotwise.model._trusted import check_sent
from slotwise.model.appointments import stored_custom_fields, trusted_appointment_builder
from slotwise.model.customers import NO_CUSTOM_FIELDS

from ._base import _NO_DETAILS, _Details
from .checks import _customer_fields

__all__ = ["new_appointment"]

# The customer's details an appointment keeps, in its constructor's (validators') order.
_DETAIL_FIELDS = (
    "email",
    "first_name",
    "last_name",
    "phone",
    "phone_type",
    "phone_ext",
    "customer_message",
)
# The fields a new appointment is given (the others keep their defaults): what create passes
# (``values``), then the details.
_NEW_FIELDS = (
    "id",
    "company_id",
    "location_id",
    "calendar_id",
    "service_id",
    "resource_ids",
    "customer_id",
    "status",
    "start",
    "end",
    "group_size",
    "created_at",
    "hold_expires_at",
    "last_modified_at",
    "last_modified_by",
    "booked_by",
    "custom_fields",
    "appointment_booking_fields",
    "customer_booking_fields",
    "idempotency_key",
    "idempotency_fingerprint",
    *_DETAIL_FIELDS,
)
_trusted_new = trusted_appointment_builder(_NEW_FIELDS)


def new_appointment(
    details: _Details, customer: Customer | None, values: dict[str, Any]
) -> Appointment:
    """
    Build a new appointment from *values* (``_NEW_FIELDS`` but the details), and the details
    sent or else the customer's own.

    Everything but what the caller sent is known valid: the operation's checks made the times
    (aware UTC, ordered), the group size and the status; ids come from stored records and the
    id source; the customer's details from its stored record, whose validators are at least as
    strict as the appointment's. Those are not checked again (``trusted_appointment``). What
    the caller sent and nothing checked yet (custom fields, ``booked_by``, the details) goes
    through the appointment's own converter and validators, in its constructor's order, so a
    bad value is refused with the same error. Instants the clock handed over in another form
    (another zone, a ``datetime`` subclass, years off decision 36's) take the validating
    constructor, which converts or refuses them as it always did.
    """
    _customer_fields(customer, details, values)
    now, start, end, hold = (
        values["created_at"],
        values["start"],
        values["end"],
        values["hold_expires_at"],
    )
    # is_record_instant for the four, inlined (a call each was a fifth of this function): the
    # start is not before now (create refused it otherwise), the end is after the start and a
    # hold after now, so only now's lowest year and the end's and hold's highest are left.
    low, high = INSTANT_YEARS
    if not (
        now.__class__ is start.__class__ is end.__class__ is datetime
        and now.tzinfo is start.tzinfo is end.tzinfo is UTC
        and low <= now.year
        and end.year <= high
        and (hold is None or (hold.__class__ is datetime and hold.year <= high))
    ):
        return Appointment(**values)
    # The constructor converts first (custom fields), then validates in field order.
    custom_fields = values["custom_fields"]
    values["custom_fields"] = (
        NO_CUSTOM_FIELDS if custom_fields is None else stored_custom_fields(custom_fields)
    )
    if values["booked_by"] is not None:
        check_sent(Appointment, "booked_by", values["booked_by"])
    if details is not _NO_DETAILS:
        for name in _DETAIL_FIELDS:
            value = values[name]
            # Only a value sent is checked; one the customer record gave is valid already.
            if value is not None and value is getattr(details, name):
                check_sent(Appointment, name, value)
    return _trusted_new(values)
