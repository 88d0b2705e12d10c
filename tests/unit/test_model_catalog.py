"""Services, service groups and calendars (slotwise.model.catalog, slotwise.model.calendar)."""

from __future__ import annotations

from typing import Any

import attrs
import pytest

import slotwise
from slotwise.errors import (
    FieldRequired,
    FieldTooLong,
    InconsistentFields,
    InvalidChoice,
    InvalidFormat,
    OutOfRange,
)
from slotwise.model import (
    SLOT_INTERVALS,
    BookingWindow,
    Calendar,
    DayWindow,
    RoundRobin,
    Service,
    ServiceGroup,
    ServiceScope,
    ServiceType,
    WeeklyHours,
)

NAMESPACE: dict[str, Any] = {name: getattr(slotwise, name) for name in slotwise.__all__}


def make_service(**changes: Any) -> Service:
    """Return a valid 30-minute service with *changes* applied."""
    fields = {"id": "s1", "company_id": "c1", "location_id": "l1", "name": "Massage"}
    return Service(**{**fields, "duration": 30, **changes})


def make_group(**changes: Any) -> ServiceGroup:
    """Return a valid service group with *changes* applied."""
    return ServiceGroup(**{"id": "g1", "company_id": "c1", "name": "Spa", **changes})


def make_calendar(**changes: Any) -> Calendar:
    """Return a valid calendar with *changes* applied."""
    fields = {"id": "cal1", "company_id": "c1", "location_id": "l1", "name": "Main"}
    return Calendar(**{**fields, **changes})


SERVICE_INTS = [
    ("duration", 1, 10_080),
    ("padding", 0, 1440),
    ("booking_limit", 0, 1000),
    ("daily_booking_limit_count", 0, 1000),
    ("daily_booking_limit_minutes", 0, 1440),
    ("max_booking_limit", 0, 1000),
    ("max_resource_booking_limit", 0, 1000),
]
OPTIONAL_DURATIONS = ["duration_min", "duration_max", "duration_interval"]


class TestServiceName:
    def test_at_limit(self):
        """A 255-character service name is accepted by the record (spec: Errors 2)."""
        assert 255 == len(make_service(name="s" * 255).name)

    def test_one_past_limit(self):
        """A 256-character service name is refused."""
        with pytest.raises(FieldTooLong) as info:
            make_service(name="s" * 256)

        assert ("name", 255, 256) == (info.value.field, info.value.limit, info.value.requested)

    @pytest.mark.parametrize("name", ["", "  "])
    def test_required(self, name: str):
        """A blank service name is refused (spec: Errors 1)."""
        with pytest.raises(FieldRequired) as info:
            make_service(name=name)

        assert "name" == info.value.field


class TestServiceNumbers:
    def test_duration_zero_refused(self):
        """A duration of 0 is refused: it must be greater than 0 (spec: Errors 1)."""
        with pytest.raises(OutOfRange) as info:
            make_service(duration=0)

        assert ("duration", 0) == (info.value.field, info.value.requested)

    def test_duration_one_accepted(self):
        """A one-minute duration is accepted."""
        assert 1 == make_service(duration=1).duration

    @pytest.mark.parametrize(("field", "low", "high"), SERVICE_INTS)
    def test_int_limits_accepted(self, field: str, low: int, high: int):
        """Each integer field accepts both ends of its range."""
        assert low == getattr(make_service(**{field: low}), field)
        assert high == getattr(make_service(**{field: high}), field)

    @pytest.mark.parametrize(("field", "low", "high"), SERVICE_INTS)
    def test_int_limits_refused(self, field: str, low: int, high: int):
        """Each integer field refuses one below and one above its range."""
        for value in (low - 1, high + 1):
            with pytest.raises(OutOfRange) as info:
                make_service(**{field: value})

            assert (field, value, f"between {low} and {high}") == (
                info.value.field,
                info.value.requested,
                info.value.allowed,
            )

    @pytest.mark.parametrize("field", [name for name, _, _ in SERVICE_INTS])
    def test_ints_refuse_bools(self, field: str):
        """A bool is not an integer here."""
        with pytest.raises(InvalidFormat) as info:
            make_service(**{field: True})

        assert field == info.value.field

    @pytest.mark.parametrize("field", OPTIONAL_DURATIONS)
    def test_optional_duration_limits(self, field: str):
        """duration_min/max/interval are None or 1..10080."""
        assert getattr(make_service(**{field: None}), field) is None
        assert 10_080 == getattr(make_service(**{field: 10_080}), field)
        for value in (0, 10_081):
            with pytest.raises(OutOfRange) as info:
                make_service(**{field: value})

            assert field == info.value.field

    @pytest.mark.parametrize("field", ["fee_amount", "cancellation_fee_amount"])
    def test_fees(self, field: str):
        """Fees are finite numbers of at least 0: 0 and 12.5 pass, -0.01 is refused."""
        assert 0 == getattr(make_service(**{field: 0}), field)
        assert 12.5 == getattr(make_service(**{field: 12.5}), field)
        with pytest.raises(OutOfRange) as info:
            make_service(**{field: -0.01})

        assert (field, -0.01) == (info.value.field, info.value.requested)

    @pytest.mark.parametrize("value", [float("nan"), float("inf"), True, "10"])
    def test_fees_refuse_non_numbers(self, value: object):
        """NaN, infinity, bools and strings are not fees."""
        with pytest.raises(InvalidFormat) as info:
            make_service(fee_amount=value)

        assert "fee_amount" == info.value.field

    @pytest.mark.parametrize("interval", [None, *SLOT_INTERVALS])
    def test_booking_interval_choices(self, interval: int | None):
        """The booking interval is unset or one of 1, 5, 10, 15, 20, 30, 60."""
        assert interval == make_service(booking_interval=interval).booking_interval

    @pytest.mark.parametrize("interval", [0, 2, 45, 61, True, 15.0])
    def test_booking_interval_refused(self, interval: object):
        """Other intervals, and True or 15.0 that merely compare equal, are refused."""
        with pytest.raises(InvalidChoice) as info:
            make_service(booking_interval=interval)

        assert ("booking_interval", SLOT_INTERVALS) == (info.value.field, info.value.allowed)


class TestGroupLimits:
    @pytest.mark.parametrize(("capacity", "group_size"), [(0, 0), (1, 1), (5, 5), (5, 1)])
    def test_consistent_pairs(self, capacity: int, group_size: int):
        """Both 0, or a group size up to the capacity, is accepted (spec: Errors 1)."""
        service = make_service(max_capacity=capacity, max_group_size=group_size)

        assert (capacity, group_size) == (service.max_capacity, service.max_group_size)

    @pytest.mark.parametrize(("capacity", "group_size"), [(1, 0), (0, 1), (5, 6)])
    def test_inconsistent_pairs(self, capacity: int, group_size: int):
        """One zero and one positive, or a group above the capacity, is refused."""
        with pytest.raises(InconsistentFields) as info:
            make_service(max_capacity=capacity, max_group_size=group_size)

        assert "max_group_size" == info.value.field
        assert str(group_size) in info.value.message

    @pytest.mark.parametrize("field", ["max_capacity", "max_group_size"])
    def test_upper_bound(self, field: str):
        """Capacity and group size stop at 10000."""
        limits = make_service(max_capacity=10_000, max_group_size=10_000)
        assert 10_000 == getattr(limits, field)

        with pytest.raises(OutOfRange) as info:
            make_service(**{"max_capacity": 10_000, "max_group_size": 10_000, field: 10_001})

        assert field == info.value.field

    def test_allows_groups(self):
        """allows_groups is true only with a positive group size."""
        assert (False, True) == (
            make_service().allows_groups,
            make_service(max_capacity=4, max_group_size=2).allows_groups,
        )


class TestDurations:
    @pytest.mark.parametrize(("low", "high"), [(30, 30), (30, 90), (15, 240), (1, 10_080)])
    def test_divisible(self, low: int, high: int):
        """duration_max evenly divisible by duration_min is accepted (spec: Errors 1)."""
        service = make_service(duration_select=True, duration_min=low, duration_max=high)

        assert (low, high) == (service.duration_min, service.duration_max)

    @pytest.mark.parametrize(("low", "high"), [(30, 100), (30, 31), (7, 50)])
    def test_not_divisible(self, low: int, high: int):
        """duration_max not divisible by duration_min is refused."""
        with pytest.raises(InconsistentFields) as info:
            make_service(duration_min=low, duration_max=high)

        assert "duration_max" == info.value.field
        assert "divisible" in info.value.message

    def test_max_below_min(self):
        """duration_max below duration_min is refused."""
        with pytest.raises(InconsistentFields) as info:
            make_service(duration_min=30, duration_max=20)

        assert "duration_max" == info.value.field

    @pytest.mark.parametrize(
        "fields", [{}, {"duration_min": 15}, {"duration_max": 60}], ids=["none", "min", "max"]
    )
    def test_select_needs_both(self, fields: dict[str, int]):
        """duration_select needs both duration_min and duration_max."""
        with pytest.raises(InconsistentFields) as info:
            make_service(duration_select=True, **fields)

        assert "duration_select" == info.value.field


class TestServiceChoices:
    def test_codes_convert(self):
        """Spec codes convert to the enums."""
        service = make_service(type="event", scope="company", round_robin="random")

        assert (ServiceType.EVENT, ServiceScope.COMPANY, RoundRobin.RANDOM) == (
            service.type,
            service.scope,
            service.round_robin,
        )
        assert service.is_event

    @pytest.mark.parametrize(
        ("field", "allowed"),
        [
            ("type", ("appointment", "event")),
            ("scope", ("company", "location")),
            ("round_robin", ("none", "balanced", "random")),
        ],
    )
    def test_unknown_codes_refused(self, field: str, allowed: tuple[str, ...]):
        """An unknown code raises InvalidChoice naming the field, not a bare ValueError."""
        with pytest.raises(InvalidChoice) as info:
            make_service(**{field: "bogus"})

        assert (field, allowed, "bogus") == (
            info.value.field,
            info.value.allowed,
            info.value.requested,
        )

    def test_defaults(self):
        """A new service is an appointment, location-scoped, balanced, one person per booking."""
        service = make_service()

        assert (
            ServiceType.APPOINTMENT,
            ServiceScope.LOCATION,
            RoundRobin.BALANCED,
            0,
            0,
        ) == (
            service.type,
            service.scope,
            service.round_robin,
            service.booking_limit,
            service.max_group_size,
        )


class TestServiceText:
    @pytest.mark.parametrize(
        ("field", "limit"), [("description", 4000), ("image_url", 2048), ("reason", 255)]
    )
    def test_limits(self, field: str, limit: int):
        """Each text field is accepted at its limit and refused one past it."""
        assert limit == len(getattr(make_service(**{field: "d" * limit}), field))
        with pytest.raises(FieldTooLong) as info:
            make_service(**{field: "d" * (limit + 1)})

        assert (field, limit, limit + 1) == (
            info.value.field,
            info.value.limit,
            info.value.requested,
        )

    @pytest.mark.parametrize(
        "field",
        [
            "show_online",
            "default_service",
            "duration_select",
            "consumer_padding",
            "fee_taxable",
            "cancellation_fee_taxable",
            "non_refundable",
        ],
    )
    def test_flags_must_be_bool(self, field: str):
        """Boolean fields take real bools."""
        with pytest.raises(InvalidFormat) as info:
            make_service(**{field: 0})

        assert field == info.value.field

    def test_options_are_read_only(self):
        """options is stored as a read-only mapping equal to what was given."""
        service = make_service(options={"color": "blue"})

        assert {"color": "blue"} == service.options
        with pytest.raises(TypeError):
            service.options["color"] = "red"  # type: ignore[index]

    def test_booking_window_override(self):
        """A service may carry its own booking window (decision 11)."""
        window = BookingWindow(book_ahead_unit="days", book_ahead_value=3)

        assert window == make_service(booking_window=window).booking_window


class TestServiceGroup:
    def test_name_limit(self):
        """A group name is required, accepted at 255 and refused at 256."""
        assert 255 == len(make_group(name="g" * 255).name)
        with pytest.raises(FieldTooLong) as info:
            make_group(name="g" * 256)
        with pytest.raises(FieldRequired):
            make_group(name="")

        assert ("name", 255) == (info.value.field, info.value.limit)

    @pytest.mark.parametrize(
        ("field", "limit"), [("description", 4000), ("label", 255), ("image_url", 2048)]
    )
    def test_text_limits(self, field: str, limit: int):
        """Group text fields are accepted at their limit and refused one past it."""
        assert limit == len(getattr(make_group(**{field: "x" * limit}), field))
        with pytest.raises(FieldTooLong) as info:
            make_group(**{field: "x" * (limit + 1)})

        assert (field, limit) == (info.value.field, info.value.limit)


class TestCalendar:
    def test_defaults(self):
        """A calendar defaults to 1 booking per slot, a 15-minute grid and 24x7 availability."""
        calendar = make_calendar()

        assert (1, 15, WeeklyHours.always()) == (
            calendar.bookings_per_slot,
            calendar.interval,
            calendar.availability,
        )

    @pytest.mark.parametrize("value", [1, 20])
    def test_bookings_per_slot_limits(self, value: int):
        """bookings_per_slot accepts 1 and 20 (decision 8)."""
        assert value == make_calendar(bookings_per_slot=value).bookings_per_slot

    @pytest.mark.parametrize("value", [0, 21])
    def test_bookings_per_slot_refused(self, value: int):
        """bookings_per_slot refuses 0 and 21."""
        with pytest.raises(OutOfRange) as info:
            make_calendar(bookings_per_slot=value)

        assert ("bookings_per_slot", value, "between 1 and 20") == (
            info.value.field,
            info.value.requested,
            info.value.allowed,
        )

    @pytest.mark.parametrize("interval", SLOT_INTERVALS)
    def test_interval_choices(self, interval: int):
        """The slot grid step is one of 1, 5, 10, 15, 20, 30, 60 (decision 6)."""
        assert interval == make_calendar(interval=interval).interval

    @pytest.mark.parametrize("interval", [0, 2, 45, 90, True, 15.0, "15"])
    def test_interval_refused(self, interval: object):
        """Other steps, and values merely equal to an allowed one, are refused."""
        with pytest.raises(InvalidChoice) as info:
            make_calendar(interval=interval)

        assert ("interval", SLOT_INTERVALS, interval) == (
            info.value.field,
            info.value.allowed,
            info.value.requested,
        )

    def test_type_choices(self):
        """A calendar is a resource or service calendar."""
        assert "service" == make_calendar(type="service").type
        with pytest.raises(InvalidChoice) as info:
            make_calendar(type="room")

        assert "type" == info.value.field

    def test_name_required(self):
        """A calendar needs a name."""
        with pytest.raises(FieldRequired) as info:
            make_calendar(name="")

        assert "name" == info.value.field


class TestReprs:
    @pytest.mark.parametrize(
        "value",
        [
            make_service(
                type=ServiceType.EVENT,
                options={"color": "blue"},
                availability=WeeklyHours(mon=DayWindow.all_day()),
                booking_window=BookingWindow(book_ahead_unit="months", book_ahead_value=2),
            ),
            make_group(label="Relax"),
            make_calendar(interval=30),
        ],
        ids=lambda value: type(value).__name__,
    )
    def test_reprs_are_valid_python(self, value: Any):
        """Record reprs evaluate back to equal records, options included (STYLE rule 34)."""
        assert value == eval(repr(value), NAMESPACE)
        assert value == attrs.evolve(value)

    @pytest.mark.parametrize(
        ("member", "text"),
        [
            (ServiceType.EVENT, "ServiceType.EVENT"),
            (ServiceScope.COMPANY, "ServiceScope.COMPANY"),
            (RoundRobin.NONE, "RoundRobin.NONE"),
        ],
    )
    def test_enum_reprs(self, member: object, text: str):
        """Enum reprs read Class.MEMBER."""
        assert text == repr(member)
