"""
The bookings benchmark runs and reports in its documented shape (``benchmarks/bookings.py``).

Tiny runs only; speed is never asserted here (STYLE rule 35).
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[1]
BENCHMARKS = ROOT / "benchmarks"
SCRIPT = BENCHMARKS / "bookings.py"


@pytest.fixture
def bookings(monkeypatch: pytest.MonkeyPatch) -> Iterator[ModuleType]:
    """The benchmark module, imported from its directory."""
    monkeypatch.syspath_prepend(str(BENCHMARKS))
    import bookings

    yield bookings
    sys.modules.pop("bookings", None)


class TestBookingsBenchmark:
    def test_prints_one_json_line_per_scenario_and_thread_count(self):
        """A tiny run prints {scenario, bookings, seconds, per_second} per scenario x threads (best of 2)."""
        run = subprocess.run(
            [
                sys.executable,
                str(SCRIPT),
                "--bookings",
                "12",
                "--threads",
                "1",
                "4",
                "--repeat",
                "2",
            ],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=300,
        )

        assert 0 == run.returncode, run.stderr
        reports = [json.loads(line) for line in run.stdout.splitlines()]
        assert [
            "hold_then_book/1-thread",
            "hold_then_book/4-threads",
            "create_booked/1-thread",
            "create_booked/4-threads",
        ] == [report["scenario"] for report in reports]
        for report in reports:
            assert ["bookings", "per_second", "scenario", "seconds"] == sorted(report)
            assert 12 == report["bookings"]
            assert isinstance(report["seconds"], float)
            assert isinstance(report["per_second"], float)

    def test_every_booking_lands(self, bookings: ModuleType):
        """After a run the store holds exactly the requested number of booked appointments."""
        report = bookings.run("create_booked", 30, 2)

        assert ("create_booked/2-threads", 30) == (report["scenario"], report["bookings"])

    def test_bookings_never_run_out_of_slots(self, bookings: ModuleType):
        """Bookings past one full day of every resource still find free slots (more days)."""
        count = bookings.RESOURCES * bookings.SLOTS_PER_DAY + 5

        report = bookings.run("hold_then_book", count, 1)

        assert count == report["bookings"]

    def test_a_failed_booking_exits_with_status_one(
        self,
        bookings: ModuleType,
        monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str],
    ):
        """A booking that raises makes the run invalid: no report line, exit status 1."""

        def refuse(self: object, number: int) -> None:
            raise RuntimeError("refused")

        monkeypatch.setattr(bookings.Business, "create_booked", refuse)

        status = bookings.main(["--bookings", "3", "--threads", "1", "--scenario", "create_booked"])

        assert 1 == status
        assert "" == capsys.readouterr().out
