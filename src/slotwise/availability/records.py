"""
What the calculator knows of one searched date (``_DayRecord``: its window, business and service
hours, blocks and allocations) and of one candidate resource (``_Resource``: its windows, and its
appointments as constant-load segments), in minutes.
"""

from __future__ import annotations

import itertools
import operator
from collections.abc import Mapping
from datetime import date
from typing import Final, NamedTuple, Protocol

from slotwise._time import (
    MINUTES_PER_DAY,
)
from slotwise.model import (
    Appointment,
    Resource,
)

from ._minutes import (
    Span,
    _Layer,
    _merge,
    _wall,
    _window_spans,
)
from .snapshot import Snapshot


class _Window(NamedTuple):
    """One occurrence of an allocation on a date, in minutes."""

    start: int
    end: int
    limit: int
    id: str


class _DaySources(Protocol):
    """What a date's record is built from: the calculator's setup (``_setup._CalculatorSetup``)."""

    @property
    def snapshot(self) -> Snapshot: ...
    @property
    def zone_name(self) -> str: ...
    @property
    def search_from(self) -> int: ...
    @property
    def search_to(self) -> int: ...
    @property
    def service_windows(self) -> Mapping[date, list[_Window]]: ...
    @property
    def calendar_blocks(self) -> Mapping[date, list[_Layer]]: ...
    @property
    def service_blocks(self) -> Mapping[date, list[_Layer]]: ...


class _DayRecord:
    """What a searched location date holds, whoever the resource."""

    __slots__ = (
        "business",
        "calendar_blocks",
        "closed",
        "date",
        "end",
        "holiday",
        "search",
        "service_blocks",
        "service_hours",
        "service_windows",
        "start",
    )

    def __init__(self, calc: _DaySources, day: date) -> None:
        snapshot = calc.snapshot
        name = calc.zone_name
        self.date = day
        self.start = _wall(name, day, 0, "start")
        self.end = _wall(name, day, MINUTES_PER_DAY, "end")
        low = calc.search_from
        high = calc.search_to
        search_start = self.start if low == 0 else _wall(name, day, low, "start")
        search_end = self.end if high == MINUTES_PER_DAY else _wall(name, day, high, "end")
        self.search: list[Span] = [(search_start, search_end)] if search_start < search_end else []
        self.holiday = next((h for h in snapshot.location.holidays if h.date == day), None)
        hours = snapshot.location.business_hours.for_date(day)
        self.closed = self.holiday is not None or not hours.is_open
        self.business = _window_spans(name, day, hours.window)
        self.service_hours = _window_spans(name, day, snapshot.service.availability.for_date(day))
        self.service_windows: list[_Window] = calc.service_windows.get(day, [])
        self.calendar_blocks: list[_Layer] = calc.calendar_blocks.get(day, [])
        self.service_blocks: list[_Layer] = calc.service_blocks.get(day, [])


class _Resource:
    """One candidate resource, with its appointments and windows in minutes."""

    __slots__ = (
        "allocations",
        "blocks",
        "busy_ends",
        "busy_starts",
        "daily",
        "daily_ids",
        "id",
        "ids",
        "ignore_business_hours",
        "index",
        "load",
        "own",
        "profile",
        "recurring",
        "resource",
        "segment_counts",
        "segment_ends",
        "segment_groups",
        "segment_starts",
        "segment_weights",
        "zone_name",
    )

    def __init__(self, resource: Resource, index: int) -> None:
        self.resource = resource
        self.id = resource.id
        self.ids = (resource.id,)
        self.index = index
        self.zone_name = resource.timezone
        self.ignore_business_hours = resource.options.ignore_business_hours
        self.recurring = resource.recurring_availability
        self.blocks: dict[date, list[_Layer]] = {}
        self.allocations: dict[date, list[_Window]] = {}
        self.own: list[Appointment] = []
        self.daily: dict[date, tuple[int, int]] | None = None
        self.daily_ids: dict[date, list[str]] = {}
        self.load = 0
        self.profile = 0
        self.segment_starts: list[int] = []
        self.segment_ends: list[int] = []
        self.segment_counts: list[int] = []
        self.segment_groups: list[int] = []
        self.segment_weights: list[int] = []
        self.busy_starts: list[int] = []
        self.busy_ends: list[int] = []

    def set_occupancy(self) -> None:
        """
        Turn the occupations into disjoint constant-load segments.

        ``_Calculator._appointments`` first appends each active appointment's ``[start, end)``,
        group size and weight to ``segment_starts``, ``segment_ends``, ``segment_groups`` and
        ``segment_weights``: 1 for an appointment of the searched service, :data:`_FULL` for
        one of another service, which leaves no room at all (decision 8a).
        """
        starts, ends, groups = self.segment_starts, self.segment_ends, self.segment_groups
        weights = self.segment_weights
        # The common case (one booking at a time, read in start order): each occupation ends
        # before the next starts, so each is its own segment of its own weight (start < end).
        if all(map(operator.le, ends, itertools.islice(starts, 1, None))):
            self.segment_counts = weights
            return
        changes: dict[int, list[int]] = {}
        for start, end, group, weight in zip(starts, ends, groups, weights, strict=True):
            first = changes.setdefault(start, [0, 0])
            first[0] += weight
            first[1] += group
            last = changes.setdefault(end, [0, 0])
            last[0] -= weight
            last[1] -= group
        self.segment_starts, self.segment_ends = [], []
        self.segment_counts, self.segment_groups = [], []
        count = groups_sum = 0
        previous = 0
        for point in sorted(changes):
            if count > 0 and point > previous:
                self.segment_starts.append(previous)
                self.segment_ends.append(point)
                self.segment_counts.append(count)
                self.segment_groups.append(groups_sum)
            count += changes[point][0]
            groups_sum += changes[point][1]
            previous = point

    def set_busy(self, spans: list[Span]) -> None:
        """Keep the merged external busy intervals."""
        for start, end in _merge(spans):
            self.busy_starts.append(start)
            self.busy_ends.append(end)


_Offer = tuple[int, int, int, int, int, int, tuple[str, ...]]


_offer_start: Final = operator.itemgetter(0)
"""A bookable time of one resource (or of all named resources together), as a plain tuple
(cheaper than a named one on the hot path): start minute, the resource's rank among the
candidates, allowable bookings, available bookings, allowable capacity, available capacity,
and the ids of the resource(s). ``(start, rank)`` is unique within a date, so offers sort by
it alone."""
