"""
Half-open intervals ``[start, end)`` and immutable, normalised sets of them.

The availability calculator works on instants (aware UTC datetimes), never on minutes of a grid:
open time, blocks and bookings become :class:`IntervalSet` values and are combined with union,
intersection and difference. Any totally ordered point type works (tests use ``int``).

Policy (``docs/semantics.md``):

* Intervals are half-open, so ``[9:00, 10:00)`` and ``[10:00, 11:00)`` touch without overlapping,
  and a set merges them into ``[9:00, 11:00)``.
* An empty interval (``start == end``) is allowed, as a DST gap can swallow a whole window
  (decision 2). It contains no point, overlaps nothing and is covered by every set; sets drop it.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable, Iterator, Sequence
from typing import Any, Generic, Protocol, TypeVar, cast

import attrs

from slotwise.errors import InvalidTimeRange

__all__ = ["Interval", "IntervalSet"]


class _Point(Protocol):
    """A totally ordered value: all the algebra needs is ``<``."""

    def __lt__(self, other: Any, /) -> bool: ...


P = TypeVar("P", bound=_Point)
L = TypeVar("L")


def _check_order(instance: Interval[Any], _attribute: Any, end: Any) -> None:
    """Refuse an end before the start (an equal end makes an empty interval)."""
    if end < instance.start:
        raise InvalidTimeRange(field="start", start=instance.start, end=end, names=("start", "end"))


@attrs.frozen
class Interval(Generic[P]):
    """
    The half-open interval ``[start, end)``.

    Args:
        start: the first point inside the interval.
        end: the first point after it; equal to *start* for an empty interval.

    Raises:
        InvalidTimeRange: when *end* comes before *start*.

    .. versionadded:: 0.1
    """

    start: P
    end: P = attrs.field(validator=_check_order)

    @property
    def is_empty(self) -> bool:
        """Tell whether the interval holds no point (``start == end``)."""
        return not self.start < self.end

    def contains(self, point: P) -> bool:
        """Tell whether ``start <= point < end``."""
        return not point < self.start and point < self.end

    def overlaps(self, other: Interval[P]) -> bool:
        """Tell whether the two intervals share a point; touching ends do not count."""
        return (
            self.start < other.end
            and other.start < self.end
            and not self.is_empty
            and not other.is_empty
        )


def _later(first: P, second: P) -> P:
    """Return the later of two points using ``<`` only."""
    return second if first < second else first


def _earlier(first: P, second: P) -> P:
    """Return the earlier of two points using ``<`` only."""
    return second if second < first else first


class _Builder(Generic[P]):
    """Collect intervals in start order, merging overlapping and touching ones as they come."""

    __slots__ = ("ends", "starts")

    def __init__(self) -> None:
        self.starts: list[P] = []
        self.ends: list[P] = []

    def add(self, start: P, end: P) -> None:
        """Append ``[start, end)``, which starts at or after every interval added so far."""
        if not start < end:
            return
        if self.ends and not self.ends[-1] < start:
            if self.ends[-1] < end:
                self.ends[-1] = end
            return
        self.starts.append(start)
        self.ends.append(end)

    def build(self) -> IntervalSet[P]:
        """Return the collected intervals as a set."""
        return IntervalSet._trusted(tuple(self.starts), tuple(self.ends))


@attrs.frozen(init=False, repr=False)
class IntervalSet(Generic[P]):
    """
    An immutable set of points stored as sorted, disjoint, non-touching half-open intervals.

    Construction sorts once (``O(n log n)``); union, intersection and difference are linear merges
    of the two sorted lists; :meth:`contains`, :meth:`covers` and :meth:`overlaps` are binary
    searches and :meth:`clip` costs ``O(log n + k)`` for *k* intervals kept. Two sets are equal when
    they hold the same points. Iterating yields the merged :class:`Interval` values in order.

    Args:
        intervals: any intervals, in any order; they may overlap, touch or be empty.

    .. versionadded:: 0.1
    """

    _starts: tuple[P, ...]
    _ends: tuple[P, ...]

    def __init__(self, intervals: Iterable[Interval[P]] = (), /) -> None:
        builder: _Builder[P] = _Builder()
        for interval in sorted(intervals, key=lambda interval: interval.start):
            builder.add(interval.start, interval.end)
        self.__attrs_init__(tuple(builder.starts), tuple(builder.ends))

    @classmethod
    def _trusted(cls, starts: tuple[P, ...], ends: tuple[P, ...]) -> IntervalSet[P]:
        """Wrap lists that are already sorted, disjoint and non-touching."""
        instance = cls.__new__(cls)
        instance.__attrs_init__(starts, ends)
        return instance

    def __iter__(self) -> Iterator[Interval[P]]:
        for start, end in zip(self._starts, self._ends, strict=True):
            yield Interval(start, end)

    def __len__(self) -> int:
        """Return the number of merged intervals."""
        return len(self._starts)

    def __bool__(self) -> bool:
        return bool(self._starts)

    def __repr__(self) -> str:
        return f"IntervalSet([{', '.join(repr(interval) for interval in self)}])"

    def __or__(self, other: IntervalSet[P]) -> IntervalSet[P]:
        return self.union(other)

    def __and__(self, other: IntervalSet[P]) -> IntervalSet[P]:
        return self.intersection(other)

    def __sub__(self, other: IntervalSet[P]) -> IntervalSet[P]:
        return self.difference(other)

    def union(self, other: IntervalSet[P]) -> IntervalSet[P]:
        """Return the points in either set (also ``self | other``)."""
        builder: _Builder[P] = _Builder()
        a_starts, a_ends, b_starts, b_ends = self._starts, self._ends, other._starts, other._ends
        i = j = 0
        while i < len(a_starts) or j < len(b_starts):
            if j == len(b_starts) or (i < len(a_starts) and a_starts[i] < b_starts[j]):
                builder.add(a_starts[i], a_ends[i])
                i += 1
            else:
                builder.add(b_starts[j], b_ends[j])
                j += 1
        return builder.build()

    def intersection(self, other: IntervalSet[P]) -> IntervalSet[P]:
        """Return the points in both sets (also ``self & other``)."""
        builder: _Builder[P] = _Builder()
        a_starts, a_ends, b_starts, b_ends = self._starts, self._ends, other._starts, other._ends
        i = j = 0
        while i < len(a_starts) and j < len(b_starts):
            builder.add(_later(a_starts[i], b_starts[j]), _earlier(a_ends[i], b_ends[j]))
            if a_ends[i] < b_ends[j]:
                i += 1
            else:
                j += 1
        return builder.build()

    def difference(self, other: IntervalSet[P]) -> IntervalSet[P]:
        """Return the points in this set and not in *other* (also ``self - other``)."""
        builder: _Builder[P] = _Builder()
        b_starts, b_ends = other._starts, other._ends
        j = 0
        for start, end in zip(self._starts, self._ends, strict=True):
            # Skip the cuts that end at or before this interval starts.
            while j < len(b_starts) and not start < b_ends[j]:
                j += 1
            cursor = start
            while j < len(b_starts) and b_starts[j] < end:
                builder.add(cursor, b_starts[j])
                cursor = _later(cursor, b_ends[j])
                if not cursor < end:
                    break  # this cut may reach into the next interval: keep j on it
                j += 1
            builder.add(cursor, end)
        return builder.build()

    def clip(self, start: P, end: P) -> IntervalSet[P]:
        """Return the part of this set inside ``[start, end)`` (empty when ``end <= start``)."""
        builder: _Builder[P] = _Builder()
        index = bisect.bisect_right(self._ends, start)
        while index < len(self._starts) and self._starts[index] < end:
            builder.add(_later(self._starts[index], start), _earlier(self._ends[index], end))
            index += 1
        return builder.build()

    def contains(self, point: P) -> bool:
        """Tell whether *point* lies in the set."""
        index = bisect.bisect_right(self._starts, point) - 1
        return index >= 0 and point < self._ends[index]

    def covers(self, interval: Interval[P]) -> bool:
        """Tell whether every point of *interval* lies in the set (always, for an empty one)."""
        if interval.is_empty:
            return True
        # Touching intervals are merged, so a covered interval lies inside one stored interval.
        index = bisect.bisect_right(self._starts, interval.start) - 1
        return index >= 0 and not self._ends[index] < interval.end

    def overlaps(self, interval: Interval[P]) -> bool:
        """Tell whether *interval* shares at least one point with the set."""
        if interval.is_empty:
            return False
        index = bisect.bisect_right(self._ends, interval.start)
        return index < len(self._starts) and self._starts[index] < interval.end

    def total_length(self, zero: L) -> L:
        """
        Return the summed length of the intervals, starting the sum from *zero*.

        *zero* gives the length type, which an empty set cannot know:
        ``busy.total_length(timedelta())`` for datetimes, ``spans.total_length(0)`` for ints.
        """
        total: Any = zero
        for start, end in zip(self._starts, self._ends, strict=True):
            total = total + (cast(Any, end) - start)
        return cast(L, total)

    @property
    def intervals(self) -> Sequence[Interval[P]]:
        """Return the merged intervals in order, as a tuple."""
        return tuple(self)
