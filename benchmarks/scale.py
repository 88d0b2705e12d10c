"""
Every row of the speed table (issue 23; docs/performance.md) from one command, as JSON lines.

Usage (from the project's root)::

    python benchmarks/scale.py [--areas availability slope stores served bookings instructions memory lists]
                               [--quick]

Each area runs the benchmark script that owns it and prints one line per row::

    {"row", "value", "target", "met", "detail": {...}}

``value`` is the row's measure (a ratio, a slope, instructions or bytes), ``target`` the
issue's target as text, ``met`` whether ``value`` reaches it (``null`` for a row that is a measure, not a limit). A row that cannot run here prints
``{"row", "skipped": reason}`` instead: timegrid not installed, ``../shared/bench/`` absent, a
database server or valgrind missing. Ratios come from runs interleaved in one process where the
owning script interleaves them; the machine this runs on may be shared, so compare rows of one
run, never absolute times across runs. ``--quick`` shortens every run (for a smoke test; its
figures are not worth quoting). Speed is never asserted (STYLE rule 35).

Areas and the scripts behind them:

``availability``  ``../shared/bench/peer_timegrid.py`` on five ``gen.py`` scenarios: slotwise /
                  timegrid (best/best), and slotwise / the minimal pure-Python answer on the base
                  scenario.
``slope``         ``benchmarks/workload.py`` at 100 resources x 30 and x 90 days and 30 x 90:
                  the log-log slope of the query's time over its slots as the days grow and as
                  the resources grow (1: a flat cost per slot). The three sizes are timed
                  interleaved in one process; six processes, each loading them in another
                  order (every rotation and its reverse), and the median of their slopes.
``stores``        ``benchmarks/sql_stores.py --figures week``: one service's week, each SQL
                  store / ``MemoryStore``.
``served``        ``benchmarks/http_service.py``: availability throughput served / direct, and a
                  list of services' time served / direct.
``bookings``      ``benchmarks/sql_stores.py --figures bookings statements`` on PostgreSQL beside
                  ``pgbench`` (TPC-B, scale 1, in a scratch database) with 1 and 8 clients, and
                  ``benchmarks/replayed_bookings.py``: the bookings' own round trips replayed on a
                  bare connection, beside the same 1-client ``pgbench`` (a measure: the floor of
                  the 1-process row).
``instructions``  ``benchmarks/instructions.py --figures booking booking_parts``: a ``MemoryStore``
                  booking, and the sum of four of its parts, each counted alone (a measure: what
                  those parts cost today, whatever glue around them is cut).
``memory``        bytes per stored appointment on ``MemoryStore`` (``tracemalloc``).
``lists``         ``benchmarks/lists.py`` on PostgreSQL: ``appointments.list(limit=20)`` at
                  10,000 over 1,000 appointments.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
BENCHMARKS = ROOT / "benchmarks"
SHARED = ROOT.parent / "shared" / "bench"
POSTGRES = os.environ.get(
    "SLOTWISE_BENCH_POSTGRES_URL", "postgresql://postgres@127.0.0.1:5432/test"
)

Row = dict[str, Any]

_SLOPE_ROUNDS = 6
"""Rounds of the slopes' interleaved queries: each of the three sizes goes first twice."""

SCENARIOS = {
    "base": [],
    "buffer10-step15": ["--buffer", "10", "--step", "15"],
    "20x90": ["20", "100", "90"],
    "100x30": ["100", "100", "30"],
    "100x90": ["100", "100", "90"],
}


def _environ() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), *sys.path])}


def _lines(command: Sequence[str]) -> list[dict[str, Any]]:
    """Run *command* from the project's root; return the JSON lines it printed."""
    done = subprocess.run(
        list(command), cwd=ROOT, env=_environ(), capture_output=True, text=True, check=False
    )
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} failed: {done.stderr.strip()[-2000:]}")
    return [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]


def _python(script: Path, *arguments: str) -> list[dict[str, Any]]:
    return _lines([sys.executable, str(script), *arguments])


def _row(name: str, value: float, target: str, met: bool | None, **detail: Any) -> Row:
    return {"row": name, "value": value, "target": target, "met": met, "detail": detail}


def _skipped(name: str, reason: str) -> Row:
    return {"row": name, "skipped": reason}


def availability(quick: bool) -> Iterator[Row]:
    """slotwise / timegrid on every scenario, and slotwise / the minimal answer on the base one."""
    peer = SHARED / "peer_timegrid.py"
    if not peer.exists():
        yield _skipped("availability", f"{peer} is not here (the shared benchmark folder)")
        return
    try:
        import timegrid  # noqa: F401
    except ImportError:
        yield _skipped("availability", "timegrid is not installed: pip install 'timegrid==0.1.6'")
        return
    rounds = "3" if quick else "15"
    with tempfile.TemporaryDirectory() as folder:
        for label, arguments in SCENARIOS.items():
            scenario = Path(folder) / f"{label}.json"
            _python(SHARED / "gen.py", *arguments, "--out", str(scenario))
            (found,) = _python(peer, str(scenario), "--rounds", rounds)
            ratio = found["ratio_best"]
            yield _row(
                f"availability {label}: slotwise / timegrid",
                ratio,
                "<= 0.5",
                ratio <= 0.5,
                same_slots=found["same_slots"],
                best_ms=found["best_ms"],
            )
            if label == "base":
                floor = found["ratio_floor_best"]
                yield _row(
                    "availability base: slotwise / minimal pure-Python answer",
                    floor,
                    "<= 2",
                    floor <= 2,
                    best_ms=found["best_ms"],
                )


def slope(quick: bool) -> Iterator[Row]:
    """The log-log slope of time over slots, as days (100 resources) and resources (90 days) grow."""
    sizes = {"100x30": (100, 30), "100x90": (100, 90), "30x90": (30, 90)}
    if quick:
        sizes = {"10x10": (10, 10), "10x30": (10, 30), "3x30": (3, 30)}
    labels = list(sizes)
    pairs = {"days": (labels[0], labels[1]), "resources": (labels[2], labels[1])}
    processes: list[dict[str, dict[str, Any]]] = []
    with tempfile.TemporaryDirectory() as folder:
        files = [Path(folder) / f"{label}.json" for label in labels]
        for path, (resources, days) in zip(files, sizes.values(), strict=True):
            _python(
                BENCHMARKS / "scenario.py", str(resources), "100", str(days), "--out", str(path)
            )
        # The sizes timed interleaved in one process, so each slope compares figures taken under
        # the same conditions. Each rotation of the loading order and its reverse: each size of
        # a pair is loaded before the other in as many processes as after it.
        for order in _loading_orders(files):
            found = _python(
                BENCHMARKS / "workload.py", *map(str, order), "--repeat", str(_SLOPE_ROUNDS)
            )
            processes.append({line.pop("scenario"): line for line in found})
    for over, (small, large) in pairs.items():
        slopes = [_log_log_slope(measured[small], measured[large]) for measured in processes]
        # The median process: one disturbed process moves it no more than a quiet one does.
        value = round(statistics.median(slopes), 3)
        yield _row(
            f"availability cost over {over}: log-log slope",
            value,
            "<= 1.05",
            value <= 1.05,
            slopes=slopes,
            small=_size(sizes[small], processes[0][small]["slots"]),
            large=_size(sizes[large], processes[0][large]["slots"]),
            best_ms=[
                {label: measured[label]["best_ms"] for label in (small, large)}
                for measured in processes
            ],
            per_slot_us=[
                {
                    label: round(1000 * m["best_ms"] / max(m["slots"], 1), 3)
                    for label, m in measured.items()
                }
                for measured in processes
            ],
        )


def _loading_orders(files: list[Path]) -> list[list[Path]]:
    """Return every rotation of *files* and each one's reverse."""
    rotations = [files[first:] + files[:first] for first in range(len(files))]
    return [order for rotation in rotations for order in (rotation, rotation[::-1])]


def _size(size: tuple[int, int], slots: int) -> dict[str, int]:
    resources, days = size
    return {"resources": resources, "days": days, "slots": slots}


def _log_log_slope(small: dict[str, Any], large: dict[str, Any]) -> float:
    """
    Return the log-log slope of the best time over the slots from *small* to *large*.

    The cost per slot is flat when the time grows as the slots do: slope 1 (the slots grow
    faster than the days: short ranges end in closed days).
    """
    return round(
        math.log(large["best_ms"] / small["best_ms"]) / math.log(large["slots"] / small["slots"]),
        3,
    )


def stores(quick: bool) -> Iterator[Row]:
    """One service's week on each SQL store over the same on ``MemoryStore``."""
    figures = _python(
        BENCHMARKS / "sql_stores.py",
        "--figures",
        "week",
        "--stores",
        "memory",
        "sqlite",
        "postgresql",
        "mariadb",
        *(["--repeat", "3"] if quick else []),
    )
    by_store = {figure["store"]: figure for figure in figures if figure["figure"] == "week"}
    memory = by_store.get("memory")
    if memory is None:
        yield _skipped("availability direct: store / MemoryStore", "no MemoryStore figure")
        return
    for store, figure in by_store.items():
        if store == "memory":
            continue
        ratio = round(figure["cached_ms"] / memory["cached_ms"], 3)
        yield _row(
            f"availability direct, {store} / MemoryStore",
            ratio,
            "<= 1.3",
            ratio <= 1.3,
            store_ms=figure["cached_ms"],
            memory_ms=memory["cached_ms"],
        )


def served(quick: bool) -> Iterator[Row]:
    """Served / direct: availability throughput and a list of services' time per request."""
    figures = _python(
        BENCHMARKS / "http_service.py",
        "--stores",
        "postgresql",
        "--workers",
        "1",
        "--connections",
        "16",
        "--seconds",
        "2" if quick else "8",
    )
    for figure in figures:
        direct_ms, per_second = figure.get("direct_ms"), figure.get("per_second")
        if not direct_ms or not per_second:
            continue
        served_ms = 1000 / per_second
        if figure["endpoint"] == "availability":
            value = round(direct_ms / served_ms, 3)  # throughput served / direct
            yield _row(
                "served availability / direct call (throughput)",
                value,
                ">= 0.75",
                value >= 0.75,
                **figure,
            )
        elif figure["endpoint"] == "services":
            value = round(served_ms / direct_ms, 3)  # time per request served / direct
            yield _row(
                "served list of services / direct call (time per request)",
                value,
                "<= 3",
                value <= 3,
                **figure,
            )


def _pgbench(clients: int, seconds: int) -> float:
    """Return pgbench's TPC-B transactions per second with *clients* in a scratch database."""
    database = f"slotwise_pgbench_{os.getpid()}"
    base = ["-h", "127.0.0.1", "-U", "postgres"]
    subprocess.run(["createdb", *base, database], check=True, capture_output=True)
    try:
        subprocess.run(
            ["pgbench", *base, "-i", "-s", "1", "-q", database], check=True, capture_output=True
        )
        done = subprocess.run(
            [
                "pgbench",
                *base,
                "-c",
                str(clients),
                "-j",
                str(clients),
                "-T",
                str(seconds),
                database,
            ],
            check=True,
            capture_output=True,
            text=True,
        )
    finally:
        subprocess.run(["dropdb", *base, "--if-exists", database], capture_output=True)
    for line in done.stdout.splitlines():
        if line.startswith("tps ="):
            return float(line.split()[2])
    raise RuntimeError(f"pgbench printed no tps: {done.stdout}")


def bookings(quick: bool) -> Iterator[Row]:
    """PostgreSQL bookings per second over pgbench's, and a booking's round trips."""
    if shutil.which("pgbench") is None:
        yield _skipped("bookings / pgbench", "pgbench is not installed (postgresql-contrib)")
        return
    count = "60" if quick else "1000"
    figures = _python(
        BENCHMARKS / "sql_stores.py",
        "--figures",
        "bookings",
        "statements",
        "--stores",
        "postgresql",
        "--bookings",
        count,
        "--processes",
        "1",
        "8",
    )
    seconds = 2 if quick else 10
    pgbench_one: float | None = None
    for figure in figures:
        if figure["figure"] == "bookings":
            processes = figure["processes"]
            tps = _pgbench(processes, seconds)
            if processes == 1:
                pgbench_one = tps
            ratio = round(figure["per_second"] / tps, 3)
            target = 0.35 if processes == 1 else 0.2
            yield _row(
                f"PostgreSQL bookings, {processes} process(es) / pgbench {processes} client(s)",
                ratio,
                f">= {target}",
                ratio >= target,
                per_second=figure["per_second"],
                pgbench_tps=tps,
            )
        elif figure["figure"] == "statements":
            trips = figure.get("round_trips", figure["statements"])
            yield _row(
                "PostgreSQL booking round trips",
                trips,
                "<= 5",
                trips <= 5,
                statements=figure["statements"],
            )
    if pgbench_one is not None:
        # The same round trips with no client work: the 1-process row's floor on this machine.
        (replayed,) = _python(
            BENCHMARKS / "replayed_bookings.py", "--bookings", "60" if quick else "1000"
        )
        yield _row(
            "PostgreSQL bookings' own round trips replayed bare / pgbench 1 client",
            round(replayed["bare_per_second"] / pgbench_one, 3),
            "a measure: what the 1-process row would reach with a client that cost nothing",
            None,
            **{key: value for key, value in replayed.items() if key != "figure"},
        )


def instructions(quick: bool) -> Iterator[Row]:
    """
    Instructions of one ``MemoryStore`` booking under callgrind, and the sum of four of its parts
    counted alone.
    """
    if shutil.which("valgrind") is None:
        yield _skipped("MemoryStore booking instructions", "valgrind is not installed")
        return
    figures = _python(
        BENCHMARKS / "instructions.py",
        "--figures",
        "booking",
        "booking_parts",
        "minimal_booking",
        "--count",
        "20" if quick else "200",
    )
    for figure in figures:
        value = figure["instructions_per_operation"]
        if figure["figure"] == "booking":
            yield _row(
                "MemoryStore booking (create BK), instructions",
                value,
                "<= 500000",
                value <= 500_000,
                count=figure["count"],
            )
        elif figure["figure"] == "booking_parts":
            yield _row(
                "MemoryStore booking's parts counted alone (slot rules, their read, "
                "three records, their writes), instructions",
                value,
                "a measure: what these parts cost today, whatever glue around them is cut",
                None,
                parts=figure["parts"],
            )
        elif figure["figure"] == "minimal_booking":
            yield _row(
                "the minimal pure-Python booking of the same business, instructions",
                value,
                "a measure: the least a correct booking of it costs (minimal_booking.py)",
                None,
            )


def memory(quick: bool) -> Iterator[Row]:
    """Bytes each stored appointment holds in ``MemoryStore``."""
    script = BENCHMARKS / "memory.py"
    if not script.exists():
        yield _skipped("memory per stored appointment", f"{script.name} is not here")
        return
    count = "500" if quick else "5000"
    for figure in _python(script, "--figures", "appointment", "--count", count):
        value = figure["bytes_per_appointment"]
        yield _row("memory per stored appointment (MemoryStore)", value, "<= 600", value <= 600)


def lists(quick: bool) -> Iterator[Row]:
    """PostgreSQL ``appointments.list(limit=20)`` at 10,000 over 1,000 appointments."""
    sizes = ["100", "1000"] if quick else ["1000", "10000"]
    for figure in _python(
        BENCHMARKS / "lists.py", "--stores", "postgresql", "--sizes", *sizes, "--repeat", "5"
    ):
        yield _row(
            f"PostgreSQL appointments.list(limit=20), {sizes[0]} -> {sizes[1]}",
            figure["ratio"],
            "not a limit: the exact total grows with the matches (decision 48)",
            None,
            **figure,
        )


AREAS: dict[str, Callable[[bool], Iterator[Row]]] = {
    "availability": availability,
    "slope": slope,
    "stores": stores,
    "served": served,
    "bookings": bookings,
    "instructions": instructions,
    "memory": memory,
    "lists": lists,
}


def main(argv: Sequence[str] | None = None) -> int:
    """Print the rows of the chosen areas."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--areas", nargs="+", choices=list(AREAS), default=list(AREAS))
    parser.add_argument("--quick", action="store_true", help="short runs (a smoke test)")
    arguments = parser.parse_args(argv)
    for area in arguments.areas:
        try:
            for row in AREAS[area](arguments.quick):
                print(json.dumps(row), flush=True)
        except RuntimeError as error:
            print(json.dumps(_skipped(area, str(error))), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
