"""
The minimal pure-Python booking (``benchmarks/minimal_booking.py``): it books what slotwise's
benchmark business books and refuses what its rules refuse, so its instructions are a booking's
least, not a no-op's. Tiny runs only; speed is never asserted here (STYLE rule 35).
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[1]
BENCHMARKS = ROOT / "benchmarks"


@pytest.fixture
def minimal(monkeypatch: pytest.MonkeyPatch) -> Iterator[ModuleType]:
    """The benchmark module, imported from its directory."""
    monkeypatch.syspath_prepend(str(BENCHMARKS))
    import minimal_booking

    yield minimal_booking
    for name in ("minimal_booking", "bookings"):
        sys.modules.pop(name, None)


def test_it_books_what_slotwise_books(minimal: ModuleType):
    """The same slots for 120 bookings, and the first one again is refused."""
    assert minimal.agrees(120)


@pytest.mark.parametrize(
    ("shift", "length", "resource_id", "customer_id", "reason"),
    [
        (15, 30, None, None, "not a slot of the service"),
        (0, 60, None, None, "not a slot of the service"),
        (0, 30, "r999", None, "no such resource"),
        (0, 30, None, "u999", "no such customer"),
        (30 * 24 * 60, 30, None, None, "outside the booking window"),
        (-3 * 24 * 60, 30, None, None, "the start is in the past"),
        (0, -30, None, None, "end must be after start"),
    ],
)
def test_it_refuses_what_the_rules_refuse(
    minimal: ModuleType,
    shift: int,
    length: int,
    resource_id: str | None,
    customer_id: str | None,
    reason: str,
):
    """Off the grid, another length, unknown records, outside the window: refused, nothing kept."""
    store = minimal.MinimalStore(100)
    first_resource, first_customer, start = minimal.slot(0)
    start += timedelta(minutes=shift)

    with pytest.raises(minimal.Refused, match=reason):
        store.create_booked(
            "s",
            start,
            start + timedelta(minutes=length),
            resource_id=resource_id or first_resource,
            customer_id=customer_id or first_customer,
            now=minimal.NOW,
        )
    assert ({}, []) == (store.appointments, store.outbox)


def test_a_run_prints_its_rate():
    """``--bookings 50``: one JSON line {bookings, seconds, per_second}, status 0."""
    run = subprocess.run(
        [sys.executable, str(BENCHMARKS / "minimal_booking.py"), "--bookings", "50"],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=ROOT,
    )

    assert 0 == run.returncode, run.stderr
    line = json.loads(run.stdout)
    assert {"bookings", "seconds", "per_second"} == set(line)
    assert 50 == line["bookings"]
