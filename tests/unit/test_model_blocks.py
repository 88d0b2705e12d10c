"""Blocks, allocations and repeat rules (slotwise.model.blocks)."""

from __future__ import annotations

import datetime as datetime_module
from datetime import date, datetime
from typing import Any

import attrs
import pytest

import slotwise
from slotwise.errors import (
    FieldRequired,
    FieldTooLong,
    InconsistentFields,
    InvalidChoice,
    InvalidDateRange,
    InvalidFormat,
    InvalidTimeOfDay,
    InvalidTimeRange,
    OutOfRange,
)
from slotwise.model import (
    OPEN_END,
    Allocation,
    AllocationTarget,
    Block,
    BlockTarget,
    Frequency,
    MonthType,
    RepeatRule,
)
from slotwise.model.blocks import parse_end_date

NAMESPACE: dict[str, Any] = {name: getattr(slotwise, name) for name in slotwise.__all__}
NAMESPACE["datetime"] = datetime_module

JAN_1 = date(2026, 1, 1)
JAN_2 = date(2026, 1, 2)


def make_block(**changes: Any) -> Block:
    """Return a valid one-day resource block with *changes* applied."""
    fields = {"id": "b1", "company_id": "c1", "location_id": "l1", "target_id": "r1"}
    return Block(
        **{**fields, "target": "resource", "start_date": JAN_1, "end_date": JAN_1, **changes}
    )


def make_allocation(**changes: Any) -> Allocation:
    """Return a valid one-day service allocation with *changes* applied."""
    fields = {"id": "a1", "company_id": "c1", "location_id": "l1", "target_id": "s1"}
    return Allocation(
        **{**fields, "target": "service", "start_date": JAN_1, "end_date": JAN_1, **changes}
    )


def rule(**fields: Any) -> RepeatRule:
    """Return a repeat rule built from untyped *fields* (invalid input on purpose)."""
    return RepeatRule(**fields)


class TestFrequency:
    @pytest.mark.parametrize(
        ("code", "member"),
        [
            ("D", Frequency.DAILY),
            ("W", Frequency.WEEKLY),
            ("M", Frequency.MONTHLY),
            ("Y", Frequency.YEARLY),
        ],
    )
    def test_codes(self, code: str, member: Frequency):
        """The spec's codes D, W, M, Y convert to frequencies."""
        weekdays = "1" if member is Frequency.WEEKLY else ""

        assert member is rule(frequency=code, weekdays=weekdays).frequency

    @pytest.mark.parametrize("code", ["X", "d", "", None])
    def test_unknown_code(self, code: object):
        """Other frequency codes raise InvalidChoice naming frequency."""
        with pytest.raises(InvalidChoice) as info:
            rule(frequency=code)

        assert ("frequency", ("D", "W", "M", "Y"), code) == (
            info.value.field,
            info.value.allowed,
            info.value.requested,
        )


class TestInterval:
    @pytest.mark.parametrize("interval", [1, 99])
    def test_limits_accepted(self, interval: int):
        """The interval runs 1..99."""
        assert interval == rule(frequency="D", interval=interval).interval

    @pytest.mark.parametrize("interval", [0, 100])
    def test_limits_refused(self, interval: int):
        """0 and 100 are refused."""
        with pytest.raises(OutOfRange) as info:
            rule(frequency="D", interval=interval)

        assert ("interval", interval, "between 1 and 99") == (
            info.value.field,
            info.value.requested,
            info.value.allowed,
        )


class TestWeekdays:
    def test_digit_string(self):
        """The spec's digit string '125' means Monday, Tuesday and Friday (0 = Sunday)."""
        weekly = rule(frequency="W", weekdays="125")

        assert (frozenset({1, 2, 5}), "125") == (weekly.weekdays, weekly.weekday_digits)

    def test_iterable_and_int(self):
        """An iterable of digits, or an int of digits, is accepted too."""
        assert (
            rule(frequency="W", weekdays=[5, 1]).weekdays
            == rule(frequency="W", weekdays=15).weekdays
        )

    @pytest.mark.parametrize("value", ["0", "6", "0123456"])
    def test_digit_bounds_accepted(self, value: str):
        """0 (Sunday) and 6 (Saturday) are the outer digits."""
        assert value == rule(frequency="W", weekdays=value).weekday_digits

    @pytest.mark.parametrize("value", ["7", "17", "1,2", "mon", [7], [-1], True])
    def test_other_digits_refused(self, value: object):
        """Digits outside 0..6 and non-digits are refused, naming weekdays."""
        with pytest.raises(InvalidFormat) as info:
            rule(frequency="W", weekdays=value)

        assert "weekdays" == info.value.field

    @pytest.mark.parametrize("value", ["", [], frozenset()])
    def test_weekly_needs_weekdays(self, value: object):
        """A weekly repeat without weekdays is refused (decision 17)."""
        with pytest.raises(FieldRequired) as info:
            rule(frequency="W", weekdays=value)

        assert "weekdays" == info.value.field

    @pytest.mark.parametrize("frequency", ["D", "M", "Y"])
    def test_weekdays_only_on_weekly(self, frequency: str):
        """Weekdays on a non-weekly repeat are refused."""
        with pytest.raises(InconsistentFields) as info:
            rule(frequency=frequency, weekdays="1")

        assert "weekdays" == info.value.field


class TestMonthDay:
    @pytest.mark.parametrize("value", [None, 1, 31])
    def test_day_of_month_accepted(self, value: int | None):
        """A monthly repeat by day takes 1..31, or None for the start date's day."""
        assert value == rule(frequency="M", month_day=value).month_day

    @pytest.mark.parametrize(("text", "day"), [("15", 15), ("1", 1), ("43", 43)])
    def test_the_answers_digit_string_reads_as_the_day(self, text: str, day: int):
        """The spec answers monthDay as a string: "15" reads back as 15 (a patch of GET's form)."""
        month_type = "W" if day == 43 else "D"

        assert day == rule(frequency="M", month_type=month_type, month_day=text).month_day

    @pytest.mark.parametrize("text", ["", "1.5", "015", "x1", "\u0661"])
    def test_other_text_is_refused(self, text: str):
        """Only one or two ASCII digits read as a day; other text is a wrong type, named."""
        with pytest.raises(InvalidFormat) as info:
            rule(frequency="M", month_day=text)

        assert "month_day" == info.value.field

    @pytest.mark.parametrize("value", [0, 32])
    def test_day_of_month_refused(self, value: int):
        """0 and 32 are refused for a day-of-month repeat."""
        with pytest.raises(OutOfRange) as info:
            rule(frequency="M", month_type="D", month_day=value)

        assert ("month_day", value, "between 1 and 31") == (
            info.value.field,
            info.value.requested,
            info.value.allowed,
        )

    @pytest.mark.parametrize("value", [1, 43, 65, None])
    def test_nth_weekday_accepted(self, value: int | None):
        """monthType W takes weekday then week: 01 first Sunday, 43 third Thursday, 65 last Saturday."""
        nth = rule(frequency="M", month_type="W", month_day=value)

        assert (MonthType.WEEKDAY, value) == (nth.month_type, nth.month_day)

    @pytest.mark.parametrize("value", [0, 10, 16, 60, 66, 70, 7])
    def test_nth_weekday_refused(self, value: int):
        """Week 0 or 6 and weekday 7 are refused (decision 17)."""
        with pytest.raises(InvalidFormat) as info:
            rule(frequency="M", month_type="W", month_day=value)

        assert ("month_day", value) == (info.value.field, info.value.value)

    @pytest.mark.parametrize("value", [-1, 100])
    def test_month_day_range(self, value: int):
        """month_day is at most two digits."""
        with pytest.raises(OutOfRange) as info:
            rule(frequency="M", month_type="W", month_day=value)

        assert "month_day" == info.value.field

    def test_month_day_must_be_int(self):
        """A bool month day is refused."""
        with pytest.raises(InvalidFormat) as info:
            rule(frequency="M", month_day=True)

        assert "month_day" == info.value.field

    @pytest.mark.parametrize("frequency", ["D", "Y"])
    def test_month_day_only_on_monthly(self, frequency: str):
        """A month day on a daily or yearly repeat is refused."""
        with pytest.raises(InconsistentFields) as info:
            rule(frequency=frequency, month_day=5)

        assert "month_day" == info.value.field

    def test_month_type_unknown(self):
        """Month types other than D and W are refused."""
        with pytest.raises(InvalidChoice) as info:
            rule(frequency="M", month_type="X")

        assert ("month_type", ("D", "W")) == (info.value.field, info.value.allowed)


class TestParseEndDate:
    @pytest.mark.parametrize("value", ["never", "Never", " NEVER ", "9999-12-31", OPEN_END])
    def test_open_end(self, value: object):
        """'never' (any case) and 9999-12-31 both mean an open end (decision 18)."""
        assert OPEN_END == parse_end_date(value)  # type: ignore[arg-type]

    def test_iso_date(self):
        """An ISO date string is parsed."""
        assert date(2026, 2, 28) == parse_end_date("2026-02-28")

    @pytest.mark.parametrize(
        "value", ["2026-02-30", "tomorrow", "", 20260101, datetime(2026, 1, 1)]
    )
    def test_other_values_refused(self, value: object):
        """Impossible dates, words, numbers and datetimes are refused, naming end_date."""
        with pytest.raises(InvalidFormat) as info:
            parse_end_date(value)  # type: ignore[arg-type]

        assert ("end_date", value) == (info.value.field, info.value.value)


class TestBlockWindow:
    def test_defaults_to_whole_day(self):
        """A block without times covers 0..2400."""
        block = make_block()

        assert (0, 2400) == (block.start_time, block.end_time)

    def test_same_start_and_end_date(self):
        """start_date equal to end_date is accepted."""
        assert JAN_1 == make_block(start_date=JAN_1, end_date=JAN_1).end_date

    def test_start_after_end_date(self):
        """start_date after end_date is refused (spec: Errors 6)."""
        with pytest.raises(InvalidDateRange) as info:
            make_block(start_date=JAN_2, end_date=JAN_1)

        assert ("start_date", JAN_2, JAN_1) == (info.value.field, info.value.start, info.value.end)

    @pytest.mark.parametrize(("start", "end"), [(0, 1), (2359, 2400), (900, 1700)])
    def test_start_before_end_time(self, start: int, end: int):
        """start_time before end_time is accepted."""
        block = make_block(start_time=start, end_time=end)

        assert (start, end) == (block.start_time, block.end_time)

    @pytest.mark.parametrize(("start", "end"), [(900, 900), (901, 900), (0, 0), (2400, 2400)])
    def test_start_not_before_end_time(self, start: int, end: int):
        """start_time not before end_time is refused, 0, 0 included (decision 18)."""
        with pytest.raises(InvalidTimeRange) as info:
            make_block(start_time=start, end_time=end)

        assert ("start_time", start, end) == (info.value.field, info.value.start, info.value.end)

    @pytest.mark.parametrize(
        ("field", "value"), [("start_time", 2401), ("start_time", -1), ("end_time", 1260)]
    )
    def test_times_are_hhmm(self, field: str, value: int):
        """Times must be HHMM values."""
        with pytest.raises(InvalidTimeOfDay) as info:
            make_block(**{field: value})

        assert (field, value) == (info.value.field, info.value.value)

    def test_all_day_normalises(self):
        """all_day sets 0..2400 whatever times were given (decision 18)."""
        block = make_block(all_day=True, start_time=900, end_time=1000)

        assert (0, 2400) == (block.start_time, block.end_time)

    def test_all_day_rescues_zero_zero(self):
        """all_day with 0, 0 is a whole-day block, not an inverted window."""
        assert 2400 == make_block(all_day=True, start_time=0, end_time=0).end_time

    def test_all_day_must_be_bool(self):
        """all_day takes a real bool."""
        with pytest.raises(InvalidFormat) as info:
            make_block(all_day="yes")

        assert "all_day" == info.value.field

    def test_end_date_never(self):
        """end_date 'never' is stored as OPEN_END and makes the block open-ended."""
        block = make_block(end_date="never", repeat=rule(frequency="D"))

        assert (OPEN_END, True, True) == (block.end_date, block.is_open_ended, block.repeats)

    def test_end_date_iso_string(self):
        """An ISO end date string is parsed."""
        assert JAN_2 == make_block(end_date="2026-01-02").end_date

    @pytest.mark.parametrize("value", ["2026-01-01", datetime(2026, 1, 1), None])
    def test_start_date_must_be_date(self, value: object):
        """start_date must be a date: strings, datetimes and None are refused."""
        with pytest.raises(InvalidFormat) as info:
            make_block(start_date=value)

        assert "start_date" == info.value.field

    def test_end_date_datetime_refused(self):
        """A datetime end date is refused instead of failing to compare."""
        with pytest.raises(InvalidFormat) as info:
            make_block(end_date=datetime(2026, 1, 1))

        assert "end_date" == info.value.field

    def test_reason_limit(self):
        """A block reason is accepted at 255 and refused at 256."""
        assert 255 == len(make_block(reason="r" * 255).reason or "")
        with pytest.raises(FieldTooLong) as info:
            make_block(reason="r" * 256)

        assert ("reason", 255, 256) == (info.value.field, info.value.limit, info.value.requested)

    def test_evolve_revalidates(self):
        """attrs.evolve to an inverted window is refused."""
        with pytest.raises(InvalidTimeRange):
            attrs.evolve(make_block(), start_time=2400)


class TestBlockTarget:
    @pytest.mark.parametrize(
        ("code", "member"),
        [
            ("calendar", BlockTarget.CALENDAR),
            ("service", BlockTarget.SERVICE),
            ("resource", BlockTarget.RESOURCE),
        ],
    )
    def test_codes(self, code: str, member: BlockTarget):
        """Blocks target a calendar, service or resource."""
        assert member is make_block(target=code).target

    def test_unknown_target(self):
        """Other targets raise InvalidChoice naming target."""
        with pytest.raises(InvalidChoice) as info:
            make_block(target="location")

        assert ("target", "location") == (info.value.field, info.value.requested)

    def test_deleted_must_be_bool(self):
        """deleted takes a real bool."""
        with pytest.raises(InvalidFormat) as info:
            make_block(deleted=1)

        assert "deleted" == info.value.field


class TestAllocation:
    @pytest.mark.parametrize("value", [0, 1000])
    def test_booking_limit_accepted(self, value: int):
        """An allocation's booking limit runs 0 (unset) .. 1000 (decision 8)."""
        assert value == make_allocation(booking_limit=value).booking_limit

    @pytest.mark.parametrize("value", [-1, 1001])
    def test_booking_limit_refused(self, value: int):
        """-1 and 1001 are refused."""
        with pytest.raises(OutOfRange) as info:
            make_allocation(booking_limit=value)

        assert ("booking_limit", value) == (info.value.field, info.value.requested)

    def test_targets(self):
        """Allocations go to a service or a resource, never a calendar."""
        assert AllocationTarget.RESOURCE is make_allocation(target="resource").target
        with pytest.raises(InvalidChoice) as info:
            make_allocation(target="calendar")

        assert ("target", ("service", "resource")) == (info.value.field, info.value.allowed)

    def test_window_rules_apply(self):
        """Allocations share the block window rules (start_time < end_time)."""
        with pytest.raises(InvalidTimeRange):
            make_allocation(start_time=1000, end_time=900)


class TestReprs:
    @pytest.mark.parametrize(
        "value",
        [
            make_block(
                end_date="never",
                start_time=900,
                end_time=1000,
                reason="Lunch",
                repeat=rule(frequency="W", interval=2, weekdays="135"),
            ),
            make_allocation(
                booking_limit=3,
                repeat=rule(frequency="M", month_type="W", month_day=43),
            ),
        ],
        ids=lambda value: type(value).__name__,
    )
    def test_reprs_are_valid_python(self, value: object):
        """Block and allocation reprs evaluate back to equal records (STYLE rule 34)."""
        assert value == eval(repr(value), NAMESPACE)

    @pytest.mark.parametrize(
        ("member", "text"),
        [
            (Frequency.WEEKLY, "Frequency.WEEKLY"),
            (MonthType.WEEKDAY, "MonthType.WEEKDAY"),
            (BlockTarget.CALENDAR, "BlockTarget.CALENDAR"),
            (AllocationTarget.SERVICE, "AllocationTarget.SERVICE"),
        ],
    )
    def test_enum_reprs(self, member: object, text: str):
        """Enum reprs read Class.MEMBER."""
        assert text == repr(member)
