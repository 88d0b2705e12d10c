"""Wall times and instants (slotwise._time): HHMM, zone names, aware datetimes, DST gap and fold."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta, timezone, tzinfo
from zoneinfo import ZoneInfo

import pytest
from hypothesis import given
from hypothesis import strategies as st

from slotwise._time import (
    END_OF_DAY,
    WindowEdge,
    available_zone_names,
    day_bounds,
    ensure_aware,
    hhmm_to_minutes,
    is_valid_hhmm,
    minutes_to_hhmm,
    to_utc,
    utc_offset_minutes,
    validate_hhmm,
    wall_to_instant,
    zone,
)
from slotwise.errors import InvalidTimeOfDay, InvalidTimeZone, NaiveDatetime
from tests import strategies

AMSTERDAM = ZoneInfo("Europe/Amsterdam")
LORD_HOWE = ZoneInfo("Australia/Lord_Howe")


class _NoOffset(tzinfo):
    """A tzinfo that knows no offset: a datetime carrying it is still naive."""

    def utcoffset(self, dt: datetime | None) -> timedelta | None:
        """Return no offset."""
        return None

    def dst(self, dt: datetime | None) -> timedelta | None:
        """Return no DST adjustment."""
        return None

    def tzname(self, dt: datetime | None) -> str | None:
        """Return no name."""
        return None


class TestHhmm:
    @pytest.mark.parametrize("value", [0, 1, 59, 100, 830, 1259, 2359, 2400])
    def test_valid_values(self, value: int):
        """0..2400 with minutes 00..59 are valid HHMM times, 2400 included (decision 4)."""
        assert value == validate_hhmm(value, field="start_time")

    @pytest.mark.parametrize("value", [-1, 60, 99, 1260, 2360, 2401, 2500, 10_000])
    def test_invalid_values(self, value: int):
        """One past each bound (-1, 2401) and minutes 60..99 are refused."""
        with pytest.raises(InvalidTimeOfDay) as info:
            validate_hhmm(value, field="end_time")

        assert ("end_time", value) == (info.value.field, info.value.value)

    @pytest.mark.parametrize("value", [True, False, 900.0, "0900", None])
    def test_non_integers_are_refused(self, value: object):
        """bool, float, str and None are not HHMM times even when they compare equal to one."""
        assert not is_valid_hhmm(value)
        with pytest.raises(InvalidTimeOfDay):
            validate_hhmm(value, field="start_time")

    def test_message_names_field_and_rule(self):
        """The error message names the field, the range and the value."""
        with pytest.raises(InvalidTimeOfDay) as info:
            validate_hhmm(2401, field="start_time")

        assert "start_time" in str(info.value)
        assert "2400" in str(info.value)
        assert "2401" in str(info.value)

    def test_end_of_day_converts_to_1440_minutes(self):
        """2400 is 1440 minutes and back (the end of the day)."""
        assert (1440, 2400) == (hhmm_to_minutes(END_OF_DAY), minutes_to_hhmm(1440))

    def test_minutes_conversion(self):
        """830 is 510 minutes after midnight and 510 minutes is 830."""
        assert (510, 830) == (hhmm_to_minutes(830), minutes_to_hhmm(510))

    @given(strategies.hhmm())
    def test_minutes_round_trip(self, value: int):
        """Every valid HHMM value survives a round trip through minutes."""
        assert value == minutes_to_hhmm(hhmm_to_minutes(value))


class TestZone:
    @pytest.mark.parametrize("name", ["UTC", "Europe/London", "Asia/Kathmandu", "EST5EDT"])
    def test_iana_names_are_accepted(self, name: str):
        """IANA names that tzdata ships load as zones with that key (EST5EDT is one)."""
        assert name == zone(name).key

    @pytest.mark.parametrize(
        "name", ["Mars/Olympus", "", " Europe/London", "Europe/London ", "localtime", "europe/x"]
    )
    def test_unknown_names_are_refused(self, name: str):
        """Unknown, blank, padded names and the system's 'localtime' are refused (decision 1)."""
        with pytest.raises(InvalidTimeZone) as info:
            zone(name)

        assert ("timezone", name) == (info.value.field, info.value.value)

    @pytest.mark.parametrize("name", [None, 5, b"UTC"])
    def test_non_strings_are_refused(self, name: object):
        """Only strings can name a zone."""
        with pytest.raises(InvalidTimeZone):
            zone(name)

    def test_error_names_the_given_field(self):
        """The error carries the caller's field name."""
        with pytest.raises(InvalidTimeZone) as info:
            zone("Nowhere/Special", field="timezone_id")

        assert "timezone_id" == info.value.field
        assert "Nowhere/Special" in str(info.value)

    def test_available_names_are_sorted_tzdata_names(self):
        """The listing is sorted, has UTC and the fixture zones, and no 'localtime'."""
        names = available_zone_names()

        assert sorted(names) == names
        assert {"UTC", "Europe/Amsterdam", "Pacific/Chatham"} <= set(names)
        assert "localtime" not in names


class TestAware:
    def test_aware_value_is_returned_unchanged(self):
        """An aware datetime passes through as it is (no conversion)."""
        value = datetime(2026, 1, 5, 9, tzinfo=ZoneInfo("Asia/Kathmandu"))

        assert value is ensure_aware(value, field="start")

    def test_naive_value_is_refused(self):
        """A naive datetime raises NaiveDatetime naming the field (STYLE rule 22)."""
        with pytest.raises(NaiveDatetime) as info:
            ensure_aware(datetime(2026, 1, 5, 9), field="start")

        assert "start" == info.value.field

    def test_tzinfo_without_offset_is_refused(self):
        """A tzinfo whose utcoffset is None still leaves the datetime naive."""
        with pytest.raises(NaiveDatetime):
            ensure_aware(datetime(2026, 1, 5, 9, tzinfo=_NoOffset()), field="end")

    def test_to_utc_converts(self):
        """to_utc returns the same instant in UTC."""
        value = datetime(2026, 1, 5, 9, 45, tzinfo=ZoneInfo("Asia/Kathmandu"))

        assert datetime(2026, 1, 5, 4, 0, tzinfo=UTC) == to_utc(value, field="start")
        assert UTC is to_utc(value, field="start").tzinfo

    def test_to_utc_refuses_naive(self):
        """to_utc never guesses a zone for a naive datetime."""
        with pytest.raises(NaiveDatetime):
            to_utc(datetime(2026, 1, 5, 9), field="start")


class TestUtcOffset:
    @pytest.mark.parametrize(
        ("name", "month", "expected"),
        [
            ("Asia/Kathmandu", 1, 345),
            ("America/New_York", 1, -300),
            ("America/New_York", 7, -240),
            ("Pacific/Chatham", 1, 825),
            ("Pacific/Chatham", 7, 765),
            ("Australia/Lord_Howe", 1, 660),
            ("Australia/Lord_Howe", 7, 630),
        ],
    )
    def test_offsets(self, name: str, month: int, expected: int):
        """Offsets are minutes east of UTC at the instant, including 45- and 30-minute ones."""
        instant = datetime(2023, month, 1, tzinfo=UTC)

        assert expected == utc_offset_minutes(instant, ZoneInfo(name))

    def test_fixed_offset_instant(self):
        """The instant's own tzinfo does not matter, only the target zone."""
        instant = datetime(2023, 1, 1, 12, tzinfo=timezone(timedelta(hours=-3)))

        assert 60 == utc_offset_minutes(instant, AMSTERDAM)


class TestWallToInstant:
    def test_ordinary_time(self):
        """09:00 in Amsterdam in winter is 08:00 UTC for either edge."""
        day = date(2023, 1, 10)
        expected = datetime(2023, 1, 10, 8, tzinfo=UTC)

        assert expected == wall_to_instant(day, 540, AMSTERDAM, edge="start")
        assert expected == wall_to_instant(day, 540, AMSTERDAM, edge="end")

    def test_gap_maps_to_first_instant_after_gap(self):
        """02:30 on Amsterdam's spring-forward date 2023-03-26 maps to 03:00 CEST = 01:00 UTC."""
        expected = datetime(2023, 3, 26, 1, tzinfo=UTC)

        assert expected == wall_to_instant(date(2023, 3, 26), 150, AMSTERDAM, edge="start")
        assert expected == wall_to_instant(date(2023, 3, 26), 150, AMSTERDAM, edge="end")

    def test_fold_start_takes_earlier_end_takes_later(self):
        """02:30 on Amsterdam's fall-back date 2023-10-29: a start is the earlier, an end the later."""
        day = date(2023, 10, 29)

        assert datetime(2023, 10, 29, 0, 30, tzinfo=UTC) == wall_to_instant(
            day, 150, AMSTERDAM, edge="start"
        )
        assert datetime(2023, 10, 29, 1, 30, tzinfo=UTC) == wall_to_instant(
            day, 150, AMSTERDAM, edge="end"
        )

    def test_half_hour_gap(self):
        """Lord Howe springs forward 30 minutes: 02:15 on 2023-10-01 maps to 02:30 (+11:00)."""
        expected = datetime(2023, 9, 30, 15, 30, tzinfo=UTC)

        assert expected == wall_to_instant(date(2023, 10, 1), 135, LORD_HOWE, edge="start")

    def test_half_hour_fold(self):
        """Lord Howe repeats 01:30-02:00 on 2023-04-02; 01:45 resolves by edge."""
        day = date(2023, 4, 2)

        assert datetime(2023, 4, 1, 14, 45, tzinfo=UTC) == wall_to_instant(
            day, 105, LORD_HOWE, edge="start"
        )
        assert datetime(2023, 4, 1, 15, 15, tzinfo=UTC) == wall_to_instant(
            day, 105, LORD_HOWE, edge="end"
        )

    def test_end_of_day_is_next_midnight(self):
        """1440 minutes is midnight of the next date."""
        expected = datetime(2023, 1, 10, 23, tzinfo=UTC)

        assert expected == wall_to_instant(date(2023, 1, 10), 1440, AMSTERDAM, edge="end")

    @given(
        name=strategies.zones(),
        day=st.dates(date(2023, 1, 1), date(2027, 12, 31)),
        first=st.integers(0, 1440),
        second=st.integers(0, 1440),
        edge=st.sampled_from(("start", "end")),
    )
    def test_never_runs_backwards(
        self, name: str, day: date, first: int, second: int, edge: WindowEdge
    ):
        """For one edge, a later wall time never maps to an earlier instant."""
        low, high = sorted((first, second))
        tz = ZoneInfo(name)

        assert wall_to_instant(day, low, tz, edge=edge) <= wall_to_instant(day, high, tz, edge=edge)


class TestDayBounds:
    @pytest.mark.parametrize(
        ("day", "hours"),
        [(date(2023, 3, 26), 23), (date(2023, 10, 29), 25), (date(2023, 6, 1), 24)],
    )
    def test_amsterdam_day_lengths(self, day: date, hours: int):
        """Amsterdam days last 23 hours in spring, 25 in autumn and 24 otherwise (decision 2)."""
        start, end = day_bounds(day, AMSTERDAM)

        assert timedelta(hours=hours) == end - start

    @pytest.mark.parametrize(
        ("day", "minutes"), [(date(2023, 10, 1), 23 * 60 + 30), (date(2023, 4, 2), 24 * 60 + 30)]
    )
    def test_lord_howe_half_hour_days(self, day: date, minutes: int):
        """Lord Howe's DST dates last 23.5 and 24.5 hours."""
        start, end = day_bounds(day, LORD_HOWE)

        assert timedelta(minutes=minutes) == end - start

    def test_midnight_gap_starts_after_the_gap(self):
        """Santiago skips 00:00-01:00 on 2023-09-03, so the day starts at 01:00 (-03:00)."""
        start, end = day_bounds(date(2023, 9, 3), ZoneInfo("America/Santiago"))

        assert (datetime(2023, 9, 3, 4, tzinfo=UTC), timedelta(hours=23)) == (start, end - start)

    @given(name=strategies.zones(), day=st.dates(date(2023, 1, 1), date(2027, 12, 30)))
    def test_days_tile_the_timeline(self, name: str, day: date):
        """Each day ends exactly where the next one starts, in every zone."""
        tz = ZoneInfo(name)

        assert day_bounds(day, tz)[1] == day_bounds(day + timedelta(days=1), tz)[0]
