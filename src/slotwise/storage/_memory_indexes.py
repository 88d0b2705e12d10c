"""
The sorted indexes behind ``MemoryStore``'s reads, kept small: each holds references to values
the records already hold (their ids and instants), never a tuple or a dictionary per record.
"""

from __future__ import annotations

import bisect
import heapq
from collections.abc import Collection, Mapping
from collections.abc import Set as AbstractSet
from datetime import datetime, timedelta
from typing import Any, Generic, TypeVar

__all__ = ["CreationList", "FeedIndex", "LocationIndex", "StartIndex"]

K = TypeVar("K", bound=tuple[Any, ...])


class CreationList:
    """
    Record ids in creation order: the order of their creation sequence numbers in *created*.

    A list of ids, not of (sequence, id) pairs: the sequence is looked up in the store's
    ``created`` table (one per kind) when a record joins or leaves anywhere but at the end.
    """

    __slots__ = ()

    @staticmethod
    def join(entries: list[str], record_id: str, created: Mapping[str, int]) -> None:
        """Put *record_id* (in *created*) in its creation place in *entries*."""
        if not entries or created[entries[-1]] < created[record_id]:
            entries.append(record_id)  # the usual case: a new record, the newest of its list
        else:
            bisect.insort(entries, record_id, key=created.__getitem__)

    @staticmethod
    def leave(entries: list[str], record_id: str, created: Mapping[str, int]) -> None:
        """Take *record_id* (still in *created*) out of *entries*, if it is there."""
        index = bisect.bisect_left(entries, created[record_id], key=created.__getitem__)
        if index < len(entries) and entries[index] == record_id:
            del entries[index]


class StartIndex:
    """
    Appointment ids ordered by (start, id), as two parallel lists (the starts are the records'
    own datetimes), and the longest appointment seen, so an overlap read can start its
    bisection at (range start - longest).
    """

    __slots__ = ("ids", "longest", "starts")

    def __init__(self) -> None:
        self.starts: list[datetime] = []
        self.ids: list[str] = []
        self.longest = timedelta(0)

    def add(self, start: datetime, record_id: str, span: timedelta) -> None:
        starts, ids = self.starts, self.ids
        index = bisect.bisect_right(starts, start)
        # Equal starts are ordered by id (rare: group bookings, a slot booked again).
        while index > 0 and starts[index - 1] == start and ids[index - 1] > record_id:
            index -= 1
        starts.insert(index, start)
        ids.insert(index, record_id)
        if span > self.longest:
            self.longest = span

    def discard(self, start: datetime, record_id: str) -> bool:
        """Take *record_id* (starting at *start*) out; tell whether it was there."""
        starts, ids = self.starts, self.ids
        index = bisect.bisect_left(starts, start)
        while index < len(starts) and starts[index] == start:
            if ids[index] == record_id:
                del starts[index]
                del ids[index]
                return True
            index += 1
        return False

    def between(self, low: datetime, high: datetime, begin: int = 0) -> tuple[int, int]:
        """Return the positions of the entries starting in ``[low, high)`` (from *begin* on)."""
        first = bisect.bisect_left(self.starts, low, begin)
        return first, bisect.bisect_left(self.starts, high, first)


class LocationIndex(StartIndex):
    """
    A location's :class:`StartIndex`, which also counts the appointments taking each resource
    (``None``: taking none), so a read for a set of resources can tell in one comparison that
    every appointment there takes one of them and needs no filter.
    """

    __slots__ = ("takers",)

    def __init__(self) -> None:
        super().__init__()
        self.takers: dict[str | None, int] = {}

    def add_taking(
        self, start: datetime, record_id: str, span: timedelta, resource_ids: Collection[str]
    ) -> None:
        self.add(start, record_id, span)
        takers = self.takers
        for resource_id in set(resource_ids) or (None,):  # _taken(), inline: every booking adds
            takers[resource_id] = takers.get(resource_id, 0) + 1

    def discard_taking(
        self, start: datetime, record_id: str, resource_ids: Collection[str]
    ) -> None:
        if not self.discard(start, record_id):
            return
        takers = self.takers
        for resource_id in _taken(resource_ids):
            if takers[resource_id] == 1:
                del takers[resource_id]
            else:
                takers[resource_id] -= 1

    def taken_only_by(self, resource_ids: AbstractSet[str]) -> bool:
        """Tell whether every appointment here takes one of *resource_ids* and no other."""
        return self.takers.keys() <= resource_ids


def _taken(resource_ids: Collection[str]) -> Collection[str | None]:
    """What an appointment is counted under: each resource once, ``None`` when it takes none."""
    return set(resource_ids) or (None,)


class FeedIndex(Generic[K]):
    """
    Sorted keys per (company, location), so "the first *limit* of some locations" costs
    O(locations + limit log locations), whatever the other locations hold.
    """

    def __init__(self) -> None:
        self._lists: dict[tuple[str, str | None], list[K]] = {}
        # company id -> the location ids (None: company-wide) it has keys under
        self._locations: dict[str, set[str | None]] = {}

    def add(self, company_id: str, location_id: str | None, key: K) -> None:
        entries = self._lists.get((company_id, location_id))
        if entries is None:
            entries = self._lists[(company_id, location_id)] = []
            self._locations.setdefault(company_id, set()).add(location_id)
        bisect.insort(entries, key)

    def discard(self, company_id: str, location_id: str | None, key: K) -> None:
        entries = self._lists.get((company_id, location_id))
        if entries is None:
            return
        index = bisect.bisect_left(entries, key)
        if index < len(entries) and entries[index] == key:
            del entries[index]

    def first(
        self,
        company_id: str | None,
        location_ids: Collection[str] | None,
        limit: int,
        *,
        upto: object = None,
    ) -> list[K]:
        """
        Return up to *limit* keys in order; with *upto*, only keys whose first part <= it.

        *location_ids* ``None`` takes every location and the company-wide keys; a collection
        only the keys of those locations.
        """
        merged = heapq.merge(*self._sources(company_id, location_ids))
        found: list[K] = []
        for key in merged:
            if len(found) >= limit or (upto is not None and key[0] > upto):
                break
            found.append(key)
        return found

    def _sources(
        self, company_id: str | None, location_ids: Collection[str] | None
    ) -> list[list[K]]:
        if company_id is None:
            if location_ids is None:
                return list(self._lists.values())
            wanted = set(location_ids)
            return [entries for (_, loc), entries in self._lists.items() if loc in wanted]
        if location_ids is None:
            places: Collection[str | None] = self._locations.get(company_id, ())
        else:
            places = set(location_ids)
        return [
            entries
            for place in places
            if (entries := self._lists.get((company_id, place))) is not None
        ]
