"""
Every error slotwise raises, in one tree.

Each class has a stable ``code`` (a spec code such as ``BOOKING-408`` where the spec has one,
otherwise slotwise's own) and the ``http_status`` an HTTP adapter maps it to. Constructors take
the data and build the message, so a call site reads ``raise GroupSizeExceeded(requested=5, allowed=4)``.

::

    SlotwiseError
    ├── ValidationError (ValueError)                     400  VALIDATION
    │   ├── FieldRequired                                400  FIELD-REQUIRED
    │   ├── FieldTooLong                                 400  FIELD-TOO-LONG
    │   ├── FieldTooShort                                400  FIELD-TOO-SHORT
    │   ├── OutOfRange                                   400  OUT-OF-RANGE
    │   ├── InvalidChoice                                400  INVALID-CHOICE
    │   ├── InvalidFormat                                400  INVALID-FORMAT
    │   ├── UnexpectedField                              400  UNEXPECTED-FIELD
    │   ├── InvalidTimeZone                              400  INVALID-TIMEZONE
    │   ├── InvalidTimeOfDay                             400  INVALID-TIME
    │   ├── InvalidTimeRange                             400  INVALID-TIME-RANGE
    │   ├── InvalidDateRange                             400  INVALID-DATE-RANGE
    │   ├── NaiveDatetime                                400  NAIVE-DATETIME
    │   ├── InconsistentFields                           400  INCONSISTENT-FIELDS
    │   ├── InvalidReference                             400  INVALID-REFERENCE
    │   ├── GroupSizeExceeded                            400  BOOKING-408
    │   └── CapacityExceeded                             409  BOOKING-138
    ├── NotFound (LookupError)                           404  NOT-FOUND
    ├── NotAuthenticated (PermissionError)               401  NOT-AUTHENTICATED
    ├── Unauthorized (PermissionError)                   401  UNAUTHORIZED
    ├── StateError                                       409  STATE
    │   ├── ResourceDeleted                              409  RESOURCE-DELETED
    │   ├── DuplicateRecord                              409  DUPLICATE
    │   ├── RecordInUse                                  409  IN-USE
    │   ├── InvalidTransition                            409  INVALID-TRANSITION
    │   ├── SlotUnavailable                              409  SLOT-UNAVAILABLE
    │   ├── HoldExpired                                  409  HOLD-EXPIRED
    │   ├── PastAppointment                              409  PAST-APPOINTMENT
    │   ├── AppointmentNotStarted                        409  NOT-STARTED
    │   ├── CustomerLimitReached                         409  CUSTOMER-LIMIT
    │   └── IdempotencyConflict                          409  IDEMPOTENCY-CONFLICT
    ├── ProviderNotConfigured                            501  PROVIDER-NOT-CONFIGURED
    ├── MissingDependency (ImportError)                  501  MISSING-DEPENDENCY
    └── StoreError                                       500  STORE
        ├── ConflictError                                409  STORE-CONFLICT
        └── StoreUnavailable                             503  STORE-UNAVAILABLE

``docs/errors.md`` lists each class with the operations that raise it.
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from datetime import datetime
from typing import ClassVar

__all__ = [
    "AppointmentNotStarted",
    "CapacityExceeded",
    "ConflictError",
    "CustomerLimitReached",
    "DuplicateRecord",
    "FieldRequired",
    "FieldTooLong",
    "FieldTooShort",
    "GroupSizeExceeded",
    "HoldExpired",
    "IdempotencyConflict",
    "InconsistentFields",
    "InvalidChoice",
    "InvalidDateRange",
    "InvalidFormat",
    "InvalidReference",
    "InvalidTimeOfDay",
    "InvalidTimeRange",
    "InvalidTimeZone",
    "InvalidTransition",
    "MissingDependency",
    "NaiveDatetime",
    "NotAuthenticated",
    "NotFound",
    "OutOfRange",
    "ProviderNotConfigured",
    "PastAppointment",
    "RecordInUse",
    "ResourceDeleted",
    "SlotUnavailable",
    "SlotwiseError",
    "StateError",
    "StoreError",
    "StoreUnavailable",
    "Unauthorized",
    "UnexpectedField",
    "ValidationError",
]

_SHOWN_MAX = 60


def _shown(value: object) -> str:
    """
    Return a short repr of *value* for an error message.

    Messages quote what the caller sent; a 50,000-character string would make the message as
    long, and ``repr`` of an integer with thousands of digits raises ``ValueError``.
    """
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) >= 10**_SHOWN_MAX:
        return f"<an integer of about {value.bit_length() * 3 // 10} digits>"
    try:
        text = repr(value)
    except Exception:  # a hostile __repr__ must not replace the error being reported
        return f"<{type(value).__name__}>"
    if len(text) > _SHOWN_MAX:
        return f"{text[: _SHOWN_MAX - 5]}...{text[-2:]} ({len(text)} characters)"
    return text


class SlotwiseError(Exception):
    """
    Root of every error slotwise raises.

    .. versionadded:: 0.1
    """

    code: ClassVar[str] = "SLOTWISE"
    http_status: ClassVar[int] = 500

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    def to_dict(self) -> dict[str, object]:
        """
        Return a JSON-ready description: ``code``, ``message`` and the error's data fields.
        """
        data: dict[str, object] = {"code": self.code, "message": self.message}
        for key in ("field", "limit", "requested", "allowed", "value"):
            if key in self.__dict__ and self.__dict__[key] is not None:
                data[key] = self.__dict__[key]
        return data


class ValidationError(SlotwiseError, ValueError):
    """
    Input broke a rule of the spec; ``field`` names the offending input.
    """

    code = "VALIDATION"
    http_status = 400

    def __init__(self, message: str, *, field: str | None = None) -> None:
        super().__init__(message)
        self.field = field


class FieldRequired(ValidationError):
    """A required field was missing or blank."""

    code = "FIELD-REQUIRED"

    def __init__(self, *, field: str) -> None:
        super().__init__(f"{field} is required", field=field)


class FieldTooLong(ValidationError):
    """A text field is longer than its limit."""

    code = "FIELD-TOO-LONG"

    def __init__(self, *, field: str, limit: int, requested: int) -> None:
        super().__init__(
            f"{field} must be at most {limit} characters, got {requested}", field=field
        )
        self.limit = limit
        self.requested = requested


class FieldTooShort(ValidationError):
    """A text field is shorter than its minimum."""

    code = "FIELD-TOO-SHORT"

    def __init__(self, *, field: str, limit: int, requested: int) -> None:
        super().__init__(
            f"{field} must be at least {limit} characters, got {requested}", field=field
        )
        self.limit = limit
        self.requested = requested


class OutOfRange(ValidationError):
    """A number lies outside its allowed range ``allowed`` (inclusive bounds, text)."""

    code = "OUT-OF-RANGE"

    def __init__(self, *, field: str, allowed: str, requested: object) -> None:
        super().__init__(f"{field} must be {allowed}, got {_shown(requested)}", field=field)
        self.allowed = allowed
        self.requested = requested


class InvalidChoice(ValidationError):
    """A value is not one of the allowed choices."""

    code = "INVALID-CHOICE"

    def __init__(self, *, field: str, allowed: tuple[object, ...], requested: object) -> None:
        choices = ", ".join(repr(choice) for choice in allowed)
        super().__init__(f"{field} must be one of {choices}, got {_shown(requested)}", field=field)
        self.allowed = allowed
        self.requested = requested


class InvalidFormat(ValidationError):
    """A text value does not have the required shape (an e-mail address, a date, digits)."""

    code = "INVALID-FORMAT"

    def __init__(self, *, field: str, expected: str, value: object) -> None:
        super().__init__(f"{field} must be {expected}, got {_shown(value)}", field=field)
        self.value = value
        self.expected = expected


class UnexpectedField(ValidationError):
    """
    An operation was given a field it does not declare, or one it may not change (decision 35).

    ``allowed`` lists the fields the operation accepts there.
    """

    code = "UNEXPECTED-FIELD"

    def __init__(self, *, field: str, allowed: Sequence[str], reason: str | None = None) -> None:
        if len(field) > _SHOWN_MAX:
            field = _shown(field)
        close = difflib.get_close_matches(field, allowed, n=1)
        hint = f"; did you mean {close[0]!r}?" if close else ""
        accepted = ", ".join(allowed) if allowed else "none"
        why = reason or "is not a field this operation accepts"
        super().__init__(f"{field} {why}{hint} (accepted: {accepted})", field=field)
        self.allowed = tuple(allowed)


class InvalidTimeZone(ValidationError):
    """A time zone name is not an IANA name known to ``zoneinfo``/``tzdata``."""

    code = "INVALID-TIMEZONE"

    def __init__(self, *, field: str, value: object) -> None:
        super().__init__(
            f"{field} must be an IANA time zone name such as 'Europe/London', got {_shown(value)}",
            field=field,
        )
        self.value = value


class InvalidTimeOfDay(ValidationError):
    """An HHMM value is outside 0..2400 or has minutes above 59."""

    code = "INVALID-TIME"

    def __init__(self, *, field: str, value: object) -> None:
        super().__init__(
            f"{field} must be an HHMM time between 0 and 2400 with minutes 00..59, got {_shown(value)}",
            field=field,
        )
        self.value = value


class InvalidTimeRange(ValidationError):
    """A start time is not strictly before its end time."""

    code = "INVALID-TIME-RANGE"

    def __init__(self, *, field: str, start: object, end: object) -> None:
        super().__init__(
            f"{field}: startTime ({start}) must be less than endTime ({end})", field=field
        )
        self.start = start
        self.end = end


class InvalidDateRange(ValidationError):
    """A start date lies after its end date."""

    code = "INVALID-DATE-RANGE"

    def __init__(self, *, field: str, start: object, end: object) -> None:
        super().__init__(
            f"{field}: startDate ({start}) must not be after endDate ({end})", field=field
        )
        self.start = start
        self.end = end


class NaiveDatetime(ValidationError):
    """A datetime without a UTC offset reached the API; slotwise never guesses a zone."""

    code = "NAIVE-DATETIME"

    def __init__(self, *, field: str) -> None:
        super().__init__(
            f"{field} must be an aware datetime (with tzinfo); naive datetimes are refused",
            field=field,
        )


class InconsistentFields(ValidationError):
    """Two or more fields break a rule that ties them together."""

    code = "INCONSISTENT-FIELDS"

    def __init__(self, message: str, *, field: str) -> None:
        super().__init__(message, field=field)


class InvalidReference(ValidationError):
    """A field names a record that cannot be used there (wrong location, wrong kind)."""

    code = "INVALID-REFERENCE"

    def __init__(self, message: str, *, field: str) -> None:
        super().__init__(message, field=field)


class GroupSizeExceeded(ValidationError):
    """
    A booking brings more people than the service's ``maxGroupSize`` allows.

    Spec: Errors, "Group size above the allowed group size".
    """

    code = "BOOKING-408"

    def __init__(self, *, requested: int, allowed: int) -> None:
        super().__init__(
            f"BOOKING-408: group size {requested} is above the allowed group size {allowed}",
            field="group_size",
        )
        self.requested = requested
        self.allowed = allowed


class CapacityExceeded(ValidationError):
    """
    A booking asks for more capacity than the slot has left.

    Spec: Errors, "Requested capacity above remaining capacity".
    """

    code = "BOOKING-138"
    http_status = 409

    def __init__(self, *, requested: int, allowed: int) -> None:
        super().__init__(
            f"BOOKING-138: requested capacity {requested} is above the current capacity {allowed}",
            field="group_size",
        )
        self.requested = requested
        self.allowed = allowed


class NotFound(SlotwiseError, LookupError):
    """No record of ``kind`` has ``record_id`` (within what the caller may see)."""

    code = "NOT-FOUND"
    http_status = 404

    def __init__(self, *, kind: str, record_id: str) -> None:
        super().__init__(f"{kind} {record_id!r} was not found")
        self.kind = kind
        self.record_id = record_id


class NotAuthenticated(SlotwiseError, PermissionError):
    """An operation was called without a principal."""

    code = "NOT-AUTHENTICATED"
    http_status = 401

    def __init__(self) -> None:
        super().__init__("not authenticated: this operation needs a principal")


class Unauthorized(SlotwiseError, PermissionError):
    """
    The principal may not use the named record.

    The message names only what the caller sent, never anything about the record itself.
    """

    code = "UNAUTHORIZED"
    http_status = 401

    def __init__(self, *, field: str, value: str) -> None:
        super().__init__(f"{field} {_shown(value)} is not permitted for this caller")
        self.field = field
        self.value = value


class StateError(SlotwiseError):
    """The record's current state does not allow the operation."""

    code = "STATE"
    http_status = 409


class ResourceDeleted(StateError):
    """The resource is soft-deleted; recover it first."""

    code = "RESOURCE-DELETED"

    def __init__(self, *, resource_id: str) -> None:
        super().__init__(f"resource {resource_id!r} is deleted; recover it before changing it")
        self.resource_id = resource_id


class DuplicateRecord(StateError):
    """A record with the same unique key already exists."""

    code = "DUPLICATE"

    def __init__(self, *, kind: str, field: str, value: object) -> None:
        super().__init__(f"a {kind} with {field} {_shown(value)} already exists")
        self.kind = kind
        self.field = field
        self.value = value


class RecordInUse(StateError):
    """A record cannot be deleted while other records still refer to it."""

    code = "IN-USE"

    def __init__(self, *, kind: str, record_id: str, used_by: str, count: int) -> None:
        super().__init__(
            f"{kind} {record_id!r} is still used by {count} {used_by}; reassign them first"
        )
        self.kind = kind
        self.record_id = record_id
        self.used_by = used_by
        self.count = count


def _code(value: object) -> str:
    """Return an enum's value (a status code, an operation name), or the text of anything else."""
    return str(getattr(value, "value", value))


class InvalidTransition(StateError):
    """
    The appointment's status does not allow the operation (decision 25); nothing changed.

    ``status`` is ``None`` for an appointment not created yet.
    """

    code = "INVALID-TRANSITION"

    def __init__(self, *, status: object, operation: object) -> None:
        where = (
            "a new appointment" if status is None else f"an appointment in status {_code(status)}"
        )
        super().__init__(f"operation {_code(operation)!r} is not allowed for {where}")
        self.status = status
        self.operation = operation


class SlotUnavailable(StateError):
    """
    The requested time is not a bookable slot of the availability engine for those resources.

    Raised when availability does not offer exactly ``start``..``end`` for ``resource_ids``
    (taken, outside open time, within the lead time, beyond book-ahead, daily limit reached).
    """

    code = "SLOT-UNAVAILABLE"

    def __init__(self, *, start: datetime, end: datetime, resource_ids: Sequence[str]) -> None:
        if not resource_ids:
            who = "any resource"
        else:
            noun = "resource" if len(resource_ids) == 1 else "resources together"
            who = f"{noun} " + ", ".join(repr(rid) for rid in resource_ids)
        super().__init__(
            f"{start.isoformat()} to {end.isoformat()} is not available for {who}; "
            "pick a time from the available times"
        )
        self.start = start
        self.end = end
        self.resource_ids = tuple(resource_ids)


class HoldExpired(StateError):
    """A hold's booking timer ran out and its time is no longer available (decision 20)."""

    code = "HOLD-EXPIRED"

    def __init__(self, *, appointment_id: str, expired_at: datetime) -> None:
        super().__init__(
            f"the hold of appointment {appointment_id!r} expired at {expired_at.isoformat()} "
            "and its time has been taken; search availability again"
        )
        self.appointment_id = appointment_id
        self.expired_at = expired_at


class PastAppointment(StateError):
    """An appointment dated in the past cannot be created, booked, cancelled or rescheduled."""

    code = "PAST-APPOINTMENT"

    def __init__(self, *, operation: object, start: datetime, now: datetime) -> None:
        super().__init__(
            f"cannot {_code(operation)} an appointment starting {start.isoformat()}: it is in "
            f"the past (now {now.isoformat()})"
        )
        self.operation = operation
        self.start = start
        self.now = now


class AppointmentNotStarted(StateError):
    """A no-show was recorded before the appointment started (decision 24)."""

    code = "NOT-STARTED"

    def __init__(self, *, appointment_id: str, start: datetime) -> None:
        super().__init__(
            f"appointment {appointment_id!r} starts {start.isoformat()}; a no-show can be "
            "recorded only once the start has passed"
        )
        self.appointment_id = appointment_id
        self.start = start


class CustomerLimitReached(StateError):
    """
    A booking would take a customer over a per-customer limit (decision 10).

    ``field`` names the setting (``customer_bookings_per_day``, ``max_booking_limit`` or
    ``max_resource_booking_limit``), ``limit`` its value, ``requested`` the count with this booking.
    """

    code = "CUSTOMER-LIMIT"

    def __init__(self, *, field: str, limit: int, requested: int) -> None:
        super().__init__(
            f"{field} allows {limit} active bookings for this customer; this booking would "
            f"make {requested}"
        )
        self.field = field
        self.limit = limit
        self.requested = requested


class IdempotencyConflict(StateError):
    """An idempotency key was sent again with a different request."""

    code = "IDEMPOTENCY-CONFLICT"

    def __init__(self, *, key: str, appointment_id: str) -> None:
        super().__init__(
            f"idempotency key {key!r} was already used for appointment {appointment_id!r} with "
            "a different request; use a new key for a new request"
        )
        self.key = key
        self.appointment_id = appointment_id


class ProviderNotConfigured(SlotwiseError):
    """No external calendar provider plugin is configured for this operation."""

    code = "PROVIDER-NOT-CONFIGURED"
    http_status = 501

    def __init__(self, *, provider: str) -> None:
        super().__init__(
            f"no authorizer is configured for calendar provider {provider}: pass "
            "calendar_authorizer=... to Scheduler"
        )
        self.provider = provider


class MissingDependency(SlotwiseError, ImportError):
    """An optional extra is needed for this operation and is not installed."""

    code = "MISSING-DEPENDENCY"
    http_status = 501

    def __init__(self, *, feature: str, extra: str) -> None:
        super().__init__(f"{feature} needs the optional extra: pip install 'slotwise[{extra}]'")
        self.feature = feature
        self.extra = extra


class StoreError(SlotwiseError):
    """A store could not carry out a unit of work; nothing of it was written."""

    code = "STORE"
    http_status = 500


class ConflictError(StoreError):
    """A concurrent unit of work changed the same records; retrying may succeed."""

    code = "STORE-CONFLICT"
    http_status = 409


class StoreUnavailable(StoreError):
    """The store's backend cannot be reached."""

    code = "STORE-UNAVAILABLE"
    http_status = 503
