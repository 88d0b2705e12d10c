"""IntervalSet agrees with a set-of-integer-points model and stays normalised."""

from __future__ import annotations

import itertools
from collections.abc import Iterable

from hypothesis import given
from hypothesis import strategies as st

from slotwise.rules.intervals import Interval, IntervalSet

# Small integer intervals keep the point model cheap; empty intervals are drawn on purpose.
LOW, HIGH = 0, 40


@st.composite
def int_intervals(draw: st.DrawFn) -> Interval[int]:
    """Draw an interval [a, b) with LOW <= a <= b <= HIGH (possibly empty)."""
    start = draw(st.integers(LOW, HIGH))
    return Interval(start, draw(st.integers(start, HIGH)))


interval_lists = st.lists(int_intervals(), max_size=8)
probe_points = st.integers(LOW - 2, HIGH + 2)


def model(intervals: Iterable[Interval[int]]) -> set[int]:
    """Return the set of integer points the intervals hold."""
    return {point for interval in intervals for point in range(interval.start, interval.end)}


def assert_normalised(value: IntervalSet[int]) -> None:
    """Check runs are non-empty, sorted, disjoint and not touching."""
    runs = list(value)
    assert all(run.start < run.end for run in runs)
    assert all(left.end < right.start for left, right in itertools.pairwise(runs))


class TestIntervalSetModel:
    @given(interval_lists)
    def test_construction_keeps_points_and_normalises(self, intervals: list[Interval[int]]):
        """A set built from any intervals holds exactly their points, in normal form."""
        value = IntervalSet(intervals)

        assert_normalised(value)
        assert model(intervals) == model(value)

    @given(interval_lists, st.data())
    def test_order_does_not_matter(self, intervals: list[Interval[int]], data: st.DataObject):
        """Building from the same intervals in any order gives an equal set."""
        shuffled = data.draw(st.permutations(intervals))

        assert IntervalSet(intervals) == IntervalSet(shuffled)

    @given(interval_lists, interval_lists)
    def test_union(self, left: list[Interval[int]], right: list[Interval[int]]):
        """Union holds the points of either side."""
        actual = IntervalSet(left) | IntervalSet(right)

        assert_normalised(actual)
        assert model(left) | model(right) == model(actual)

    @given(interval_lists, interval_lists)
    def test_intersection(self, left: list[Interval[int]], right: list[Interval[int]]):
        """Intersection holds the points of both sides."""
        actual = IntervalSet(left) & IntervalSet(right)

        assert_normalised(actual)
        assert model(left) & model(right) == model(actual)

    @given(interval_lists, interval_lists)
    def test_difference(self, left: list[Interval[int]], right: list[Interval[int]]):
        """Difference holds the points of the left side not on the right."""
        actual = IntervalSet(left) - IntervalSet(right)

        assert_normalised(actual)
        assert model(left) - model(right) == model(actual)

    @given(interval_lists, probe_points, probe_points)
    def test_clip(self, intervals: list[Interval[int]], start: int, end: int):
        """clip(start, end) holds the set's points p with start <= p < end."""
        actual = IntervalSet(intervals).clip(start, end)

        assert_normalised(actual)
        assert {p for p in model(intervals) if start <= p < end} == model(actual)

    @given(interval_lists, probe_points)
    def test_contains(self, intervals: list[Interval[int]], point: int):
        """contains agrees with membership in the point model."""
        assert (point in model(intervals)) == IntervalSet(intervals).contains(point)

    @given(interval_lists, int_intervals())
    def test_covers(self, intervals: list[Interval[int]], probe: Interval[int]):
        """covers agrees with the subset relation of the point models."""
        assert (model([probe]) <= model(intervals)) == IntervalSet(intervals).covers(probe)

    @given(interval_lists, int_intervals())
    def test_overlaps(self, intervals: list[Interval[int]], probe: Interval[int]):
        """overlaps agrees with a non-empty intersection of the point models."""
        assert bool(model([probe]) & model(intervals)) == IntervalSet(intervals).overlaps(probe)

    @given(interval_lists)
    def test_total_length(self, intervals: list[Interval[int]]):
        """total_length counts the points."""
        assert len(model(intervals)) == IntervalSet(intervals).total_length(0)

    @given(interval_lists, interval_lists)
    def test_equality_means_same_points(
        self, left: list[Interval[int]], right: list[Interval[int]]
    ):
        """Two sets are equal exactly when they hold the same points."""
        assert (model(left) == model(right)) == (IntervalSet(left) == IntervalSet(right))

    @given(interval_lists)
    def test_bool_means_non_empty(self, intervals: list[Interval[int]]):
        """A set is truthy exactly when it holds a point."""
        assert bool(model(intervals)) == bool(IntervalSet(intervals))
