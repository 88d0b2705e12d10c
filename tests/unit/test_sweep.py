"""
Where every slot's booking limit is 1, a resource's occupations are kept as their union and the
sweep skips the starts a segment refuses in one bisection (``_Resource.saturated``): both must
judge every start as the exact loads do.
"""

from __future__ import annotations

import itertools
from typing import Any

import attrs
import pytest
from hypothesis import assume, example, given
from hypothesis import strategies as st

from slotwise.availability._minutes import _FULL
from slotwise.availability._sweep import sweep
from slotwise.availability.records import _Figures, _Resource
from slotwise.availability.snapshot import Snapshot
from tests import strategies
from tests.unit import test_calculator as calculator_cases

_Occupation = tuple[int, int, int, int]
"""``(start, length, group size, weight)`` in minutes."""


def _resource(
    occupations: list[_Occupation], busy: list[tuple[int, int]], *, saturated: bool
) -> _Resource:
    resource = _Resource.__new__(_Resource)
    resource.segment_starts = [start for start, _, _, _ in occupations]
    resource.segment_ends = [start + length for start, length, _, _ in occupations]
    resource.segment_groups = [group for _, _, group, _ in occupations]
    resource.segment_weights = [weight for _, _, _, weight in occupations]
    resource.busy_starts, resource.busy_ends = [], []
    resource.set_busy(busy)
    resource.set_occupancy(saturated)
    return resource


def _in_start_order(occupations: list[_Occupation]) -> list[_Occupation]:
    """The occupations as ``_Resource.occupy`` lays them out: by start (the snapshot's order)."""
    return sorted(occupations, key=lambda occupation: occupation[0])


_dense = st.lists(
    st.tuples(
        st.integers(0, 24), st.integers(0, 12), st.integers(1, 3), st.sampled_from([1, _FULL])
    ),
    max_size=6,
)
"""Occupations packed into half an hour: ends and starts meet and overlap by a minute often."""
_occupations = st.one_of(strategies.occupations(), _dense)

_busy = st.lists(
    st.tuples(st.integers(-30, 150), st.integers(1, 40)).map(lambda b: (b[0], b[0] + b[1])),
    max_size=3,
)
_starts = st.lists(st.integers(-40, 160), max_size=40, unique=True).map(sorted)


class TestSaturatedSegments:
    def test_overlapping_occupations_become_their_union(self):
        """Padded neighbours and a touching one make one piece; an empty one makes none."""
        occupations = [(0, 40, 1, 1), (30, 40, 2, 1), (70, 10, 1, _FULL), (90, 0, 1, 1)]

        resource = _resource(occupations, [], saturated=True)

        assert (resource.segment_starts, resource.segment_ends) == ([0], [80])
        assert (resource.segment_counts, resource.segment_groups) == ([1], [1])

    @given(_occupations)
    @example([(0, 10, 1, 1), (5, 6, 1, 1)])
    def test_every_occupied_minute_and_no_other(self, occupations):
        """The pieces are disjoint, ascending, and cover exactly the occupied minutes, each full."""
        # An appointment's occupation is never empty (its end is after its start).
        occupations = [occupation for occupation in occupations if occupation[1] > 0]
        resource = _resource(_in_start_order(occupations), [], saturated=True)
        pieces = list(zip(resource.segment_starts, resource.segment_ends, strict=True))

        covered = [minute for low, high in pieces for minute in range(low, high)]
        occupied = {
            minute for start, length, _, _ in occupations for minute in range(start, start + length)
        }
        assert sorted(occupied) == covered
        assert all(a[1] <= b[0] for a, b in itertools.pairwise(pieces))
        assert all(count >= 1 for count in resource.segment_counts)

    @given(_occupations)
    def test_out_of_order_occupations_keep_the_exact_loads(self, occupations):
        """Occupations not in start order (a host's own snapshot) take the exact path."""
        shuffled = sorted(occupations, key=lambda occupation: -occupation[0])
        assume(any(a[0] > b[0] for a, b in itertools.pairwise(shuffled)))
        saturated = _resource(shuffled, [], saturated=True)
        exact = _resource(shuffled, [], saturated=False)

        assert saturated.segment_counts == exact.segment_counts
        assert saturated.segment_starts == exact.segment_starts


class TestSaturatedSweep:
    @given(
        _occupations,
        _busy,
        _starts,
        st.integers(1, 60),
        st.sampled_from([0, 1, 3]),
    )
    def test_judges_every_start_as_the_exact_loads_do(
        self, occupations, busy, starts, reach, max_capacity
    ):
        """With every limit 1, the union and its bisection offer the same starts and figures."""
        occupations = _in_start_order(occupations)
        limits = [1] * len(starts)
        clear: list[_Figures] = [(1, 1, max_capacity or 1, max_capacity or 1)] * len(starts)
        ranges = [(0, len(starts) // 2), (len(starts) // 2, len(starts))]

        def swept(saturated: bool) -> tuple[list[int], list[_Figures]]:
            resource = _resource(occupations, busy, saturated=saturated)
            return sweep(starts, limits, clear, ranges, resource, reach, max_capacity)

        assert swept(True) == swept(False)

    @given(_occupations, _busy, _starts, st.integers(1, 60))
    def test_out_of_order_occupations_are_judged_exactly(self, occupations, busy, starts, reach):
        """Saturated but not in start order (the exact loads kept): still the exact answer."""
        shuffled = sorted(occupations, key=lambda occupation: -occupation[0])
        limits = [1] * len(starts)
        clear: list[_Figures] = [(1, 1, 1, 1)] * len(starts)

        def swept(saturated: bool) -> tuple[list[int], list[_Figures]]:
            resource = _resource(shuffled, busy, saturated=saturated)
            return sweep(starts, limits, clear, [(0, len(starts))], resource, reach, 0)

        assert swept(True) == swept(False)


class TestWhenSaturated:
    """Whether the limits of one apply is decided from every source of a slot's limit."""

    # 09:00-10:00 and 09:15-10:15 on one resource: two bookings at once from 09:15 to 10:00.
    APPOINTMENTS = (
        calculator_cases.appointment(900, 1000),
        calculator_cases.appointment(915, 1015),
    )

    def _offered(self, snap: Snapshot) -> list[tuple[str, int]]:
        snap = attrs.evolve(snap, service=attrs.evolve(snap.service, duration=15))
        return [
            (slot.start.strftime("%H%M"), slot.available_bookings)
            for slot in calculator_cases.slots(snap, interval=15)
        ]

    @pytest.mark.parametrize(
        "source",
        ["resource allocation", "service allocation", "service limit", "calendar limit"],
    )
    def test_a_limit_of_two_from_any_source_counts_both_bookings(self, source: str):
        """With a limit of 2, 09:00 (one booking) keeps a place; 09:15-09:45 (two) are full."""
        fields: dict[str, Any] = {"appointments": self.APPOINTMENTS}
        if source == "resource allocation":
            fields["resources"] = (calculator_cases.resource(recurring_availability=False),)
            fields["allocations"] = (
                calculator_cases.allocation("resource", "r1", 900, 1200, booking_limit=2),
            )
        elif source == "service allocation":
            fields["allocations"] = (
                calculator_cases.allocation("service", "s1", 900, 1200, booking_limit=2),
            )
        elif source == "service limit":
            fields["service"] = calculator_cases.service(booking_limit=2)
        else:
            fields["calendar"] = attrs.evolve(calculator_cases.CALENDAR, bookings_per_slot=2)

        offered = self._offered(calculator_cases.snapshot(**fields))

        assert ("0900", 1) in offered
        assert not {"0915", "0930", "0945"} & {start for start, _ in offered}

    def test_with_every_limit_one_the_overlap_refuses_its_time(self):
        """Limit 1: every start whose slot meets either booking is refused, none offered there."""
        offered = self._offered(calculator_cases.snapshot(appointments=self.APPOINTMENTS))

        assert not {"0900", "0915", "0930", "0945", "1000"} & {start for start, _ in offered}
        assert ("1015", 1) in offered


class TestNothingOccupies:
    @given(_starts, st.integers(1, 60))
    def test_every_start_is_clear_as_the_sweep_finds_it(self, starts, reach):
        """A resource holding nothing offers every start, as one holding only a far-off segment."""
        limits = [2] * len(starts)
        clear: list[_Figures] = [(2, 2, 3, 3)] * len(starts)
        ranges = [(0, len(starts) // 3), (len(starts) // 2, len(starts))]

        def swept(occupations: list[_Occupation]) -> tuple[list[int], list[_Figures]]:
            resource = _resource(occupations, [], saturated=False)
            return sweep(starts, limits, clear, ranges, resource, reach, 3)

        assert swept([(10_000, 30, 1, 1)]) == swept([])
        assert [start for low, high in ranges for start in starts[low:high]] == swept([])[0]
