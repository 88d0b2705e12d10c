"""
Write an availability workload scenario: the project's own generator of the documented format.

Usage::

    python benchmarks/scenario.py [RESOURCES=20] [BOOKINGS_PER_RESOURCE=100] [DAYS=30]
        [--buffer MIN] [--step MIN] [--tz ZONE] [--start YYYY-MM-DD] [--out FILE]

The flags, the JSON it writes and the line it prints are those of the neutral generator peers
are measured on (``../shared/bench/gen.py``), and with the same arguments it writes the same
scenario (same seed, same draws, in the same order), so figures stay comparable with peers'
while ``benchmarks/`` and the tests need nothing outside this repository. ``tests/
test_benchmarks.py`` cross-checks the two when the neutral generator is present.

The scenario: a business in ``tz`` open 09:00-17:00 Monday to Friday from ``start`` for
``DAYS`` days; ``RESOURCES`` resources ``r00``, ``r01``, ...; for each, up to
``BOOKINGS_PER_RESOURCE`` non-overlapping bookings of one or two 30-minute cells on random
working days (seed 42); 30-minute appointments on a ``step``-minute grid with ``buffer`` minutes
kept free around bookings; ``now_utc`` nine days before the range. The expected answer is
written out in ``benchmarks/expected.py``.
"""

from __future__ import annotations

import argparse
import json
import random
from collections.abc import Sequence
from datetime import UTC, date, datetime, time, timedelta
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

__all__ = ["generate", "main"]

SEED = 42
CELL_MINUTES = 30
CELLS_PER_DAY = 16  # 09:00-17:00
WORKING_WEEKDAYS = (0, 1, 2, 3, 4)  # date.weekday(): Monday .. Friday
MAX_TRIES = 100_000  # per resource: a full calendar stops drawing instead of looping forever
NOW_BEFORE_START = timedelta(days=9)


def _utc_text(instant: datetime) -> str:
    return instant.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _bookings_of(
    resource: str, per_resource: int, workdays: Sequence[date], zone: ZoneInfo, draws: random.Random
) -> list[dict[str, str]]:
    """Draw up to *per_resource* non-overlapping bookings of *resource* on *workdays*."""
    taken: set[tuple[date, int]] = set()
    bookings: list[dict[str, str]] = []
    tries = 0
    while len(bookings) < per_resource and tries < MAX_TRIES:
        tries += 1
        # The draw order (day, cell, length) is the format's: the same seed, the same scenario.
        day = draws.choice(workdays)
        cell = draws.randrange(CELLS_PER_DAY)
        length = draws.choice([1, 2])
        if cell + length > CELLS_PER_DAY:
            continue
        cells = {(day, cell + offset) for offset in range(length)}
        if cells & taken:
            continue
        taken |= cells
        start_local = datetime.combine(day, time(9)) + timedelta(minutes=CELL_MINUTES * cell)
        end_local = start_local + timedelta(minutes=CELL_MINUTES * length)
        bookings.append(
            {
                "resource": resource,
                "start_utc": _utc_text(start_local.replace(tzinfo=zone)),
                "end_utc": _utc_text(end_local.replace(tzinfo=zone)),
                "start_local": start_local.strftime("%Y-%m-%dT%H:%M:%S"),
                "end_local": end_local.strftime("%Y-%m-%dT%H:%M:%S"),
            }
        )
    return bookings


def generate(
    resources: int = 20,
    per_resource: int = 100,
    days: int = 30,
    *,
    buffer: int = 0,
    step: int = 30,
    tz: str = "America/New_York",
    start: date = date(2027, 3, 1),
) -> dict[str, Any]:
    """Return the scenario for these arguments (a JSON-ready dict), the same on every call."""
    zone = ZoneInfo(tz)
    dates = [start + timedelta(days=offset) for offset in range(days)]
    workdays = [day for day in dates if day.weekday() in WORKING_WEEKDAYS]
    names = [f"r{number:02d}" for number in range(resources)]
    draws = random.Random(SEED)
    bookings = [
        booking
        for name in names
        for booking in _bookings_of(name, per_resource, workdays, zone, draws)
    ]
    return {
        "tz": tz,
        "start_date": start.isoformat(),
        "end_date": (start + timedelta(days=days - 1)).isoformat(),
        "weekdays": list(WORKING_WEEKDAYS),
        "open": "09:00",
        "close": "17:00",
        "duration": CELL_MINUTES,
        "step": step,
        "buffer": buffer,
        "resources": names,
        "bookings": bookings,
        "now_utc": _utc_text(datetime.combine(start, time(), tzinfo=UTC) - NOW_BEFORE_START),
    }


def main(argv: Sequence[str] | None = None) -> int:
    """Write the scenario the arguments describe and print its one-line summary."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[1] if __doc__ else None)
    parser.add_argument("resources", nargs="?", type=int, default=20)
    parser.add_argument("per_resource", nargs="?", type=int, default=100)
    parser.add_argument("days", nargs="?", type=int, default=30)
    parser.add_argument("--buffer", type=int, default=0)
    parser.add_argument("--step", type=int, default=30)
    parser.add_argument("--tz", default="America/New_York")
    parser.add_argument("--start", type=date.fromisoformat, default=date(2027, 3, 1))
    parser.add_argument("--out", type=Path, default=Path("scenario.json"))
    args = parser.parse_args(argv)
    scenario = generate(
        args.resources,
        args.per_resource,
        args.days,
        buffer=args.buffer,
        step=args.step,
        tz=args.tz,
        start=args.start,
    )
    # The neutral generator's layout (json.dump defaults), so the files compare byte for byte.
    args.out.write_text(json.dumps(scenario))
    workdays = sum(
        1
        for offset in range(args.days)
        if (args.start + timedelta(days=offset)).weekday() in WORKING_WEEKDAYS
    )
    last = args.start + timedelta(days=args.days - 1)
    print(
        len(scenario["resources"]),
        "resources,",
        len(scenario["bookings"]),
        "bookings,",
        workdays,
        "workdays,",
        args.start,
        "to",
        last,
        "->",
        args.out,
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
