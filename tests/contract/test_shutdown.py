"""
Graceful shutdown of ``slotwise serve`` (docs/deploy.md): ``SIGTERM`` in the middle of a request
lets the request finish with its whole answer, refuses new connections, and exits 0.

The request is held in flight for certain, not by timing: the test locks the appointments table
(``ACCESS EXCLUSIVE``) on the server, sends a booking, and waits until PostgreSQL shows a backend
of the server process waiting for that lock; only then does it send ``SIGTERM``, and only after
that does it release the lock. The booking's answer can therefore only be written after the
signal. (``slotwise worker``'s shutdown is proven in ``tests/webhooks/test_worker_processes.py``.)
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from typing import Any

import httpx
import pytest
from sqlalchemy import create_engine, text

from tests.hosts.world import seed

from .pooler import free_port
from .servers import POSTGRES, server_engine
from .test_operating import _database, _wait_until_serving


def _waiting_backends(engine: Any, database: str) -> int:
    """Return how many sessions of *database* wait for a lock."""
    with engine.connect() as conn:
        found: int = conn.execute(
            text(
                "SELECT count(*) FROM pg_stat_activity"
                " WHERE datname = :name AND wait_event_type = 'Lock'"
            ),
            {"name": database},
        ).scalar_one()
        return found


@pytest.mark.external_service
def test_sigterm_lets_the_request_in_flight_finish_and_exits_zero():
    """
    A booking blocked on a lock when SIGTERM arrives is answered 201 (booked) after the signal;
    a new connection after the signal is refused; the process exits 0.
    """
    admin = server_engine(POSTGRES)
    with _database() as name:
        url = admin.url.set(database=name).render_as_string(hide_password=False)
        world = seed(url)
        port = free_port()
        base = f"http://127.0.0.1:{port}"
        process = subprocess.Popen(
            [sys.executable, "-m", "slotwise", "serve", "--db", url, "--port", str(port)],
            env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        holder = create_engine(url)
        watcher = create_engine(admin.url.set(database=name))
        try:
            _wait_until_serving(process, base)
            answers: list[httpx.Response | BaseException] = []
            method, path, body = world.booking(0, 0)

            def book() -> None:
                try:
                    headers = {"Authorization": f"Bearer {world.token}"}
                    answers.append(
                        httpx.request(method, base + path, json=body, headers=headers, timeout=60)
                    )
                except BaseException as error:  # reported by the assertion below
                    answers.append(error)

            with holder.connect() as lock:
                lock.execute(text("LOCK TABLE slotwise_appointment IN ACCESS EXCLUSIVE MODE"))
                client = threading.Thread(target=book)
                client.start()
                deadline = time.monotonic() + 30
                while _waiting_backends(watcher, name) == 0:
                    assert time.monotonic() < deadline, "the booking never waited for the lock"
                    assert client.is_alive(), answers
                    time.sleep(0.05)
                process.send_signal(signal.SIGTERM)
                # The listener closes at once; the request in flight still waits on the lock.
                deadline = time.monotonic() + 10
                while True:
                    try:
                        httpx.get(f"{base}/livez", timeout=2)
                    except (httpx.NetworkError, httpx.RemoteProtocolError):
                        # Refused (ConnectError), or accepted into the kernel's backlog just
                        # before the listener closed and then reset (ReadError, WriteError) or
                        # closed unanswered (RemoteProtocolError): either way, no longer served.
                        break
                    assert time.monotonic() < deadline, "serve kept accepting after SIGTERM"
                    time.sleep(0.05)
                assert client.is_alive(), answers
                lock.rollback()  # release: the booking goes on
            client.join(timeout=60)
            (answer,) = answers
            assert isinstance(answer, httpx.Response), answer
            assert answer.status_code == 201, answer.text
            assert answer.json()["status"] == "BK"
            assert process.wait(timeout=60) == 0
        finally:
            if process.poll() is None:
                process.kill()
            process.communicate()
            holder.dispose()
            watcher.dispose()
