"""
SQLStore under faults: writers killed with SIGKILL, and a PostgreSQL backend terminated mid-unit.

SQLite: fifty writer processes, one after the other, book appointments on one file and are each
killed with SIGKILL at a seeded random moment 20 to 150 ms after their first booking (the writers
are forked by ``faults_worker.py``, which pays the import of slotwise once). After every kill
the file passes ``PRAGMA integrity_check``, every appointment has its audit entry, booking event
and reminders and nothing of them exists without it, and every booking a writer acknowledged is
there. PostgreSQL: the backend of an open unit of work is ended with ``pg_terminate_backend``
from another connection; the unit raises ``StoreUnavailable`` from the driver error, wrote
nothing, and the next unit of work on the same store commits.
"""

from __future__ import annotations

import os
import random
import select
import signal
import sqlite3
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import IO

import attrs
import pytest
from sqlalchemy import Engine, create_engine, text
from sqlalchemy.exc import DBAPIError

from slotwise import BusinessHours, Scheduler
from slotwise.errors import StoreError, StoreUnavailable
from slotwise.model import (
    Appointment,
    AppointmentStatus,
    AuditEntry,
    Company,
    Customer,
    OutboxEvent,
    QueuedReminder,
    Trigger,
)
from slotwise.storage.sql import SQLStore
from slotwise.testing import ManualClock, SequentialIds
from slotwise.testing.samples import sample_company, sample_customer

from .faults_worker import FIRST_DAY, NOW, REMINDERS_PER_APPOINTMENT, SLOT, World, make_world
from .servers import POSTGRES, server_engine, server_store, unique_name

KILLS = 50
SEED = 20260105
WORKER = Path(__file__).with_name("faults_worker.py")
LINE_TIMEOUT = 60.0
"""Seconds without a line from the fork server before the test gives up on it (a hang)."""


# -- SQLite: writers killed with SIGKILL ---------------------------------------------------------


@attrs.define
class Run:
    """What one killed writer did: the bookings it acknowledged and how it ended."""

    writer: int
    delay: float
    acked: list[str] = attrs.field(factory=list)
    in_unit: bool = False
    """Whether the kill landed inside a unit of work (begun, not yet committed)."""
    started: float = 0.0
    """Seconds from asking for the writer to its first acknowledged booking."""
    full: bool = False
    code: int | None = None
    failure: str | None = None


class ForkServer:
    """Drives ``faults_worker.py``: forks writers, kills them, collects what they said."""

    def __init__(self, world: World) -> None:
        self._process = subprocess.Popen(
            [sys.executable, str(WORKER), world.to_json()],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
        )
        assert self._process.stdin is not None
        assert self._process.stdout is not None
        self._stdin: IO[bytes] = self._process.stdin
        self._stdout = self._process.stdout.fileno()
        self._pending = b""
        self._writer_pid: int | None = None

    def close(self) -> None:
        """Kill a writer still running, ask the server to quit and wait for it."""
        if self._writer_pid is not None:  # the test failed while a writer ran
            with suppress(ProcessLookupError):
                os.kill(self._writer_pid, signal.SIGKILL)
        try:
            self._stdin.write(b"quit\n")
            self._stdin.close()
            self._process.wait(timeout=10)
        except (OSError, subprocess.TimeoutExpired):
            self._process.kill()
            self._process.wait()
        finally:
            assert self._process.stdout is not None
            self._process.stdout.close()

    def _line(self) -> list[str]:
        """Return the server's next line split in words, failing after LINE_TIMEOUT seconds."""
        while b"\n" not in self._pending:
            readable, _, _ = select.select([self._stdout], [], [], LINE_TIMEOUT)
            chunk = os.read(self._stdout, 65536) if readable else b""
            if not chunk:
                code = self._process.poll()
                raise AssertionError(f"the fork server went silent or ended (code {code})")
            self._pending += chunk
        line, self._pending = self._pending.split(b"\n", 1)
        return line.decode().split(" ", 3)

    def run(self, writer: int, delay: float) -> Run:
        """Fork *writer*; SIGKILL it *delay* seconds after its first booking; collect."""
        run = Run(writer=writer, delay=delay)
        asked = time.perf_counter()
        self._stdin.write(f"run {writer}\n".encode())
        self._stdin.flush()
        # Timed from the first acknowledged booking, so each kill lands in a stream of
        # bookings however slow the machine (and every writer acknowledges at least one).
        while self._writer_pid is None or not run.acked:
            word, *rest = self._line()
            if word == "pid":
                self._writer_pid = int(rest[1])
            else:
                self._collect(run, word, rest)
                if run.code is not None:  # it ended before its first booking
                    return run
        run.started = time.perf_counter() - asked
        time.sleep(delay)
        os.kill(self._writer_pid, signal.SIGKILL)
        while run.code is None:
            word, *rest = self._line()
            self._collect(run, word, rest)
        return run

    def _collect(self, run: Run, word: str, rest: list[str]) -> None:
        if word == "ready":
            pass
        elif word == "begin":
            run.in_unit = True
        elif word == "end":
            run.in_unit = False
        elif word == "ack":
            run.acked.append(rest[1])
        elif word == "full":
            run.full = True
        elif word == "failed":
            run.failure = " ".join(rest[1:])
        elif word == "reaped":
            run.code = int(rest[2])
            self._writer_pid = None
        else:
            raise AssertionError(f"unexpected line from the fork server: {word} {rest}")


@contextmanager
def _fork_server(world: World) -> Iterator[ForkServer]:
    """Yield a running fork server for *world*; stop it afterwards."""
    server = ForkServer(world)
    try:
        yield server
    finally:
        server.close()


@attrs.frozen
class Snapshot:
    """The company's appointments and their by-products, read in one snapshot."""

    appointments: list[Appointment]
    events: list[OutboxEvent]
    audits: list[AuditEntry]
    reminders: list[QueuedReminder]

    @classmethod
    def read(cls, store: SQLStore, company_id: str) -> Snapshot:
        """Read everything of *company_id* through the store's reader."""
        with store.read() as reader:
            return cls(
                appointments=reader.find(Appointment, company_id=company_id),
                events=reader.find(OutboxEvent, company_id=company_id),
                audits=reader.find(AuditEntry, company_id=company_id),
                reminders=reader.find(QueuedReminder, company_id=company_id),
            )


def _integrity(path: Path) -> list[str]:
    """Return what ``PRAGMA integrity_check`` says about the file (``["ok"]`` when sound)."""
    conn = sqlite3.connect(path)
    try:
        return [row[0] for row in conn.execute("PRAGMA integrity_check")]
    finally:
        conn.close()


def _check_consistent(snapshot: Snapshot, *, reminders: int) -> None:
    """Every appointment has all its by-products, and none exists without its appointment."""
    appointment_ids = {a.id for a in snapshot.appointments}
    booked = Counter(
        e.entity_id for e in snapshot.events if e.trigger is Trigger.BOOKING_CONFIRMATION
    )
    audited = Counter(entry.appointment_id for entry in snapshot.audits)
    reminded = Counter(reminder.appointment_id for reminder in snapshot.reminders)
    sequences = [event.sequence for event in snapshot.events]

    assert len(appointment_ids) == len(snapshot.appointments)
    assert {AppointmentStatus.BOOKED} >= {a.status for a in snapshot.appointments}
    assert dict.fromkeys(appointment_ids, 1) == dict(booked)
    assert dict.fromkeys(appointment_ids, 1) == dict(audited)
    assert {a: reminders for a in appointment_ids if reminders} == dict(reminded)
    assert sorted(set(sequences)) == sequences


@pytest.mark.skipif(not hasattr(os, "fork"), reason="the writers are forked (POSIX only)")
def test_writers_killed_with_sigkill_leave_a_sound_consistent_file(tmp_path: Path):
    """Fifty SIGKILLed booking writers leave an intact file, whole bookings and every ack."""
    path = tmp_path / "faults.db"
    world = make_world(path, days=KILLS + 10)
    delays = random.Random(SEED).sample(range(20, 151), k=KILLS)  # milliseconds, all distinct
    acked: set[str] = set()
    runs: list[Run] = []
    began = time.perf_counter()
    reader = SQLStore(f"sqlite:///{path}")
    try:
        with _fork_server(world) as server:
            for writer, delay in enumerate(delays):
                run = server.run(writer, delay / 1000)
                runs.append(run)

                assert (writer, None, -signal.SIGKILL) == (writer, run.failure, run.code)
                assert not run.full, "the writer booked its whole day before the kill"
                assert ["ok"] == _integrity(path)
                snapshot = Snapshot.read(reader, world.company_id)
                _check_consistent(snapshot, reminders=REMINDERS_PER_APPOINTMENT)
                present = {a.id for a in snapshot.appointments}
                acked.update(run.acked)
                assert set() == acked - present
                # A kill between a commit and its ack leaves at most one unacknowledged booking.
                mine = {a for a in present if a.startswith(f"k{writer}-")}
                assert len(mine - set(run.acked)) <= 1
        final = Snapshot.read(reader, world.company_id)
    finally:
        reader.close()
    elapsed = time.perf_counter() - began
    in_unit = sum(run.in_unit for run in runs)

    assert KILLS == len(runs)
    assert len(acked) <= len(final.appointments) <= len(acked) + KILLS
    assert len(acked) >= KILLS  # each writer is killed after its first booking
    # Most of a writer's time is spent inside units of work: some kills must land in one
    # (each does with a probability near 0.8, so all 50 missing is not a real possibility).
    assert in_unit > 0
    starts = sorted(run.started for run in runs)
    print(
        f"\n{KILLS} writers killed with SIGKILL ({in_unit} inside a unit of work); "
        f"{len(acked)} bookings acknowledged, {len(final.appointments)} committed, "
        f"{len(final.events)} outbox events, {len(final.audits)} audit entries, "
        f"{len(final.reminders)} reminders; integrity_check ok after every kill; "
        f"median fork-to-first-ack {starts[len(starts) // 2] * 1000:.0f} ms; {elapsed:.1f} s"
    )


# -- PostgreSQL: the backend of an open unit of work terminated ----------------------------------

_UNIT_BACKENDS = text(
    """
    SELECT DISTINCT l.pid FROM pg_locks l
    JOIN pg_class c ON c.oid = l.relation
    JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE n.nspname = :schema AND l.pid <> pg_backend_pid()
    """
)
"""The backends holding a lock on a table of the schema: those in an open unit of work."""


@pytest.fixture
def pg_store() -> Iterator[SQLStore]:
    """A SQLStore in an empty PostgreSQL schema of its own."""
    with server_store(POSTGRES) as store:
        yield store


@pytest.fixture
def killer() -> Iterator[Engine]:
    """A separate engine on the PostgreSQL server, to end other sessions from."""
    engine = create_engine(POSTGRES.url)
    try:
        yield engine
    finally:
        engine.dispose()


def _terminate_unit(killer: Engine, schema: str) -> int:
    """End the one backend with a unit of work open on *schema*; return once it is gone."""
    with killer.connect() as conn:
        # Autocommit: each statement reads pg_stat_activity afresh (a transaction caches it).
        conn = conn.execution_options(isolation_level="AUTOCOMMIT")
        pids = conn.execute(_UNIT_BACKENDS, {"schema": schema}).scalars().all()
        assert 1 == len(pids), f"backends in a unit of work on {schema}: {pids}"
        assert conn.execute(text("SELECT pg_terminate_backend(:pid)"), {"pid": pids[0]}).scalar()
        # Bounded wait: the session ends as soon as it notices the signal (milliseconds).
        for _ in range(500):
            gone = not conn.execute(
                text("SELECT count(*) FROM pg_stat_activity WHERE pid = :pid"), {"pid": pids[0]}
            ).scalar()
            if gone:
                return int(pids[0])
            time.sleep(0.01)
    raise AssertionError(f"backend {pids[0]} did not end")


def _assert_unavailable_from_driver(error: StoreUnavailable) -> None:
    """The store error was raised from the driver's error (through SQLAlchemy)."""
    cause = error.__cause__
    while isinstance(cause, StoreUnavailable):  # raised again at the block's end ("swallow")
        cause = cause.__cause__
    assert isinstance(cause, DBAPIError)
    assert cause.orig is not None


class _TerminatingIds:
    """``SequentialIds`` that terminate the open unit of work's backend when drawing one id."""

    def __init__(self, killer: Engine, schema: str) -> None:
        self._ids = SequentialIds("id")
        self._killer = killer
        self._schema = schema
        self.drawn = 0
        self.terminate_at: int | None = None
        self.terminated: int | None = None

    def new_id(self) -> str:
        """Return the next id, first ending the unit's backend if this is the chosen draw."""
        self.drawn += 1
        if self.drawn == self.terminate_at:
            self.terminated = _terminate_unit(self._killer, self._schema)
        return self._ids.new_id()


@pytest.mark.external_service
class TestPostgresTerminatedBackend:
    @pytest.mark.parametrize("then", ["write", "commit", "swallow"])
    def test_a_terminated_unit_of_work_raises_store_unavailable_and_writes_nothing(
        self, pg_store: SQLStore, killer: Engine, then: str
    ):
        """A unit whose backend is terminated raises StoreUnavailable, keeps nothing, and the pool recovers."""
        assert pg_store.schema is not None
        company = sample_company(id="co-gone")
        with pytest.raises(StoreUnavailable) as caught:
            self._unit(pg_store, killer, company, then)
        _assert_unavailable_from_driver(caught.value)

        with pg_store.transaction(locks=["co"]) as tx:
            tx.insert(sample_company(id="co-next"))
        with pg_store.read() as reader:
            found = (
                reader.get(Company, "co-gone"),
                reader.get(Customer, "cus-gone"),
                reader.get(Company, "co-next") is not None,
            )

        assert (None, None, True) == found

    def _unit(self, store: SQLStore, killer: Engine, company: Company, then: str) -> None:
        """Insert *company*, have the backend terminated, then go on as *then* says."""
        assert store.schema is not None
        with store.transaction(locks=["co"]) as tx:
            tx.insert(company)
            _terminate_unit(killer, store.schema)
            if then == "write":
                tx.insert(sample_customer(id="cus-gone", company_id=company.id))
            elif then == "swallow":
                # docs/sql.md: a caller that catches the error and carries on gets it again
                # when the block ends, and nothing is committed.
                with pytest.raises(StoreUnavailable):
                    tx.get(Company, "co-other")  # a read the unit has not made yet
                with pytest.raises(StoreError):
                    tx.get(Company, company.id)  # after a failure, not from what it wrote

    def test_a_booking_whose_backend_is_terminated_leaves_no_trace(
        self, pg_store: SQLStore, killer: Engine
    ):
        """A booking whose backend dies after the appointment insert raises StoreUnavailable and writes nothing."""
        assert pg_store.schema is not None
        ids = _TerminatingIds(killer, pg_store.schema)
        scheduler = Scheduler(pg_store, clock=ManualClock(NOW), ids=ids)
        company = scheduler.create_company(name="Gone Spa", timezone="America/New_York")
        ws = scheduler.for_company(company.id)
        ws.locations.create(name="Downtown", business_hours=BusinessHours.always())
        service = ws.services.create(name="Cut", duration=30, booking_interval=30, reason="t")
        resource = ws.resources.create(name="Chair", reason="t")
        customer = ws.customers.create(first_name="Ann", email="ann@example.com")
        before = Snapshot.read(pg_store, company.id)
        start = FIRST_DAY

        def book() -> Appointment:
            return ws.appointments.create(
                service.id,
                start,
                start + SLOT,
                resource_id=resource.id,
                customer_id=customer.id,
                complete_booking="BK",
            )

        # The second id of the booking is its audit entry's, drawn after the appointment insert.
        ids.terminate_at = ids.drawn + 2
        with pytest.raises(StoreUnavailable) as caught:
            book()
        _assert_unavailable_from_driver(caught.value)
        assert ids.terminated is not None
        after_failure = Snapshot.read(pg_store, company.id)
        booked = book()  # the same slot: the failed booking took nothing
        after = Snapshot.read(pg_store, company.id)

        assert before == after_failure
        assert [booked] == after.appointments
        _check_consistent(after, reminders=0)

    def test_a_pooled_connection_the_server_dropped_is_replaced_and_the_booking_made(
        self, killer: Engine, caplog: pytest.LogCaptureFixture
    ):
        """Backends ended while their connections sat in the pool: the next bookings still succeed, once each."""
        engine = server_engine(POSTGRES)
        schema = unique_name()
        # A store that makes its own engine (no pool_pre_ping: its units check out unpinged).
        store = SQLStore(POSTGRES.url, schema=schema)
        try:
            self._book_across_dropped_connections(store, killer, caplog)
        finally:
            store.close()
            POSTGRES.drop(engine, schema)

    def _book_across_dropped_connections(
        self, store: SQLStore, killer: Engine, caplog: pytest.LogCaptureFixture
    ) -> None:
        """Book, end every pooled connection's backend, book twice more; check what was written."""
        scheduler = Scheduler(store, clock=ManualClock(NOW), ids=SequentialIds("pool-"))
        company = scheduler.create_company(name="Pool Spa", timezone="America/New_York")
        ws = scheduler.for_company(company.id)
        ws.locations.create(name="Downtown", business_hours=BusinessHours.always())
        service = ws.services.create(name="Cut", duration=30, booking_interval=30, reason="t")
        resource = ws.resources.create(name="Chair", reason="t")
        customer = ws.customers.create(first_name="Ann", email="ann@example.com")

        def book(number: int) -> Appointment:
            start = FIRST_DAY + number * SLOT
            return ws.appointments.create(
                service.id,
                start,
                start + SLOT,
                resource_id=resource.id,
                customer_id=customer.id,
                complete_booking="BK",
            )

        book(0)  # the store's connections are now pooled, idle
        held = [store.engine.connect() for _ in range(store.engine.pool.checkedin())]  # type: ignore[attr-defined]
        pids = [conn.exec_driver_sql("SELECT pg_backend_pid()").scalar() for conn in held]
        for conn in held:
            conn.close()
        with killer.connect() as conn:
            conn = conn.execution_options(isolation_level="AUTOCOMMIT")
            for pid in pids:
                assert conn.execute(
                    text("SELECT pg_terminate_backend(:pid)"), {"pid": pid}
                ).scalar()
            for _ in range(500):  # bounded: each session ends within milliseconds
                alive = conn.execute(
                    text("SELECT count(*) FROM pg_stat_activity WHERE pid = ANY(:pids)"),
                    {"pids": pids},
                ).scalar()
                if not alive:
                    break
                time.sleep(0.01)
        with caplog.at_level("WARNING", logger="slotwise.storage"):
            booked = [book(1), book(2)]

        with store.read() as reader:
            appointments = reader.find(Appointment, company_id=company.id)
            events = reader.find(OutboxEvent, company_id=company.id)
        ids = {appointment.id for appointment in booked}
        assert len(appointments) == 3
        assert ids <= {appointment.id for appointment in appointments}
        assert len([event for event in events if event.entity_id in ids]) == 2  # one each
        assert any("connection was lost" in record.getMessage() for record in caplog.records)
