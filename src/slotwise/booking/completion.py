"""
Completing a hold (a part of ``AppointmentOperations``): booking or reserving it with the
customer's details, re-checking the slot when the hold has expired (decisions 19-21).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs

from slotwise.errors import (
    HoldExpired,
    SlotUnavailable,
)
from slotwise.model import (
    Appointment,
    Customer,
    Operation,
    Trigger,
)
from slotwise.operations._boundary import operations
from slotwise.operations.customers import (
    customer_email_lock,
    find_customer_by_email,
)
from slotwise.operations.locations import settings_in_force
from slotwise.storage.protocol import Transaction

from ._base import (
    _BK,
    FieldValues,
    _Details,
    _field_values,
    _kept,
    _past,
    _resource_lock,
    _wall_times,
)
from .checks import (
    BookingChecks,
    _check_customer_limits,
    _customer_fields,
    _linkable,
    _merge_details,
)
from .feeds import (
    _queue_reminders,
)
from .fields import check_field_values
from .transitions import transition

__all__ = ["AppointmentCompletion"]


@operations
class AppointmentCompletion(BookingChecks):
    """Completing holds: booking or reserving what a hold keeps."""

    def book(
        self,
        appointment_id: str,
        /,
        *,
        email: str | None = None,
        name: str | None = None,
        phone: str | None = None,
        phone_type: str | None = None,
        phone_ext: str | None = None,
        customer_message: str | None = None,
        custom_fields: Mapping[str, str] | None = None,
        appointment_booking_fields: FieldValues | None = None,
        customer_booking_fields: FieldValues | None = None,
    ) -> Appointment:
        """
        Book a hold: IN → BK, saving customer details and field values (decision 20).

        Spec: PUT /consumer/v1/appointments/{id}/book. Details sent replace those of the hold;
        the hold's own ones are kept otherwise. The booking needs a customer (the hold's
        ``customer_id``, or a name and an e-mail address), created on first booking. A hold
        still within its timer keeps its slot and is booked without a new slot check; an
        expired hold is booked only when its time is still available (checked in the same unit
        of work), otherwise ``HoldExpired``. Fires the booking event and queues reminders.

        Raises:
            NotFound, Unauthorized: for an unknown or foreign appointment.
            InvalidTransition: when the appointment is not IN.
            PastAppointment: when it starts before now.
            HoldExpired: when the hold expired and its time was taken meanwhile.
            FieldRequired, InvalidFormat: for missing or malformed customer details, or a
                required field definition of the location left blank.
            InvalidChoice: for a select field's value outside its choices.
            CustomerLimitReached: when the customer's limits are reached.
        """
        details, extra = _completion_values(
            email=email,
            name=name,
            phone=phone,
            phone_type=phone_type,
            phone_ext=phone_ext,
            customer_message=customer_message,
            custom_fields=custom_fields,
            appointment_booking_fields=appointment_booking_fields,
            customer_booking_fields=customer_booking_fields,
        )
        return self._with_meeting_link(
            self._complete(appointment_id, Operation.BOOK, details, extra)
        )

    def reserve(
        self,
        appointment_id: str,
        /,
        *,
        email: str | None = None,
        name: str | None = None,
        phone: str | None = None,
        phone_type: str | None = None,
        phone_ext: str | None = None,
        customer_message: str | None = None,
        custom_fields: Mapping[str, str] | None = None,
        appointment_booking_fields: FieldValues | None = None,
        customer_booking_fields: FieldValues | None = None,
    ) -> Appointment:
        """
        Reserve a hold: IN → RS (decision 21); a reservation has no expiry.

        Spec: PUT /consumer/v1/appointments/{id}/reserve. Takes what :meth:`book` takes, and
        needs a customer like it: a reservation is checked for the same details and required
        booking fields, so it takes them too. Queues reminders, fires no event. An expired hold
        is re-validated as in :meth:`book`.

        Raises:
            the errors of :meth:`book`.
        """
        details, extra = _completion_values(
            email=email,
            name=name,
            phone=phone,
            phone_type=phone_type,
            phone_ext=phone_ext,
            customer_message=customer_message,
            custom_fields=custom_fields,
            appointment_booking_fields=appointment_booking_fields,
            customer_booking_fields=customer_booking_fields,
        )
        return self._complete(appointment_id, Operation.RESERVE, details, extra)

    def _complete(
        self,
        appointment_id: str,
        operation: Operation,
        details: _Details,
        extra: dict[str, Any],
    ) -> Appointment:
        ctx = self._ctx
        current = self._peek(appointment_id)
        locks = {_resource_lock(rid) for rid in current.resource_ids}
        if details.email or (current.email and current.customer_id is None):
            locks.add(customer_email_lock(ctx.company_id))

        def unit(tx: Transaction, held: frozenset[str]) -> Appointment:
            now = ctx.clock.now()
            appointment = self._own(tx, appointment_id, held)
            status = _kept(transition(appointment.status, operation))
            if appointment.start < now:
                raise _past(tx, operation, appointment.location_id, appointment.start, now)
            location, service = self._place(tx, appointment)
            customer = None
            if appointment.customer_id is not None:
                customer = tx.get(Customer, appointment.customer_id)
            merged = _merge_details(appointment, details)
            self._check_details(tx, customer, merged)
            settings = settings_in_force(tx, location)
            expires = appointment.hold_expires_at
            if expires is not None and now >= expires:
                # Decision 20: an expired hold may still be booked if its time is free.
                try:
                    self._check_slot(
                        tx,
                        location=location,
                        settings=settings,
                        service=service,
                        resources=[self._resource(tx, rid) for rid in appointment.resource_ids],
                        start=appointment.start,
                        end=appointment.end,
                        group_size=appointment.group_size,
                        now=now,
                        exclude_id=appointment.id,
                        busy=None,
                    )
                except SlotUnavailable:
                    (expired,) = _wall_times(tx, location.id, expires)
                    raise HoldExpired(appointment_id=appointment.id, expired_at=expired) from None
                # CapacityExceeded passes: the time is still offered, with room for fewer than
                # the hold's group (docs/errors.md: BOOKING-138, as a new booking gets).
            if customer is None and _linkable(merged.email):
                assert merged.email is not None
                customer = find_customer_by_email(tx, company_id=ctx.company_id, email=merged.email)
            if customer is not None:
                _check_customer_limits(
                    tx,
                    customer_id=customer.id,
                    service=service,
                    location=location,
                    settings=settings,
                    start=appointment.start,
                    resource_ids=appointment.resource_ids,
                    now=now,
                    exclude_id=appointment.id,
                )
            updated = attrs.evolve(
                appointment,
                status=status,
                hold_expires_at=None,
                customer_id=customer.id if customer is not None else None,
                last_modified_at=now,
                last_modified_by=ctx.principal.user,
                **_customer_fields(customer, merged),
                **extra,
            )
            check_field_values(tx, updated, completing=True)
            if customer is None and _linkable(merged.email):
                customer = self._add_customer(tx, merged)
                updated = attrs.evolve(updated, customer_id=customer.id)
            tx.update(updated)
            self._audit(tx, updated, operation, appointment.status, status, now)
            if status is _BK:
                self._event(tx, Trigger.BOOKING_CONFIRMATION, updated, now, customer=customer)
            _queue_reminders(ctx, tx, updated, location, now)
            return updated

        return self._run(locks, unit)


def _completion_values(
    *,
    email: str | None,
    name: str | None,
    phone: str | None,
    phone_type: str | None,
    phone_ext: str | None,
    customer_message: str | None,
    custom_fields: Mapping[str, str] | None,
    appointment_booking_fields: FieldValues | None,
    customer_booking_fields: FieldValues | None,
) -> tuple[_Details, dict[str, Any]]:
    """Return the customer details and the field values a booking or reservation was sent."""
    details = _Details.of(
        email=email,
        name=name,
        phone=phone,
        phone_type=phone_type,
        phone_ext=phone_ext,
        customer_message=customer_message,
    )
    extra: dict[str, Any] = {}
    if custom_fields is not None:
        extra["custom_fields"] = custom_fields
    if appointment_booking_fields is not None:
        extra["appointment_booking_fields"] = _field_values(
            appointment_booking_fields, field="appointment_booking_fields"
        )
    if customer_booking_fields is not None:
        extra["customer_booking_fields"] = _field_values(
            customer_booking_fields, field="customer_booking_fields"
        )
    return details, extra
