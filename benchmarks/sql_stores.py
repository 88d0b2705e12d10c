"""
Bookings per second, the availability query, and history flatness on every store.

Usage::

    python benchmarks/sql_stores.py [--stores memory sqlite postgresql mariadb]
                                    [--figures bookings statements availability history]
                                    [--bookings N] [--processes P ...] [--scenario SCENARIO.json]
                                    [--repeat K] [--history H ...] [--batch B]

Stores: ``memory`` (a ``MemoryStore``), ``sqlite`` (an ``SQLStore`` on a file in a temporary
directory), ``postgresql`` and ``mariadb`` (an ``SQLStore`` on the servers at
``SLOTWISE_TEST_POSTGRES_URL`` / ``SLOTWISE_TEST_MARIADB_URL``, defaulting to
``postgresql+psycopg://postgres@127.0.0.1:5432/test`` and
``mysql+pymysql://root@127.0.0.1:3306/test``, the test suite's defaults). Every run gets a store
of its own: a new SQLite file, or a new PostgreSQL schema / MariaDB database named after this
process and a counter, dropped (with the file's directory) when the run ends.

Figures, one JSON line each:

``bookings``      ``{"figure": "bookings", "store", "processes", "bookings", "seconds",
                  "per_second"}``. A business like ``bookings.py``'s (one New York location open
                  around the clock, a 30-minute service on a 30-minute grid, 24 resources, 24
                  customers) is set up through the public API; then *P* processes (forked by a
                  fork server, each with its own ``SQLStore`` on the same URL and schema, its own
                  ``ManualClock`` and ``SequentialIds("p<k>-")`` so ids never collide) book N
                  bookings in all with ``create(..., complete_booking="BK")``, one unit of work
                  each. Process *k* owns resources and customers ``k, k + P, ...``, and books
                  the next free half hours of its own resources, so processes never compete for
                  a lock or a slot. Each process first makes one untimed warm-up booking (the
                  day before), so its caches are as full as a long-running process's. Timed:
                  from releasing the processes (each connected, warmed up and waiting) to
                  receiving the last one's "done". The memory store runs only in this process
                  (*P* = 1 only; processes cannot share it). Checked afterwards: the store holds
                  exactly N + P booked appointments.
``statements``    ``{"figure": "statements", "store", "statements": N, "round_trips": T,
                  "sql": [...]}`` (SQL stores only). The bookings' business; after its warm-up
                  booking and one booking of the same resource, the statements one more booking
                  of it sends, as a SQLAlchemy ``before_cursor_execute`` listener sees them
                  (first 80 characters each, the run's schema name left out; ``BEGIN`` and
                  ``COMMIT`` a driver sends itself are not among them), and the round trips it
                  makes, counted on the wire by a relay between the store and the server
                  (``round_trips.py``: everything, the driver's ``BEGIN``, ``COMMIT`` and the
                  pool's ping included; ``null`` on SQLite, which runs in this process).
``availability``  ``{"figure": "availability", "store", "slots", "best_ms", "runs"}``. The
                  scenario of ``scenario.py`` (``--scenario`` FILE, or its default 20 resources
                  x 100 bookings x 30 days)
                  loaded into the store as ``workload.py`` maps it, and ``workload.py``'s query
                  timed: one availability query for every resource over the whole range, round
                  robin ``none``, iterating every slot; best of K. Checked: the slot count equals
                  ``workload.py``'s (on a ``MemoryStore``).
``history``       ``{"figure": "history", "store", "slots", "runs", "sizes": [{"history",
                  "fill_seconds", "best_ms"}, ...], "ratio"}`` (SQL stores only). The same
                  loaded scenario, then H appointments of 30 minutes added years before the
                  queried range (from 2020-01-01, back to back on the scenario's resources),
                  straight through ``store.transaction()`` / ``tx.insert`` in batches of B; the
                  sizes grow in order on one store, so ``fill_seconds`` is the time to go from
                  the previous size to this one. The query is timed (best of K) at each size;
                  ``ratio`` is the last size's time over the first's (issue target: at most
                  1.2). Checked: the slot count never changes.

``week``          ``{"figure": "week", "store", "slots", "cached_ms", "uncached_ms", "runs"}``. The
                  request an app serves most: one week of one 30-minute service at a location with
                  three resources and 36 booked appointments, through ``availability.times``;
                  best of K with the configuration cache (decision 49, the default) and with
                  ``Scheduler(cache_configuration=False)``, the two interleaved. Compare each
                  store's ``cached_ms`` with the memory store's (issue target: at most 1.3x).
                  Checked: both answers hold the same slots.

Exits with status 1 if a check fails or a run cannot complete (a booking refused, a server
unreachable).
"""

from __future__ import annotations

import argparse
import itertools
import json
import multiprocessing
import os
import queue
import shutil
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import attrs
from scenario import generate
from workload import Workload

from slotwise import (
    Appointment,
    AppointmentStatus,
    BookingWindow,
    BusinessHours,
    LocationSettings,
    MemoryStore,
    Scheduler,
    Store,
    Workspace,
)
from slotwise.testing import ManualClock, SequentialIds

# Duplicated from tests/contract/servers.py: benchmarks never import from tests/.
POSTGRES_URL = os.environ.get(
    "SLOTWISE_TEST_POSTGRES_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/test"
)
MARIADB_URL = os.environ.get(
    "SLOTWISE_TEST_MARIADB_URL", "mysql+pymysql://root@127.0.0.1:3306/test"
)
STORES = ("memory", "sqlite", "postgresql", "mariadb")
FIGURES = ("bookings", "statements", "availability", "history", "week")

NOW = datetime(2026, 1, 5, 12, 0, tzinfo=UTC)
FIRST_SLOT = datetime(2026, 1, 6, 5, 0, tzinfo=UTC)  # Tuesday 00:00 in New York
WARM_UP_SLOT = datetime(2026, 1, 5, 18, 0, tzinfo=UTC)  # Monday 13:00 in New York
SLOT = timedelta(minutes=30)
SLOTS_PER_DAY = 48
# 24 resources and customers split evenly over 1, 2, 3, 4, 6, 8, 12 or 24 processes.
RESOURCES = 24
CUSTOMERS = 24
HISTORY_START = datetime(2020, 1, 1, tzinfo=UTC)
HISTORY_LENGTH = timedelta(minutes=30)
# Imported once by the fork server (a missing driver is skipped there).
_PRELOAD = ["slotwise", "slotwise.storage.sql", "sqlalchemy", "psycopg", "pymysql"]
# A child that neither reports nor exits within this long has hung (seconds).
_SETUP_TIMEOUT = 300.0

_names = itertools.count()


class BenchmarkFailed(Exception):
    """A run could not complete or its result failed a check."""


# -- stores ---------------------------------------------------------------------------------


@attrs.frozen(kw_only=True)
class Target:
    """Where one run's store lives: enough for any process to open it."""

    kind: str
    url: str | None = None
    schema: str | None = None

    def open(self) -> Store:
        """Return a new store on this target (a ``MemoryStore`` is new every time)."""
        if self.kind == "memory":
            return MemoryStore()
        from slotwise.storage.sql import SQLStore

        assert self.url is not None
        return SQLStore(self.url, schema=self.schema)


def close(store: Store) -> None:
    """Close *store* if it holds connections."""
    closing = getattr(store, "close", None)
    if closing is not None:
        closing()


@contextmanager
def fresh_target(kind: str) -> Iterator[Target]:
    """Yield a target no other run uses; drop its file or schema afterwards."""
    if kind == "memory":
        yield Target(kind=kind)
    elif kind == "sqlite":
        directory = Path(tempfile.mkdtemp(prefix="slotwise-bench-"))
        try:
            yield Target(kind=kind, url=f"sqlite:///{directory / 'bench.db'}")
        finally:
            shutil.rmtree(directory, ignore_errors=True)
    else:
        url = POSTGRES_URL if kind == "postgresql" else MARIADB_URL
        schema = f"slotwise_bench_{os.getpid()}_{next(_names)}"
        try:
            yield Target(kind=kind, url=url, schema=schema)
        finally:
            _drop(kind, url, schema)


def _drop(kind: str, url: str, schema: str) -> None:
    """Drop the PostgreSQL schema or MariaDB database *schema*."""
    import sqlalchemy

    engine = sqlalchemy.create_engine(url)
    try:
        quoted = engine.dialect.identifier_preparer.quote_schema(schema)
        statement = (
            f"DROP SCHEMA IF EXISTS {quoted} CASCADE"
            if kind == "postgresql"
            else f"DROP DATABASE IF EXISTS {quoted}"
        )
        with engine.connect() as conn:
            conn.exec_driver_sql(statement)
            conn.commit()
    finally:
        engine.dispose()


@contextmanager
def opened(target: Target) -> Iterator[Store]:
    """Yield a store on *target*, closed afterwards."""
    store = target.open()
    try:
        yield store
    finally:
        close(store)


# -- bookings per second --------------------------------------------------------------------


@attrs.frozen(kw_only=True)
class Business:
    """The ids of a business set up for booking, and which booking goes where."""

    company_id: str
    service_id: str
    resource_ids: tuple[str, ...]
    customer_ids: tuple[str, ...]

    def share(self, process: int, processes: int, bookings: int) -> range:
        """Return the local numbers of the bookings *process* of *processes* makes."""
        return range(process, bookings, processes)

    def warm_up(self, ws: Workspace, process: int, processes: int) -> None:
        """Make the untimed warm-up booking of *process*: its first resource, on the day before."""
        ws.appointments.create(
            self.service_id,
            WARM_UP_SLOT,
            WARM_UP_SLOT + SLOT,
            resource_id=self.resource_ids[process],
            customer_id=self.customer_ids[process],
            complete_booking="BK",
        )

    def book(self, ws: Workspace, number: int, process: int, processes: int) -> None:
        """Book booking *number* (the process's local index ``number // processes``)."""
        mine = self.resource_ids[process::processes]
        customers = self.customer_ids[process::processes]
        local = number // processes
        start = FIRST_SLOT + (local // len(mine)) * SLOT
        ws.appointments.create(
            self.service_id,
            start,
            start + SLOT,
            resource_id=mine[local % len(mine)],
            customer_id=customers[local % len(customers)],
            complete_booking="BK",
        )


def set_up_business(store: Store, bookings: int) -> Business:
    """Create the company, location, service, resources and customers through the public API."""
    # Each resource takes at most ceil(bookings / RESOURCES) half hours; 2 spare days.
    days = -(-bookings // (RESOURCES * SLOTS_PER_DAY)) + 2
    scheduler = Scheduler(store, clock=ManualClock(NOW), ids=SequentialIds("setup-"))
    company = scheduler.create_company(name="Bench Spa", timezone="America/New_York")
    ws = scheduler.for_company(company.id)
    ws.locations.create(
        name="Downtown",
        business_hours=BusinessHours.always(),
        settings=LocationSettings(
            booking_window=BookingWindow(book_ahead_unit="days", book_ahead_value=days)
        ),
    )
    service = ws.services.create(name="Cut", duration=30, booking_interval=30, reason="bench")
    resources = tuple(
        ws.resources.create(name=f"Resource {n}", reason="bench").id for n in range(RESOURCES)
    )
    customers = tuple(
        ws.customers.create(first_name=f"Customer{n}", email=f"c{n}@example.com").id
        for n in range(CUSTOMERS)
    )
    return Business(
        company_id=company.id,
        service_id=service.id,
        resource_ids=resources,
        customer_ids=customers,
    )


def booked(store: Store) -> int:
    """Return how many BK appointments *store* holds."""
    with store.read() as reader:
        appointments = reader.find(Appointment, company_id=None)
    return sum(1 for a in appointments if a.status is AppointmentStatus.BOOKED)


def _workspace(store: Store, business: Business, process: int) -> Workspace:
    """A workspace of the business on *store* whose ids start with ``p<process>-``."""
    scheduler = Scheduler(store, clock=ManualClock(NOW), ids=SequentialIds(f"p{process}-"))
    return scheduler.for_company(business.company_id)


def _book_process(
    target: Target,
    business: Business,
    bookings: int,
    process: int,
    processes: int,
    go: Any,
    reports: Any,
) -> None:
    """One booking process: connect, report ready, wait for *go*, book its share, report."""
    try:
        with opened(target) as store:
            ws = _workspace(store, business, process)
            business.warm_up(ws, process, processes)
            reports.put(("ready", process, None))
            go.wait()
            for number in business.share(process, processes, bookings):
                business.book(ws, number, process, processes)
            reports.put(("done", process, None))
    except BaseException as error:  # reported to the parent, which fails the run
        reports.put(("failed", process, f"{type(error).__name__}: {error}"))


def _collect(kind: str, reports: Any, workers: Sequence[Any], timeout: float | None) -> None:
    """Wait for a *kind* report from every worker; raise if one fails or dies first."""
    waiting = set(range(len(workers)))
    deadline = None if timeout is None else time.monotonic() + timeout
    while waiting:
        try:
            status, process, error = reports.get(timeout=1.0)
        except queue.Empty:
            dead = [k for k in waiting if not workers[k].is_alive()]
            if dead:
                raise BenchmarkFailed(f"process {dead[0]} exited without reporting") from None
            if deadline is not None and time.monotonic() > deadline:
                raise BenchmarkFailed(f"processes {sorted(waiting)} did not get {kind}") from None
            continue
        if status == "failed":
            raise BenchmarkFailed(f"process {process} failed: {error}")
        if status == kind:
            waiting.discard(process)


def run_bookings(kind: str, bookings: int, processes: int) -> dict[str, Any]:
    """Time *bookings* one-unit-of-work bookings by *processes* processes on a fresh store."""
    with fresh_target(kind) as target, opened(target) as store:
        business = set_up_business(store, bookings)
        if kind == "memory":
            if processes != 1:
                raise BenchmarkFailed("the memory store cannot be shared by processes")
            ws = _workspace(store, business, 0)
            business.warm_up(ws, 0, 1)
            began = time.perf_counter()
            for number in range(bookings):
                business.book(ws, number, 0, 1)
            seconds = time.perf_counter() - began
        else:
            seconds = _book_in_processes(target, business, bookings, processes)
        made = booked(store)
    if made != bookings + processes:
        raise BenchmarkFailed(
            f"{kind}: {made} booked appointments, expected {bookings} + {processes} warm-ups"
        )
    return {
        "figure": "bookings",
        "store": kind,
        "processes": processes,
        "bookings": bookings,
        "seconds": round(seconds, 6),
        "per_second": round(bookings / seconds, 1),
    }


def _book_in_processes(target: Target, business: Business, bookings: int, processes: int) -> float:
    """Run the booking processes; return the seconds from their release to the last "done"."""
    # A fork server started once, with slotwise, SQLAlchemy and the drivers imported, forks
    # each process in milliseconds (spawn would import them all again in every process); no
    # engine or connection exists before a process opens its own store.
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(_PRELOAD)
    go = context.Event()
    reports = context.Queue()
    workers = [
        context.Process(
            target=_book_process,
            args=(target, business, bookings, k, processes, go, reports),
            daemon=True,
        )
        for k in range(processes)
    ]
    for worker in workers:
        worker.start()
    try:
        _collect("ready", reports, workers, _SETUP_TIMEOUT)
        began = time.perf_counter()
        go.set()
        _collect("done", reports, workers, None)
        seconds = time.perf_counter() - began
    finally:
        go.set()
        for worker in workers:
            worker.join(timeout=30)
            if worker.is_alive():
                worker.kill()
                worker.join()
    return seconds


# -- the scenario workload --------------------------------------------------------------------


class LoadedWorkload(Workload):
    """``workload.py``'s scenario loaded into *store*, with history added years before its range."""

    def __init__(self, store: Store, scenario: dict[str, Any]) -> None:
        super().__init__(scenario, store=store)
        self.history = 0

    def add_history(self, count: int, batch: int) -> None:
        """Insert *count* more 30-minute BK appointments years before the queried range."""
        resources = self.resource_ids
        first = self.history
        for chunk in range(first, first + count, batch):
            with self.store.transaction() as tx:
                for number in range(chunk, min(chunk + batch, first + count)):
                    start = HISTORY_START + (number // len(resources)) * HISTORY_LENGTH
                    tx.insert(
                        Appointment(
                            id=f"history-{number}",
                            company_id=self.company_id,
                            location_id=self.location_id,
                            calendar_id=self.calendar_id,
                            service_id=self.service_id,
                            resource_ids=(resources[number % len(resources)],),
                            status=AppointmentStatus.BOOKED,
                            start=start,
                            end=start + HISTORY_LENGTH,
                            created_at=start - timedelta(days=1),
                        )
                    )
        self.history += count


def run_statements(kind: str) -> dict[str, Any]:
    """List the statements one steady-state booking sends on a fresh *kind* store."""
    from sqlalchemy import event

    with fresh_target(kind) as target, _relayed(target) as (target, trips), opened(target) as store:
        business = set_up_business(store, RESOURCES * 3)
        ws = _workspace(store, business, 0)
        business.warm_up(ws, 0, 1)
        business.book(ws, 0, 0, 1)
        sent: list[str] = []
        before = trips.count if trips is not None else 0

        def listen(conn: Any, cursor: Any, statement: str, *_args: Any) -> None:
            sent.append(" ".join(statement.split()))

        engine = store.engine  # type: ignore[attr-defined]
        event.listen(engine, "before_cursor_execute", listen)
        try:
            business.book(ws, RESOURCES, 0, 1)  # the same resource, its next half hour
        finally:
            event.remove(engine, "before_cursor_execute", listen)
        counted = None if trips is None else trips.count - before
        prefix = f"{target.schema}." if target.schema else ""
    return {
        "figure": "statements",
        "store": kind,
        "statements": len(sent),
        "round_trips": counted,
        "sql": [statement.replace(prefix, "")[:80] for statement in sent],
    }


@contextmanager
def _relayed(target: Target) -> Iterator[tuple[Target, Any]]:
    """Yield *target* reached through a relay counting round trips (a server's), and the count."""
    if target.url is None or target.kind == "sqlite":
        yield target, None  # SQLite runs in this process: a statement is a call, not a trip
        return
    from round_trips import relay
    from sqlalchemy import make_url

    url = make_url(target.url)
    default = 5432 if target.kind == "postgresql" else 3306
    with relay(url.host or "127.0.0.1", url.port or default) as (port, trips):
        local = url.set(host="127.0.0.1", port=port).render_as_string(hide_password=False)
        yield attrs.evolve(target, url=local), trips


def reference_slots(scenario: dict[str, Any]) -> int:
    """Return the slot count of ``workload.py``'s own query on its ``MemoryStore``."""
    return len(Workload(scenario).query())


def run_availability(
    kind: str, scenario: dict[str, Any], repeat: int, expected: int
) -> dict[str, Any]:
    """Time the scenario's availability query on a fresh *kind* store."""
    with fresh_target(kind) as target, opened(target) as store:
        loaded = LoadedWorkload(store, scenario)
        best_ms, found = loaded.timed(repeat)
    slots = len(found)
    if slots != expected:
        raise BenchmarkFailed(f"{kind}: {slots} slots, the memory store's workload.py {expected}")
    return {
        "figure": "availability",
        "store": kind,
        "slots": slots,
        "best_ms": round(best_ms, 3),
        "runs": repeat,
    }


def run_history(
    kind: str,
    scenario: dict[str, Any],
    repeat: int,
    expected: int,
    sizes: Sequence[int],
    batch: int,
) -> dict[str, Any]:
    """Time the query on a fresh *kind* store as its history grows through *sizes*."""
    measured: list[dict[str, Any]] = []
    with fresh_target(kind) as target, opened(target) as store:
        loaded = LoadedWorkload(store, scenario)
        for size in sizes:
            began = time.perf_counter()
            loaded.add_history(size - loaded.history, batch)
            filled = time.perf_counter() - began
            best_ms, found = loaded.timed(repeat)
            slots = len(found)
            if slots != expected:
                raise BenchmarkFailed(
                    f"{kind}: {slots} slots with {size} past appointments, expected {expected}"
                )
            measured.append(
                {"history": size, "fill_seconds": round(filled, 3), "best_ms": round(best_ms, 3)}
            )
    return {
        "figure": "history",
        "store": kind,
        "slots": expected,
        "runs": repeat,
        "sizes": measured,
        "ratio": round(measured[-1]["best_ms"] / measured[0]["best_ms"], 3),
    }


WEEK_START = datetime(2026, 1, 6, tzinfo=UTC).date()


def run_week(kind: str, repeat: int) -> dict[str, Any]:
    """Time one week of one service on a fresh *kind* store, configuration cached and not."""
    with fresh_target(kind) as target, opened(target) as store:
        setup = Scheduler(store, clock=ManualClock(NOW), ids=SequentialIds("week-"))
        company = setup.create_company(name="Week Spa", timezone="America/New_York")
        ws = setup.for_company(company.id)
        ws.locations.create(name="Downtown")
        service = ws.services.create(name="Cut", duration=30, booking_interval=30, reason="b")
        resources = [
            ws.resources.create(name=f"R{n}", reason="b", linked_service_ids=[service.id]).id
            for n in range(3)
        ]
        for day in range(4):  # Tuesday to Friday, 09:00-14:00 in New York: 30 bookings
            for hour in range(6):
                start = datetime(2026, 1, 6 + day, 14 + hour, tzinfo=UTC)
                for resource_id in resources[: 1 + (day + hour) % 2]:
                    ws.appointments.create(
                        service.id,
                        start,
                        start + SLOT,
                        resource_id=resource_id,
                        complete_booking="BK",
                        name="Guest",
                        email="guest@example.com",
                    )
        last = WEEK_START + timedelta(days=6)
        timings: dict[bool, list[float]] = {True: [], False: []}
        answers: dict[bool, int] = {}
        for cached in (True, False):
            scheduler = Scheduler(store, clock=ManualClock(NOW), cache_configuration=cached)
            workspace = scheduler.for_company(company.id)
            answer = workspace.availability.times(service.id, WEEK_START, last)
            answers[cached] = len(answer.available_times)
        for _ in range(repeat):
            for cached in (True, False):
                scheduler = Scheduler(store, clock=ManualClock(NOW), cache_configuration=cached)
                workspace = scheduler.for_company(company.id)
                workspace.availability.times(service.id, WEEK_START, last)  # warm
                began = time.perf_counter()
                workspace.availability.times(service.id, WEEK_START, last)
                timings[cached].append((time.perf_counter() - began) * 1000)
    if answers[True] != answers[False]:
        raise BenchmarkFailed(f"{kind}: {answers[True]} slots cached, {answers[False]} not")
    return {
        "figure": "week",
        "store": kind,
        "slots": answers[True],
        "cached_ms": round(min(timings[True]), 3),
        "uncached_ms": round(min(timings[False]), 3),
        "runs": repeat,
    }


def load_scenario(path: Path | None) -> dict[str, Any]:
    """Read the scenario file *path*, or generate ``scenario.py``'s default scenario."""
    if path is None:
        return generate()
    loaded: dict[str, Any] = json.loads(path.read_text())
    return loaded


# -- command line ----------------------------------------------------------------------------


def main(argv: Sequence[str] | None = None) -> int:
    """Run the figures on the stores and print one JSON line each; return the exit status."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[1] if __doc__ else None)
    parser.add_argument("--stores", nargs="+", choices=STORES, default=list(STORES))
    parser.add_argument(
        "--figures",
        nargs="+",
        choices=FIGURES,
        default=[figure for figure in FIGURES if figure != "week"],
        help="default: every figure but week",
    )
    parser.add_argument("--bookings", type=int, default=2_000, help="bookings per run")
    parser.add_argument(
        "--processes", type=int, nargs="+", default=[1, 8], help="booking process counts"
    )
    parser.add_argument(
        "--scenario", type=Path, help="a scenario file (default: scenario.py's default)"
    )
    parser.add_argument("--repeat", type=int, default=5, help="timed queries; the best counts")
    parser.add_argument(
        "--history",
        type=int,
        nargs="+",
        default=[1_000, 100_000],
        help="past appointment counts, increasing",
    )
    parser.add_argument("--batch", type=int, default=10_000, help="history inserts per unit")
    args = parser.parse_args(argv)
    if min(args.bookings, args.repeat, args.batch, *args.processes) < 1:
        parser.error("--bookings, --processes, --repeat and --batch must be at least 1")
    if max(args.processes) > RESOURCES:
        parser.error(f"--processes must be at most {RESOURCES}")
    if args.history != sorted(set(args.history)) or args.history[0] < 1:
        parser.error("--history sizes must be positive and increasing")
    try:
        if "bookings" in args.figures:
            for kind in args.stores:
                for processes in args.processes:
                    if kind == "memory" and processes != 1:
                        continue
                    _emit(run_bookings(kind, args.bookings, processes))
        if "statements" in args.figures:
            for kind in args.stores:
                if kind != "memory":
                    _emit(run_statements(kind))
        if "week" in args.figures:
            for kind in args.stores:
                _emit(run_week(kind, args.repeat))
        if {"availability", "history"} & set(args.figures):
            scenario = load_scenario(args.scenario)
            expected = reference_slots(scenario)
            if "availability" in args.figures:
                for kind in args.stores:
                    _emit(run_availability(kind, scenario, args.repeat, expected))
            if "history" in args.figures:
                for kind in args.stores:
                    if kind != "memory":
                        _emit(
                            run_history(
                                kind, scenario, args.repeat, expected, args.history, args.batch
                            )
                        )
    except Exception as error:  # a failed run, an unreachable server: the figures are invalid
        print(f"sql_stores.py: {type(error).__name__}: {error}", file=sys.stderr)
        return 1
    return 0


def _emit(report: dict[str, Any]) -> None:
    print(json.dumps(report), flush=True)


if __name__ == "__main__":
    sys.exit(main())
