"""
A MariaDB primary and one replica of it, started for the MariaDB replica tests.

The shared test server is left alone: this module runs ``mariadb-install-db`` into a temporary
directory once and copies the result for the replica (the same fresh system tables, without a
second bootstrap), then starts two ``mariadbd`` on free ports of 127.0.0.1 (as the ``mysql`` OS
user when run as root) with ``--skip-grant-tables`` (root without a password), small buffers and
no syncing, so the pair is up in a few seconds. The primary writes a row-based binary log
(``server_id=1``); the replica (``server_id=2``, ``read_only``) follows it by GTID::

    CHANGE MASTER TO MASTER_HOST='127.0.0.1', MASTER_PORT=<primary>, MASTER_USER='root',
        MASTER_USE_GTID=slave_pos; START SLAVE

Missing MariaDB binaries skip the tests (or fail them under ``SLOTWISE_REQUIRE_SERVERS=1``, as in
CI).
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import attrs
import sqlalchemy

from .replication import _free_port
from .servers import unavailable

__all__ = ["MariaDBPair", "start_pair"]

_BINARIES = ("mariadb-install-db", "mariadbd")
# Small and unsynced: the data lives for one test run. innodb_flush_log_at_trx_commit=2 and
# sync_binlog=0 leave syncing to the OS; nosync skips InnoDB's data file syncs.
_COMMON = (
    "--no-defaults",
    "--innodb-buffer-pool-size=32M",
    "--innodb-log-file-size=8M",
    "--innodb-flush-log-at-trx-commit=2",
    "--innodb-doublewrite=0",
    "--innodb-flush-method=nosync",
)
_SERVER = (
    "--bind-address=127.0.0.1",
    "--skip-name-resolve",
    "--skip-grant-tables",
    "--sync-binlog=0",
    "--performance-schema=0",
    "--max-connections=60",
    "--character-set-server=utf8mb4",
)


def _binary(name: str) -> str | None:
    """Return the path of the MariaDB program *name* (``mariadbd`` lives in ``/usr/sbin``)."""
    return shutil.which(name) or shutil.which(name, path="/usr/sbin:/usr/local/sbin")


@attrs.define
class MariaDBPair:
    """A running MariaDB primary and replica: their directories, ports, URLs and processes."""

    root: Path
    server: str
    primary_port: int
    replica_port: int
    processes: dict[str, subprocess.Popen[bytes]] = attrs.field(factory=dict)

    @property
    def primary_url(self) -> str:
        """The SQLAlchemy URL of the primary (no default database: stores name their own)."""
        return f"mysql+pymysql://root@127.0.0.1:{self.primary_port}/"

    @property
    def replica_url(self) -> str:
        """The SQLAlchemy URL of the replica."""
        return f"mysql+pymysql://root@127.0.0.1:{self.replica_port}/"

    def _arguments(self, name: str) -> list[str]:
        """Return the ``mariadbd`` command line of the server *name* (primary or replica)."""
        data = self.root / name
        user = ["--user=mysql"] if os.geteuid() == 0 else []
        own = (
            ["--server-id=1", f"--log-bin={data}/binlog", "--binlog-format=ROW"]
            if name == "primary"
            else [
                "--server-id=2",
                "--read-only=1",
                f"--relay-log={data}/relay",
                # After a crash, fetch the relay log again from gtid_slave_pos (crash-safe).
                "--relay-log-recovery",
            ]
        )
        return [
            self.server,
            *_COMMON,
            *user,
            *_SERVER,
            f"--datadir={data}",
            f"--tmpdir={self.root / 'tmp'}",
            f"--port={self.primary_port if name == 'primary' else self.replica_port}",
            f"--socket={self.root / name}.sock",
            f"--pid-file={self.root / name}.pid",
            f"--log-error={self.root / name}.err",
            *own,
        ]

    def start(self, name: str) -> None:
        """Start the server *name* and wait until it answers (at most 60 s)."""
        self.processes[name] = subprocess.Popen(
            self._arguments(name), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        port = self.primary_port if name == "primary" else self.replica_port
        deadline = time.monotonic() + 60
        while True:
            with contextlib.suppress(Exception):
                self.sql(port, "SELECT 1")
                return
            if self.processes[name].poll() is not None or time.monotonic() > deadline:
                log = (self.root / f"{name}.err").read_text(errors="replace")[-2000:]
                raise RuntimeError(f"mariadbd ({name}) did not start:\n{log}")
            time.sleep(0.05)

    def start_replica(self) -> None:
        """Start the replica (again); it resumes replication from its ``gtid_slave_pos``."""
        self.start("replica")

    def kill_replica(self) -> None:
        """Kill the replica at once, as a crash would (``SIGKILL``)."""
        process = self.processes.pop("replica")
        process.kill()
        process.wait(timeout=30)

    def connect(self, port: int) -> Any:
        """Return an autocommit SQLAlchemy connection as root to the server at *port*."""
        engine = sqlalchemy.create_engine(
            f"mysql+pymysql://root@127.0.0.1:{port}/",
            poolclass=sqlalchemy.pool.NullPool,
            isolation_level="AUTOCOMMIT",
            connect_args={"connect_timeout": 2},
        )
        return engine.connect()

    def sql(self, port: int, *statements: str) -> list[Any]:
        """Run *statements* on the server at *port*; return the last one's rows as mappings."""
        with self.connect(port) as conn:
            for statement in statements:
                result = conn.exec_driver_sql(statement)
            return [dict(row) for row in result.mappings()] if result.returns_rows else []

    def value(self, port: int, statement: str) -> Any:
        """Return the one value *statement* selects on the server at *port*."""
        with self.connect(port) as conn:
            return conn.exec_driver_sql(statement).scalar()

    def replica_status(self) -> dict[str, Any]:
        """Return the replica's ``SHOW SLAVE STATUS`` row."""
        (row,) = self.sql(self.replica_port, "SHOW SLAVE STATUS")
        return dict(row)

    def stop(self) -> None:
        """Stop both servers and remove their directories."""
        for process in self.processes.values():
            process.kill()
        for process in self.processes.values():
            with contextlib.suppress(subprocess.TimeoutExpired):
                process.wait(timeout=30)
        self.processes.clear()
        shutil.rmtree(self.root, ignore_errors=True)


def start_pair() -> MariaDBPair:
    """Start a primary and a replica following it by GTID; skip when MariaDB is not installed."""
    install, server = (_binary(name) for name in _BINARIES)
    if install is None or server is None:
        unavailable("the MariaDB replica tests need mariadb-install-db and mariadbd")
    if importlib.util.find_spec("pymysql") is None:
        unavailable("the MariaDB replica tests need PyMySQL: pip install slotwise[mariadb]")
    root = Path(tempfile.mkdtemp(prefix="slotwise-mariadb-"))
    (root / "tmp").mkdir()
    if os.geteuid() == 0:
        for path in (root, root / "tmp"):
            shutil.chown(path, "mysql", "mysql")
    pair = MariaDBPair(root, server, _free_port(), _free_port())
    try:
        subprocess.run(
            [
                install,
                *_COMMON,
                *(["--user=mysql"] if os.geteuid() == 0 else []),
                f"--datadir={root / 'primary'}",
                f"--tmpdir={root / 'tmp'}",
                "--auth-root-authentication-method=normal",
                "--skip-test-db",
            ],
            check=True,
            capture_output=True,
            timeout=120,
        )
        # A copy of a fresh installation is a second fresh installation: cp -a keeps owners.
        subprocess.run(["cp", "-a", str(root / "primary"), str(root / "replica")], check=True)
        pair.start("primary")
        pair.start("replica")
        pair.sql(
            pair.replica_port,
            f"CHANGE MASTER TO MASTER_HOST='127.0.0.1', MASTER_PORT={pair.primary_port},"
            " MASTER_USER='root', MASTER_USE_GTID=slave_pos, MASTER_CONNECT_RETRY=1",
            "START SLAVE",
        )
    except BaseException:
        pair.stop()
        raise
    return pair


@contextlib.contextmanager
def apply_blocked(pair: MariaDBPair) -> Iterator[None]:
    """
    Keep the replica from applying what it receives: hold ``FLUSH TABLES WITH READ LOCK`` on it.

    Both replication threads keep running (the SQL thread waits for the lock, "Waiting for backup
    lock"), so the replica stays a replica whose ``Seconds_Behind_Master`` grows with the age of
    the event it waits to apply; reads on it still work. A backup tool holds the same lock.
    """
    # The lock is the session's: closing the connection (a failed test) releases it too.
    with pair.connect(pair.replica_port) as conn:
        conn.exec_driver_sql("FLUSH TABLES WITH READ LOCK")
        yield
        conn.exec_driver_sql("UNLOCK TABLES")
