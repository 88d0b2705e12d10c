"""Appointment records (slotwise.model.appointments): instants, statuses, contact and field values."""

from __future__ import annotations

import datetime as datetime_module
from datetime import UTC, datetime, timedelta, timezone
from typing import Any
from zoneinfo import ZoneInfo

import attrs
import pytest

import slotwise
from slotwise.errors import (
    FieldRequired,
    FieldTooLong,
    FieldTooShort,
    InvalidChoice,
    InvalidFormat,
    InvalidTimeRange,
    NaiveDatetime,
    OutOfRange,
)
from slotwise.model import ACTIVE_STATUSES, Appointment, AppointmentStatus, FieldValue

NAMESPACE: dict[str, Any] = {name: getattr(slotwise, name) for name in slotwise.__all__}
NAMESPACE["datetime"] = datetime_module

START = datetime(2026, 1, 5, 14, tzinfo=UTC)
END = START + timedelta(minutes=30)
CREATED = datetime(2026, 1, 5, 9, tzinfo=UTC)


def make_appointment(**changes: Any) -> Appointment:
    """Return a valid booked 30-minute appointment with *changes* applied."""
    fields = {"id": "a1", "company_id": "c1", "location_id": "l1", "service_id": "s1"}
    times = {"start": START, "end": END, "created_at": CREATED}
    return Appointment(**{**fields, **times, "status": "BK", **changes})


def field_value(**fields: Any) -> FieldValue:
    """Return a booking-field value built from untyped *fields*."""
    return FieldValue(**fields)


class TestSpan:
    def test_end_after_start(self):
        """An appointment one minute long is accepted."""
        appointment = make_appointment(end=START + timedelta(minutes=1))

        assert 1 == appointment.duration_minutes

    def test_end_equal_to_start(self):
        """An appointment ending when it starts is refused, naming end."""
        with pytest.raises(InvalidTimeRange) as info:
            make_appointment(end=START)

        assert ("end", START, START) == (info.value.field, info.value.start, info.value.end)

    def test_end_before_start(self):
        """An appointment ending before it starts is refused."""
        with pytest.raises(InvalidTimeRange) as info:
            make_appointment(end=START - timedelta(microseconds=1))

        assert "end" == info.value.field

    def test_zones_compare_as_instants(self):
        """Aware start and end in different zones compare as instants."""
        end = datetime(2026, 1, 5, 9, 30, tzinfo=ZoneInfo("America/New_York"))

        assert 30 == make_appointment(end=end).duration_minutes


class TestAware:
    @pytest.mark.parametrize(
        "field", ["start", "end", "created_at", "hold_expires_at", "last_modified_at"]
    )
    def test_naive_refused(self, field: str):
        """Every appointment instant must be aware (STYLE rule 22)."""
        naive = getattr(make_appointment(), field) or START
        with pytest.raises(NaiveDatetime) as info:
            make_appointment(**{field: naive.replace(tzinfo=None)})

        assert field == info.value.field

    @pytest.mark.parametrize("field", ["start", "end", "created_at"])
    def test_strings_refused(self, field: str):
        """ISO strings are not datetimes here."""
        with pytest.raises(InvalidFormat) as info:
            make_appointment(**{field: "2026-01-05T14:00:00Z"})

        assert field == info.value.field

    def test_fixed_offset_accepted(self):
        """A fixed UTC offset counts as aware."""
        start = datetime(2026, 1, 5, 15, tzinfo=timezone(timedelta(hours=1)))

        assert start == make_appointment(start=start).start


class TestStatus:
    @pytest.mark.parametrize(
        ("code", "member"),
        [
            ("IN", AppointmentStatus.INITIAL),
            ("BK", AppointmentStatus.BOOKED),
            ("RS", AppointmentStatus.RESERVED),
            ("CN", AppointmentStatus.CANCELLED),
            ("RE", AppointmentStatus.RESCHEDULED),
            ("NS", AppointmentStatus.NO_SHOW),
        ],
    )
    def test_codes(self, code: str, member: AppointmentStatus):
        """The spec's status codes convert to AppointmentStatus."""
        assert member is make_appointment(status=code).status

    @pytest.mark.parametrize("code", ["XX", "bk", "", None])
    def test_unknown_code(self, code: object):
        """Other codes raise InvalidChoice naming status, not a bare ValueError."""
        with pytest.raises(InvalidChoice) as info:
            make_appointment(status=code)

        assert ("status", 6, code) == (
            info.value.field,
            len(info.value.allowed),
            info.value.requested,
        )

    def test_active_statuses(self):
        """BK, RS and NS always take capacity (decision 8)."""
        assert {
            AppointmentStatus.BOOKED,
            AppointmentStatus.RESERVED,
            AppointmentStatus.NO_SHOW,
        } == ACTIVE_STATUSES

    @pytest.mark.parametrize(
        ("code", "active"),
        [("BK", True), ("RS", True), ("NS", True), ("CN", False), ("RE", False)],
    )
    def test_is_active(self, code: str, active: bool):
        """Booked, reserved and no-show take capacity; cancelled and rescheduled never do."""
        assert active == make_appointment(status=code).is_active(START)

    def test_hold_active_until_expiry(self):
        """An IN hold takes capacity strictly before hold_expires_at and not at it."""
        expires = CREATED + timedelta(minutes=10)
        held = make_appointment(status="IN", hold_expires_at=expires)

        assert (True, False) == (
            held.is_active(expires - timedelta(microseconds=1)),
            held.is_active(expires),
        )

    def test_hold_without_expiry(self):
        """An IN appointment without an expiry keeps taking capacity."""
        assert make_appointment(status="IN").is_active(START)


class TestNumbers:
    @pytest.mark.parametrize("value", [1, 10_000])
    def test_group_size_accepted(self, value: int):
        """group_size runs 1..10000."""
        assert value == make_appointment(group_size=value).group_size

    @pytest.mark.parametrize("value", [0, 10_001])
    def test_group_size_refused(self, value: int):
        """0 and 10001 people are refused."""
        with pytest.raises(OutOfRange) as info:
            make_appointment(group_size=value)

        assert ("group_size", value) == (info.value.field, info.value.requested)

    @pytest.mark.parametrize("value", [True, 2.0])
    def test_group_size_must_be_int(self, value: object):
        """A bool or float group size is refused."""
        with pytest.raises(InvalidFormat) as info:
            make_appointment(group_size=value)

        assert "group_size" == info.value.field

    def test_payment_status_limits(self):
        """payment_status runs 0..100."""
        assert 100 == make_appointment(payment_status=100).payment_status
        with pytest.raises(OutOfRange) as info:
            make_appointment(payment_status=101)

        assert "payment_status" == info.value.field


class TestContact:
    @pytest.mark.parametrize(
        ("field", "limit"),
        [
            ("booked_by", 255),
            ("first_name", 255),
            ("last_name", 255),
            ("phone_type", 32),
            ("phone_ext", 10),
            ("customer_message", 4000),
            ("location_text", 255),
        ],
    )
    def test_text_limits(self, field: str, limit: int):
        """Each text field is accepted at its limit and refused one past it."""
        assert limit == len(getattr(make_appointment(**{field: "t" * limit}), field))
        with pytest.raises(FieldTooLong) as info:
            make_appointment(**{field: "t" * (limit + 1)})

        assert (field, limit, limit + 1) == (
            info.value.field,
            info.value.limit,
            info.value.requested,
        )

    def test_phone_limits(self):
        """An appointment phone takes 7..15 characters (spec: Limits)."""
        assert "5551234" == make_appointment(phone="5551234").phone
        with pytest.raises(FieldTooShort) as short:
            make_appointment(phone="555123")
        with pytest.raises(FieldTooLong) as long:
            make_appointment(phone="1" * 16)

        assert (7, 15) == (short.value.limit, long.value.limit)

    def test_email_is_text(self):
        """An appointment e-mail is text up to 255 characters: booking checks the address (decision 34)."""
        assert "front desk" == make_appointment(email="front desk").email
        with pytest.raises(FieldTooLong) as long:
            make_appointment(email="x" * 256)
        with pytest.raises(InvalidFormat) as info:
            make_appointment(email=5)

        assert (255, "email") == (long.value.limit, info.value.field)

    @pytest.mark.parametrize("field", ["online_booking", "confirmed"])
    def test_flags_must_be_bool(self, field: str):
        """Boolean fields take real bools."""
        with pytest.raises(InvalidFormat) as info:
            make_appointment(**{field: 1})

        assert field == info.value.field

    def test_name(self):
        """name joins first and last name."""
        assert "Ada Lovelace" == make_appointment(first_name="Ada", last_name="Lovelace").name


class TestResources:
    def test_resource_ids(self):
        """resource_ids become a tuple; resource_id is the first."""
        appointment = make_appointment(resource_ids=["r2", "r1"])

        assert (("r2", "r1"), "r2") == (appointment.resource_ids, appointment.resource_id)

    def test_no_resource(self):
        """Without resources resource_id is None."""
        assert make_appointment().resource_id is None

    @pytest.mark.parametrize("value", ["r1", [1], None])
    def test_bad_resource_ids(self, value: object):
        """A lone string, non-string ids or None are refused, naming resource_ids."""
        with pytest.raises(InvalidFormat) as info:
            make_appointment(resource_ids=value)

        assert "resource_ids" == info.value.field


class TestCustomFields:
    def test_field1_to_field10(self):
        """customFields keys field1 and field10 are accepted (spec: Appointment)."""
        appointment = make_appointment(custom_fields={"field1": "a", "field10": "b"})

        assert {"field1": "a", "field10": "b"} == appointment.custom_fields

    def test_field11_refused(self):
        """field11 is refused."""
        with pytest.raises(InvalidFormat) as info:
            make_appointment(custom_fields={"field11": "x"})

        assert ("custom_fields", "field11") == (info.value.field, info.value.value)

    def test_none_is_empty(self):
        """custom_fields None is stored as an empty mapping."""
        assert {} == make_appointment(custom_fields=None).custom_fields


class TestFieldValue:
    def test_name_limits(self):
        """A field value's name is required, accepted at 64 and refused at 65."""
        assert 64 == len(field_value(name="n" * 64, value="v").name)
        with pytest.raises(FieldTooLong) as info:
            field_value(name="n" * 65, value="v")
        with pytest.raises(FieldRequired):
            field_value(name="", value="v")

        assert ("name", 64) == (info.value.field, info.value.limit)

    def test_value_limits(self):
        """A field value is accepted at 4000 characters and refused at 4001; blank is fine."""
        assert "" == field_value(name="n", value="").value
        assert 4000 == len(field_value(name="n", value="v" * 4000).value)
        with pytest.raises(FieldTooLong) as info:
            field_value(name="n", value="v" * 4001)

        assert ("value", 4000) == (info.value.field, info.value.limit)

    def test_booking_fields_become_tuples(self):
        """Booking field lists are stored as tuples."""
        values = [FieldValue(name="size", value="M")]
        appointment = make_appointment(
            appointment_booking_fields=values, customer_booking_fields=values
        )

        assert (tuple(values), tuple(values)) == (
            appointment.appointment_booking_fields,
            appointment.customer_booking_fields,
        )


class TestReprs:
    def test_repr_is_valid_python(self):
        """An appointment repr, custom fields included, evaluates back to an equal record."""
        appointment = make_appointment(
            status=AppointmentStatus.INITIAL,
            resource_ids=["r1"],
            hold_expires_at=CREATED + timedelta(minutes=10),
            custom_fields={"field2": "x"},
            appointment_booking_fields=[FieldValue(name="size", value="M")],
        )

        assert appointment == eval(repr(appointment), NAMESPACE)
        assert appointment == attrs.evolve(appointment)

    def test_enum_repr(self):
        """Status reprs read AppointmentStatus.MEMBER."""
        assert "AppointmentStatus.NO_SHOW" == repr(AppointmentStatus.NO_SHOW)
