"""
The calculator's arithmetic: instants as whole minutes since the Unix epoch, wall times placed
through ``_time``, half-open spans and their algebra, and the labels of unavailable minutes
(decision 15) in their order of precedence.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Sequence
from datetime import UTC, date, datetime, timedelta
from typing import Final, NamedTuple

from slotwise._time import (
    MINUTES_PER_DAY,
    WindowEdge,
    hhmm_to_minutes,
    wall_to_instant,
    zone,
)
from slotwise.model import (
    DayWindow,
)

from .results import (
    Reason,
)

Span = tuple[int, int]
"""A half-open interval ``[start, end)`` in minutes since the Unix epoch."""
_EPOCH: Final = datetime(1970, 1, 1, tzinfo=UTC)
_FAR: Final = 2**62

REASON_TEXTS: Final[dict[Reason, str]] = {
    Reason.TIME_PAST: "Time past",
    Reason.BEYOND_BOOK_AHEAD: "Beyond book-ahead",
    Reason.CLOSED: "Location closed",
    Reason.HOLIDAY: "Holiday",
    Reason.OUTSIDE_SERVICE_HOURS: "Outside service hours",
    Reason.OUTSIDE_RESOURCE_HOURS: "Outside resource hours",
    Reason.CALENDAR_BLOCK: "Calendar block",
    Reason.SERVICE_BLOCK: "Service block",
    Reason.RESOURCE_BLOCK: "Resource block",
    Reason.NO_ALLOCATION: "No allocation",
    Reason.FULLY_BOOKED: "Fully booked",
    Reason.DAILY_LIMIT: "Daily limit reached",
    Reason.EXTERNAL_BUSY: "Busy in external calendar",
}
"""The ``reason`` text of each code (blocks use their own reason when they have one)."""


# The order labels are applied in; it also breaks ties when a day's reason is chosen.
_PRECEDENCE: Final = (
    Reason.TIME_PAST,
    Reason.BEYOND_BOOK_AHEAD,
    Reason.HOLIDAY,
    Reason.CLOSED,
    Reason.OUTSIDE_SERVICE_HOURS,
    Reason.NO_ALLOCATION,
    Reason.OUTSIDE_RESOURCE_HOURS,
    Reason.CALENDAR_BLOCK,
    Reason.SERVICE_BLOCK,
    Reason.RESOURCE_BLOCK,
    Reason.EXTERNAL_BUSY,
    Reason.FULLY_BOOKED,
    Reason.DAILY_LIMIT,
)


class _Label(NamedTuple):
    reason: Reason
    text: str
    entity_type: str | None
    entity_id: str | None


# A layer is (keep, spans, label): a "keep" layer labels what lies outside its spans, a "cut"
# layer labels what lies inside them; either way the labelled part leaves the remaining time.
_Layer = tuple[bool, Sequence[Span], _Label]


@functools.lru_cache(maxsize=4096)
def _label(reason: Reason, entity_type: str | None = None, entity_id: str | None = None) -> _Label:
    # Labels are immutable and every query asks for the same few (a layer's label is built
    # whether or not the query reports unavailable time): one object each, not one per query.
    return _Label(reason, REASON_TEXTS[reason], entity_type, entity_id)


_TP: Final = _label(Reason.TIME_PAST)
_BA: Final = _label(Reason.BEYOND_BOOK_AHEAD)
_FULL: Final = 1 << 30
"""The load of an appointment of another service: more than any booking limit (decision 8a)."""
_BK: Final = _label(Reason.FULLY_BOOKED)


def _floor_minute(instant: datetime) -> int:
    delta = instant - _EPOCH
    return delta.days * MINUTES_PER_DAY + delta.seconds // 60


def _ceil_minute(instant: datetime) -> int:
    delta = instant - _EPOCH
    minute = delta.days * MINUTES_PER_DAY + delta.seconds // 60
    return minute + 1 if delta.seconds % 60 or delta.microseconds else minute


def _instant(minute: int) -> datetime:
    return _EPOCH + timedelta(minutes=minute)


@functools.lru_cache(maxsize=16384)
def _wall(zone_name: str, day: date, minutes: int, edge: WindowEdge) -> int:
    """Return the minute of wall time *minutes* on *day* in the zone (decision 2 edges)."""
    return _floor_minute(wall_to_instant(day, minutes, zone(zone_name), edge=edge))


def _window_spans(zone_name: str, day: date, window: DayWindow) -> list[Span]:
    if window.is_closed:
        return []
    start = _wall(zone_name, day, hhmm_to_minutes(window.start_time), "start")
    end = _wall(zone_name, day, hhmm_to_minutes(window.end_time), "end")
    return [(start, end)] if start < end else []


def _intersect(first: Sequence[Span], second: Sequence[Span]) -> list[Span]:
    found: list[Span] = []
    i = j = 0
    while i < len(first) and j < len(second):
        low = max(first[i][0], second[j][0])
        high = min(first[i][1], second[j][1])
        if low < high:
            found.append((low, high))
        if first[i][1] < second[j][1]:
            i += 1
        else:
            j += 1
    return found


def _subtract(spans: Sequence[Span], cuts: Sequence[Span]) -> list[Span]:
    found: list[Span] = []
    j = 0
    for low, high in spans:
        while j < len(cuts) and cuts[j][1] <= low:
            j += 1
        cursor = low
        k = j
        while k < len(cuts) and cuts[k][0] < high:
            if cuts[k][0] > cursor:
                found.append((cursor, cuts[k][0]))
            cursor = max(cursor, cuts[k][1])
            if cursor >= high:
                break
            k += 1
        if cursor < high:
            found.append((cursor, high))
    return found


def _merge(spans: Iterable[Span]) -> list[Span]:
    found: list[Span] = []
    for low, high in sorted(spans):
        if low >= high:
            continue
        if found and low <= found[-1][1]:
            if high > found[-1][1]:
                found[-1] = (found[-1][0], high)
        else:
            found.append((low, high))
    return found


def _apply(
    remaining: list[Span], layers: Iterable[_Layer], out: list[tuple[int, int, _Label]] | None
) -> list[Span]:
    """Label *remaining* with each layer in turn; return what no layer labelled."""
    for keep, spans, label in layers:
        if not remaining:
            break
        if keep:
            taken = _subtract(remaining, spans) if out is not None else None
            remaining = _intersect(remaining, spans)
        else:
            taken = _intersect(remaining, spans) if out is not None else None
            remaining = _subtract(remaining, spans)
        if out is not None and taken:
            out.extend((low, high, label) for low, high in taken)
    return remaining
