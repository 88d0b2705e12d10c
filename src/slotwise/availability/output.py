"""
Building what the calculator returns: datetimes, dates and display texts ("9:00 AM") of minutes
in the output zone (the query's offset or zone, else the location's), each worked out once.
"""

from __future__ import annotations

from collections.abc import Iterable
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

    def add_slot_times(self, minutes: Iterable[int], duration: int) -> None:
        """
        Put ``(start, end, date, HHMM, display text, duration)`` of a slot starting at each of
        *minutes* (none of them there yet) into ``slot_cache``. :meth:`instant` is inline: every
        start of an answer is worked out here, and a call per slot and instant cost as much as
        the lookups.
        """
        instants, cache, tz = self._instants, self.slot_cache, self.tz
        from_timestamp = datetime.fromtimestamp
        for minute in minutes:
            moment = instants.get(minute)
            if moment is None:
                moment = instants[minute] = from_timestamp(minute * 60, tz)
            end = instants.get(minute + duration)
            if end is None:
                end = instants[minute + duration] = from_timestamp((minute + duration) * 60, tz)
            hhmm = moment.hour * 100 + moment.minute
            display = _DISPLAY.get(hhmm)
            if display is None:
                display = _DISPLAY[hhmm] = clock_text(moment.hour, moment.minute)
            cache[minute] = (moment, end, moment.date(), hhmm, display, duration)

    def next_midnight(self, minute: int) -> int:
        """Return the first midnight of the output zone after *minute*."""
        if self.offset is not None:
            return ((minute + self.offset) // MINUTES_PER_DAY + 1) * MINUTES_PER_DAY - self.offset
        next_day = self.wall(minute)[1] + timedelta(days=1)
        found = _wall(self.zone_name, next_day, 0, "start")
        # An offset with seconds (local mean time, before standard zones: Kolkata +05:21:10
        # until 1906) puts midnight inside a minute, which is then still the day before: the
        # next day starts with the minute after it, so a walk from day to day moves on.
        return found if found > minute else minute + 1
