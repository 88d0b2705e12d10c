"""
``benchmarks/hosts.py`` runs on the harness and reports in its documented shape. On PostgreSQL
only: ``--database mariadb`` starts the same harness MariaDB the other tests run on, and a
second network and server would cost CI about 15 s more.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from .conftest import require_harness

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "hosts.py"
KEYS = {
    "figure",
    "database",
    "hosts",
    "endpoint",
    "threads",
    "requests",
    "seconds",
    "per_second",
    "errors",
}


def test_the_hosts_benchmark_reports_both_loads():
    """One host, a short run: a bookings and an availability figure, neither with an error."""
    require_harness()
    command = [
        *(sys.executable, str(SCRIPT), "--database", "postgresql"),
        *("--hosts", "1", "--bookings", "6", "--seconds", "0.5"),
    ]
    result = subprocess.run(command, capture_output=True, text=True, timeout=300)

    assert 0 == result.returncode, result.stderr[-1500:]
    figures = [json.loads(line) for line in result.stdout.splitlines()]
    assert [("bookings", 1), ("availability", 1)] == [(f["endpoint"], f["hosts"]) for f in figures]
    assert [KEYS, KEYS] == [set(figure) for figure in figures]
    assert ["postgresql", "postgresql"] == [figure["database"] for figure in figures]
    assert [0, 0] == [figure["errors"] for figure in figures]
    assert 6 == figures[0]["requests"]
    assert figures[1]["requests"] > 0
