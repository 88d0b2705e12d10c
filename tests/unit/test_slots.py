"""An answer's slots: genuine, frozen ``Slot`` records built from columns when read."""

from __future__ import annotations

import pickle
import weakref
from datetime import UTC, date, datetime

import attrs
import pytest

from slotwise import Slot, Slots
from slotwise.availability import slots as slots_module
from slotwise.availability.output import _Output
from slotwise.availability.query import AvailabilityQuery
from slotwise.availability.slots import _described, build_slots, new_slot
from slotwise.errors import InvalidChoice, InvalidFormat
from slotwise.tables import flat_record

_START = datetime(2023, 3, 26, 9, 0, tzinfo=UTC)
_END = datetime(2023, 3, 26, 9, 30, tzinfo=UTC)
_COLUMNS = (
    (_START, _END, date(2023, 3, 26), 1100, "11:00 AM", 30),
    (2, 1, 4, 3),
    ("r1", ("r1",)),
    (0, None),
)
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
_TRAVELLING = attrs.evolve(
    _EXPECTED, start=_END, resource_id=None, travel_time_mins=15, travel_appointment_id="a1"
)


class TestNewSlot:
    """``new_slot`` and its fallback build the same record attrs' constructor builds."""

    @pytest.mark.parametrize("build", [new_slot, _described()], ids=["drafted", "described"])
    def test_same_record(self, build):
        """The built slot is a Slot equal to, hashing and printing like the constructor's."""
        slot = build(*_COLUMNS)

        assert (Slot, _EXPECTED, hash(_EXPECTED), repr(_EXPECTED)) == (
            type(slot),
            slot,
            hash(slot),
            repr(slot),
        )

    def test_frozen_weak_and_picklable(self):
        """The built slot refuses assignment, takes weak references and survives pickling."""
        slot = new_slot(*_COLUMNS)

        with pytest.raises(attrs.exceptions.FrozenInstanceError):
            slot.duration = 60  # type: ignore[misc]
        assert weakref.ref(slot)() is slot
        assert _EXPECTED == pickle.loads(pickle.dumps(slot))


class TestSlots:
    """``Slots`` reads as the tuple of records it replaced, and gives columns without them."""

    @pytest.mark.parametrize("fallback", [False, True], ids=["inline", "fallback"])
    def test_a_sequence_of_the_records(self, monkeypatch, fallback):
        """Iterating, indexing (from either end) and slicing give the records held."""
        if fallback:
            monkeypatch.setattr(slots_module, "new_slot", _described())
        held = Slots([_EXPECTED, _TRAVELLING])

        assert (list(held), held[0], held[-1], len(held)) == (
            [_EXPECTED, _TRAVELLING],
            _EXPECTED,
            _TRAVELLING,
            2,
        )
        assert type(held[1:]) is Slots
        assert list(held[1:]) == [_TRAVELLING]
        assert (held.index(_TRAVELLING), held.count(_EXPECTED), _TRAVELLING in held) == (
            1,
            1,
            True,
        )
        assert list(reversed(held)) == [_TRAVELLING, _EXPECTED]

    def test_out_of_range(self):
        """An index past the end raises IndexError, as a tuple's does."""
        with pytest.raises(IndexError):
            Slots([_EXPECTED])[1]

    def test_equal_to_the_tuple_and_hashing_as_it(self):
        """A Slots equals the tuple of its records (either side), and hashes as that tuple."""
        held = Slots([_EXPECTED, _TRAVELLING])
        records = (_EXPECTED, _TRAVELLING)

        assert (held == records, records == held, hash(held) == hash(records)) == (
            True,
            True,
            True,
        )
        assert held == Slots(records)
        assert held != Slots([_TRAVELLING, _EXPECTED])
        assert held != (_EXPECTED,)
        assert held != [_EXPECTED, _TRAVELLING]  # a tuple never equals a list either
        assert Slots() == ()

    def test_pickles(self):
        """A pickled Slots comes back equal."""
        held = Slots([_EXPECTED, _TRAVELLING])

        assert pickle.loads(pickle.dumps(held)) == held

    def test_repr_shows_the_records(self):
        """The repr names the records, as the tuple's did."""
        assert repr(Slots([_EXPECTED])) == f"Slots(({_EXPECTED!r},))"

    def test_columns_without_records(self, monkeypatch):
        """column() and columns() read fields in order and build no Slot."""
        held = Slots([_EXPECTED, _TRAVELLING])
        monkeypatch.setattr(slots_module, "new_slot", None)  # any record built would fail
        monkeypatch.setattr(slots_module, "_drafted", None)

        assert held.column("start") == [_START, _END]
        assert held.column("resource_id") == ["r1", None]
        assert held.columns("travel_time_mins", "available_capacity") == {
            "travel_time_mins": [0, 15],
            "available_capacity": [3, 3],
        }
        every = held.columns()
        assert list(every) == [field.name for field in attrs.fields(Slot)]
        assert every["travel_appointment_id"] == [None, "a1"]

    def test_records_are_the_flat_records(self, monkeypatch):
        """records() gives the rows flat_record gives each Slot, building no Slot."""
        held = Slots([_EXPECTED, _TRAVELLING])
        expected = [flat_record(slot) for slot in held]
        monkeypatch.setattr(slots_module, "new_slot", None)  # any record built would fail
        monkeypatch.setattr(slots_module, "_drafted", None)

        assert held.records() == expected
        assert held.records()[0]["resource_ids"] == ["r1"]

    def test_unknown_column(self):
        """A name that is not a Slot field is refused, naming the fields."""
        with pytest.raises(InvalidChoice, match=r"name must be one of 'start'.*got 'starts'"):
            Slots().column("starts")

    @pytest.mark.parametrize("name", [["start"], 3, None], ids=["list", "int", "none"])
    def test_a_name_that_is_not_text(self, name):
        """A name of another type (even an unhashable one) is refused the same way."""
        with pytest.raises(InvalidChoice, match="name must be one of"):
            Slots([_EXPECTED]).columns(name)

    def test_only_slots(self):
        """Anything but a Slot is refused, naming its position."""
        with pytest.raises(InvalidFormat, match=r"slots\[1\] must be a Slot"):
            Slots([_EXPECTED, "09:00"])  # type: ignore[list-item]


class TestBuildSlots:
    """``build_slots`` holds the calculator's offers as columns of shared values."""

    @pytest.mark.parametrize("fallback", [False, True], ids=["inline", "fallback"])
    def test_offers_in_order(self, monkeypatch, fallback):
        """Each offer, in the order given, reads as the Slot the constructor would build."""
        if fallback:
            monkeypatch.setattr(slots_module, "new_slot", _described())
        day = date(2023, 3, 26)
        query = AvailabilityQuery(service_id="s", start_date=day, end_date=day, tz_offset=120)
        output = _Output(query, "UTC")
        minute = int(_START.timestamp()) // 60
        starts = [minute, minute + 30]
        figures = [(2, 1, 4, 3), (1, 1, 1, 1)]
        owners = [("r1", ("r1",)), ("r2", ("r2",))]

        slots = build_slots(starts, figures, owners, output, 30)

        assert [type(slot) for slot in slots] == [Slot, Slot]
        assert slots[0] == _EXPECTED
        assert (slots[1].start, slots[1].end, slots[1].resource_ids) == (
            _END,
            datetime(2023, 3, 26, 10, 0, tzinfo=UTC),
            ("r2",),
        )

    def test_shared_values(self):
        """Slots of one start refer to one tuple of its times: nothing is copied per slot."""
        day = date(2023, 3, 26)
        query = AvailabilityQuery(service_id="s", start_date=day, end_date=day)
        output = _Output(query, "UTC")
        minute = int(_START.timestamp()) // 60
        figures = [(1, 1, 1, 1)] * 2
        owners = [("r1", ("r1",)), ("r2", ("r2",))]

        slots = build_slots([minute, minute], figures, owners, output, 30)

        assert slots._times[0] is slots._times[1]
        assert slots[0].start is slots[1].start

    def test_columns_taken_not_copied(self):
        """The figures and owners handed over are the answer's columns (no copy per answer)."""
        day = date(2023, 3, 26)
        query = AvailabilityQuery(service_id="s", start_date=day, end_date=day, tz_offset=120)
        output = _Output(query, "UTC")
        minute = int(_START.timestamp()) // 60
        figures = [(2, 1, 4, 3)]
        owners = [("r1", ("r1",))]

        slots = build_slots([minute], figures, owners, output, 30)

        assert (slots._figures, slots._owners) == (figures, owners)
        assert slots._figures is figures
        assert slots._owners is owners
        assert list(slots) == [_EXPECTED]
