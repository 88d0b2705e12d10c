"""
Offers: the bookable times of each resource (padding, limits, capacity and external busy time
against its occupancy, swept once per date), and the pick among resources per time (decision
12: none, balanced, random; decision 13: several named resources together).
"""

from __future__ import annotations

import bisect
import hashlib
from datetime import date

from slotwise.model import (
    RoundRobin,
)

from ._minutes import (
    _FAR,
)
from ._slots import new_slot
from .open_time import _OpenTime
from .records import (
    _DayRecord,
    _Offer,
    _offer_start,
    _Resource,
)
from .results import Slot


class _Offers(_OpenTime):
    """Bookable times per resource and per date, after the round robin (decisions 7-13)."""

    def offers(self, record: _DayRecord, res: _Resource) -> list[_Offer]:
        """Return R's bookable times on the date, ascending."""
        key = (res.index, record.date)
        cached = self._offers.get(key)
        if cached is not None:
            return cached
        found: list[_Offer] = []
        self._offers[key] = found
        if not record.search or (self.daily_limited and self._capped(record, res)):
            return found
        _, starts, limits = self._profile_day(record, res)
        if not starts:
            return found
        low = bisect.bisect_left(starts, self.earliest)
        high = bisect.bisect_right(starts, self.latest)
        if low >= high:
            return found
        reach = self.duration + self.padding
        seg_starts, seg_ends = res.segment_starts, res.segment_ends
        seg_counts, seg_groups = res.segment_counts, res.segment_groups
        segments = len(seg_starts)
        busy_starts, busy_ends = res.busy_starts, res.busy_ends
        busies = len(busy_starts)
        max_capacity = self.max_capacity
        index, ids = res.index, res.ids
        append = found.append
        far = _FAR
        # j: the first segment that ends after the start (b: the same for busy intervals).
        # Without busy time, a start is clear when segment j begins at or after start + reach
        # (start <= clear_until); j moves on only when the start reaches its end (move_at),
        # so most starts cost two comparisons.
        j = bisect.bisect_right(seg_ends, starts[low]) if segments else 0
        b = bisect.bisect_right(busy_ends, starts[low]) if busies else 0
        if busies:
            move_at, clear_until = far, -far  # every start takes the full check
        elif segments:
            move_at = clear_until = -far  # found on the first start
        else:
            move_at = clear_until = far  # nothing is booked: every start is clear
        for position in range(low, high):
            start = starts[position]
            allowable = limits[position]
            if start >= move_at:
                while j < segments and seg_ends[j] <= start:
                    j += 1
                if j < segments:
                    move_at, clear_until = seg_ends[j], seg_starts[j] - reach
                else:
                    move_at = clear_until = far
            if start <= clear_until:
                capacity = max_capacity or allowable
                append((start, index, allowable, allowable, capacity, capacity, ids))
                continue
            end = start + reach
            if busies:
                while b < busies and busy_ends[b] <= start:
                    b += 1
                if b < busies and busy_starts[b] < end:
                    continue
            peak_count = peak_groups = 0
            if segments:
                while j < segments and seg_ends[j] <= start:
                    j += 1
                k = j
                while k < segments and seg_starts[k] < end:
                    if seg_counts[k] > peak_count:
                        peak_count = seg_counts[k]
                    if seg_groups[k] > peak_groups:
                        peak_groups = seg_groups[k]
                    k += 1
            available = allowable - peak_count
            if available < 1:
                continue
            capacity = max_capacity or allowable
            if capacity - peak_groups < 1:
                continue
            append((start, index, allowable, available, capacity, capacity - peak_groups, ids))
        return found

    def day_offers(self, record: _DayRecord) -> list[_Offer]:
        """Return the date's bookable times after the named-resource or round-robin rule."""
        candidates = self.candidates
        if len(self.named) > 1:
            if len(candidates) < len(self.named):
                return []  # a named resource cannot be booked for the service: none is free
            return self._together(record)
        if len(candidates) == 1:
            return self.offers(record, candidates[0])
        if self.named or self.round_robin is RoundRobin.NONE:
            found: list[_Offer] = []
            for res in candidates:
                found += self.offers(record, res)
            # Each resource's offers ascend and the resources come in rank order, so a stable
            # sort on the start alone orders by (start, rank), with integer keys only.
            found.sort(key=_offer_start)
            return found
        by_start: dict[int, list[_Offer]] = {}
        for res in candidates:
            for offer in self.offers(record, res):
                by_start.setdefault(offer[0], []).append(offer)
        chosen: list[_Offer] = []
        for start in sorted(by_start):
            free = by_start[start]  # in candidate order: sort key, then id
            if self.round_robin is RoundRobin.BALANCED:
                pick = min(free, key=lambda offer: (candidates[offer[1]].load, offer[1]))
            else:
                digest = hashlib.blake2b(
                    self._random_seed() + start.to_bytes(8, "big", signed=True), digest_size=8
                ).digest()
                pick = free[int.from_bytes(digest, "big") % len(free)]
            chosen.append(pick)
        return chosen

    def _random_seed(self) -> bytes:
        """Return the seed of the random round robin: a digest of the query (worked out once)."""
        if self._seed is None:
            self._seed = hashlib.blake2b(repr(self.query).encode(), digest_size=16).digest()
        return self._seed

    def _together(self, record: _DayRecord) -> list[_Offer]:
        """Return the times when every named resource is free, with the tightest figures."""
        ids = tuple(res.id for res in self.candidates)
        tables = [
            {offer[0]: offer for offer in self.offers(record, res)} for res in self.candidates
        ]
        found: list[_Offer] = []
        for start, offer in tables[0].items():
            others = [table.get(start) for table in tables[1:]]
            if any(other is None for other in others):
                continue
            group = [offer, *(other for other in others if other is not None)]
            found.append(
                (
                    start,
                    0,
                    min(item[2] for item in group),
                    min(item[3] for item in group),
                    min(item[4] for item in group),
                    min(item[5] for item in group),
                    ids,
                )
            )
        return found

    def slots(self, first: date, last: date) -> list[Slot]:
        """Return the slots of the dates ``first..last``, sorted by start then resource."""
        slots: list[Slot] = []
        append = slots.append
        duration = self.duration
        output = self.output
        known = output.slot_cache
        for day in self.dates(first, (last - first).days + 1):
            for start, _, allowable, available, capacity, free, ids in self.day_offers(
                self.day_record(day)
            ):
                times = known.get(start)
                if times is None:
                    times = output.slot_times(start, duration)
                append(
                    new_slot(
                        times[0],
                        times[1],
                        times[2],
                        times[3],
                        times[4],
                        duration,
                        allowable,
                        available,
                        capacity,
                        free,
                        ids[0],
                        ids,
                    )
                )
        return slots
