"""
Time slotwise's availability query on a neutral workload scenario (``scenario.py``).

Usage::

    python benchmarks/workload.py SCENARIO.json [--repeat K] [--out FILE] [--check]
    python benchmarks/workload.py SCENARIO.json SCENARIO.json ... [--repeat K]

The scenario is mapped onto slotwise through its public API only: a ``Scheduler`` on a
``MemoryStore`` with a ``ManualClock`` at the scenario's ``now_utc`` and ``SequentialIds``; one
company and one location in ``tz`` open ``open``..``close`` on the scenario's weekdays (the format
numbers them 0 = Monday) and closed otherwise; one resource per name with those weekly hours in
its own zone ``tz``; one service of ``duration`` minutes with padding ``buffer`` and the slot step
``step`` (the service's booking interval when the step is one it allows, else the query's
``interval``); a book-ahead horizon covering the range; and the bookings as BK appointments put
straight into the store.

Timed (``time.perf_counter``, best of K runs, default 5): one availability query for every
resource over the whole range with round robin ``none``, including the iteration over every
returned slot, so a lazy result is fully consumed inside the timed region.

Prints exactly one JSON line ``{"slots": N, "best_ms": X, "runs": K}``. ``--out FILE`` writes the
sorted slot list ``[[resource, "YYYY-MM-DDTHH:MM:SSZ"], ...]`` (UTC). ``--check`` compares the
slots with the brute-force answer of ``expected.py`` and exits with status 1 on any difference.

With several scenarios, all are loaded into one process (each its own ``Scheduler`` and store,
in the order given) and timed interleaved: each of the K rounds queries every scenario once, the
order rotated by one each round. A comparison of sizes (``scale.py``'s slopes) then sets figures
taken under the same conditions side by side: the best time of one size differs by up to a
third from one process to the next on a shared machine, more than the differences a slope
looks for. Prints one line per scenario, in the order given, each with ``"scenario"`` (the
file's stem) added; ``--out`` and ``--check`` take one scenario only.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence
from datetime import date, datetime
from pathlib import Path
from typing import Any

from expected import expected_slots, format_utc, parse_utc

from slotwise import (
    SLOT_INTERVALS,
    Appointment,
    AppointmentStatus,
    BookingWindow,
    BusinessHours,
    DayHours,
    DayWindow,
    LocationSettings,
    MemoryStore,
    RoundRobin,
    Scheduler,
    Store,
    Weekday,
    WeeklyHours,
)
from slotwise.testing import ManualClock, SequentialIds

# The format numbers weekdays as date.weekday() does: 0 = Monday .. 6 = Sunday.
_BY_PYTHON_WEEKDAY = {day.python: day for day in Weekday}
_BOOK_AHEAD_DAYS_MAX = 730


def _hhmm(text: str) -> int:
    hours, minutes = (int(part) for part in text.split(":"))
    return hours * 100 + minutes


def _book_ahead(now: datetime, last_day: date) -> BookingWindow:
    # The last slot starts on end_date before midnight, local time; two spare days cover any
    # zone offset between now (UTC) and the location's calendar.
    days = (last_day - now.date()).days + 2
    if days <= _BOOK_AHEAD_DAYS_MAX:
        return BookingWindow(book_ahead_unit="days", book_ahead_value=days)
    return BookingWindow(book_ahead_unit="weeks", book_ahead_value=-(-days // 7))


class Workload:
    """A scenario loaded into a slotwise Scheduler, ready to be queried."""

    def __init__(self, scenario: dict[str, Any], *, store: Store | None = None) -> None:
        now = parse_utc(scenario["now_utc"])
        zone = scenario["tz"]
        self.start_date = date.fromisoformat(scenario["start_date"])
        self.end_date = date.fromisoformat(scenario["end_date"])
        step = int(scenario["step"])
        opens, closes = _hhmm(scenario["open"]), _hhmm(scenario["close"])
        working = {_BY_PYTHON_WEEKDAY[number] for number in scenario["weekdays"]}

        self.store: Store = MemoryStore() if store is None else store
        self.scheduler = Scheduler(self.store, clock=ManualClock(now), ids=SequentialIds())
        company = self.scheduler.create_company(name="Benchmark", timezone=zone)
        self.company_id = company.id
        self.workspace = self.scheduler.for_company(company.id)
        window = _book_ahead(now, self.end_date)
        location = self.workspace.locations.create(
            name="Benchmark",
            timezone=zone,
            business_hours=BusinessHours(
                **{
                    day.value: DayHours.open(opens, closes) if day in working else DayHours()
                    for day in Weekday
                }
            ),
            settings=LocationSettings(booking_window=window),
        )
        self.location_id = location.id
        self.calendar_id = location.primary_calendar_id
        # The service's booking interval allows only SLOT_INTERVALS; any other step goes into
        # the query's interval (decision 6: the query's interval comes first).
        self.interval = None if step in SLOT_INTERVALS else step
        service = self.workspace.services.create(
            name="Benchmark",
            duration=int(scenario["duration"]),
            reason="benchmark",
            location_id=location.id,
            padding=int(scenario.get("buffer", 0)),
            booking_interval=step if self.interval is None else None,
            booking_window=window,
        )
        self.service_id = service.id
        hours = WeeklyHours(
            **{
                day.value: DayWindow(start_time=opens, end_time=closes)
                if day in working
                else DayWindow.closed()
                for day in Weekday
            }
        )
        names: dict[str, str] = {}
        for name in scenario["resources"]:
            resource = self.workspace.resources.create(
                name=name,
                reason="benchmark",
                location_id=location.id,
                timezone=zone,
                weekly_hours=hours,
            )
            names[resource.id] = name
        self.names = names
        self.resource_ids = tuple(names)
        by_name = {name: resource_id for resource_id, name in names.items()}
        ids = self.scheduler.ids
        with self.scheduler.store.transaction() as tx:
            for booking in scenario["bookings"]:
                tx.insert(
                    Appointment(
                        id=ids.new_id(),
                        company_id=company.id,
                        location_id=location.id,
                        calendar_id=location.primary_calendar_id,
                        service_id=service.id,
                        resource_ids=(by_name[booking["resource"]],),
                        status=AppointmentStatus.BOOKED,
                        start=parse_utc(booking["start_utc"]),
                        end=parse_utc(booking["end_utc"]),
                        created_at=now,
                    )
                )

    def query(self) -> list[tuple[str | None, datetime]]:
        """Run the availability query once and return every slot's (resource id, start)."""
        result = self.workspace.availability.times(
            self.service_id,
            self.start_date,
            self.end_date,
            location_id=self.location_id,
            round_robin=RoundRobin.NONE,
            interval=self.interval,
        )
        # Two columns of the answer, read without building a Slot record per slot.
        slots = result.available_times
        return list(zip(slots.column("resource_id"), slots.column("start"), strict=True))

    def timed(self, repeat: int) -> tuple[float, list[tuple[str | None, datetime]]]:
        """Return the best wall time of *repeat* queries, in milliseconds, and the last slots."""
        ((best_ms, slots),) = interleaved([self], repeat)
        return best_ms, slots

    def named(self, slots: Sequence[tuple[str | None, datetime]]) -> list[tuple[str, str]]:
        """Return *slots* as sorted ``(resource name, UTC start text)`` pairs."""
        return sorted((self.names[str(rid)], format_utc(start)) for rid, start in slots)


def interleaved(
    workloads: Sequence[Workload], repeat: int
) -> list[tuple[float, list[tuple[str | None, datetime]]]]:
    """
    Time *repeat* rounds of one query of each workload, the order rotated by one each round.

    Returns each workload's best wall time in milliseconds and its last slots, in the order given.
    """
    best = [float("inf")] * len(workloads)
    slots: list[list[tuple[str | None, datetime]]] = [[] for _ in workloads]
    for round_number in range(repeat):
        for offset in range(len(workloads)):
            index = (round_number + offset) % len(workloads)
            began = time.perf_counter()
            slots[index] = workloads[index].query()
            best[index] = min(best[index], time.perf_counter() - began)
    return [(seconds * 1000, found) for seconds, found in zip(best, slots, strict=True)]


def _differences(actual: list[tuple[str, str]], expected: list[tuple[str, str]]) -> str:
    extra = sorted(set(actual) - set(expected))
    missing = sorted(set(expected) - set(actual))
    duplicates = len(actual) - len(set(actual))
    summary = (
        f"check FAILED: {len(actual)} slots, expected {len(expected)}; "
        f"{len(extra)} unexpected, {len(missing)} missing, {duplicates} duplicated"
    )
    lines = [summary]
    lines += [f"  unexpected {pair}" for pair in extra[:10]]
    lines += [f"  missing    {pair}" for pair in missing[:10]]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the benchmark; return the process exit status."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[1] if __doc__ else None)
    parser.add_argument(
        "scenarios",
        type=Path,
        nargs="+",
        metavar="scenario",
        help="a scenario JSON file (scenario.py writes one); several are timed interleaved",
    )
    parser.add_argument("--repeat", type=int, default=5, help="timed runs; the best counts")
    parser.add_argument("--out", type=Path, help="write the sorted slot list here")
    parser.add_argument(
        "--check", action="store_true", help="compare with the brute-force expected answer"
    )
    args = parser.parse_args(argv)
    if args.repeat < 1:
        parser.error("--repeat must be at least 1")
    if len(args.scenarios) > 1:
        if args.out is not None or args.check:
            parser.error("--out and --check take one scenario")
        workloads = [Workload(json.loads(path.read_text())) for path in args.scenarios]
        timed = interleaved(workloads, args.repeat)
        for path, (best_ms, slots) in zip(args.scenarios, timed, strict=True):
            report = {"slots": len(slots), "best_ms": round(best_ms, 3), "runs": args.repeat}
            print(json.dumps({"scenario": path.stem, **report}))
        return 0

    (path,) = args.scenarios
    scenario = json.loads(path.read_text())
    workload = Workload(scenario)
    best_ms, slots = workload.timed(args.repeat)
    named = workload.named(slots)
    print(json.dumps({"slots": len(slots), "best_ms": round(best_ms, 3), "runs": args.repeat}))
    if args.out is not None:
        args.out.write_text(json.dumps([list(pair) for pair in named]))
    if args.check:
        expected = expected_slots(scenario)
        if named != expected:
            print(_differences(named, expected), file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
