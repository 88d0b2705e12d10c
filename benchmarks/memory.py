"""
Memory a ``MemoryStore`` holds per stored appointment, and per booking (issue 23).

Usage::

    python benchmarks/memory.py [--figures appointment booking] [--count N]

Both figures use ``bookings.py``'s business (one location, a 30-minute service, 20 resources,
100 customers) on a fresh ``MemoryStore``; appointment *i* takes resource ``i % 20`` at its next
free half hour for customer ``i % 100``, as in ``bookings.py``. Memory is what ``tracemalloc``
sees allocated and still held after ``gc.collect()``, from after 200 warm-up appointments to
after *N* more, divided by *N*:

``appointment``  BK ``Appointment`` records inserted with ``tx.insert`` (1,000 a unit of work),
                 each with its own ``created_at``: the record, its values and the store's tables
                 and indexes, nothing else;
``booking``      ``create(..., complete_booking="BK")`` calls: everything a booking leaves in
                 the store (the appointment, its audit entry, its ``BookingConfirmation`` outbox
                 event with its payload, and their indexes).

Prints one JSON line per figure: ``{"figure", "count", "bytes_per_appointment"}``.
"""

from __future__ import annotations

import argparse
import gc
import json
import sys
import tracemalloc
from collections.abc import Callable, Sequence
from datetime import timedelta

import bookings

from slotwise import Appointment, AppointmentStatus

FIGURES = ("appointment", "booking")
WARM_UP = 200
_BATCH = 1_000


def _insert(business: bookings.Business, first: int, count: int) -> None:
    """Insert appointments *first* .. *first* + *count* - 1 as records, 1,000 a unit of work."""
    with business.store.read() as reader:
        booked = reader.find(Appointment, company_id=None)[0]
    company_id, location_id = booked.company_id, booked.location_id
    for chunk in range(first, first + count, _BATCH):
        with business.store.transaction() as tx:
            for number in range(chunk, min(chunk + _BATCH, first + count)):
                resource_id, customer_id, start = business.slot(number)
                tx.insert(
                    Appointment(
                        id=f"stored-{number}",
                        company_id=company_id,
                        location_id=location_id,
                        service_id=business.service_id,
                        resource_ids=(resource_id,),
                        customer_id=customer_id,
                        status=AppointmentStatus.BOOKED,
                        start=start,
                        end=start + bookings.SLOT,
                        created_at=bookings.NOW + timedelta(seconds=number),
                    )
                )


def _book(business: bookings.Business, first: int, count: int) -> None:
    """Book appointments *first* .. *first* + *count* - 1 with ``create(..., "BK")``."""
    for number in range(first, first + count):
        business.create_booked(number)


def held_per_appointment(figure: str, count: int) -> float:
    """Return the bytes the store holds per appointment of *figure*, over *count* of them."""
    business = bookings.Business(WARM_UP + count + 10)
    add: Callable[[bookings.Business, int, int], None]
    if figure == "appointment":
        business.create_booked(0)  # its company and location ids are copied
        add = _insert
    else:
        add = _book
    add(business, 1, WARM_UP)
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        add(business, WARM_UP + 1, count)
        gc.collect()
        after = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    return (after - before) / count


def main(argv: Sequence[str] | None = None) -> int:
    """Print one JSON line per figure; return the exit status."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[1] if __doc__ else None)
    parser.add_argument("--figures", nargs="+", choices=FIGURES, default=list(FIGURES))
    parser.add_argument("--count", type=int, default=10_000, help="appointments measured")
    args = parser.parse_args(argv)
    if args.count < 1:
        parser.error("--count must be at least 1")
    for figure in args.figures:
        held = held_per_appointment(figure, args.count)
        report = {"figure": figure, "count": args.count, "bytes_per_appointment": round(held)}
        print(json.dumps(report), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
