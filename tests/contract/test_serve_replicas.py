"""
``slotwise serve --replica`` (issue 24, decision 50): a real server process with two worker
processes, on the primary and streaming replica of ``replication.py``, configured by its command
line and ``SLOTWISE_*`` variables, met over HTTP as its clients meet it.
"""

from __future__ import annotations

import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import pytest
import sqlalchemy

from slotwise import Principal, Scheduler
from slotwise.storage.replicas import WALPosition, token_position
from slotwise.storage.sql import SQLStore
from tests.http._served import child_environment, free_port

from .replication import Cluster, wait_for
from .servers import unique_name

pytestmark = pytest.mark.external_service

# The server runs on the system clock: the test books the first time offered on a Tuesday
# two to eight days ahead of it.
_TODAY = datetime.now(UTC).date()
DAY = _TODAY + timedelta(days=2 + (1 - _TODAY.weekday() - 2) % 7)


@contextmanager
def _database(cluster: Cluster) -> Iterator[tuple[str, str]]:
    """Yield (primary URL, replica URL) of a new database on the cluster; drop it afterwards."""
    name = unique_name()
    admin = sqlalchemy.create_engine(cluster.primary_url, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.exec_driver_sql(f'CREATE DATABASE "{name}"')
    try:
        yield (
            cluster.primary_url.rsplit("/", 1)[0] + f"/{name}",
            cluster.replica_url.rsplit("/", 1)[0] + f"/{name}",
        )
    finally:
        with admin.connect() as conn:
            conn.exec_driver_sql(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        admin.dispose()


def _seed(url: str) -> dict[str, str]:
    """Create a company with a location, a one-hour service and a resource; return ids and token."""
    store = SQLStore(url)
    try:
        scheduler = Scheduler(store)
        company = scheduler.create_company(name="Acme", timezone="America/New_York")
        ws = scheduler.for_company(company.id)
        location = ws.locations.create(name="Downtown")
        service = ws.services.create(name="Cut", duration=60, reason="r")
        ana = ws.resources.create(name="Ana", reason="r", linked_service_ids=[service.id])
        token = scheduler.tokens.create(Principal(company_id=company.id), label="t").token
    finally:
        store.close()
    return {"location": location.id, "service": service.id, "resource": ana.id, "token": token}


class Replica:
    """The test's autocommit view of the primary and the replica, for pausing and comparing."""

    def __init__(self, primary_url: str, replica_url: str) -> None:
        self.primary = sqlalchemy.create_engine(primary_url, isolation_level="AUTOCOMMIT")
        self.replica = sqlalchemy.create_engine(
            replica_url, isolation_level="AUTOCOMMIT", pool_pre_ping=True
        )

    def sql(self, statement: str) -> Any:
        """Run *statement* on the replica and return its one value."""
        with self.replica.connect() as conn:
            return conn.exec_driver_sql(statement).scalar()

    def caught_up(self) -> bool:
        """
        Tell whether the replica has replayed all the primary wrote so far (not yet while it
        has not replayed the test database's creation: it refuses a connection to it).
        """
        with self.primary.connect() as conn:
            written = conn.exec_driver_sql("SELECT pg_current_wal_lsn()::text").scalar()
        try:
            replayed = self.sql("SELECT pg_last_wal_replay_lsn()::text")
        except sqlalchemy.exc.OperationalError as error:
            if "does not exist" not in str(error):
                raise
            return False
        return token_position(str(replayed)).covers(token_position(str(written)))

    def received_ahead(self) -> bool:
        """Tell whether the replica holds WAL it has not replayed (replay paused)."""
        return bool(self.sql("SELECT pg_last_wal_receive_lsn() > pg_last_wal_replay_lsn()"))

    def serving_connections(self) -> int:
        """How many client connections of the served database the replica has."""
        return int(
            self.sql(
                "SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'client backend'"
                " AND datname = current_database() AND pid <> pg_backend_pid()"
            )
        )

    def dispose(self) -> None:
        """Close the test's connections."""
        self.primary.dispose()
        self.replica.dispose()


@contextmanager
def _serve(primary_url: str, replica_url: str) -> Iterator[str]:
    """Run ``slotwise serve --workers 2`` with the replica from SLOTWISE_REPLICAS; yield its URL."""
    port = free_port()
    environ = {
        **child_environment(),
        "SLOTWISE_REPLICAS": replica_url,
        "SLOTWISE_REPLICA_RETRY": "0.5",
        "SLOTWISE_MAX_LAG": "0.001",  # the command line's --max-lag wins
        "SLOTWISE_LOG_LEVEL": "error",
    }
    argv = ["--db", primary_url, "--port", str(port), "--workers", "2", "--max-lag", "3600"]
    process = subprocess.Popen(
        [sys.executable, "-m", "slotwise", "serve", *argv],
        env=environ,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    base = f"http://127.0.0.1:{port}"

    def ready() -> bool:
        if process.poll() is not None:
            errors = process.stderr.read().decode() if process.stderr else ""
            pytest.fail(f"slotwise serve exited with {process.returncode}: {errors}")
        with suppress(httpx.HTTPError):
            return httpx.get(f"{base}/readyz", timeout=5).status_code == 200
        return False

    try:
        wait_for(ready, seconds=90)
        yield base
    finally:
        process.terminate()
        try:
            process.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.communicate()


def test_serve_reads_its_replica_and_a_dying_replica_fails_no_request(cluster: Cluster):
    """
    Replay paused: a booking's response carries Slotwise-Consistency; in each of serve's two
    worker processes, a request presenting it sees the booking and one without it reads the
    stale replica (the replica reached both through SLOTWISE_REPLICAS). Then 4 clients stream
    requests while the replica is killed (``pg_ctl stop -m immediate``) and started again:
    every answer 200 and right, and serve reads the replica again.
    """
    with _database(cluster) as (primary_url, replica_url):
        ids = _seed(primary_url)
        replica = Replica(primary_url, replica_url)
        times = f"/consumer/v1/availability/{ids['service']}/{DAY}/{DAY}"
        auth = {"Authorization": f"Bearer {ids['token']}"}
        try:
            wait_for(replica.caught_up)
            with (
                _serve(primary_url, replica_url) as base,
                httpx.Client(base_url=base, headers=auth, timeout=30) as client,
            ):
                first = min(_starts(client.get(times)), key=datetime.fromisoformat)
                end = datetime.fromisoformat(first) + timedelta(hours=1)
                replica.sql("SELECT pg_wal_replay_pause()")
                booked = client.post(
                    "/consumer/v1/appointments",
                    json={
                        "serviceId": ids["service"],
                        "resourceId": ids["resource"],
                        "locationId": ids["location"],
                        "startDateTime": first,
                        "endDateTime": end.isoformat(),
                        "name": "Ann",
                        "email": "ann@example.com",
                    },
                    params={"completeBooking": "BK"},
                )
                assert 201 == booked.status_code, booked.text
                token = booked.headers.get("Slotwise-Consistency", "")
                wait_for(replica.received_ahead)
                stale = _per_worker(base, times, auth)
                own = _per_worker(base, times, {**auth, "Slotwise-Consistency": token})
                listed_stale = client.get("/consumer/v1/appointments").json()["data"]
                listed_own = client.get(
                    "/consumer/v1/appointments", headers={"Slotwise-Consistency": token}
                ).json()["data"]
                replica.sql("SELECT pg_wal_replay_resume()")
                wait_for(replica.caught_up)
                calls, failures = _through_a_crash(cluster, replica, base, auth, times, first)
        finally:
            with suppress(sqlalchemy.exc.SQLAlchemyError):
                replica.sql("SELECT pg_wal_replay_resume()")
            replica.dispose()

    assert isinstance(token_position(token), WALPosition)
    assert (2, {True}) == (len(stale), {first in starts for starts in stale.values()})
    assert (2, {False}) == (len(own), {first in starts for starts in own.values()})
    assert ([], [booked.json()["id"]]) == (listed_stale, [a["id"] for a in listed_own])
    assert [] == failures
    assert calls >= 30


def _per_worker(base: str, path: str, headers: dict[str, str]) -> dict[str, set[str]]:
    """
    GET *path* on new connections until both worker processes have answered (the request id
    starts with the answering process's id); return each one's offered start times.
    """
    answers: dict[str, set[str]] = {}
    for _ in range(60):
        answer = httpx.get(f"{base}{path}", headers=headers, timeout=30)
        answers[answer.headers["x-request-id"].split("-")[0]] = _starts(answer)
        if len(answers) == 2:
            break
    return answers


def _starts(answer: httpx.Response) -> set[str]:
    """The start times an availability answer offers (it must be a 200)."""
    assert 200 == answer.status_code, answer.text
    return {slot["startDateTime"] for slot in answer.json()["availableTimes"]}


def _through_a_crash(
    cluster: Cluster, replica: Replica, base: str, auth: dict[str, str], times: str, booked: str
) -> tuple[int, list[str]]:
    """
    Stream requests from 4 clients while the replica is killed and started again; return how
    many calls were answered and every failure (a status other than 200, a wrong answer, an
    exception), after the replica serves again.
    """
    stop = threading.Event()
    answered: list[int] = []
    failures: list[str] = []

    def client() -> None:
        with httpx.Client(base_url=base, headers=auth, timeout=30) as http:
            while not stop.is_set():
                try:
                    offered = _starts(http.get(times))
                    listed = http.get("/consumer/v1/appointments")
                    if booked in offered or listed.status_code != 200 or not listed.json()["data"]:
                        failures.append(f"{listed.status_code}: {listed.text[:200]}")
                    answered.append(1)
                except BaseException as error:  # any failure at all is what the test counts
                    failures.append(repr(error))

    def grown_by(count: int) -> None:
        done = len(answered) + len(failures) + count
        wait_for(lambda: len(answered) + len(failures) >= done, seconds=60)

    threads = [threading.Thread(target=client) for _ in range(4)]
    for thread in threads:
        thread.start()
    try:
        grown_by(10)
        cluster.stop_replica()
        try:
            grown_by(10)
        finally:
            cluster.start_replica()
        wait_for(lambda: replica.serving_connections() > 0)  # serve reads the replica again
        grown_by(10)
    finally:
        stop.set()
        for thread in threads:
            thread.join()
    return len(answered), failures
