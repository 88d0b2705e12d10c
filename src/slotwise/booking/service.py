"""
Appointment operations: the state machine that never overbooks (decisions 19-28).

Every mutating call is one unit of work holding the lock ``"resource:<id>"`` of each resource
it touches (storage protocol: Isolation), and inside it:

1. the tenant checks (decision 30) and :func:`~slotwise.booking.transitions.transition`, so an
   operation outside the table raises ``InvalidTransition`` before anything else;
2. the rules of the operation (service at the location, resources at the location taking the
   service, past dates, group size, customer details and limits);
3. for a new time, the slot check by **the availability engine itself**: the same
   ``read_snapshot`` and calculator the listing uses (``bookable_at``: the listing's slots of
   the appointment's location date that start then, without building the response), for its
   resources, must offer exactly that start, end and resources with enough capacity;
4. the writes: the appointment, an audit entry per changed record, outbox events and queued
   reminders.

A refused operation raises before its first write, or its unit of work rolls back, so the store
is left as it was.
"""

from __future__ import annotations

import builtins
import hashlib
import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import datetime, timedelta
from typing import Any, Literal, TypeVar

import attrs

from slotwise._time import hhmm_to_minutes, to_utc, wall_to_instant, zone
from slotwise.availability.busy import BusyIntervals, NoBusyTime, fetch_busy_time
from slotwise.availability.calculator import bookable_at
from slotwise.availability.query import AvailabilityQuery
from slotwise.availability.snapshot import (
    appointment_range,
    candidate_resources,
    read_snapshot,
)
from slotwise.errors import (
    AppointmentNotStarted,
    CapacityExceeded,
    ConflictError,
    CustomerLimitReached,
    FieldRequired,
    FieldTooLong,
    GroupSizeExceeded,
    HoldExpired,
    IdempotencyConflict,
    InvalidChoice,
    InvalidFormat,
    InvalidReference,
    InvalidTimeRange,
    NotFound,
    OutOfRange,
    PastAppointment,
    SlotUnavailable,
    Unauthorized,
)
from slotwise.model import (
    Appointment,
    AppointmentStatus,
    AuditEntry,
    Company,
    Customer,
    FieldValue,
    Location,
    LocationSettings,
    Operation,
    OutboxEvent,
    QueuedReminder,
    Resource,
    RoundRobin,
    Service,
    ServiceScope,
    Trigger,
    to_json_data,
)
from slotwise.model._checks import is_email, to_enum
from slotwise.operations._boundary import operations
from slotwise.operations._context import Context
from slotwise.operations.customers import (
    CustomerFields,
    add_customer,
    customer_email_lock,
    find_customer_by_email,
    split_name,
)
from slotwise.operations.locations import settings_in_force
from slotwise.paging import DEFAULT_LIMIT, Page, paginate
from slotwise.storage.outbox import append_event, appointment_payload
from slotwise.storage.protocol import Reader, Transaction

from .fields import check_field_values
from .transitions import Outcome, transition

__all__ = [
    "AppointmentOperations",
    "CompleteBooking",
    "OutboxOperations",
    "ReminderOperations",
]

T = TypeVar("T")

CompleteBooking = Literal["IN", "BK", "RS"]
"""How far ``create`` takes a new appointment: a hold (``IN``), booked or reserved."""

_CREATE_OPERATIONS: dict[str | None, Operation] = {
    None: Operation.CREATE_HOLD,
    "IN": Operation.CREATE_HOLD,
    "BK": Operation.CREATE_BOOKED,
    "RS": Operation.CREATE_RESERVED,
}

_BK = AppointmentStatus.BOOKED
_RS = AppointmentStatus.RESERVED
_IN = AppointmentStatus.INITIAL

_RELOCK_ATTEMPTS = 5
_SWEEP_BATCH = 200
_MAX_FEED = 1000
_KEY_MAX = 255

FieldValues = Iterable[FieldValue | Mapping[str, str]]
"""Booking-field values: ``FieldValue`` records or ``{"name": ..., "value": ...}`` mappings."""


class _Relock(Exception):
    """The unit of work needs locks it does not hold; it rolls back and runs again with them."""

    def __init__(self, locks: Iterable[str]) -> None:
        super().__init__("more locks needed")
        self.locks = frozenset(locks)


def _resource_lock(resource_id: str) -> str:
    return f"resource:{resource_id}"


def _require_resource_locks(resource_ids: Iterable[str], held: frozenset[str]) -> None:
    """Raise ``_Relock`` unless the unit of work holds the lock of every one of *resource_ids*."""
    needed = {_resource_lock(rid) for rid in resource_ids}
    if not needed <= held:
        raise _Relock(needed)


def _idempotency_lock(company_id: str, key: str) -> str:
    return f"idempotency:{company_id}:{key}"


def _instant(value: object, *, field: str) -> datetime:
    if not isinstance(value, datetime):
        raise InvalidFormat(field=field, expected="an aware datetime", value=value)
    return to_utc(value, field=field)


def _named(resource_id: str | None, resource_ids: Sequence[str] | str | None) -> tuple[str, ...]:
    """Return the resources a call names: ``resource_id`` first, then ``resource_ids``, once each."""
    if isinstance(resource_ids, str):
        # The spec sends resourceIds as one comma-separated string.
        resource_ids = [part.strip() for part in resource_ids.split(",") if part.strip()]
    named = [resource_id] if resource_id else []
    named += list(resource_ids or ())
    for rid in named:
        if not isinstance(rid, str) or not rid:
            raise InvalidFormat(field="resource_ids", expected="resource ids", value=rid)
    return tuple(dict.fromkeys(named))


def _field_values(values: FieldValues, *, field: str) -> tuple[FieldValue, ...]:
    found: list[FieldValue] = []
    for value in values:
        if isinstance(value, FieldValue):
            found.append(value)
        elif isinstance(value, Mapping) and set(value) <= {"name", "value"}:
            found.append(FieldValue(name=value.get("name", ""), value=value.get("value", "")))
        else:
            raise InvalidFormat(field=field, expected="name/value pairs", value=value)
    return tuple(found)


def _check_group_size(service: Service, group_size: object) -> int:
    """Decision 26: above max_group_size (or above 1 without group booking) is BOOKING-408."""
    if not isinstance(group_size, int) or isinstance(group_size, bool):
        raise InvalidFormat(field="group_size", expected="an integer", value=group_size)
    if group_size < 1:
        raise OutOfRange(field="group_size", allowed="at least 1", requested=group_size)
    allowed = service.max_group_size if service.allows_groups else 1
    if group_size > allowed:
        raise GroupSizeExceeded(requested=group_size, allowed=allowed)
    return group_size


def _usable_at(service: Service, location: Location) -> None:
    # Spec: Create rule 1; company-scoped services serve every location of the company.
    if service.location_id != location.id and service.scope is not ServiceScope.COMPANY:
        raise InvalidReference(
            f"service {service.id!r} is not offered at location {location.id!r}",
            field="service_id",
        )


@attrs.frozen(kw_only=True)
class _Details:
    """Customer details sent with a create, book or reserve call (``None``: not sent)."""

    email: str | None = None
    first_name: str | None = None
    last_name: str | None = None
    phone: str | None = None
    phone_type: str | None = None
    phone_ext: str | None = None
    customer_message: str | None = None

    @classmethod
    def of(cls, *, email: str | None, name: str | None, **others: str | None) -> _Details:
        first = last = None
        if name is not None:
            first, last = split_name(name)
        if email is not None:
            if not isinstance(email, str):
                raise InvalidFormat(field="email", expected="an e-mail address", value=email)
            email = email.strip()
        return cls(email=email, first_name=first, last_name=last, **others)


def _kept(outcome: Outcome) -> AppointmentStatus:
    """Return the status an operation that keeps its record leads to (narrows the outcome)."""
    if not isinstance(outcome, AppointmentStatus):
        raise TypeError(f"the transition table deletes the record here: {outcome!r}")
    return outcome


def _fingerprint(request: Mapping[str, object]) -> str:
    """Return a digest of a create request, to tell a retry from a different request."""
    text = json.dumps(request, sort_keys=True, default=str, ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()[:32]


@operations
@attrs.frozen
class AppointmentOperations:
    """
    Appointments of the principal's locations (spec: Consumer interface: appointments).

    Datetimes must be aware (naive ones raise ``NaiveDatetime``); appointments store UTC.
    ``docs/appointments.md`` has the lifecycle and the transition table.

    .. versionadded:: 0.1
    """

    _ctx: Context

    # -- create -------------------------------------------------------------------------------

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
        resource the service's round robin picks one, as in the listing; when the picked one has
        too little capacity for the group, the first free resource (sort key, then id) with
        enough capacity is taken.

        With *idempotency_key*, a repeated call with the same request returns the appointment
        the first call made (as it is now), and nothing is created twice.

        Args:
            service_id: the service booked.
            start: the slot's start (aware).
            end: the slot's end (aware).
            location_id: the location; defaults to the primary location (spec: Create rule 4).
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
        start = _instant(start, field="start")
        end = _instant(end, field="end")
        if end <= start:
            raise InvalidTimeRange(field="end", start=start, end=end)
        if complete_booking not in _CREATE_OPERATIONS:
            raise InvalidChoice(
                field="complete_booking",
                allowed=(None, "IN", "BK", "RS"),
                requested=complete_booking,
            )
        operation = _CREATE_OPERATIONS[complete_booking]
        status = _kept(transition(None, operation))
        named = _named(resource_id, resource_ids)
        details = _Details.of(email=email, name=name, phone=phone)
        booking_fields = _field_values(
            appointment_booking_fields, field="appointment_booking_fields"
        )
        customer_fields = _field_values(customer_booking_fields, field="customer_booking_fields")
        fingerprint = None
        if idempotency_key is not None:
            if not isinstance(idempotency_key, str) or not idempotency_key.strip():
                raise FieldRequired(field="idempotency_key")
            if len(idempotency_key) > _KEY_MAX:
                raise FieldTooLong(
                    field="idempotency_key", limit=_KEY_MAX, requested=len(idempotency_key)
                )
            fingerprint = _fingerprint(
                {
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
                }
            )
        completing = status is not _IN
        locks = {_resource_lock(rid) for rid in named}
        if completing and customer_id is None and details.email:
            locks.add(customer_email_lock(ctx.company_id))
        if idempotency_key is not None:
            locks.add(_idempotency_lock(ctx.company_id, idempotency_key))
        busy = self._prepare(locks, location_id, service_id, named, start)

        def unit(tx: Transaction, held: frozenset[str]) -> Appointment:
            now = ctx.clock.now()
            if idempotency_key is not None:
                existing = tx.appointment_by_idempotency_key(ctx.company_id, idempotency_key)
                if existing is not None:
                    ctx.owned(tx, Appointment, existing.id, field="idempotency_key")
                    if existing.idempotency_fingerprint != fingerprint:
                        raise IdempotencyConflict(key=idempotency_key, appointment_id=existing.id)
                    return existing
            location = ctx.location(tx, location_id)
            service = ctx.owned(tx, Service, service_id, field="service_id")
            _usable_at(service, location)
            resources = self._resources(tx, named, location, service)
            if start < now:
                raise PastAppointment(operation=operation, start=start, now=now)
            size = _check_group_size(service, group_size)
            customer = None
            if customer_id is not None:
                customer = ctx.owned(tx, Customer, customer_id, field="customer_id")
            if completing:
                self._check_details(tx, customer, details)
            else:
                self._check_email(tx, details.email)
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
            _require_resource_locks(taken, held)
            if completing and customer is None and _linkable(details.email):
                assert details.email is not None
                customer = find_customer_by_email(
                    tx, company_id=ctx.company_id, email=details.email
                )
            if customer is not None:
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
            appointment = Appointment(
                id=ctx.ids.new_id(),
                company_id=ctx.company_id,
                location_id=location.id,
                calendar_id=location.primary_calendar_id,
                service_id=service.id,
                resource_ids=taken,
                customer_id=customer.id if customer is not None else None,
                status=status,
                start=start,
                end=end,
                group_size=size,
                created_at=now,
                hold_expires_at=(
                    now + timedelta(minutes=settings.booking_timer_mins) if not completing else None
                ),
                last_modified_at=now,
                last_modified_by=ctx.principal.user,
                booked_by=booked_by,
                custom_fields=custom_fields,
                appointment_booking_fields=booking_fields,
                customer_booking_fields=customer_fields,
                idempotency_key=idempotency_key,
                idempotency_fingerprint=fingerprint,
                **_customer_fields(customer, details),
            )
            check_field_values(tx, appointment, completing=completing)
            if completing and customer is None and _linkable(details.email):
                customer = self._add_customer(tx, details)
                appointment = attrs.evolve(appointment, customer_id=customer.id)
            tx.insert(appointment)
            self._audit(tx, appointment, operation, None, status, now)
            if status is _BK:
                self._event(tx, Trigger.BOOKING_CONFIRMATION, appointment, now, customer=customer)
            if completing:
                _queue_reminders(ctx, tx, appointment, location, now)
            return appointment

        return self._run(locks, unit)

    # -- hold completion ----------------------------------------------------------------------

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
        return self._complete(appointment_id, Operation.BOOK, details, extra)

    def reserve(
        self,
        appointment_id: str,
        /,
        *,
        email: str | None = None,
        name: str | None = None,
        phone: str | None = None,
    ) -> Appointment:
        """
        Reserve a hold: IN → RS (decision 21); a reservation has no expiry.

        Spec: PUT /consumer/v1/appointments/{id}/reserve. Needs a customer like :meth:`book`
        (details may be sent here); queues reminders, fires no event. An expired hold is
        re-validated as in :meth:`book`.

        Raises:
            the errors of :meth:`book`.
        """
        details = _Details.of(email=email, name=name, phone=phone)
        return self._complete(appointment_id, Operation.RESERVE, details, {})

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
                raise PastAppointment(operation=operation, start=appointment.start, now=now)
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
                except (SlotUnavailable, CapacityExceeded):
                    raise HoldExpired(appointment_id=appointment.id, expired_at=expires) from None
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

    # -- confirm, cancel, no-show, delete -------------------------------------------------------

    def confirm(self, appointment_id: str, /) -> Appointment:
        """
        Confirm an appointment (decision 21): RS → BK with a booking event; BK stays BK.

        Spec: PUT /consumer/v1/appointments/{id}/confirm. Sets ``confirmed``. Confirming a
        confirmed BK appointment changes nothing and records nothing (PUT is idempotent).
        Reminders queued when it was reserved stay queued.

        Raises:
            NotFound, Unauthorized: for an unknown or foreign appointment.
            InvalidTransition: when the appointment is neither RS nor BK.
        """
        ctx = self._ctx

        def change(tx: Transaction, appointment: Appointment, now: datetime) -> Appointment:
            status = _kept(transition(appointment.status, Operation.CONFIRM))
            if appointment.status is status and appointment.confirmed:
                return appointment
            updated = attrs.evolve(
                appointment,
                status=status,
                confirmed=True,
                last_modified_at=now,
                last_modified_by=ctx.principal.user,
            )
            tx.update(updated)
            self._audit(tx, updated, Operation.CONFIRM, appointment.status, status, now)
            if appointment.status is _RS:
                self._event(tx, Trigger.BOOKING_CONFIRMATION, updated, now)
            return updated

        return self._change(appointment_id, change)

    def undo_confirm(self, appointment_id: str, /) -> Appointment:
        """
        Clear ``confirmed`` of a booked appointment (decision 21); it stays BK.

        Undoing an unconfirmed appointment changes nothing and records nothing.

        Raises:
            NotFound, Unauthorized: for an unknown or foreign appointment.
            InvalidTransition: when the appointment is not BK.
        """
        ctx = self._ctx

        def change(tx: Transaction, appointment: Appointment, now: datetime) -> Appointment:
            status = _kept(transition(appointment.status, Operation.UNDO_CONFIRM))
            if not appointment.confirmed:
                return appointment
            updated = attrs.evolve(
                appointment,
                status=status,
                confirmed=False,
                last_modified_at=now,
                last_modified_by=ctx.principal.user,
            )
            tx.update(updated)
            self._audit(tx, updated, Operation.UNDO_CONFIRM, appointment.status, status, now)
            return updated

        return self._change(appointment_id, change)

    def cancel(self, appointment_id: str, /) -> Appointment:
        """
        Cancel a booked or reserved appointment: BK/RS → CN (decision 22).

        Spec: PUT /consumer/v1/appointments/{id}/cancel. Frees its capacity, removes its
        unsent reminders and fires the cancellation event.

        Raises:
            NotFound, Unauthorized: for an unknown or foreign appointment.
            InvalidTransition: when the appointment is not BK or RS.
            PastAppointment: when it starts before now.
        """
        ctx = self._ctx

        def change(tx: Transaction, appointment: Appointment, now: datetime) -> Appointment:
            status = _kept(transition(appointment.status, Operation.CANCEL))
            if appointment.start < now:
                raise PastAppointment(operation=Operation.CANCEL, start=appointment.start, now=now)
            updated = attrs.evolve(
                appointment,
                status=status,
                last_modified_at=now,
                last_modified_by=ctx.principal.user,
            )
            tx.update(updated)
            _drop_unsent_reminders(tx, appointment.id)
            self._audit(tx, updated, Operation.CANCEL, appointment.status, status, now)
            self._event(tx, Trigger.CANCEL_RESERVATION_CONFIRMATION, updated, now)
            return updated

        return self._change(appointment_id, change)

    def no_show(self, appointment_id: str, /) -> Appointment:
        """
        Record that the customer did not come: BK → NS, once the start has passed (decision 24).

        Spec: PUT /consumer/v1/appointments/{id}/noshow. The appointment keeps its capacity.

        Raises:
            NotFound, Unauthorized: for an unknown or foreign appointment.
            InvalidTransition: when the appointment is not BK.
            AppointmentNotStarted: when its start is still ahead.
        """
        ctx = self._ctx

        def change(tx: Transaction, appointment: Appointment, now: datetime) -> Appointment:
            status = _kept(transition(appointment.status, Operation.NO_SHOW))
            if now < appointment.start:
                raise AppointmentNotStarted(appointment_id=appointment.id, start=appointment.start)
            updated = attrs.evolve(
                appointment,
                status=status,
                last_modified_at=now,
                last_modified_by=ctx.principal.user,
            )
            tx.update(updated)
            self._audit(tx, updated, Operation.NO_SHOW, appointment.status, status, now)
            return updated

        return self._change(appointment_id, change)

    def delete(self, appointment_id: str, /) -> Appointment:
        """
        Delete a hold for good (spec: DELETE /consumer/v1/appointments/{id}; only IN).

        Its audit history stays (see :meth:`history`).

        Returns:
            The appointment as it was.

        Raises:
            NotFound, Unauthorized: for an unknown or foreign appointment.
            InvalidTransition: when the appointment is not IN.
        """

        def change(tx: Transaction, appointment: Appointment, now: datetime) -> Appointment:
            transition(appointment.status, Operation.DELETE)
            tx.delete(Appointment, appointment.id)
            self._audit(tx, appointment, Operation.DELETE, appointment.status, None, now)
            return appointment

        return self._change(appointment_id, change)

    # -- reschedule ---------------------------------------------------------------------------

    def reschedule(
        self,
        appointment_id: str,
        /,
        *,
        start: datetime,
        end: datetime,
        resource_id: str | None = None,
        resource_ids: Sequence[str] | str | None = None,
        service_id: str | None = None,
    ) -> Appointment:
        """
        Move a booked appointment (decision 23); returns the new appointment.

        Spec: PUT /consumer/v1/appointments/{id}/reschedule. Only BK, not in the past, at the
        same location; time, resources and service may change (resources default to the old
        ones). The new time is checked like :meth:`create`'s, not counting the old record. The
        old record becomes RE; the new one is BK with ``rescheduled_id`` = the old id and the
        old customer details, fields and ``confirmed``. Unsent reminders move to the new time
        (reminders due before now are not queued); fires the reschedule event.

        Raises:
            NotFound, Unauthorized: for an unknown or foreign appointment, service or resource.
            InvalidTransition: when the appointment is not BK.
            PastAppointment: when the old or the new start is before now.
            the validation errors of :meth:`create` for the new time, resources and service.
        """
        ctx = self._ctx
        start = _instant(start, field="start")
        end = _instant(end, field="end")
        if end <= start:
            raise InvalidTimeRange(field="end", start=start, end=end)
        current = self._peek(appointment_id)
        if resource_id is None and resource_ids is None:
            named = current.resource_ids
        else:
            named = _named(resource_id, resource_ids)
        locks = {_resource_lock(rid) for rid in (*current.resource_ids, *named)}
        busy = self._prepare(
            locks, current.location_id, service_id or current.service_id, named, start
        )

        def unit(tx: Transaction, held: frozenset[str]) -> Appointment:
            now = ctx.clock.now()
            old = self._own(tx, appointment_id, held)
            old_status = _kept(transition(old.status, Operation.RESCHEDULE))
            new_status = _kept(transition(None, Operation.RESCHEDULE))
            if old.start < now:
                raise PastAppointment(operation=Operation.RESCHEDULE, start=old.start, now=now)
            if start < now:
                raise PastAppointment(operation=Operation.RESCHEDULE, start=start, now=now)
            location = self._location_of(tx, old)
            service = ctx.owned(tx, Service, service_id or old.service_id, field="service_id")
            _usable_at(service, location)
            resources = self._resources(tx, named, location, service)
            size = _check_group_size(service, old.group_size)
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
                exclude_id=old.id,
                busy=busy,
            )
            _require_resource_locks(taken, held)
            if old.customer_id is not None:
                _check_customer_limits(
                    tx,
                    customer_id=old.customer_id,
                    service=service,
                    location=location,
                    settings=settings,
                    start=start,
                    resource_ids=taken,
                    now=now,
                    exclude_id=old.id,
                )
            moved = attrs.evolve(
                old, status=old_status, last_modified_at=now, last_modified_by=ctx.principal.user
            )
            new = attrs.evolve(
                old,
                id=ctx.ids.new_id(),
                service_id=service.id,
                resource_ids=taken,
                status=new_status,
                start=start,
                end=end,
                created_at=now,
                hold_expires_at=None,
                last_modified_at=now,
                last_modified_by=ctx.principal.user,
                rescheduled_id=old.id,
                idempotency_key=None,
                idempotency_fingerprint=None,
            )
            tx.update(moved)
            tx.insert(new)
            _drop_unsent_reminders(tx, old.id)
            self._audit(tx, moved, Operation.RESCHEDULE, old.status, old_status, now)
            self._audit(tx, new, Operation.RESCHEDULE, None, new_status, now)
            customer = tx.get(Customer, new.customer_id) if new.customer_id else None
            self._event(
                tx,
                Trigger.RESCHEDULE_CONFIRMATION,
                new,
                now,
                customer=customer,
                previous=moved,
            )
            _queue_reminders(ctx, tx, new, location, now)
            return new

        return self._run(locks, unit)

    # -- holds ----------------------------------------------------------------------------------

    def sweep_expired_holds(self) -> int:
        """
        Delete every expired hold of the principal's locations; return how many were deleted.

        Idempotent: a second sweep finds nothing to delete. Expired holds never count against
        capacity anyway (decision 8), so sweeping is housekeeping, not a condition of
        correctness. Each deletion is recorded with the operation ``EXPIRE``.
        """
        ctx = self._ctx
        deleted = 0
        while True:
            with ctx.store.read() as reader:
                # The store keeps only the principal's locations (decision 37), so every
                # hold of the batch is usable and the batch size bounds the work.
                batch = reader.expired_holds(
                    company_id=ctx.company_id,
                    location_ids=ctx.location_ids,
                    now=ctx.clock.now(),
                    limit=_SWEEP_BATCH,
                )
            if not batch:
                return deleted
            locks = {_resource_lock(rid) for hold in batch for rid in hold.resource_ids}
            with ctx.store.transaction(locks=sorted(locks)) as tx:
                now = ctx.clock.now()
                for hold in batch:
                    current = tx.get(Appointment, hold.id)
                    if (
                        current is None
                        or current.status is not _IN
                        or current.hold_expires_at is None
                        or now < current.hold_expires_at
                    ):
                        continue
                    transition(current.status, Operation.EXPIRE)
                    tx.delete(Appointment, current.id)
                    self._audit(tx, current, Operation.EXPIRE, current.status, None, now)
                    deleted += 1
            if len(batch) < _SWEEP_BATCH:
                return deleted

    # -- reads ----------------------------------------------------------------------------------

    def get(self, appointment_id: str, /) -> Appointment:
        """
        Return an appointment (spec: GET /consumer/v1/appointments/{id}).

        Raises:
            NotFound: when there is no such appointment.
            Unauthorized: when it is not the principal's.
        """
        with self._ctx.store.read() as reader:
            return self._ctx.owned(reader, Appointment, appointment_id, field="appointment_id")

    def list(
        self,
        *,
        location_id: str | None = None,
        email: str | None = None,
        service_id: str | None = None,
        resource_id: str | None = None,
        customer_id: str | None = None,
        status: AppointmentStatus | str | None = None,
        offset: int = 0,
        limit: int = DEFAULT_LIMIT,
    ) -> Page[Appointment]:
        """
        List a location's appointments in creation order (spec: GET /consumer/v1/appointments).

        Args:
            location_id: the location; defaults to the primary location (spec: Endpoints).
            email: keeps appointments with this e-mail address, ignoring case.
            service_id: keeps appointments of this service.
            resource_id: keeps appointments taking this resource.
            customer_id: keeps this customer's appointments.
            status: keeps appointments in this status (a status or its code).
            offset: records to skip (at least 0).
            limit: page size, 1..100.

        Raises:
            NotFound, Unauthorized: for an unknown or foreign location, service, resource or
                customer: a filter naming another company's (or, for a principal limited to
                some locations, another location's) record is refused, not answered with an
                empty page.
            InvalidChoice: for an unknown status code.
            OutOfRange: for an invalid *offset* or *limit*.
        """
        ctx = self._ctx
        wanted = None if status is None else to_enum(AppointmentStatus, status, field="status")
        with ctx.store.read() as reader:
            location = ctx.location(reader, location_id)
            if service_id is not None:
                ctx.owned(reader, Service, service_id, field="service_id")
            if resource_id is not None:
                ctx.owned(reader, Resource, resource_id, field="resource_id")
            if customer_id is not None:
                ctx.owned(reader, Customer, customer_id, field="customer_id")
            found = reader.find(Appointment, company_id=ctx.company_id, location_id=location.id)
        if email is not None:
            address = email.strip().casefold()
            found = [a for a in found if a.email is not None and a.email.casefold() == address]
        if service_id is not None:
            found = [a for a in found if a.service_id == service_id]
        if resource_id is not None:
            found = [a for a in found if resource_id in a.resource_ids]
        if customer_id is not None:
            found = [a for a in found if a.customer_id == customer_id]
        if wanted is not None:
            found = [a for a in found if a.status is wanted]
        return paginate(found, url="/consumer/v1/appointments", offset=offset, limit=limit)

    def history(self, appointment_id: str, /) -> builtins.list[AuditEntry]:
        """
        Return an appointment's audit entries in order, also after a hold was deleted.

        Raises:
            NotFound: when no appointment (or history) has that id.
            Unauthorized: when it is not the principal's.
        """
        ctx = self._ctx
        with ctx.store.read() as reader:
            entries = reader.audit_of(appointment_id)
            if reader.get(Appointment, appointment_id) is not None:
                ctx.owned(reader, Appointment, appointment_id, field="appointment_id")
                return entries
        if not entries:
            raise NotFound(kind="Appointment", record_id=appointment_id)
        first = entries[0]
        if first.company_id != ctx.company_id or not ctx.principal.may_use_location(
            first.location_id
        ):
            raise Unauthorized(field="appointment_id", value=appointment_id)
        return entries

    # -- helpers ---------------------------------------------------------------------------------

    def _run(self, locks: Iterable[str], unit: Callable[[Transaction, frozenset[str]], T]) -> T:
        """Run *unit* in one unit of work holding *locks*, growing them when it asks."""
        held = frozenset(locks)
        for _ in range(_RELOCK_ATTEMPTS):
            try:
                with self._ctx.store.transaction(locks=sorted(held)) as tx:
                    return unit(tx, held)
            except _Relock as more:
                held |= more.locks
        raise ConflictError("the resources of this booking kept changing; try again")

    def _change(
        self,
        appointment_id: str,
        change: Callable[[Transaction, Appointment, datetime], Appointment],
    ) -> Appointment:
        """Run *change* on one appointment in a unit of work holding its resources' locks."""
        current = self._peek(appointment_id)
        locks = {_resource_lock(rid) for rid in current.resource_ids}

        def unit(tx: Transaction, held: frozenset[str]) -> Appointment:
            appointment = self._own(tx, appointment_id, held)
            return change(tx, appointment, self._ctx.clock.now())

        return self._run(locks, unit)

    def _peek(self, appointment_id: str) -> Appointment:
        """Read an appointment to learn the locks its unit of work needs (checked again inside)."""
        with self._ctx.store.read() as reader:
            return self._ctx.owned(reader, Appointment, appointment_id, field="appointment_id")

    def _own(self, tx: Transaction, appointment_id: str, held: frozenset[str]) -> Appointment:
        appointment = self._ctx.owned(tx, Appointment, appointment_id, field="appointment_id")
        _require_resource_locks(appointment.resource_ids, held)
        return appointment

    def _prepare(
        self,
        locks: set[str],
        location_id: str | None,
        service_id: str,
        named: Sequence[str],
        start: datetime,
    ) -> dict[str, BusyIntervals] | None:
        """
        Read what must be known before the unit of work: candidate locks and external busy time.

        Without a named resource, every candidate's lock is added to *locks* (the round robin
        picks inside the unit of work). External busy time is fetched here, outside every lock,
        as the availability operations do; most hosts have no provider and skip this read.
        """
        ctx = self._ctx
        external = not isinstance(ctx.busy_provider, NoBusyTime)
        if named and not external:
            return None
        with ctx.store.read() as reader:
            location = ctx.location(reader, location_id)
            service = ctx.owned(reader, Service, service_id, field="service_id")
            day = start.astimezone(zone(location.timezone)).date()
            if named:
                # Only the principal's own resources; the unit of work refuses the others.
                found = [reader.get(Resource, rid) for rid in named]
                resources = [r for r in found if r is not None and r.company_id == ctx.company_id]
            else:
                query = AvailabilityQuery(service_id=service.id, start_date=day, end_date=day)
                resources = candidate_resources(reader, query, location=location, service=service)
        locks.update(_resource_lock(resource.id) for resource in resources)
        if not external:
            return None
        low, high = appointment_range(location, day, day)
        return dict(fetch_busy_time(ctx.busy_provider, resources, low, high))

    def _resources(
        self, tx: Transaction, named: Sequence[str], location: Location, service: Service
    ) -> builtins.list[Resource]:
        """Check each named resource: the principal's, at the location, taking the service."""
        resources = []
        for rid in named:
            field = "resource_id" if rid == named[0] else "resource_ids"
            resource = self._ctx.owned(tx, Resource, rid, field=field)
            if resource.location_id != location.id:
                raise InvalidReference(
                    f"resource {rid!r} does not work at location {location.id!r}", field=field
                )
            if not resource.takes_service(service.id):
                raise InvalidReference(
                    f"resource {rid!r} does not take service {service.id!r}", field=field
                )
            resources.append(resource)
        return resources

    @staticmethod
    def _resource(reader: Reader, resource_id: str) -> Resource:
        resource = reader.get(Resource, resource_id)
        if resource is None:
            raise NotFound(kind="Resource", record_id=resource_id)
        return resource

    @staticmethod
    def _location_of(reader: Reader, appointment: Appointment) -> Location:
        location = reader.get(Location, appointment.location_id)
        if location is None:
            raise NotFound(kind="Location", record_id=appointment.location_id)
        return location

    def _place(self, reader: Reader, appointment: Appointment) -> tuple[Location, Service]:
        location = self._location_of(reader, appointment)
        service = reader.get(Service, appointment.service_id)
        if service is None:
            raise NotFound(kind="Service", record_id=appointment.service_id)
        return location, service

    def _check_slot(
        self,
        tx: Transaction,
        *,
        location: Location,
        settings: LocationSettings,
        service: Service,
        resources: Sequence[Resource],
        start: datetime,
        end: datetime,
        group_size: int,
        now: datetime,
        exclude_id: str | None,
        busy: Mapping[str, BusyIntervals] | None,
    ) -> tuple[str, ...]:
        """
        Ask the availability engine whether *start*..*end* is bookable; return the resources.

        The query is the listing's query for the appointment's location date, narrowed to the
        wall times of the slot (``start_time``/``end_time``: a narrower search window never
        moves the slot grid, which is anchored at the day's business ∩ service window, so the
        slot at *start* is judged exactly as in a whole-day listing, only faster).
        """
        ids = tuple(resource.id for resource in resources)
        tz = zone(location.timezone)
        local_start = start.astimezone(tz)
        local_end = end.astimezone(tz)
        length = end - start
        if local_start.second or local_start.microsecond or length % timedelta(minutes=1):
            # The engine offers whole-minute slots only.
            raise SlotUnavailable(start=start, end=end, resource_ids=ids)
        day = local_start.date()
        minutes = length // timedelta(minutes=1)
        start_time = local_start.hour * 100 + local_start.minute
        end_time: int | None = 2400
        if local_end.date() == day:
            end_time = local_end.hour * 100 + local_end.minute
        if end_time is not None and (
            end_time <= start_time
            or wall_to_instant(day, hhmm_to_minutes(end_time), tz, edge="end") != end
        ):
            # The end's wall time names another instant (a slot ending on the second pass of
            # a DST fold, 01:30 after 02:00 fell back to 01:30): search to the end of the day.
            end_time = None
        query = AvailabilityQuery(
            service_id=service.id,
            start_date=day,
            end_date=day,
            location_id=location.id,
            resource_id=ids[0] if len(ids) == 1 else None,
            resource_ids=ids if len(ids) > 1 else (),
            start_time=start_time,
            end_time=end_time,
            duration=None if minutes == service.duration else minutes,
            round_robin=RoundRobin.NONE if ids else None,
        )
        judged = None
        if ids and not (service.daily_booking_limit_count or service.daily_booking_limit_minutes):
            # Named resources and no daily limit: only appointments whose occupied time can
            # reach this slot's (start to end plus padding) matter, not the whole day's.
            judged = (start, end + timedelta(minutes=service.padding))
        snapshot = read_snapshot(
            tx,
            query,
            location=location,
            settings=settings,
            service=service,
            named_resources=resources,
            exclude_appointment_id=exclude_id,
            judged_between=judged,
        )
        if busy:
            snapshot = attrs.evolve(snapshot, busy=busy)
        # The listing's own slots of that date starting at *start*: the query's duration is the
        # slot's length, so each of them also ends at *end*.
        matching = bookable_at(snapshot, query, now, start)
        if ids:
            matching = [slot for slot in matching if slot[0] == ids]
        elif matching and matching[0][1] < group_size:
            # The round robin's pick cannot seat the group: take the first free resource that can.
            everyone = attrs.evolve(query, round_robin=RoundRobin.NONE)
            matching = bookable_at(snapshot, everyone, now, start)
        if not matching:
            raise SlotUnavailable(start=start, end=end, resource_ids=ids)
        for resource_ids, available_capacity in matching:
            if available_capacity >= group_size:
                return resource_ids
        current = max(available_capacity for _, available_capacity in matching)
        raise CapacityExceeded(requested=group_size, allowed=current)

    def _check_details(self, reader: Reader, customer: Customer | None, details: _Details) -> None:
        """Decision 19: BK/RS need a customer, or a name and (unless notifications are off) an e-mail."""
        notifying = self._check_email(reader, details.email)
        if customer is not None:
            return
        if details.first_name is None:
            raise FieldRequired(field="name")
        if details.email is None and notifying:
            raise FieldRequired(field="email")

    def _check_email(self, reader: Reader, email: str | None) -> bool:
        """
        Check an e-mail sent with a booking; return whether the company sends notifications.

        Decision 34: with e-mail and SMS notifications disabled the e-mail is neither required
        nor validated, and is stored as given (text up to 255 characters); with notifications
        on it must be an address.
        """
        company = reader.get(Company, self._ctx.company_id)
        notifying = company is None or not company.notifications_disabled
        if email is not None and notifying and not is_email(email):
            raise InvalidFormat(field="email", expected="an e-mail address", value=email)
        return notifying

    def _add_customer(self, tx: Transaction, details: _Details) -> Customer:
        """Create the customer of a first booking (decision 19), with its CustomerCreated event."""
        fields: CustomerFields = {
            "first_name": details.first_name,
            "last_name": details.last_name,
            "email": details.email,
        }
        if details.phone is not None:
            fields["phone"] = details.phone
        if details.phone_type is not None:
            fields["phone_type"] = details.phone_type
        return add_customer(self._ctx, tx, fields)

    def _audit(
        self,
        tx: Transaction,
        appointment: Appointment,
        operation: Operation,
        before: AppointmentStatus | None,
        after: AppointmentStatus | None,
        now: datetime,
    ) -> None:
        tx.insert(
            AuditEntry(
                id=self._ctx.ids.new_id(),
                company_id=appointment.company_id,
                location_id=appointment.location_id,
                appointment_id=appointment.id,
                operation=operation,
                modified_on=now,
                modified_by=self._ctx.principal.user,
                status_before=before,
                status_after=after,
            )
        )

    def _event(
        self,
        tx: Transaction,
        trigger: Trigger,
        appointment: Appointment,
        now: datetime,
        *,
        customer: Customer | None = None,
        previous: Appointment | None = None,
    ) -> OutboxEvent:
        if customer is None and appointment.customer_id is not None:
            customer = tx.get(Customer, appointment.customer_id)
        resources = [r for rid in appointment.resource_ids if (r := tx.get(Resource, rid))]
        return append_event(
            tx,
            ids=self._ctx.ids,
            now=now,
            company_id=appointment.company_id,
            location_id=appointment.location_id,
            trigger=trigger,
            entity_id=appointment.id,
            payload=appointment_payload(
                appointment, customer=customer, resources=resources, previous=previous
            ),
        )


def _linkable(email: str | None) -> bool:
    """
    Tell whether a booking's e-mail finds or creates a customer (decisions 19 and 34).

    Only an address does: text stored while notifications are disabled names nobody.
    """
    return email is not None and is_email(email)


def _merge_details(appointment: Appointment, details: _Details) -> _Details:
    """Return the details sent, falling back to those the hold already carries."""
    first: str | None
    last: str | None
    if details.first_name is not None:
        first, last = details.first_name, details.last_name
    else:
        first, last = appointment.first_name, appointment.last_name
    return _Details(
        email=details.email if details.email is not None else appointment.email,
        first_name=first,
        last_name=last,
        phone=details.phone if details.phone is not None else appointment.phone,
        phone_type=details.phone_type if details.phone_type is not None else appointment.phone_type,
        phone_ext=details.phone_ext if details.phone_ext is not None else appointment.phone_ext,
        customer_message=(
            details.customer_message
            if details.customer_message is not None
            else appointment.customer_message
        ),
    )


def _customer_fields(customer: Customer | None, details: _Details) -> dict[str, Any]:
    """Return the appointment's customer fields: the details sent, else the customer's own."""
    fields: dict[str, Any] = {
        "email": details.email,
        "first_name": details.first_name,
        "last_name": details.last_name,
        "phone": details.phone,
        "phone_type": details.phone_type,
        "phone_ext": details.phone_ext,
        "customer_message": details.customer_message,
    }
    if customer is not None and details.first_name is None:
        fields["first_name"] = customer.first_name
        fields["last_name"] = customer.last_name
    if customer is not None:
        fields["email"] = fields["email"] or customer.email
        fields["phone"] = fields["phone"] or customer.phone
    return fields


def _check_customer_limits(
    reader: Reader,
    *,
    customer_id: str,
    service: Service,
    location: Location,
    settings: LocationSettings,
    start: datetime,
    resource_ids: Sequence[str],
    now: datetime,
    exclude_id: str | None,
) -> None:
    """
    Check decision 10's per-customer limits for a booking of *service* at *start*.

    ``customer_bookings_per_day`` counts the customer's active appointments at the location
    starting on the same location date; ``max_booking_limit`` the customer's active future
    appointments of the service; ``max_resource_booking_limit`` those that also take the same
    resource. Each limit N allows N appointments; the one that would be N + 1 is refused.
    """
    per_day = settings.customer_bookings_per_day
    per_service = service.max_booking_limit
    per_resource = service.max_resource_booking_limit
    if not (per_day or per_service or per_resource):
        return
    mine = [
        appointment
        for appointment in reader.appointments_of_customer(customer_id)
        if appointment.id != exclude_id and appointment.is_active(now)
    ]
    if per_day:
        tz = zone(location.timezone)
        day = start.astimezone(tz).date()
        count = sum(
            1
            for appointment in mine
            if appointment.location_id == location.id
            and appointment.start.astimezone(tz).date() == day
        )
        if count + 1 > per_day:
            raise CustomerLimitReached(
                field="customer_bookings_per_day", limit=per_day, requested=count + 1
            )
    future = [a for a in mine if a.service_id == service.id and a.start >= now]
    if per_service and len(future) + 1 > per_service:
        raise CustomerLimitReached(
            field="max_booking_limit", limit=per_service, requested=len(future) + 1
        )
    if per_resource:
        for rid in resource_ids:
            count = sum(1 for appointment in future if rid in appointment.resource_ids)
            if count + 1 > per_resource:
                raise CustomerLimitReached(
                    field="max_resource_booking_limit", limit=per_resource, requested=count + 1
                )


_REMINDER_SLOTS: tuple[tuple[Literal["email", "sms"], Literal[1, 2], str], ...] = (
    ("email", 1, "email_first"),
    ("email", 2, "email_second"),
    ("sms", 1, "sms_first"),
    ("sms", 2, "sms_second"),
)


def _queue_reminders(
    ctx: Context, tx: Transaction, appointment: Appointment, location: Location, now: datetime
) -> None:
    """Queue the location's reminders of *appointment* (decision 28); none due before now."""
    for channel, ordinal, name in _REMINDER_SLOTS:
        reminder = getattr(location.reminders, name)
        if reminder is None:
            continue
        due = appointment.start - timedelta(minutes=reminder.lead_minutes)
        if due < now:
            continue
        tx.insert(
            QueuedReminder(
                id=ctx.ids.new_id(),
                company_id=appointment.company_id,
                location_id=appointment.location_id,
                appointment_id=appointment.id,
                channel=channel,
                ordinal=ordinal,
                due_at=due,
            )
        )


def _drop_unsent_reminders(tx: Transaction, appointment_id: str) -> None:
    for reminder in tx.reminders_of(appointment_id):
        if reminder.sent_at is None:
            tx.delete(QueuedReminder, reminder.id)


def _feed_limit(limit: object) -> int:
    if not isinstance(limit, int) or isinstance(limit, bool) or not 1 <= limit <= _MAX_FEED:
        raise OutOfRange(field="limit", allowed=f"between 1 and {_MAX_FEED}", requested=limit)
    return limit


@operations
@attrs.frozen
class OutboxOperations:
    """
    The outbox of the principal's company: events waiting for delivery (decision 27).

    A host (or the HTTP extra's webhook sender) reads :meth:`undelivered`, delivers each event,
    then calls :meth:`mark_delivered`; an event not marked is read again, so delivery is
    at-least-once.

    .. versionadded:: 0.1
    """

    _ctx: Context

    def undelivered(self, limit: int = 100) -> builtins.list[OutboxEvent]:
        """
        Return up to *limit* undelivered events of the principal, oldest (lowest sequence) first.

        A principal limited to some locations gets only its locations' events, never the
        company-wide ones (customer events); the store filters, so *limit* counts what is
        returned (decision 37).

        Raises:
            OutOfRange: when *limit* is outside 1..1000.
        """
        ctx = self._ctx
        size = _feed_limit(limit)
        with ctx.store.read() as reader:
            return reader.undelivered_events(
                company_id=ctx.company_id, location_ids=ctx.location_ids, limit=size
            )

    def mark_delivered(self, event_ids: Iterable[str], /) -> int:
        """
        Mark events delivered now, in one unit of work; return how many were newly marked.

        Events already delivered keep their first ``delivered_at``.

        Raises:
            NotFound: when an id names no event (nothing is marked).
            Unauthorized: when an event is another company's, or the principal is limited to
                some locations and the event is another location's or company-wide (decision
                37); nothing is marked.
        """
        ctx = self._ctx
        marked = 0
        with ctx.store.transaction() as tx:
            now = ctx.clock.now()
            # Check every id before the first write: a refused call marks nothing.
            events = [
                ctx.owned(tx, OutboxEvent, event_id, field="event_ids", change=True)
                for event_id in dict.fromkeys(event_ids)
            ]
            for event in events:
                if event.delivered_at is None:
                    tx.update(attrs.evolve(event, delivered_at=now))
                    marked += 1
        return marked


@operations
@attrs.frozen
class ReminderOperations:
    """
    Queued appointment reminders of the principal's locations (decision 28).

    .. versionadded:: 0.1
    """

    _ctx: Context

    def due(self, limit: int = 100) -> builtins.list[QueuedReminder]:
        """
        Return up to *limit* unsent reminders due at or before now, by due time then id.

        Raises:
            OutOfRange: when *limit* is outside 1..1000.
        """
        ctx = self._ctx
        size = _feed_limit(limit)
        with ctx.store.read() as reader:
            # Filtered by the store (decision 37): *limit* counts the principal's reminders.
            return reader.reminders_due(
                company_id=ctx.company_id,
                location_ids=ctx.location_ids,
                before=ctx.clock.now(),
                limit=size,
            )

    def mark_sent(self, reminder_ids: Iterable[str], /) -> int:
        """
        Mark reminders sent now and append their ``EmailReminder`` / ``SmsReminder`` events.

        One unit of work; a reminder already sent is left alone (no second event). Returns how
        many were newly marked.

        Raises:
            NotFound: when an id names no reminder (nothing is marked).
            Unauthorized: when a reminder is not the principal's (nothing is marked).
        """
        ctx = self._ctx
        marked = 0
        with ctx.store.transaction() as tx:
            now = ctx.clock.now()
            # Check every id before the first write, so a refused call takes no event number.
            reminders = [
                ctx.owned(tx, QueuedReminder, reminder_id, field="reminder_ids")
                for reminder_id in dict.fromkeys(reminder_ids)
            ]
            for reminder in reminders:
                if reminder.sent_at is not None:
                    continue
                sent = attrs.evolve(reminder, sent_at=now)
                tx.update(sent)
                marked += 1
                appointment = tx.get(Appointment, reminder.appointment_id)
                if appointment is not None:
                    customer = (
                        tx.get(Customer, appointment.customer_id)
                        if appointment.customer_id
                        else None
                    )
                    resources = [
                        r for rid in appointment.resource_ids if (r := tx.get(Resource, rid))
                    ]
                    payload: dict[str, Any] = appointment_payload(
                        appointment, customer=customer, resources=resources, reminder=sent
                    )
                else:
                    payload = {"appointment": None, "reminder": to_json_data(sent)}
                append_event(
                    tx,
                    ids=ctx.ids,
                    now=now,
                    company_id=reminder.company_id,
                    location_id=reminder.location_id,
                    trigger=(
                        Trigger.EMAIL_REMINDER
                        if reminder.channel == "email"
                        else Trigger.SMS_REMINDER
                    ),
                    entity_id=reminder.appointment_id,
                    payload=payload,
                )
        return marked
