"""
How many instances a calendar's repeat rules cost to expand, refused beyond a bound.

A rule is expanded from its ``DTSTART`` up to the end of the range asked about (dateutil's
``rrule`` walks every instance before the range, and ``recurring-ical-events`` keeps them), so a
``FREQ=MINUTELY`` rule started years ago costs seconds and hundreds of megabytes per query, and a
``FREQ=SECONDLY`` one hours. Before a range is expanded, each rule's instances up to its end are
estimated from the rule alone (an upper bound: its frequency and interval, and each ``BY`` part
that adds instances within a period, capped by ``COUNT`` and ``UNTIL``); a rule over
:data:`MOST_INSTANCES` is refused, and the calendar is unreadable (docs/semantics.md, "Calendar
import"). Calendars as Google Calendar and Outlook write them (daily, weekly, monthly, yearly
rules) stay far below the bound for centuries.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from datetime import UTC, date, datetime, time, timedelta
from typing import Any, Final

import attrs
import icalendar

__all__ = ["MOST_INSTANCES", "Repeat", "repeats_of"]

MOST_INSTANCES: Final = 100_000
"""The most instances one rule may have up to the end of a range (~0.5 s, ~10 MB to expand)."""

_YEAR: Final = timedelta(days=365.25)
# Periods per year of each frequency (a leap year's), and the BY parts that add instances within
# a period of a coarser frequency (RFC 5545 3.3.10, the table "BYxxx rule part expands").
_PERIODS: Final = {
    "SECONDLY": 366 * 86400,
    "MINUTELY": 366 * 1440,
    "HOURLY": 366 * 24,
    "DAILY": 366,
    "WEEKLY": 53,
    "MONTHLY": 12,
    "YEARLY": 1,
}
_ORDER: Final = ("SECONDLY", "MINUTELY", "HOURLY", "DAILY", "WEEKLY", "MONTHLY", "YEARLY")
_DAYS_IN: Final = {"WEEKLY": 7, "MONTHLY": 31, "YEARLY": 366}
_DAY_PARTS: Final = ("BYDAY", "BYMONTHDAY", "BYYEARDAY", "BYWEEKNO", "BYMONTH")


@attrs.frozen(kw_only=True)
class Repeat:
    """One ``RRULE`` of an event, reduced to what its expansion costs."""

    uid: str
    text: str
    start: datetime
    per_year: float
    count: int | None
    until: datetime | None

    def check(self, end: datetime) -> None:
        """
        Refuse the rule if it has more than :data:`MOST_INSTANCES` instances before *end*.

        Raises:
            ValueError: naming the event, its rule and the estimate.
        """
        last = end if self.until is None else min(end, self.until)
        if last <= self.start:
            return
        estimate = math.ceil((last - self.start) / _YEAR * self.per_year)
        if self.count is not None:
            estimate = min(estimate, self.count)
        if estimate > MOST_INSTANCES:
            raise ValueError(
                f"the RRULE {self.text!r} of event {self.uid!r} repeats about {estimate:,} times"
                f" from {self.start:%Y-%m-%d} to {last:%Y-%m-%d}; rules of more than"
                f" {MOST_INSTANCES:,} instances are not expanded"
            )


def repeats_of(events: Sequence[icalendar.cal.Component]) -> list[Repeat]:
    """Return the repeat rules of *events* (none for an event without ``DTSTART``)."""
    found = []
    for event in events:
        rules = event.get("rrule")
        if rules is None or "dtstart" not in event:
            continue
        start = _utc(event.decoded("dtstart"))
        for rule in rules if isinstance(rules, list) else [rules]:
            found.append(_repeat(str(event.get("uid", "")), rule, start))
    return found


def _repeat(uid: str, rule: Any, start: datetime) -> Repeat:
    frequency = str(_first(rule, "FREQ", "YEARLY")).upper()
    interval = max(1, int(_first(rule, "INTERVAL", 1)))
    count = _first(rule, "COUNT", None)
    until = _first(rule, "UNTIL", None)
    return Repeat(
        uid=uid,
        text=rule.to_ical().decode(),
        start=start,
        per_year=_PERIODS.get(frequency, 1) / interval * _per_period(rule, frequency),
        count=None if count is None else int(count),
        until=None if until is None else _utc(until),
    )


def _per_period(rule: Any, frequency: str) -> int:
    """Return at most how many instances one period of *frequency* holds under *rule*."""
    rank = _ORDER.index(frequency) if frequency in _ORDER else len(_ORDER) - 1
    found = 1
    for part, finer_than in (("BYSECOND", 0), ("BYMINUTE", 1), ("BYHOUR", 2)):
        if rank > finer_than and rule.get(part):
            found *= len(rule[part])
    if frequency in _DAYS_IN and any(rule.get(part) for part in _DAY_PARTS):
        found *= _DAYS_IN[frequency]
    positions = rule.get("BYSETPOS")
    return min(found, len(positions)) if positions else found


def _first(rule: Any, part: str, default: object) -> Any:
    values = rule.get(part)
    return values[0] if values else default


def _utc(value: date | datetime) -> datetime:
    """Return *value* as UTC, reading dates and floating times as UTC (a day's error at most)."""
    if not isinstance(value, datetime):
        value = datetime.combine(value, time(0))
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)
