"""
The minimal pure-Python booking: the reference a ``MemoryStore`` booking's instructions are
read against, as the minimal answer is for availability (``peer_timegrid.py``).

Usage::

    python benchmarks/minimal_booking.py [--bookings N]

``bookings.py``'s business (one New York location, one 30-minute service on a 30-minute grid,
20 resources, 100 customers), booked the same way (``create_booked``: booking *i* takes resource
``i % 20`` at its next free half hour, for customer ``i % 100``), by the least code that still
books it correctly: the records pre-parsed into plain attributes and integer minutes, no
framework, no validation beyond the request's own, one lock, and the writes a booking must leave
(the appointment, its place in the resource's and the customer's lists, an audit line and a
numbered outbox event). It checks what a booking of this business must check: the ids and
their company, the resource's location and services, an aware start and an end after it, the
start not in the past, the lead time and the book-ahead window, the slot on the service's grid
and of its length, the location's hours that day, and no appointment of the resource
overlapping the slot with its padding (capacity one).

What it leaves out, because slotwise's booking does it and this business never needs it: round
robin, groups and capacity above one, blocks, allocations, resource hours, other time zones for
resources, DST folds, customer limits, booking fields, holds and their expiry, idempotency,
reminders, external busy time, rollback of a failed write (it writes only after every check),
and more than one company. So its cost is a lower bound for a booking, not a rival engine.

Prints one JSON line: ``{"bookings", "seconds", "per_second"}``; ``instructions.py --figures
minimal_booking`` counts its instructions per booking beside ``booking``'s. Exits with status 1
if the bookings are not exactly the slots ``bookings.py``'s business books, or a second booking
of a taken slot is not refused.
"""

from __future__ import annotations

import argparse
import bisect
import json
import sys
import threading
import time
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

from bookings import CUSTOMERS, FIRST_SLOT, NOW, RESOURCES, SLOT, SLOTS_PER_DAY

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_MINUTE = timedelta(minutes=1)


class Refused(Exception):
    """A booking the rules refuse (the reason in the message)."""


class Appointment:
    """The stored booking: plain attributes, checked before it is built."""

    __slots__ = (
        "company_id",
        "created_at",
        "customer_id",
        "end",
        "id",
        "location_id",
        "resource_id",
        "service_id",
        "start",
        "status",
    )

    def __init__(
        self,
        appointment_id: str,
        company_id: str,
        location_id: str,
        service_id: str,
        resource_id: str,
        customer_id: str,
        status: str,
        start: datetime,
        end: datetime,
        created_at: datetime,
    ) -> None:
        self.id = appointment_id
        self.company_id = company_id
        self.location_id = location_id
        self.service_id = service_id
        self.resource_id = resource_id
        self.customer_id = customer_id
        self.status = status
        self.start = start
        self.end = end
        self.created_at = created_at


class MinimalStore:
    """One company's records, pre-parsed, and the lists a booking keeps up to date."""

    def __init__(self, bookings: int) -> None:
        days = -(-bookings // (RESOURCES * SLOTS_PER_DAY)) + 2
        self.lock = threading.Lock()
        self.company_id = "c"
        self.location = ("l", "c", ZoneInfo("America/New_York"))
        # Weekday -> open intervals in minutes of the day (open around the clock).
        self.hours = dict.fromkeys(range(7), ((0, 1440),))
        self.lead_minutes = 0
        self.ahead = timedelta(days=days)
        # Service id -> (company, location, duration, step, padding).
        self.services = {"s": ("c", "l", 30, 30, 0)}
        # Resource id -> (company, location, the services it takes).
        self.resources = {f"r{n}": ("c", "l", frozenset({"s"})) for n in range(RESOURCES)}
        self.customers = {f"u{n}": "c" for n in range(CUSTOMERS)}
        self.appointments: dict[str, Appointment] = {}
        # Resource id -> its appointments' (start minute, end minute, id), in start order.
        self.taken: dict[str, list[tuple[int, int, str]]] = {r: [] for r in self.resources}
        self.by_customer: dict[str, list[str]] = {}
        self.by_location: list[str] = []
        self.audit: list[tuple[str, str, str, datetime]] = []
        self.outbox: list[tuple[int, str, str, str, datetime]] = []
        self.next_id = 0

    def create_booked(
        self,
        service_id: str,
        start: datetime,
        end: datetime,
        *,
        resource_id: str,
        customer_id: str,
        now: datetime,
    ) -> Appointment:
        """Book *resource_id* for *customer_id* from *start* to *end*, or raise ``Refused``."""
        if not isinstance(start, datetime) or start.utcoffset() is None:
            raise Refused("start must be an aware datetime")
        if not isinstance(end, datetime) or end.utcoffset() is None:
            raise Refused("end must be an aware datetime")
        if end <= start:
            raise Refused("end must be after start")
        with self.lock:
            service = self.services.get(service_id)
            if service is None or service[0] != self.company_id:
                raise Refused("no such service")
            _, location_id, duration, step, padding = service
            resource = self.resources.get(resource_id)
            if resource is None or resource[0] != self.company_id:
                raise Refused("no such resource")
            if resource[1] != location_id or service_id not in resource[2]:
                raise Refused("the resource does not take the service here")
            if self.customers.get(customer_id) != self.company_id:
                raise Refused("no such customer")
            if start < now:
                raise Refused("the start is in the past")
            if start < now + timedelta(minutes=self.lead_minutes) or start > now + self.ahead:
                raise Refused("outside the booking window")
            local = start.astimezone(self.location[2])
            minute = local.hour * 60 + local.minute
            length = (end - start) // _MINUTE
            if local.second or local.microsecond or length != duration or minute % step:
                raise Refused("not a slot of the service")
            if not any(
                o <= minute and minute + length <= c for o, c in self.hours[local.weekday()]
            ):
                raise Refused("closed")
            # Occupied time runs from an appointment's start to its end plus padding.
            first = (start - _EPOCH) // _MINUTE
            last = first + length
            taken = self.taken[resource_id]
            at = bisect.bisect_left(taken, (last + padding,))
            if at and taken[at - 1][1] + padding > first:
                raise Refused("taken")
            self.next_id += 1
            appointment_id = f"a{self.next_id}"
            appointment = Appointment(
                appointment_id,
                self.company_id,
                location_id,
                service_id,
                resource_id,
                customer_id,
                "BK",
                start.astimezone(UTC),
                end.astimezone(UTC),
                now,
            )
            self.appointments[appointment_id] = appointment
            taken.insert(at, (first, last, appointment_id))
            self.by_customer.setdefault(customer_id, []).append(appointment_id)
            self.by_location.append(appointment_id)
            self.audit.append((appointment_id, "create_booked", "BK", now))
            self.outbox.append(
                (len(self.outbox) + 1, "booking_confirmation", appointment_id, location_id, now)
            )
            return appointment


def slot(number: int) -> tuple[str, str, datetime]:
    """Return (resource id, customer id, start) of booking *number*, as ``bookings.py``'s."""
    start = FIRST_SLOT + (number // RESOURCES) * SLOT
    return f"r{number % RESOURCES}", f"u{number % CUSTOMERS}", start


def book(store: MinimalStore, number: int) -> Appointment:
    """Make booking *number*."""
    resource_id, customer_id, start = slot(number)
    return store.create_booked(
        "s", start, start + SLOT, resource_id=resource_id, customer_id=customer_id, now=NOW
    )


def agrees(bookings: int) -> bool:
    """Tell whether the minimal store books exactly the slotwise business's slots, and no more."""
    from bookings import Business

    from slotwise import Appointment as Booked

    business = Business(bookings)
    store = MinimalStore(bookings)
    for number in range(bookings):
        business.create_booked(number)
        book(store, number)
    with business.store.read() as reader:
        theirs = sorted((a.resource_ids[0], a.start) for a in reader.find(Booked, company_id=None))
    ours = sorted(
        (business.resource_ids[int(a.resource_id[1:])], a.start)
        for a in store.appointments.values()
    )
    try:
        book(store, 0)
    except Refused:
        return theirs == ours
    return False


def main(argv: Sequence[str] | None = None) -> int:
    """Time the minimal bookings; check they agree with slotwise's."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[1] if __doc__ else None)
    parser.add_argument("--bookings", type=int, default=20_000, help="bookings timed")
    args = parser.parse_args(argv)
    if not agrees(200):
        print("the minimal booking disagrees with slotwise's", file=sys.stderr)
        return 1
    store = MinimalStore(args.bookings)
    began = time.perf_counter()
    for number in range(args.bookings):
        book(store, number)
    seconds = time.perf_counter() - began
    line = {"bookings": args.bookings, "seconds": round(seconds, 4)}
    print(json.dumps(line | {"per_second": round(args.bookings / seconds)}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
