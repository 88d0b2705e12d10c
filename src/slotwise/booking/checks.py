"""
The checks of a booking (a part of ``AppointmentOperations``): the slot, asked of the
availability engine itself; the group size (decision 26); the customer's details (decisions 19
and 34) and limits (decision 10).
"""

from __future__ import annotations

import operator
from collections.abc import Mapping, Sequence
from datetime import datetime, timedelta
from typing import Any, Final

import attrs

from slotwise._time import zone
from slotwise.availability.busy import BusyIntervals
from slotwise.availability.calculator import bookable_at
from slotwise.availability.query import one_date_query
from slotwise.availability.snapshot import read_snapshot, with_busy
from slotwise.errors import (
    CapacityExceeded,
    CustomerLimitReached,
    FieldRequired,
    GroupSizeExceeded,
    InconsistentFields,
    InvalidFormat,
    InvalidReference,
    OutOfRange,
    SlotUnavailable,
)
from slotwise.model import (
    Appointment,
    Company,
    Customer,
    Location,
    LocationSettings,
    Resource,
    RoundRobin,
    Service,
    ServiceScope,
)
from slotwise.model._checks import is_email
from slotwise.operations.customers import (
    CustomerFields,
    add_customer,
)
from slotwise.storage.protocol import Reader, Transaction

from ._base import (
    AppointmentBase,
    _Details,
)

_ID: Final = operator.attrgetter("id")
_MINUTE: Final = timedelta(minutes=1)


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


def _length_refused(
    error: InconsistentFields | OutOfRange, service: Service, minutes: int
) -> InconsistentFields | OutOfRange:
    """
    Return *error*, a refused query ``duration``, as the booking's own: the slot's length is
    set by its ``end`` (decision 16: other lengths only for ``duration_select`` services).
    """
    if isinstance(error, OutOfRange):
        return OutOfRange(
            field="end",
            allowed=f"{error.allowed} after start (service {service.id!r})",
            requested=f"{minutes} minutes",
        )
    if not service.duration_select:
        reason = f"service {service.id!r} has a fixed duration of {service.duration} minutes"
    else:
        reason = error.message.replace("duration must be", "its length must be", 1)
    return InconsistentFields(
        f"end makes a slot of {minutes} minutes, which the service does not offer: {reason}",
        field="end",
    )


class BookingChecks(AppointmentBase):
    """The checks a new time or a completed booking passes before anything is written."""

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

        The query is the listing's query for the appointment's location date, whole-day, and
        the calculator sweeps only the grid start at *start* (``bookable_at``): the day's open
        time and grid come from the set-up kept with the configuration's version (shared by the
        bookings of the same resources and date), so the slot is judged as in the listing, by
        the same code, for one start.
        """
        ids = tuple(map(_ID, resources))
        tz = zone(location.timezone)
        local_start = start.astimezone(tz)
        length = end - start
        if local_start.second or local_start.microsecond or length % _MINUTE:
            # The engine offers whole-minute slots only.
            raise SlotUnavailable(start=local_start, end=end.astimezone(tz), resource_ids=ids)
        day = local_start.date()
        minutes = length // _MINUTE
        # Its values are checked already (ids of stored records, a date and a whole-minute
        # length of checked instants): built without running the query's validators again.
        query = one_date_query(
            service_id=service.id,
            day=day,
            location_id=location.id,
            resource_ids=ids,
            duration=None if minutes == service.duration else minutes,
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
            snapshot = with_busy(snapshot, busy)
        # The listing's own slots of that date starting at *start*: the query's duration is the
        # slot's length, so each of them also ends at *end*.
        try:
            matching = bookable_at(snapshot, query, now, start)
        except (InconsistentFields, OutOfRange) as error:
            if error.field != "duration":
                raise
            raise _length_refused(error, service, minutes) from None
        if ids:
            matching = [slot for slot in matching if slot[0] == ids]
        elif matching and matching[0][1] < group_size:
            # The round robin's pick cannot seat the group: take the first free resource that can.
            everyone = attrs.evolve(query, round_robin=RoundRobin.NONE)
            matching = bookable_at(snapshot, everyone, now, start)
        if not matching:
            raise SlotUnavailable(start=local_start, end=end.astimezone(tz), resource_ids=ids)
        for resource_ids, available_capacity in matching:
            if available_capacity >= group_size:
                return resource_ids
        current = max(available_capacity for _, available_capacity in matching)
        raise CapacityExceeded(requested=group_size, allowed=current)

    def _check_details(self, reader: Reader, customer: Customer | None, details: _Details) -> None:
        """Decision 19: BK/RS need a customer, or a name and (unless notifications are off) an e-mail."""
        if customer is not None:
            # Only an e-mail sent is checked; whether the company notifies matters no further.
            if details.email is not None:
                self._check_email(reader, details.email)
            return
        notifying = self._check_email(reader, details.email)
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


def _customer_fields(
    customer: Customer | None, details: _Details, into: dict[str, Any] | None = None
) -> dict[str, Any]:
    """
    Return the appointment's customer fields: the details sent, else the customer's own (set
    in *into* when it is given: a new appointment's values).
    """
    fields: dict[str, Any] = {} if into is None else into
    email, first, last, phone = details.email, details.first_name, details.last_name, details.phone
    if customer is not None:
        if first is None:
            first, last = customer.first_name, customer.last_name
        email = email or customer.email
        phone = phone or customer.phone
    fields["email"] = email
    fields["first_name"] = first
    fields["last_name"] = last
    fields["phone"] = phone
    fields["phone_type"] = details.phone_type
    fields["phone_ext"] = details.phone_ext
    fields["customer_message"] = details.customer_message
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
