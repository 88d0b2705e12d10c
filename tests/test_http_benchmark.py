"""
The HTTP and webhook benchmarks run and report in their documented shapes.

A short run on SQLite with the Python load generator (``wrk`` may be missing); speed is never
asserted here (STYLE rule 35).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "benchmarks" / "http_service.py"
KEYS = {
    "figure", "store", "endpoint", "load", "workers", "connections", "seconds", "requests",
    "per_second", "p50_ms", "p99_ms", "errors", "direct_ms", "direct_median_ms", "http_share",
    "served_ms", "time_ratio", "time_ratio_median", "throughput_ratio", "served_cpu_ms",
    "direct_cpu_ms", "cpu_ratio",
}  # fmt: skip


def test_the_http_benchmark_reports_every_endpoint():
    """Availability, services, hold+book and list each report requests served without an error."""
    result = subprocess.run(
        [
            sys.executable,
            str(SCRIPT),
            "--stores",
            "sqlite",
            "--seconds",
            "0.3",
            "--load",
            "python",
            "--connections",
            "1",
        ],
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    figures = [json.loads(line) for line in result.stdout.splitlines()]

    assert ["availability", "services", "hold_book", "list"] == [f["endpoint"] for f in figures]
    for figure in figures:
        assert KEYS == set(figure)
        assert figure["requests"] > 0
        assert 0 == figure["errors"]


def test_the_webhook_benchmark_delivers_every_event():
    """benchmarks/webhooks.py delivers its events to its receiver and reports the rate."""
    result = subprocess.run(
        [
            sys.executable,
            str(ROOT / "benchmarks" / "webhooks.py"),
            "--stores",
            "sqlite",
            "--events",
            "30",
            "--batch",
            "10",
        ],
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    [figure] = [json.loads(line) for line in result.stdout.splitlines()]

    assert (30, 30) == (figure["events"], figure["received"])
    assert figure["per_second"] > 0
