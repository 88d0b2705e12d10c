"""Errors of access and state: a record not found or not the caller's, or a change its state refuses."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from ._base import SlotwiseError, _shown

__all__ = [
    "NotFound",
    "NotAuthenticated",
    "Unauthorized",
    "StateError",
    "ResourceDeleted",
    "DuplicateRecord",
    "RecordInUse",
    "InvalidTransition",
    "SlotUnavailable",
    "HoldExpired",
    "PastAppointment",
    "AppointmentNotStarted",
    "CustomerLimitReached",
    "IdempotencyConflict",
]


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


class InvalidSignature(SlotwiseError, PermissionError):
    """
    A webhook delivery's signature is missing, wrong or outside its time window.

    Raised by :func:`slotwise.webhooks.verify` in a receiver (decision 38).
    """

    code = "INVALID-SIGNATURE"
    http_status = 401

    def __init__(self, message: str) -> None:
        super().__init__(f"invalid webhook signature: {message}")


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


_VERBS = {"create_hold": "hold", "create_booked": "book", "create_reserved": "reserve"}


def _verb(operation: object) -> str:
    """Return what an operation does, in words (``create_hold`` holds, ``no_show`` ...)."""
    code = _code(operation)
    return _VERBS.get(code, code.replace("_", " "))


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
            f"cannot {_verb(operation)} an appointment starting {start.isoformat()}: it is in "
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
