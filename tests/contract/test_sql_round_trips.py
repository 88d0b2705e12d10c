"""
A booking's round trips on PostgreSQL, counted on the wire, and the writes that ride with the
unit's next statement (decision 49): a duplicate among them still writes nothing.
"""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import make_url, select

from slotwise import (
    Appointment,
    AuditEntry,
    BookingWindow,
    BusinessHours,
    DuplicateRecord,
    FieldRequired,
    LocationSettings,
    OutboxEvent,
    Scheduler,
    Workspace,
)
from slotwise.storage.sql import SQLStore
from slotwise.storage.sql._codec import decode, encode
from slotwise.storage.sql._schema import RECORD_TABLES
from slotwise.testing import ManualClock, SequentialIds

from .servers import POSTGRES, server_engine, unique_name
from .test_sql_stores import BACKENDS, Backend, _schema_connection

NOW = datetime(2026, 1, 5, 12, 0, tzinfo=UTC)
SLOT = datetime(2026, 1, 6, 15, 0, tzinfo=UTC)

pytestmark = pytest.mark.external_service


class _Trips:
    """Round trips through one relay: the client sending after the server last sent."""

    def __init__(self) -> None:
        self.count = 0
        self._lock = threading.Lock()
        self._last: dict[int, str] = {}

    def saw(self, key: int, side: str) -> None:
        with self._lock:
            if side == "client" and self._last.get(key) != "client":
                self.count += 1
            self._last[key] = side


def _pump(source: socket.socket, sink: socket.socket, trips: _Trips, key: int, side: str) -> None:
    with suppress(OSError):
        while data := source.recv(65536):
            trips.saw(key, side)
            sink.sendall(data)
    for end in (source, sink):
        with suppress(OSError):
            end.shutdown(socket.SHUT_RDWR)


@contextmanager
def _relay(host: str, port: int) -> Iterator[tuple[int, _Trips]]:
    """A TCP relay to *host*:*port* counting round trips (a copy of benchmarks/round_trips.py)."""
    listener = socket.create_server(("127.0.0.1", 0))
    trips = _Trips()
    ends: list[socket.socket] = []

    def accept() -> None:
        while True:
            try:
                client, _ = listener.accept()
            except OSError:
                return
            server = socket.create_connection((host, port))
            ends.extend((client, server))
            key = client.fileno()
            for source, sink, side in ((client, server, "client"), (server, client, "server")):
                threading.Thread(
                    target=_pump, args=(source, sink, trips, key, side), daemon=True
                ).start()

    threading.Thread(target=accept, daemon=True).start()
    try:
        yield listener.getsockname()[1], trips
    finally:
        with suppress(OSError):
            listener.shutdown(socket.SHUT_RDWR)  # wakes the accept() (close() alone would not)
        listener.close()
        for end in ends:
            with suppress(OSError):
                end.shutdown(socket.SHUT_RDWR)  # close() alone leaves a blocked recv() waiting
            with suppress(OSError):
                end.close()


def _business(store: SQLStore, ids: str) -> tuple[Scheduler, str, str, str, str]:
    """A company open around the clock with one service, resource and customer."""
    scheduler = Scheduler(store, clock=ManualClock(NOW), ids=SequentialIds(ids))
    company = scheduler.create_company(name="Spa", timezone="America/New_York")
    ws = scheduler.for_company(company.id)
    ws.locations.create(
        name="Downtown",
        business_hours=BusinessHours.always(),
        settings=LocationSettings(
            booking_window=BookingWindow(book_ahead_unit="days", book_ahead_value=30)
        ),
    )
    service = ws.services.create(name="Cut", duration=30, booking_interval=30, reason="x")
    resource = ws.resources.create(name="Ann", reason="x")
    customer = ws.customers.create(first_name="Bo", email="bo@example.com")
    return scheduler, company.id, service.id, resource.id, customer.id


def _book_half_hour(
    ws: Workspace, service: str, resource: str, customer: str, number: int
) -> Appointment:
    """Book the *number*-th half hour from ``SLOT`` for the customer."""
    return ws.appointments.create(
        service_id=service,
        start=SLOT + number * timedelta(minutes=30),
        end=SLOT + (number + 1) * timedelta(minutes=30),
        resource_ids=[resource],
        customer_id=customer,
        complete_booking="BK",
    )


def test_a_postgresql_booking_makes_three_round_trips() -> None:
    """A steady-state booking on PostgreSQL, counted on the wire (BEGIN, COMMIT, any ping included)."""
    engine = server_engine(POSTGRES)
    url = make_url(POSTGRES.url)
    schema = unique_name()
    try:
        with _relay(url.host or "127.0.0.1", url.port or 5432) as (port, trips):
            relayed = url.set(host="127.0.0.1", port=port).render_as_string(hide_password=False)
            store = SQLStore(relayed, schema=schema)
            try:
                scheduler, company, service, resource, customer = _business(store, "rt-")
                ws = scheduler.for_company(company)
                for number in range(3):
                    before = trips.count
                    _book_half_hour(ws, service, resource, customer, number)
                    made = trips.count - before
            finally:
                store.close()
    finally:
        POSTGRES.drop(engine, schema)
    # BEGIN, the locks, the customer and the configuration version (no ping before: a lost
    # connection is replaced after this round trip fails); the appointments reaching the slot,
    # their longest appointment and padding computed in the same statement; four inserts (the
    # event numbered by the database as it is written) with the COMMIT (docs/sql.md, "One
    # booking's statements").
    assert made == 3


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_booking_whose_new_id_exists_raises_duplicate_record_and_writes_nothing(
    backend: Backend,
) -> None:
    """An appointment id that exists after all: DuplicateRecord, and no audit entry or event."""
    with backend.opener() as store:
        _scheduler, company, service, resource, customer = _business(store, "dup-")
        clock = ManualClock(NOW)

        def book(start: datetime) -> None:
            again = Scheduler(store, clock=clock, ids=SequentialIds("again-"))
            again.for_company(company).appointments.create(
                service_id=service,
                start=start,
                end=start + timedelta(minutes=30),
                resource_ids=[resource],
                customer_id=customer,
                complete_booking="BK",
            )

        book(SLOT)
        with store.read() as reader:
            audits = len(reader.find(AuditEntry, company_id=company))
            events = len(reader.find(OutboxEvent, company_id=company))
        with pytest.raises(DuplicateRecord) as caught:
            book(SLOT + timedelta(hours=1))  # the same generator: the same appointment id
        assert caught.value.value == "again-1"
        with store.read() as reader:
            assert len(reader.find(AuditEntry, company_id=company)) == audits
            assert len(reader.find(OutboxEvent, company_id=company)) == events
            starts = [a.start for a in reader.find(Appointment, company_id=company)]
        assert starts == [SLOT]


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_booking_sees_a_field_another_scheduler_just_required(backend: Backend) -> None:
    """A booking reads its configuration from its process's cache, yet never misses a change."""
    with backend.opener() as store:
        scheduler, company, service, resource, customer = _business(store, "cfg-")
        ws = scheduler.for_company(company)

        def book(start: datetime) -> Appointment:
            return ws.appointments.create(
                service_id=service,
                start=start,
                end=start + timedelta(minutes=30),
                resource_ids=[resource],
                customer_id=customer,
                complete_booking="BK",
            )

        book(SLOT)  # the cache of this scheduler now holds the configuration
        other = Scheduler(store, clock=ManualClock(NOW), ids=SequentialIds("other-"))
        other.for_company(company).fields.define(name="field1", label="Allergies", required=True)
        with pytest.raises(FieldRequired) as caught:
            book(SLOT + timedelta(hours=1))
        assert caught.value.field == "custom_fields.field1"


@pytest.mark.parametrize("backend", BACKENDS)
def test_an_event_numbered_at_insert_is_stored_as_one_numbered_by_next_sequence(
    backend: Backend,
) -> None:
    """Events numbered by the database read back with consecutive numbers, documents unchanged."""
    with backend.opener() as store:
        scheduler, company, service, resource, customer = _business(store, "seq-")
        ws = scheduler.for_company(company)
        with store.transaction() as tx:
            first = tx.next_sequence()
        for number in range(2):
            _book_half_hour(ws, service, resource, customer, number)
        with store.transaction() as tx:
            last = tx.next_sequence()
        events = RECORD_TABLES[OutboxEvent]
        with _schema_connection(store) as conn:
            rows = conn.execute(
                select(events.c.doc, events.c.undelivered)
                .where(events.c.undelivered > first)
                .order_by(events.c.undelivered)
            ).all()
    booked = [decode(OutboxEvent, doc) for doc, _ in rows]
    # The two bookings' events, numbered after the draw before them and before the one after.
    assert [event.sequence for event in booked] == [first + 1, first + 2] == [last - 2, last - 1]
    assert [undelivered for _, undelivered in rows] == [first + 1, first + 2]
    # The stored form is the one a store numbering by next_sequence() writes (rolling upgrades).
    assert [doc for doc, _ in rows] == [encode(event) for event in booked]


def test_a_postgresql_connection_keeps_its_cursors_and_a_new_connection_makes_its_own(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """
    Steady bookings make no driver cursor (each connection keeps the two it uses); when the
    server ends the connection, the booking after it runs on a new one with cursors of its own.
    """
    import psycopg

    made: list[object] = []
    for kind in (psycopg.Cursor, psycopg.ClientCursor):
        original = kind.__init__

        def counting(
            self: object, *args: object, _original: object = original, **kw: object
        ) -> None:
            made.append(self)
            _original(self, *args, **kw)  # type: ignore[operator]

        monkeypatch.setattr(kind, "__init__", counting)
    engine = server_engine(POSTGRES)
    schema = unique_name()
    store = SQLStore(POSTGRES.url, schema=schema)
    try:
        scheduler, company, service, resource, customer = _business(store, "kc-")
        ws = scheduler.for_company(company)

        def book(number: int) -> Appointment:
            return _book_half_hour(ws, service, resource, customer, number)

        book(0)
        made.clear()
        for number in range(1, 4):
            book(number)
        assert made == []
        with store.engine.connect() as conn:
            pid = int(conn.exec_driver_sql("SELECT pg_backend_pid()").scalar_one())
        with engine.connect() as admin:
            admin.exec_driver_sql(f"SELECT pg_terminate_backend({pid})")
            admin.commit()
        made.clear()
        assert book(4).start == SLOT + 4 * timedelta(minutes=30)
        assert {type(cursor) for cursor in made} >= {psycopg.Cursor, psycopg.ClientCursor}
        with store.read() as reader:
            assert len(reader.find(Appointment, company_id=company)) == 5
    finally:
        store.close()
        POSTGRES.drop(engine, schema)


def test_a_kept_cursor_is_let_go_after_a_large_result_or_an_error() -> None:
    """A result of more than ``_KEPT_ROWS`` rows, or an error, closes the kept cursor."""
    from sqlalchemy.exc import DBAPIError

    from slotwise.storage.sql import _riding

    engine = server_engine(POSTGRES)
    try:
        with engine.connect() as conn:
            info = conn.connection.info
            assert _riding.send_all(conn, ["SELECT 1"]) == [[(1,)]]
            kept = info[_riding._DRIVER_CURSOR]
            assert _riding.send_all(conn, ["SELECT 2", "SELECT 3"]) == [[(2,)], [(3,)]]
            assert info[_riding._DRIVER_CURSOR] is kept
            large = f"SELECT generate_series(1, {_riding._KEPT_ROWS + 1})"
            assert len(_riding.send(conn, [large])) == _riding._KEPT_ROWS + 1
            assert _riding._DRIVER_CURSOR not in info
            assert kept.closed
            assert _riding.direct_sql(conn, "SELECT %s::int", (4,)) == [(4,)]
            again = info[_riding._DRIVER_CURSOR]
            with pytest.raises(DBAPIError):
                _riding.send_all(conn, ["SELECT 1 / 0"])
            assert _riding._DRIVER_CURSOR not in info
            assert again.closed
            conn.connection.driver_connection.rollback()  # below SQLAlchemy, as the store is
            assert _riding.send(conn, ["SELECT 5"]) == [(5,)]
    finally:
        engine.dispose()


def test_an_engine_sharing_one_connection_between_threads_keeps_no_cursor() -> None:
    """A ``StaticPool`` hands its one connection to every thread: each query gets its own cursor."""
    from sqlalchemy import create_engine
    from sqlalchemy.pool import StaticPool

    from slotwise.storage.sql import _riding

    engine = create_engine(POSTGRES.url, poolclass=StaticPool)
    try:
        with engine.connect() as conn:
            assert _riding.send_all(conn, ["SELECT 1"]) == [[(1,)]]
            assert _riding.compiled_sql(conn, select(1), {}) == "SELECT 1"
            assert _riding._DRIVER_CURSOR not in conn.connection.info
            assert _riding._CLIENT_CURSOR not in conn.connection.info
    finally:
        engine.dispose()


@pytest.mark.parametrize("pool", ["queue", "static"])
def test_a_connection_the_driver_knows_is_closed_fails_as_a_lost_statement(pool: str) -> None:
    """
    Closed below SQLAlchemy before its first statement, with no cursor kept yet: the driver's
    refusal to make a cursor is wrapped (``DBAPIError``) and the connection invalidated, as for
    a statement the database dropped, whether or not the engine keeps cursors.
    """
    from sqlalchemy import create_engine
    from sqlalchemy.exc import DBAPIError
    from sqlalchemy.pool import StaticPool

    from slotwise.storage.sql import _riding

    engine = (
        server_engine(POSTGRES)
        if pool == "queue"
        else create_engine(POSTGRES.url, poolclass=StaticPool)
    )
    try:
        for run in (
            lambda conn: _riding.send_all(conn, ["SELECT 1"]),
            lambda conn: _riding.direct_sql(conn, "SELECT 1"),
        ):
            with engine.connect() as conn:
                conn.connection.driver_connection.close()
                with pytest.raises(DBAPIError) as raised:
                    run(conn)
                assert raised.value.connection_invalidated
                assert conn.invalidated
            with engine.connect() as conn:  # the pool made a new connection
                assert _riding.send(conn, ["SELECT 1"]) == [(1,)]
    finally:
        engine.dispose()
