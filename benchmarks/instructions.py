"""
Instructions per operation, counted by valgrind's callgrind: figures that do not move with
whatever else the machine is doing (wall time does).

Usage::

    python benchmarks/instructions.py [--figures booking availability list] [--count N]
                                      [--seeds S ...] [--without PART ...]

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
                  configuration (the set-up kept: what the booking's check costs at the least),
                  for the next booking after 400;
``snapshot_read`` two more parts of a ``booking``, measured alone: the booking check's read
``store_writes``  (``read_snapshot`` for one resource and the slot's range, from the cached
                  configuration, as ``slot_check`` reads it); and one unit of work (one lock)
                  inserting an appointment, its event and its audit entry built beforehand, as
                  a booking does (at most 1,000 of them: ``--count`` is capped there);
``minimal_booking`` ``minimal_booking.py``'s booking of the same business: the least code that
                  books it correctly, the reference the ``booking`` figure is read against.

Four parts of a booking, each measured alone as the present code does it: the calculator asked
for one start (decision 49's slot rules, with the calculator's per-query set-up), the read it
judges, the three records and their writes with the store's indexes. ``--figures
booking_parts`` (not in the default list) counts the four and prints their sum as one more line,
``booking_parts``: what those parts cost today, whatever glue around them is cut.

``--without PART ...`` also counts the ``booking`` figure once per *PART* with that part of the
booking made a no-op (``booking-without-PART``): the difference from ``booking`` is what the part
costs in place, with the rest of the booking around it (a profile shares time out; this takes
the part away). Parts: ``slot_check`` (the availability engine asked for the slot: snapshot read
and slot rules; the resources are taken as named), ``event`` (the outbox event), ``audit`` (the
audit entry), ``reminders`` (the reminder queue), ``field_checks`` (booking-field checks),
``customer_limits`` (decision 10's limits) and ``boundary`` (the operation boundary's argument
checks and log line). A booking without a part is no longer a valid booking; these counts
attribute cost, nothing else.

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
from typing import cast

HERE = Path(__file__).resolve().parent
FIGURES = (
    "booking",
    "availability",
    "list",
    "records",
    "slot_check",
    "snapshot_read",
    "store_writes",
    "minimal_booking",
)
PARTS = ("slot_check", "snapshot_read", "records", "store_writes")
"""Four parts of a booking, each a figure measured alone (``booking_parts``)."""
_STORE_WRITES_MAX = 1_000
"""The most ``store_writes`` operations one count makes (its records are built beforehand)."""
_BOOKING_PARTS = {
    "slot_check": (
        "creation.AppointmentCreation._check_slot = "
        "lambda self, tx, *, resources, **_: tuple(r.id for r in resources)"
    ),
    "event": "creation.AppointmentCreation._event = lambda *_, **__: None",
    "audit": "creation.AppointmentCreation._audit = lambda *_, **__: None",
    "reminders": "creation._queue_reminders = lambda *_, **__: None",
    "field_checks": "creation.check_field_values = lambda *_, **__: None",
    "customer_limits": "creation._check_customer_limits = lambda *_, **__: None",
    "boundary": (
        "creation.AppointmentCreation.create = creation.AppointmentCreation.create.__wrapped__"
    ),
}
"""What each ``--without`` part's script runs first: that part of a booking made a no-op."""
_COLLECTED = re.compile(r"Collected : (\d+)")

# The next booking's check, after 400 bookings (``bookings.py``'s business): its slot is free and
# its resource's earlier half hours are booked. ``read()`` reads the check's snapshot from the
# cached configuration, in a view left open to the end of the script.
_CHECKED_SLOT = """
from zoneinfo import ZoneInfo
import bookings
from slotwise.availability.query import AvailabilityQuery
from slotwise.availability.snapshot import read_snapshot
from slotwise.model import Location, Resource, RoundRobin, Service
from slotwise.storage.configuration import ConfigurationCache
business = bookings.Business(1_000)
for number in range(400):
    business.create_booked(number)
resource_id, _, start = business.slot(400)
company_id = business.ws.company.get().id
view = business.store.read().__enter__()
reader = ConfigurationCache().reader(view, company_id)
location = reader.find(Location, company_id=company_id)[0]
service = reader.get(Service, business.service_id)
resource = reader.get(Resource, resource_id)
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
def read():
    return read_snapshot(
        reader,
        query,
        location=location,
        settings=location.settings,
        service=service,
        named_resources=[resource],
        judged_between=(start, start + bookings.SLOT),
    )
"""

# Each child script: set-up, then COUNT operations (COUNT 0: the set-up alone).
_SCRIPTS = {
    "booking": """
import bookings
business = bookings.Business(COUNT + 10)
business.create_booked(0)
for number in range(1, COUNT + 1):
    business.create_booked(number)
""",
    "minimal_booking": """
import minimal_booking
store = minimal_booking.MinimalStore(COUNT + 10)
minimal_booking.book(store, 0)
for number in range(1, COUNT + 1):
    minimal_booking.book(store, number)
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
    "slot_check": _CHECKED_SLOT
    + """
from slotwise.availability.calculator import bookable_at
snapshot = read()
assert snapshot.configuration is not None and bookable_at(snapshot, query, bookings.NOW, start)
for _ in range(COUNT):
    bookable_at(snapshot, query, bookings.NOW, start)
""",
    "snapshot_read": _CHECKED_SLOT
    + """
assert read().configuration is not None
for _ in range(COUNT):
    read()
""",
    "store_writes": """
import attrs
import bookings
from slotwise import Appointment
from slotwise.storage.batched import insert_new
business = bookings.Business(1_010)
business.create_booked(0)
company_id = business.ws.company.get().id
store = business.store
with store.read() as reader:
    booked = reader.find(Appointment, company_id=company_id)[0]
    event = reader.undelivered_events(company_id=company_id, limit=1)[0]
    audit = reader.audit_of(booked.id)[0]
with store.transaction() as tx:
    first_sequence = tx.next_sequence() + 1
built = []
for number in range(1, 1_001):
    resource_id, customer_id, start = business.slot(number)
    appointment = attrs.evolve(
        booked,
        id=f"write-{number}",
        resource_ids=(resource_id,),
        customer_id=customer_id,
        start=start,
        end=start + bookings.SLOT,
    )
    built.append((
        appointment,
        attrs.evolve(
            event,
            id=f"event-{number}",
            entity_id=appointment.id,
            sequence=first_sequence + number - 1,
        ),
        attrs.evolve(audit, id=f"audit-{number}", appointment_id=appointment.id),
    ))
for appointment, event, audit in built[:COUNT]:
    with store.transaction(locks=["resource"]) as tx:
        insert_new(tx, appointment)
        tx.next_sequence()  # the event's number, drawn as a booking draws it
        insert_new(tx, event)
        insert_new(tx, audit)
""",
}


def booking_without(part: str) -> str:
    """Return the ``booking`` script with *part* (a key of ``_BOOKING_PARTS``) made a no-op."""
    return f"from slotwise.booking import creation\n{_BOOKING_PARTS[part]}\n" + _SCRIPTS["booking"]


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


def per_operation(
    figure: str, count: int, seeds: Sequence[int] = (), *, script: str | None = None
) -> dict[str, object]:
    """
    Measure one figure: (instructions with *count* operations - without) / *count*; with
    *seeds*, once per hash seed, and the mean of them. *script* replaces the figure's own.
    """
    script = _SCRIPTS[figure] if script is None else script
    each = [round(_one_operation(script, count, seed)) for seed in seeds or [None]]
    report: dict[str, object] = {
        "figure": figure,
        "count": count,
        "instructions_per_operation": round(statistics.fmean(each)),
    }
    if seeds:
        report.update(seeds=list(seeds), per_seed=each)
    return report


def _one_operation(script: str, count: int, seed: int | None) -> float:
    """(instructions with *count* operations - with none) / *count*, under hash seed *seed*."""
    seeded = () if seed is None else (seed,)  # no seed: the environment's, as inherited
    base = instructions(script, 0, *seeded)
    return (instructions(script, count, *seeded) - base) / count


def booking_parts(count: int, seeds: Sequence[int] = ()) -> list[dict[str, object]]:
    """
    Return each of :data:`PARTS` measured alone (``store_writes`` at most ``_STORE_WRITES_MAX``
    times), then their sum (``booking_parts``).
    """
    parts = [
        per_operation(
            part, min(count, _STORE_WRITES_MAX) if part == "store_writes" else count, seeds
        )
        for part in PARTS
    ]
    total = sum(cast(int, part["instructions_per_operation"]) for part in parts)
    summed = {
        "figure": "booking_parts",
        "instructions_per_operation": total,
        "parts": {str(part["figure"]): part["instructions_per_operation"] for part in parts},
    }
    return [*parts, summed]


def main(argv: Sequence[str] | None = None) -> int:
    """Print one JSON line per figure; return the exit status."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[1] if __doc__ else None)
    parser.add_argument(
        "--figures", nargs="+", choices=[*FIGURES, "booking_parts"], default=list(FIGURES)
    )
    parser.add_argument("--count", type=int, default=200, help="operations counted")
    parser.add_argument(
        "--seeds",
        type=int,
        nargs="+",
        default=[],
        help="hash seeds to count under, one run each (the figure is their mean)",
    )
    parser.add_argument(
        "--without",
        nargs="+",
        choices=sorted(_BOOKING_PARTS),
        default=[],
        metavar="PART",
        help="also count a booking with each PART made a no-op (what the part costs in place)",
    )
    args = parser.parse_args(argv)
    if args.count < 1:
        parser.error("--count must be at least 1")
    if "store_writes" in args.figures and args.count > _STORE_WRITES_MAX:
        parser.error(f"--count must be at most {_STORE_WRITES_MAX:,} with store_writes")
    if shutil.which("valgrind") is None:
        print("instructions.py: valgrind is not on the PATH", file=sys.stderr)
        return 1
    for figure in args.figures:
        if figure == "booking_parts":
            for report in booking_parts(args.count, args.seeds):
                print(json.dumps(report), flush=True)
            continue
        count = args.count if figure != "availability" else max(1, args.count // 20)
        print(json.dumps(per_operation(figure, count, args.seeds)), flush=True)
    for part in args.without:
        report = per_operation("booking", args.count, args.seeds, script=booking_without(part))
        report["figure"] = f"booking-without-{part}"
        print(json.dumps(report), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
