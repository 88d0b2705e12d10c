"""
A lag-tolerant read on a warm configuration cache (availability) on a store's own engine: its
round trips on the wire, and a pooled connection the server ended meanwhile (not pinged at
checkout, the read runs again on a pinged one; an unreachable server still fails it).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, date, datetime, timedelta
from typing import Any

import attrs
import pytest
from sqlalchemy import make_url

from slotwise import (
    Appointment,
    NotFound,
    Scheduler,
    Service,
    StoreError,
    StoreUnavailable,
    Unauthorized,
    Workspace,
)
from slotwise.storage.batched import last_read
from slotwise.storage.replicas import lagging_read
from slotwise.storage.sql import SQLStore
from slotwise.storage.sql._schema import RECORD_TABLES
from slotwise.storage.sql._unit_base import ViewEnded
from slotwise.testing import ManualClock, SequentialIds

from .servers import MARIADB, POSTGRES, Server, server_engine, server_store, unique_name
from .test_sql_round_trips import _relay

pytestmark = pytest.mark.external_service

NOW = datetime(2026, 1, 5, 12, 0, tzinfo=UTC)
WEEK = date(2026, 1, 6)
SERVERS = [pytest.param(POSTGRES, id="postgres"), pytest.param(MARIADB, id="mariadb")]


def _business(store: SQLStore) -> tuple[Workspace, str]:
    """A location with one service and resource, and two booked appointments in the week."""
    scheduler = Scheduler(store, clock=ManualClock(NOW), ids=SequentialIds("rd-"))
    company = scheduler.create_company(name="Spa", timezone="America/New_York")
    ws = scheduler.for_company(company.id)
    ws.locations.create(name="Downtown")
    service = ws.services.create(name="Cut", duration=30, booking_interval=30, reason="x")
    resource = ws.resources.create(name="Ann", reason="x", linked_service_ids=[service.id])
    for hour in (14, 16):
        start = datetime(2026, 1, 6, hour, tzinfo=UTC)
        ws.appointments.create(
            service.id,
            start,
            start + timedelta(minutes=30),
            resource_id=resource.id,
            complete_booking="BK",
            name="Guest",
            email="guest@example.com",
        )
    return Scheduler(store, clock=ManualClock(NOW)).for_company(company.id), service.id


def _week(ws: Workspace, service_id: str) -> list[Any]:
    return ws.availability.times(service_id, WEEK, WEEK + timedelta(days=6)).available_times


@contextmanager
def _relayed_store(server: Server) -> Iterator[tuple[SQLStore, Any]]:
    """A store on an engine of its own, through a relay counting round trips."""
    engine = server_engine(server)
    url = make_url(server.url)
    schema = unique_name()
    try:
        with _relay(url.host or "127.0.0.1", url.port or 0) as (port, trips):
            relayed = url.set(host="127.0.0.1", port=port)
            store = SQLStore(relayed, schema=schema)
            try:
                yield store, trips
            finally:
                store.close()
    finally:
        server.drop(engine, schema)


def _session_id(store: SQLStore) -> int:
    """The server's id of the connection the store's pool holds (it holds one)."""
    assert store.engine.pool.checkedin() == 1  # type: ignore[attr-defined]
    backend = store.engine.dialect.name
    query = "SELECT pg_backend_pid()" if backend == "postgresql" else "SELECT CONNECTION_ID()"
    with store.engine.connect() as conn:
        return int(conn.exec_driver_sql(query).scalar_one())


def _end_session(server: Server, session: int) -> None:
    """End one server connection from another, as a restart or an administrator would."""
    with server_engine(server).connect() as conn:
        if server is POSTGRES:
            conn.exec_driver_sql(f"SELECT pg_terminate_backend({session})")
        else:
            conn.exec_driver_sql(f"KILL {session}")
        conn.commit()


@pytest.mark.parametrize("server", SERVERS)
def test_availability_on_a_warm_cache_makes_one_round_trip(server: Server) -> None:
    """
    BEGIN, the configuration version (asked for ahead), the appointments with their span bound
    and the ROLLBACK (the read announced as the view's last) in one query: nothing is sent when
    the pool takes the connection back.
    """
    round_trips = 1
    with _relayed_store(server) as (store, trips):
        ws, service_id = _business(store)
        expected = _week(ws, service_id)  # loads the configuration
        before = trips.count
        assert _week(ws, service_id) == expected
        # No ping: a dead pooled connection makes the read run again (the tests below).
        assert trips.count - before == round_trips
        # The view ended on the server: the connection went back to the pool with nothing open.
        assert _week(ws, service_id) == expected
        assert trips.count - before == 2 * round_trips


@pytest.mark.parametrize("server", SERVERS)
def test_a_configuration_changed_after_the_cache_loaded_it_is_never_served(
    server: Server, caplog: pytest.LogCaptureFixture
) -> None:
    """
    On a warm cache the version is checked only when it arrives with the appointments: a change
    another scheduler (another process's) committed since makes the read run again, so the
    answer -- and an error decided on the held configuration -- are the new configuration's.
    """
    with server_store(server, by_url=True) as store:
        ws, service_id = _business(store)
        with store.read() as reader:
            cut = reader.get(Service, service_id)
        assert cut is not None
        _week(ws, service_id)  # the cache holds the configuration
        other = Scheduler(store, clock=ManualClock(NOW), ids=SequentialIds("other-"))
        elsewhere = other.for_company(cut.company_id)

        def uncached(service: str) -> list[Any]:
            scheduler = Scheduler(store, clock=ManualClock(NOW), cache_configuration=False)
            return _week(scheduler.for_company(cut.company_id), service)

        elsewhere.services.update(service_id, duration=60)
        with caplog.at_level(logging.DEBUG, logger="slotwise.storage"):
            assert _week(ws, service_id) == uncached(service_id)
        assert "configuration changed" in caplog.text
        assert {slot.duration for slot in _week(ws, service_id)} == {60}
        # A service made since the cache loaded: not "not found" from the held configuration.
        made = elsewhere.services.create(name="New", duration=30, booking_interval=30, reason="x")
        assert _week(ws, made.id) == uncached(made.id)
        # One deleted since: not answered from the held configuration either.
        _week(ws, made.id)
        elsewhere.services.delete(made.id)
        with pytest.raises(NotFound):
            _week(ws, made.id)


@pytest.mark.parametrize("server", SERVERS)
def test_a_read_going_on_after_its_announced_last_read_runs_again_on_one_snapshot(
    server: Server,
) -> None:
    """lagging_read runs the read again on a view that ends as usual; a plain read() raises ViewEnded."""
    with server_store(server, by_url=True) as store:
        ws, service_id = _business(store)
        attempts: list[str] = []

        def read(reader: Any) -> tuple[Any, Any]:
            attempts.append(getattr(reader, "served_by", "?"))
            last_read(reader)
            first = reader.get(Service, service_id)
            second = reader.find(Service, company_id=first.company_id)
            return first, second

        first, second = lagging_read(store, read)
        assert first is not None
        assert [s.id for s in second] == [service_id]
        assert len(attempts) == 2
        with store.read() as reader:
            last_read(reader)
            assert reader.get(Service, service_id) == first
            with pytest.raises(ViewEnded):
                reader.find(Service, company_id=first.company_id)
        # The pool's connection is usable: nothing was left open on it.
        assert _week(ws, service_id)


@pytest.mark.parametrize("server", SERVERS)
def test_a_last_read_that_fails_before_its_rollback_leaves_no_transaction_open(
    server: Server,
) -> None:
    """
    The server stops a round trip's statements at the first that fails, so a last read that
    fails never reaches the ROLLBACK riding behind it: the error reaches the caller as a
    StoreError and the connection still goes back to the pool with nothing open on it.
    """
    with server_store(server, by_url=True) as store:
        ws, service_id = _business(store)
        expected = _week(ws, service_id)
        table = RECORD_TABLES[Service].name
        quote = store.engine.dialect.identifier_preparer.quote
        schema = quote(store.schema or "")
        rename = (
            "ALTER TABLE {schema}.{old} RENAME TO {new}"
            if server is POSTGRES
            else "RENAME TABLE {schema}.{old} TO {schema}.{new}"
        )

        def renamed(old: str, new: str) -> None:
            with server_engine(server).connect() as conn:
                conn.exec_driver_sql(rename.format(schema=schema, old=quote(old), new=quote(new)))
                conn.commit()

        renamed(table, table + "_away")
        try:
            with store.read() as reader:
                last_read(reader)
                with pytest.raises(StoreError):
                    reader.find(Service, company_id=None)
        finally:
            renamed(table + "_away", table)
        with store.engine.connect() as conn:  # the pool's one connection, as returned
            if server is POSTGRES:  # an aborted transaction would refuse any statement
                assert conn.exec_driver_sql("SELECT 1").scalar_one() == 1
            else:
                assert conn.exec_driver_sql("SELECT @@in_transaction").scalar_one() == 0
        assert _week(ws, service_id) == expected


@pytest.mark.parametrize("server", SERVERS)
def test_a_read_on_a_pooled_connection_the_server_ended_runs_again(
    server: Server, caplog: pytest.LogCaptureFixture
) -> None:
    """The caller gets its answer, the dead connection is replaced, units of work go on."""
    with server_store(server, by_url=True) as store:
        ws, service_id = _business(store)
        expected = _week(ws, service_id)
        ended = _session_id(store)
        _end_session(server, ended)
        with caplog.at_level(logging.INFO, logger="slotwise.storage"):
            assert _week(ws, service_id) == expected
        # Found lost by its first round trip (sent again on another connection), or by the read
        # (run again): either way the caller sees nothing of it.
        assert "again" in caplog.text
        assert _session_id(store) != ended
        # A unit of work checks its connection out pinged: ended again, it is replaced too.
        _end_session(server, _session_id(store))
        start = datetime(2026, 1, 7, 15, tzinfo=UTC)
        ws.appointments.create(
            service_id,
            start,
            start + timedelta(minutes=30),
            complete_booking="BK",
            name="Guest",
            email="guest@example.com",
        )
        assert len(_week(ws, service_id)) == len(expected) - 1


@pytest.mark.parametrize("server", SERVERS)
def test_a_plain_read_is_not_pinged_and_replaces_a_connection_the_server_ended(
    server: Server, caplog: pytest.LogCaptureFixture
) -> None:
    """
    ``store.read()`` (an appointment read) sends its first statement with its BEGIN and no ping
    before them: the appointment, the ROLLBACK at release (two round trips); on a pooled
    connection the server ended meanwhile, the first round trip is sent again on another
    connection and the caller sees nothing of it.
    """
    with _relayed_store(server) as (store, trips):
        ws, _ = _business(store)
        appointment = ws.appointments.list(limit=1).data[0]
        before = trips.count
        assert ws.appointments.get(appointment.id) == appointment
        assert trips.count - before == 2
    with server_store(server, by_url=True) as store:
        ws, _ = _business(store)
        appointment = ws.appointments.list(limit=1).data[0]
        _answers_after_its_connection_ended(
            server, store, lambda: ws.appointments.get(appointment.id), caplog
        )


def _answers_after_its_connection_ended(
    server: Server, store: SQLStore, read: Callable[[], object], caplog: pytest.LogCaptureFixture
) -> None:
    """*read* answers as before once the server ended the pool's connection (sent again)."""
    expected = read()
    ended = _session_id(store)
    _end_session(server, ended)
    with caplog.at_level(logging.INFO, logger="slotwise.storage"):
        assert read() == expected
    assert "sent again on another" in caplog.text
    assert _session_id(store) != ended


@pytest.mark.parametrize("server", SERVERS)
def test_a_read_of_configuration_on_a_warm_cache_makes_one_round_trip(
    server: Server, caplog: pytest.LogCaptureFixture
) -> None:
    """
    A list of services reads only configuration: on a warm cache, BEGIN, the version (asked
    for ahead) and the ROLLBACK go in one round trip; a pooled connection the server ended
    meanwhile is replaced as for any read.
    """
    with _relayed_store(server) as (store, trips):
        ws, _ = _business(store)
        expected = ws.services.list()  # loads the configuration
        before = trips.count
        assert ws.services.list() == expected
        assert trips.count - before == 1
        # The view ended on the server: the connection went back to the pool with nothing open.
        assert ws.resources.list() == ws.resources.list()
        assert trips.count - before == 3
        # A record the configuration does not hold: its read rides with the version, then the
        # ROLLBACK (two round trips, as without the cache).
        with pytest.raises(NotFound):
            ws.services.get("no-such-service")
        assert trips.count - before == 5
    with server_store(server, by_url=True) as store:
        ws, _ = _business(store)
        ws.services.list()  # loads the configuration
        _answers_after_its_connection_ended(server, store, ws.services.list, caplog)


@pytest.mark.parametrize("server", SERVERS)
def test_a_configuration_read_never_answers_from_a_configuration_changed_since(
    server: Server, caplog: pytest.LogCaptureFixture
) -> None:
    """
    Another scheduler (another process's) changes, adds and deletes services after this one's
    cache loaded the configuration: each next read of this one answers as an uncached read does
    at that moment, a service gone included (NotFound, not the held record).
    """
    with server_store(server, by_url=True) as store:
        ws, service_id = _business(store)
        company_id = ws.company.get().id
        other = Scheduler(store, clock=ManualClock(NOW), ids=SequentialIds("other-"))
        elsewhere = other.for_company(company_id)
        uncached = Scheduler(store, clock=ManualClock(NOW), cache_configuration=False)
        fresh = uncached.for_company(company_id)
        assert ws.services.get(service_id).duration == 30  # the cache holds the configuration
        elsewhere.services.update(service_id, duration=60)
        with caplog.at_level(logging.DEBUG, logger="slotwise.storage"):
            assert ws.services.get(service_id).duration == 60
        assert "configuration changed" in caplog.text  # answered by the second view
        made = elsewhere.services.create(name="New", duration=30, booking_interval=30, reason="x")
        assert ws.services.list() == fresh.services.list()
        assert made.id in [service.id for service in ws.services.list().data]
        elsewhere.services.delete(made.id)
        assert ws.services.list() == fresh.services.list()
        with pytest.raises(NotFound):
            ws.services.get(made.id)
        elsewhere.locations.update(ws.locations.list().data[0].id, name="Uptown")
        assert ws.locations.list().data[0].name == "Uptown"
        # A principal limited to another location: refused, from the cache as from the store.
        north = elsewhere.locations.create(name="North")
        limited = Scheduler(store, clock=ManualClock(NOW)).for_company(
            company_id, location_ids=frozenset({north.id})
        )
        for workspace in (limited, limited):  # a cold cache, then a warm one
            with pytest.raises(Unauthorized):
                workspace.services.get(service_id)
            assert [] == list(workspace.services.list().data)


@pytest.mark.parametrize("server", SERVERS)
def test_a_read_when_the_server_is_gone_raises_store_unavailable(
    server: Server, caplog: pytest.LogCaptureFixture
) -> None:
    """The read runs again on a pinged connection, which cannot be made: StoreUnavailable."""
    engine = server_engine(server)
    url = make_url(server.url)
    schema = unique_name()
    try:
        with _relay(url.host or "127.0.0.1", url.port or 0) as (port, _):
            store = SQLStore(url.set(host="127.0.0.1", port=port), schema=schema)
            ws, service_id = _business(store)
            _week(ws, service_id)
        try:  # the relay is closed: pooled connections dead, new ones refused
            with (
                caplog.at_level(logging.INFO, logger="slotwise.storage"),
                pytest.raises(StoreUnavailable),
            ):
                _week(ws, service_id)
            assert "again" in caplog.text  # the second attempt failed
        finally:
            store.close()
    finally:
        server.drop(engine, schema)


@pytest.mark.parametrize("server", SERVERS)
def test_availability_whose_appointment_names_a_service_gone_still_answers(
    server: Server, caplog: pytest.LogCaptureFixture
) -> None:
    """
    A padding looked up after the view's last read (a service not in the cached configuration)
    makes the read run again: the answer is the uncached one, not an error.
    """
    with server_store(server, by_url=True) as store:
        ws, service_id = _business(store)
        with store.read() as reader:
            cut = reader.get(Service, service_id)
        assert cut is not None
        other = Scheduler(store, clock=ManualClock(NOW), ids=SequentialIds("gone-"))
        gone = other.for_company(cut.company_id).services.create(
            name="Gone", duration=30, booking_interval=30, reason="x", padding=15
        )
        with store.read() as reader:
            appointment = reader.find(Appointment, company_id=cut.company_id)[0]
        with store.transaction() as tx:  # below the operations, which refuse it
            tx.update(attrs.evolve(appointment, service_id=gone.id))
            tx.delete(Service, gone.id)
        uncached = Scheduler(store, clock=ManualClock(NOW), cache_configuration=False)
        expected = _week(uncached.for_company(cut.company_id), service_id)
        with caplog.at_level(logging.DEBUG, logger="slotwise.storage"):
            assert _week(ws, service_id) == expected
        assert "runs again" in caplog.text


def test_a_store_made_mariadb_engine_still_resets_a_returned_connection() -> None:
    """The pool's own reset (a read not ended by its last read, a unit's connection) still rolls back."""
    with server_store(MARIADB, by_url=True) as store:
        ws, service_id = _business(store)
        _week(ws, service_id)
        with store.read() as reader:
            assert reader.get(Service, service_id) is not None  # a view that ends as usual
        with store.engine.connect() as conn:  # the pool's one connection, as returned
            assert conn.exec_driver_sql("SELECT @@in_transaction").scalar_one() == 0
