"""The calculator's slot builder gives genuine, frozen ``Slot`` records."""

from __future__ import annotations

import pickle
import weakref
from datetime import UTC, date, datetime

import attrs
import pytest

from slotwise import Slot
from slotwise.availability import _slots
from slotwise.availability._slots import _described, new_slot
from slotwise.availability.output import _Output
from slotwise.availability.query import AvailabilityQuery

_START = datetime(2023, 3, 26, 9, 0, tzinfo=UTC)
_END = datetime(2023, 3, 26, 9, 30, tzinfo=UTC)
_VALUES = (_START, _END, date(2023, 3, 26), 1100, "11:00 AM", 30, 2, 1, 4, 3, "r1", ("r1",))
_EXPECTED = Slot(
    start=_START,
    end=_END,
    date=date(2023, 3, 26),
    time=1100,
    display_time="11:00 AM",
    duration=30,
    allowable_bookings=2,
    available_bookings=1,
    allowable_capacity=4,
    available_capacity=3,
    resource_id="r1",
    resource_ids=("r1",),
)


class TestNewSlot:
    """``new_slot`` and its fallback build the same record attrs' constructor builds."""

    @pytest.mark.parametrize("build", [new_slot, _described()], ids=["drafted", "described"])
    def test_same_record(self, build):
        """The built slot is a Slot equal to, hashing and printing like the constructor's."""
        slot = build(*_VALUES)

        assert (Slot, _EXPECTED, hash(_EXPECTED), repr(_EXPECTED)) == (
            type(slot),
            slot,
            hash(slot),
            repr(slot),
        )

    def test_frozen_weak_and_picklable(self):
        """The built slot refuses assignment, takes weak references and survives pickling."""
        slot = new_slot(*_VALUES)

        with pytest.raises(attrs.exceptions.FrozenInstanceError):
            slot.duration = 60  # type: ignore[misc]
        assert weakref.ref(slot)() is slot
        assert _EXPECTED == pickle.loads(pickle.dumps(slot))


class TestBuildSlots:
    """``build_slots`` builds the calculator's slots inline, or through the fallback builder."""

    @pytest.mark.parametrize("fallback", [False, True], ids=["inline", "fallback"])
    def test_offers_in_order(self, monkeypatch, fallback):
        """Each offer taken in the given order becomes the Slot the constructor would build."""
        if fallback:
            monkeypatch.setattr(_slots, "new_slot", _slots._described())
        day = date(2023, 3, 26)
        query = AvailabilityQuery(service_id="s", start_date=day, end_date=day, tz_offset=120)
        output = _Output(query, "UTC")
        minute = int(_START.timestamp()) // 60
        starts = [minute + 30, minute]
        figures = [(1, 1, 1, 1), (2, 1, 4, 3)]
        ids = [("r2",), ("r1",)]

        slots = _slots.build_slots([1, 0], starts, figures, ids, output, 30)

        assert [type(slot) for slot in slots] == [Slot, Slot]
        assert slots[0] == _EXPECTED
        assert (slots[1].start, slots[1].end, slots[1].resource_ids) == (
            _END,
            datetime(2023, 3, 26, 10, 0, tzinfo=UTC),
            ("r2",),
        )
