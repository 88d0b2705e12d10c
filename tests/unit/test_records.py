"""A resource's occupations become disjoint constant-load segments, as minute-by-minute counts say."""

from __future__ import annotations

import itertools

from hypothesis import given

from slotwise.availability._minutes import _FULL
from slotwise.availability.records import _Resource
from tests import strategies

_Occupation = tuple[int, int, int, int]
"""``(start, length, group size, weight)`` in minutes."""


def _segments(occupations: list[_Occupation]) -> list[tuple[int, int, int, int]]:
    resource = _Resource.__new__(_Resource)
    resource.segment_starts = [start for start, _, _, _ in occupations]
    resource.segment_ends = [start + length for start, length, _, _ in occupations]
    resource.segment_groups = [group for _, _, group, _ in occupations]
    resource.segment_weights = [weight for _, _, _, weight in occupations]
    resource.set_occupancy()
    return list(
        zip(
            resource.segment_starts,
            resource.segment_ends,
            resource.segment_counts,
            resource.segment_groups,
            strict=True,
        )
    )


class TestSetOccupancy:
    def test_padded_neighbours_overlap(self):
        """A padded appointment's tail and the next appointment make a segment of both."""
        occupations = [(0, 40, 1, 1), (30, 40, 2, 1), (80, 30, 1, _FULL)]

        assert [
            (0, 30, 1, 1),
            (30, 40, 2, 3),
            (40, 70, 1, 2),
            (80, 110, _FULL, 1),
        ] == _segments(occupations)

    @given(strategies.occupations())
    def test_minute_loads(self, occupations):
        """Segments are disjoint and ascending, and give every minute its occupations' load."""
        segments = _segments(occupations)
        by_minute: dict[int, tuple[int, int]] = {}
        for start, end, count, groups in segments:
            for minute in range(start, end):
                assert minute not in by_minute
                by_minute[minute] = (count, groups)
        expected: dict[int, tuple[int, int]] = {}
        for start, length, group, weight in occupations:
            for minute in range(start, start + length):
                count, groups = expected.get(minute, (0, 0))
                expected[minute] = (count + weight, groups + group)

        assert expected == by_minute
        assert all(a[1] <= b[0] for a, b in itertools.pairwise(segments))
