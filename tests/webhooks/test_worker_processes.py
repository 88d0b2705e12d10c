"""
``slotwise worker`` processes against a real receiver: delivery, SIGTERM, four processes on one
PostgreSQL or MariaDB database, and a worker killed mid-batch (decision 38).
"""

from __future__ import annotations

import collections
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from slotwise.model import OutboxEvent, Trigger
from slotwise.storage.sql import SQLStore
from slotwise.testing.samples import sample_company
from tests.contract.servers import MARIADB, POSTGRES, Server, server_store

from .conftest import KEY, NOW, Receiver

EVENTS = 1000


def _seed(store: Any, receiver: Receiver, count: int, key: str = KEY) -> None:
    """A company whose booking URL is the receiver, signing with *key*, and *count* events."""
    company = sample_company(
        id="co",
        booking_webhook_url=f"{receiver.url}/booking",
        webhook_signature_hash=key,
    )
    with store.transaction() as tx:
        tx.insert(company)
        for number in range(count):
            tx.insert(
                OutboxEvent(
                    id=f"ev-{number:05}",
                    company_id="co",
                    location_id=None,
                    sequence=tx.next_sequence(),
                    trigger=Trigger.BOOKING_CONFIRMATION,
                    entity_id=f"apt-{number}",
                    payload={"appointment": {"id": f"apt-{number}"}},
                    created_at=NOW,
                )
            )


def _worker(url: str, schema: str | None, *options: str) -> subprocess.Popen[bytes]:
    command = [sys.executable, "-m", "slotwise", "worker", "--db", url, "--allow-local-webhooks"]
    if schema:
        command += ["--schema", schema]
    return subprocess.Popen(
        [*command, "--log-level", "warning", *options],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )


def _wait(condition: Callable[[], bool], timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.1)
    return condition()


def _ids(receiver: Receiver) -> collections.Counter[str]:
    with receiver.lock:
        return collections.Counter(r.headers["webhook-id"] for r in receiver.received)


def _delivered(store: Any) -> int:
    with store.read() as reader:
        events = reader.find(OutboxEvent, company_id="co")
    return sum(1 for event in events if event.delivered_at is not None)


def test_worker_command_delivers_and_stops_on_sigterm(tmp_path: Path, receiver: Receiver):
    """`slotwise worker` posts every event, then SIGTERM stops it cleanly (exit 0)."""
    url = f"sqlite:///{tmp_path / 'worker.db'}"
    store = SQLStore(url)
    _seed(store, receiver, 20)
    process = _worker(url, None)
    try:
        arrived = _wait(lambda: len(_ids(receiver)) >= 20, timeout=60)
    finally:
        process.send_signal(signal.SIGTERM)
        output, _ = process.communicate(timeout=60)

    assert arrived
    assert (0, 20) == (process.returncode, _delivered(store))
    assert b"slotwise worker stopped" in output
    store.close()


def test_serve_with_worker_delivers(tmp_path: Path, receiver: Receiver):
    """`slotwise serve --with-worker` delivers the outbox from the server process itself."""
    import socket

    url = f"sqlite:///{tmp_path / 'served.db'}"
    store = SQLStore(url)
    _seed(store, receiver, 5)
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = str(probe.getsockname()[1])
    command = [sys.executable, "-m", "slotwise", "serve", "--db", url, "--port", port]
    process = subprocess.Popen(
        [*command, "--with-worker", "--allow-local-webhooks", "--log-level", "warning"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        arrived = _wait(lambda: len(_ids(receiver)) >= 5, timeout=60)
    finally:
        process.send_signal(signal.SIGTERM)
        process.communicate(timeout=60)

    assert arrived
    assert 5 == _delivered(store)
    store.close()


def _url_of(store: Any) -> str:
    return str(store.engine.url.render_as_string(hide_password=False))


SERVERS = [
    pytest.param(POSTGRES, id="postgres", marks=pytest.mark.external_service),
    pytest.param(MARIADB, id="mariadb", marks=pytest.mark.external_service),
]


@pytest.mark.parametrize("server", SERVERS)
def test_four_processes_deliver_every_event_once(server: Server, receiver: Receiver):
    """Four worker processes on one database: 1,000 events, each posted exactly once."""
    with server_store(server) as store:
        _seed(store, receiver, EVENTS)
        workers = [_worker(_url_of(store), store.schema, "--batch", "20") for _ in range(4)]
        try:
            arrived = _wait(lambda: len(_ids(receiver)) >= EVENTS, timeout=240)
            recorded = _wait(lambda: _delivered(store) >= EVENTS, timeout=60)
        finally:
            for process in workers:
                process.send_signal(signal.SIGTERM)
            outputs = [process.communicate(timeout=60) for process in workers]
        codes = [process.returncode for process in workers]
        counts = _ids(receiver)

    assert arrived
    assert recorded
    assert [0, 0, 0, 0] == codes, [error[-300:] for _, error in outputs]
    assert EVENTS == len(counts)
    assert [] == [event_id for event_id, seen in counts.items() if seen > 1]


@pytest.mark.parametrize("server", SERVERS)
def test_a_worker_killed_mid_batch_loses_nothing(server: Server, receiver: Receiver):
    """SIGKILL one of four workers mid-batch: after its leases run out, every event arrives."""

    def slow(request: Any) -> tuple[int, dict[str, str]]:
        time.sleep(0.01)
        return 204, {}

    receiver.answer = slow
    with server_store(server) as store:
        _seed(store, receiver, EVENTS)
        options = ("--batch", "20", "--lease", "3")
        workers = [_worker(_url_of(store), store.schema, *options) for _ in range(4)]
        try:
            _wait(lambda: len(_ids(receiver)) >= 200, timeout=120)
            os.kill(workers[0].pid, signal.SIGKILL)
            arrived = _wait(lambda: len(_ids(receiver)) >= EVENTS, timeout=240)
            recorded = _wait(lambda: _delivered(store) >= EVENTS, timeout=60)
        finally:
            for process in workers[1:]:
                process.send_signal(signal.SIGTERM)
            for process in workers:
                process.communicate(timeout=60)
        counts = _ids(receiver)

    assert arrived
    assert recorded
    assert EVENTS == len(counts)
    # At-least-once: only the send the killed worker had in flight may arrive twice.
    assert sum(seen - 1 for seen in counts.values()) <= 1
