"""
A real ``slotwise serve`` process for the tests that meet the service as its users do.

:func:`served` seeds the demo business into the database, starts ``python -m slotwise serve``
on a free port, waits for ``/healthz`` and, on leaving, stops the process and keeps what it
wrote to standard error (its log).
"""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import attrs
import httpx

_SOURCE = str(Path(__file__).resolve().parents[2] / "src")


def free_port() -> int:
    """Return a TCP port nothing listens on now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def child_environment() -> dict[str, str]:
    """The child's environment: this process's, with the source tree first when testing it."""
    environment = dict(os.environ)
    import slotwise

    if str(Path(slotwise.__file__).resolve()).startswith(_SOURCE):
        environment["PYTHONPATH"] = os.pathsep.join(
            [_SOURCE, *filter(None, [environment.get("PYTHONPATH")])]
        )
    return environment


@attrs.define
class Served:
    """A running server: its base URL, the demo business's ids and token, and its log."""

    base: str
    ids: dict[str, str]
    process: subprocess.Popen[bytes]
    log: str = ""

    @property
    def headers(self) -> dict[str, str]:
        """The demo token's authorization header."""
        return {"Authorization": f"Bearer {self.ids['token']}"}

    def log_lines(self) -> list[str]:
        """The lines the server wrote to standard error (available after it stopped)."""
        return [line for line in self.log.splitlines() if line.strip()]


def seed(url: str, *options: str) -> dict[str, str]:
    """Create the demo business in *url* with ``slotwise demo`` and *options*; return its ids."""
    done = subprocess.run(
        [sys.executable, "-m", "slotwise", "demo", "--db", url, *options],
        capture_output=True,
        text=True,
        env=child_environment(),
        timeout=120,
        check=True,
    )
    return dict(re.findall(r"^(\w+):\s+(\S+)$", done.stdout, flags=re.MULTILINE))


@contextmanager
def served(
    url: str, *options: str, schema: str | None = None, ids: dict[str, str] | None = None
) -> Iterator[Served]:
    """
    Seed *url*, serve it with *options*, yield the server; stop it on leaving. With *schema*,
    both ``demo`` and ``serve`` get ``--schema`` (the tables' PostgreSQL schema or MariaDB
    database). With *ids* (a ``token`` among them) the database is served as it is, unseeded.
    """
    where = () if schema is None else ("--schema", schema)
    ids = seed(url, *where) if ids is None else ids
    port = free_port()
    command = [sys.executable, "-m", "slotwise", "serve", "--db", url, "--port", str(port)]
    process = subprocess.Popen(
        [*command, *where, *options],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env=child_environment(),
    )
    server = Served(base=f"http://127.0.0.1:{port}", ids=ids, process=process)
    try:
        deadline = time.monotonic() + 60
        while process.poll() is None:
            try:
                if httpx.get(f"{server.base}/healthz", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.1)
        if process.poll() is not None:
            raise RuntimeError(f"slotwise serve exited with {process.returncode}")
        yield server
    finally:
        process.terminate()
        _, errors = process.communicate(timeout=30)
        server.log = errors.decode()
