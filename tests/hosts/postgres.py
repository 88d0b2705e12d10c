"""
A PostgreSQL server of the harness's own, in the ``db`` host, listening on the bridge.

``initdb`` runs as the ``postgres`` OS user in a temporary directory; the server trusts the
bridge's subnet (the harness's own hosts, nothing else reaches it), runs with ``fsync=off``
(a throwaway cluster) and is stopped (fast shutdown) and deleted on close. Each scenario gets a
database of its own (:meth:`Postgres.database`), so ``slotwise serve`` -- which takes the URL's
default schema -- finds its tables in ``public``.
"""

from __future__ import annotations

import contextlib
import os
import pwd
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import attrs

from .netns import Host, Network

BIN = Path(os.environ.get("SLOTWISE_PG_BIN", "/usr/lib/postgresql/15/bin"))
"""Where ``initdb`` and ``postgres`` are (Debian's PostgreSQL 15 by default)."""
PORT = 5432
USER = "postgres"


def unavailable_reason() -> str | None:
    """Return why the harness cannot run its own PostgreSQL here, or ``None``."""
    if not (BIN / "initdb").is_file() or not (BIN / "postgres").is_file():
        return f"PostgreSQL's initdb and postgres are not in {BIN} (set SLOTWISE_PG_BIN)"
    try:
        pwd.getpwnam(USER)
    except KeyError:
        return f"there is no {USER!r} OS user to run PostgreSQL as"
    if shutil.which("setpriv") is None:
        return "setpriv (util-linux) is needed to run PostgreSQL as its own user"
    return None


@attrs.define
class Postgres:
    """A running server on *host*: :meth:`database` makes databases on it."""

    host: Host
    directory: Path
    process: subprocess.Popen[bytes]
    made: int = 0

    def url(self, database: str = "postgres") -> str:
        """Return the SQLAlchemy URL of *database* on this server, as the hosts reach it."""
        return f"postgresql+psycopg://{USER}@{self.host.address}:{PORT}/{database}"

    def database(self) -> str:
        """Create an empty database; return its URL."""
        import psycopg

        self.made += 1
        name = f"slotwise_hosts_{self.made}"
        with psycopg.connect(
            host=self.host.address, port=PORT, user=USER, dbname="postgres", autocommit=True
        ) as conn:
            conn.execute(f"CREATE DATABASE {name}")
        return self.url(name)

    def connections(self, database: str) -> list[tuple[str, str]]:
        """Return (client address, state) of every session on *database*."""
        import psycopg

        with psycopg.connect(
            host=self.host.address, port=PORT, user=USER, dbname="postgres", autocommit=True
        ) as conn:
            rows = conn.execute(
                "SELECT host(client_addr), state FROM pg_stat_activity"
                " WHERE datname = %s AND pid <> pg_backend_pid()",
                (database,),
            ).fetchall()
        return [(str(address), str(state)) for address, state in rows]


def _as_postgres(command: list[str]) -> list[str]:
    """Return *command* run as the postgres OS user (setpriv execs, so signals reach it)."""
    return ["setpriv", "--reuid", USER, "--regid", USER, "--init-groups", *command]


@contextlib.contextmanager
def postgres(network: Network, host: Host) -> Iterator[Postgres]:
    """Run a fresh PostgreSQL in *host*, trusting *network*'s subnet; remove it on exit."""
    directory = Path(tempfile.mkdtemp(prefix="slotwise-hosts-pg-"))
    account = pwd.getpwnam(USER)
    os.chown(directory, account.pw_uid, account.pw_gid)
    data = directory / "data"
    try:
        subprocess.run(
            _as_postgres(
                [str(BIN / "initdb"), "-D", str(data), "-U", USER, "--auth=trust", "--no-sync"]
            ),
            check=True,
            capture_output=True,
        )
        with (data / "pg_hba.conf").open("a") as hba:
            hba.write(f"host all all {network.subnet} trust\n")
        log = (directory / "postgres.log").open("ab")
        process = host.popen(
            _as_postgres(
                [
                    str(BIN / "postgres"),
                    "-D",
                    str(data),
                    "-c",
                    f"listen_addresses={host.address}",
                    "-c",
                    f"port={PORT}",
                    "-c",
                    f"unix_socket_directories={directory}",
                    "-c",
                    "fsync=off",
                    "-c",
                    "synchronous_commit=off",
                    "-c",
                    "full_page_writes=off",
                    "-c",
                    "max_connections=200",
                    "-c",
                    "shared_buffers=64MB",
                ]
            ),
            stdout=subprocess.DEVNULL,
            stderr=log,  # a pipe nobody reads could fill up and stall the server
        )
        log.close()
        server = Postgres(host=host, directory=directory, process=process)
        _wait_ready(server)
        try:
            yield server
        finally:
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGINT)  # fast shutdown
                with contextlib.suppress(subprocess.TimeoutExpired):
                    process.wait(timeout=30)
    finally:
        shutil.rmtree(directory, ignore_errors=True)


def _wait_ready(server: Postgres, timeout: float = 60.0) -> None:
    """Wait until the server accepts connections on the bridge; raise when it does not."""
    import psycopg

    deadline = time.monotonic() + timeout
    while True:
        if server.process.poll() is not None:
            log = (server.directory / "postgres.log").read_text(errors="replace")
            raise OSError(f"PostgreSQL exited: {log[-500:]}")
        try:
            psycopg.connect(
                host=server.host.address, port=PORT, user=USER, dbname="postgres", connect_timeout=2
            ).close()
            return
        except psycopg.OperationalError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.2)
