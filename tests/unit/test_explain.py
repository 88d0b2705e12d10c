"""workspace.availability.explain: why a time is or is not offered."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from slotwise import OutOfRange, Unauthorized
from slotwise.availability.results import Reason
from slotwise.storage.memory import MemoryStore
from tests.boundary._tenant_world import at, build


@pytest.fixture
def world():
    """Company A's L1: a 30-minute cut, Ana, lunch blocks 12-13, booked 10:00, held 11:00."""
    return build(MemoryStore)


def _explain(world, hhmm: int, **options):
    ids = world.ids["A"]
    return world.a.availability.explain(
        ids["service"],
        at(hhmm),
        resource_id=ids["resource"],
        location_id=ids["location"],
        **options,
    )


class TestExplain:
    """Offered or not, and every reason, from the same calculator."""

    def test_an_offered_time(self, world):
        """09:00 Tuesday is offered: no reasons."""
        found = _explain(world, 900)

        assert (True, (), False) == (found.offered, found.reasons, found.off_grid)
        assert ["offered"] == found.summary

    def test_lunch_blocks(self, world):
        """12:00 is not offered: the calendar, service and resource lunch blocks say why."""
        found = _explain(world, 1200)
        codes = {(reason.reason_code, reason.reason) for reason in found.reasons}

        assert not found.offered
        assert (Reason.CALENDAR_BLOCK, "A1 lunch") in codes
        assert any(line.startswith("CB A1 lunch 12:00-13:00") for line in found.summary)

    def test_fully_booked(self, world):
        """10:00 is taken by the booked appointment: fully booked."""
        found = _explain(world, 1000)

        assert not found.offered
        assert Reason.FULLY_BOOKED in {reason.reason_code for reason in found.reasons}

    def test_between_grid_starts(self, world):
        """09:07 is free time but not a start: off the grid, with the nearest starts."""
        found = _explain(world, 907)

        assert (False, (), True) == (found.offered, found.reasons, found.off_grid)
        assert (at(900), at(915)) == found.nearest

    def test_time_past(self, world):
        """A time already gone is explained as time past."""
        world.scheduler.clock.advance(timedelta(days=1, hours=6, minutes=30))  # Tuesday 09:30, NY
        found = _explain(world, 900)

        assert Reason.TIME_PAST in {reason.reason_code for reason in found.reasons}

    def test_another_companys_service_is_unauthorized(self, world):
        """Company B cannot ask about company A's service."""
        with pytest.raises(Unauthorized):
            world.b.availability.explain(world.ids["A"]["service"], at(900))


class TestExplainRefusals:
    """Bad input is a typed error naming explain's own argument, and nothing overflows."""

    @pytest.mark.parametrize("duration", [0, 10_081, 5 * 10**9, 2**52])
    def test_a_duration_out_of_range(self, world, duration: int):
        """Every duration beyond 1..10080 is OutOfRange naming duration (a huge one overflowed)."""
        with pytest.raises(OutOfRange) as refused:
            _explain(world, 900, duration=duration)

        assert ("duration", duration) == (refused.value.field, refused.value.requested)

    def test_a_start_whose_local_date_is_out_of_range_names_start(self, world):
        """1900-01-01T00:00Z is 1899-12-31 at a New York location: refused naming start."""
        ids = world.ids["A"]

        with pytest.raises(OutOfRange) as refused:
            world.a.availability.explain(
                ids["service"],
                datetime(1900, 1, 1, tzinfo=UTC),
                location_id=ids["location"],
            )

        assert "start" == refused.value.field
        assert "wall date at the location" in str(refused.value)
