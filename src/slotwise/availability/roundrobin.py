"""
Offers: the bookable times of each resource (padding, limits, capacity and external busy time
against its occupancy, swept once per date), and the pick among resources per time (decision
12: none, balanced, random; decision 13: several named resources together).
"""

from __future__ import annotations

import bisect
import hashlib
import itertools
import operator
from datetime import date

from slotwise.model import (
    RoundRobin,
)

from ._sweep import sweep
from .open_time import _OpenTime
from .records import (
    _DayRecord,
    _Figures,
    _Offer,
    _offer_start,
    _Resource,
)
from .slots import Slots, _Owner, build_slots

_Span = tuple[list[int], list[_Figures], _Owner, int, int]
"""A resource's bookable starts and figures, its slot owner, and the range searched of them."""
_NO_FIGURES: _Figures = (0, 0, 0, 0)
_NO_OWNER: _Owner = ("", ())
_STRETCH = 8192
"""About how many offers are put in order at a time (``_by_start_then_rank``)."""


def _by_start_then_rank(
    spans: list[_Span], low_at: int, high_at: int
) -> tuple[list[int], list[_Figures], list[_Owner]]:
    """
    Return the starts, figures and owners of the offers of *spans* (one per resource, in rank
    order), ordered by start, then rank.

    A stretch of minutes at a time, of about ``_STRETCH`` offers, into columns made at their
    full length: the order is that of one stable sort of every offer on its start (each stretch
    holds every offer of its minutes), but each sort's keys and items stay in the processor's
    caches and no column is copied as it grows. Sorted whole into growing columns, 100
    resources over 90 days cost 10-20% more per slot than 30 while their instructions per slot
    fall: the cost of a working set past the caches (docs/performance.md).
    """
    total = sum(high - low for *_, low, high in spans)
    starts: list[int] = [0] * total
    figures: list[_Figures] = [_NO_FIGURES] * total
    owners: list[_Owner] = [_NO_OWNER] * total
    pieces = -(-total // _STRETCH)
    positions = [span[3] for span in spans]
    filled = 0
    for piece in range(1, pieces + 1):
        bound = high_at if piece == pieces else low_at + (high_at - low_at) * piece // pieces
        keys: list[int] = []
        items: list[_Figures] = []
        whose: list[_Owner] = []
        for index, (found, figured, owner, _, high) in enumerate(spans):
            low = positions[index]
            stop = bisect.bisect_left(found, bound, low, high)
            if stop > low:
                keys += found[low:stop]
                items += figured[low:stop]
                whose += itertools.repeat(owner, stop - low)
                positions[index] = stop
        count = len(keys)
        taken = slice(filled, filled + count)
        if count > 1:
            # The resources come in rank order: a stable sort on the start orders by (start, rank).
            pick = operator.itemgetter(*sorted(range(count), key=keys.__getitem__))
            starts[taken], figures[taken], owners[taken] = pick(keys), pick(items), pick(whose)
        else:
            starts[taken], figures[taken], owners[taken] = keys, items, whose
        filled += count
    return starts, figures, owners


def _by_load(res: _Resource) -> tuple[int, int]:
    """The balanced round robin's order (decision 12): fewest appointments, then rank."""
    return res.load, res.index


class _Offers(_OpenTime):
    """Bookable times per resource and per date, after the round robin (decisions 7-13)."""

    def offers(self, record: _DayRecord, res: _Resource) -> list[_Offer]:
        """Return R's bookable times on the date, ascending."""
        if self.at is not None:
            # A booking check asks each candidate once, for its one start: swept for the date
            # alone (a one-date grid's starts all lie in the date's day), nothing kept.
            starts, figures = self._sweep(res, record.date, record.date)
            index, ids = res.index, res.ids
            return [
                (start, index, *figure, ids) for start, figure in zip(starts, figures, strict=True)
            ]
        key = (res.index, record.date)
        cached = self._offers.get(key)
        if cached is not None:
            return cached
        if self.first <= record.date <= self.last:
            # A listing reads the sweep of every searched date again (``slots``).
            starts, figures = self.swept(res)
        else:
            starts, figures = self._sweep(res, record.date, record.date)
        # The date's starts lie in its own day (records._Grid), so they are found by bisection.
        low = bisect.bisect_left(starts, record.start)
        high = bisect.bisect_left(starts, record.end, low)
        index, ids = res.index, res.ids
        found: list[_Offer] = [
            (start, index, *figure, ids)
            for start, figure in zip(starts[low:high], figures[low:high], strict=True)
        ]
        self._offers[key] = found
        return found

    def swept(self, res: _Resource) -> tuple[list[int], list[_Figures]]:
        """Return R's bookable starts over the searched dates, ascending, with their figures."""
        found = self._swept.get(res.index)
        if found is None:
            found = self._swept[res.index] = self._sweep(res, self.first, self.last)
        return found

    def _sweep(self, res: _Resource, first: date, last: date) -> tuple[list[int], list[_Figures]]:
        """Return R's bookable starts on the dates ``first..last`` (decisions 7-11)."""
        grid = self._grid(res, first, last)
        starts = grid.starts
        # Decision 11: earliest <= start <= latest.
        low = bisect.bisect_left(starts, self.earliest)
        high = bisect.bisect_right(starts, self.latest)
        at = self.at
        if at is not None:
            # A booking check: only the start it asks about is swept.
            low = bisect.bisect_left(starts, at, low, high)
            high = bisect.bisect_right(starts, at, low, high)
        ranges = [(low, high)]
        if self.daily_limited:
            # Decision 10: the dates where R's daily limit is reached offer nothing.
            ranges = [
                (max(low, day_low), min(high, day_high))
                for day, day_low, day_high in grid.dates
                if day_low < day_high and not self._capped(self.day_record(day), res)
            ]
        return sweep(
            starts,
            grid.limits,
            grid.clear,
            ranges,
            res,
            self.duration + self.padding,
            self.max_capacity,
        )

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
        if self.round_robin is RoundRobin.BALANCED:
            # Each time goes to its free resource of the fewest appointments (ties: rank). The
            # loads are fixed for the query, so the resources are taken in that order once and
            # each time keeps the first offer made for it.
            first: dict[int, _Offer] = {}
            keep = first.setdefault
            for res in sorted(candidates, key=_by_load):
                for offer in self.offers(record, res):
                    keep(offer[0], offer)
            return [first[start] for start in sorted(first)]
        by_start: dict[int, list[_Offer]] = {}
        for res in candidates:
            for offer in self.offers(record, res):
                by_start.setdefault(offer[0], []).append(offer)
        chosen: list[_Offer] = []
        for start in sorted(by_start):
            free = by_start[start]  # in candidate order: sort key, then id
            digest = hashlib.blake2b(
                self._random_seed() + start.to_bytes(8, "big", signed=True), digest_size=8
            ).digest()
            chosen.append(free[int.from_bytes(digest, "big") % len(free)])
        return chosen

    def _random_seed(self) -> bytes:
        """
        Return the seed of the random round robin (worked out once): a digest of what the query
        chooses among (its service, location, resource group and duration), not of the dates or
        the window it searches, so a time gets the same resource in a listing of any range and
        in the booking check of that time (a listing of its date, narrowed to it).
        """
        if self._seed is None:
            chosen = (
                self.service.id,
                self.snapshot.location.id,
                self.query.resource_group_id,
                self.duration,
            )
            self._seed = hashlib.blake2b(repr(chosen).encode(), digest_size=16).digest()
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

    def slots(self, first: date, last: date) -> Slots:
        """Return the slots of the dates ``first..last``, sorted by start then resource."""
        candidates = self.candidates
        starts: list[int] = []
        figures: list[_Figures] = []
        owners: list[_Owner] = []
        if (
            len(self.named) > 1
            or (len(candidates) > 1 and not self.named and self.round_robin is not RoundRobin.NONE)
            or first < self.first
            or last > self.last
        ):
            # One pick per time among the resources, or all named ones together: date by date.
            # A slot's owner pair (resource id, resource ids), one per distinct ids.
            owner_of: dict[tuple[str, ...], _Owner] = {}
            for day in self.dates(first, (last - first).days + 1):
                for offer in self.day_offers(self.day_record(day)):
                    ids = offer[6]
                    owner = owner_of.get(ids)
                    if owner is None:
                        owner = owner_of[ids] = (ids[0], ids)
                    starts.append(offer[0])
                    figures.append((offer[2], offer[3], offer[4], offer[5]))
                    owners.append(owner)
            return build_slots(starts, figures, owners, self.output, self.duration)
        # Every free resource at every time: each resource's starts over all the dates at once.
        low_at = self.day_record(first).start
        high_at = self.day_record(last).end
        spans: list[_Span] = []
        for res in candidates:
            found, figured = self.swept(res)
            low = bisect.bisect_left(found, low_at)
            high = bisect.bisect_left(found, high_at, low)
            spans.append((found, figured, (res.id, res.ids), low, high))
        if len(spans) == 1:
            found, figured, owner, low, high = spans[0]
            # Slices, even of the whole: the answer takes its columns, and these lists are the
            # resource's sweep kept for the next query.
            starts, figures = found[low:high], figured[low:high]
            owners = [owner] * (high - low)
        else:
            starts, figures, owners = _by_start_then_rank(spans, low_at, high_at)
        return build_slots(starts, figures, owners, self.output, self.duration)
