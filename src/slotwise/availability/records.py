"""
What the calculator knows of one searched date (``_DayRecord``: its window, business and service
hours, blocks and allocations) and of one candidate resource (``_Resource``: its windows, and its
appointments as constant-load segments), in minutes.
"""

from __future__ import annotations

import itertools
import operator
from collections.abc import Mapping
from datetime import date, datetime
from typing import Final, NamedTuple, Protocol

from slotwise._time import (
    MINUTES_PER_DAY,
)
from slotwise.model import (
    Appointment,
    Resource,
)

from ._minutes import (
    _FULL,
    Span,
    _ceil_minute,
    _floor_minute,
    _Layer,
    _merge,
    _wall,
    _window_spans,
)
from .snapshot import Snapshot

_START_OF: Final = operator.attrgetter("start")
_END_OF: Final = operator.attrgetter("end")
_SERVICE_OF: Final = operator.attrgetter("service_id")
_GROUP_OF: Final = operator.attrgetter("group_size")


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
        self.search: list[Span] = [(self.start, self.end)] if self.start < self.end else []
        """The searched part of the day: all of it here; a query's own window in ``narrowed``."""
        self.holiday = next((h for h in snapshot.location.holidays if h.date == day), None)
        hours = snapshot.location.business_hours.for_date(day)
        self.closed = self.holiday is not None or not hours.is_open
        self.business = _window_spans(name, day, hours.window)
        self.service_hours = _window_spans(name, day, snapshot.service.availability.for_date(day))
        self.service_windows: list[_Window] = calc.service_windows.get(day, [])
        self.calendar_blocks: list[_Layer] = calc.calendar_blocks.get(day, [])
        self.service_blocks: list[_Layer] = calc.service_blocks.get(day, [])

    def narrowed(self, zone_name: str, low: int, high: int) -> _DayRecord:
        """Return this whole-day record searched only from wall minute *low* to *high*."""
        record = _DayRecord.__new__(_DayRecord)
        record.date, record.start, record.end = self.date, self.start, self.end
        record.holiday, record.closed = self.holiday, self.closed
        record.business, record.service_hours = self.business, self.service_hours
        record.service_windows = self.service_windows
        record.calendar_blocks, record.service_blocks = self.calendar_blocks, self.service_blocks
        start = self.start if low == 0 else _wall(zone_name, self.date, low, "start")
        end = self.end if high == MINUTES_PER_DAY else _wall(zone_name, self.date, high, "end")
        record.search = [(start, end)] if start < end else []
        return record


class _Resource:
    """One candidate resource, with its appointments and windows in minutes."""

    __slots__ = (
        "allocations",
        "blocks",
        "busy_ends",
        "busy_starts",
        "daily",
        "daily_ids",
        "held",
        "id",
        "ids",
        "ignore_business_hours",
        "index",
        "load",
        "own",
        "profile",
        "recurring",
        "resource",
        "saturated",
        "segment_counts",
        "segment_ends",
        "segment_groups",
        "segment_starts",
        "segment_weights",
        "zone_name",
    )

    def __init__(
        self,
        resource: Resource,
        index: int,
        blocks: dict[date, list[_Layer]],
        allocations: dict[date, list[_Window]],
        profile: int,
    ) -> None:
        self.resource = resource
        self.id = resource.id
        self.ids = (resource.id,)
        self.index = index
        self.zone_name = resource.timezone
        self.ignore_business_hours = resource.options.ignore_business_hours
        self.recurring = resource.recurring_availability
        self.blocks = blocks
        """R's blocks on each date (shared with the set-ups of one configuration: read only)."""
        self.allocations = allocations
        self.held: list[Appointment] = []
        """R's active appointments, in the snapshot's order."""
        self.own: list[Appointment] = []
        self.daily: dict[date, tuple[int, int]] | None = None
        self.daily_ids: dict[date, list[str]] = {}
        self.load = 0
        self.profile = profile
        self.segment_starts: list[int] = []
        self.segment_ends: list[int] = []
        self.segment_counts: list[int] = []
        self.segment_groups: list[int] = []
        self.segment_weights: list[int] = []
        self.busy_starts: list[int] = []
        self.busy_ends: list[int] = []
        self.saturated = False
        """Whether every slot's booking limit is 1: any occupation fills the time it covers."""

    def fresh(self) -> _Resource:
        """Return this candidate again with nothing held yet, for one query to fill."""
        return _Resource(self.resource, self.index, self.blocks, self.allocations, self.profile)

    @classmethod
    def blank(
        cls,
        resource: Resource,
        index: int,
        blocks: dict[date, list[_Layer]],
        allocations: dict[date, list[_Window]],
        profile: int,
    ) -> _Resource:
        """
        Return a candidate that holds nothing, to be shared read-only by the queries of one
        set-up (``availability._shared``): with no appointments its daily counts are known
        (none), so no query writes to it; a query that gives it appointments or busy time
        works on a :meth:`fresh` copy.
        """
        blank = cls(resource, index, blocks, allocations, profile)
        blank.daily = {}
        return blank

    def occupy(
        self,
        floors: dict[datetime, int],
        ceils: dict[datetime, int],
        service_id: str,
        padding: int,
        paddings: Mapping[str, int],
    ) -> None:
        """
        Append R's held appointments as occupations: whole minutes, padding, group and weight.

        *padding* is the searched service's, *paddings* those of other services (by id).

        A start is rounded down to its minute and an end up, so seconds never free time. Each
        distinct instant is converted once per query (*floors*, *ceils*): appointments
        start and end on their services' grids, and equal instants are one shared object in
        the model, so the columns are dictionary reads done by ``map``.
        """
        held = self.held
        starts_at = list(map(_START_OF, held))
        ends_at = list(map(_END_OF, held))
        for instant in set(starts_at).difference(floors):
            floors[instant] = _floor_minute(instant)
        for instant in set(ends_at).difference(ceils):
            ceils[instant] = _ceil_minute(instant)
        starts = list(map(floors.__getitem__, starts_at))
        ends = list(map(ceils.__getitem__, ends_at))
        services = list(map(_SERVICE_OF, held))
        if services.count(service_id) == len(services):
            # Only appointments of the searched service (the common case).
            weights = [1] * len(services)
            occupied = [end + padding for end in ends] if padding else ends
            own = held
        else:
            # Decision 8a: a resource serves one service at a time; an appointment of another
            # service leaves no room whatever the searched service's limit.
            weights = [1 if other == service_id else _FULL for other in services]
            occupied = [
                end + (padding if other == service_id else paddings.get(other, 0))
                for end, other in zip(ends, services, strict=True)
            ]
            own = [
                appointment
                for appointment, other in zip(held, services, strict=True)
                if other == service_id
            ]
        self.segment_starts += starts
        self.segment_ends += occupied
        self.segment_groups += map(_GROUP_OF, held)
        self.segment_weights += weights
        self.own += own

    def set_occupancy(self, saturated: bool = False) -> None:
        """
        Turn the occupations into disjoint constant-load segments.

        :meth:`occupy` first appends each active appointment's ``[start, end + padding)``,
        group size and weight to ``segment_starts``, ``segment_ends``, ``segment_groups`` and
        ``segment_weights``: 1 for an appointment of the searched service, :data:`_FULL` for
        one of another service, which leaves no room at all (decision 8a).

        With *saturated* (every slot's booking limit is 1), one occupation already fills any
        time it covers: overlapping occupations become their union, each piece of load 1,
        which judges every slot and labels every minute as the exact loads would.
        """
        self.saturated = saturated
        starts, ends, groups = self.segment_starts, self.segment_ends, self.segment_groups
        weights = self.segment_weights
        # The common case (one booking at a time, read in start order): each occupation ends
        # before the next starts, so each is its own segment of its own weight (start < end).
        if all(map(operator.le, ends, itertools.islice(starts, 1, None))):
            self.segment_counts = weights
            return
        if saturated and all(map(operator.le, starts, itertools.islice(starts, 1, None))):
            self._set_union()
            return
        # Overlapping occupations (padding reaching the next booking, groups sharing a time):
        # every distinct start or end splits the line. One sorted list of the occupations'
        # starts (+ weight, + group) and ends (- weight, - group), walked once, keeps the load
        # between consecutive points; a dictionary of changes filled in occupation by
        # occupation, then sorted and walked again, cost twice as much.
        changes = sorted(
            itertools.chain(
                zip(starts, weights, groups, strict=True),
                zip(ends, map(operator.neg, weights), map(operator.neg, groups), strict=True),
            )
        )
        self.segment_starts, self.segment_ends = [], []
        self.segment_counts, self.segment_groups = [], []
        count = groups_sum = 0
        previous = changes[0][0]
        for point, weight, group in changes:
            if point != previous:
                if count > 0:
                    self.segment_starts.append(previous)
                    self.segment_ends.append(point)
                    self.segment_counts.append(count)
                    self.segment_groups.append(groups_sum)
                previous = point
            count += weight
            groups_sum += group

    def _set_union(self) -> None:
        """Merge occupations in start order into their union, one pass, each piece of load 1."""
        starts, ends = self.segment_starts, self.segment_ends
        merged_starts, merged_ends = [starts[0]], [ends[0]]
        high = ends[0]
        for start, end in zip(starts, ends, strict=True):
            if start > high:
                merged_starts.append(start)
                merged_ends.append(end)
                high = end
            elif end > high:
                merged_ends[-1] = high = end
        if not all(map(operator.lt, merged_starts, merged_ends)):
            # An empty occupation (no length) that met no other holds no time.
            pieces = zip(merged_starts, merged_ends, strict=True)
            kept = [(low, high) for low, high in pieces if low < high]
            merged_starts = [low for low, _ in kept]
            merged_ends = [high for _, high in kept]
        self.segment_starts, self.segment_ends = merged_starts, merged_ends
        self.segment_counts = [1] * len(merged_starts)
        self.segment_groups = [1] * len(merged_starts)

    def set_busy(self, spans: list[Span]) -> None:
        """Keep the merged external busy intervals."""
        for start, end in _merge(spans):
            self.busy_starts.append(start)
            self.busy_ends.append(end)


_Figures = tuple[int, int, int, int]
"""A bookable time's figures: allowable bookings, available bookings, allowable capacity and
available capacity."""


class _Grid(NamedTuple):
    """The grid starts of a run of dates for one kind of resource, ascending (``open_time._OpenTime._grid``)."""

    starts: list[int]
    limits: list[int]
    """Each start's booking limit (decision 8)."""
    clear: list[_Figures]
    """Each start's figures when nothing is booked: ``(limit, limit, capacity, capacity)``."""
    dates: list[tuple[date, int, int]]
    """Each date with the positions ``[low, high)`` of its starts."""


_Offer = tuple[int, int, int, int, int, int, tuple[str, ...]]


_offer_start: Final = operator.itemgetter(0)
"""A bookable time of one resource (or of all named resources together), as a plain tuple
(cheaper than a named one on the hot path): start minute, the resource's rank among the
candidates, allowable bookings, available bookings, allowable capacity, available capacity,
and the ids of the resource(s). ``(start, rank)`` is unique within a date, so offers sort by
it alone."""
