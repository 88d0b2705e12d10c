"""Half-open intervals and interval sets (slotwise.rules.intervals)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from slotwise.errors import InvalidTimeRange
from slotwise.rules.intervals import Interval, IntervalSet


def iset(*pairs: tuple[int, int]) -> IntervalSet[int]:
    """Build an integer IntervalSet from (start, end) pairs."""
    return IntervalSet(Interval(start, end) for start, end in pairs)


def at(hour: int, minute: int = 0) -> datetime:
    """Return 2026-03-02 at hour:minute UTC."""
    return datetime(2026, 3, 2, hour, minute, tzinfo=UTC)


class TestInterval:
    def test_order_boundary(self):
        """start == end is an (empty) interval; end one before start is refused."""
        empty = Interval(5, 5)
        with pytest.raises(InvalidTimeRange) as info:
            Interval(5, 4)

        assert (True, "start") == (empty.is_empty, info.value.field)

    def test_contains_is_half_open(self):
        """The start is inside, the end is not."""
        interval = Interval(1, 3)

        assert [False, True, True, False] == [interval.contains(p) for p in (0, 1, 2, 3)]

    def test_touching_intervals_do_not_overlap(self):
        """[1, 3) and [3, 5) touch without sharing a point."""
        assert (False, True) == (
            Interval(1, 3).overlaps(Interval(3, 5)),
            Interval(1, 3).overlaps(Interval(2, 5)),
        )

    def test_empty_interval_overlaps_nothing(self):
        """An empty interval inside another shares no point with it."""
        assert (False, False) == (
            Interval(1, 5).overlaps(Interval(3, 3)),
            Interval(3, 3).overlaps(Interval(1, 5)),
        )

    def test_repr_is_valid_python(self):
        """The repr rebuilds an equal interval (STYLE rule 34)."""
        interval = Interval(1, 3)

        assert interval == eval(repr(interval))


class TestConstruction:
    def test_sorts_and_merges_overlapping_and_touching(self):
        """Unordered, overlapping and touching intervals become sorted disjoint runs."""
        actual = iset((8, 9), (1, 3), (2, 4), (4, 5), (10, 12), (11, 11))

        assert [Interval(1, 5), Interval(8, 9), Interval(10, 12)] == list(actual)

    def test_drops_empty_intervals(self):
        """Empty intervals add no points."""
        assert IntervalSet() == iset((3, 3), (7, 7))

    def test_contained_interval_is_absorbed(self):
        """An interval inside another adds nothing."""
        assert iset((1, 10)) == iset((1, 10), (3, 4))

    def test_len_bool_and_equality(self):
        """len counts merged runs; an empty set is falsy; equal point sets compare equal."""
        merged = iset((1, 2), (2, 3))

        assert (1, True, False) == (len(merged), bool(merged), bool(IntervalSet()))
        assert iset((1, 3)) == merged
        assert hash(iset((1, 3))) == hash(merged)

    def test_repr_is_valid_python(self):
        """The repr rebuilds an equal set (STYLE rule 34)."""
        value = iset((1, 3), (5, 8))

        assert value == eval(repr(value))
        assert "IntervalSet([])" == repr(IntervalSet())

    def test_intervals_property(self):
        """intervals returns the merged runs as a tuple."""
        assert (Interval(1, 3), Interval(5, 8)) == iset((5, 8), (1, 3)).intervals


class TestAlgebra:
    def test_union_merges_touching_runs(self):
        """[1, 3) | [3, 5) is [1, 5); disjoint runs stay apart."""
        assert iset((1, 5), (7, 9)) == iset((1, 3), (7, 9)) | iset((3, 5))

    def test_intersection(self):
        """Only shared points survive; touching runs share none."""
        actual = iset((0, 5), (8, 12)) & iset((3, 9), (12, 20))

        assert iset((3, 5), (8, 9)) == actual

    def test_difference_splits_runs(self):
        """Subtracting cuts holes and trims ends; one cut may span two runs."""
        actual = iset((0, 10), (12, 20)) - iset((2, 3), (5, 14), (19, 30))

        assert iset((0, 2), (3, 5), (14, 19)) == actual

    def test_difference_with_nothing_is_identity(self):
        """Subtracting the empty set changes nothing; subtracting itself leaves nothing."""
        value = iset((1, 4), (6, 9))

        assert (value, IntervalSet()) == (value - IntervalSet(), value - value)

    def test_named_methods_match_operators(self):
        """union, intersection and difference are |, & and -."""
        left, right = iset((0, 4)), iset((2, 6))

        assert (left | right, left & right, left - right) == (
            left.union(right),
            left.intersection(right),
            left.difference(right),
        )

    @pytest.mark.parametrize(
        ("start", "end", "expected"),
        [
            (2, 11, [(2, 5), (8, 11)]),
            (5, 8, []),
            (-5, 100, [(0, 5), (8, 12)]),
            (4, 4, []),
            (9, 3, []),
        ],
        ids=["both-ends", "in-a-hole", "wider", "empty", "reversed"],
    )
    def test_clip(self, start: int, end: int, expected: list[tuple[int, int]]):
        """clip keeps the part inside [start, end); an empty or reversed range keeps nothing."""
        assert iset(*expected) == iset((0, 5), (8, 12)).clip(start, end)


class TestQueries:
    def test_contains(self):
        """Points in a run are contained; run ends and gaps are not."""
        value = iset((1, 3), (5, 7))

        assert [False, True, True, False, False, True, True, False] == [
            value.contains(point) for point in range(8)
        ]

    @pytest.mark.parametrize(
        ("interval", "expected"),
        [
            (Interval(1, 3), True),
            (Interval(1, 4), False),
            (Interval(0, 2), False),
            (Interval(3, 6), False),
            (Interval(5, 7), True),
            (Interval(4, 4), True),
        ],
        ids=["exact", "one-past-end", "one-before-start", "across-gap", "second-run", "empty"],
    )
    def test_covers(self, interval: Interval[int], expected: bool):
        """covers needs every point inside one run: valid at the limit, refused one past it."""
        assert expected == iset((1, 3), (5, 7)).covers(interval)

    @pytest.mark.parametrize(
        ("interval", "expected"),
        [
            (Interval(3, 5), False),
            (Interval(2, 5), True),
            (Interval(3, 6), True),
            (Interval(0, 1), False),
            (Interval(7, 9), False),
            (Interval(0, 9), True),
            (Interval(2, 2), False),
        ],
        ids=["gap-exactly", "last-point", "first-point", "before", "after", "around", "empty"],
    )
    def test_overlaps(self, interval: Interval[int], expected: bool):
        """overlaps finds any shared point; touching a run's edge is not overlapping."""
        assert expected == iset((1, 3), (5, 7)).overlaps(interval)

    def test_total_length_of_datetimes(self):
        """Lengths add up as timedeltas; an empty set gives the zero passed in."""
        busy = IntervalSet(
            [Interval(at(9), at(10)), Interval(at(9, 30), at(11)), Interval(at(14), at(14, 15))]
        )

        assert (timedelta(hours=2, minutes=15), timedelta()) == (
            busy.total_length(timedelta()),
            IntervalSet[datetime]().total_length(timedelta()),
        )

    def test_total_length_of_ints(self):
        """Integer runs add up as ints."""
        assert 6 == iset((0, 2), (5, 9)).total_length(0)

    def test_datetimes_merge_at_touching_instants(self):
        """Back-to-back datetime intervals merge and can be queried by instant."""
        day = IntervalSet([Interval(at(9), at(12)), Interval(at(12), at(17))])

        assert (1, True, False) == (len(day), day.contains(at(12)), day.contains(at(17)))
