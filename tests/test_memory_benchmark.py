"""
The memory benchmark (``benchmarks/memory.py``): it runs, prints one JSON line per figure and
refuses a count below one. The figures themselves are never asserted (STYLE rule 35).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MEMORY = ROOT / "benchmarks" / "memory.py"


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    """Run the benchmark with *args* (slotwise as this interpreter imports it)."""
    return subprocess.run(
        [sys.executable, str(MEMORY), *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )


class TestMemoryBenchmark:
    def test_prints_one_json_line_per_figure(self):
        """Every figure, each with its count and a positive number of bytes per appointment."""
        run = _run("--count", "50")

        lines = [json.loads(line) for line in run.stdout.splitlines()]
        assert 0 == run.returncode, run.stderr
        assert [("appointment", 50), ("booking", 50)] == [
            (line["figure"], line["count"]) for line in lines
        ]
        assert all(line["bytes_per_appointment"] > 0 for line in lines)

    def test_a_count_below_one_is_refused(self):
        """--count 0 is a usage error (status 2), no figure."""
        run = _run("--count", "0", "--figures", "appointment")

        assert (2, "") == (run.returncode, run.stdout)
