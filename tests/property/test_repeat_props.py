"""Repeat expansion agrees with a day-by-day oracle; RRULE text round-trips (decisions 17, 18)."""

from __future__ import annotations

from datetime import date, datetime, time, timedelta
from typing import Any

import attrs
from dateutil.rrule import rrulestr
from hypothesis import given
from hypothesis import strategies as st

from slotwise.model.blocks import OPEN_END, Frequency, MonthType, RepeatRule
from slotwise.rules.repeat import from_rrule_text, repeat_dates, to_rrule_text
from tests import strategies

FIRST_START = date(1990, 1, 1)
LAST_START = date(2060, 12, 31)


def weekday_digit(day: date) -> int:
    """Return the spec's weekday digit (0 = Sunday)."""
    return (day.weekday() + 1) % 7


def nth_weekday(rule: RepeatRule, start: date) -> tuple[int, int]:
    """Return (weekday digit, week 1..5) of a monthly nth-weekday rule, defaulting from start."""
    if rule.month_day is not None:
        weekday, week = divmod(rule.month_day, 10)
        return weekday, week
    return weekday_digit(start), (start.day - 1) // 7 + 1


def applies(rule: RepeatRule | None, start: date, day: date) -> bool:
    """Tell, straight from decision 17's wording, whether *rule* from *start* selects *day*."""
    if rule is None:
        return True
    step = rule.interval
    if rule.frequency is Frequency.DAILY:
        return (day - start).days % step == 0
    if rule.frequency is Frequency.WEEKLY:
        # Weeks run Sunday..Saturday; the start's week is week 0.
        weeks = day.toordinal() - weekday_digit(day) - start.toordinal() + weekday_digit(start)
        return weekday_digit(day) in rule.weekdays and (weeks // 7) % step == 0
    if rule.frequency is Frequency.MONTHLY:
        months = (day.year - start.year) * 12 + day.month - start.month
        if months % step:
            return False
        if rule.month_type is MonthType.DAY:
            return day.day == (start.day if rule.month_day is None else rule.month_day)
        weekday, week = nth_weekday(rule, start)
        if weekday_digit(day) != weekday:
            return False
        if week == 5:
            return (day + timedelta(days=7)).month != day.month
        return (day.day - 1) // 7 + 1 == week
    return (day.year - start.year) % step == 0 and (day.month, day.day) == (start.month, start.day)


def oracle(rule: RepeatRule | None, start: date, end: date, first: date, last: date) -> list[date]:
    """Check every date of [first, last] against the rule, one by one."""
    days = []
    day = first
    while day <= last:
        if start <= day <= end and applies(rule, start, day):
            days.append(day)
        day += timedelta(days=1)
    return days


@st.composite
def expansion_cases(draw: st.DrawFn) -> dict[str, Any]:
    """Draw a rule, its date range and a query range of up to 400 days, near or far from start."""
    start = draw(st.dates(FIRST_START, LAST_START))
    end = draw(st.just(OPEN_END) | st.dates(start, start + timedelta(days=4000)))
    offset = draw(st.integers(-60, 900) | st.integers(-400, 40 * 366))
    first = start + timedelta(days=offset)
    last = first + timedelta(days=draw(st.integers(-1, 400)))
    return {
        "rule": draw(st.none() | strategies.repeat_rules()),
        "start_date": start,
        "end_date": end,
        "first": first,
        "last": last,
    }


def explicit(rule: RepeatRule, start: date) -> RepeatRule:
    """Spell out the one default RRULE text cannot leave implicit: the nth weekday."""
    if rule.month_type is MonthType.WEEKDAY and rule.month_day is None:
        weekday, week = nth_weekday(rule, start)
        return attrs.evolve(rule, month_day=weekday * 10 + week)
    return rule


rule_ranges = st.tuples(
    strategies.repeat_rules(),
    st.dates(FIRST_START, LAST_START),
    st.just(OPEN_END) | st.integers(0, 4000),
)


class TestExpansion:
    @given(expansion_cases())
    def test_agrees_with_day_by_day_oracle(self, case: dict[str, Any]):
        """repeat_dates selects exactly the dates the rule's definition selects."""
        expected = oracle(
            case["rule"], case["start_date"], case["end_date"], case["first"], case["last"]
        )

        assert expected == repeat_dates(
            case["rule"],
            start_date=case["start_date"],
            end_date=case["end_date"],
            first=case["first"],
            last=case["last"],
        )


class TestRruleText:
    @given(rule_ranges)
    def test_round_trip_is_identity(self, drawn: tuple[RepeatRule, date, date | int]):
        """rule -> text -> rule gives the rule back (the nth-weekday default spelled out)."""
        rule, start, span = drawn
        end = span if isinstance(span, date) else start + timedelta(days=span)

        expected = (explicit(rule, start), None if end == OPEN_END else end)

        assert expected == from_rrule_text(to_rrule_text(rule, start, end))

    @given(rule_ranges.filter(lambda drawn: drawn[0].month_day is not None))
    def test_round_trip_is_identity_for_explicit_rules(
        self, drawn: tuple[RepeatRule, date, date | int]
    ):
        """A rule with nothing left to the start date comes back unchanged."""
        rule, start, _ = drawn

        assert rule == from_rrule_text(to_rrule_text(rule, start, OPEN_END))[0]

    @given(strategies.repeat_rules(), st.dates(date(2000, 1, 1), date(2040, 12, 31)))
    def test_text_means_the_same_dates_to_an_rfc_reader(self, rule: RepeatRule, start: date):
        """dateutil's RFC 5545 parser expands the written text to slotwise's own dates."""
        end = start + timedelta(days=3 * 366)
        text = to_rrule_text(rule, start, end)

        expected = repeat_dates(rule, start_date=start, end_date=end, first=start, last=end)
        parsed = rrulestr(text, dtstart=datetime.combine(start, time()))

        assert expected == [moment.date() for moment in parsed]
