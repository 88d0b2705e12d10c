"""
Bookings per second on ``MemoryStore`` (issue 4: "bookings per second on MemoryStore").

Usage::

    python benchmarks/bookings.py [--bookings N] [--threads T ...] [--scenario NAME ...]
                                  [--repeat K]

Each run builds a fresh business through the public API: a ``Scheduler`` on a ``MemoryStore``
with a ``ManualClock`` (standing still, so no hold expires during a run) and ``SequentialIds``;
one New York location open around the clock with a book-ahead long enough for the run; a
30-minute service on a 30-minute grid; 20 resources and 100 customers. Booking *i* takes resource
``i % 20`` at the next free half hour of that resource, so slots never run out and every booking
goes through the full slot check (the availability engine, inside the unit of work).

Scenarios (each with 1 and 4 threads by default; thread *k* books every booking *i* with
``i % T == k``, all threads released together by a barrier):

``hold_then_book``  ``create(...)`` an IN hold for a customer, then ``book(id)``: two units of
                    work per booking;
``create_booked``   ``create(..., complete_booking="BK")`` for a customer: one unit of work.

Timed (``time.perf_counter``): from the barrier's release to the last thread's end; with
``--repeat K`` the best of K runs (each on a fresh business) counts. Prints one JSON line per
scenario and thread count:
``{"scenario": "create_booked/1-thread", "bookings": N, "seconds": S, "per_second": R}``.
Exits with status 1 if any booking failed or the store does not hold exactly N booked
appointments afterwards.
"""

from __future__ import annotations

import argparse
import json
import sys
import threading
import time
from collections.abc import Callable, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

from slotwise import (
    Appointment,
    AppointmentStatus,
    BookingWindow,
    BusinessHours,
    LocationSettings,
    MemoryStore,
    Scheduler,
    Workspace,
)
from slotwise.testing import ManualClock, SequentialIds

NOW = datetime(2026, 1, 5, 12, 0, tzinfo=UTC)
FIRST_SLOT = datetime(2026, 1, 6, 5, 0, tzinfo=UTC)  # Tuesday 00:00 in New York
SLOT = timedelta(minutes=30)
RESOURCES = 20
CUSTOMERS = 100
SLOTS_PER_DAY = 48
SCENARIOS = ("hold_then_book", "create_booked")


class Business:
    """A fresh store with one location, one service, resources and customers, ready to book."""

    def __init__(self, bookings: int) -> None:
        days = -(-bookings // (RESOURCES * SLOTS_PER_DAY)) + 2
        self.store = MemoryStore()
        scheduler = Scheduler(self.store, clock=ManualClock(NOW), ids=SequentialIds())
        company = scheduler.create_company(name="Bench Spa", timezone="America/New_York")
        self.ws: Workspace = scheduler.for_company(company.id)
        self.ws.locations.create(
            name="Downtown",
            business_hours=BusinessHours.always(),
            settings=LocationSettings(
                booking_window=BookingWindow(book_ahead_unit="days", book_ahead_value=days)
            ),
        )
        self.service_id = self.ws.services.create(
            name="Cut", duration=30, booking_interval=30, reason="bench"
        ).id
        self.resource_ids = [
            self.ws.resources.create(name=f"Resource {n}", reason="bench").id
            for n in range(RESOURCES)
        ]
        self.customer_ids = [
            self.ws.customers.create(first_name=f"Customer{n}", email=f"c{n}@example.com").id
            for n in range(CUSTOMERS)
        ]

    def slot(self, number: int) -> tuple[str, str, datetime]:
        """Return (resource id, customer id, start) of booking *number*."""
        start = FIRST_SLOT + (number // RESOURCES) * SLOT
        customer = self.customer_ids[number % CUSTOMERS]
        return self.resource_ids[number % RESOURCES], customer, start

    def hold_then_book(self, number: int) -> None:
        """Hold booking *number*'s slot for its customer, then book the hold."""
        resource_id, customer_id, start = self.slot(number)
        ops = self.ws.appointments
        held = ops.create(
            self.service_id, start, start + SLOT, resource_id=resource_id, customer_id=customer_id
        )
        ops.book(held.id)

    def create_booked(self, number: int) -> None:
        """Book booking *number*'s slot at once for its customer."""
        resource_id, customer_id, start = self.slot(number)
        self.ws.appointments.create(
            self.service_id,
            start,
            start + SLOT,
            resource_id=resource_id,
            customer_id=customer_id,
            complete_booking="BK",
        )

    def booked(self) -> int:
        """Return how many BK appointments the store holds."""
        with self.store.read() as reader:
            appointments = reader.find(Appointment, company_id=None)
        return sum(1 for a in appointments if a.status is AppointmentStatus.BOOKED)


def run(scenario: str, bookings: int, threads: int) -> dict[str, Any]:
    """Time *bookings* bookings of *scenario* in *threads* threads on a fresh business."""
    business = Business(bookings)
    book: Callable[[int], None] = getattr(business, scenario)
    barrier = threading.Barrier(threads + 1)
    failures: list[BaseException] = []

    def work(offset: int) -> None:
        barrier.wait()
        try:
            for number in range(offset, bookings, threads):
                book(number)
        except BaseException as error:  # reported below; the run is then invalid
            failures.append(error)

    workers = [threading.Thread(target=work, args=(k,)) for k in range(threads)]
    for worker in workers:
        worker.start()
    barrier.wait()
    began = time.perf_counter()
    for worker in workers:
        worker.join()
    seconds = time.perf_counter() - began
    if failures:
        raise RuntimeError(f"{scenario}: {len(failures)} thread(s) failed") from failures[0]
    made = business.booked()
    if made != bookings:
        raise RuntimeError(f"{scenario}: {made} booked appointments, expected {bookings}")
    label = f"{scenario}/{threads}-thread" + ("s" if threads > 1 else "")
    return {
        "scenario": label,
        "bookings": bookings,
        "seconds": round(seconds, 6),
        "per_second": round(bookings / seconds, 1),
    }


def main(argv: Sequence[str] | None = None) -> int:
    """Run the scenarios and print one JSON line each; return the exit status."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[1] if __doc__ else None)
    parser.add_argument("--bookings", type=int, default=20_000, help="bookings per run")
    parser.add_argument("--threads", type=int, nargs="+", default=[1, 4], help="thread counts")
    parser.add_argument("--scenario", nargs="+", choices=SCENARIOS, default=list(SCENARIOS))
    parser.add_argument("--repeat", type=int, default=1, help="timed runs; the best counts")
    args = parser.parse_args(argv)
    if min(args.bookings, args.repeat, *args.threads) < 1:
        parser.error("--bookings, --threads and --repeat must be at least 1")
    try:
        for scenario in args.scenario:
            for threads in args.threads:
                runs = [run(scenario, args.bookings, threads) for _ in range(args.repeat)]
                best = min(runs, key=lambda report: float(report["seconds"]))
                print(json.dumps(best), flush=True)
    except RuntimeError as error:
        print(f"bookings.py: {error}: {error.__cause__!r}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
