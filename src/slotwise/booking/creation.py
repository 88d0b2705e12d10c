"""
Creating an appointment (a part of ``AppointmentOperations``): a hold, a booking or a
reservation in one unit of work, safe to retry with an idempotency key.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, datetime, timedelta
from typing import Final

import attrs

from slotwise.availability.busy import NoBusyTime
from slotwise.errors import (
    FieldRequired,
    FieldTooLong,
    IdempotencyConflict,
    InvalidChoice,
)
from slotwise.model import (
    Appointment,
    AppointmentStatus,
    Calendar,
    Company,
    Customer,
    LocationSettings,
    Operation,
    Resource,
    Service,
    Trigger,
)
from slotwise.model.appointments import trusted_appointment
from slotwise.operations._boundary import operations
from slotwise.operations._context import Context
from slotwise.operations.customers import (
    customer_email_lock,
    find_customer_by_email,
)
from slotwise.operations.locations import settings_in_force
from slotwise.operations.meetings import NoMeetingLinks
from slotwise.storage.batched import insert_new, prefetch
from slotwise.storage.protocol import Transaction

from ._base import (
    _BK,
    _CREATE_OPERATIONS,
    _IN,
    _KEY_MAX,
    _NO_DETAILS,
    CompleteBooking,
    FieldValues,
    _Details,
    _field_values,
    _fingerprint,
    _idempotency_lock,
    _kept,
    _named,
    _past,
    _require_resource_locks,
    _resource_lock,
    _span,
)
from ._new_record import new_appointment
from .checks import (
    BookingChecks,
    _check_customer_limits,
    _check_group_size,
    _linkable,
    _usable_at,
)
from .feeds import (
    _queue_reminders,
)
from .fields import check_field_values
from .transitions import transition

__all__ = ["AppointmentCreation"]

_CREATES: Final[dict[str | None, tuple[Operation, AppointmentStatus]]] = {
    value: (operation, _kept(transition(None, operation)))
    for value, operation in _CREATE_OPERATIONS.items()
}
"""What each ``complete_booking`` value does: its operation and the status it leads to (read
from the transition table, which is read-only, once)."""


@operations
class AppointmentCreation(BookingChecks):
    """Creating appointments: holds, bookings and reservations in one call."""

    def create(
        self,
        service_id: str,
        start: datetime,
        end: datetime,
        *,
        location_id: str | None = None,
        resource_id: str | None = None,
        resource_ids: Sequence[str] | str = (),
        customer_id: str | None = None,
        booked_by: str | None = None,
        group_size: int = 1,
        email: str | None = None,
        name: str | None = None,
        phone: str | None = None,
        complete_booking: CompleteBooking | None = None,
        idempotency_key: str | None = None,
        custom_fields: Mapping[str, str] | None = None,
        appointment_booking_fields: FieldValues = (),
        customer_booking_fields: FieldValues = (),
    ) -> Appointment:
        """
        Create an appointment (spec: POST /consumer/v1/appointments).

        Without *complete_booking* (or with ``"IN"``) the appointment is a hold: status IN,
        counting against its slot until ``hold_expires_at`` = now + the location's
        ``booking_timer_mins`` (decision 19, added in UTC). ``"BK"`` books at once (booking
        event, reminders); ``"RS"`` reserves (reminders, no event). Both need *customer_id*, or
        *name* and *email* (the e-mail may be left out when the company disabled
        notifications); a customer record is created on first booking, found by e-mail
        otherwise. A name of more than two words keeps every word after the first as the last
        name.

        The time must be a slot the availability engine offers for the service at the location
        on that date: exactly *start*..*end* (a duration other than the service's only for
        ``duration_select`` services), for the named resources together (``resource_id`` and
        ``resource_ids``; ``resource_ids`` may be a comma-separated string). Without a named
        resource the service's round robin picks one, as the listing of that date does; when
        the picked one has too little capacity for the group, the first free resource (sort
        key, then id) with enough capacity is taken.

        With *idempotency_key*, a repeated call with the same request returns the appointment
        the first call made (as it is now), and nothing is created twice.

        Args:
            service_id: the service booked.
            start: the slot's start (aware).
            end: the slot's end (aware).
            location_id: the location; defaults to a location-scoped service's own location,
                else to the primary location (spec: Create rule 4; decision 46).
            resource_id: the resource booked.
            resource_ids: further resources taken together (multi-resource booking).
            customer_id: an existing customer of the company.
            booked_by: who made the booking (free text).
            group_size: people in the booking.
            email: the customer's e-mail address.
            name: the customer's full name.
            phone: the customer's phone (7 to 15 characters).
            complete_booking: ``None``/``"IN"``, ``"BK"`` or ``"RS"``.
            idempotency_key: makes retries safe (up to 255 characters).
            custom_fields: values of ``field1``..``field10``.
            appointment_booking_fields: booking-field values of the appointment.
            customer_booking_fields: booking-field values of the customer.

        Returns:
            The new appointment (or, for a repeated idempotent call, the existing one).

        Raises:
            NaiveDatetime: when *start* or *end* has no UTC offset.
            InvalidTimeRange: when *end* is not after *start*.
            InvalidChoice: for another *complete_booking* value.
            NotFound: when the service, location, resource or customer does not exist.
            Unauthorized: when one of them is not the principal's.
            InvalidReference: when the service is not offered at the location, or a resource
                works elsewhere or does not take the service.
            PastAppointment: when *start* is before now.
            GroupSizeExceeded: ``BOOKING-408``, with the requested and allowed sizes.
            SlotUnavailable: when availability does not offer that time for those resources.
            CapacityExceeded: ``BOOKING-138``, when the slot's available capacity is below the
                group size.
            FieldRequired: when a BK/RS booking lacks a customer, name or e-mail, or leaves a
                required field definition of the location blank.
            InvalidFormat: for a malformed e-mail address.
            InvalidChoice: for a select field's value outside its choices.
            CustomerLimitReached: when the customer's limits are reached (decision 10).
            IdempotencyConflict: when the key was used for a different request.
        """
        ctx = self._ctx
        principal = ctx.principal  # read once for the whole call
        company_id = principal.company_id
        # What the boundary hands over (UTC instants, in order) needs no conversion.
        if not (
            start.__class__ is end.__class__ is datetime
            and start.tzinfo is end.tzinfo is UTC
            and start < end
        ):
            start, end = _span(start, end)
        if complete_booking not in _CREATES:
            raise InvalidChoice(
                field="complete_booking",
                allowed=(None, "IN", "BK", "RS"),
                requested=complete_booking,
            )
        operation, status = _CREATES[complete_booking]
        # The everyday call names one resource or none; _named splits and checks the rest.
        if resource_ids == () and (not resource_id or resource_id.__class__ is str):
            named: tuple[str, ...] = (resource_id,) if resource_id else ()
        else:
            named = _named(resource_id, resource_ids)
        details = _NO_DETAILS
        if email is not None or name is not None or phone is not None:
            details = _Details.of(email=email, name=name, phone=phone)
        # The boundary hands the field values over as tuples: an empty one has none to check.
        booking_fields = (
            _field_values(appointment_booking_fields, field="appointment_booking_fields")
            if appointment_booking_fields
            else ()
        )
        customer_fields = (
            _field_values(customer_booking_fields, field="customer_booking_fields")
            if customer_booking_fields
            else ()
        )
        # Only a call with a key pays for the request's digest (and its closure).
        fingerprint = (
            None
            if idempotency_key is None
            else _request_fingerprint(
                idempotency_key,
                lambda: {
                    "service_id": service_id,
                    "start": start.isoformat(),
                    "end": end.isoformat(),
                    "location_id": location_id,
                    "resource_ids": named,
                    "customer_id": customer_id,
                    "booked_by": booked_by,
                    "group_size": group_size,
                    "email": email,
                    "name": name,
                    "phone": phone,
                    "complete_booking": status.value,
                    "custom_fields": dict(custom_fields or {}),
                    "appointment_booking_fields": [[f.name, f.value] for f in booking_fields],
                    "customer_booking_fields": [[f.name, f.value] for f in customer_fields],
                },
            )
        )
        completing = status is not _IN
        locks = set(map(_resource_lock, named))
        if completing and customer_id is None and details.email:
            locks.add(customer_email_lock(company_id))
        if idempotency_key is not None:
            locks.add(_idempotency_lock(company_id, idempotency_key))
        # Named resources and no external busy time: _prepare has nothing to read.
        busy = (
            None
            if named and isinstance(ctx.busy_provider, NoBusyTime)
            else self._prepare(locks, location_id, service_id, named, start)
        )

        def unit(tx: Transaction, held: frozenset[str]) -> Appointment:
            now = ctx.clock.now()
            # A store that reads ahead (PostgreSQL; its cached view does exactly when it does) is
            # asked for what the unit reads: the customer rides with the first round trip.
            ahead = getattr(tx, "prefetch", None) is not None
            if ahead:
                prefetch(tx, [(Customer, customer_id)])
            # The configuration (location, service, resources, blocks, booking fields...) from the
            # cache when the company's version read here says it is current (decision 49).
            if ctx.configuration is not None:
                tx = ctx.configuration.unit(tx, company_id)
            if idempotency_key is not None:
                existing = _replayed(ctx, tx, idempotency_key, fingerprint)
                if existing is not None:
                    return existing
            service = ctx.owned(tx, Service, service_id, field="service_id")
            # Decision 46 as for availability: without a location, a location-scoped service
            # is booked at its own (so a slot is booked as the listing gave it).
            location = ctx.service_location(tx, service, location_id)
            if ahead:
                prefetch(
                    tx,
                    [
                        (Company, company_id),
                        (Calendar, location.primary_calendar_id),
                        (Customer, customer_id),
                        *((Resource, resource_id) for resource_id in named),
                    ],
                )
            _usable_at(service, location)
            resources = self._resources(tx, named, location, service)
            if start < now:
                raise _past(tx, operation, location.id, start, now)
            size = _check_group_size(service, group_size)
            customer = None
            if customer_id is not None:
                customer = ctx.owned(tx, Customer, customer_id, field="customer_id")
            if not completing:
                self._check_email(tx, details.email)
            elif customer is None or details.email is not None:  # else nothing to check
                self._check_details(tx, customer, details)
            settings = settings_in_force(tx, location)
            taken = self._check_slot(
                tx,
                location=location,
                settings=settings,
                service=service,
                resources=resources,
                start=start,
                end=end,
                group_size=size,
                now=now,
                exclude_id=None,
                busy=busy,
            )
            # The named resources' locks came with the unit; a round robin's pick may need more.
            if taken != named:
                _require_resource_locks(taken, held)
            # Decisions 19 and 34: a BK/RS booking without a customer finds or makes one by e-mail.
            linking = completing and customer is None and _linkable(details.email)
            if linking:
                assert details.email is not None
                customer = find_customer_by_email(tx, company_id=company_id, email=details.email)
            # Decision 10's limits, when one is set (_check_customer_limits' own first test).
            if customer is not None and (
                settings.customer_bookings_per_day
                or service.max_booking_limit
                or service.max_resource_booking_limit
            ):
                _check_customer_limits(
                    tx,
                    customer_id=customer.id,
                    service=service,
                    location=location,
                    settings=settings,
                    start=start,
                    resource_ids=taken,
                    now=now,
                    exclude_id=None,
                )
            # Every check passed and the record validates: only now does anything get written.
            appointment = new_appointment(
                details,
                customer,
                {
                    "id": ctx.ids.new_id(),
                    "company_id": company_id,
                    "location_id": location.id,
                    "calendar_id": location.primary_calendar_id,
                    "service_id": service.id,
                    "resource_ids": taken,
                    "customer_id": customer.id if customer is not None else None,
                    "status": status,
                    "start": start,
                    "end": end,
                    "group_size": size,
                    "created_at": now,
                    "hold_expires_at": None if completing else _hold_expiry(now, settings),
                    "last_modified_at": now,
                    "last_modified_by": principal.user,
                    "booked_by": booked_by,
                    "custom_fields": custom_fields,
                    "appointment_booking_fields": booking_fields,
                    "customer_booking_fields": customer_fields,
                    "idempotency_key": idempotency_key,
                    "idempotency_fingerprint": fingerprint,
                },
            )
            check_field_values(tx, appointment, completing=completing)
            if linking and customer is None:
                customer = self._add_customer(tx, details)
                # The appointment as built, valid and converted, with its new customer.
                appointment = trusted_appointment(
                    **{**attrs.asdict(appointment, recurse=False), "customer_id": customer.id}
                )
            insert_new(tx, appointment)
            self._audit(tx, appointment, operation, None, status, now)
            if status is _BK:
                self._event(
                    tx,
                    Trigger.BOOKING_CONFIRMATION,
                    appointment,
                    now,
                    customer=customer,
                    # The resources checked above, when they are the ones booked (else read).
                    resources=resources if taken == named else None,
                )
            if completing:
                _queue_reminders(ctx, tx, appointment, location, now)
            return appointment

        appointment = self._run(locks, unit)
        if isinstance(ctx.meeting_links, NoMeetingLinks):
            return appointment  # no link to ask for (_with_meeting_link's first test)
        return self._with_meeting_link(appointment)


def _replayed(
    ctx: Context, tx: Transaction, key: str, fingerprint: str | None
) -> Appointment | None:
    """Return the appointment an earlier call with *key* made, if it was the same request."""
    existing = tx.appointment_by_idempotency_key(ctx.company_id, key)
    if existing is None:
        return None
    ctx.owned(tx, Appointment, existing.id, field="idempotency_key")
    if existing.idempotency_fingerprint != fingerprint:
        raise IdempotencyConflict(key=key, appointment_id=existing.id)
    return existing


def _request_fingerprint(
    key: str | None, request: Callable[[], Mapping[str, object]]
) -> str | None:
    """
    Check an idempotency key; return the digest that tells a retry from another request.

    *request* makes the request's mapping: only a call with a key pays for it.
    """
    if key is None:
        return None
    if not key.strip():
        raise FieldRequired(field="idempotency_key")
    if len(key) > _KEY_MAX:
        raise FieldTooLong(field="idempotency_key", limit=_KEY_MAX, requested=len(key))
    return _fingerprint(request())


def _hold_expiry(now: datetime, settings: LocationSettings) -> datetime:
    """Decision 19: a hold counts for the location's booking timer, added in UTC."""
    return now + timedelta(minutes=settings.booking_timer_mins)
