"""
A listing of every free resource is put in order a stretch of minutes at a time
(``availability.roundrobin._by_start_then_rank``): the order is exactly one stable sort of every
offer on its start, whatever the stretch's size.
"""

from __future__ import annotations

from unittest import mock

from hypothesis import given
from hypothesis import strategies as st

from slotwise.availability import roundrobin
from slotwise.availability.records import _Figures
from tests import strategies

from .test_calculator_oracle import Case, calculator_slots


@st.composite
def resource_spans(draw: st.DrawFn) -> tuple[list[roundrobin._Span], int, int]:
    """Draw resources' ascending starts (often shared), the searched range of each, and bounds."""
    low_at = draw(st.integers(0, 50))
    high_at = draw(st.integers(low_at, 120))
    spans: list[roundrobin._Span] = []
    for rank in range(draw(st.integers(1, 6))):
        found = sorted(set(draw(st.lists(st.integers(0, 130), max_size=40))))
        # Each figure is its own tuple, so a misplaced one is told apart from its neighbours.
        figured: list[_Figures] = [
            (rank, start, position, 1) for position, start in enumerate(found)
        ]
        owner: roundrobin._Owner = (f"r{rank}", (f"r{rank}",))
        low = next((i for i, start in enumerate(found) if start >= low_at), len(found))
        high = next((i for i, start in enumerate(found) if start >= high_at), len(found))
        spans.append((found, figured, owner, low, high))
    return spans, low_at, high_at


@given(resource_spans(), st.integers(1, 50))
def test_a_stretch_at_a_time_is_one_stable_sort_on_the_start(
    drawn: tuple[list[roundrobin._Span], int, int], stretch: int
):
    """Every size of stretch gives the columns of one stable sort of all offers by start."""
    spans, low_at, high_at = drawn
    offers = [
        (found[i], figured[i], owner)
        for found, figured, owner, low, high in spans
        for i in range(low, high)
    ]
    expected = sorted(offers, key=lambda offer: offer[0])

    with mock.patch.object(roundrobin, "_STRETCH", stretch):
        starts, figures, owners = roundrobin._by_start_then_rank(spans, low_at, high_at)

    assert list(zip(starts, figures, owners, strict=True)) == expected


@given(strategies.availability_cases())
def test_listings_are_the_same_put_in_order_two_offers_at_a_time(case: Case):
    """On random businesses, a stretch of two offers lists exactly the slots of the default."""
    default = calculator_slots(case)

    with mock.patch.object(roundrobin, "_STRETCH", 2):
        small = calculator_slots(case)

    assert small == default
