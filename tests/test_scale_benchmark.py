"""
The one-command speed table (``benchmarks/scale.py``): its rows' shape, its slope arithmetic and
its clear skips. The heavy areas run in their own scripts' tests; here the slope area runs for
real on tiny scenarios, and the rest through stand-ins. Speed is never asserted (STYLE rule 35).
"""

from __future__ import annotations

import json
import math
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[1]
BENCHMARKS = ROOT / "benchmarks"


@pytest.fixture
def scale(monkeypatch: pytest.MonkeyPatch) -> Iterator[ModuleType]:
    """The benchmark module, imported from its directory."""
    monkeypatch.syspath_prepend(str(BENCHMARKS))
    import scale

    yield scale
    sys.modules.pop("scale", None)


def test_the_slope_area_prints_two_rows_with_their_targets():
    """``--quick --areas slope`` prints a row over days and one over resources, as JSON lines."""
    done = subprocess.run(
        [sys.executable, str(BENCHMARKS / "scale.py"), "--quick", "--areas", "slope"],
        capture_output=True,
        text=True,
        check=True,
        timeout=600,
        cwd=ROOT,
    )
    rows = [json.loads(line) for line in done.stdout.splitlines()]
    assert [row["row"] for row in rows] == [
        "availability cost over days: log-log slope",
        "availability cost over resources: log-log slope",
    ]
    for row in rows:
        assert row["target"] == "<= 1.05"
        assert row["met"] == (row["value"] <= 1.05)
        assert row["detail"]["large"]["slots"] > 0


def _stand_in_workload(
    times: list[dict[str, float]], slots: dict[str, int], calls: list[list[str]]
) -> Callable[..., list[dict[str, object]]]:
    """
    A stand-in for ``scale._python``: ``scenario.py`` writes a file; ``workload.py`` call *k*
    prints one line per scenario it was given, in that order, with ``times[k]``'s best time.
    """

    def python(script: Path, *arguments: str) -> list[dict[str, object]]:
        if script.name == "scenario.py":
            Path(arguments[-1]).write_text("{}")
            return []
        labels = [Path(argument).stem for argument in arguments if argument.endswith(".json")]
        calls.append(labels)
        best = times[len(calls) - 1]
        return [
            {"scenario": label, "slots": slots[label], "best_ms": best[label]} for label in labels
        ]

    return python


def test_the_slope_is_the_log_log_growth_of_the_time(scale: ModuleType, monkeypatch):
    """Time x 9 when the slots grow x 3 is a slope of 2; the resources' pair is 3x30 -> 10x30."""
    times = [{"10x10": 1.0, "10x30": 9.0, "3x30": 3.0}] * 6
    slots = {"10x10": 10, "10x30": 30, "3x30": 10}
    monkeypatch.setattr(scale, "_python", _stand_in_workload(times, slots, []))
    over_days, over_resources = list(scale.slope(quick=True))
    assert over_days["value"] == pytest.approx(math.log(9) / math.log(3), abs=1e-3)
    assert over_resources["value"] == pytest.approx(math.log(3) / math.log(3), abs=1e-3)
    assert over_days["met"] is False


def test_the_sizes_are_timed_together_and_the_median_process_counts(scale: ModuleType, monkeypatch):
    """
    Every process times the three sizes together, loading them in every rotation's order and
    its reverse; a row's value is the median of the processes' slopes, each in the detail.
    """
    slots = {"10x10": 10, "10x30": 30, "3x30": 10}
    # Over resources (3x30 -> 10x30, slots x 3): time x 3, x 9, x 1, x 3, x 9, x 9 -- slopes
    # 1, 2, 0, 1, 2, 2: the median is 1.5.
    times = [
        {"10x10": 1.0, "10x30": 3.0, "3x30": 1.0},
        {"10x10": 1.0, "10x30": 9.0, "3x30": 1.0},
        {"10x10": 1.0, "10x30": 3.0, "3x30": 3.0},
        {"10x10": 1.0, "10x30": 3.0, "3x30": 1.0},
        {"10x10": 1.0, "10x30": 9.0, "3x30": 1.0},
        {"10x10": 1.0, "10x30": 9.0, "3x30": 1.0},
    ]
    calls: list[list[str]] = []
    monkeypatch.setattr(scale, "_python", _stand_in_workload(times, slots, calls))
    _over_days, over_resources = list(scale.slope(quick=True))
    assert calls == [
        ["10x10", "10x30", "3x30"],
        ["3x30", "10x30", "10x10"],
        ["10x30", "3x30", "10x10"],
        ["10x10", "3x30", "10x30"],
        ["3x30", "10x10", "10x30"],
        ["10x30", "10x10", "3x30"],
    ]
    for small, large in (("10x10", "10x30"), ("3x30", "10x30")):
        before = [call.index(small) < call.index(large) for call in calls]
        assert before.count(True) == before.count(False)
    assert over_resources["detail"]["slopes"] == [1.0, 2.0, 0.0, 1.0, 2.0, 2.0]
    assert over_resources["value"] == 1.5
    assert over_resources["met"] is False
    assert over_resources["detail"]["best_ms"][1] == {"3x30": 1.0, "10x30": 9.0}
    assert over_resources["detail"]["large"] == {"resources": 10, "days": 30, "slots": 30}


def test_without_the_shared_peer_script_the_availability_area_says_why(
    scale: ModuleType, monkeypatch, tmp_path
):
    """No ``../shared/bench/peer_timegrid.py``: one skipped row naming the missing file."""
    monkeypatch.setattr(scale, "SHARED", tmp_path / "absent")
    (row,) = list(scale.availability(quick=True))
    assert row["row"] == "availability"
    assert "peer_timegrid.py" in row["skipped"]


def test_a_failing_script_becomes_a_skipped_row_not_a_crash(scale: ModuleType, monkeypatch, capsys):
    """An area whose script fails prints ``{"row": area, "skipped": its error}`` and goes on."""

    def broken(quick: bool) -> Iterator[dict[str, object]]:
        raise RuntimeError("benchmarks/x.py failed: no server")
        yield {}

    monkeypatch.setitem(scale.AREAS, "lists", broken)
    assert scale.main(["--areas", "lists"]) == 0
    (line,) = capsys.readouterr().out.splitlines()
    assert json.loads(line) == {"row": "lists", "skipped": "benchmarks/x.py failed: no server"}


def test_the_bookings_area_sets_the_bare_replay_beside_one_client_pgbench(
    scale: ModuleType, monkeypatch
):
    """The replayed round trips' rate over the 1-client pgbench: a measure, never met or not."""

    def scripts(script: Path, *arguments: str) -> list[dict[str, object]]:
        if script.name == "replayed_bookings.py":
            return [{"figure": "replayed_bookings", "bare_per_second": 300.0, "round_trips": 3}]
        return [
            {"figure": "bookings", "processes": 1, "per_second": 100.0},
            {"figure": "bookings", "processes": 8, "per_second": 200.0},
            {"figure": "statements", "statements": 10, "round_trips": 3},
        ]

    monkeypatch.setattr(scale.shutil, "which", lambda _name: "/usr/bin/pgbench")
    monkeypatch.setattr(scale, "_python", scripts)
    monkeypatch.setattr(scale, "_pgbench", lambda clients, _seconds: 500.0 * clients)
    one, eight, trips, replayed = list(scale.bookings(quick=True))
    assert (one["value"], one["met"]) == (0.2, False)
    assert (eight["value"], eight["met"]) == (0.05, False)
    assert (trips["value"], trips["met"]) == (3, True)
    assert replayed["value"] == 0.6
    assert replayed["met"] is None
    assert replayed["detail"] == {"bare_per_second": 300.0, "round_trips": 3}


def test_the_instructions_area_sets_the_parts_counted_alone_beside_the_booking(
    scale: ModuleType, monkeypatch
):
    """
    The booking against its target; the sum of its parts counted alone and the minimal
    booking of the same business (``minimal_booking.py``): measures.
    """
    asked: list[tuple[str, ...]] = []

    def script(_script: Path, *arguments: str) -> list[dict[str, object]]:
        asked.append(arguments)
        return [
            {"figure": "booking", "count": 20, "instructions_per_operation": 900_000},
            {"figure": "slot_check", "count": 20, "instructions_per_operation": 200_000},
            {
                "figure": "booking_parts",
                "instructions_per_operation": 600_000,
                "parts": {"slot_check": 200_000, "records": 400_000},
            },
            {"figure": "minimal_booking", "count": 20, "instructions_per_operation": 65_000},
        ]

    monkeypatch.setattr(scale.shutil, "which", lambda _name: "/usr/bin/valgrind")
    monkeypatch.setattr(scale, "_python", script)
    booking, parts, minimal = list(scale.instructions(quick=True))
    assert ("--figures", "booking", "booking_parts", "minimal_booking", "--count", "20") == asked[0]
    assert (booking["value"], booking["met"]) == (900_000, False)
    assert (parts["value"], parts["met"]) == (600_000, None)
    assert parts["detail"] == {"parts": {"slot_check": 200_000, "records": 400_000}}
    assert (minimal["value"], minimal["met"]) == (65_000, None)
    assert "minimal" in minimal["row"]
