"""Repeat rules: dates they select, wall-time placement, RRULE text (slotwise.rules.repeat)."""

from __future__ import annotations

from datetime import UTC, date, datetime
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from slotwise._time import day_bounds
from slotwise.errors import InvalidFormat, OutOfRange
from slotwise.model.blocks import (
    OPEN_END,
    Allocation,
    AllocationTarget,
    Block,
    BlockTarget,
    Frequency,
    MonthType,
    RepeatRule,
)
from slotwise.rules.repeat import (
    from_rrule_text,
    occurrence_dates,
    repeat_dates,
    to_rrule_text,
    window_instants,
)

NEW_YORK = ZoneInfo("America/New_York")
AMSTERDAM = ZoneInfo("Europe/Amsterdam")


def block(**fields: Any) -> Block:
    """Build a resource block open from 2026-01-01 with *fields* overriding the defaults."""
    defaults: dict[str, Any] = {
        "id": "block-1",
        "company_id": "company-1",
        "location_id": "location-1",
        "target_id": "resource-1",
        "target": BlockTarget.RESOURCE,
        "start_date": date(2026, 1, 1),
        "end_date": OPEN_END,
    }
    return Block(**(defaults | fields))


def dates(*days: tuple[int, int, int]) -> list[date]:
    """Spell a list of dates as (year, month, day) triples."""
    return [date(*day) for day in days]


class TestOccurrenceDates:
    def test_monthly_on_the_31st_skips_short_months(self):
        """A monthly repeat on the 31st skips months without a 31st (decision 17, RFC 5545)."""
        window = block(start_date=date(2026, 1, 31), repeat=RepeatRule(frequency=Frequency.MONTHLY))

        expected = dates(
            (2026, 1, 31),
            (2026, 3, 31),
            (2026, 5, 31),
            (2026, 7, 31),
            (2026, 8, 31),
            (2026, 10, 31),
            (2026, 12, 31),
        )

        assert expected == occurrence_dates(window, date(2026, 1, 1), date(2026, 12, 31))

    def test_explicit_month_day_31(self):
        """An explicit month_day 31 from mid-month behaves like the start date default."""
        window = block(
            start_date=date(2026, 1, 10),
            repeat=RepeatRule(frequency=Frequency.MONTHLY, month_day=31),
        )

        expected = dates((2026, 1, 31), (2026, 3, 31))

        assert expected == occurrence_dates(window, date(2026, 1, 1), date(2026, 4, 30))

    def test_yearly_from_february_29_falls_in_leap_years_only(self):
        """A yearly repeat from 29 February occurs only in leap years (decision 17)."""
        window = block(start_date=date(2024, 2, 29), repeat=RepeatRule(frequency=Frequency.YEARLY))

        expected = dates((2024, 2, 29), (2028, 2, 29))

        assert expected == occurrence_dates(window, date(2024, 1, 1), date(2031, 12, 31))

    def test_yearly_interval(self):
        """A yearly repeat with interval 2 takes every other year on the start's month and day."""
        window = block(
            start_date=date(2026, 3, 15),
            repeat=RepeatRule(frequency=Frequency.YEARLY, interval=2),
        )

        expected = dates((2026, 3, 15), (2028, 3, 15), (2030, 3, 15))

        assert expected == occurrence_dates(window, date(2026, 1, 1), date(2031, 12, 31))

    def test_third_thursday(self):
        """month_day 43 with month type W repeats on the third Thursday."""
        window = block(
            repeat=RepeatRule(
                frequency=Frequency.MONTHLY, month_type=MonthType.WEEKDAY, month_day=43
            )
        )

        expected = dates((2026, 1, 15), (2026, 2, 19), (2026, 3, 19), (2026, 4, 16))

        assert expected == occurrence_dates(window, date(2026, 1, 1), date(2026, 4, 30))

    def test_last_friday(self):
        """month_day 55 (week 5) repeats on the last Friday, also in months with four Fridays."""
        window = block(
            repeat=RepeatRule(
                frequency=Frequency.MONTHLY, month_type=MonthType.WEEKDAY, month_day=55
            )
        )

        expected = dates((2026, 1, 30), (2026, 2, 27), (2026, 3, 27), (2026, 4, 24), (2026, 5, 29))

        assert expected == occurrence_dates(window, date(2026, 1, 1), date(2026, 5, 31))

    def test_nth_weekday_defaults_to_the_start_date(self):
        """Without month_day, month type W takes the start date's weekday and week (3rd Thu)."""
        window = block(
            start_date=date(2026, 1, 15),
            repeat=RepeatRule(frequency=Frequency.MONTHLY, month_type=MonthType.WEEKDAY),
        )

        expected = dates((2026, 1, 15), (2026, 2, 19), (2026, 3, 19))

        assert expected == occurrence_dates(window, date(2026, 1, 1), date(2026, 3, 31))

    def test_fifth_weekday_start_means_last(self):
        """A start on a fifth Friday repeats on the last Friday of each month (week 5 = last)."""
        window = block(
            start_date=date(2026, 1, 30),
            repeat=RepeatRule(frequency=Frequency.MONTHLY, month_type=MonthType.WEEKDAY),
        )

        expected = dates((2026, 1, 30), (2026, 2, 27), (2026, 3, 27))

        assert expected == occurrence_dates(window, date(2026, 1, 1), date(2026, 3, 31))

    def test_monthly_interval_two(self):
        """A monthly repeat with interval 2 takes every other month from the start's month."""
        window = block(
            start_date=date(2026, 1, 10),
            repeat=RepeatRule(frequency=Frequency.MONTHLY, interval=2),
        )

        expected = dates((2026, 3, 10), (2026, 5, 10), (2026, 7, 10))

        assert expected == occurrence_dates(window, date(2026, 2, 1), date(2026, 8, 31))

    def test_monthly_rule_that_never_occurs(self):
        """The 30th every 12 months from February selects nothing, at once."""
        window = block(
            start_date=date(2026, 2, 1),
            repeat=RepeatRule(frequency=Frequency.MONTHLY, interval=12, month_day=30),
        )

        assert [] == occurrence_dates(window, date(2026, 1, 1), date(2040, 12, 31))

    def test_weekly_interval_two(self):
        """Weekly on Monday and Friday every 2 weeks takes the start's week, then every other."""
        window = block(
            start_date=date(2026, 1, 5),
            repeat=RepeatRule(frequency=Frequency.WEEKLY, interval=2, weekdays="15"),
        )

        expected = dates(
            (2026, 1, 5), (2026, 1, 9), (2026, 1, 19), (2026, 1, 23), (2026, 2, 2), (2026, 2, 6)
        )

        assert expected == occurrence_dates(window, date(2026, 1, 1), date(2026, 2, 8))

    def test_weekly_weeks_start_on_sunday(self):
        """From a Sunday, a 2-weekly Monday repeat takes the next day (WKST=SU, not RFC's MO)."""
        window = block(
            start_date=date(2026, 1, 4),
            repeat=RepeatRule(frequency=Frequency.WEEKLY, interval=2, weekdays="1"),
        )

        expected = dates((2026, 1, 5), (2026, 1, 19), (2026, 2, 2))

        assert expected == occurrence_dates(window, date(2026, 1, 1), date(2026, 2, 8))

    def test_weekly_digits_are_sunday_first(self):
        """Weekday digits 0 and 6 are Sunday and Saturday."""
        window = block(repeat=RepeatRule(frequency=Frequency.WEEKLY, weekdays="06"))

        expected = dates((2026, 1, 3), (2026, 1, 4), (2026, 1, 10), (2026, 1, 11))

        assert expected == occurrence_dates(window, date(2026, 1, 1), date(2026, 1, 11))

    def test_daily_interval_three(self):
        """A daily repeat with interval 3 takes every third day from the start date."""
        window = block(repeat=RepeatRule(frequency=Frequency.DAILY, interval=3))

        expected = dates((2026, 1, 1), (2026, 1, 4), (2026, 1, 7), (2026, 1, 10), (2026, 1, 13))

        assert expected == occurrence_dates(window, date(2025, 12, 1), date(2026, 1, 15))

    def test_open_end_never(self):
        """An end date of 'never' repeats without end: every 7 days years later (decision 18)."""
        window = block(
            start_date=date(2026, 1, 5),
            end_date="never",
            repeat=RepeatRule(frequency=Frequency.DAILY, interval=7),
        )

        expected = dates((2031, 3, 3), (2031, 3, 10), (2031, 3, 17), (2031, 3, 24), (2031, 3, 31))

        assert expected == occurrence_dates(window, date(2031, 3, 1), date(2031, 3, 31))

    def test_open_daily_rule_far_in_the_future(self):
        """An open daily rule from 2000 queried for a week in 2030 gives that whole week."""
        window = block(start_date=date(2000, 1, 1), repeat=RepeatRule(frequency=Frequency.DAILY))

        expected = dates(
            (2030, 3, 4),
            (2030, 3, 5),
            (2030, 3, 6),
            (2030, 3, 7),
            (2030, 3, 8),
            (2030, 3, 9),
            (2030, 3, 10),
        )

        assert expected == occurrence_dates(window, date(2030, 3, 4), date(2030, 3, 10))

    def test_last_representable_week(self):
        """Queries ending on 9999-12-31 work although dateutil looks past date.max."""
        window = block(
            start_date=date(2000, 1, 1), repeat=RepeatRule(frequency=Frequency.WEEKLY, weekdays="6")
        )

        expected = dates((9999, 12, 18), (9999, 12, 25))

        assert expected == occurrence_dates(window, date(9999, 12, 12), OPEN_END)

    def test_no_repeat_covers_every_date_of_the_range(self):
        """A window without a rule applies on each date from start_date to end_date (slotwise)."""
        window = block(start_date=date(2026, 3, 1), end_date=date(2026, 3, 3))

        expected = dates((2026, 3, 1), (2026, 3, 2), (2026, 3, 3))

        assert expected == occurrence_dates(window, date(2026, 2, 1), date(2026, 4, 1))

    @pytest.mark.parametrize(
        ("first", "last", "expected"),
        [
            (date(2026, 2, 25), date(2026, 3, 3), dates((2026, 3, 1), (2026, 3, 3))),
            (date(2026, 3, 8), date(2026, 3, 15), dates((2026, 3, 9))),
            (date(2026, 3, 2), date(2026, 3, 6), dates((2026, 3, 3), (2026, 3, 5))),
        ],
        ids=["clipped-at-start", "clipped-at-end", "inside"],
    )
    def test_range_clipping(self, first: date, last: date, expected: list[date]):
        """Only dates inside both the query range and the window's range are returned."""
        window = block(
            start_date=date(2026, 3, 1),
            end_date=date(2026, 3, 10),
            repeat=RepeatRule(frequency=Frequency.DAILY, interval=2),
        )

        assert expected == occurrence_dates(window, first, last)

    def test_range_clipping_at_both_ends(self):
        """A query wider than the window on both sides gives exactly the window's dates."""
        window = block(
            start_date=date(2026, 3, 1),
            end_date=date(2026, 3, 10),
            repeat=RepeatRule(frequency=Frequency.DAILY, interval=4),
        )

        expected = dates((2026, 3, 1), (2026, 3, 5), (2026, 3, 9))

        assert expected == occurrence_dates(window, date(2026, 1, 1), date(2026, 12, 31))

    def test_end_date_is_inclusive(self):
        """The end date itself is an occurrence when the rule selects it (decision 18)."""
        window = block(
            start_date=date(2026, 3, 1),
            end_date=date(2026, 3, 8),
            repeat=RepeatRule(frequency=Frequency.DAILY, interval=7),
        )

        expected = dates((2026, 3, 1), (2026, 3, 8))

        assert expected == occurrence_dates(window, date(2026, 3, 1), date(2026, 3, 8))

    @pytest.mark.parametrize(
        ("first", "last"),
        [
            (date(2026, 3, 5), date(2026, 3, 4)),
            (date(2026, 1, 1), date(2026, 2, 28)),
            (date(2026, 3, 11), date(2026, 3, 31)),
        ],
        ids=["first-after-last", "before-window", "after-window"],
    )
    def test_empty_ranges(self, first: date, last: date):
        """A reversed range, or one outside the window, selects nothing."""
        window = block(start_date=date(2026, 3, 1), end_date=date(2026, 3, 10))

        assert [] == occurrence_dates(window, first, last)

    def test_allocations_expand_like_blocks(self):
        """Allocations use the same rules as blocks."""
        allocation = Allocation(
            id="allocation-1",
            company_id="company-1",
            location_id="location-1",
            target_id="service-1",
            target=AllocationTarget.SERVICE,
            start_date=date(2026, 1, 5),
            end_date=date(2026, 1, 31),
            repeat=RepeatRule(frequency=Frequency.WEEKLY, weekdays="1"),
        )

        expected = dates((2026, 1, 5), (2026, 1, 12), (2026, 1, 19), (2026, 1, 26))

        assert expected == occurrence_dates(allocation, date(2026, 1, 1), date(2026, 12, 31))

    def test_repeat_dates_without_rule(self):
        """repeat_dates with no rule lists every date of the overlap of the two ranges."""
        expected = dates((2026, 1, 30), (2026, 1, 31))

        actual = repeat_dates(
            None,
            start_date=date(2026, 1, 30),
            end_date=date(2026, 2, 28),
            first=date(2026, 1, 1),
            last=date(2026, 1, 31),
        )

        assert expected == actual


class TestWindowInstants:
    def test_weekly_new_york_block_across_the_dst_change(self):
        """A Monday 18:00 New York block lands at 22:00Z in EDT, then 23:00Z in EST."""
        window = block(
            start_date=date(2026, 10, 26),
            start_time=1800,
            end_time=1900,
            repeat=RepeatRule(frequency=Frequency.WEEKLY, weekdays="1"),
        )
        days = occurrence_dates(window, date(2026, 10, 26), date(2026, 11, 9))

        expected = [
            datetime(2026, 10, 26, 22, 0, tzinfo=UTC),
            datetime(2026, 11, 2, 23, 0, tzinfo=UTC),
            datetime(2026, 11, 9, 23, 0, tzinfo=UTC),
        ]

        assert expected == [window_instants(window, day, NEW_YORK)[0] for day in days]

    def test_amsterdam_gap(self):
        """A window starting at 02:30 on 2023-03-26 starts at 03:00 CEST, the gap's end."""
        window = block(start_time=230, end_time=400)

        expected = (
            datetime(2023, 3, 26, 1, 0, tzinfo=UTC),
            datetime(2023, 3, 26, 2, 0, tzinfo=UTC),
        )

        assert expected == window_instants(window, date(2023, 3, 26), AMSTERDAM)

    def test_window_inside_the_gap_is_empty(self):
        """A 02:00-03:00 window on 2023-03-26 in Amsterdam does not exist: start == end."""
        window = block(start_time=200, end_time=300)

        start, end = window_instants(window, date(2023, 3, 26), AMSTERDAM)

        assert start == end == datetime(2023, 3, 26, 1, 0, tzinfo=UTC)

    def test_amsterdam_fold_start_takes_the_earlier_instant(self):
        """A window starting at 02:30 on 2023-10-29 starts at the first (CEST) 02:30."""
        window = block(start_time=230, end_time=400)

        expected = (
            datetime(2023, 10, 29, 0, 30, tzinfo=UTC),
            datetime(2023, 10, 29, 3, 0, tzinfo=UTC),
        )

        assert expected == window_instants(window, date(2023, 10, 29), AMSTERDAM)

    def test_amsterdam_fold_end_takes_the_later_instant(self):
        """A window ending at 02:30 on 2023-10-29 ends at the second (CET) 02:30."""
        window = block(start_time=100, end_time=230)

        expected = (
            datetime(2023, 10, 28, 23, 0, tzinfo=UTC),
            datetime(2023, 10, 29, 1, 30, tzinfo=UTC),
        )

        assert expected == window_instants(window, date(2023, 10, 29), AMSTERDAM)

    def test_all_day_window_is_the_whole_day(self):
        """An all-day window spans the 25-hour fall-back day (decision 2)."""
        window = block(all_day=True)

        assert day_bounds(date(2023, 10, 29), AMSTERDAM) == window_instants(
            window, date(2023, 10, 29), AMSTERDAM
        )


WEEKLY_2_MTF = RepeatRule(frequency=Frequency.WEEKLY, interval=2, weekdays="125")


class TestToRruleText:
    @pytest.mark.parametrize(
        ("rule", "start", "end", "expected"),
        [
            (
                WEEKLY_2_MTF,
                date(2026, 1, 5),
                date(2026, 12, 31),
                "FREQ=WEEKLY;INTERVAL=2;BYDAY=MO,TU,FR;WKST=SU;UNTIL=20261231",
            ),
            (
                RepeatRule(frequency=Frequency.WEEKLY, weekdays="06"),
                date(2026, 1, 5),
                OPEN_END,
                "FREQ=WEEKLY;BYDAY=SU,SA",
            ),
            (RepeatRule(frequency=Frequency.DAILY), date(2026, 1, 5), OPEN_END, "FREQ=DAILY"),
            (
                RepeatRule(frequency=Frequency.DAILY, interval=3),
                date(2026, 1, 5),
                date(2026, 2, 1),
                "FREQ=DAILY;INTERVAL=3;UNTIL=20260201",
            ),
            (
                RepeatRule(frequency=Frequency.MONTHLY),
                date(2026, 1, 31),
                OPEN_END,
                "FREQ=MONTHLY",
            ),
            (
                RepeatRule(frequency=Frequency.MONTHLY, month_day=31),
                date(2026, 1, 5),
                OPEN_END,
                "FREQ=MONTHLY;BYMONTHDAY=31",
            ),
            (
                RepeatRule(frequency=Frequency.MONTHLY, month_type=MonthType.WEEKDAY, month_day=43),
                date(2026, 1, 5),
                OPEN_END,
                "FREQ=MONTHLY;BYDAY=3TH",
            ),
            (
                RepeatRule(frequency=Frequency.MONTHLY, month_type=MonthType.WEEKDAY, month_day=55),
                date(2026, 1, 5),
                OPEN_END,
                "FREQ=MONTHLY;BYDAY=-1FR",
            ),
            (
                RepeatRule(frequency=Frequency.MONTHLY, month_type=MonthType.WEEKDAY),
                date(2026, 1, 15),
                OPEN_END,
                "FREQ=MONTHLY;BYDAY=3TH",
            ),
            (
                RepeatRule(frequency=Frequency.YEARLY, interval=4),
                date(2024, 2, 29),
                date(2040, 12, 31),
                "FREQ=YEARLY;INTERVAL=4;UNTIL=20401231",
            ),
        ],
        ids=[
            "weekly-2",
            "weekly-open",
            "daily",
            "daily-3-until",
            "monthly-default-day",
            "monthly-31",
            "third-thursday",
            "last-friday",
            "nth-weekday-default",
            "yearly-4",
        ],
    )
    def test_examples(self, rule: RepeatRule, start: date, end: date, expected: str):
        """Rules are written as RFC 5545 RRULE values; an open end writes no UNTIL."""
        assert expected == to_rrule_text(rule, start, end)


class TestFromRruleText:
    def test_reads_what_it_writes(self):
        """The written text of a 2-weekly rule reads back as the same rule and end date."""
        text = to_rrule_text(WEEKLY_2_MTF, date(2026, 1, 5), date(2026, 12, 31))

        assert (WEEKLY_2_MTF, date(2026, 12, 31)) == from_rrule_text(text)

    def test_open_end_reads_as_none(self):
        """Text without UNTIL has no end date."""
        assert (RepeatRule(frequency=Frequency.DAILY), None) == from_rrule_text("FREQ=DAILY")

    def test_prefix_case_and_order_do_not_matter(self):
        """An 'RRULE:' prefix, lower case and any part order are accepted."""
        expected = (
            RepeatRule(frequency=Frequency.MONTHLY, month_type=MonthType.WEEKDAY, month_day=55),
            date(2026, 12, 31),
        )

        assert expected == from_rrule_text("RRULE:until=20261231;byday=-1fr;freq=monthly")

    def test_datetime_until_takes_its_date(self):
        """A DATE-TIME UNTIL is read as its date."""
        _, until = from_rrule_text("FREQ=DAILY;UNTIL=20261231T235959Z")

        assert date(2026, 12, 31) == until

    def test_plus_ordinal(self):
        """A '+3TH' ordinal reads as the third Thursday."""
        rule, _ = from_rrule_text("FREQ=MONTHLY;BYDAY=+3TH")

        assert 43 == rule.month_day

    def test_weekly_interval_one_accepts_any_week_start(self):
        """WKST does not change a weekly rule with interval 1, so any value is accepted."""
        rule, _ = from_rrule_text("FREQ=WEEKLY;BYDAY=MO;WKST=MO")

        assert RepeatRule(frequency=Frequency.WEEKLY, weekdays="1") == rule

    def test_interval_boundary(self):
        """INTERVAL=99 is accepted; INTERVAL=100 is refused as out of range."""
        rule, _ = from_rrule_text("FREQ=DAILY;INTERVAL=99")
        with pytest.raises(OutOfRange) as info:
            from_rrule_text("FREQ=DAILY;INTERVAL=100")

        assert (99, "interval") == (rule.interval, info.value.field)

    def test_month_day_boundary(self):
        """BYMONTHDAY=31 is accepted; BYMONTHDAY=32 is refused."""
        rule, _ = from_rrule_text("FREQ=MONTHLY;BYMONTHDAY=31")
        with pytest.raises(InvalidFormat):
            from_rrule_text("FREQ=MONTHLY;BYMONTHDAY=32")

        assert 31 == rule.month_day

    def test_ordinal_boundary(self):
        """Monthly BYDAY ordinal 4 is accepted; 5 is refused (RFC's 5th is not slotwise's last)."""
        rule, _ = from_rrule_text("FREQ=MONTHLY;BYDAY=4SU")
        with pytest.raises(InvalidFormat):
            from_rrule_text("FREQ=MONTHLY;BYDAY=5SU")

        assert 4 == rule.month_day

    @pytest.mark.parametrize(
        "text",
        [
            "",
            "FREQ=HOURLY",
            "INTERVAL=2",
            "FREQ=DAILY;COUNT=5",
            "FREQ=YEARLY;BYMONTH=3",
            "FREQ=DAILY;FREQ=DAILY",
            "FREQ=DAILY;INTERVAL=two",
            "FREQ=DAILY;UNTIL=20260231",
            "FREQ=DAILY;UNTIL=2026-12-31",
            "FREQ=DAILY;BYDAY=MO",
            "FREQ=DAILY;BYMONTHDAY=3",
            "FREQ=WEEKLY",
            "FREQ=WEEKLY;BYDAY=1MO",
            "FREQ=WEEKLY;INTERVAL=2;BYDAY=MO",
            "FREQ=WEEKLY;INTERVAL=2;BYDAY=MO;WKST=MO",
            "FREQ=WEEKLY;BYDAY=MO;WKST=XX",
            "FREQ=MONTHLY;BYDAY=TH",
            "FREQ=MONTHLY;BYDAY=1MO,3MO",
            "FREQ=MONTHLY;BYDAY=-2FR",
            "FREQ=MONTHLY;BYMONTHDAY=-1",
            "FREQ=MONTHLY;BYMONTHDAY=1,15",
            "FREQ=MONTHLY;BYMONTHDAY=3;BYDAY=1MO",
            "FREQ=DAILY;;",
        ],
    )
    def test_unrepresentable_text_is_refused(self, text: str):
        """Text slotwise cannot hold exactly is refused with InvalidFormat naming 'text'."""
        with pytest.raises(InvalidFormat) as info:
            from_rrule_text(text)

        assert "text" == info.value.field

    def test_month_type_of_a_non_monthly_rule_is_not_kept(self):
        """month_type means nothing outside monthly rules; the text round trip drops it."""
        rule = RepeatRule(frequency=Frequency.DAILY, month_type=MonthType.WEEKDAY)

        expected = (RepeatRule(frequency=Frequency.DAILY), None)

        assert expected == from_rrule_text(to_rrule_text(rule, date(2026, 1, 1), OPEN_END))
