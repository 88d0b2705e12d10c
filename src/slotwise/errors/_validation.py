"""Validation errors (HTTP 400, and 409 for capacity): a value the caller sent is refused."""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from datetime import datetime
from typing import ClassVar

from ._base import _SHOWN_MAX, SlotwiseError, _shown

__all__ = [
    "ValidationError",
    "FieldRequired",
    "FieldTooLong",
    "FieldTooShort",
    "OutOfRange",
    "InvalidChoice",
    "InvalidFormat",
    "CalendarUnreadable",
    "UnexpectedField",
    "InvalidTimeZone",
    "InvalidTimeOfDay",
    "InvalidTimeRange",
    "InvalidDateRange",
    "NaiveDatetime",
    "InconsistentFields",
    "InvalidReference",
    "GroupSizeExceeded",
    "CapacityExceeded",
]


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


class CalendarUnreadable(InvalidFormat):
    """
    A resource's external calendar (``.ics`` data) could not be read or expanded.

    ``resource_id`` names the resource whose calendar failed and ``reason`` says what failed (the
    underlying error, kept as ``__cause__``). An HTTP adapter answers 502: the calendar is the
    host's upstream data, not the client's input.

    .. versionadded:: 0.2
    """

    code = "CALENDAR-UNREADABLE"
    http_status = 502

    def __init__(self, *, resource_id: str, reason: str) -> None:
        ValidationError.__init__(
            self,
            f"the calendar of resource {resource_id!r} could not be read: {_shown(reason)}",
            field="calendar",
        )
        self.value = reason
        self.expected = "iCalendar data (RFC 5545)"
        self.resource_id = resource_id
        self.reason = reason


class UnexpectedField(ValidationError):
    """
    An operation was given a field it does not declare, or one it may not change (decision 35).

    ``allowed`` lists the fields the operation accepts there.
    """

    code = "UNEXPECTED-FIELD"

    def __init__(self, *, field: str, allowed: Sequence[str], reason: str | None = None) -> None:
        if len(field) > _SHOWN_MAX:
            field = _shown(field)
        # A key inside an object (``mon.startTim``) is compared by its own name too.
        close = difflib.get_close_matches(field, allowed, n=1) or difflib.get_close_matches(
            field.rpartition(".")[2], allowed, n=1
        )
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


class _OutOfOrder(ValidationError):
    """
    Two values that must come in order did not: both named as the caller sent them (*names*;
    ``mentions`` for the HTTP layer) and quoted, the message prefixed by *field* only when it
    is neither of them.
    """

    _relation: ClassVar[str]
    _names: ClassVar[tuple[str, str]]

    def __init__(
        self, *, field: str, start: object, end: object, names: tuple[str, str] | None = None
    ) -> None:
        names = names or self._names
        start_name, end_name = names
        prefix = "" if field in names else f"{field}: "
        super().__init__(
            f"{prefix}{start_name} ({_quoted(start)}) {self._relation} {end_name} ({_quoted(end)})",
            field=field,
        )
        self.start = start
        self.end = end
        self.mentions = names


def _quoted(value: object) -> object:
    # RFC 3339 (``T``), as the caller wrote it and the wire shows it; anything else as it is.
    return value.isoformat() if isinstance(value, datetime) else value


class InvalidTimeRange(_OutOfOrder):
    """A start time is not strictly before its end time (the spec's wording, Errors 6)."""

    code = "INVALID-TIME-RANGE"
    _relation = "must be less than"
    _names = ("start_time", "end_time")


class InvalidDateRange(_OutOfOrder):
    """A start date lies after its end date."""

    code = "INVALID-DATE-RANGE"
    _relation = "must not be after"
    _names = ("start_date", "end_date")


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


class UnsafeDestination(ValidationError):
    """
    A webhook URL may not receive deliveries: not https, or resolving to a non-public address.

    Decision 38: checked on the resolved addresses at send time (server-side request forgery);
    decision 47: checked when the URL is set too (the scheme and a literal address), *field*
    naming the setting.
    """

    code = "UNSAFE-DESTINATION"

    def __init__(self, *, url: str, reason: str, field: str = "url") -> None:
        super().__init__(f"{field} {_shown(url)} may not receive deliveries: {reason}", field=field)
        self.value = url
