"""
The benchmark checks itself: ``benchmarks/workload.py --check`` on small workloads written by the
project's generator (``benchmarks/scenario.py``), the brute-force answer it checks against, and the
generator against the neutral one peers are measured on (``../shared/bench/gen.py``) when that is
present. Speed is never asserted here (STYLE rule 35).
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from datetime import datetime, timedelta
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
BENCHMARKS = ROOT / "benchmarks"
WORKLOAD = BENCHMARKS / "workload.py"
SCENARIO = BENCHMARKS / "scenario.py"
NEUTRAL_GEN = ROOT.parent / "shared" / "bench" / "gen.py"

needs_neutral_gen = pytest.mark.skipif(
    not NEUTRAL_GEN.is_file(),
    reason=f"the neutral generator is not at {NEUTRAL_GEN} (../shared/bench/gen.py)",
)


@pytest.fixture
def bench(monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, ModuleType]]:
    """The benchmark's modules, imported as ``workload.py`` imports them (from its directory)."""
    monkeypatch.syspath_prepend(str(BENCHMARKS))
    import expected
    import scenario
    import workload

    yield {"expected": expected, "scenario": scenario, "workload": workload}
    for name in ("expected", "scenario", "workload"):
        sys.modules.pop(name, None)


def _generate(directory: Path, *args: str, generator: Path = SCENARIO) -> Path:
    """Run *generator* with *args* and return the scenario file it wrote in *directory*."""
    scenario = directory / f"{generator.stem}.json"
    subprocess.run(
        [sys.executable, str(generator), *args, "--out", str(scenario)],
        cwd=directory,
        check=True,
        capture_output=True,
        timeout=120,
    )
    return scenario


def _scenario(**changes: Any) -> dict[str, Any]:
    """Return a one-resource, one-day scenario (Monday 2026-01-05, New York) with *changes*."""
    scenario: dict[str, Any] = {
        "tz": "America/New_York",
        "start_date": "2026-01-05",
        "end_date": "2026-01-05",
        "weekdays": [0, 1, 2, 3, 4],
        "open": "09:00",
        "close": "12:00",
        "duration": 30,
        "step": 30,
        "buffer": 0,
        "resources": ["r00"],
        "bookings": [],
        "now_utc": "2025-12-27T00:00:00Z",
    }
    scenario.update(changes)
    return scenario


def _booking(start_utc: str, end_utc: str) -> dict[str, str]:
    """Return a booking of resource r00."""
    return {"resource": "r00", "start_utc": start_utc, "end_utc": end_utc}


class TestWorkloadCheck:
    # Small workloads: 3 resources, 10 bookings each, over a few days.
    @pytest.mark.parametrize(
        "gen_args",
        [
            pytest.param(("3", "10", "5"), id="default"),
            pytest.param(("3", "10", "5", "--buffer", "15", "--step", "15"), id="buffer15-step15"),
            pytest.param(("3", "10", "5", "--step", "45"), id="step45-query-interval"),
            pytest.param(("3", "10", "5", "--start", "2027-03-11"), id="dst-spring-forward"),
            pytest.param(("3", "10", "7", "--start", "2026-10-28"), id="dst-fall-back"),
            pytest.param(
                ("3", "10", "5", "--tz", "Asia/Kathmandu", "--buffer", "30"), id="kathmandu"
            ),
        ],
    )
    def test_check_passes_and_prints_one_json_line(self, tmp_path: Path, gen_args: tuple[str, ...]):
        """workload.py --check agrees with the brute force and prints one {slots, best_ms, runs} line."""
        scenario = _generate(tmp_path, *gen_args)
        out = tmp_path / "slots.json"

        run = subprocess.run(
            [sys.executable, str(WORKLOAD), str(scenario), "--repeat", "2", "--out", str(out)],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=300,
        )
        checked = subprocess.run(
            [sys.executable, str(WORKLOAD), str(scenario), "--repeat", "1", "--check"],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=300,
        )

        assert 0 == run.returncode, run.stderr
        assert 0 == checked.returncode, checked.stderr
        lines = run.stdout.splitlines()
        assert 1 == len(lines)
        report = json.loads(lines[0])
        assert ["best_ms", "runs", "slots"] == sorted(report)
        assert 2 == report["runs"]
        assert isinstance(report["best_ms"], float)
        slots = json.loads(out.read_text())
        assert report["slots"] == len(slots)
        assert report["slots"] > 0
        assert sorted(slots) == slots

    def test_out_file_lists_resource_and_utc_start(
        self, tmp_path: Path, bench: dict[str, ModuleType]
    ):
        """--out writes [resource, "YYYY-MM-DDTHH:MM:SSZ"] pairs, the same as the brute force."""
        scenario = _generate(tmp_path, "2", "5", "3")
        out = tmp_path / "slots.json"

        subprocess.run(
            [sys.executable, str(WORKLOAD), str(scenario), "--repeat", "1", "--out", str(out)],
            cwd=ROOT,
            check=True,
            capture_output=True,
            timeout=300,
        )

        answer = bench["expected"].expected_slots(json.loads(scenario.read_text()))
        expected = [list(pair) for pair in answer]
        assert expected == json.loads(out.read_text())

    def test_several_scenarios_are_timed_together_one_line_each(
        self, tmp_path: Path, bench: dict[str, ModuleType], capsys: pytest.CaptureFixture[str]
    ):
        """Two scenarios in one call: a line each, in the order given, named by file stem."""
        small = _generate(tmp_path, "2", "5", "3").rename(tmp_path / "small.json")
        large = _generate(tmp_path, "4", "10", "5").rename(tmp_path / "large.json")
        workload = bench["workload"]
        answers = {
            path.stem: len(bench["expected"].expected_slots(json.loads(path.read_text())))
            for path in (small, large)
        }

        status = workload.main([str(large), str(small), "--repeat", "3"])

        assert 0 == status
        lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
        assert ["large", "small"] == [line["scenario"] for line in lines]
        for line in lines:
            assert (line["slots"], line["runs"]) == (answers[line["scenario"]], 3)
            assert line["best_ms"] > 0

    def test_several_scenarios_take_no_out_file(self, tmp_path: Path, bench: dict[str, ModuleType]):
        """--out and --check name one scenario's slots: with two, the call is refused."""
        scenario = _generate(tmp_path, "2", "5", "3")
        with pytest.raises(SystemExit) as refused:
            bench["workload"].main([str(scenario), str(scenario), "--check"])
        assert 2 == refused.value.code

    def test_rounds_rotate_the_order_and_keep_each_best(self, bench: dict[str, ModuleType]):
        """Round k starts with workload k (mod n); each workload's best run and last slots."""
        order: list[str] = []

        class Timed:
            def __init__(self, name: str) -> None:
                self.name = name

            def query(self) -> list[tuple[str, str]]:
                order.append(self.name)
                return [(self.name, str(len(order)))]

        timed = bench["workload"].interleaved([Timed("a"), Timed("b"), Timed("c")], 3)

        assert ["a", "b", "c", "b", "c", "a", "c", "a", "b"] == order
        assert [[("a", "8")], [("b", "9")], [("c", "7")]] == [slots for _ms, slots in timed]
        assert all(ms >= 0 for ms, _slots in timed)

    def test_check_fails_on_any_difference(
        self, tmp_path: Path, bench: dict[str, ModuleType], monkeypatch: pytest.MonkeyPatch
    ):
        """--check exits with status 1 when the slots differ from the expected answer."""
        scenario = _generate(tmp_path, "2", "5", "3")
        workload = bench["workload"]
        monkeypatch.setattr(workload, "expected_slots", lambda _scenario: [])

        status = workload.main([str(scenario), "--repeat", "1", "--check"])

        assert 1 == status


class TestExpectedAnswer:
    def test_grid_starts_at_open_and_ends_by_close(self, bench: dict[str, ModuleType]):
        """Slots step from open; the last one ends exactly at close."""
        scenario = _scenario(close="10:30")

        actual = bench["expected"].expected_slots(scenario)

        # 2026-01-05 is a Monday; New York is UTC-5 in January.
        expected = [
            ("r00", "2026-01-05T14:00:00Z"),
            ("r00", "2026-01-05T14:30:00Z"),
            ("r00", "2026-01-05T15:00:00Z"),
        ]
        assert expected == actual

    def test_closed_weekdays_offer_nothing(self, bench: dict[str, ModuleType]):
        """A date whose weekday is not listed (0 = Monday) has no slots."""
        scenario = _scenario(weekdays=[1, 2, 3, 4])

        assert [] == bench["expected"].expected_slots(scenario)

    def test_booking_exactly_buffer_away_leaves_slot_free(self, bench: dict[str, ModuleType]):
        """A booking ending exactly `buffer` minutes before a slot starts does not take it."""
        scenario = _scenario(
            close="10:30",
            step=15,
            buffer=15,
            bookings=[_booking("2026-01-05T14:00:00Z", "2026-01-05T14:30:00Z")],
        )

        actual = bench["expected"].expected_slots(scenario)

        assert [("r00", "2026-01-05T14:45:00Z"), ("r00", "2026-01-05T15:00:00Z")] == actual

    def test_booking_one_minute_closer_takes_slot(self, bench: dict[str, ModuleType]):
        """A booking ending `buffer` - 1 minutes before a slot starts takes it."""
        scenario = _scenario(
            close="10:30",
            step=15,
            buffer=15,
            bookings=[_booking("2026-01-05T14:00:00Z", "2026-01-05T14:31:00Z")],
        )

        actual = bench["expected"].expected_slots(scenario)

        assert [("r00", "2026-01-05T15:00:00Z")] == actual

    def test_booking_after_slot_counts_its_buffer_too(self, bench: dict[str, ModuleType]):
        """A booking starting less than `buffer` minutes after a slot ends takes that slot."""
        scenario = _scenario(
            close="10:00",
            step=30,
            buffer=15,
            bookings=[_booking("2026-01-05T14:44:00Z", "2026-01-05T15:00:00Z")],
        )

        actual = bench["expected"].expected_slots(scenario)

        assert [] == actual

    @pytest.mark.parametrize(
        ("day", "count", "first", "last"),
        [
            ("2026-03-08", 23, "2026-03-08T05:00:00Z", "2026-03-09T03:00:00Z"),
            ("2026-11-01", 25, "2026-11-01T04:00:00Z", "2026-11-02T04:00:00Z"),
        ],
    )
    def test_whole_day_on_dst_dates_steps_in_absolute_hours(
        self, bench: dict[str, ModuleType], day: str, count: int, first: str, last: str
    ):
        """A 00:00-24:00 hourly day has 23 slots on spring-forward and 25 on fall-back (UTC)."""
        scenario = _scenario(
            start_date=day,
            end_date=day,
            weekdays=[6],
            open="00:00",
            close="24:00",
            duration=60,
            step=60,
        )

        actual = bench["expected"].expected_slots(scenario)

        assert (count, first, last) == (len(actual), actual[0][1], actual[-1][1])


class TestScenarioGenerator:
    # benchmarks/scenario.py is the project's own generator of the documented format.
    @needs_neutral_gen
    @pytest.mark.parametrize(
        "gen_args",
        [
            pytest.param((), id="defaults"),
            pytest.param(("5", "40", "10", "--buffer", "15", "--step", "15"), id="buffer-step"),
            pytest.param(("4", "300", "3"), id="full-calendar"),
            pytest.param(
                ("3", "10", "7", "--tz", "Europe/Berlin", "--start", "2027-10-28"), id="tz"
            ),
        ],
    )
    def test_writes_what_the_neutral_generator_writes(
        self, tmp_path: Path, gen_args: tuple[str, ...]
    ):
        """The same arguments give the same scenario file, byte for byte, as ../shared/bench/gen.py."""
        ours = _generate(tmp_path, *gen_args)
        neutral = _generate(tmp_path, *gen_args, generator=NEUTRAL_GEN)

        assert neutral.read_bytes() == ours.read_bytes()

    def test_same_arguments_same_scenario(self, bench: dict[str, ModuleType]):
        """generate() is deterministic: seed 42, no clock, no global state."""
        first = bench["scenario"].generate(3, 10, 5, buffer=15)
        second = bench["scenario"].generate(3, 10, 5, buffer=15)

        assert first == second
        assert ["r00", "r01", "r02"] == first["resources"]
        assert 30 == len(first["bookings"])
        assert "2027-02-20T00:00:00Z" == first["now_utc"]

    def test_a_full_calendar_stops_drawing(self, bench: dict[str, ModuleType]):
        """More bookings than cells: every cell of every working day is taken once, no more."""
        # Monday 2027-03-01 and Tuesday: 2 working days of 16 cells each.
        drawn = bench["scenario"].generate(1, 1_000, 2)

        cells = set()
        for booking in drawn["bookings"]:
            start = datetime.fromisoformat(booking["start_local"])
            end = datetime.fromisoformat(booking["end_local"])
            while start < end:
                assert (start.date(), start.time()) not in cells
                cells.add((start.date(), start.time()))
                start += timedelta(minutes=30)
        assert 32 == len(cells)
