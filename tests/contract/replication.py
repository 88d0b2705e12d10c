"""
A PostgreSQL primary and one streaming replica of it, started for the replica tests.

The shared test server is left alone: this module ``initdb``s a primary of its own in a temporary
directory (as the ``postgres`` OS user when run as root), makes a replica with
``pg_basebackup -R``, and starts both on free ports of 127.0.0.1 with trust authentication,
``fsync`` off and small buffers, so the pair is up in a few seconds. Missing PostgreSQL binaries
skip the tests (or fail them under ``SLOTWISE_REQUIRE_SERVERS=1``, as in CI).
"""

from __future__ import annotations

import contextlib
import glob
import os
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path

import attrs

from .servers import unavailable

__all__ = ["Cluster", "start_cluster"]

_SETTINGS = (
    "listen_addresses = '127.0.0.1'\n"
    "unix_socket_directories = '{sockets}'\n"
    "wal_level = replica\n"
    "max_wal_senders = 4\n"
    "hot_standby = on\n"
    "fsync = off\n"
    "synchronous_commit = on\n"
    "full_page_writes = off\n"
    "shared_buffers = 16MB\n"
    "max_connections = 40\n"
    "wal_receiver_status_interval = 1\n"
)


def _binaries() -> Path | None:
    """Return the directory holding ``initdb`` and ``pg_ctl``, newest PostgreSQL first."""
    for directory in sorted(glob.glob("/usr/lib/postgresql/*/bin"), reverse=True):
        if Path(directory, "initdb").exists():
            return Path(directory)
    found = shutil.which("initdb")
    return None if found is None else Path(found).parent


def _free_port() -> int:
    """Return a TCP port of 127.0.0.1 that nothing listens on now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@attrs.define
class Cluster:
    """A running primary and replica: their data directories, ports and URLs."""

    root: Path
    bin: Path
    primary_port: int
    replica_port: int

    @property
    def primary_url(self) -> str:
        """The SQLAlchemy URL of the primary."""
        return f"postgresql+psycopg://postgres@127.0.0.1:{self.primary_port}/postgres"

    @property
    def replica_url(self) -> str:
        """The SQLAlchemy URL of the replica."""
        return f"postgresql+psycopg://postgres@127.0.0.1:{self.replica_port}/postgres"

    def _run(self, *command: str) -> None:
        """Run a PostgreSQL program as the ``postgres`` user (when root)."""
        prefix = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []
        subprocess.run([*prefix, *command], check=True, capture_output=True, text=True, timeout=120)

    def _pg_ctl(self, data: str, *arguments: str) -> None:
        """Run ``pg_ctl`` on the data directory *data* (``primary`` or ``replica``)."""
        self._run(str(self.bin / "pg_ctl"), "-D", str(self.root / data), "-w", *arguments)

    def start_replica(self) -> None:
        """Start the replica (again)."""
        log = str(self.root / "replica.log")
        self._pg_ctl("replica", "-l", log, "-o", f"-p {self.replica_port}", "start")

    def stop_replica(self) -> None:
        """Kill the replica at once, as a crash would (``pg_ctl stop -m immediate``)."""
        self._pg_ctl("replica", "-m", "immediate", "stop")

    def stop(self) -> None:
        """Stop both servers and remove their directories."""
        for data in ("replica", "primary"):
            with contextlib.suppress(subprocess.CalledProcessError):  # already stopped
                self._pg_ctl(data, "-m", "immediate", "stop")
        shutil.rmtree(self.root, ignore_errors=True)


def start_cluster() -> Cluster:
    """Start a primary and a streaming replica of it; skip when PostgreSQL is not installed."""
    binaries = _binaries()
    if binaries is None:
        unavailable("the replica tests need PostgreSQL's initdb, pg_ctl and pg_basebackup")
    root = Path(tempfile.mkdtemp(prefix="slotwise-replicas-"))
    if os.geteuid() == 0:
        shutil.chown(root, "postgres", "postgres")
    cluster = Cluster(root, binaries, _free_port(), _free_port())
    try:
        cluster._run(
            str(binaries / "initdb"),
            "-D",
            str(root / "primary"),
            "-U",
            "postgres",
            "--auth=trust",
            "--no-sync",
            "-E",
            "UTF8",
        )
        with open(root / "primary" / "postgresql.conf", "a") as conf:
            conf.write(_SETTINGS.format(sockets=root))
        with open(root / "primary" / "pg_hba.conf", "a") as hba:
            hba.write("host replication all 127.0.0.1/32 trust\n")
        log = str(root / "primary.log")
        cluster._pg_ctl("primary", "-l", log, "-o", f"-p {cluster.primary_port}", "start")
        cluster._run(
            str(binaries / "pg_basebackup"),
            "-R",
            "--no-sync",
            "-X",
            "stream",
            "-D",
            str(root / "replica"),
            "-h",
            "127.0.0.1",
            "-p",
            str(cluster.primary_port),
            "-U",
            "postgres",
        )
        cluster.start_replica()
    except BaseException:
        cluster.stop()
        raise
    return cluster


def wait_for(condition: object, *, seconds: float = 30.0) -> None:
    """Poll the callable *condition* until it is true; fail after *seconds*."""
    deadline = time.monotonic() + seconds
    while not condition():  # type: ignore[operator]
        if time.monotonic() > deadline:
            raise AssertionError(f"{condition} did not hold within {seconds} s")
        time.sleep(0.05)
