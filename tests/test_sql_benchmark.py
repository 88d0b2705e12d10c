"""
The store benchmark runs and reports in its documented shape (``benchmarks/sql_stores.py``).

Tiny runs only (a few bookings, a 3-resource ``scenario.py`` scenario, a history of tens); speed is
never asserted here (STYLE rule 35).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from tests.contract.servers import MARIADB, POSTGRES, Server, server_engine

ROOT = Path(__file__).resolve().parents[1]
BENCHMARKS = ROOT / "benchmarks"
SCRIPT = BENCHMARKS / "sql_stores.py"
GENERATOR = BENCHMARKS / "scenario.py"

BOOKINGS = 12
HISTORY = [5, 20]
KEYS = {
    "bookings": ["bookings", "figure", "per_second", "processes", "seconds", "store"],
    "availability": ["best_ms", "figure", "runs", "slots", "store"],
    "history": ["figure", "ratio", "runs", "sizes", "slots", "store"],
    "statements": ["figure", "round_trips", "sql", "statements", "store"],
}


@pytest.fixture
def sql_stores(monkeypatch: pytest.MonkeyPatch) -> Iterator[ModuleType]:
    """The benchmark module, imported from its directory."""
    monkeypatch.syspath_prepend(str(BENCHMARKS))
    import sql_stores

    yield sql_stores
    for name in ("sql_stores", "expected", "scenario", "workload"):
        sys.modules.pop(name, None)


def _scenario(directory: Path) -> Path:
    """Write a small scenario (3 resources x 10 bookings x 5 days) into *directory*."""
    scenario = directory / "scenario.json"
    subprocess.run(
        [sys.executable, str(GENERATOR), "3", "10", "5", "--out", str(scenario)],
        cwd=directory,
        check=True,
        capture_output=True,
        timeout=120,
    )
    return scenario


def _run(tmp_path: Path, *stores: str) -> tuple[int, list[dict[str, Any]]]:
    """Run a tiny benchmark on *stores* (temporary files under tmp_path); return (pid, reports)."""
    # Not under tmp_path: the script's process pool puts a socket in TMPDIR, and a socket path
    # may be at most 107 bytes (pytest-xdist's tmp_path names alone come near that).
    scratch = Path(tempfile.mkdtemp(prefix="sw-"))
    try:
        return _run_in(scratch, tmp_path, *stores)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def _run_in(scratch: Path, tmp_path: Path, *stores: str) -> tuple[int, list[dict[str, Any]]]:
    """Run the benchmark with TMPDIR=*scratch*; check it left nothing there."""
    process = subprocess.Popen(
        [
            sys.executable,
            str(SCRIPT),
            "--stores",
            *stores,
            "--bookings",
            str(BOOKINGS),
            "--processes",
            "1",
            "2",
            "--scenario",
            str(_scenario(tmp_path)),
            "--repeat",
            "2",
            "--history",
            *map(str, HISTORY),
            "--batch",
            "8",
        ],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "TMPDIR": str(scratch)},
    )
    out, err = process.communicate(timeout=300)

    assert 0 == process.returncode, err
    assert [] == list(scratch.iterdir()), "the SQLite files were not removed"
    return process.pid, [json.loads(line) for line in out.splitlines()]


def _check(reports: list[dict[str, Any]], stores: list[str]) -> None:
    """Assert the reports' order, keys and values for a run on *stores*."""
    expected_order: list[tuple[str, str, int | None]] = [
        ("bookings", store, processes)
        for store in stores
        for processes in ([1] if store == "memory" else [1, 2])
    ]
    expected_order += [("statements", store, None) for store in stores if store != "memory"]
    expected_order += [("availability", store, None) for store in stores]
    expected_order += [("history", store, None) for store in stores if store != "memory"]
    assert expected_order == [
        (report["figure"], report["store"], report.get("processes")) for report in reports
    ]
    slots = {report["slots"] for report in reports if "slots" in report}
    assert 1 == len(slots)
    assert slots.pop() > 0
    for report in reports:
        assert KEYS[report["figure"]] == sorted(report)
        if report["figure"] == "bookings":
            assert BOOKINGS == report["bookings"]
            assert report["seconds"] > 0
            assert report["per_second"] > 0
        elif report["figure"] == "availability":
            assert (2, True) == (report["runs"], report["best_ms"] > 0)
        elif report["figure"] == "statements":
            assert report["statements"] == len(report["sql"]) > 0
            assert any(sql.startswith("INSERT INTO slotwise_appointment ") for sql in report["sql"])
        else:
            sizes = report["sizes"]
            assert HISTORY == [size["history"] for size in sizes]
            assert all(size["fill_seconds"] >= 0 and size["best_ms"] > 0 for size in sizes)
            assert report["ratio"] > 0


def _left_over(server: Server, pid: int) -> list[str]:
    """Return the schemas (databases) on *server* still named after benchmark process *pid*."""
    engine = server_engine(server)
    with engine.connect() as conn:
        names = conn.exec_driver_sql("SELECT schema_name FROM information_schema.schemata")
        return [name for (name,) in names if name.startswith(f"slotwise_bench_{pid}_")]


class TestSQLStoresBenchmark:
    def test_memory_and_sqlite_report_every_figure(self, tmp_path: Path):
        """A tiny run on memory and SQLite prints every figure with its keys and equal slots."""
        _pid, reports = _run(tmp_path, "memory", "sqlite")

        _check(reports, ["memory", "sqlite"])

    @pytest.mark.external_service
    @pytest.mark.parametrize(
        "server", [pytest.param(POSTGRES, id="postgres"), pytest.param(MARIADB, id="mariadb")]
    )
    def test_server_store_reports_every_figure_and_drops_its_schemas(
        self, tmp_path: Path, server: Server
    ):
        """A tiny run on a server prints every figure and leaves no schema of its own behind."""
        server_engine(server)  # skips (or fails, in CI) when the server is down
        store = "postgresql" if server is POSTGRES else "mariadb"

        pid, reports = _run(tmp_path, store)

        _check(reports, [store])
        assert [] == _left_over(server, pid)

    def test_week_compares_cached_and_uncached_configuration(
        self, sql_stores: ModuleType, capsys: pytest.CaptureFixture[str]
    ):
        """--figures week prints, per store, the same slots with and without the configuration cache."""
        status = sql_stores.main(
            ["--stores", "memory", "sqlite", "--figures", "week", "--repeat", "2"]
        )
        reports = [json.loads(line) for line in capsys.readouterr().out.splitlines()]

        assert 0 == status
        assert ["memory", "sqlite"] == [report["store"] for report in reports]
        assert {64} == {report["slots"] for report in reports}
        for report in reports:
            assert ["cached_ms", "figure", "runs", "slots", "store", "uncached_ms"] == sorted(
                report
            )
            assert report["cached_ms"] > 0
            assert report["uncached_ms"] > 0

    def test_a_failed_booking_exits_with_status_one(
        self,
        sql_stores: ModuleType,
        monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str],
    ):
        """A booking that raises makes the run invalid: no report line, exit status 1."""

        def refuse(*args: object) -> None:
            raise RuntimeError("refused")

        monkeypatch.setattr(sql_stores.Business, "book", refuse)

        status = sql_stores.main(["--stores", "memory", "--figures", "bookings"])

        captured = capsys.readouterr()
        assert (1, "") == (status, captured.out)
        assert "refused" in captured.err

    def test_a_missing_booking_fails_the_run(
        self, sql_stores: ModuleType, monkeypatch: pytest.MonkeyPatch
    ):
        """A store holding fewer booked appointments than were booked fails the check."""
        monkeypatch.setattr(sql_stores, "booked", lambda store: 0)

        with pytest.raises(sql_stores.BenchmarkFailed, match="0 booked appointments"):
            sql_stores.run_bookings("memory", 3, 1)


@pytest.mark.external_service
def test_replayed_bookings_replays_the_round_trips_bare_and_drops_its_schemas():
    """A tiny run: three round trips a booking, both sides timed, no schema of its own left."""
    server_engine(POSTGRES)  # skips (or fails, in CI) when the server is down
    process = subprocess.Popen(
        [sys.executable, str(BENCHMARKS / "replayed_bookings.py"), "--bookings", str(BOOKINGS)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    out, err = process.communicate(timeout=300)

    assert 0 == process.returncode, err
    (report,) = [json.loads(line) for line in out.splitlines()]
    assert report["figure"] == "replayed_bookings"
    assert report["bookings"] == BOOKINGS
    assert report["round_trips"] == 3
    for key in ("store_ms", "store_per_second", "bare_ms", "bare_per_second"):
        assert report[key] > 0
    assert [] == _left_over(POSTGRES, process.pid)
