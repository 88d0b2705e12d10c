"""Every list walks all its pages lazily from Python (decision 48): ``iter()`` and ``all_pages``."""

from __future__ import annotations

from datetime import date

import pytest

from slotwise import OutOfRange, UnexpectedField, Workspace
from slotwise.paging import MAX_LIMIT, all_pages


class _Counting:
    """Wraps a list operation and counts the pages it is asked for."""

    def __init__(self, list_page):
        self.list_page = list_page
        self.offsets: list[int] = []

    def __call__(self, *args, **kwargs):
        """Record the offset asked for, then list."""
        self.offsets.append(kwargs["offset"])
        return self.list_page(*args, **kwargs)


class TestAllPages:
    def test_iter_yields_every_record_in_list_order(self, ws: Workspace):
        """customers.iter() yields all 250 customers, in the list's order, across three pages."""
        for number in range(250):
            ws.customers.create(first_name=f"C{number:03d}", last_name="Doe")

        walked = [customer.first_name for customer in ws.customers.iter()]

        assert [f"C{number:03d}" for number in range(250)] == walked

    def test_pages_are_read_only_when_needed(self, ws: Workspace):
        """The first page is read at the call; the next only when the walk reaches it."""
        for number in range(150):
            ws.customers.create(first_name=f"C{number}", last_name="Doe")
        counting = _Counting(ws.customers.list)

        walk = all_pages(counting)
        read_at_call = list(counting.offsets)
        first_hundred = [next(walk) for _ in range(MAX_LIMIT)]
        before_next_page = list(counting.offsets)
        rest = list(walk)

        assert [0] == read_at_call == before_next_page
        assert (100, 50) == (len(first_hundred), len(rest))
        assert [0, 100] == counting.offsets

    def test_filters_pass_through_and_bad_ones_raise_at_the_call(self, ws: Workspace):
        """Filters reach list(); a bad filter raises before any record is yielded."""
        ws.locations.create(name="Downtown")

        services = list(ws.services.iter())
        with pytest.raises(OutOfRange):
            ws.appointments.iter(start_date=date(1800, 1, 1))

        assert [] == services

    @pytest.mark.parametrize("name", ["offset", "limit"])
    def test_the_walk_chooses_the_window(self, ws: Workspace, name: str):
        """offset and limit are refused: the walk chooses them."""
        with pytest.raises(UnexpectedField) as info:
            ws.customers.iter(**{name: 5})

        assert name == info.value.field

    def test_every_list_group_has_iter(self, ws: Workspace):
        """Each operation group whose list() returns pages offers iter()."""
        groups = [
            ws.locations, ws.calendars, ws.services, ws.service_groups, ws.resources,
            ws.resource_groups, ws.customers, ws.subscriptions, ws.appointments,
        ]  # fmt: skip

        assert all(callable(getattr(group, "iter", None)) for group in groups)
