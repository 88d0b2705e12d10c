"""
Where RFC 5545 and slotwise place a wall time differently: edges inside a DST gap or fold.

RFC 5545 3.3.5 reads a wall time that does not exist (inside a gap) with the offset before the
gap, and an ambiguous one (inside a fold) as its first instant. slotwise (decision 2) takes the
first instant after a gap, and a fold's later instant for a window's end. On the few dates where
a window edge is such a time, the export writes the instance itself (``RECURRENCE-ID``) with the
instants slotwise uses, so every reader places it where slotwise does.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator
from datetime import UTC, date, datetime, time, timedelta
from typing import Final
from zoneinfo import ZoneInfo

from slotwise._time import zone
from slotwise.model import Allocation, Block
from slotwise.rules.repeat import occurrence_dates, window_instants

__all__ = ["HORIZON", "Divergence", "divergences", "wall"]

HORIZON: Final = date(2037, 12, 31)
"""The last date overrides are written for: the end of the ``VTIMEZONE`` icalendar builds."""

Divergence = tuple[datetime, tuple[datetime, datetime] | None]
"""An instance's RFC 5545 start (its ``RECURRENCE-ID``) and slotwise's instants (None: empty)."""


def wall(day: date, hhmm: int, tz: ZoneInfo) -> datetime:
    """Return wall time *hhmm* on *day* (``2400`` is the next midnight), as a zoned datetime."""
    # Same-zone arithmetic is wall-clock arithmetic: the result keeps the wall time, as RFC
    # 5545 readers compute an instance's end from DTSTART plus the event's wall duration.
    midnight = datetime.combine(day, time(0), tz)
    return midnight + timedelta(minutes=(hhmm // 100) * 60 + hhmm % 100)


@functools.lru_cache(maxsize=256)
def _changes_in_year(zone_name: str, year: int) -> tuple[date, ...]:
    """Return the dates of *year* whose midnight offset differs from the next midnight's."""
    tz = zone(zone_name)
    day, found = date(year, 1, 1), []
    offset = datetime.combine(day, time(0), tz).utcoffset()
    while day.year == year:
        following = datetime.combine(day + timedelta(days=1), time(0), tz).utcoffset()
        if following != offset:
            found.append(day)
        day, offset = day + timedelta(days=1), following
    return tuple(found)


def _candidate_dates(zone_name: str, first: date, last: date) -> Iterator[date]:
    """Yield the dates in ``[first, last]`` next to an offset change (a gap or fold may touch)."""
    seen: set[date] = set()
    for year in range(first.year, last.year + 1):
        for change in _changes_in_year(zone_name, year):
            for day in (change - timedelta(days=1), change, change + timedelta(days=1)):
                if first <= day <= last and day not in seen:
                    seen.add(day)
                    yield day


def divergences(window: Block | Allocation, zone_name: str, first: date) -> list[Divergence]:
    """
    Return the instances of *window*, from *first* to its end (at most :data:`HORIZON`), that an
    RFC 5545 reader would place elsewhere than slotwise, in date order.
    """
    last = min(window.end_date, HORIZON)
    if first > last:
        return []
    tz = zone(zone_name)
    found: list[Divergence] = []
    for day in sorted(_candidate_dates(zone_name, first, last)):
        if not occurrence_dates(window, day, day):
            continue
        rfc_start, rfc_end = wall(day, window.start_time, tz), wall(day, window.end_time, tz)
        low, high = window_instants(window, day, tz)
        # An instance slotwise reads as empty diverges even where RFC 5545 reads it as empty
        # too (02:00-03:00 on a spring gap is 03:00-03:00): readers would show a zero-length
        # event, so it is excluded.
        if low < high and (low, high) == (rfc_start.astimezone(UTC), rfc_end.astimezone(UTC)):
            continue
        found.append((rfc_start, (low, high) if low < high else None))
    return found
