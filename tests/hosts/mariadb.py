"""
A MariaDB server of the harness's own, in the ``db`` host, listening on the bridge.

``mariadb-install-db`` makes a data directory in a temporary directory (owned by the ``mysql``
OS user, which ``mariadbd --user`` switches to); the server reads no option file
(``--no-defaults``: this machine's own MariaDB and its settings are left alone), listens on the
``db`` host's bridge address only, and lets ``root`` in, without a password, from the bridge's
subnet alone (an ``--init-file`` creates ``'root'@'10.231.N.%'``: the harness's own hosts,
nothing else reaches it). It is a throwaway server, so it is small and never waits for the disk
(``innodb_flush_log_at_trx_commit=2``, ``innodb_flush_method=nosync``, no doublewrite buffer,
one tablespace file, a 64 MB buffer pool) and starts in seconds; it is stopped (``SIGTERM``: a normal shutdown) and deleted on close. Each scenario
gets a database of its own (:meth:`MariaDB.database`).
"""

from __future__ import annotations

import contextlib
import importlib
import importlib.util
import os
import pwd
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import attrs

from .netns import Host, Network

SERVER = Path(os.environ.get("SLOTWISE_MARIADBD", "/usr/sbin/mariadbd"))
"""The server binary (Debian's ``mariadb-server`` by default)."""
INSTALL = "mariadb-install-db"
PORT = 3306
"""The standard port: the ``db`` host is a namespace of its own, so nothing else holds it."""
USER = "root"
OS_USER = "mysql"


def unavailable_reason() -> str | None:
    """Return why the harness cannot run its own MariaDB here, or ``None``."""
    if not SERVER.is_file():
        return f"MariaDB's server is not at {SERVER} (set SLOTWISE_MARIADBD)"
    if shutil.which(INSTALL) is None:
        return f"{INSTALL} (MariaDB's data directory maker) is not on PATH"
    try:
        pwd.getpwnam(OS_USER)
    except KeyError:
        return f"there is no {OS_USER!r} OS user to run MariaDB as"
    if importlib.util.find_spec("pymysql") is None:  # the driver the hosts' URLs name
        return "the MariaDB driver PyMySQL is missing: pip install 'slotwise[mariadb]'"
    return None


@attrs.define
class MariaDB:
    """A running server on *host*: :meth:`database` makes databases on it."""

    host: Host
    directory: Path
    process: subprocess.Popen[bytes]
    made: int = 0

    def url(self, database: str = "mysql") -> str:
        """Return the SQLAlchemy URL of *database* on this server, as the hosts reach it."""
        return f"mysql+pymysql://{USER}@{self.host.address}:{PORT}/{database}"

    def database(self) -> str:
        """Create an empty database; return its URL."""
        self.made += 1
        name = f"slotwise_hosts_{self.made}"
        with contextlib.closing(self._connect()) as conn, conn.cursor() as cursor:
            cursor.execute(f"CREATE DATABASE {name}")
        return self.url(name)

    def _connect(self, timeout: int = 10) -> Any:
        """Return a new PyMySQL connection to this server (autocommit)."""
        return _pymysql().connect(
            host=self.host.address,
            port=PORT,
            user=USER,
            autocommit=True,
            connect_timeout=timeout,
        )


def _pymysql() -> Any:
    """Return the PyMySQL module (imported on first use: it ships no type hints)."""
    return importlib.import_module("pymysql")


def _options(network: Network, host: Host, directory: Path) -> list[str]:
    """Return the server's options: on the bridge only, small, never waiting for the disk."""
    data = directory / "data"
    return [
        "--no-defaults",  # first, or it is ignored: read no option file of this machine's
        f"--user={OS_USER}",
        f"--datadir={data}",
        f"--socket={directory / 'mariadb.sock'}",
        f"--pid-file={directory / 'mariadb.pid'}",
        f"--log-error={directory / 'mariadb.log'}",
        f"--bind-address={host.address}",
        f"--port={PORT}",
        # The hosts have no DNS: looking their addresses up would stall every connection.
        "--skip-name-resolve",
        f"--init-file={directory / 'init.sql'}",
        "--character-set-server=utf8mb4",
        "--innodb-buffer-pool-size=64M",
        "--innodb-log-file-size=16M",
        # A throwaway server (like the PostgreSQL's fsync=off): commits and tables never wait
        # for the disk, and the schema's tables share one file rather than creating one each.
        "--innodb-flush-log-at-trx-commit=2",
        "--innodb-flush-method=nosync",
        "--innodb-doublewrite=0",
        "--innodb-file-per-table=0",
        "--sync-frm=0",
        "--max-connections=300",
    ]


@contextlib.contextmanager
def mariadb(network: Network, host: Host) -> Iterator[MariaDB]:
    """Run a fresh MariaDB in *host*, letting root in from *network*'s subnet; remove it on exit."""
    directory = Path(tempfile.mkdtemp(prefix="slotwise-hosts-mariadb-"))
    account = pwd.getpwnam(OS_USER)
    os.chown(directory, account.pw_uid, account.pw_gid)
    # 'root'@'10.231.N.%': the bridge's addresses (a /24) and no others.
    pattern = str(network.subnet.network_address).rsplit(".", 1)[0] + ".%"
    (directory / "init.sql").write_text(
        f"CREATE USER IF NOT EXISTS '{USER}'@'{pattern}';\n"
        f"GRANT ALL PRIVILEGES ON *.* TO '{USER}'@'{pattern}' WITH GRANT OPTION;\n"
    )
    try:
        subprocess.run(
            [
                INSTALL,
                "--no-defaults",
                f"--user={OS_USER}",
                f"--datadir={directory / 'data'}",
                "--skip-test-db",
                "--skip-name-resolve",
                "--auth-root-authentication-method=normal",
            ],
            check=True,
            capture_output=True,
        )
        process = host.popen(
            [str(SERVER), *_options(network, host, directory)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,  # --log-error has it all
        )
        server = MariaDB(host=host, directory=directory, process=process)
        _wait_ready(server)
        try:
            yield server
        finally:
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGTERM)  # a normal shutdown
                with contextlib.suppress(subprocess.TimeoutExpired):
                    process.wait(timeout=30)
    finally:
        shutil.rmtree(directory, ignore_errors=True)


def _wait_ready(server: MariaDB, timeout: float = 60.0) -> None:
    """Wait until the server lets root in over the bridge; raise when it does not."""
    deadline = time.monotonic() + timeout
    while True:
        if server.process.poll() is not None:
            log = server.directory / "mariadb.log"
            text = log.read_text(errors="replace") if log.exists() else ""
            raise OSError(f"MariaDB exited ({server.process.returncode}): {text[-500:]}")
        try:
            with contextlib.closing(server._connect(timeout=2)):
                return
        except _pymysql().err.OperationalError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.2)
