"""Weekly hours and business hours (slotwise.model.hours): HHMM windows, closed days, is_24_hours."""

from __future__ import annotations

from datetime import date
from typing import Any

import attrs
import pytest

import slotwise
from slotwise.errors import InvalidFormat, InvalidTimeOfDay, InvalidTimeRange
from slotwise.model import BusinessHours, DayHours, DayWindow, Weekday, WeeklyHours

NAMESPACE: dict[str, Any] = {name: getattr(slotwise, name) for name in slotwise.__all__}


def window(**fields: Any) -> DayWindow:
    """Return a DayWindow built from untyped *fields* (invalid input on purpose)."""
    return DayWindow(**fields)


def day(**fields: Any) -> DayHours:
    """Return DayHours built from untyped *fields* (invalid input on purpose)."""
    return DayHours(**fields)


class TestWeekday:
    @pytest.mark.parametrize(
        ("weekday", "digit", "python"),
        [(Weekday.SUN, 0, 6), (Weekday.MON, 1, 0), (Weekday.SAT, 6, 5)],
    )
    def test_numbers(self, weekday: Weekday, digit: int, python: int):
        """digit counts from Sunday = 0 (repeat rules); python from Monday = 0 (date.weekday)."""
        assert (digit, python) == (weekday.digit, weekday.python)
        assert weekday is Weekday.from_digit(digit)

    def test_of_date(self):
        """2026-01-05 is a Monday and 2026-01-04 a Sunday."""
        assert (Weekday.MON, Weekday.SUN) == (
            Weekday.of(date(2026, 1, 5)),
            Weekday.of(date(2026, 1, 4)),
        )

    def test_repr(self):
        """Weekday reprs read Weekday.MEMBER."""
        assert "Weekday.MON" == repr(Weekday.MON)


class TestDayWindow:
    @pytest.mark.parametrize(("start", "end"), [(0, 2400), (0, 1), (2359, 2400), (900, 1700)])
    def test_open_windows(self, start: int, end: int):
        """Windows with start < end are accepted, 0..2400 included."""
        assert (start, end) == (
            window(start_time=start, end_time=end).start_time,
            window(start_time=start, end_time=end).end_time,
        )

    def test_closed_day(self):
        """Start 0 and end 0 is a closed day, not an empty window (decision 4)."""
        closed = window(start_time=0, end_time=0)

        assert closed.is_closed
        assert closed == DayWindow.closed()

    @pytest.mark.parametrize(("start", "end"), [(900, 900), (901, 900), (2400, 2400), (1, 0)])
    def test_start_must_precede_end(self, start: int, end: int):
        """A window whose start is not before its end is refused (other than 0, 0)."""
        with pytest.raises(InvalidTimeRange) as info:
            window(start_time=start, end_time=end)

        assert ("start_time", start, end) == (info.value.field, info.value.start, info.value.end)

    @pytest.mark.parametrize("value", [2401, 1260, -1, True, 900.0, "0900"])
    def test_start_time_hhmm(self, value: object):
        """start_time must be an HHMM int: 2401, 1260, -1, True, floats and strings are refused."""
        with pytest.raises(InvalidTimeOfDay) as info:
            window(start_time=value, end_time=2400)

        assert ("start_time", value) == (info.value.field, info.value.value)

    @pytest.mark.parametrize("value", [2401, 1260, -1, False])
    def test_end_time_hhmm(self, value: object):
        """end_time must be an HHMM int as well."""
        with pytest.raises(InvalidTimeOfDay) as info:
            window(start_time=0, end_time=value)

        assert ("end_time", value) == (info.value.field, info.value.value)

    def test_all_day(self):
        """DayWindow.all_day() is open 0..2400."""
        assert (0, 2400, False) == (
            DayWindow.all_day().start_time,
            DayWindow.all_day().end_time,
            DayWindow.all_day().is_closed,
        )

    def test_evolve_revalidates(self):
        """attrs.evolve into an inverted window is refused."""
        with pytest.raises(InvalidTimeRange):
            attrs.evolve(DayWindow.all_day(), start_time=2400)


class TestWeeklyHours:
    def test_default_is_closed(self):
        """Weekly hours default to closed on every day."""
        assert all(window.is_closed for _, window in WeeklyHours().items())

    def test_items_run_sunday_to_saturday(self):
        """items() yields Sunday first and Saturday last."""
        assert list(Weekday) == [weekday for weekday, _ in WeeklyHours().items()]

    def test_mappings_convert(self):
        """A mapping day converts to a DayWindow; missing keys default to 0."""
        hours = WeeklyHours(mon={"start_time": 900, "end_time": 1700})

        assert DayWindow(start_time=900, end_time=1700) == hours.on(Weekday.MON)

    def test_mapping_is_validated(self):
        """A mapping with only a start time is an inverted window and refused."""
        with pytest.raises(InvalidTimeRange):
            WeeklyHours(mon={"start_time": 900})

    def test_other_values_refused(self):
        """A day that is neither a DayWindow nor a mapping is refused."""
        with pytest.raises(InvalidFormat) as info:
            WeeklyHours(mon=900)

        assert ("weekly_hours", 900) == (info.value.field, info.value.value)

    def test_with_days(self):
        """with_days replaces named days (by enum or key) and keeps the others."""
        hours = WeeklyHours.always().with_days(
            {Weekday.SUN: DayWindow.closed(), "sat": {"start_time": 1000, "end_time": 1400}}
        )

        assert DayWindow.closed() == hours.sun
        assert DayWindow(start_time=1000, end_time=1400) == hours.sat
        assert DayWindow.all_day() == hours.mon

    def test_with_days_refuses_unknown_day(self):
        """with_days refuses a key that is not sun..sat."""
        with pytest.raises(InvalidFormat) as info:
            WeeklyHours().with_days({"monday": DayWindow.all_day()})

        assert "weekday" == info.value.field

    def test_always_and_every_day(self):
        """always() is 0..2400 on every day; every_day repeats one window."""
        nine_to_five = DayWindow(start_time=900, end_time=1700)

        assert all(w == DayWindow.all_day() for _, w in WeeklyHours.always().items())
        assert all(w == nine_to_five for _, w in WeeklyHours.every_day(nine_to_five).items())

    def test_for_date(self):
        """for_date picks the window of the date's weekday."""
        hours = WeeklyHours(mon=DayWindow.all_day())

        assert DayWindow.all_day() == hours.for_date(date(2026, 1, 5))
        assert hours.for_date(date(2026, 1, 6)).is_closed


class TestDayHours:
    def test_is_24_hours_normalises(self):
        """is_24_hours stores open 0..2400 whatever else was given (spec: Location)."""
        normalised = day(is_open=False, start_time=900, end_time=1000, is_24_hours=True)

        assert (True, 0, 2400) == (
            normalised.is_open,
            normalised.start_time,
            normalised.end_time,
        )

    def test_is_24_hours_ignores_invalid_times(self):
        """With is_24_hours, even invalid times are replaced rather than refused."""
        normalised = day(start_time=9999, end_time=-5, is_24_hours=True)

        assert (0, 2400) == (normalised.start_time, normalised.end_time)

    def test_is_24_hours_survives_evolve(self):
        """Evolving a 24-hour day keeps it normalised."""
        normalised = day(is_24_hours=True)

        assert normalised == attrs.evolve(normalised)
        assert normalised.window == DayWindow.all_day()

    @pytest.mark.parametrize(("start", "end"), [(0, 2400), (900, 901), (2359, 2400)])
    def test_open_window_accepted(self, start: int, end: int):
        """An open day with start < end is accepted."""
        assert DayWindow(start_time=start, end_time=end) == DayHours.open(start, end).window

    @pytest.mark.parametrize(("start", "end"), [(900, 900), (1700, 900), (0, 0)])
    def test_open_window_inverted(self, start: int, end: int):
        """An open day whose start is not before its end is refused (0, 0 included)."""
        with pytest.raises(InvalidTimeRange) as info:
            DayHours.open(start, end)

        assert ("start_time", start, end) == (
            info.value.field,
            info.value.start,
            info.value.end,
        )

    def test_closed_day_window(self):
        """A closed day has a closed window whatever its times."""
        assert day(is_open=False, start_time=900, end_time=1700).window.is_closed

    @pytest.mark.parametrize(("field", "value"), [("start_time", 2401), ("end_time", 1260)])
    def test_times_are_hhmm(self, field: str, value: int):
        """Start and end must be HHMM values even on a closed day."""
        with pytest.raises(InvalidTimeOfDay) as info:
            day(**{"is_open": False, field: value})

        assert field == info.value.field

    @pytest.mark.parametrize("field", ["is_open", "is_24_hours"])
    def test_flags_must_be_bool(self, field: str):
        """is_open and is_24_hours take real bools."""
        with pytest.raises(InvalidFormat) as info:
            day(**{field: 1})

        assert field == info.value.field


class TestBusinessHours:
    def test_default_is_nine_to_five_on_weekdays(self):
        """The default is 09:00-17:00 Monday to Friday, closed at weekends."""
        hours = BusinessHours()

        assert DayHours.open(900, 1700) == hours.mon
        assert DayHours.open(900, 1700) == hours.fri
        assert (False, False) == (hours.sat.is_open, hours.sun.is_open)

    def test_mappings_convert_and_normalise(self):
        """A mapping day converts to DayHours and is normalised when is_24_hours."""
        hours = BusinessHours(sun={"is_24_hours": True})

        assert DayHours(is_open=True, start_time=0, end_time=2400, is_24_hours=True) == hours.sun

    def test_other_values_refused(self):
        """A day that is neither DayHours nor a mapping is refused."""
        with pytest.raises(InvalidFormat) as info:
            BusinessHours(mon="9-5")

        assert "business_hours" == info.value.field

    def test_as_weekly(self):
        """Business hours convert to weekly windows with closed days as 0, 0."""
        weekly = BusinessHours().as_weekly()

        assert DayWindow(start_time=900, end_time=1700) == weekly.mon
        assert weekly.sun.is_closed

    def test_always(self):
        """always() is 24 hours on every day."""
        assert BusinessHours.always().as_weekly() == WeeklyHours.always()

    def test_for_date(self):
        """for_date picks the hours of the date's weekday."""
        assert not BusinessHours().for_date(date(2026, 1, 4)).is_open


class TestReprs:
    @pytest.mark.parametrize(
        "value",
        [
            WeeklyHours(mon=DayWindow(start_time=830, end_time=1215)),
            BusinessHours(sun=DayHours(is_24_hours=True)),
            DayWindow.closed(),
        ],
        ids=lambda value: type(value).__name__,
    )
    def test_reprs_are_valid_python(self, value: object):
        """Hours reprs evaluate back to equal values (STYLE rule 34)."""
        assert value == eval(repr(value), NAMESPACE)
