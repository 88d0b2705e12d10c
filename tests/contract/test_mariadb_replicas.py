"""
``SQLStore`` with a read replica on a real MariaDB primary and GTID replica (decision 50).

Availability and lists may come from the replica; every booking check runs on the primary. A
replica kept from applying (``FLUSH TABLES WITH READ LOCK`` held on it: both replication threads
running, ``Seconds_Behind_Master`` growing) shows a slot that was just booked, and booking it is
refused with 409. A replica whose SQL thread is stopped reports no lag (``NULL``) and is skipped.
A client presenting its GTID token sees its own booking; a replica further behind than
``max_lag`` is skipped; a killed replica fails no request.
"""

from __future__ import annotations

import contextlib
import itertools
import logging
from collections.abc import Iterator
from datetime import UTC, date, datetime, timedelta
from typing import Any

import attrs
import pytest
import sqlalchemy

from slotwise import Scheduler
from slotwise.errors import SlotwiseError
from slotwise.storage.replicas import GTIDPosition, consistent_with, lagging_read, token_position
from slotwise.storage.sql import SQLStore
from slotwise.testing import ManualClock, SequentialIds

from .mariadb_replication import MariaDBPair, apply_blocked, start_pair
from .replication import wait_for
from .servers import unique_name

pytestmark = pytest.mark.external_service

DAY = date(2026, 1, 6)
NOW = datetime(2026, 1, 5, 14, 0, tzinfo=UTC)
_shops = itertools.count()


@pytest.fixture(scope="module")
def pair() -> Iterator[MariaDBPair]:
    """A MariaDB primary and a replica following it, shared by this module's tests."""
    started = start_pair()
    try:
        yield started
    finally:
        started.stop()


@pytest.fixture(scope="module")
def schema(pair: MariaDBPair) -> str:
    """A database with slotwise's tables, made once: each test's shop is a company of its own."""
    name = unique_name()
    SQLStore(pair.primary_url, schema=name).close()
    return name


@attrs.define
class Shop:
    """One company with a service and a resource, on a MariaDB store with a replica."""

    pair: MariaDBPair
    store: SQLStore
    scheduler: Scheduler
    company_id: str
    service_id: str
    resource_id: str

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

    def served_by(self) -> str:
        """Return which server answers a lag-tolerant read now."""
        return str(lagging_read(self.store, lambda reader: reader.served_by))  # type: ignore[attr-defined]

    def _primary_position(self) -> GTIDPosition:
        """Return the primary's binary log position (every commit so far)."""
        position = token_position(
            self.pair.value(self.pair.primary_port, "SELECT @@gtid_binlog_pos")
        )
        assert isinstance(position, GTIDPosition)
        return position

    def caught_up(self) -> bool:
        """Tell whether the replica has applied everything the primary wrote so far."""
        applied = self.pair.value(self.pair.replica_port, "SELECT @@gtid_slave_pos")
        return bool(applied) and token_position(applied).covers(self._primary_position())

    def received_ahead(self) -> bool:
        """Tell whether the replica has received a commit it has not applied (apply blocked)."""
        status = self.pair.replica_status()
        received = status["Gtid_IO_Pos"]
        return bool(received) and (
            token_position(received).covers(self._primary_position()) and not self.caught_up()
        )


@pytest.fixture
def shop(pair: MariaDBPair, schema: str, request: pytest.FixtureRequest) -> Iterator[Shop]:
    """A company of its own on the replicated database, with the replica caught up and applying."""
    options: dict[str, Any] = {"max_lag": 3600.0, **getattr(request, "param", {})}
    store = SQLStore(
        pair.primary_url, schema=schema, create=False, replicas=[pair.replica_url], **options
    )
    # The shops share the database: each test's ids get a prefix of their own.
    scheduler = Scheduler(store, clock=ManualClock(NOW), ids=SequentialIds(f"s{next(_shops)}-"))
    company = scheduler.create_company(name="Acme", timezone="America/New_York")
    ws = scheduler.for_company(company.id)
    ws.locations.create(name="Downtown")
    service = ws.services.create(name="Cut", duration=60, reason="r")
    ana = ws.resources.create(name="Ana", reason="r", linked_service_ids=[service.id])
    made = Shop(pair, store, scheduler, company.id, service.id, ana.id)
    wait_for(made.caught_up)
    try:
        yield made
    finally:
        # The replica may be down (a test killed it and failed before restarting it).
        with contextlib.suppress(Exception):
            pair.sql(pair.replica_port, "START SLAVE")
        store.close()


def test_a_caught_up_replica_answers_reads_that_tolerate_lag(shop: Shop):
    """With the replica caught up, lag-tolerant reads use it and answer as the primary does."""
    with shop.store.read() as primary_reader:
        primary = primary_reader.served_by

    assert ("replica 0", "primary") == (shop.served_by(), primary)
    assert 1000 in shop.starts()
    assert [] == list(shop.ws.appointments.list().data)


def test_a_stale_replica_shows_a_booked_slot_and_its_booking_is_refused(shop: Shop):
    """Apply blocked: the replica still offers 10:00 after it was booked; booking it again is 409."""
    with apply_blocked(shop.pair):
        first = shop.book(10, "Ann")
        wait_for(shop.received_ahead)

        source = shop.served_by()
        shown = shop.starts()
        with pytest.raises(SlotwiseError) as refused:
            shop.book(10, "Bob")
        booked = list(shop.ws.appointments.list().data)  # from the stale replica: no Ann yet
    with shop.store.read() as reader:
        on_primary = reader.appointments_overlapping(
            location_id=first.location_id,
            resource_ids=[shop.resource_id],
            start=first.start,
            end=first.end,
        )

    assert "replica 0" == source
    assert 1000 in shown
    assert 409 == refused.value.http_status
    assert [] == booked
    assert [first.id] == [appointment.id for appointment in on_primary]


def test_a_replica_whose_sql_thread_is_stopped_is_skipped(
    shop: Shop, caplog: pytest.LogCaptureFixture
):
    """STOP SLAVE SQL_THREAD: the replica reports no lag (NULL), so the primary answers."""
    shop.pair.sql(shop.pair.replica_port, "STOP SLAVE SQL_THREAD")
    shop.book(10, "Ann")
    wait_for(shop.received_ahead)
    status = shop.pair.replica_status()

    with caplog.at_level(logging.INFO, logger="slotwise.storage"):
        source, starts = shop.served_by(), shop.starts()
    shop.pair.sql(shop.pair.replica_port, "START SLAVE SQL_THREAD")
    wait_for(shop.caught_up)

    assert ("No", None) == (status["Slave_SQL_Running"], status["Seconds_Behind_Master"])
    assert "its SQL thread is not running" in caplog.text
    assert "primary" == source
    assert 1000 not in starts
    assert "replica 0" == shop.served_by()


def test_a_primary_given_as_a_replica_is_skipped(shop: Shop, caplog: pytest.LogCaptureFixture):
    """A server with no replication connection follows no primary: never read as a replica."""
    mistaken = SQLStore(
        shop.pair.primary_url,
        schema=shop.store.schema,
        create=False,
        replicas=[shop.pair.primary_url],
    )
    try:
        with caplog.at_level(logging.INFO, logger="slotwise.storage"):
            source = lagging_read(mistaken, lambda reader: reader.served_by)  # type: ignore[attr-defined]
    finally:
        mistaken.close()

    assert "primary" == source
    assert "it is not a replica" in caplog.text


def test_a_client_with_its_token_sees_its_own_booking(shop: Shop):
    """Apply blocked: a request presenting the booking's GTID token reads from the primary."""
    with apply_blocked(shop.pair):
        with consistent_with() as session:
            booked = shop.book(10, "Ann")
        wait_for(shop.received_ahead)

        with consistent_with(session.token):
            own_starts = shop.starts()
            own_list = [appointment.id for appointment in shop.ws.appointments.list().data]
            served_while_blocked = shop.served_by()
        others_starts = shop.starts()
    wait_for(shop.caught_up)
    with consistent_with(session.token):
        served_after_apply = shop.served_by()

    assert isinstance(token_position(str(session.token)), GTIDPosition)
    assert 1000 not in own_starts
    assert [booked.id] == own_list
    assert 1000 in others_starts
    assert ("primary", "replica 0") == (served_while_blocked, served_after_apply)


@pytest.mark.parametrize("shop", [{"max_lag": 1.0}], indirect=True, ids=["max_lag_1s"])
def test_a_replica_further_behind_than_max_lag_is_skipped(shop: Shop):
    """Apply blocked until Seconds_Behind_Master passes 1 s: max_lag 1 s skips it, an hour's not."""
    tolerant = SQLStore(
        shop.pair.primary_url,
        schema=shop.store.schema,
        create=False,
        replicas=[shop.pair.replica_url],
        max_lag=3600,
    )
    try:
        with apply_blocked(shop.pair):
            shop.book(10, "Ann")
            # Seconds_Behind_Master counts whole seconds since the blocked event was written.
            wait_for(lambda: (shop.pair.replica_status()["Seconds_Behind_Master"] or 0) >= 2)
            strict_source = shop.served_by()
            strict_starts = shop.starts()
            tolerant_source = lagging_read(tolerant, lambda reader: reader.served_by)  # type: ignore[attr-defined]
    finally:
        tolerant.close()

    assert ("primary", "replica 0") == (strict_source, tolerant_source)
    assert 1000 not in strict_starts  # answered by the primary


@pytest.mark.parametrize("shop", [{"replica_retry": 0.0}], indirect=True, ids=["retry_at_once"])
def test_a_killed_replica_costs_no_failed_request(shop: Shop):
    """kill -9 of the replica: reads go on from the primary, and use the replica once it is back."""
    assert 1000 in shop.starts()  # a pooled connection to the replica exists
    shop.pair.kill_replica()
    try:
        answers = [shop.starts() for _ in range(3)]
        while_down = shop.served_by()
    finally:
        shop.pair.start_replica()

    wait_for(lambda: shop.served_by() == "replica 0")

    assert all(1000 in starts for starts in answers)
    assert "primary" == while_down


def test_over_http_the_consistency_header_carries_a_gtid(shop: Shop):
    """Apply blocked: the hold's answer carries a GTID token; presenting it hides the held 10:00."""
    from litestar.testing import TestClient

    from slotwise import Principal
    from slotwise.http import create_app

    token = shop.scheduler.tokens.create(Principal(company_id=shop.company_id), label="t").token
    location = shop.ws.locations.list().data[0].id
    wait_for(shop.caught_up)
    times_url = f"/consumer/v1/availability/{shop.service_id}/{DAY}/{DAY}"
    ten = "2026-01-06T10:00:00-05:00"
    with apply_blocked(shop.pair), TestClient(create_app(shop.scheduler)) as client:
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

    assert 201 == held.status_code
    assert isinstance(token_position(consistency), GTIDPosition)
    assert ten in {slot["startDateTime"] for slot in stale}
    assert ten not in {slot["startDateTime"] for slot in own["availableTimes"]}


def test_a_replica_connection_killed_mid_read_has_the_read_run_again_on_the_primary(
    shop: Shop, caplog: pytest.LogCaptureFixture
):
    """
    The store's replica connection is killed (``KILL``) after the replica was judged and its
    read begun, before the read's first statement: the call answers right, from the primary.
    """
    shop.book(11, "Ann")
    wait_for(shop.caught_up)
    engine = shop.store.replicas[0]
    killed: list[int] = []

    def kill_before_the_first_read(conn: Any, cursor: Any, statement: str, *args: Any) -> None:
        judging = statement.lstrip().upper().startswith(("SHOW", "SET", "SELECT @@"))
        if not killed and not judging:
            killed.append(cursor.connection.thread_id())
            shop.pair.sql(shop.pair.replica_port, f"KILL CONNECTION {killed[0]}")

    sqlalchemy.event.listen(engine, "before_cursor_execute", kill_before_the_first_read)
    try:
        with caplog.at_level(logging.WARNING, logger="slotwise.storage"):
            starts = shop.starts()
    finally:
        sqlalchemy.event.remove(engine, "before_cursor_execute", kill_before_the_first_read)

    assert 1 == len(killed)
    assert (True, False) == (1000 in starts, 1100 in starts)
    assert "replica 0 failed during a read" in caplog.text
    assert "primary" == shop.served_by()  # left alone for replica_retry
