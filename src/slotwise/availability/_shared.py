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
from collections.abc import Hashable, Iterator
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


class SharedSetup:
    """What one set-up derives from the configuration: filled by the first query, then read."""

    __slots__ = (
        "blanks",
        "calendar_blocks",
        "candidates",
        "day_records",
        "grids",
        "profile_days",
        "service_blocks",
        "service_windows",
    )

    def __init__(self) -> None:
        self.calendar_blocks: dict[date, list[_Layer]] = {}
        self.service_blocks: dict[date, list[_Layer]] = {}
        self.service_windows: dict[date, list[_Window]] = {}
        self.candidates: list[SharedCandidate] = []
        self.blanks: list[_Resource] = []
        """Each candidate holding nothing (``_Resource.blank``): read only, copied to be filled."""
        # Filled as the queries ask for them; a value is the same whichever query works it out.
        self.day_records: dict[date, _DayRecord] = {}
        self.profile_days: dict[tuple[int, date], tuple[list[Span], list[int], list[int]]] = {}
        self.grids: dict[tuple[int, date, date], _Grid] = {}


class SetupMemo:
    """Set-ups by company, version and what the query asks of the configuration; bounded."""

    def __init__(self) -> None:
        self._held: dict[Hashable, tuple[SharedSetup, int]] = {}
        self._weight = 0
        self._lock = threading.Lock()

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


def derive_setup(
    snapshot: Snapshot, query: AvailabilityQuery, first: date, last: date
) -> SharedSetup:
    """
    Work out what the configuration decides of *query* on the dates *first*..*last*: blocks and
    allocations placed on the dates, the candidates chosen with their windows and profiles.
    """
    shared = SharedSetup()
    derivation = _Derivation(snapshot.location.timezone, first, last)
    derivation.windows(snapshot, shared)
    shared.candidates[:] = derivation.candidates(snapshot, query)
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

    def windows(self, snapshot: Snapshot, shared: SharedSetup) -> None:
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

    def candidates(self, snapshot: Snapshot, query: AvailabilityQuery) -> list[SharedCandidate]:
        """Return the candidate resources in rank order, with their windows and profiles."""
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
        profiles: dict[object, int] = {}
        candidates = []
        for resource in chosen:
            own_blocks, own_allocations = blocks[resource.id], allocations[resource.id]
            if own_blocks or own_allocations or len(chosen) == 1:
                # Nothing to share with (hashing the weekly hours is the costly part of the key).
                key: object = ("own", resource.id)
            else:
                key = (
                    resource.timezone,
                    resource.weekly_hours,
                    resource.options.ignore_business_hours,
                    resource.recurring_availability,
                )
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
