"""
The sizing benchmark (``benchmarks/sizing.py``, docs/deploy.md "Sizing") runs and reports in its
documented shape: a tiny run on a primary and replica of its own. Speed is never asserted (STYLE
rule 35); what is checked is that every load was answered and every tier's CPU was read.
"""

from __future__ import annotations

import glob
import json
import os
import subprocess
import sys
from pathlib import Path

from .servers import unavailable

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "sizing.py"


def test_a_tiny_run_prints_one_figure_per_load_with_cpu_per_tier():
    """Bookings, availability and availability on the replica: answered, CPU read per tier."""
    if not glob.glob("/usr/lib/postgresql/*/bin/pg_basebackup"):
        unavailable("the sizing benchmark needs PostgreSQL's server binaries (postgresql)")
    if os.geteuid() != 0:
        unavailable("the sizing benchmark runs PostgreSQL as the postgres user: needs root")
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--bookings", "10", "--seconds", "0.5", "--threads", "2"],
        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    figures = [json.loads(line) for line in done.stdout.splitlines()]
    assert [figure["load"] for figure in figures] == [
        "bookings",
        "availability",
        "availability-replica",
    ]
    for figure in figures:
        assert figure["figure"] == "sizing"
        assert figure["errors"] == 0, figure
        assert figure["requests"] > 0
        assert (
            set(figure["cpu_seconds"])
            == set(figure["per_core"])
            == {
                "app",
                "primary",
                "replica",
            }
        )
        assert figure["cpu_seconds"]["app"] > 0  # the server process did the work
    assert figures[0]["requests"] == 10
