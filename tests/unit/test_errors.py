"""The error tree (slotwise.errors): codes, HTTP statuses, builtin bases, messages and to_dict()."""

from __future__ import annotations

import json
import pickle
from datetime import UTC, date, datetime, timedelta, timezone

import pytest

from slotwise import errors
from slotwise.errors import (
    CalendarUnreadable,
    CapacityExceeded,
    ConflictError,
    DuplicateRecord,
    FieldRequired,
    FieldTooLong,
    FieldTooShort,
    GroupSizeExceeded,
    InconsistentFields,
    InvalidChoice,
    InvalidDateRange,
    InvalidFormat,
    InvalidReference,
    InvalidTimeOfDay,
    InvalidTimeRange,
    InvalidTimeZone,
    MissingDependency,
    NaiveDatetime,
    NotAuthenticated,
    NotFound,
    OutOfRange,
    ResourceDeleted,
    SlotwiseError,
    StateError,
    StoreError,
    StoreUnavailable,
    Unauthorized,
    ValidationError,
)

# (error, code, http status, builtin or parent it must also be, text the message must contain)
CASES: list[tuple[SlotwiseError, str, int, type[BaseException], tuple[str, ...]]] = [
    (SlotwiseError("boom"), "SLOTWISE", 500, Exception, ("boom",)),
    (ValidationError("bad input", field="name"), "VALIDATION", 400, ValueError, ("bad input",)),
    (FieldRequired(field="name"), "FIELD-REQUIRED", 400, ValueError, ("name", "required")),
    (
        FieldTooLong(field="name", limit=50, requested=51),
        "FIELD-TOO-LONG",
        400,
        ValueError,
        ("name", "50", "51"),
    ),
    (
        FieldTooShort(field="phone", limit=7, requested=6),
        "FIELD-TOO-SHORT",
        400,
        ValueError,
        ("phone", "7", "6"),
    ),
    (
        OutOfRange(field="bookings_per_slot", allowed="between 1 and 20", requested=21),
        "OUT-OF-RANGE",
        400,
        ValueError,
        ("bookings_per_slot", "between 1 and 20", "21"),
    ),
    (
        InvalidChoice(field="interval", allowed=(1, 5, 10), requested=7),
        "INVALID-CHOICE",
        400,
        ValueError,
        ("interval", "1, 5, 10", "7"),
    ),
    (
        InvalidFormat(field="email", expected="an e-mail address", value="nobody"),
        "INVALID-FORMAT",
        400,
        ValueError,
        ("email", "an e-mail address", "'nobody'"),
    ),
    (
        CalendarUnreadable(resource_id="r1", reason="ValueError: bad DTSTART"),
        "CALENDAR-UNREADABLE",
        502,
        ValueError,
        ("'r1'", "could not be read", "ValueError: bad DTSTART"),
    ),
    (
        InvalidTimeZone(field="timezone", value="Mars/Olympus"),
        "INVALID-TIMEZONE",
        400,
        ValueError,
        ("timezone", "IANA", "'Mars/Olympus'"),
    ),
    (
        InvalidTimeOfDay(field="start_time", value=2401),
        "INVALID-TIME",
        400,
        ValueError,
        ("start_time", "2400", "2401"),
    ),
    (
        InvalidTimeRange(field="start_time", start=1000, end=900),
        "INVALID-TIME-RANGE",
        400,
        ValueError,
        ("start_time", "1000", "900"),
    ),
    (
        InvalidDateRange(field="start_date", start=date(2026, 2, 1), end=date(2026, 1, 1)),
        "INVALID-DATE-RANGE",
        400,
        ValueError,
        ("start_date", "2026-02-01", "2026-01-01"),
    ),
    (NaiveDatetime(field="start"), "NAIVE-DATETIME", 400, ValueError, ("start", "aware")),
    (
        InconsistentFields("max_group_size too big", field="max_group_size"),
        "INCONSISTENT-FIELDS",
        400,
        ValueError,
        ("max_group_size too big",),
    ),
    (
        InvalidReference("resource r1 is at another location", field="resource_id"),
        "INVALID-REFERENCE",
        400,
        ValueError,
        ("resource r1",),
    ),
    (
        GroupSizeExceeded(requested=5, allowed=4),
        "BOOKING-408",
        400,
        ValueError,
        ("BOOKING-408", "5", "4"),
    ),
    (
        CapacityExceeded(requested=3, allowed=2),
        "BOOKING-138",
        409,
        ValueError,
        ("BOOKING-138", "3", "2"),
    ),
    (
        NotFound(kind="Resource", record_id="r1"),
        "NOT-FOUND",
        404,
        LookupError,
        ("Resource", "'r1'"),
    ),
    (NotAuthenticated(), "NOT-AUTHENTICATED", 401, PermissionError, ("principal",)),
    (
        Unauthorized(field="resource_id", value="r9"),
        "UNAUTHORIZED",
        401,
        PermissionError,
        ("resource_id", "'r9'"),
    ),
    (StateError("cannot do that now"), "STATE", 409, SlotwiseError, ("cannot do that now",)),
    (ResourceDeleted(resource_id="r1"), "RESOURCE-DELETED", 409, StateError, ("'r1'", "recover")),
    (
        DuplicateRecord(kind="location", field="friendly_id", value="main"),
        "DUPLICATE",
        409,
        StateError,
        ("location", "friendly_id", "'main'"),
    ),
    (
        MissingDependency(feature="SQLStore", extra="sql"),
        "MISSING-DEPENDENCY",
        501,
        ImportError,
        ("SQLStore", "pip install 'slotwise[sql]'"),
    ),
    (StoreError("write failed"), "STORE", 500, SlotwiseError, ("write failed",)),
    (ConflictError("changed meanwhile"), "STORE-CONFLICT", 409, StoreError, ("changed",)),
    (StoreUnavailable("no server"), "STORE-UNAVAILABLE", 503, StoreError, ("no server",)),
]
IDS = [type(case[0]).__name__ for case in CASES]


class TestEveryError:
    @pytest.mark.parametrize(("error", "code", "status", "base", "texts"), CASES, ids=IDS)
    def test_code_and_status(
        self,
        error: SlotwiseError,
        code: str,
        status: int,
        base: type[BaseException],
        texts: tuple[str, ...],
    ):
        """Each class has its stable code and HTTP status (decision 32)."""
        assert (code, status) == (error.code, error.http_status)

    @pytest.mark.parametrize(("error", "code", "status", "base", "texts"), CASES, ids=IDS)
    def test_builtin_base(
        self,
        error: SlotwiseError,
        code: str,
        status: int,
        base: type[BaseException],
        texts: tuple[str, ...],
    ):
        """Each error is a SlotwiseError and the builtin a user would catch (STYLE rule 16)."""
        assert isinstance(error, SlotwiseError)
        assert isinstance(error, base)

    @pytest.mark.parametrize(("error", "code", "status", "base", "texts"), CASES, ids=IDS)
    def test_message_carries_the_data(
        self,
        error: SlotwiseError,
        code: str,
        status: int,
        base: type[BaseException],
        texts: tuple[str, ...],
    ):
        """The constructor-built message names the field and the figures (STYLE rule 17)."""
        assert error.message == str(error)
        for text in texts:
            assert text in error.message

    @pytest.mark.parametrize(("error", "code", "status", "base", "texts"), CASES, ids=IDS)
    def test_pickles(
        self,
        error: SlotwiseError,
        code: str,
        status: int,
        base: type[BaseException],
        texts: tuple[str, ...],
    ):
        """Each error survives pickling (a process pool returns it) with its message and data."""
        copy = pickle.loads(pickle.dumps(error))

        assert type(error) is type(copy)
        assert (str(error), vars(error)) == (str(copy), vars(copy))

    def test_cases_are_exported_classes(self):
        """Every class in the table above is exported from slotwise.errors."""
        covered = {type(case[0]).__name__ for case in CASES}

        assert covered <= set(errors.__all__)

    @pytest.mark.parametrize("name", sorted(set(errors.__all__) - {"SlotwiseError"}))
    def test_every_exported_class_is_in_the_tree(self, name: str):
        """Every exported error derives from SlotwiseError and is drawn with code and status."""
        cls = getattr(errors, name)

        assert issubclass(cls, SlotwiseError)
        assert errors.__doc__ is not None
        line = next(line for line in errors.__doc__.splitlines() if f" {name} " in line + " ")
        assert cls.code in line
        assert str(cls.http_status) in line

    def test_codes_are_unique(self):
        """No two classes share a code, so a code identifies the error."""
        codes = [getattr(errors, name).code for name in errors.__all__]

        assert len(codes) == len(set(codes))


class TestValidationError:
    def test_is_a_value_error(self):
        """ValidationError is a ValueError (caught by `except ValueError`)."""
        with pytest.raises(ValueError, match="bad"):
            raise ValidationError("bad", field="x")

    def test_field_defaults_to_none(self):
        """A bare ValidationError need not name a field."""
        assert ValidationError("bad").field is None

    @pytest.mark.parametrize(
        "error",
        [
            FieldRequired(field="name"),
            FieldTooLong(field="name", limit=1, requested=2),
            OutOfRange(field="interval", allowed="at least 1", requested=0),
            InvalidTimeRange(field="start_time", start=1, end=0),
            NaiveDatetime(field="start"),
        ],
        ids=lambda error: type(error).__name__,
    )
    def test_subclasses_keep_the_field(self, error: ValidationError):
        """Every validation subclass stores the field it was given and names it in the message."""
        assert error.field is not None
        assert error.field in error.message


class TestGroupSize:
    def test_group_size_exceeded(self):
        """BOOKING-408 carries requested and allowed figures and names group_size (decision 26)."""
        error = GroupSizeExceeded(requested=5, allowed=4)

        assert ("BOOKING-408", 5, 4, "group_size") == (
            error.code,
            error.requested,
            error.allowed,
            error.field,
        )
        assert "group size 5" in error.message
        assert "allowed group size 4" in error.message

    def test_capacity_exceeded(self):
        """BOOKING-138 carries the requested and current capacity and maps to HTTP 409."""
        error = CapacityExceeded(requested=3, allowed=2)

        assert ("BOOKING-138", 409, 3, 2) == (
            error.code,
            error.http_status,
            error.requested,
            error.allowed,
        )
        assert "requested capacity 3" in error.message
        assert "current capacity 2" in error.message


class TestDataFields:
    def test_not_found_keeps_kind_and_id(self):
        """NotFound keeps the kind and record id and is a LookupError."""
        error = NotFound(kind="Service", record_id="s1")

        assert ("Service", "s1") == (error.kind, error.record_id)
        assert isinstance(error, LookupError)

    def test_not_found_is_caught_as_lookup_error(self):
        """`except LookupError` catches NotFound."""
        with pytest.raises(LookupError):
            raise NotFound(kind="Resource", record_id="r1")

    def test_unauthorized_is_a_permission_error(self):
        """Unauthorized is a PermissionError that names only what the caller sent."""
        error = Unauthorized(field="location_id", value="l2")

        assert isinstance(error, PermissionError)
        assert ("location_id", "l2") == (error.field, error.value)

    def test_missing_dependency_is_an_import_error(self):
        """MissingDependency is an ImportError naming the extra to install."""
        error = MissingDependency(feature="SQLStore", extra="sql")

        assert isinstance(error, ImportError)
        assert ("SQLStore", "sql") == (error.feature, error.extra)

    def test_range_errors_keep_start_and_end(self):
        """Time and date range errors keep both ends."""
        times = InvalidTimeRange(field="start_time", start=1000, end=900)
        dates = InvalidDateRange(field="start_date", start=date(2026, 2, 1), end=date(2026, 1, 1))

        assert (1000, 900) == (times.start, times.end)
        assert (date(2026, 2, 1), date(2026, 1, 1)) == (dates.start, dates.end)

    def test_invalid_format_keeps_expected(self):
        """InvalidFormat keeps what was expected and what came."""
        error = InvalidFormat(field="email", expected="an e-mail address", value="x")

        assert ("an e-mail address", "x") == (error.expected, error.value)


class TestToDict:
    def test_plain_error(self):
        """A plain error serialises to its code and message."""
        assert {"code": "STORE", "message": "write failed"} == StoreError("write failed").to_dict()

    def test_length_error(self):
        """FieldTooLong serialises field, limit and requested."""
        error = FieldTooLong(field="name", limit=50, requested=51)

        assert {
            "code": "FIELD-TOO-LONG",
            "message": error.message,
            "field": "name",
            "limit": 50,
            "requested": 51,
        } == error.to_dict()

    def test_group_size_error(self):
        """GroupSizeExceeded serialises field, requested and allowed."""
        error = GroupSizeExceeded(requested=5, allowed=4)

        assert {
            "code": "BOOKING-408",
            "message": error.message,
            "field": "group_size",
            "requested": 5,
            "allowed": 4,
        } == error.to_dict()

    def test_choice_error(self):
        """InvalidChoice serialises the allowed choices and the requested value."""
        error = InvalidChoice(field="interval", allowed=(1, 5), requested=7)

        assert {
            "code": "INVALID-CHOICE",
            "message": error.message,
            "field": "interval",
            "allowed": [1, 5],
            "requested": 7,
        } == error.to_dict()

    def test_format_error_has_value(self):
        """InvalidFormat serialises the offending value."""
        error = InvalidFormat(field="weekdays", expected="digits", value="7")

        assert {"field": "weekdays", "value": "7"}.items() <= error.to_dict().items()

    def test_none_fields_are_left_out(self):
        """A ValidationError without a field does not serialise field: None."""
        assert "field" not in ValidationError("bad").to_dict()

    def test_data_fields_are_json_data_whatever_was_sent(self):
        """Dates, enums, sets, records and nan sent by a caller come out as JSON data."""
        from slotwise import AppointmentStatus, DayWindow

        sent: dict[str, object] = {
            "date": date(1800, 1, 1),
            "utc": datetime(2026, 1, 5, 12, 30, tzinfo=UTC),
            "offset": datetime(2026, 1, 5, 12, 30, tzinfo=timezone(timedelta(hours=-5))),
            "status": AppointmentStatus.BOOKED,
            "set": {AppointmentStatus.CANCELLED, AppointmentStatus.BOOKED},
            "records": [DayWindow(start_time=900, end_time=1700)],
            "nan": float("nan"),
            "keys": {1: ("a", "b")},
            "other": object,
        }
        error = InvalidFormat(field="weekly_hours", expected="a DayWindow", value=sent)

        assert {
            "date": "1800-01-01",
            "utc": "2026-01-05T12:30:00Z",
            "offset": "2026-01-05T12:30:00-05:00",
            "status": "BK",
            "set": ["BK", "CN"],
            "records": [{"start_time": 900, "end_time": 1700}],
            "nan": "nan",
            "keys": {"1": ["a", "b"]},
            "other": "<class 'object'>",
        } == error.to_dict()["value"]
        assert error.to_dict() == json.loads(json.dumps(error.to_dict(), allow_nan=False))

    def test_requested_date_is_iso_text(self):
        """An out-of-range date is quoted as ISO 8601 text, the message keeps its repr."""
        error = OutOfRange(
            field="start_date", allowed="1900-01-01..9999-12-31", requested=date(1800, 1, 1)
        )

        assert "1800-01-01" == error.to_dict()["requested"]
        assert "datetime.date(1800, 1, 1)" in error.message

    def test_not_found_has_no_data_fields(self):
        """NotFound serialises code and message only (kind and id are in the message)."""
        assert {"code", "message"} == set(NotFound(kind="Service", record_id="s1").to_dict())
