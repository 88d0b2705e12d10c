"""
The one place where wall times meet instants.

HHMM integers (``830`` = 08:30, ``2400`` = end of day) are the spec's times of day. Zones come from
``zoneinfo`` backed by ``tzdata``; the system zone is never consulted. Policy for wall times that do
not exist or exist twice (decision 2, ``docs/semantics.md``):

* a wall time inside a DST **gap** maps to the first instant after the gap;
* a wall time inside a DST **fold** maps to the earlier instant when it starts a window and to the
  later instant when it ends one, so a window never loses the repeated hour; an end exactly at the
  fold's first repeated wall time (01:00 when 02:00 falls back to 01:00) maps to the earlier
  instant, since no wall time before it is repeated.
"""

from __future__ import annotations

import functools
from datetime import UTC, date, datetime, time, timedelta, tzinfo
from importlib import resources
from typing import Literal
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from .errors import InvalidTimeOfDay, InvalidTimeZone, NaiveDatetime

__all__ = [
    "END_OF_DAY",
    "WindowEdge",
    "available_zone_names",
    "clock_text",
    "day_bounds",
    "ensure_aware",
    "hhmm_to_minutes",
    "is_valid_hhmm",
    "minutes_to_hhmm",
    "to_utc",
    "utc_offset_minutes",
    "validate_hhmm",
    "wall_hour_happens",
    "wall_to_instant",
    "zone",
]

END_OF_DAY = 2400
MINUTES_PER_DAY = 1440

WindowEdge = Literal["start", "end"]


def is_valid_hhmm(value: object) -> bool:
    """Tell whether *value* is an int HHMM in 0..2400 with minutes 00..59."""
    if not isinstance(value, int) or isinstance(value, bool):
        return False
    return 0 <= value <= END_OF_DAY and value % 100 < 60


def validate_hhmm(value: object, *, field: str) -> int:
    """
    Return *value* when it is a valid HHMM time.

    Raises:
        InvalidTimeOfDay: when it is not.
    """
    if not is_valid_hhmm(value):
        raise InvalidTimeOfDay(field=field, value=value)
    assert isinstance(value, int)
    return value


def hhmm_to_minutes(hhmm: int) -> int:
    """Return the minutes after midnight of an HHMM value (``2400`` -> ``1440``)."""
    return (hhmm // 100) * 60 + hhmm % 100


def minutes_to_hhmm(minutes: int) -> int:
    """Return the HHMM value of *minutes* after midnight (``1440`` -> ``2400``)."""
    return (minutes // 60) * 100 + minutes % 60


def clock_text(hours: int, minutes: int) -> str:
    """Return a wall time as the spec's 12-hour display text (``9, 0`` -> ``"9:00 AM"``)."""
    hours %= 24  # 2400, the end of a day, reads as the midnight it is
    suffix = "AM" if hours < 12 else "PM"
    return f"{hours % 12 or 12}:{minutes:02d} {suffix}"


@functools.lru_cache(maxsize=512)
def _load_zone(name: str) -> ZoneInfo:
    # Read the rules from the tzdata package, not the host's /usr/share/zoneinfo, so the same
    # inputs give the same instants on every machine whatever its system tz database version.
    path = resources.files("tzdata.zoneinfo").joinpath(*name.split("/"))
    with path.open("rb") as data:
        return ZoneInfo.from_file(data, key=name)


def zone(name: object, *, field: str = "timezone") -> ZoneInfo:
    """
    Return the IANA zone called *name*.

    Raises:
        InvalidTimeZone: when *name* is not a known IANA zone name.
    """
    if name.__class__ is str:
        found = _ZONES.get(name)
        if found is not None:
            return found  # checked and loaded before (every query and booking asks again)
    if not isinstance(name, str) or not name or name != name.strip():
        raise InvalidTimeZone(field=field, value=name)
    if not is_zone_name(name):
        raise InvalidTimeZone(field=field, value=name)
    try:
        found = _load_zone(name)
    except (ZoneInfoNotFoundError, ValueError):
        raise InvalidTimeZone(field=field, value=name) from None
    if len(_ZONES) < _ZONES_LIMIT:
        _ZONES[name] = found
    return found


_ZONES: dict[str, ZoneInfo] = {}
"""The zones :func:`zone` has checked and loaded, by name (at most one per IANA name)."""
_ZONES_LIMIT = 1024


@functools.cache
def _zone_names() -> frozenset[str]:
    # The names tzdata ships ("UTC" included). zoneinfo.available_timezones() also walks the
    # system TZPATH, which lists "localtime" (a link to the machine's own zone): that name must
    # be refused, since the system zone is never consulted (STYLE rule 22).
    listing = resources.files("tzdata").joinpath("zones").read_text(encoding="utf-8")
    return frozenset(listing.split())


def is_zone_name(name: str) -> bool:
    """Tell whether *name* is an IANA zone name tzdata knows."""
    return name in _zone_names()


def available_zone_names() -> list[str]:
    """Return every IANA zone name tzdata knows, sorted."""
    return sorted(_zone_names())


def ensure_aware(value: datetime, *, field: str) -> datetime:
    """
    Return *value* unchanged when it carries a UTC offset.

    Raises:
        NaiveDatetime: when it does not; slotwise never assumes a zone.
    """
    if value.tzinfo is None or value.tzinfo.utcoffset(value) is None:
        raise NaiveDatetime(field=field)
    return value


def to_utc(value: datetime, *, field: str) -> datetime:
    """Return the aware *value* converted to UTC (naive values are refused)."""
    if value.__class__ is datetime and value.tzinfo is UTC:
        return value  # UTC already (what records and the clock hand over)
    return ensure_aware(value, field=field).astimezone(UTC)


def utc_offset_minutes(instant: datetime, tz: ZoneInfo) -> int:
    """Return the offset of *tz* from UTC at *instant*, in minutes east of UTC."""
    offset = instant.astimezone(tz).utcoffset()
    assert offset is not None
    return int(offset.total_seconds() // 60)


def wall_to_instant(day: date, minutes: int, tz: ZoneInfo, *, edge: WindowEdge) -> datetime:
    """
    Return the UTC instant of wall time *minutes* after midnight of *day* in *tz*.

    ``minutes`` may be 1440 (the end of the day, i.e. midnight of the next date).
    A wall time inside a gap maps to the first instant after the gap; inside a fold, a window
    ``start`` takes the earlier instant and a window ``end`` the later one (the earlier one when
    the end is exactly the fold's first repeated wall time, as no earlier wall time repeats).
    """
    local = datetime.combine(day, time()) + timedelta(minutes=minutes)
    earlier = local.replace(tzinfo=tz, fold=0).astimezone(UTC)
    later = local.replace(tzinfo=tz, fold=1).astimezone(UTC)
    if earlier == later:
        return earlier
    if earlier > later:
        # In a gap PEP 495 inverts the two readings; the gap's end lies between them.
        return _first_instant_after_gap(later, earlier, tz)
    if edge == "start":
        return earlier
    # An end exactly at the first repeated wall time (01:00 when 02:00 EDT falls back to 01:00
    # EST) holds no repeated time: the wall times before it were all shown before the fold, so
    # the window ends at the first pass. Otherwise it ends after the second pass.
    just_before = local - timedelta(seconds=1)
    if (
        just_before.replace(tzinfo=tz, fold=0).utcoffset()
        == just_before.replace(tzinfo=tz, fold=1).utcoffset()
    ):
        return earlier
    return later


cached_wall_to_instant = functools.lru_cache(maxsize=4096)(wall_to_instant)
""":func:`wall_to_instant`, remembered: for callers that ask again for the same few wall times
(a booking's check of its slot's end). Same arguments, same answer, keyword ``edge`` included."""


def _first_instant_after_gap(low: datetime, high: datetime, tz: ZoneInfo) -> datetime:
    """Return the transition instant in (low, high]: the first instant whose offset is the new one."""
    after = high.astimezone(tz).utcoffset()
    lo, hi = low, high
    while hi - lo > timedelta(seconds=1):
        mid = lo + (hi - lo) / 2
        mid = mid.replace(microsecond=0)
        if mid.astimezone(tz).utcoffset() == after:
            hi = mid
        else:
            lo = mid
    return hi


def wall_hour_happens(day: date, hour: int, tz: tzinfo | None) -> bool:
    """
    Tell whether any of the wall hour *hour* (0-23) of *day* happens in the zone *tz*: its
    first or its last minute (the clocks going forward skip it; a zone may skip half an hour).
    """
    for minute in (0, 59):
        wall = datetime.combine(day, time(hour, minute), tz)
        # A wall time the clocks skip does not come back from UTC as itself.
        if wall.astimezone(UTC).astimezone(tz).replace(tzinfo=None) == wall.replace(tzinfo=None):
            return True
    return False


def day_bounds(day: date, tz: ZoneInfo) -> tuple[datetime, datetime]:
    """Return the UTC instants of the start and end of *day* in *tz* (23, 24 or 25 hours apart)."""
    return (
        wall_to_instant(day, 0, tz, edge="start"),
        wall_to_instant(day, MINUTES_PER_DAY, tz, edge="end"),
    )
