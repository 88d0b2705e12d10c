"""
The brute-force answer to a workload scenario (``scenario.py``), straight from its documented format.

"Every (resource, slot start) such that [start, start+duration) lies inside that day's working
hours and no existing booking of the resource lies within ``buffer`` minutes of it", with the slot
grid anchored at ``open`` and stepping by ``step``. Deliberately slow and obvious: it shares no
code with slotwise, so ``workload.py --check`` compares the calculator with an independent answer.

Two readings the docstring leaves open, taken as slotwise's decisions state them:

- "within ``buffer`` minutes" is strict: a booking ending exactly ``buffer`` minutes before a slot
  starts (or starting exactly ``buffer`` minutes after it ends) leaves the slot free (decision 7:
  an appointment occupies [start, end + padding), half-open).
- wall times are placed in absolute time before any arithmetic, and the grid steps in absolute
  minutes (decisions 2 and 6); a boundary in a DST gap moves to the first instant after the gap,
  one in a fold takes the earlier instant for ``open`` and the later one for ``close``.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping
from datetime import UTC, date, datetime, time, timedelta
from typing import Any
from zoneinfo import ZoneInfo

__all__ = ["expected_slots", "format_utc", "parse_utc"]

MINUTE = timedelta(minutes=1)


def parse_utc(text: str) -> datetime:
    """Return the aware UTC instant of ``YYYY-MM-DDTHH:MM:SSZ``."""
    return datetime.strptime(text, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=UTC)


def format_utc(instant: datetime) -> str:
    """Return *instant* as ``YYYY-MM-DDTHH:MM:SSZ``."""
    return instant.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _wall(day: date, hhmm: str) -> datetime:
    hours, minutes = (int(part) for part in hhmm.split(":"))
    # "24:00" is the end of the day.
    return datetime.combine(day, time()) + timedelta(hours=hours, minutes=minutes)


def _instant(wall: datetime, zone: ZoneInfo, *, is_end: bool) -> datetime:
    earlier = wall.replace(tzinfo=zone, fold=0).astimezone(UTC)
    later = wall.replace(tzinfo=zone, fold=1).astimezone(UTC)
    low, high = min(earlier, later), max(earlier, later)
    exists = [
        instant for instant in (low, high) if instant.astimezone(zone).replace(tzinfo=None) == wall
    ]
    if exists:
        # Fold (two instants): a window start takes the earlier, a window end the later.
        return exists[-1] if is_end else exists[0]
    # Gap: the first instant whose wall time is at or after the requested one.
    instant = low
    while instant.astimezone(zone).replace(tzinfo=None) < wall:
        instant += MINUTE
    return instant


def expected_slots(scenario: Mapping[str, Any]) -> list[tuple[str, str]]:
    """
    Return every ``(resource, start)`` the workload should offer, sorted, start as UTC text.

    Args:
        scenario: a ``scenario.py`` scenario (``tz``, ``start_date``, ``end_date``, ``weekdays`` with
            0 = Monday, ``open``, ``close``, ``duration``, ``step``, ``buffer``, ``resources``,
            ``bookings``).
    """
    zone = ZoneInfo(scenario["tz"])
    duration = timedelta(minutes=scenario["duration"])
    step = timedelta(minutes=scenario["step"])
    buffer = timedelta(minutes=scenario.get("buffer", 0))
    booked: dict[str, list[tuple[datetime, datetime]]] = defaultdict(list)
    for booking in scenario["bookings"]:
        booked[booking["resource"]].append(
            (parse_utc(booking["start_utc"]), parse_utc(booking["end_utc"]))
        )
    day = date.fromisoformat(scenario["start_date"])
    last = date.fromisoformat(scenario["end_date"])
    weekdays = set(scenario["weekdays"])
    found: list[tuple[str, str]] = []
    while day <= last:
        if day.weekday() in weekdays:
            opens = _instant(_wall(day, scenario["open"]), zone, is_end=False)
            closes = _instant(_wall(day, scenario["close"]), zone, is_end=True)
            start = opens
            while start + duration <= closes:
                end = start + duration
                for resource in scenario["resources"]:
                    clashes = any(
                        taken_start < end + buffer and start < taken_end + buffer
                        for taken_start, taken_end in booked[resource]
                    )
                    if not clashes:
                        found.append((resource, format_utc(start)))
                start += step
        day += timedelta(days=1)
    return sorted(found)
