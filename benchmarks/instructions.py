"""
Instructions per operation, counted by valgrind's callgrind: figures that do not move with
whatever else the machine is doing (wall time does).

Usage::

    python benchmarks/instructions.py [--figures booking availability list] [--count N]
                                      [--seeds S ...]

Each figure runs a child Python under ``valgrind --tool=callgrind`` twice: once doing the
set-up only, once doing the set-up and *N* operations; the difference over *N* is the cost of one
operation (interpreter start-up, imports and set-up cancel out). Operations:

``booking``       ``create(..., complete_booking="BK")`` on ``bookings.py``'s business
                  (``MemoryStore``, one thread), each at the next free half hour of a resource;
``availability``  ``workload.py``'s query on ``scenario.py``'s default scenario (4,172 slots);
``list``          ``appointments.list(limit=20)`` with 10,000 appointments stored
                  (``MemoryStore``);
``records``       two parts of a ``booking``, measured alone: building the three records it
``slot_check``    stores (the appointment, its event, its audit entry) from a stored booking's
                  values, with their validation; and the slot rules it asks, ``bookable_at`` for
                  one resource and one start on a snapshot read once from the cached
                  configuration (the set-up kept: what the booking's check costs at the least).

A count depends on the hash seed and on where objects land in memory (dictionary probes): the
same tree counts the same under one ``PYTHONHASHSEED``, but two trees can differ by about 1% for
layout alone. ``--seeds`` counts once per seed and gives their mean (and each), which is what a
before/after of a change smaller than a few percent needs.

Prints one JSON line per figure: ``{"figure", "count", "instructions_per_operation"}`` (with
``--seeds``, also ``"seeds"`` and ``"per_seed"``). Needs
``valgrind`` on the PATH; exits with status 1 without it.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

HERE = Path(__file__).resolve().parent
FIGURES = ("booking", "availability", "list", "records", "slot_check")
_COLLECTED = re.compile(r"Collected : (\d+)")

# Each child script: set-up, then COUNT operations (COUNT 0: the set-up alone).
_SCRIPTS = {
    "booking": """
import bookings
business = bookings.Business(COUNT + 10)
business.create_booked(0)
for number in range(1, COUNT + 1):
    business.create_booked(number)
""",
    "availability": """
from scenario import generate
from workload import Workload
loaded = Workload(generate())
loaded.query()
for _ in range(COUNT):
    loaded.query()
""",
    "list": """
from scenario import generate
from sql_stores import LoadedWorkload
from slotwise import MemoryStore
loaded = LoadedWorkload(MemoryStore(), generate(3, 10, 5))
loaded.add_history(10_000, 10_000)
lists = loaded.workspace.appointments
lists.list(location_id=loaded.location_id, limit=20)
for _ in range(COUNT):
    lists.list(location_id=loaded.location_id, limit=20)
""",
    "records": """
import attrs
import bookings
from slotwise import Appointment
from slotwise.model import AuditEntry, OutboxEvent
business = bookings.Business(10)
business.create_booked(0)
company_id = business.ws.company.get().id
with business.store.read() as reader:
    booked = reader.find(Appointment, company_id=company_id)[0]
    event = reader.undelivered_events(company_id=company_id, limit=1)[0]
    audit = reader.audit_of(booked.id)[0]
def values(record):
    return {field.alias: getattr(record, field.name) for field in attrs.fields(type(record))}
booked_values, event_values, audit_values = values(booked), values(event), values(audit)
for _ in range(COUNT):
    Appointment(**booked_values)
    OutboxEvent(**event_values)
    AuditEntry(**audit_values)
""",
    "slot_check": """
from zoneinfo import ZoneInfo
import bookings
from slotwise.availability.calculator import bookable_at
from slotwise.availability.query import AvailabilityQuery
from slotwise.availability.snapshot import read_snapshot
from slotwise.model import Location, Resource, RoundRobin, Service
from slotwise.storage.configuration import ConfigurationCache
business = bookings.Business(10)
resource_id, _, start = business.slot(0)
company_id = business.ws.company.get().id
with business.store.read() as view:
    reader = ConfigurationCache().reader(view, company_id)
    location = reader.find(Location, company_id=company_id)[0]
    service = reader.get(Service, business.service_id)
    local = start.astimezone(ZoneInfo(location.timezone))
    query = AvailabilityQuery(
        service_id=service.id,
        start_date=local.date(),
        end_date=local.date(),
        location_id=location.id,
        resource_id=resource_id,
        start_time=local.hour * 100 + local.minute,
        end_time=(local + bookings.SLOT).hour * 100 + (local + bookings.SLOT).minute,
        round_robin=RoundRobin.NONE,
    )
    snapshot = read_snapshot(
        reader,
        query,
        location=location,
        settings=location.settings,
        service=service,
        named_resources=[reader.get(Resource, resource_id)],
        judged_between=(start, start + bookings.SLOT),
    )
assert snapshot.configuration is not None and bookable_at(snapshot, query, bookings.NOW, start)
for _ in range(COUNT):
    bookable_at(snapshot, query, bookings.NOW, start)
""",
}


def instructions(script: str, count: int, seed: int | None = None) -> int:
    """
    Return the instructions a child Python running *script* with COUNT = *count* executes
    (with ``PYTHONHASHSEED`` = *seed* when given, else the environment's).
    """
    code = f"import sys\nsys.path.insert(0, {str(HERE)!r})\nCOUNT = {count}\n{script}"
    environment = dict(os.environ)
    if seed is not None:
        environment["PYTHONHASHSEED"] = str(seed)
    run = subprocess.run(
        [
            "valgrind",
            "--tool=callgrind",
            "--callgrind-out-file=/dev/null",
            sys.executable,
            "-c",
            code,
        ],
        capture_output=True,
        text=True,
        check=True,
        env=environment,
    )
    found = _COLLECTED.search(run.stderr)
    if found is None:
        raise RuntimeError(f"no instruction count in valgrind's output:\n{run.stderr[-2000:]}")
    return int(found.group(1))


def per_operation(figure: str, count: int, seeds: Sequence[int] = ()) -> dict[str, object]:
    """
    Measure one figure: (instructions with *count* operations - without) / *count*; with
    *seeds*, once per hash seed, and the mean of them.
    """
    script = _SCRIPTS[figure]
    if not seeds:
        base = instructions(script, 0)
        loaded = instructions(script, count)
        return {
            "figure": figure,
            "count": count,
            "instructions_per_operation": round((loaded - base) / count),
        }
    each = [
        round((instructions(script, count, seed) - instructions(script, 0, seed)) / count)
        for seed in seeds
    ]
    return {
        "figure": figure,
        "count": count,
        "instructions_per_operation": round(statistics.fmean(each)),
        "seeds": list(seeds),
        "per_seed": each,
    }


def main(argv: Sequence[str] | None = None) -> int:
    """Print one JSON line per figure; return the exit status."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[1] if __doc__ else None)
    parser.add_argument("--figures", nargs="+", choices=FIGURES, default=list(FIGURES))
    parser.add_argument("--count", type=int, default=200, help="operations counted")
    parser.add_argument(
        "--seeds",
        type=int,
        nargs="+",
        default=[],
        help="hash seeds to count under, one run each (the figure is their mean)",
    )
    args = parser.parse_args(argv)
    if args.count < 1:
        parser.error("--count must be at least 1")
    if shutil.which("valgrind") is None:
        print("instructions.py: valgrind is not on the PATH", file=sys.stderr)
        return 1
    for figure in args.figures:
        count = args.count if figure != "availability" else max(1, args.count // 20)
        print(json.dumps(per_operation(figure, count, args.seeds)), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
