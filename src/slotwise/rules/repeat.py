"""
Repeat rules: which dates a block or allocation applies on, where it sits on the clock, and RRULE text.

Dates first, wall times second (STYLE rule 23): :func:`occurrence_dates` expands a window's
:class:`~slotwise.model.blocks.RepeatRule` into dates with ``dateutil.rrule``, and
:func:`window_instants` places the window's ``[start_time, end_time)`` on one of those dates through
:func:`slotwise._time.wall_to_instant` (decision 2: gap and fold policy).

Edge-case policy (decisions 17 and 18, ``docs/semantics.md``):

* A window without a rule applies on **every** date from ``start_date`` to ``end_date``.
* Months without the day are skipped, as in RFC 5545: a monthly repeat on the 31st skips 30-day
  months and February; a yearly repeat from 29 February falls only in leap years.
* Weekly repeats count weeks from **Sunday** (RFC 5545 ``WKST=SU``), because the spec's weekday digits
  are Sunday-first. This matters only when ``interval`` > 1: the week holding ``start_date`` is week 0.
* A monthly nth-weekday repeat without ``month_day`` takes the start date's weekday and week
  (``(day - 1) // 7 + 1``); week 5 means the **last** such weekday of the month, so a start on the
  29th to 31st repeats on the last one.
"""

from __future__ import annotations

import calendar
import functools
import math
import re
from collections.abc import Mapping
from datetime import date, datetime, timedelta
from typing import Any, Final, Literal
from zoneinfo import ZoneInfo

from dateutil.rrule import DAILY, FR, MO, MONTHLY, SA, SU, TH, TU, WE, WEEKLY, YEARLY, rrule

from slotwise._time import hhmm_to_minutes, wall_to_instant
from slotwise.errors import InvalidFormat
from slotwise.model.blocks import OPEN_END, Allocation, Block, Frequency, MonthType, RepeatRule

__all__ = [
    "from_rrule_text",
    "occurrence_dates",
    "repeat_dates",
    "to_rrule_text",
    "window_instants",
]

# Indexed by the spec's weekday digit: 0 = Sunday .. 6 = Saturday (dateutil counts from Monday).
_RRULE_DAYS: Final = (SU, MO, TU, WE, TH, FR, SA)
_DAY_CODES: Final = ("SU", "MO", "TU", "WE", "TH", "FR", "SA")
_FREQ_NAMES: Final = {
    Frequency.DAILY: "DAILY",
    Frequency.WEEKLY: "WEEKLY",
    Frequency.MONTHLY: "MONTHLY",
    Frequency.YEARLY: "YEARLY",
}
_FREQ_BY_NAME: Final = {name: frequency for frequency, name in _FREQ_NAMES.items()}
_RRULE_FREQ: Final[dict[Frequency, Literal[0, 1, 2, 3]]] = {
    Frequency.DAILY: DAILY,
    Frequency.WEEKLY: WEEKLY,
    Frequency.MONTHLY: MONTHLY,
    Frequency.YEARLY: YEARLY,
}
# The Gregorian calendar repeats every 400 years = 4800 months.
_CYCLE_MONTHS: Final = 4800
_LAST_WEEK: Final = 5


def occurrence_dates(window: Block | Allocation, first: date, last: date) -> list[date]:
    """
    Return the dates in ``[first, last]`` on which *window* applies, ascending.

    Only dates inside the window's own ``[start_date, end_date]`` count. A window without a repeat
    rule applies on every date of its range; see the module docstring for the rule policies.
    An empty range (``first`` after ``last``) gives an empty list.

    Args:
        window: the block or allocation.
        first: the first date of the range asked about (inclusive).
        last: the last date of the range asked about (inclusive).

    Returns:
        The dates, ascending, without repeats.
    """
    return repeat_dates(
        window.repeat,
        start_date=window.start_date,
        end_date=window.end_date,
        first=first,
        last=last,
    )


def repeat_dates(
    rule: RepeatRule | None, *, start_date: date, end_date: date, first: date, last: date
) -> list[date]:
    """
    Return the dates in ``[first, last]`` that *rule*, running from *start_date* to *end_date*, selects.

    The work done grows with the range asked about, not with the distance from *start_date*: the
    expansion starts at the rule's period (day, Sunday-started week, month or year) that holds
    *first*, or the last one before it, so an open-ended rule queried decades after its start costs
    about the same as one queried in its first week. A monthly rule that can never occur (the 30th
    every 12 months from February) is recognised and costs nothing.

    Args:
        rule: the repeat rule, or ``None`` for "every date of the range".
        start_date: the rule's first date (inclusive); the anchor of its periods and defaults.
        end_date: the rule's last date (inclusive); :data:`~slotwise.model.blocks.OPEN_END` for none.
        first: the first date of the range asked about (inclusive).
        last: the last date of the range asked about (inclusive).

    Returns:
        The dates, ascending, without repeats.
    """
    low = max(first, start_date)
    high = min(last, end_date)
    if low > high:
        return []
    if rule is None:
        return [low + timedelta(days=offset) for offset in range((high - low).days + 1)]
    if not _can_occur(rule, start_date):
        return []
    dtstart = _aligned_start(rule, start_date, low, high)
    if dtstart is None:
        return []
    # dtstart is always passed: dateutil 4 falls back to the current time without it (STYLE rule 23);
    # wkst is always passed: its default is the process-wide calendar.firstweekday().
    dates = rrule(
        _RRULE_FREQ[rule.frequency],
        dtstart=dtstart,
        interval=rule.interval,
        wkst=SU,
        until=high,
        **_by_parts(rule, start_date),
    )
    found: list[date] = []
    try:
        for moment in dates:
            if moment.date() >= low:
                found.append(moment.date())
    except (ValueError, OverflowError):
        # dateutil checks `until` only on dates it found, so looking for the one after `high`
        # it may step past date.max (a week or a day step crossing 9999-12-31): nothing is lost.
        if high.year < date.max.year:
            raise
    return found


def window_instants(
    window: Block | Allocation, day: date, tz: ZoneInfo
) -> tuple[datetime, datetime]:
    """
    Return the UTC instants where *window* starts and ends on *day*, a wall-time date in *tz*.

    The start edge and the end edge follow decision 2: a wall time inside a DST gap maps to the
    first instant after the gap; inside a fold the start takes the earlier instant and the end the
    later one. A window lying wholly inside a gap therefore gives two equal instants (an empty
    interval). *day* is not checked against the window's rule; use :func:`occurrence_dates` first.

    Args:
        window: the block or allocation (its ``start_time`` and ``end_time`` HHMM values).
        day: the date the window is placed on.
        tz: the zone of the window's wall times (the location's zone, decision 1).

    Returns:
        ``(start, end)``, aware UTC datetimes with ``start <= end``.
    """
    return (
        wall_to_instant(day, hhmm_to_minutes(window.start_time), tz, edge="start"),
        wall_to_instant(day, hhmm_to_minutes(window.end_time), tz, edge="end"),
    )


def to_rrule_text(rule: RepeatRule, start_date: date, end_date: date) -> str:
    """
    Return *rule*, running from *start_date* to *end_date*, as an RFC 5545 RRULE value.

    Parts appear in the order ``FREQ``, ``INTERVAL`` (omitted when 1), ``BYDAY``/``BYMONTHDAY``,
    ``WKST`` and ``UNTIL`` (a DATE; omitted for an open end), for example
    ``FREQ=WEEKLY;INTERVAL=2;BYDAY=MO,TU,FR;WKST=SU;UNTIL=20261231``. ``WKST=SU`` is written for
    weekly rules with an interval above 1, where it changes which weeks are taken. A monthly
    nth-weekday rule without ``month_day`` is written with the start date's weekday and week,
    since RFC 5545 has no "weekday implied by DTSTART"; week 5 is written as ``-1`` (last).

    Args:
        rule: the repeat rule.
        start_date: the window's start date (the RRULE's DTSTART).
        end_date: the window's end date; :data:`~slotwise.model.blocks.OPEN_END` writes no UNTIL.

    Returns:
        The RRULE value, without the ``RRULE:`` property name.
    """
    parts = [f"FREQ={_FREQ_NAMES[rule.frequency]}"]
    if rule.interval != 1:
        parts.append(f"INTERVAL={rule.interval}")
    if rule.frequency is Frequency.WEEKLY:
        parts.append("BYDAY=" + ",".join(_DAY_CODES[digit] for digit in sorted(rule.weekdays)))
        if rule.interval > 1:
            parts.append("WKST=SU")
    elif rule.frequency is Frequency.MONTHLY:
        if rule.month_type is MonthType.WEEKDAY:
            digit, week = _nth_weekday(rule, start_date)
            ordinal = -1 if week == _LAST_WEEK else week
            parts.append(f"BYDAY={ordinal}{_DAY_CODES[digit]}")
        elif rule.month_day is not None:
            parts.append(f"BYMONTHDAY={rule.month_day}")
    if end_date != OPEN_END:
        parts.append(f"UNTIL={end_date.year:04d}{end_date.month:02d}{end_date.day:02d}")
    return ";".join(parts)


_PART = re.compile(r"([A-Z]+)=([^;]*)")
_UNTIL = re.compile(r"(\d{4})(\d{2})(\d{2})(?:T\d{6}Z?)?")
_NTH_DAY = re.compile(r"(\+?[1-4]|-1)(SU|MO|TU|WE|TH|FR|SA)")
_ALLOWED_PARTS: Final = frozenset({"FREQ", "INTERVAL", "BYDAY", "BYMONTHDAY", "WKST", "UNTIL"})


def from_rrule_text(text: str) -> tuple[RepeatRule, date | None]:
    """
    Read an RFC 5545 RRULE value that slotwise can represent exactly.

    Accepts what :func:`to_rrule_text` writes, with or without the ``RRULE:`` prefix, in any part
    order and letter case. ``UNTIL`` may be a DATE or a DATE-TIME (its date is taken). Rules whose
    meaning slotwise cannot hold exactly are refused rather than approximated: ``COUNT``, ``BYMONTH``,
    ``BYSETPOS`` and other parts; ``BYDAY`` on daily or yearly rules; a monthly ``BYDAY`` other than
    one weekday with ordinal 1..4 or -1 (RFC's "5th" exists only in some months, slotwise's week 5
    is the last); and a weekly rule with ``INTERVAL`` above 1 whose ``WKST`` is not ``SU``.

    ``from_rrule_text(to_rrule_text(rule, start, end))`` gives back ``rule`` and ``end`` (``None``
    for an open end) for every rule, except that a monthly nth-weekday rule without ``month_day``
    comes back with the start date's weekday and week spelled out, and ``month_type`` on a
    non-monthly rule (which means nothing) comes back as ``DAY``; both select the same dates.

    Args:
        text: the RRULE value, e.g. ``FREQ=MONTHLY;BYDAY=3TH;UNTIL=20261231``.

    Returns:
        ``(rule, until)``: the rule and its last date, or ``None`` when the text has no ``UNTIL``.

    Raises:
        InvalidFormat: when the text is not an RRULE slotwise can represent (``field="text"``).
        OutOfRange: when ``INTERVAL`` lies outside 1..99 (``field="interval"``).
    """
    parts = _split_parts(text)
    frequency = _FREQ_BY_NAME.get(parts.get("FREQ", ""))
    if frequency is None:
        raise _bad(text, "an RRULE with FREQ=DAILY, WEEKLY, MONTHLY or YEARLY")
    interval_text = parts.get("INTERVAL", "1")
    if not interval_text.isdigit():
        raise _bad(text, "an RRULE whose INTERVAL is a positive integer")
    interval = int(interval_text)
    fields: dict[str, Any] = {"frequency": frequency, "interval": interval}
    by_day = parts.get("BYDAY")
    month_day = parts.get("BYMONTHDAY")
    if frequency is not Frequency.MONTHLY and month_day is not None:
        raise _bad(text, "an RRULE with BYMONTHDAY on monthly rules only")
    if frequency is Frequency.WEEKLY:
        fields["weekdays"] = _weekly_days(text, by_day)
        # Weeks start on Sunday in slotwise; RFC 5545's default WKST is Monday.
        if interval > 1 and parts.get("WKST") != "SU":
            raise _bad(
                text, "a weekly RRULE with WKST=SU when INTERVAL > 1 (weeks start on Sunday)"
            )
    elif frequency is Frequency.MONTHLY:
        fields.update(_monthly_fields(text, by_day, month_day))
    elif by_day is not None:
        raise _bad(text, "an RRULE with BYDAY on weekly or monthly rules only")
    if "WKST" in parts and parts["WKST"] not in _DAY_CODES:
        raise _bad(text, "an RRULE whose WKST is one of SU, MO, TU, WE, TH, FR, SA")
    return RepeatRule(**fields), _until(text, parts.get("UNTIL"))


def _split_parts(text: str) -> dict[str, str]:
    """Return the RRULE's parts by upper-case name, refusing unknown and repeated ones."""
    body = text.strip().upper()
    if body.startswith("RRULE:"):
        body = body[len("RRULE:") :]
    parts: dict[str, str] = {}
    for chunk in body.split(";"):
        match = _PART.fullmatch(chunk.strip())
        if match is None:
            raise _bad(text, "RRULE text of NAME=VALUE parts separated by ';'")
        name, value = match.groups()
        if name not in _ALLOWED_PARTS:
            raise _bad(text, "an RRULE of FREQ, INTERVAL, BYDAY, BYMONTHDAY, WKST and UNTIL only")
        if name in parts:
            raise _bad(text, f"an RRULE naming {name} once")
        parts[name] = value
    return parts


def _weekly_days(text: str, by_day: str | None) -> frozenset[int]:
    """Return the weekday digits of a weekly BYDAY list."""
    if not by_day:
        raise _bad(text, "a weekly RRULE with BYDAY weekdays (e.g. BYDAY=MO,FR)")
    days: set[int] = set()
    for code in by_day.split(","):
        if code not in _DAY_CODES:
            raise _bad(text, "weekly BYDAY codes without ordinals (SU, MO, TU, WE, TH, FR, SA)")
        days.add(_DAY_CODES.index(code))
    return frozenset(days)


def _monthly_fields(text: str, by_day: str | None, month_day: str | None) -> dict[str, Any]:
    """Return ``month_type`` and ``month_day`` of a monthly rule from BYDAY or BYMONTHDAY."""
    if by_day is not None and month_day is not None:
        raise _bad(text, "a monthly RRULE with BYDAY or BYMONTHDAY, not both")
    if by_day is not None:
        match = _NTH_DAY.fullmatch(by_day)
        if match is None:
            raise _bad(text, "a monthly BYDAY of one weekday with ordinal 1..4 or -1 (e.g. 3TH)")
        ordinal = int(match.group(1))
        week = _LAST_WEEK if ordinal == -1 else ordinal
        return {
            "month_type": MonthType.WEEKDAY,
            "month_day": _DAY_CODES.index(match.group(2)) * 10 + week,
        }
    if month_day is None:
        return {"month_type": MonthType.DAY}
    if not month_day.isdigit() or not 1 <= int(month_day) <= 31:
        raise _bad(text, "a monthly BYMONTHDAY of one day 1..31")
    return {"month_type": MonthType.DAY, "month_day": int(month_day)}


def _until(text: str, value: str | None) -> date | None:
    """Return the date of an UNTIL value (DATE or DATE-TIME), or ``None`` without one."""
    if value is None:
        return None
    match = _UNTIL.fullmatch(value)
    if match is not None:
        try:
            return date(*(int(group) for group in match.groups()))
        except ValueError:
            pass
    raise _bad(text, "an RRULE whose UNTIL is a date YYYYMMDD")


def _bad(text: str, expected: str) -> InvalidFormat:
    """Return the error for RRULE *text* that is not what slotwise can read."""
    return InvalidFormat(field="text", expected=expected, value=text)


def _weekday_digit(day: date) -> int:
    """Return the spec's weekday digit of *day* (0 = Sunday)."""
    return (day.weekday() + 1) % 7


def _nth_weekday(rule: RepeatRule, start_date: date) -> tuple[int, int]:
    """Return ``(weekday digit, week 1..5)`` of a monthly nth-weekday rule."""
    if rule.month_day is not None:
        weekday_digit, week = divmod(rule.month_day, 10)
        return weekday_digit, week
    return _weekday_digit(start_date), (start_date.day - 1) // 7 + 1


def _by_parts(rule: RepeatRule, start_date: date) -> Mapping[str, Any]:
    """Return the rrule BYxxx arguments, explicit so the shifted dtstart changes no default."""
    if rule.frequency is Frequency.WEEKLY:
        return {"byweekday": tuple(_RRULE_DAYS[digit] for digit in sorted(rule.weekdays))}
    if rule.frequency is Frequency.MONTHLY:
        if rule.month_type is MonthType.WEEKDAY:
            digit, week = _nth_weekday(rule, start_date)
            return {"byweekday": _RRULE_DAYS[digit](-1 if week == _LAST_WEEK else week)}
        return {"bymonthday": start_date.day if rule.month_day is None else rule.month_day}
    if rule.frequency is Frequency.YEARLY:
        return {"bymonth": start_date.month, "bymonthday": start_date.day}
    return {}


def _month_index(day: date) -> int:
    """Return the number of months from year 0 to *day*'s month."""
    return day.year * 12 + day.month - 1


def _sunday_on_or_before(day: date) -> date:
    """Return the Sunday that starts *day*'s week (weeks start on Sunday)."""
    return day - timedelta(days=_weekday_digit(day))


def _aligned_start(rule: RepeatRule, start_date: date, low: date, high: date) -> date | None:
    """
    Return a dtstart for the rule that selects the same dates from *low* on, in *low*'s period.

    ``None`` when the rule cannot select a date in ``[low, high]`` (checked for daily rules only,
    whose aligned start may otherwise lie past ``date.max``).

    The result is ``start_date`` itself or the first date of a period (day, Sunday-started week,
    month, year) that is a whole number of ``interval`` periods after ``start_date``'s, at or before
    *low*'s period. rrule counts intervals from dtstart's period, so nothing changes from *low* on;
    only the periods between are skipped (the by-parts are explicit, see :func:`_by_parts`).
    """
    step = rule.interval
    if rule.frequency is Frequency.DAILY:
        periods = -(-(low - start_date).days // step)  # ceil: the first occurrence on/after low
        ordinal = start_date.toordinal() + periods * step
        return date.fromordinal(ordinal) if ordinal <= high.toordinal() else None
    if rule.frequency is Frequency.WEEKLY:
        week0 = _sunday_on_or_before(start_date)
        weeks = (_sunday_on_or_before(low) - week0).days // 7
        return max(start_date, week0 + timedelta(weeks=weeks // step * step))
    if rule.frequency is Frequency.MONTHLY:
        months = _month_index(low) - _month_index(start_date)
        index = _month_index(start_date) + months // step * step
        return max(start_date, date(index // 12, index % 12 + 1, 1))
    year = start_date.year + (low.year - start_date.year) // step * step
    return max(start_date, date(year, 1, 1))


def _can_occur(rule: RepeatRule, start_date: date) -> bool:
    """
    Tell whether the rule selects any date at all (ignoring its end date).

    Only a monthly rule on an explicit day 29..31 can select nothing (on the 30th every 12 months
    from February). dateutil would then search to year 9999 (about 45 ms) before giving up, because
    it checks ``until`` only against dates it found; this check makes such rules cost nothing.
    """
    if rule.frequency is not Frequency.MONTHLY or rule.month_type is not MonthType.DAY:
        return True
    if rule.month_day is None or rule.month_day <= 28:
        return True
    return _month_day_occurs(start_date.year % 400, start_date.month, rule.interval, rule.month_day)


@functools.lru_cache(maxsize=1024)
def _month_day_occurs(year_in_cycle: int, month: int, interval: int, day: int) -> bool:
    """Tell whether some month visited every *interval* months from the given one has *day*."""
    # Months repeat their lengths every 4800 months, so the visited months repeat after
    # 4800 / gcd(interval, 4800) steps: scanning one cycle is exhaustive.
    index = year_in_cycle * 12 + month - 1
    for _ in range(_CYCLE_MONTHS // math.gcd(interval, _CYCLE_MONTHS)):
        year, month_zero = divmod(index, 12)
        # 2000 + (year mod 400) has the same leap status as the year itself.
        if calendar.monthrange(2000 + year % 400, month_zero + 1)[1] >= day:
            return True
        index += interval
    return False
