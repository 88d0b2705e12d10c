"""
``SQLStore`` with a read replica, on a real PostgreSQL primary and streaming replica (decision 50).

Availability and lists may come from the replica; every booking check runs on the primary, so a
replica whose replay is paused shows a slot that was just booked and booking it is refused with
409. A client that presents its consistency token sees its own booking; a replica further behind
than ``max_lag`` is skipped; a killed replica fails no request.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator
from datetime import UTC, date, datetime, timedelta
from typing import Any

import attrs
import pytest
import sqlalchemy

from slotwise import Scheduler, Service
from slotwise.errors import SlotwiseError
from slotwise.storage.replicas import consistent_with, lagging_read, token_position
from slotwise.storage.sql import SQLStore
from slotwise.testing import ManualClock, SequentialIds

from .replication import Cluster, wait_for
from .servers import unique_name

pytestmark = pytest.mark.external_service

DAY = date(2026, 1, 6)
NOW = datetime(2026, 1, 5, 14, 0, tzinfo=UTC)


def served(store: SQLStore) -> str:
    """Return which server answers a lag-tolerant read of *store* now."""
    return str(lagging_read(store, lambda reader: reader.served_by))  # type: ignore[attr-defined]


@attrs.define
class Shop:
    """One company with a service and a resource, on a store with a replica."""

    cluster: Cluster
    store: SQLStore
    scheduler: Scheduler
    company_id: str
    service_id: str
    resource_id: str
    replica: sqlalchemy.Engine
    """The test's own engine on the replica (autocommit), for pausing and inspecting it."""

    @property
    def ws(self) -> Any:
        """The company's workspace."""
        return self.scheduler.for_company(self.company_id)

    def starts(self) -> list[int]:
        """Return the day's offered start times as HHMM in the location's zone."""
        day = self.ws.availability.times(self.service_id, DAY, DAY)
        return [slot.start.hour * 100 + slot.start.minute for slot in day.available_times]

    def book(self, hour: int, name: str) -> Any:
        """Book the service at *hour*:00 local time on the test day."""
        start = datetime(2026, 1, 6, hour, tzinfo=UTC) + timedelta(hours=5)  # New York, EST
        return self.ws.appointments.create(
            self.service_id,
            start,
            start + timedelta(hours=1),
            resource_id=self.resource_id,
            name=name,
            email=f"{name.lower()}@example.com",
            complete_booking="BK",
        )

    def replica_sql(self, statement: str) -> Any:
        """Run *statement* on the replica as the superuser and return its one value."""
        with self.replica.connect() as conn:
            return conn.exec_driver_sql(statement).scalar()

    def caught_up(self) -> bool:
        """Tell whether the replica has replayed everything the primary wrote so far."""
        with self.store.engine.connect() as conn:
            primary = conn.exec_driver_sql("SELECT pg_current_wal_lsn()::text").scalar()
        replayed = self.replica_sql("SELECT pg_last_wal_replay_lsn()::text")
        return token_position(str(replayed)).covers(token_position(str(primary)))

    def received_ahead(self) -> bool:
        """Tell whether the replica has received WAL that it has not replayed (paused)."""
        return bool(self.replica_sql("SELECT pg_last_wal_receive_lsn() > pg_last_wal_replay_lsn()"))


@pytest.fixture
def shop(cluster: Cluster, request: pytest.FixtureRequest) -> Iterator[Shop]:
    """A shop in a schema of its own, replicated, with the replica caught up and replaying."""
    options: dict[str, Any] = {"max_lag": 3600.0, **getattr(request, "param", {})}
    store = SQLStore(
        cluster.primary_url, schema=unique_name(), replicas=[cluster.replica_url], **options
    )
    scheduler = Scheduler(store, clock=ManualClock(NOW), ids=SequentialIds())
    company = scheduler.create_company(name="Acme", timezone="America/New_York")
    ws = scheduler.for_company(company.id)
    ws.locations.create(name="Downtown")
    service = ws.services.create(name="Cut", duration=60, reason="r")
    ana = ws.resources.create(name="Ana", reason="r", linked_service_ids=[service.id])
    replica = sqlalchemy.create_engine(cluster.replica_url, isolation_level="AUTOCOMMIT")
    made = Shop(cluster, store, scheduler, company.id, service.id, ana.id, replica)
    wait_for(made.caught_up)
    try:
        yield made
    finally:
        # The replica may be down (a test killed it and failed before restarting it).
        with contextlib.suppress(sqlalchemy.exc.SQLAlchemyError):
            made.replica_sql("SELECT pg_wal_replay_resume()")
        replica.dispose()
        store.close()


def test_a_caught_up_replica_answers_reads_that_tolerate_lag(shop: Shop):
    """With the replica caught up, lag-tolerant reads use it and answer as the primary does."""
    served_by = served(shop.store)
    with shop.store.read() as primary_reader:
        primary = primary_reader.served_by

    assert ("replica 0", "primary") == (served_by, primary)
    assert 1000 in shop.starts()


def test_the_deprecated_with_form_still_reads_from_the_replica(shop: Shop):
    """with lagging_read(store) as reader: warns, and the reader is the replica's (one attempt)."""
    with pytest.warns(DeprecationWarning, match="context manager is deprecated"):
        view = lagging_read(shop.store)
    with view as reader:
        served_by = reader.served_by  # type: ignore[attr-defined]
        found = reader.get(Service, shop.service_id)

    assert ("replica 0", shop.service_id) == (served_by, found and found.id)


def test_a_stale_replica_shows_a_booked_slot_and_its_booking_is_refused(shop: Shop):
    """Replay paused: the replica still offers 10:00 after it was booked; booking it again is 409."""
    shop.replica_sql("SELECT pg_wal_replay_pause()")
    first = shop.book(10, "Ann")
    wait_for(shop.received_ahead)

    shown = shop.starts()
    with pytest.raises(SlotwiseError) as refused:
        shop.book(10, "Bob")
    booked = list(shop.ws.appointments.list().data)  # from the stale replica: Ann not there yet
    with shop.store.read() as reader:
        on_primary = reader.appointments_overlapping(
            location_id=first.location_id,
            resource_ids=[shop.resource_id],
            start=first.start,
            end=first.end,
        )

    assert 1000 in shown
    assert 409 == refused.value.http_status
    assert [] == booked
    assert [first.id] == [appointment.id for appointment in on_primary]


def test_a_client_with_its_token_sees_its_own_booking(shop: Shop):
    """Replay paused: a request presenting the booking's token reads from the primary and sees it."""
    shop.replica_sql("SELECT pg_wal_replay_pause()")
    with consistent_with() as session:
        booked = shop.book(10, "Ann")
    wait_for(shop.received_ahead)

    with consistent_with(session.token):
        own_starts = shop.starts()
        own_list = [appointment.id for appointment in shop.ws.appointments.list().data]
        served_while_paused = served(shop.store)
    others_starts = shop.starts()
    shop.replica_sql("SELECT pg_wal_replay_resume()")
    wait_for(shop.caught_up)
    with consistent_with(session.token):
        served_after_replay = served(shop.store)

    assert session.token is not None
    assert 1000 not in own_starts
    assert [booked.id] == own_list
    assert 1000 in others_starts
    assert ("primary", "replica 0") == (served_while_paused, served_after_replay)


@pytest.mark.parametrize("shop", [{"max_lag": 0.001}], indirect=True, ids=["max_lag_1ms"])
def test_a_replica_further_behind_than_max_lag_is_skipped(shop: Shop):
    """Replay paused with WAL waiting: a 1 ms max_lag sends reads to the primary, an hour's does not."""
    shop.replica_sql("SELECT pg_wal_replay_pause()")
    shop.book(10, "Ann")
    wait_for(shop.received_ahead)
    tolerant = SQLStore(
        shop.cluster.primary_url,
        schema=shop.store.schema,
        create=False,
        replicas=[shop.cluster.replica_url],
        max_lag=3600,
    )
    try:
        strict_source, tolerant_source = served(shop.store), served(tolerant)
    finally:
        tolerant.close()

    assert ("primary", "replica 0") == (strict_source, tolerant_source)
    assert 1000 not in shop.starts()  # answered by the primary


@pytest.mark.parametrize("shop", [{"replica_retry": 0.0}], indirect=True, ids=["retry_at_once"])
def test_a_killed_replica_costs_no_failed_request(shop: Shop):
    """Reads go on from the primary while the replica is down and use it again once it is back."""
    assert 1000 in shop.starts()  # a pooled connection to the replica exists
    shop.cluster.stop_replica()
    try:
        answers = [shop.starts() for _ in range(3)]
        while_down = served(shop.store)
    finally:
        shop.cluster.start_replica()

    wait_for(lambda: served(shop.store) == "replica 0")

    assert all(1000 in starts for starts in answers)
    assert "primary" == while_down


def test_over_http_the_consistency_header_reads_your_own_hold(shop: Shop):
    """Replay paused: the hold's answer carries a token; presenting it hides the held 10:00."""
    from litestar.testing import TestClient

    from slotwise import Principal
    from slotwise.http import create_app

    token = shop.scheduler.tokens.create(Principal(company_id=shop.company_id), label="t").token
    location = shop.ws.locations.list().data[0].id
    wait_for(shop.caught_up)
    shop.replica_sql("SELECT pg_wal_replay_pause()")
    times_url = f"/consumer/v1/availability/{shop.service_id}/{DAY}/{DAY}"
    ten = "2026-01-06T10:00:00-05:00"
    with TestClient(create_app(shop.scheduler)) as client:
        client.headers["Authorization"] = f"Bearer {token}"
        held = client.post(
            "/consumer/v1/appointments",
            json={
                "serviceId": shop.service_id,
                "resourceId": shop.resource_id,
                "locationId": location,
                "startDateTime": ten,
                "endDateTime": "2026-01-06T11:00:00-05:00",
            },
        )
        wait_for(shop.received_ahead)
        consistency = held.headers.get("Slotwise-Consistency")
        stale = client.get(times_url).json()["availableTimes"]
        own = client.get(times_url, headers={"Slotwise-Consistency": consistency}).json()
        malformed = client.get(times_url, headers={"Slotwise-Consistency": "yesterday"})

    assert 201 == held.status_code
    assert consistency is not None
    assert ten in {slot["startDateTime"] for slot in stale}
    assert ten not in {slot["startDateTime"] for slot in own["availableTimes"]}
    assert (400, "Slotwise-Consistency") == (malformed.status_code, malformed.json()["field"])


def test_a_replica_failing_mid_read_has_the_read_run_again_on_the_primary(
    shop: Shop, caplog: pytest.LogCaptureFixture
):
    """
    The replica's backend is terminated after the replica was judged and before the read's first
    statement: the availability call answers correctly (from the primary), and the replica is
    left alone for replica_retry.
    """
    shop.book(11, "Ann")
    wait_for(shop.caught_up)
    engine = shop.store.replicas[0]
    killed: list[int] = []

    def kill_before_the_first_read(conn: Any, cursor: Any, statement: str, *args: Any) -> None:
        if not killed and "pg_is_in_recovery" not in statement:  # the replica's sample passed
            killed.append(cursor.connection.info.backend_pid)
            # With a timeout, pg_terminate_backend returns once the backend has exited.
            assert shop.replica_sql(f"SELECT pg_terminate_backend({killed[0]}, 10000)")

    sqlalchemy.event.listen(engine, "before_cursor_execute", kill_before_the_first_read)
    try:
        with caplog.at_level("WARNING", logger="slotwise.storage"):
            starts = shop.starts()
    finally:
        sqlalchemy.event.remove(engine, "before_cursor_execute", kill_before_the_first_read)
    next_read = served(shop.store)

    assert 1 == len(killed)
    assert 1000 in starts
    assert 1100 not in starts
    assert any("replica 0 failed during a read" in r.getMessage() for r in caplog.records)
    assert "primary" == next_read  # marked down for replica_retry (5 s)


def test_an_error_of_the_read_itself_on_a_replica_is_raised_not_run_again(shop: Shop):
    """NotFound raised while reading on the replica is the caller's: raised once, replica kept."""
    calls: list[str] = []

    def read(reader: Any) -> None:
        calls.append(reader.served_by)
        shop.ws.appointments.get("no-such-appointment")  # its own read, on the primary

    with pytest.raises(SlotwiseError) as refused:
        lagging_read(shop.store, read)

    assert 404 == refused.value.http_status
    assert ["replica 0"] == calls
    assert "replica 0" == served(shop.store)


@pytest.mark.parametrize("shop", [{"replica_retry": 0.2}], indirect=True, ids=["retry_200ms"])
def test_threads_reading_while_the_replica_crashes_and_restarts_see_no_failure(
    shop: Shop, caplog: pytest.LogCaptureFixture
):
    """
    4 threads list availability and appointments while the replica is killed (``pg_ctl stop -m
    immediate``) and started again: 0 failed calls, every answer right, the replica used again.
    """
    shop.book(11, "Ann")
    wait_for(shop.caught_up)
    stop = threading.Event()
    answers: list[bool] = []
    failures: list[BaseException] = []

    def client() -> None:
        while not stop.is_set():
            try:
                starts = shop.starts()
                listed = shop.ws.appointments.list().data
                answers.append(1000 in starts and 1100 not in starts and len(listed) == 1)
            except BaseException as error:  # any failure at all is what the test counts
                failures.append(error)

    def calls_grow_by(count: int) -> None:
        done = len(answers) + len(failures) + count
        wait_for(lambda: len(answers) + len(failures) >= done, seconds=60)

    threads = [threading.Thread(target=client) for _ in range(4)]
    with caplog.at_level("WARNING", logger="slotwise.storage"):
        for thread in threads:
            thread.start()
        try:
            calls_grow_by(8)
            shop.cluster.stop_replica()
            calls_grow_by(8)
            shop.cluster.start_replica()
            wait_for(lambda: served(shop.store) == "replica 0")
            calls_grow_by(8)
        finally:
            stop.set()
            for thread in threads:
                thread.join()
    reruns = sum("failed during a read" in record.getMessage() for record in caplog.records)
    print(f"{len(answers)} calls, {len(failures)} failed, {reruns} re-run after a failing replica")

    assert [] == failures
    assert all(answers)
    assert len(answers) >= 24
