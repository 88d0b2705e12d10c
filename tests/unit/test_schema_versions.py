"""Which slotwise runs on which tables: SchemaStatus.state and compatible_since (rolling upgrades)."""

from __future__ import annotations

import pytest

from slotwise.storage.sql import SCHEMA_VERSION, SchemaStatus
from slotwise.storage.sql._upgrades import UPGRADES, Step
from slotwise.storage.sql._versions import ROLLING_SINCE, compatible_since_at


def _status(tables: int | None, since: int | None, code: int = 8) -> SchemaStatus:
    return SchemaStatus(
        code=code, tables=tables, compatible_since=since, upgraded_compatible_since=code
    )


def _step(conn: object, schema: str | None) -> None:
    """A later release's step (never run here)."""


class TestState:
    @pytest.mark.parametrize(
        ("tables", "since", "expected"),
        [
            (None, None, "missing"),
            (7, 7, "older"),
            (8, 8, "current"),
            (9, 8, "compatible"),
            (12, 8, "compatible"),
            (9, 9, "incompatible"),
            (9, None, "incompatible"),
        ],
    )
    def test_code_8_against_tables(self, tables: int | None, since: int | None, expected: str):
        """Code at 8 runs on its own tables and on newer ones compatible since 8 or before."""
        status = _status(tables, since)

        assert (expected, expected in ("current", "compatible")) == (status.state, status.runs)

    def test_each_refusal_says_what_to_do(self):
        """Missing and older: upgrade the tables; incompatible: upgrade slotwise; else none."""
        assert [
            (
                "the slotwise tables in X do not exist; run `slotwise schema upgrade` (or open the "
                "store once with create=True)"
            ),
            (
                "the slotwise tables in X are at schema version 7, this slotwise needs 8: run "
                "`slotwise schema upgrade` (or open the store once with create=True) to upgrade them"
            ),
            None,
            None,
            (
                "the slotwise tables in X are at schema version 10, which runs slotwise of schema "
                "version 9 or later; this slotwise knows up to 8: upgrade slotwise"
            ),
        ] == [
            _status(tables, since).problem("X")
            for tables, since in ((None, None), (7, 7), (8, 8), (9, 8), (10, 9))
        ]


class TestCompatibleSince:
    def test_version_8_runs_only_code_of_8(self):
        """The step 7 -> 8 is additive, but code of 7 predates the rule: compatible since 8."""
        assert (8, 8, False) == (SCHEMA_VERSION, compatible_since_at(8), UPGRADES[7].breaking)

    def test_additive_steps_keep_it_and_a_breaking_one_raises_it(self, monkeypatch):
        """Steps 8 -> 9 additive, 9 -> 10 breaking, 10 -> 11 additive: 8, 10, 10."""
        monkeypatch.setitem(UPGRADES, 8, Step(_step, breaking=False))
        monkeypatch.setitem(UPGRADES, 9, Step(_step, breaking=True))
        monkeypatch.setitem(UPGRADES, 10, Step(_step, breaking=False))

        assert [ROLLING_SINCE, 10, 10] == [compatible_since_at(v) for v in (9, 10, 11)]
