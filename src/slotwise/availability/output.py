"""
Building what the calculator returns: datetimes, dates and display texts ("9:00 AM") of minutes
in the output zone (the query's offset or zone, else the location's), each worked out once.
"""

from __future__ import annotations

from datetime import date, datetime, timedelta, timezone, tzinfo

from slotwise._time import (
    MINUTES_PER_DAY,
    clock_text,
    zone,
)

from ._minutes import (
    _wall,
)
from .query import AvailabilityQuery

_DISPLAY: dict[int, str] = {}
"""Display texts by HHMM, filled as they are first needed (at most 1,440)."""


class _Output:
    """Turns minutes into datetimes and wall values of the requested output zone (decision 3)."""

    def __init__(self, query: AvailabilityQuery, location_zone: str) -> None:
        self.offset: int | None = query.tz_offset
        self.zone_name = query.timezone_name or location_zone
        self.tz: tzinfo = (
            timezone(timedelta(minutes=query.tz_offset))
            if query.tz_offset is not None
            else zone(self.zone_name)
        )
        self._walls: dict[int, tuple[datetime, date, int, str]] = {}
        self._instants: dict[int, datetime] = {}
        self.slot_cache: dict[int, tuple[datetime, datetime, date, int, str, int]] = {}

    def instant(self, minute: int) -> datetime:
        """Return the datetime of *minute* in the output zone."""
        found = self._instants.get(minute)
        if found is None:
            found = self._instants[minute] = datetime.fromtimestamp(minute * 60, self.tz)
        return found

    def wall(self, minute: int) -> tuple[datetime, date, int, str]:
        """Return ``(datetime, date, HHMM, display text)`` of *minute* in the output zone."""
        found = self._walls.get(minute)
        if found is None:
            moment = self.instant(minute)
            found = self._walls[minute] = (
                moment,
                moment.date(),
                moment.hour * 100 + moment.minute,
                clock_text(moment.hour, moment.minute),
            )
        return found

    def slot_times(
        self, minute: int, duration: int
    ) -> tuple[datetime, datetime, date, int, str, int]:
        """Return ``(start, end, date, HHMM, display text, duration)`` of a slot at *minute*."""
        found = self.slot_cache.get(minute)
        if found is None:
            moment = self.instant(minute)
            hhmm = moment.hour * 100 + moment.minute
            display = _DISPLAY.get(hhmm)
            if display is None:
                display = _DISPLAY[hhmm] = clock_text(moment.hour, moment.minute)
            found = self.slot_cache[minute] = (
                moment,
                self.instant(minute + duration),
                moment.date(),
                hhmm,
                display,
                duration,
            )
        return found

    def next_midnight(self, minute: int) -> int:
        """Return the first midnight of the output zone after *minute*."""
        if self.offset is not None:
            return ((minute + self.offset) // MINUTES_PER_DAY + 1) * MINUTES_PER_DAY - self.offset
        next_day = self.wall(minute)[1] + timedelta(days=1)
        return _wall(self.zone_name, next_day, 0, "start")
