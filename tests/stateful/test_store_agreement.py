"""
MemoryStore and every SQLStore agree on the same random programs (STYLE rule 29).

Each example runs one random program of operations through the public API
(``Scheduler(...).for_company(...)``) twice: on a ``MemoryStore`` and on a ``SQLStore`` (a SQLite
file, PostgreSQL or MariaDB; one machine class each). Each side has its own ``ManualClock`` and
``SequentialIds`` starting identically, so ids and times agree. The operations: customers,
resources (create, rename, narrow or widen their hours, delete, recover), resource blocks,
appointments created with every ``complete_booking`` (``None``, ``IN``, ``BK``, ``RS``), with or
without an idempotency key, on slots that are valid or deliberately bad (past, off the grid, too
short, full, an unknown resource, a group too big), book, reserve, confirm, undo-confirm, cancel,
reschedule, no-show, delete, another company's attempts, sweeping expired holds, clock advances
(some by odd microseconds), marking outbox events delivered and reminders sent, availability
searches, and reads by id, audit history, e-mail address and status.

Every step must give equal results on both sides (records compared with ``==``; availability
compared whole, its list of slots included), or both sides must raise the same exception class
with the same ``to_dict()`` (code, message and data fields). Every few steps and at the end, both
stores must hold the same records: ``reader.find(kind, company_id=None)`` for every kind of
``RECORD_KINDS``, plus the undelivered events, the expired holds and the due reminders.

Creating a PostgreSQL schema or MariaDB database takes seconds, so each test opens one schema
(or one SQLite file) and one ``SQLStore`` on it, and builds the starting business there once,
through the API, checking that it equals the MemoryStore's. Every example then puts the schema's
rows back as they were after that build (see :class:`ReusedSchema`), while the memory side builds
the business through the API on a new MemoryStore.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any, ClassVar, TypeVar

import attrs
import pytest
import sqlalchemy
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    Bundle,
    RuleBasedStateMachine,
    initialize,
    invariant,
    multiple,
    precondition,
    rule,
)

from slotwise import BusinessHours, Scheduler, Workspace
from slotwise.errors import SlotwiseError
from slotwise.model import (
    RECORD_KINDS,
    DayWindow,
    OutboxEvent,
    Reminder,
    ReminderSchedule,
    WeeklyHours,
)
from slotwise.storage.memory import MemoryStore
from slotwise.storage.protocol import Reader, Store
from slotwise.storage.sql import SQLStore
from slotwise.storage.sql._schema import (
    counters,
    locks,
    metadata,
    outbox_sequence,
    schema_version,
    spans,
)
from slotwise.testing import ManualClock, SequentialIds
from tests.contract.servers import MARIADB, POSTGRES, Server, server_store

T = TypeVar("T")

CLOCK_START = datetime(2026, 1, 5, 9, 45, tzinfo=UTC)
MORNING = datetime(2026, 1, 5, 10, 0, tzinfo=UTC)
"""05:00 in New York, 15 minutes after the clocks start."""
MIDNIGHT = datetime(2026, 1, 6, 5, 0, tzinfo=UTC)
"""Midnight in New York between January 5 and 6."""
STEP = timedelta(minutes=15)
STARTS = (
    *(MORNING + n * STEP for n in range(12)),
    # Around midnight in New York: 23:30 is the last slot of January 5 and 00:00 the first of
    # January 6; 23:45 would run past midnight, which no day offers.
    *(MIDNIGHT + n * STEP for n in range(-2, 2)),
)
"""Where bookings start: a morning grid, and around midnight."""
DAYS = (date(2026, 1, 5), date(2026, 1, 6))

PEOPLE = (
    ("Ann Lee", "ann@example.com"),
    ("Bo Li", "BO@example.com"),
    # Ann again in other letters: the same customer (decision 19).
    ("Ann Marie de Vries", "ANN@Example.com"),
    ("Cy", "cy@example.com"),
)
BAD_PERSON = ("Dee Dee", "not-an-address")

BOOKINGS = {"cut": ("cut", 1), "group": ("group", 1), "group of 2": ("group", 2)}
"""Service and group size of a booking request: "cut" takes one person, "group" up to two."""

FLAWS: tuple[str | None, ...] = (
    *(None,) * 6,
    "past",
    "off-grid",
    "short",
    "too-many",
    "unknown-resource",
    "no-details",
    "bad-address",
    *(None,) * 6,
)
"""
What is wrong with a requested booking, if anything: a start before the clocks started, 7 minutes
off the grid, 20 minutes long, a group of 3 (above both services' limit), an unknown resource, no
customer details, a malformed address. Hypothesis favours the ends of a list, so good requests
stand there and about a third of the requests are bad. Full slots, past times, closed hours,
blocks, deleted resources and expired holds come from the program itself.
"""

BLOCK_TIMES = ((500, 600), (530, 700), (600, 800), (0, 2400), (700, 600))
"""Resource block windows in New York wall time (the last one is invalid: start after end)."""

RESOURCE_CHANGES = ("rename", "narrow", "widen", "delete", "recover", "blank-name")

OPERATIONS = ("book", "reserve", "confirm", "undo_confirm", "cancel", "no_show", "delete")

_MINUTE = timedelta(minutes=1)
ADVANCES = (
    *(minutes * _MINUTE for minutes in (5, 1, 10, 30, 60, 15, 90)),
    timedelta(seconds=1, microseconds=1),
    5 * _MINUTE,
)
"""Clock steps; the odd one gives later timestamps (created, modified, delivered, hold expiry)
microseconds, which every store must keep exactly."""

READS = ("get", "history", "customer-by-email", "appointments-by-email", "appointments-booked")

KEYS = (None, None, "k1", "K1", "k1 ", None, None)
"""Idempotency keys: mostly none; keys differing only in case or a trailing space are distinct, and
a key sent again with another request is refused (IdempotencyConflict)."""

CHORES = ("deliver", "deliver-bogus", "send-reminders")
"""Mark events delivered (with an unknown id among them too), or due reminders sent."""

FEED_LIMIT = 1000

SETUP_CAP = 3
"""At most this many resources, customers and blocks: steps go to appointments instead."""


@attrs.frozen
class Business:
    """The ids of what :func:`build` made."""

    company: str
    other: str
    services: dict[str, str]
    resource: str
    customer: str
    appointment: str


def build(scheduler: Scheduler) -> Business:
    """
    Set up a New York company open 24x7 with two services, a resource, a customer who booked
    11:00 UTC, and another company.
    """
    company = scheduler.create_company(name="Acme", timezone="America/New_York")
    ws = scheduler.for_company(company.id)
    location = ws.locations.create(
        name="Downtown",
        business_hours=BusinessHours.always(),
        reminders=ReminderSchedule(email_first=Reminder(unit="hours", value=1)),
    )
    assert location.primary_calendar_id is not None
    ws.calendars.update(location.primary_calendar_id, bookings_per_slot=2)
    cut = ws.services.create(name="Cut", duration=30, reason="r")
    group = ws.services.create(
        name="Group", duration=30, padding=15, max_capacity=3, max_group_size=2, reason="r"
    )
    ana = ws.resources.create(name="Ana", reason="r")
    eve = ws.customers.create(first_name="Eve", email="eve@example.com")
    start = MORNING + 4 * STEP
    booked = ws.appointments.create(
        cut.id,
        start,
        start + 2 * STEP,
        resource_id=ana.id,
        customer_id=eve.id,
        complete_booking="BK",
    )
    other = scheduler.create_company(name="Other", timezone="Europe/London")
    return Business(
        company=company.id,
        other=other.id,
        services={"cut": cut.id, "group": group.id},
        resource=ana.id,
        customer=eve.id,
        appointment=booked.id,
    )


class Side:
    """One store with its own clock, ids and scheduler."""

    def __init__(self, store: Store, ids: SequentialIds | None = None) -> None:
        self.store = store
        self.clock = ManualClock(CLOCK_START)
        self.scheduler = Scheduler(store, clock=self.clock, ids=ids or SequentialIds())

    def enter(self, business: Business) -> None:
        """Work as the business's company, and as the other company for foreign calls."""
        self.ws = self.scheduler.for_company(business.company)
        self.other = self.scheduler.for_company(business.other)

    def state(self) -> dict[str, list[Any]]:
        """Return every record of every kind, and the feeds, as one read sees them."""
        with self.store.read() as reader:
            found: dict[str, list[Any]] = {
                kind.__name__: reader.find(kind, company_id=None) for kind in RECORD_KINDS
            }
            found["undelivered_events"] = reader.undelivered_events(
                company_id=None, limit=FEED_LIMIT
            )
            found.update(self.due(reader))
        return found

    def due(self, reader: Reader | None = None) -> dict[str, list[Any]]:
        """Return the feeds that depend on the clock: expired holds and due reminders."""
        if reader is None:
            with self.store.read() as reader:
                return self.due(reader)
        now = self.clock.now()
        return {
            "expired_holds": reader.expired_holds(company_id=None, now=now, limit=FEED_LIMIT),
            "reminders_due": reader.reminders_due(company_id=None, before=now, limit=FEED_LIMIT),
        }


def differences(expected: dict[str, list[Any]], actual: dict[str, list[Any]]) -> str:
    """Describe the kinds whose records differ between two :meth:`Side.state` results."""
    return "".join(
        f"\n{name}:\n  memory: {records!r}\n  sql:    {actual[name]!r}"
        for name, records in expected.items()
        if records != actual[name]
    )


def _outcome(call: Callable[[], T]) -> T | Exception:
    try:
        return call()
    except Exception as error:
        return error


def _describe(outcome: Any) -> str:
    if isinstance(outcome, SlotwiseError):
        return f"{type(outcome).__name__}{outcome.to_dict()!r}"
    if isinstance(outcome, Exception):
        return f"{type(outcome).__name__}({outcome})"
    return repr(outcome)


class StoreAgreement(RuleBasedStateMachine):
    """Random programs run on a MemoryStore and on one SQLStore, which must agree at each step."""

    schema: ClassVar[ReusedSchema | None] = None
    """The test's SQL schema, opened by the ``reused_schema`` fixture."""
    check_every: ClassVar[int] = 5
    """Compare the whole stores after every this many steps (and always at the end)."""

    resources = Bundle("resources")
    customers = Bundle("customers")
    appointments = Bundle("appointments")
    holds = Bundle("holds")
    """Appointments created as holds (whatever became of them since)."""
    blocks = Bundle("blocks")

    def __init__(self) -> None:
        super().__init__()
        assert self.schema is not None, "the reused_schema fixture opens the schema"
        self.memory = Side(MemoryStore())
        self.business = build(self.memory.scheduler)
        self.sql = Side(self.schema.store, self.schema.reset())
        self.memory.enter(self.business)
        self.sql.enter(self.business)
        self.services = self.business.services
        self.steps = 0
        self.checked = 0
        self.broken = False

    # -- running calls on both sides --------------------------------------------------------------

    def both(self, call: Callable[[Side], T]) -> T | None:
        """
        Run *call* on the memory side, then on the SQL side; return the result, or None if both
        raised. The results must be equal, or the exceptions of one class and ``to_dict()``.
        """
        expected = _outcome(lambda: call(self.memory))
        actual = _outcome(lambda: call(self.sql))
        if isinstance(expected, Exception) or isinstance(actual, Exception):
            same = (
                type(expected) is type(actual)
                and str(expected) == str(actual)
                and (
                    not isinstance(expected, SlotwiseError)
                    or not isinstance(actual, SlotwiseError)
                    or expected.to_dict() == actual.to_dict()
                )
            )
        else:
            same = expected == actual
        if not same:
            self.broken = True
            raise AssertionError(
                f"the stores disagree:\n  memory: {_describe(expected)}\n"
                f"  sql:    {_describe(actual)}"
            )
        if isinstance(expected, Exception):
            if not isinstance(expected, SlotwiseError):
                # Both sides crashed alike: not a disagreement, but still a bug.
                self.broken = True
                raise expected
            return None
        return expected

    def in_ws(self, call: Callable[[Workspace], T]) -> T | None:
        """Run *call* on each side's workspace (see :meth:`both`)."""
        return self.both(lambda side: call(side.ws))

    def check_state(self) -> None:
        """Both stores hold equal records of every kind, and equal feeds."""
        self.checked = self.steps
        expected = self.memory.state()
        actual = self.sql.state()
        if expected != actual:
            self.broken = True
            raise AssertionError(
                f"the stores hold different records:{differences(expected, actual)}"
            )

    # -- the records the setup made ---------------------------------------------------------------

    @initialize(target=resources)
    def first_resource(self) -> str:
        """The resource the setup made."""
        return self.business.resource

    @initialize(target=customers)
    def first_customer(self) -> str:
        """The customer the setup made."""
        return self.business.customer

    @initialize(target=appointments)
    def first_appointment(self) -> str:
        """The appointment the setup booked."""
        return self.business.appointment

    # -- rules: customers, resources, blocks ------------------------------------------------------

    @precondition(lambda self: len(self.bundle("customers")) < SETUP_CAP)
    @rule(target=customers, person=st.sampled_from((*PEOPLE, BAD_PERSON)))
    def create_customer(self, person: tuple[str, str]) -> Any:
        """Create a customer (a second one with the same address, or a bad address, is refused)."""
        name, email = person
        first, _, last = name.partition(" ")
        made = self.in_ws(
            lambda ws: ws.customers.create(first_name=first, last_name=last or None, email=email)
        )
        return multiple() if made is None else made.id

    @precondition(lambda self: len(self.bundle("resources")) < SETUP_CAP)
    @rule(target=resources, name=st.sampled_from(("Bea", "Cid")), london=st.booleans())
    def create_resource(self, name: str, london: bool) -> Any:
        """Create a resource, in the location's zone or in London's."""
        fields: dict[str, Any] = {"timezone": "Europe/London"} if london else {}
        made = self.in_ws(lambda ws: ws.resources.create(name=name, reason="r", **fields))
        return multiple() if made is None else made.id

    @rule(resource=resources, change=st.sampled_from(RESOURCE_CHANGES))
    def change_resource(self, resource: str, change: str) -> None:
        """Rename a resource, narrow or widen its hours, delete or recover it."""
        # 06:00-07:00 New York is 11:00-12:00 UTC: half the morning grid, none of midnight.
        narrow = WeeklyHours.every_day(DayWindow(start_time=600, end_time=700))
        calls: dict[str, Callable[[Workspace], Any]] = {
            "rename": lambda ws: ws.resources.update(resource, name="Renamed"),
            "narrow": lambda ws: ws.resources.update(resource, weekly_hours=narrow),
            "widen": lambda ws: ws.resources.update(resource, weekly_hours=WeeklyHours.always()),
            "delete": lambda ws: ws.resources.delete(resource),
            "recover": lambda ws: ws.resources.recover(resource),
            "blank-name": lambda ws: ws.resources.update(resource, name=""),
        }
        self.in_ws(calls[change])

    @precondition(lambda self: len(self.bundle("blocks")) < SETUP_CAP)
    @rule(
        target=blocks,
        resource=resources,
        day=st.sampled_from(DAYS),
        times=st.sampled_from(BLOCK_TIMES),
    )
    def create_block(self, resource: str, day: date, times: tuple[int, int]) -> Any:
        """Block a window of a resource's day (an inverted window is refused)."""
        start_time, end_time = times
        made = self.in_ws(
            lambda ws: ws.resources.create_block(
                resource,
                start_date=day,
                end_date=day,
                start_time=start_time,
                end_time=end_time,
                reason="r",
            )
        )
        return multiple() if made is None else made.id

    @rule(block=blocks)
    def delete_block(self, block: str) -> None:
        """Delete a block (a second delete is refused)."""
        self.in_ws(lambda ws: ws.resources.delete_block(block))

    # -- rules: appointments ----------------------------------------------------------------------

    # A booking request: service and group (BOOKINGS), start, named resources (none: the
    # round robin picks) and maybe a flaw (FLAWS).
    NAMED = st.one_of(st.just(()), st.tuples(resources), st.tuples(resources, resources))

    @staticmethod
    def times(start: datetime, flaw: str | None) -> tuple[datetime, datetime]:
        """Return the start and end of a booking at *start*, spoilt as *flaw* says."""
        if flaw == "past":
            start = CLOCK_START - 2 * STEP
        elif flaw == "off-grid":
            start += timedelta(minutes=7)
        return start, start + timedelta(minutes=20 if flaw == "short" else 30)

    @rule(
        targets=(appointments, holds),
        complete=st.sampled_from((None, "IN")),
        person=st.none() | st.sampled_from(PEOPLE),
        booking=st.sampled_from(tuple(BOOKINGS)),
        start=st.sampled_from(STARTS),
        named=NAMED,
        flaw=st.sampled_from(FLAWS),
        key=st.sampled_from(KEYS),
    )
    def hold(self, complete: Any, person: tuple[str, str] | None, **request: Any) -> Any:
        """Create a hold (with or without customer details) on a good or a bad slot."""
        return self.create(complete=complete, person=person, customer=None, **request)

    @rule(
        target=appointments,
        complete=st.sampled_from(("BK", "RS")),
        person=st.sampled_from(PEOPLE),
        customer=st.none() | customers,
        booking=st.sampled_from(tuple(BOOKINGS)),
        start=st.sampled_from(STARTS),
        named=NAMED,
        flaw=st.sampled_from(FLAWS),
        key=st.sampled_from(KEYS),
    )
    def complete(
        self, complete: Any, person: tuple[str, str], customer: str | None, **request: Any
    ) -> Any:
        """Create a booked or reserved appointment, for a customer or by name and address."""
        return self.create(complete=complete, person=person, customer=customer, **request)

    def create(
        self,
        *,
        booking: str,
        start: datetime,
        named: tuple[str, ...],
        flaw: str | None,
        key: str | None,
        complete: Any,
        person: tuple[str, str] | None,
        customer: str | None,
    ) -> Any:
        """Create an appointment on both sides; return its id, or no value when refused."""
        service, group = BOOKINGS[booking]
        start, end = self.times(start, flaw)
        if flaw == "too-many":
            group = 3
        elif flaw == "unknown-resource":
            named = (*named, "missing")
        elif flaw == "no-details":
            person = customer = None
        elif flaw == "bad-address":
            person, customer = BAD_PERSON, None
        name, email = person or (None, None)
        made = self.in_ws(
            lambda ws: ws.appointments.create(
                self.services[service],
                start,
                end,
                resource_ids=named,
                group_size=group,
                complete_booking=complete,
                name=name,
                email=email,
                customer_id=customer,
                idempotency_key=key,
            )
        )
        return multiple() if made is None else made.id

    @rule(
        hold=holds,
        operation=st.sampled_from(("book", "reserve", "delete")),
        person=st.none() | st.sampled_from((*PEOPLE, BAD_PERSON)),
    )
    def finish_hold(self, hold: str, operation: str, person: tuple[str, str] | None) -> None:
        """Book, reserve or delete a hold (maybe expired, swept, or already finished)."""
        self.operate(appointment=hold, operation=operation, person=person)

    @rule(
        appointment=appointments,
        operation=st.sampled_from(OPERATIONS),
        person=st.none() | st.sampled_from((*PEOPLE, BAD_PERSON)),
    )
    def operate(self, appointment: str, operation: str, person: tuple[str, str] | None) -> None:
        """Book, reserve, confirm, undo, cancel, no-show or delete an appointment, in any status."""
        name, email = person or (None, None)
        calls: dict[str, Callable[[Workspace], Any]] = {
            "book": lambda ws: ws.appointments.book(appointment, name=name, email=email),
            "reserve": lambda ws: ws.appointments.reserve(appointment, name=name, email=email),
            "confirm": lambda ws: ws.appointments.confirm(appointment),
            "undo_confirm": lambda ws: ws.appointments.undo_confirm(appointment),
            "cancel": lambda ws: ws.appointments.cancel(appointment),
            "no_show": lambda ws: ws.appointments.no_show(appointment),
            "delete": lambda ws: ws.appointments.delete(appointment),
        }
        self.in_ws(calls[operation])

    @rule(
        target=appointments,
        appointment=appointments,
        start=st.sampled_from(STARTS),
        named=st.one_of(st.none(), st.tuples(resources)),
        service=st.sampled_from((None, "cut", "group")),
        flaw=st.sampled_from(FLAWS),
    )
    def reschedule(
        self,
        appointment: str,
        start: datetime,
        named: tuple[str, ...] | None,
        service: str | None,
        flaw: str | None,
    ) -> Any:
        """Move an appointment (in any status), maybe to other resources or another service."""
        start, end = self.times(start, flaw)
        if flaw == "unknown-resource":
            named = ("missing",)
        service_id = None if service is None else self.services[service]
        made = self.in_ws(
            lambda ws: ws.appointments.reschedule(
                appointment, start=start, end=end, resource_ids=named, service_id=service_id
            )
        )
        return multiple() if made is None else made.id

    @rule(
        appointment=appointments,
        read=st.sampled_from(READS),
        person=st.sampled_from((*PEOPLE, BAD_PERSON)),
    )
    def look_up(self, appointment: str, read: str, person: tuple[str, str]) -> None:
        """Reads that take other store paths than the state check: by id, audit, e-mail, list."""
        email = person[1]
        calls: dict[str, Callable[[Workspace], Any]] = {
            "get": lambda ws: ws.appointments.get(appointment),
            "history": lambda ws: ws.appointments.history(appointment),
            "customer-by-email": lambda ws: ws.customers.find_by_email(email),
            "appointments-by-email": lambda ws: ws.appointments.list(email=email),
            "appointments-booked": lambda ws: ws.appointments.list(status="BK", limit=5),
        }
        self.in_ws(calls[read])

    def memory_has_expired_holds(self) -> bool:
        """Tell whether a sweep would delete anything (read from the MemoryStore: cheap)."""
        with self.memory.store.read() as reader:
            return bool(reader.expired_holds(company_id=None, now=self.memory.clock.now(), limit=1))

    @rule(appointment=appointments)
    def foreign(self, appointment: str) -> None:
        """Another company may not cancel an appointment (Unauthorized on both sides)."""
        self.both(lambda side: side.other.appointments.cancel(appointment))

    # -- rules: time, housekeeping, availability --------------------------------------------------

    @precondition(lambda self: self.memory_has_expired_holds())
    @rule()
    def sweep(self) -> None:
        """Sweep the expired holds: both sides delete the same ones."""
        self.in_ws(lambda ws: ws.appointments.sweep_expired_holds())

    @rule(by=st.sampled_from(ADVANCES))
    def advance(self, by: timedelta) -> None:
        """Move both clocks forward: the same holds have expired, the same reminders are due."""
        self.both(lambda side: side.clock.advance(by))
        # A hold expires, and a reminder falls due, at an instant (inclusive): time is where
        # the stores' comparisons of instants show.
        self.both(lambda side: side.due())

    @rule(chore=st.sampled_from(CHORES), count=st.integers(0, 3))
    def housekeeping(self, chore: str, count: int) -> None:
        """Mark the oldest events delivered, or the due reminders sent."""
        if chore.startswith("deliver"):
            pending = self.in_ws(lambda ws: ws.outbox.undelivered(limit=100))
            assert pending is not None
            ids = [event.id for event in pending[:count]]
            # An unknown id refuses the whole call: nothing is marked on either side.
            ids += ["nope"] if chore == "deliver-bogus" else []
            self.in_ws(lambda ws: ws.outbox.mark_delivered(ids))
        else:
            due = self.in_ws(lambda ws: ws.reminders.due(limit=100))
            assert due is not None
            ids = [reminder.id for reminder in due[:count]]
            self.in_ws(lambda ws: ws.reminders.mark_sent(ids))

    @rule(
        service=st.sampled_from(("cut", "group")),
        day=st.sampled_from(DAYS),
        resource=st.none() | resources,
    )
    def availability(self, service: str, day: date, resource: str | None) -> None:
        """The available times of a day, for every resource or one, are the same."""
        self.in_ws(
            lambda ws: ws.availability.times(self.services[service], day, day, resource_id=resource)
        )

    @rule(appointment=appointments, day=st.sampled_from(DAYS))
    def reschedule_availability(self, appointment: str, day: date) -> None:
        """The times an appointment could move to are the same."""
        self.in_ws(lambda ws: ws.availability.for_reschedule(appointment, day, day))

    # -- invariants -----------------------------------------------------------------------------

    @invariant()
    def stores_agree(self) -> None:
        """Every few steps, both stores hold the same records."""
        self.steps += 1
        if self.steps % self.check_every == 0:
            self.check_state()

    def teardown(self) -> None:
        """At the end of a program both stores hold the same records."""
        if not self.broken and self.checked != self.steps:
            self.check_state()


class ReusedSchema:
    """
    One SQL schema (or SQLite file) and one SQLStore on it, reused by every example of a test.

    On opening, the starting business is built through the API on the store and on a
    MemoryStore, and both must hold equal records; then the rows of every table are saved.
    :meth:`reset` deletes every row and inserts the saved ones (the idea of ``_empty`` in
    tests/contract/servers.py, plus a restore): one statement per table in one transaction,
    where the build takes nine units of work. :meth:`restart_outbox` sets the outbox numbering.

    ``slotwise_span`` and ``slotwise_lock`` are left alone: a SQL store only ever inserts their
    rows (the longest appointment per resource, one row per lock name), and remembers which
    span rows it committed, so a real store that deleted appointments holds exactly such rows.
    """

    def __init__(self, opened: SQLStore) -> None:
        self.schema = opened.schema
        self.engine = opened.engine
        self.own_engine = False
        if self.engine.dialect.name == "postgresql":
            # Commits that do not wait for the WAL to reach the disk (this engine only): what
            # other units of work see is unchanged, only a server crash could lose them, and a
            # PostgreSQL example runs about twice as fast.
            self.engine = sqlalchemy.create_engine(
                opened.engine.url, connect_args={"options": "-c synchronous_commit=off"}
            )
            self.own_engine = True
        self.store = SQLStore(self.engine, schema=self.schema)
        kept = {schema_version, counters, spans, locks}
        self.tables = [table for table in metadata.sorted_tables if table not in kept]
        try:
            # An emptied schema handed on by server_store() keeps its outbox numbering.
            with self.connect() as conn:
                self.restart_outbox(conn, 1)
                conn.commit()
            self.save_starting_business()
        except BaseException:
            self.close()
            raise

    def save_starting_business(self) -> None:
        """Build the business on the store and on a MemoryStore, compare, save the rows."""
        memory, sql = Side(MemoryStore()), Side(self.store)
        business = build(memory.scheduler)
        assert business == build(sql.scheduler)
        expected, actual = memory.state(), sql.state()
        assert expected == actual, f"the starting business differs:{differences(expected, actual)}"
        # Both sides go on with the same ids and outbox sequence numbers after the build.
        self.next_id = int(memory.scheduler.ids.new_id())
        self.next_sequence = 1 + max(event.sequence for event in expected[OutboxEvent.__name__])
        with self.connect() as conn:
            self.rows = {
                table: [dict(row._mapping) for row in conn.execute(sqlalchemy.select(table))]
                for table in self.tables
            }

    def connect(self) -> sqlalchemy.Connection:
        """Return a connection working in the schema."""
        conn = self.engine.connect()
        conn.execution_options(schema_translate_map={None: self.schema})
        return conn

    def reset(self) -> SequentialIds:
        """Put the saved rows back; return the ids the SQL side goes on with."""
        with self.connect() as conn:
            for table in reversed(self.tables):
                conn.execute(table.delete())
            for table in self.tables:
                if self.rows[table]:
                    conn.execute(table.insert(), self.rows[table])
            self.restart_outbox(conn, self.next_sequence)
            conn.commit()
        return SequentialIds(start=self.next_id)

    def restart_outbox(self, conn: sqlalchemy.Connection, next_sequence: int) -> None:
        """Make *next_sequence* the store's next outbox sequence number."""
        # Sequence numbers end up in the OutboxEvent records compared, so both sides must count
        # alike. SQLite counts in slotwise_counter (its last number), the servers in a sequence.
        dialect = self.engine.dialect
        if dialect.name == "sqlite":
            conn.execute(counters.update().values(value=next_sequence - 1))
            return
        # Only the servers have schemas (SQLAlchemy 2.0.0 cannot quote an empty name).
        schema = dialect.identifier_preparer.quote_schema(self.schema or "")
        name = f"{schema}.{outbox_sequence.name}"
        if dialect.name == "postgresql":
            conn.execute(
                sqlalchemy.text("SELECT setval(:name, :value, false)"),
                {"name": name, "value": next_sequence},
            )
        else:
            conn.exec_driver_sql(f"ALTER SEQUENCE {name} RESTART WITH {next_sequence}")

    def close(self) -> None:
        """Close the store, and dispose of the engine made here (the opener drops the schema)."""
        self.store.close()
        if self.own_engine:
            self.engine.dispose()


def _scratch_dir() -> str | None:
    """Return a tmpfs directory when there is one, else None (the default temporary directory)."""
    # The store syncs the SQLite file on every commit (synchronous=FULL); on tmpfs a sync is
    # free, so the same SQL runs several times faster, and nothing else differs.
    shm = "/dev/shm"
    return shm if os.path.isdir(shm) and os.access(shm, os.W_OK) else None


@contextmanager
def _sqlite_file() -> Iterator[SQLStore]:
    directory = Path(tempfile.mkdtemp(prefix="slotwise-agreement-", dir=_scratch_dir()))
    try:
        store = SQLStore(f"sqlite:///{directory / 'slotwise.db'}")
        try:
            yield store
        finally:
            store.close()
    finally:
        shutil.rmtree(directory, ignore_errors=True)


def _server(server: Server) -> Callable[[], AbstractContextManager[SQLStore]]:
    return lambda: server_store(server)


@pytest.fixture
def reused_schema(request: pytest.FixtureRequest) -> Iterator[None]:
    """Open the test's one schema for its machine; every example resets and reuses it."""
    machine: type[StoreAgreement] = request.cls.machine
    opener: Callable[[], AbstractContextManager[SQLStore]] = request.cls.opener
    with opener() as store:
        schema = machine.schema = ReusedSchema(store)
        try:
            yield
        finally:
            machine.schema = None
            schema.close()


class SQLiteAgreement(StoreAgreement):
    """The agreement machine against a SQLite file."""


class PostgresAgreement(StoreAgreement):
    """The agreement machine against PostgreSQL."""


class MariaDBAgreement(StoreAgreement):
    """The agreement machine against MariaDB."""


_PROFILE_EXAMPLES = settings().max_examples
# Settings given here win over the loaded profile's; the rest of the profile still applies (ci:
# derandomized, no example database). So CI runs exactly 200 programs of 20 steps per SQL store,
# the minimum, in about a minute for all three stores on a 2-core machine, instead of the
# ci profile's 300; only a profile asking for more (deep) raises it.
# No health check is suppressed: too_slow times only the drawing of rules and their arguments,
# not running them, so the slow SQL side cannot trip it.
AGREEMENT = settings(
    max_examples=_PROFILE_EXAMPLES if _PROFILE_EXAMPLES > 300 else 200,
    stateful_step_count=20,
    deadline=None,
)


@pytest.mark.usefixtures("reused_schema")
class TestSQLiteStoreAgreement(SQLiteAgreement.TestCase):  # type: ignore[misc,valid-type]
    """MemoryStore and SQLStore on a SQLite file agree."""

    machine = SQLiteAgreement
    opener = staticmethod(_sqlite_file)
    settings = AGREEMENT


@pytest.mark.external_service
@pytest.mark.usefixtures("reused_schema")
class TestPostgresStoreAgreement(PostgresAgreement.TestCase):  # type: ignore[misc,valid-type]
    """MemoryStore and SQLStore on PostgreSQL agree."""

    machine = PostgresAgreement
    opener = staticmethod(_server(POSTGRES))
    settings = AGREEMENT


@pytest.mark.external_service
@pytest.mark.usefixtures("reused_schema")
class TestMariaDBStoreAgreement(MariaDBAgreement.TestCase):  # type: ignore[misc,valid-type]
    """MemoryStore and SQLStore on MariaDB agree."""

    machine = MariaDBAgreement
    opener = staticmethod(_server(MARIADB))
    settings = AGREEMENT
