"""A location's index counts the appointments taking each resource, through every change (MemoryStore)."""

from __future__ import annotations

import itertools
from collections import Counter
from datetime import UTC, datetime, timedelta
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from slotwise.model import Appointment
from slotwise.storage._memory_indexes import LocationIndex
from slotwise.storage.memory import MemoryStore
from slotwise.testing.samples import sample_appointment

_AT = datetime(2026, 3, 2, 10, tzinfo=UTC)
_HOUR = timedelta(hours=1)


class TestLocationIndex:
    def test_takers_follow_adds_and_discards(self):
        """Each resource counts its appointments; one taking none counts under None."""
        index = LocationIndex()
        index.add_taking(_AT, "a", _HOUR, ("r1",))
        index.add_taking(_AT, "b", _HOUR, ("r1", "r2", "r1"))
        index.add_taking(_AT + _HOUR, "c", _HOUR, ())

        assert index.takers == {"r1": 2, "r2": 1, None: 1}
        assert not index.taken_only_by({"r1", "r2"})

        index.discard_taking(_AT + _HOUR, "c", ())
        assert index.taken_only_by({"r1", "r2"})
        assert not index.taken_only_by({"r1"})

        index.discard_taking(_AT, "b", ("r1", "r2"))
        assert index.takers == {"r1": 1}
        assert index.taken_only_by({"r1"})

    def test_discarding_what_is_not_there_counts_nothing(self):
        """A discard of an id the index does not hold (another start) leaves the counts."""
        index = LocationIndex()
        index.add_taking(_AT, "a", _HOUR, ("r1",))

        index.discard_taking(_AT + _HOUR, "a", ("r1",))
        index.discard_taking(_AT, "zzz", ("r1",))

        assert index.takers == {"r1": 1}
        assert index.ids == ["a"]

    def test_an_empty_index_is_taken_by_any_set(self):
        """No appointments: nothing to filter, whatever is asked for."""
        assert LocationIndex().taken_only_by(set())


# -- through the store: every write and rollback keeps the counts, and reads stay exact -------

_RESOURCES = ("r1", "r2", "r3")
_LOCATIONS = ("l1", "l2")
_T0 = datetime(2026, 3, 2, 9, tzinfo=UTC)


class _Abort(Exception):
    """Raised inside a unit of work to roll it back."""


_appointment_fields = st.fixed_dictionaries(
    {
        "slot": st.integers(0, 7),
        "quarters": st.integers(1, 12),
        "location_id": st.sampled_from(_LOCATIONS),
        # Duplicates and none at all, as callers may give them.
        "resource_ids": st.lists(st.sampled_from(_RESOURCES), max_size=3),
    }
)
_write = st.tuples(
    st.sampled_from(["insert", "update", "delete"]), st.integers(0, 9), _appointment_fields
)
_units = st.lists(st.tuples(st.lists(_write, min_size=1, max_size=3), st.booleans()), max_size=10)


def _appointment(number: int, fields: dict[str, Any]) -> Appointment:
    start = _T0 + timedelta(minutes=15 * fields["slot"])
    return sample_appointment(
        id=f"a{number}",
        company_id="c1",
        location_id=fields["location_id"],
        service_id="s1",
        start=start,
        end=start + timedelta(minutes=15 * fields["quarters"]),
        resource_ids=fields["resource_ids"],
    )


def _run(store: MemoryStore, writes: list[tuple[str, int, dict[str, Any]]], abort: bool) -> None:
    try:
        with store.transaction() as tx:
            for action, number, fields in writes:
                exists = tx.get(Appointment, f"a{number}") is not None
                if action == "delete" and exists:
                    tx.delete(Appointment, f"a{number}")
                elif exists:
                    tx.update(_appointment(number, fields))
                elif action != "delete":
                    tx.insert(_appointment(number, fields))
            if abort:
                raise _Abort
    except _Abort:
        pass


class TestThroughTheStore:
    @settings(max_examples=60)
    @given(_units)
    def test_counts_and_reads_follow_every_write_and_rollback(self, units):
        """After each unit (committed or rolled back): counts as recounted, reads as filtered."""
        store = MemoryStore()
        for writes, abort in units:
            _run(store, writes, abort)
            stored = list(store._table(Appointment).values())
            for location_id in _LOCATIONS:
                here = [a for a in stored if a.location_id == location_id]
                recount = Counter(r for a in here for r in set(a.resource_ids) or {None})
                index = store._by_location.get(location_id)
                assert dict(recount) == (dict(index.takers) if index is not None else {})
                low, high = _T0, _T0 + timedelta(hours=2)
                with store.read() as reader:
                    for size in range(len(_RESOURCES) + 1):
                        for wanted in itertools.combinations(_RESOURCES, size):
                            found = reader.appointments_overlapping(
                                location_id=location_id, resource_ids=wanted, start=low, end=high
                            )
                            expected = sorted(
                                (
                                    a
                                    for a in here
                                    if a.start < high
                                    and a.end > low
                                    and set(wanted) & set(a.resource_ids)
                                ),
                                key=lambda a: (a.start, a.id),
                            )
                            assert [a.id for a in found] == [a.id for a in expected]


class TestOneResourceOccupying:
    @settings(max_examples=60)
    @given(_units)
    def test_reads_as_the_location_read_of_that_resource(self, units):
        """One resource's occupancy read (its own index, kept to the location) is the general read's answer, in its order."""
        store = MemoryStore()
        for writes, abort in units:
            _run(store, writes, abort)
        with store.read() as reader:
            for location_id in _LOCATIONS:
                for resource_id in (*_RESOURCES, "never-booked"):
                    for slot in range(0, 10, 3):
                        low = _T0 + timedelta(minutes=15 * slot)
                        high = low + timedelta(minutes=30)
                        # No service in the company: nothing is padded, the bound is 0.
                        expected = reader.appointments_overlapping(
                            location_id=location_id,
                            resource_ids={resource_id},
                            start=low,
                            end=high,
                        )

                        found = reader.appointments_occupying(
                            company_id="c1",
                            location_id=location_id,
                            resource_ids=[resource_id],
                            start=low,
                            end=high,
                        )

                        assert expected == found
