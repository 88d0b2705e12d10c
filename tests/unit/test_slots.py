"""The calculator's slot builder gives genuine, frozen ``Slot`` records."""

from __future__ import annotations

import pickle
import weakref
from datetime import UTC, date, datetime

import attrs
import pytest

from slotwise import Slot
from slotwise.availability._slots import _described, new_slot

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
