"""A location's index counts the appointments taking each resource, through every change."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from slotwise.storage._memory_indexes import LocationIndex

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
