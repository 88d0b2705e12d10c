"""
Appointments: a booking of a service (and usually resources) for a time range.

Instants are stored in UTC. How appointments move between statuses is ``slotwise.booking``'s job.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Mapping
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

import attrs

from slotwise.errors import InvalidTimeRange

from ._checks import (
    as_utc,
    check_aware,
    check_bool,
    check_int,
    check_phone,
    check_text,
    check_url,
    mapping_repr,
    str_tuple,
    to_enum,
)
from ._enum import SpecEnum
from ._rare import rare_fields
from ._shared import shared
from ._trusted import trusted_constructor
from .customers import NO_CUSTOM_FIELDS, check_custom_fields

__all__ = ["ACTIVE_STATUSES", "Appointment", "AppointmentStatus", "FieldValue"]


class AppointmentStatus(SpecEnum):
    """
    Appointment status, valued by the spec's code.

    .. versionadded:: 0.1
    """

    INITIAL = "IN"
    """Holds its slot for the location's booking timer while details are gathered."""
    BOOKED = "BK"
    RESERVED = "RS"
    CANCELLED = "CN"
    RESCHEDULED = "RE"
    """The old record of a rescheduled appointment."""
    NO_SHOW = "NS"


ACTIVE_STATUSES = frozenset(
    {AppointmentStatus.BOOKED, AppointmentStatus.RESERVED, AppointmentStatus.NO_SHOW}
)
"""Statuses that always take capacity; IN does until its hold expires (decision 8)."""


@attrs.frozen(kw_only=True)
class FieldValue:
    """
    A booking-field value: ``name`` and ``value``.

    .. versionadded:: 0.1
    """

    name: str = attrs.field(validator=check_text(max_len=64, required=True))
    value: str = attrs.field(validator=check_text(max_len=4000))


def _to_status(value: object) -> AppointmentStatus:
    # Named converter: an unknown code raises InvalidChoice naming the field, not a bare ValueError.
    return to_enum(AppointmentStatus, value, field="status")


def _to_resource_ids(value: Iterable[str]) -> tuple[str, ...]:
    # One tuple for every appointment of the same resources (memory per stored appointment).
    return shared(str_tuple(value, field="resource_ids"))


def _field_values(values: Iterable[FieldValue]) -> tuple[FieldValue, ...]:
    return tuple(values)


def _shared_instant(value: Any) -> Any:
    # Appointments start and end on their services' grid: equal instants share one object
    # (memory per stored appointment), from the first equal one seen.
    utc = as_utc(value)
    # Only a UTC instant (anything else is refused by the validator, and may not even hash).
    return shared(utc) if isinstance(utc, datetime) and utc.tzinfo is UTC else utc


def _check_span(instance: Appointment, _attribute: Any, _value: Any) -> None:
    if instance.end <= instance.start:
        raise InvalidTimeRange(
            field="end", start=instance.start, end=instance.end, names=("start", "end")
        )


def stored_custom_fields(value: Mapping[str, str] | None) -> Mapping[str, str]:
    """Return the custom fields an appointment stores for *value* (checked, read-only)."""
    if value is None:
        return NO_CUSTOM_FIELDS  # what check_custom_fields({}) returns, without its checks
    return check_custom_fields(value or {})


# None in almost every appointment: kept in one slot between them, not one each (memory per
# stored appointment, issue 23; see ``_rare``). Hot reads (status, times, hold expiry, the
# customer's details) keep their own slots.
_RARE = (
    "rescheduled_id",
    "confirmation_number",
    "phone_ext",
    "customer_message",
    "location_text",
    "latitude",
    "longitude",
    "payment_charge_id",
    "payment_refund_id",
    "meeting_url",
    "meeting_error",
    "idempotency_key",
    "idempotency_fingerprint",
)
if TYPE_CHECKING:
    _AppointmentBase = object
else:
    _AppointmentBase = rare_fields(*_RARE)


@attrs.frozen(kw_only=True)
class Appointment(_AppointmentBase):
    """
    One appointment record.

    ``start``/``end`` are aware UTC instants; ``resource_ids`` lists every resource the booking
    takes (``resource_id`` is the first of them). ``hold_expires_at`` is set on IN appointments:
    ``created_at`` + the location's booking timer, added in UTC.

    .. versionadded:: 0.1
    """

    id: str
    company_id: str
    location_id: str
    calendar_id: str | None = None
    service_id: str
    resource_ids: tuple[str, ...] = attrs.field(default=(), converter=_to_resource_ids)
    customer_id: str | None = None
    status: AppointmentStatus = attrs.field(converter=_to_status)
    start: datetime = attrs.field(converter=_shared_instant, validator=check_aware)
    end: datetime = attrs.field(converter=_shared_instant, validator=[check_aware, _check_span])
    group_size: int = attrs.field(default=1, validator=check_int(low=1, high=10_000))
    created_at: datetime = attrs.field(converter=as_utc, validator=check_aware)
    hold_expires_at: datetime | None = attrs.field(
        default=None, converter=as_utc, validator=check_aware
    )
    last_modified_at: datetime | None = attrs.field(
        default=None, converter=as_utc, validator=check_aware
    )
    last_modified_by: str | None = None
    rescheduled_id: str | None = None
    confirmation_number: str | None = None
    booked_by: str | None = attrs.field(default=None, validator=check_text(max_len=255))
    online_booking: bool = attrs.field(default=True, validator=check_bool)
    confirmed: bool = attrs.field(default=False, validator=check_bool)
    # Text, not an address check: with notifications disabled booking stores what was given
    # (decision 34); booking checks the address when notifications are on.
    email: str | None = attrs.field(default=None, validator=check_text(max_len=255))
    first_name: str | None = attrs.field(default=None, validator=check_text(max_len=255))
    last_name: str | None = attrs.field(default=None, validator=check_text(max_len=255))
    phone: str | None = attrs.field(default=None, validator=check_phone)
    phone_type: str | None = attrs.field(default=None, validator=check_text(max_len=32))
    phone_ext: str | None = attrs.field(default=None, validator=check_text(max_len=10))
    customer_message: str | None = attrs.field(default=None, validator=check_text(max_len=4000))
    location_text: str | None = attrs.field(default=None, validator=check_text(max_len=255))
    latitude: str | None = None
    longitude: str | None = None
    payment_charge_id: str | None = None
    payment_refund_id: str | None = None
    payment_status: int = attrs.field(default=0, validator=check_int(low=0, high=100))
    custom_fields: Mapping[str, str] = attrs.field(
        factory=dict, converter=stored_custom_fields, hash=False, repr=mapping_repr
    )
    appointment_booking_fields: tuple[FieldValue, ...] = attrs.field(
        default=(), converter=_field_values
    )
    customer_booking_fields: tuple[FieldValue, ...] = attrs.field(
        default=(), converter=_field_values
    )
    meeting_url: str | None = attrs.field(default=None, validator=check_url)
    """The meeting link the company's meeting-link hook answered (spec: Events 3)."""
    meeting_error: str | None = attrs.field(default=None, validator=check_text(max_len=500))
    """Why the meeting-link hook gave no link (booked anyway)."""
    idempotency_key: str | None = None
    idempotency_fingerprint: str | None = None
    """A digest of the create request that carried ``idempotency_key`` (to tell a retry from a
    different request with the same key)."""

    @property
    def resource_id(self) -> str | None:
        """Return the first resource the appointment takes, if any."""
        return self.resource_ids[0] if self.resource_ids else None

    @property
    def duration_minutes(self) -> int:
        """Return the length in minutes."""
        return int((self.end - self.start).total_seconds() // 60)

    @property
    def name(self) -> str:
        """Return first and last name joined."""
        return " ".join(part for part in (self.first_name, self.last_name) if part)

    def is_active(self, now: datetime) -> bool:
        """
        Tell whether this appointment takes capacity at *now* (decision 8).

        BK, RS and NS always do; IN does until ``hold_expires_at``; CN and RE never do.
        """
        if self.status in ACTIVE_STATUSES:
            return True
        if self.status is AppointmentStatus.INITIAL:
            return self.hold_expires_at is None or now < self.hold_expires_at
        return False


_KEPT: dict[str, Callable[[Any], Any]] = {"resource_ids": shared, "start": shared, "end": shared}
trusted_appointment = trusted_constructor(Appointment, keep=_KEPT)
"""
Build an :class:`Appointment` from valid, converted values without checking them again (see
``_trusted``): ``start``/``end`` aware UTC instants within decision 36's years, the end after
the start, ``resource_ids`` a tuple of ids, ``status`` a member, ``custom_fields`` read-only as
``check_custom_fields`` returns it. The instants and resources are still shared with equal
ones, as the validating constructor shares them.
"""


def trusted_appointment_builder(
    given: Collection[str],
) -> Callable[[Mapping[str, Any]], Appointment]:
    """
    Return :data:`trusted_appointment` as a function of one mapping holding exactly the fields
    *given* (the others get their defaults): for a caller that sets most fields, whose keyword
    call would cost more than the record (see ``_trusted``). The same values are required.
    """
    return trusted_constructor(Appointment, keep=_KEPT, given=given)
