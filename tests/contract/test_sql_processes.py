"""
Bookings racing from separate OS processes on each SQL store (docs/sql.md, "Running many
processes"): the process-level counterpart of ``tests/unit/test_booking_concurrency.py``.

Each race starts 8 worker processes (``tests/contract/processes.py``), each with its own
``SQLStore`` on the same file or schema and its own id prefix; they open their store, then wait
at a ``multiprocessing.Barrier`` and are released together. Workers are started with
``forkserver``: the fork server is a fresh single-threaded process that has imported slotwise
and the drivers (so a child starts in milliseconds, where ``spawn`` would re-import everything
per child) but has never opened an engine, so no child inherits the parent's pooled
connections or pytest's threads, as ``fork`` would.

Every race counts successes exactly, allows only the documented refusal (``SlotUnavailable``:
the time is taken) and fails on anything else reaching a caller: a driver error, a
``StoreError``, and also ``ConflictError`` (the lock timeout is generous so that none occurs;
the store retries taking locks itself, and a conflict here would mean a caller saw one).
"""

from __future__ import annotations

import itertools
import multiprocessing
import queue
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import AbstractContextManager, suppress
from datetime import UTC, datetime, timedelta
from multiprocessing.process import BaseProcess
from multiprocessing.queues import Queue
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from slotwise import Scheduler
from slotwise.errors import SlotUnavailable
from slotwise.model import Appointment, AppointmentStatus
from slotwise.storage.sql import SQLStore
from slotwise.testing import ManualClock, SequentialIds

from .pooler import PGBOUNCER_SERVER
from .processes import Plan, Report, book, qualified
from .servers import MARIADB, POSTGRES, server_store, sqlite_store

NOW = datetime(2026, 1, 5, 14, 0, tzinfo=UTC)  # Monday 09:00 in New York
NY = ZoneInfo("America/New_York")
DAY_OPENS = datetime(2026, 1, 6, 9, 0, tzinfo=NY)  # Tuesday; default hours are 09:00-17:00
SLOT = datetime(2026, 1, 6, 10, 0, tzinfo=NY)
WORKERS = 8
ATTEMPTS = 50
LOCK_TIMEOUT = 20.0
"""Generous, so a worker waiting behind the other seven never gives up (``ConflictError``)."""
BARRIER_TIMEOUT = 60.0
RACE_DEADLINE = 240.0
"""How long the parent waits for every report before it kills the workers and fails."""
REFUSAL = qualified(SlotUnavailable)

CONTEXT = multiprocessing.get_context("forkserver")
# Installed packages only: the fork server (Python 3.11) ignores the parent's sys.path, so it
# could import another directory's ``tests``; each child imports the small worker module itself.
# A missing driver is skipped by the fork server; its tests skip on servers.py's checks.
CONTEXT.set_forkserver_preload(["slotwise.storage.sql", "psycopg", "pymysql"])


def _sqlite() -> AbstractContextManager[SQLStore]:
    """Open a SQLStore on a new SQLite file."""
    return sqlite_store()


def _postgres() -> AbstractContextManager[SQLStore]:
    """Open a SQLStore in a new PostgreSQL schema."""
    return server_store(POSTGRES)


def _mariadb() -> AbstractContextManager[SQLStore]:
    """Open a SQLStore in a new MariaDB database."""
    return server_store(MARIADB)


def _pgbouncer() -> AbstractContextManager[SQLStore]:
    """Open a SQLStore in a new PostgreSQL schema through PgBouncer in transaction mode."""
    return server_store(PGBOUNCER_SERVER)


SQL_STORES = [
    pytest.param(_sqlite, id="sqlite"),
    pytest.param(_postgres, id="postgres", marks=pytest.mark.external_service),
    pytest.param(_pgbouncer, id="pgbouncer", marks=pytest.mark.external_service),
    pytest.param(_mariadb, id="mariadb", marks=pytest.mark.external_service),
]


@pytest.fixture(params=SQL_STORES)
def store(request: pytest.FixtureRequest) -> Iterator[SQLStore]:
    """A fresh SQLStore of each SQL database; workers open their own on its URL and schema."""
    with request.param() as opened:
        yield opened


class _World:
    """A company whose one location has one resource and one service, set up by the parent."""

    def __init__(
        self, store: SQLStore, *, bookings_per_slot: int, duration: int, interval: int
    ) -> None:
        self.store = store
        scheduler = Scheduler(store, clock=ManualClock(NOW), ids=SequentialIds())
        company = scheduler.create_company(name="Acme", timezone="America/New_York")
        ws = scheduler.for_company(company.id)
        location = ws.locations.create(name="Downtown")
        assert location.primary_calendar_id is not None
        ws.calendars.update(location.primary_calendar_id, bookings_per_slot=bookings_per_slot)
        self.company_id = company.id
        self.length = timedelta(minutes=duration)
        self.service = ws.services.create(
            name="Cut", duration=duration, booking_interval=interval, reason="r"
        )
        self.resource = ws.resources.create(name="Ana", reason="r")

    def plan(self, starts: list[datetime], *, seed: int = 0, **options: Any) -> Plan:
        """Return the plan of a race trying *starts* on this world's store."""
        values: dict[str, Any] = {
            "attempts": ATTEMPTS,
            "lock_timeout": LOCK_TIMEOUT,
            "barrier_timeout": BARRIER_TIMEOUT,
            "pool_mode": self.store.pool_mode,
        }
        values.update(options)
        return Plan(
            url=self.store.engine.url.render_as_string(hide_password=False),
            schema=self.store.schema,
            company_id=self.company_id,
            service_id=self.service.id,
            resource_id=self.resource.id,
            now=NOW,
            starts=tuple(starts),
            length=self.length,
            seed=seed,
            **values,
        )

    def appointments(self) -> list[Appointment]:
        """Return every stored appointment of the company, in any status."""
        with self.store.read() as reader:
            return reader.find(Appointment, company_id=self.company_id)


def race(plan: Plan, workers: int = WORKERS, *, parties: int | None = None) -> list[Report]:
    """
    Run :func:`processes.book` in *workers* processes released together by a barrier of
    *parties* (default: *workers*); return their reports, ordered by worker.

    Fails, after killing whatever still runs, when a worker hangs past ``RACE_DEADLINE``, dies
    without reporting, or exits with a non-zero status.
    """
    barrier = CONTEXT.Barrier(parties or workers, timeout=plan.barrier_timeout)
    reports: Queue[Report] = CONTEXT.Queue()
    children: list[BaseProcess] = [
        CONTEXT.Process(target=book, args=(n, plan, barrier, reports), name=f"booker-{n}")
        for n in range(workers)
    ]
    started: list[BaseProcess] = []
    got: list[Report] = []
    deadline = time.monotonic() + RACE_DEADLINE
    try:
        for child in children:
            child.start()
            started.append(child)
        while len(got) < workers:
            try:
                got.append(reports.get(timeout=0.5))
            except queue.Empty:
                if time.monotonic() < deadline and any(c.is_alive() for c in children):
                    continue
                # A worker flushes its report before it exits: look once more, then give up.
                with suppress(queue.Empty):
                    while len(got) < workers:
                        got.append(reports.get(timeout=1))
                break
    finally:
        # Workers that have not reported are stuck at most at the barrier (or hung past help).
        wait = min(deadline - time.monotonic(), plan.barrier_timeout)
        for child in started:
            child.join(timeout=max(0.0, wait) + 5)
        hung = [child.name for child in started if child.is_alive()]
        for child in started:
            if child.is_alive():
                child.kill()
                child.join()
        reports.close()
        reports.join_thread()
    assert [] == hung, "workers hung"
    assert workers == len(got), "a worker died without reporting"
    assert [0] * workers == [child.exitcode for child in children]
    return sorted(got, key=lambda report: report.worker)


def outcome(reports: list[Report]) -> tuple[list[str], Counter[str]]:
    """
    Return the ids booked and the refusals counted by type; print both (shown on failure).

    Fails when a worker failed outside its booking calls, or any call raised something other
    than the documented refusal (a driver error, a ``StoreError``, a ``ConflictError``).
    """
    booked = [appointment_id for report in reports for appointment_id in report.booked]
    refusals = Counter(name for report in reports for name, _, _ in report.raised)
    print(f"booked {len(booked)}, refused {dict(refusals)}")
    assert [] == [report.failure for report in reports if report.failure is not None]
    assert [] == [
        (name, message)
        for report in reports
        for name, _, message in report.raised
        if name != REFUSAL
    ]
    assert WORKERS * ATTEMPTS == len(booked) + refusals.total()
    return booked, refusals


def overlapping(appointment: Appointment, start: datetime, length: timedelta) -> bool:
    """Tell whether *appointment* overlaps ``[start, start + length)``."""
    return appointment.start < start + length and start < appointment.end


def assert_justified(reports: list[Report], stored: list[Appointment], length: timedelta) -> None:
    """Every refusal met a stored appointment overlapping its time (none was spurious)."""
    assert [] == [
        start
        for report in reports
        for _, start, _ in report.raised
        if not any(overlapping(appointment, start, length) for appointment in stored)
    ]


class TestLastSeat:
    def test_eight_processes_fifty_attempts_one_success(self, store: SQLStore):
        """8 processes x 50 attempts on one slot of a one-seat resource: exactly one booking."""
        world = _World(store, bookings_per_slot=1, duration=30, interval=30)

        reports = race(world.plan([SLOT]))

        booked, _ = outcome(reports)
        assert 1 == len(booked)
        stored = world.appointments()
        assert [(booked[0], SLOT, AppointmentStatus.BOOKED)] == [
            (a.id, a.start, a.status) for a in stored
        ]
        assert_justified(reports, stored, world.length)


class TestBookingsPerSlot:
    def test_five_bookings_per_slot_take_exactly_five(self, store: SQLStore):
        """With bookings per slot 5, 8 processes x 50 attempts book the slot exactly 5 times."""
        world = _World(store, bookings_per_slot=5, duration=30, interval=30)

        reports = race(world.plan([SLOT]))

        booked, _ = outcome(reports)
        assert 5 == len(booked)
        stored = world.appointments()
        assert sorted(booked) == sorted(a.id for a in stored)
        assert {(SLOT, AppointmentStatus.BOOKED)} == {(a.start, a.status) for a in stored}
        assert_justified(reports, stored, world.length)


class TestOverlappingRanges:
    def test_hour_long_bookings_on_a_quarter_hour_grid_never_overlap(self, store: SQLStore):
        """Seeded random 60-minute bookings every 15 minutes of a day: no two stored ones overlap."""
        world = _World(store, bookings_per_slot=1, duration=60, interval=15)
        # 09:00 ... 16:00: every start whose hour ends by closing time.
        starts = [DAY_OPENS + n * timedelta(minutes=15) for n in range(29)]

        reports = race(world.plan(starts, seed=3))

        booked, _ = outcome(reports)
        stored = sorted(world.appointments(), key=lambda a: a.start)
        assert sorted(booked) == sorted(a.id for a in stored)
        assert {AppointmentStatus.BOOKED} == {a.status for a in stored}
        assert [] == [
            (earlier.id, later.id)
            for earlier, later in itertools.pairwise(stored)
            if later.start < earlier.end
        ]
        assert_justified(reports, stored, world.length)


class TestHarness:
    def test_a_missing_process_breaks_the_barrier_instead_of_hanging(self):
        """A barrier expecting 3 processes while 2 run: both time out, report and exit; none books."""
        with sqlite_store() as store:
            world = _World(store, bookings_per_slot=1, duration=30, interval=30)

            reports = race(world.plan([SLOT], barrier_timeout=2.0), workers=2, parties=3)

            assert [0, 1] == [report.worker for report in reports]
            assert [((), ())] * 2 == [(report.booked, report.raised) for report in reports]
            assert all("BrokenBarrierError" in (report.failure or "") for report in reports), (
                reports
            )
            assert [] == world.appointments()
