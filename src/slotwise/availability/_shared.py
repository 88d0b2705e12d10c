"""
The part of a query's set-up that the configuration alone decides, kept with the configuration
version it was derived from (decision 49) and shared by the queries that ask the same of it.

A set-up turns blocks, allocations, hours and holidays into minutes per date and works out each
candidate resource's open time and slot grid. None of it depends on appointments, external busy
time or the clock, so within one configuration version two queries with the same service,
location, candidates, dates and grid derive the same values (a narrower search window is cut
from the whole days: ``_OpenTime._profile_day``). The booking check
asks the same one-date question of the same resource again and again, and its set-up costs more
than its answer; a listing asked again reuses its dates' grids.

Only snapshots whose records are all a cached configuration's own carry it
(``Snapshot.configuration``, set by ``read_snapshot`` alone), so a change makes a new version
and new keys: nothing derived from an older rule is ever reused. The set-ups of every company
of one ``ConfigurationCache`` share one :class:`SetupMemo` of at most ``WEIGHT_LIMIT`` grid
starts, the oldest leaving first.
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Callable, Hashable, Iterator
from datetime import date
from typing import Final, NamedTuple

from slotwise._time import MINUTES_PER_DAY, hhmm_to_minutes
from slotwise.model import Allocation, AllocationTarget, Block, BlockTarget, Resource
from slotwise.rules.repeat import occurrence_dates
from slotwise.storage.configuration import Configuration

from ._minutes import REASON_TEXTS, Span, _Label, _Layer, _wall
from .query import AvailabilityQuery
from .records import _DayRecord, _Grid, _Resource, _Window
from .results import Reason
from .snapshot import Snapshot

_NUMBERING: Final = threading.Lock()
"""Numbers a new kind of resource in a shape: two queries at once never share a number."""

WEIGHT_LIMIT: Final = 1 << 19
"""
The grid starts of the set-ups one memo keeps: 524,288, about 100 bytes each with the open time,
day records and grids around them (about 50 MB at most). A set-up weighs its candidates times
its dates times the starts a whole day holds at its step (``setup_weight``).
"""


class SharedCandidate(NamedTuple):
    """A candidate resource as the configuration decides it: its windows and its profile."""

    resource: Resource
    blocks: dict[date, list[_Layer]]
    allocations: dict[date, list[_Window]]
    profile: int
    """Resources of one profile share their open time and grid (``_OpenTime._profile_day``)."""


class SetupShape:
    """
    What the queries of one service, location, calendar, grid and dates share whoever their
    candidates: the windows placed on the dates, each date's record, and the open time and grid
    of each profile of resource (filled as the queries ask for them; a value is the same
    whichever query works it out).
    """

    __slots__ = (
        "__weakref__",
        "calendar_blocks",
        "day_records",
        "grids",
        "profile_days",
        "profiles",
        "service_blocks",
        "service_windows",
    )

    def __init__(self) -> None:
        self.calendar_blocks: dict[date, list[_Layer]] = {}
        self.service_blocks: dict[date, list[_Layer]] = {}
        self.service_windows: dict[date, list[_Window]] = {}
        self.day_records: dict[date, _DayRecord] = {}
        self.profile_days: dict[tuple[int, date], tuple[list[Span], list[int], list[int]]] = {}
        self.grids: dict[tuple[int, date, date], _Grid] = {}
        self.profiles: dict[object, int] = {}
        """Each kind of resource's number (``SharedCandidate.profile``), by what makes it one."""


class SharedSetup:
    """What one set-up derives from the configuration: its candidates, over a shared shape."""

    __slots__ = (
        "blanks",
        "calendar_blocks",
        "candidates",
        "day_records",
        "grids",
        "profile_days",
        "service_blocks",
        "service_windows",
        "shape",
    )

    def __init__(self, shape: SetupShape | None = None) -> None:
        self.shape = shape = SetupShape() if shape is None else shape
        # The shape's own dictionaries: what one set-up fills, every set-up of the shape reads.
        self.calendar_blocks = shape.calendar_blocks
        self.service_blocks = shape.service_blocks
        self.service_windows = shape.service_windows
        self.day_records = shape.day_records
        self.profile_days = shape.profile_days
        self.grids = shape.grids
        self.candidates: list[SharedCandidate] = []
        self.blanks: list[_Resource] = []
        """Each candidate holding nothing (``_Resource.blank``): read only, copied to be filled."""


class SetupMemo:
    """Set-ups by company, version and what the query asks of the configuration; bounded."""

    def __init__(self) -> None:
        self._held: dict[Hashable, tuple[SharedSetup, int]] = {}
        self._weight = 0
        self._lock = threading.Lock()
        self._shapes: weakref.WeakValueDictionary[Hashable, SetupShape] = (
            weakref.WeakValueDictionary()
        )
        """The shapes of the set-ups held (one goes when the last set-up holding it goes)."""

    def shape(self, key: Hashable, make: Callable[[], SetupShape]) -> SetupShape:
        """Return the shape kept under *key*, or the one *make* returns, kept from now on."""
        shape = self._shapes.get(key)
        if shape is None:
            with self._lock:
                shape = self._shapes.get(key)
                if shape is None:
                    shape = self._shapes[key] = make()
        return shape

    def get(self, key: Hashable) -> SharedSetup | None:
        """Return the set-up kept under *key*, or ``None``."""
        held = self._held.get(key)
        return held[0] if held is not None else None

    def keep(self, key: Hashable, setup: SharedSetup, weight: int) -> None:
        """Keep *setup* of *weight* grid starts, letting the oldest go to stay in the limit."""
        if weight > WEIGHT_LIMIT:
            return
        with self._lock:
            if key in self._held:
                return
            while self._weight + weight > WEIGHT_LIMIT:
                oldest = next(iter(self._held))
                self._weight -= self._held.pop(oldest)[1]
            self._held[key] = (setup, weight)
            self._weight += weight

    @property
    def weight(self) -> int:
        """The grid starts held."""
        return self._weight


def setup_weight(candidates: int, dates: int, step: int) -> int:
    """
    Return what a set-up may hold, in grid starts: every candidate open all of every date at
    *step* minutes (what it holds is at most that: the grids are filled as queries ask).
    """
    return max(candidates, 1) * dates * -(-MINUTES_PER_DAY // step)


def derive_shape(snapshot: Snapshot, first: date, last: date) -> SetupShape:
    """Return a new shape of *snapshot*'s dates *first*..*last*, its windows placed on them."""
    shape = SetupShape()
    _Derivation(snapshot.location.timezone, first, last).windows(snapshot, shape)
    return shape


def derive_setup(
    snapshot: Snapshot,
    query: AvailabilityQuery,
    first: date,
    last: date,
    shape: SetupShape | None = None,
) -> SharedSetup:
    """
    Work out what the configuration decides of *query* on the dates *first*..*last*: blocks and
    allocations placed on the dates (*shape*'s, when it is given: the same service, location,
    calendar, grid and dates of the same configuration), the candidates chosen with their
    windows and profiles.
    """
    if shape is None:
        shape = derive_shape(snapshot, first, last)
    shared = SharedSetup(shape)
    derivation = _Derivation(snapshot.location.timezone, first, last)
    shared.candidates[:] = derivation.candidates(snapshot, query, shape.profiles)
    shared.blanks[:] = [
        _Resource.blank(resource, index, blocks, allocations, profile)
        for index, (resource, blocks, allocations, profile) in enumerate(shared.candidates)
    ]
    return shared


class _Derivation:
    """Placing one query's blocks and allocations on its dates, in minutes."""

    def __init__(self, zone_name: str, first: date, last: date) -> None:
        self.zone_name = zone_name
        self.first = first
        self.last = last

    def windows(self, snapshot: Snapshot, shared: SetupShape) -> None:
        """Expand the calendar and service blocks and the service allocations into dates."""
        calendar_id, service = snapshot.calendar.id, snapshot.service
        for block in snapshot.blocks:
            if block.deleted or block.location_id != snapshot.location.id:
                continue
            if block.target is BlockTarget.CALENDAR and block.target_id == calendar_id:
                self._place_block(block, Reason.CALENDAR_BLOCK, shared.calendar_blocks)
            elif block.target is BlockTarget.SERVICE and block.target_id == service.id:
                self._place_block(block, Reason.SERVICE_BLOCK, shared.service_blocks)
        # Service allocations give an event service its time (decision 5) and may set a slot's
        # booking limit (decision 8); kept in creation order, the order limits are looked up in.
        for allocation in snapshot.allocations:
            if (
                allocation.target is AllocationTarget.SERVICE
                and allocation.target_id == service.id
                and allocation.location_id == snapshot.location.id
            ):
                self._place_allocation(allocation, shared.service_windows)

    def _place_block(self, block: Block, reason: Reason, into: dict[date, list[_Layer]]) -> None:
        label = _Label(reason, block.reason or REASON_TEXTS[reason], "block", block.id)
        for day, start, end in self._occurrences(block):
            into.setdefault(day, []).append((False, [(start, end)], label))

    def _place_allocation(self, allocation: Allocation, into: dict[date, list[_Window]]) -> None:
        for day, start, end in self._occurrences(allocation):
            into.setdefault(day, []).append(
                _Window(start, end, allocation.booking_limit, allocation.id)
            )

    def _occurrences(self, window: Block | Allocation) -> Iterator[tuple[date, int, int]]:
        """Yield each date of *window* on the searched dates with its non-empty span in minutes."""
        start_minutes = hhmm_to_minutes(window.start_time)
        end_minutes = hhmm_to_minutes(window.end_time)
        for day in occurrence_dates(window, self.first, self.last):
            start = _wall(self.zone_name, day, start_minutes, "start")
            end = _wall(self.zone_name, day, end_minutes, "end")
            if start < end:
                yield day, start, end

    def candidates(
        self, snapshot: Snapshot, query: AvailabilityQuery, profiles: dict[object, int]
    ) -> list[SharedCandidate]:
        """
        Return the candidate resources in rank order, with their windows and profiles (numbered
        in *profiles*, the shape's: the set-ups of one shape number a kind of resource alike).
        """
        service, location = snapshot.service, snapshot.location
        usable = [
            resource
            for resource in snapshot.resources
            if resource.takes_service(service.id)
            and resource.location_id == location.id
            and (query.resource_group_id is None or resource.group_id == query.resource_group_id)
        ]
        named = query.named_resources
        if named:
            by_id = {resource.id: resource for resource in usable}
            chosen = [by_id[rid] for rid in named if rid in by_id]
        else:
            chosen = sorted(usable, key=lambda resource: (resource.options.sort_key, resource.id))
        blocks: dict[str, dict[date, list[_Layer]]] = {resource.id: {} for resource in chosen}
        allocations: dict[str, dict[date, list[_Window]]] = {resource.id: {} for resource in chosen}
        location_id = snapshot.location.id
        for block in snapshot.blocks:
            if (
                block.deleted
                or block.target is not BlockTarget.RESOURCE
                or block.location_id != location_id
            ):
                continue
            into = blocks.get(block.target_id)
            if into is not None:
                self._place_block(block, Reason.RESOURCE_BLOCK, into)
        for allocation in snapshot.allocations:
            if (
                allocation.target is not AllocationTarget.RESOURCE
                or allocation.location_id != location_id
            ):
                continue
            windows = allocations.get(allocation.target_id)
            if windows is not None:
                # Open time only without recurring availability; a booking limit in any case.
                self._place_allocation(allocation, windows)
        candidates = []
        for resource in chosen:
            own_blocks, own_allocations = blocks[resource.id], allocations[resource.id]
            if own_blocks or own_allocations:
                key: object = ("own", resource.id)
            else:
                # Resources alike share their open time and grid, in this set-up and in every
                # other of its shape (the first booking of another resource that day, say).
                key = (
                    resource.timezone,
                    resource.weekly_hours,
                    resource.options.ignore_business_hours,
                    resource.recurring_availability,
                )
            profile = profiles.get(key)
            if profile is None:
                with _NUMBERING:
                    profile = profiles.setdefault(key, len(profiles))
            candidates.append(SharedCandidate(resource, own_blocks, own_allocations, profile))
        return candidates


def setup_memo(configuration: Configuration) -> SetupMemo:
    """
    Return the set-up memo of *configuration*: its cache's (``ConfigurationCache`` gives every
    configuration it reads its one memo), else one of its own, made on first use.
    """
    derived = configuration.derived
    # Annotated, not typing.cast: a Python call, once a query.
    memo: SetupMemo | None = derived.get(SetupMemo)
    if memo is None:
        # setdefault: two threads making one at once keep the same.
        memo = derived.setdefault(SetupMemo, SetupMemo())
    return memo
