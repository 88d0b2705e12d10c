"""
The writer processes of ``test_sql_faults.py``: book appointments on a SQLite file until killed.

Run as a script (``python faults_worker.py WORLD_JSON``), it is a fork server: it imports
slotwise and SQLAlchemy and warms slotwise's record codec once (about a second of CPU, which
fifty fresh interpreters would pay fifty times), then reads commands from standard input, one
a line. ``run K`` forks writer K, which opens its own ``SQLStore`` on the file and books
appointments one after the other; the test kills the writer with SIGKILL. The server never
opens the test's file, and closes its warm-up store before it forks, so no SQLite connection
ever crosses a fork. ``quit`` (or the end of standard input) ends the server.

Everything goes to standard output as one line per ``os.write`` (each under ``PIPE_BUF``, so the
lines of the server and its writer never interleave):

``pid K PID``         writer K was forked as process PID;
``ready K``           writer K opened the store and starts booking;
``begin K``/``end K`` writer K asks for a unit of work / committed it (so the test knows
                      whether its kill landed inside one);
``ack K ID``          writer K's booking ID was committed (the call returned);
``full K``            writer K booked its whole day and waits to be killed;
``failed K TEXT``     writer K raised (TEXT is the traceback's last line; it exits with 1);
``reaped K PID CODE`` writer K ended, with ``os.waitstatus_to_exitcode`` CODE (-9: SIGKILL).

Writer K books the slots of its own day, ``first_day + K`` days, resource by resource, with
ids prefixed ``kK-``: no two writers ever ask for the same slot or make the same id.
"""

from __future__ import annotations

import itertools
import json
import os
import signal
import sys
import tempfile
import traceback
from collections.abc import Collection, Iterable, Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import attrs

NOW = datetime(2026, 1, 5, 12, 0, tzinfo=UTC)
FIRST_DAY = datetime(2026, 1, 7, 5, 0, tzinfo=UTC)  # Wednesday 00:00 in New York
SLOT = timedelta(minutes=30)
SLOTS_PER_DAY = 48
RESOURCES = 4
CUSTOMERS = 8
REMINDERS_PER_APPOINTMENT = 2


def _strings(values: Iterable[str]) -> tuple[str, ...]:
    return tuple(values)


@attrs.frozen(kw_only=True)
class World:
    """What the writers book into: the file, the company and its ids, and the first day."""

    path: str
    now: str
    company_id: str
    service_id: str
    resource_ids: tuple[str, ...] = attrs.field(converter=_strings)
    customer_ids: tuple[str, ...] = attrs.field(converter=_strings)
    first_day: str

    def to_json(self) -> str:
        """Return the world as the JSON argument of the script."""
        return json.dumps(attrs.asdict(self))

    @classmethod
    def from_json(cls, text: str) -> World:
        """Read a world written by :meth:`to_json`."""
        return cls(**json.loads(text))

    def slot(self, writer: int, number: int) -> tuple[str, str, datetime]:
        """Return (resource id, customer id, start) of booking *number* of *writer*."""
        day = datetime.fromisoformat(self.first_day) + timedelta(days=writer)
        resources = len(self.resource_ids)
        start = day + (number // resources) * SLOT
        customer = self.customer_ids[number % len(self.customer_ids)]
        return self.resource_ids[number % resources], customer, start

    @property
    def per_writer(self) -> int:
        """How many bookings fill one writer's day."""
        return len(self.resource_ids) * SLOTS_PER_DAY


def make_world(path: Path, *, days: int) -> World:
    """
    Create, through the public API, a company on a new SQLite file at *path* to book into.

    One location open around the clock that takes bookings *days* ahead and sends two
    reminders (so every booking writes an appointment, an audit entry, a booking event and two
    reminders), a 30-minute service, four resources and eight customers.
    """
    from slotwise import (
        BookingWindow,
        BusinessHours,
        LocationSettings,
        Reminder,
        ReminderSchedule,
        Scheduler,
    )
    from slotwise.storage.sql import SQLStore
    from slotwise.testing import ManualClock, SequentialIds

    store = SQLStore(f"sqlite:///{path}")
    try:
        scheduler = Scheduler(store, clock=ManualClock(NOW), ids=SequentialIds("w"))
        company = scheduler.create_company(name="Kill Spa", timezone="America/New_York")
        ws = scheduler.for_company(company.id)
        ws.locations.create(
            name="Downtown",
            business_hours=BusinessHours.always(),
            settings=LocationSettings(
                booking_window=BookingWindow(book_ahead_unit="days", book_ahead_value=days)
            ),
            # Both due after NOW and before every booking's start.
            reminders=ReminderSchedule(
                email_first=Reminder(unit="hours", value=3),
                sms_first=Reminder(unit="hours", value=1),
            ),
        )
        service = ws.services.create(name="Cut", duration=30, booking_interval=30, reason="kill")
        resources = [
            ws.resources.create(name=f"Chair {n}", reason="kill").id for n in range(RESOURCES)
        ]
        customers = [
            ws.customers.create(first_name=f"Guest{n}", email=f"g{n}@example.com").id
            for n in range(CUSTOMERS)
        ]
    finally:
        store.close()
    return World(
        path=str(path),
        now=NOW.isoformat(),
        company_id=company.id,
        service_id=service.id,
        resource_ids=resources,
        customer_ids=customers,
        first_day=FIRST_DAY.isoformat(),
    )


class PrefixIds:
    """An ``IdGenerator`` of ids ``prefix + 1``, ``prefix + 2``, ... (one prefix per writer)."""

    def __init__(self, prefix: str) -> None:
        self._prefix = prefix
        self._counter = itertools.count(1)

    def new_id(self) -> str:
        """Return the next id."""
        return f"{self._prefix}{next(self._counter)}"


def say(*words: object) -> None:
    """Write one line to standard output in one system call (atomic below PIPE_BUF)."""
    os.write(1, (" ".join(str(word) for word in words) + "\n").encode())


def traced_store(path: str, writer: int) -> Any:
    """Return an ``SQLStore`` on *path* that reports the start and commit of each unit of work."""
    from slotwise.storage.sql import SQLStore

    class TracedStore(SQLStore):
        """An ``SQLStore`` saying ``begin K`` and ``end K`` around each unit of work."""

        @contextmanager
        def transaction(self, *, locks: Collection[str] = ()) -> Iterator[Any]:
            """Run one unit of work, saying when it is asked for and when it committed."""
            say("begin", writer)
            with super().transaction(locks=locks) as tx:
                yield tx
            say("end", writer)

    return TracedStore(f"sqlite:///{path}")


def write(world: World, writer: int, *, bookings: int | None = None) -> None:
    """Book *writer*'s slots one by one, acknowledging each; block once the day is full."""
    from slotwise import Scheduler
    from slotwise.testing import ManualClock

    store = traced_store(world.path, writer)
    scheduler = Scheduler(
        store,
        clock=ManualClock(datetime.fromisoformat(world.now)),
        ids=PrefixIds(f"k{writer}-"),
    )
    ws = scheduler.for_company(world.company_id)
    say("ready", writer)
    for number in range(world.per_writer if bookings is None else bookings):
        resource_id, customer_id, start = world.slot(writer, number)
        appointment = ws.appointments.create(
            world.service_id,
            start,
            start + SLOT,
            resource_id=resource_id,
            customer_id=customer_id,
            complete_booking="BK",
        )
        say("ack", writer, appointment.id)
    if bookings is None:
        say("full", writer)
        signal.pause()
    store.close()


def fork_writer(world: World, writer: int) -> None:
    """Fork writer *writer*, report its pid, and report its exit code once it has ended."""
    pid = os.fork()
    if pid == 0:
        code = 0
        try:
            write(world, writer)
        except BaseException as error:
            last = traceback.format_exception_only(error)[-1].strip().replace("\n", " ")
            say("failed", writer, last[:3000])
            code = 1
        finally:
            os._exit(code)
    say("pid", writer, pid)
    _, status = os.waitpid(pid, 0)
    say("reaped", writer, pid, os.waitstatus_to_exitcode(status))


def warm_up() -> None:
    """
    Book twice on a scratch file, so forked writers start with slotwise's caches filled.

    The record codec builds its (process-wide) converters on first use, which makes a cold
    first booking ten times slower than the next; SQLAlchemy's statement cache belongs to an
    engine and stays cold. The scratch store is closed before any fork.
    """
    with tempfile.TemporaryDirectory(prefix="slotwise-warm-") as directory:
        scratch = make_world(Path(directory) / "warm.db", days=7)
        with open(os.devnull, "w") as quiet, redirect_fd(quiet.fileno()):
            write(scratch, 0, bookings=2)


@contextmanager
def redirect_fd(target: int) -> Iterator[None]:
    """Point file descriptor 1 at *target* for the block (the warm-up's lines are not news)."""
    saved = os.dup(1)
    os.dup2(target, 1)
    try:
        yield
    finally:
        os.dup2(saved, 1)
        os.close(saved)


def serve(argv: Sequence[str]) -> None:
    """Warm up, then fork a writer for every ``run K`` line on standard input."""
    world = World.from_json(argv[0])
    warm_up()
    for line in sys.stdin:
        command: list[Any] = line.split()
        if command == ["quit"]:
            break
        if len(command) == 2 and command[0] == "run":
            fork_writer(world, int(command[1]))
        else:
            say("unknown", line.strip())


if __name__ == "__main__":
    serve(sys.argv[1:])
