"""
Part of :class:`~slotwise.testing.StoreContract`. Range reads of blocks and allocations: ``blocks_touching`` and ``allocations_touching``.
"""

from __future__ import annotations

from datetime import date

from slotwise.model import (
    OPEN_END,
    Allocation,
    Block,
    Frequency,
    RepeatRule,
)

from ._base import (
    ContractBase,
    _insert,
    _shows,
)
from ._world import (
    _WINDOW_KINDS,
    RES_1,
    RES_2,
    RES_3,
    SVC_A1,
    _bare_world,
    _touching,
    _window,
)


class WindowContract(ContractBase):
    """Range reads of blocks and allocations: ``blocks_touching`` and ``allocations_touching``."""

    # -- blocks and allocations ------------------------------------------------------------

    def test_windows_touching_edges_are_inclusive(self) -> None:
        """A window meets [first, last] when start_date <= last and end_date >= first."""
        store = self._store(*_bare_world())
        for kind, _method in _WINDOW_KINDS:
            _insert(
                store,
                _window(kind, "w-range", RES_1, date(2026, 3, 10), date(2026, 3, 20)),
                _window(kind, "w-day", RES_2, date(2026, 3, 25), date(2026, 3, 25)),
            )
        cases = [
            (date(2026, 3, 1), date(2026, 3, 9), []),
            (date(2026, 3, 1), date(2026, 3, 10), ["w-range"]),
            (date(2026, 3, 20), date(2026, 3, 24), ["w-range"]),
            (date(2026, 3, 21), date(2026, 3, 24), []),
            (date(2026, 3, 12), date(2026, 3, 12), ["w-range"]),
            (date(2026, 3, 1), date(2026, 3, 31), ["w-range", "w-day"]),
            (date(2026, 3, 25), date(2026, 3, 25), ["w-day"]),
            (date(2026, 3, 26), date(2026, 3, 26), []),
        ]

        with store.read() as reader:
            for kind, method in _WINDOW_KINDS:
                for first, last, expected in cases:
                    found = _touching(reader, method, [RES_1, RES_2], first, last)
                    assert expected == found, f"{kind.__name__} {first}..{last}" + _shows(
                        expected, found
                    )

    def test_windows_touching_open_end_reaches_9999_12_31(self) -> None:
        """A window ending 9999-12-31 (open-ended) meets every range from its start on."""
        store = self._store(*_bare_world())
        for kind, _method in _WINDOW_KINDS:
            _insert(
                store,
                _window(kind, "w-open", RES_1, date(2026, 3, 10), OPEN_END),
                _window(kind, "w-closed", RES_1, date(2026, 3, 10), date(2026, 3, 20)),
            )
        cases = [
            (OPEN_END, OPEN_END, ["w-open"]),
            (date(2999, 1, 1), date(2999, 1, 31), ["w-open"]),
            (date(2026, 3, 10), date(2026, 3, 10), ["w-open", "w-closed"]),
            (date(2026, 3, 15), OPEN_END, ["w-open", "w-closed"]),
            (date(2026, 3, 1), date(2026, 3, 9), []),
        ]

        with store.read() as reader:
            for kind, method in _WINDOW_KINDS:
                for first, last, expected in cases:
                    found = _touching(reader, method, [RES_1], first, last)
                    assert expected == found, f"{kind.__name__} {first}..{last}" + _shows(
                        expected, found
                    )

    def test_windows_touching_excludes_other_targets(self) -> None:
        """Only windows of the named targets are returned; no target names nothing."""
        store = self._store(*_bare_world())
        first, last = date(2026, 3, 10), date(2026, 3, 20)
        for kind, _method in _WINDOW_KINDS:
            _insert(
                store,
                _window(kind, "w-1", RES_1, first, last),
                _window(kind, "w-2", RES_2, first, last),
                _window(kind, "w-svc", SVC_A1, first, last, target="service"),
            )
        cases: list[tuple[list[str], list[str]]] = [
            ([RES_1], ["w-1"]),
            ([RES_2, SVC_A1], ["w-2", "w-svc"]),
            ([RES_3], []),
            (["nobody"], []),
            ([], []),
        ]

        with store.read() as reader:
            for kind, method in _WINDOW_KINDS:
                for target_ids, expected in cases:
                    found = _touching(reader, method, target_ids, first, last)
                    assert expected == found, f"{kind.__name__} {target_ids}" + _shows(
                        expected, found
                    )

    def test_windows_touching_returns_creation_order(self) -> None:
        """Windows of several targets come in one creation order, kept by updates."""
        store = self._store(*_bare_world())
        first, last = date(2026, 3, 10), date(2026, 3, 20)
        order = [("w-z", RES_2), ("w-m", RES_1), ("w-a", RES_2), ("w-k", RES_1)]
        for kind, _method in _WINDOW_KINDS:
            for record_id, target_id in order:
                _insert(store, _window(kind, record_id, target_id, first, last))
            with store.transaction() as tx:
                tx.update(_window(kind, "w-z", RES_2, first, last, reason="updated"))
        expected = [record_id for record_id, _target in order]

        with store.read() as reader:
            for kind, method in _WINDOW_KINDS:
                for target_ids in ([RES_1, RES_2], [RES_2, RES_1]):
                    found = _touching(reader, method, target_ids, first, last)
                    assert expected == found, f"{kind.__name__} {target_ids}" + _shows(
                        expected, found
                    )

    def test_blocks_touching_includes_deleted_blocks(self) -> None:
        """Soft-deleted blocks (deleted=True) are still returned; callers decide."""
        store = self._store(*_bare_world())
        first, last = date(2026, 3, 10), date(2026, 3, 20)
        _insert(
            store,
            _window(Block, "b-deleted", RES_1, first, last, deleted=True),
            _window(Block, "b-live", RES_1, first, last),
        )
        with store.transaction() as tx:
            tx.update(_window(Block, "b-live", RES_1, first, last, deleted=True))

        with store.read() as reader:
            found = reader.blocks_touching(target_ids=[RES_1], first=first, last=last)
        assert [("b-deleted", True), ("b-live", True)] == [
            (block.id, block.deleted) for block in found
        ], _shows("both blocks, deleted", found)

    def test_windows_touching_does_not_expand_repeat_rules(self) -> None:
        """A repeating window is returned when its date range meets, even on dates it skips."""
        store = self._store(*_bare_world())
        mondays = RepeatRule(frequency=Frequency.WEEKLY, weekdays="1")
        for kind, _method in _WINDOW_KINDS:
            _insert(
                store,
                _window(
                    kind, "w-mondays", RES_1, date(2026, 3, 9), date(2026, 3, 31), repeat=mondays
                ),
            )
        tuesday = date(2026, 3, 10)

        with store.read() as reader:
            for kind, method in _WINDOW_KINDS:
                found = _touching(reader, method, [RES_1], tuesday, tuesday)
                assert ["w-mondays"] == found, kind.__name__ + _shows(["w-mondays"], found)

    def test_windows_touching_follows_updates_and_deletes(self) -> None:
        """A window moved to another target or dates is found only there; a deleted one nowhere."""
        store = self._store(*_bare_world())
        march = (date(2026, 3, 10), date(2026, 3, 20))
        april = (date(2026, 4, 1), date(2026, 4, 5))
        for kind, _method in _WINDOW_KINDS:
            _insert(
                store,
                _window(kind, "w-moved", RES_1, *march),
                _window(kind, "w-deleted", RES_1, *march),
            )
            with store.transaction() as tx:
                tx.update(_window(kind, "w-moved", RES_2, *april))
                tx.delete(kind, "w-deleted")

        with store.read() as reader:
            for kind, method in _WINDOW_KINDS:
                cases = [
                    ([RES_1], date(2026, 1, 1), OPEN_END, []),
                    ([RES_2], *march, []),
                    ([RES_2], april[1], date(2026, 4, 30), ["w-moved"]),
                    ([RES_1, RES_2], *april, ["w-moved"]),
                ]
                for target_ids, first, last, expected in cases:
                    found = _touching(reader, method, target_ids, first, last)
                    assert expected == found, f"{kind.__name__} {target_ids}" + _shows(
                        expected, found
                    )

    def test_blocks_and_allocations_are_kept_apart(self) -> None:
        """blocks_touching returns only blocks and allocations_touching only allocations."""
        store = self._store(*_bare_world())
        first, last = date(2026, 3, 10), date(2026, 3, 20)
        block = _window(Block, "w-same", RES_1, first, last)
        allocation = _window(Allocation, "w-same", RES_1, first, last)
        _insert(store, block, allocation)

        with store.read() as reader:
            blocks = reader.blocks_touching(target_ids=[RES_1], first=first, last=last)
            allocations = reader.allocations_touching(target_ids=[RES_1], first=first, last=last)
        assert ([block], [allocation]) == (blocks, allocations), _shows(
            ([block], [allocation]), (blocks, allocations)
        )
