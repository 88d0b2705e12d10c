"""
A real PgBouncer in transaction pooling mode in front of the test PostgreSQL server (or, for one
test, in statement pooling mode, which slotwise refuses).

:func:`pgbouncer` starts one per test process (Debian's ``/usr/sbin/pgbouncer``, or
``$SLOTWISE_TEST_PGBOUNCER``) on a free port of 127.0.0.1 with a configuration of its own in a
temporary directory: ``pool_mode = transaction``, ``auth_type = trust``, one database ``test``
pointing at the server of ``SLOTWISE_TEST_POSTGRES_URL``, and a small server pool (3), so that
consecutive transactions of one client really do land on different server connections. PgBouncer
refuses to run as root: it is then started as the ``postgres`` user. It is stopped when the
process exits. A missing binary skips (or, with ``SLOTWISE_REQUIRE_SERVERS=1``, fails) the test.
"""

from __future__ import annotations

import atexit
import os
import pwd
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import attrs
from sqlalchemy import make_url

from .servers import POSTGRES, POSTGRES_URL, Server, drop_schemas, server_engine, unavailable

PGBOUNCER = os.environ.get("SLOTWISE_TEST_PGBOUNCER", "/usr/sbin/pgbouncer")
POOL_SIZE = 3
"""Server connections per (database, user): fewer than the clients of every test using it."""


def free_port() -> int:
    """Return a TCP port of 127.0.0.1 that nothing listens on now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@attrs.define
class PgBouncer:
    """One PgBouncer process; :meth:`stop` and :meth:`start` again keep its port."""

    directory: Path
    port: int
    database: str | None = None
    """The server database behind the URL's (default: the test server URL's)."""
    pool_mode: str = "transaction"
    """PgBouncer's ``pool_mode`` (``statement``: to see it refused)."""
    process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        """The SQLAlchemy URL of the test database through this PgBouncer."""
        server = make_url(POSTGRES_URL)
        return server.set(host="127.0.0.1", port=self.port).render_as_string(hide_password=False)

    def write_configuration(self) -> Path:
        """Write ``pgbouncer.ini`` (and its empty user list) and return its path."""
        server = make_url(POSTGRES_URL)
        target = (
            f"host={server.host or '127.0.0.1'} port={server.port or 5432} "
            f"dbname={self.database or server.database or 'test'}"
        )
        if server.username:
            target += f" user={server.username}"
        if server.password:
            target += f" password={server.password}"
        (self.directory / "users.txt").write_text(f'"{server.username or "postgres"}" ""\n')
        ini = self.directory / "pgbouncer.ini"
        ini.write_text(
            "[databases]\n"
            f"{server.database or 'test'} = {target}\n"
            "[pgbouncer]\n"
            "listen_addr = 127.0.0.1\n"
            f"listen_port = {self.port}\n"
            "unix_socket_dir =\n"
            "auth_type = trust\n"
            f"auth_file = {self.directory / 'users.txt'}\n"
            f"pool_mode = {self.pool_mode}\n"
            f"default_pool_size = {POOL_SIZE}\n"
            "max_client_conn = 500\n"
            f"logfile = {self.directory / 'pgbouncer.log'}\n"
            f"pidfile = {self.directory / 'pgbouncer.pid'}\n"
        )
        return ini

    def start(self) -> None:
        """Start PgBouncer and wait (up to 10 s) until it accepts connections."""
        ini = self.write_configuration()
        command = [PGBOUNCER, str(ini)]
        if os.geteuid() == 0:
            # "PgBouncer should not run as root": -u drops to another user after start-up.
            user = pwd.getpwnam("postgres")
            os.chown(self.directory, user.pw_uid, user.pw_gid)
            for path in self.directory.iterdir():
                os.chown(path, user.pw_uid, user.pw_gid)
            command[1:1] = ["-u", "postgres"]
        self.process = subprocess.Popen(
            command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True
        )
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                error = self.process.stderr.read().decode() if self.process.stderr else ""
                raise RuntimeError(f"pgbouncer exited with {self.process.returncode}: {error}")
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=0.5).close()
            except OSError:
                time.sleep(0.05)
                continue
            return
        self.stop()
        raise RuntimeError(f"pgbouncer did not listen on port {self.port} within 10 s")

    def stop(self) -> None:
        """Stop PgBouncer at once (SIGINT: its "immediate shutdown"), closing every client."""
        process, self.process = self.process, None
        if process is None or process.poll() is not None:
            return
        process.send_signal(signal.SIGINT)
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        if process.stderr:
            process.stderr.close()


_running: PgBouncer | None = None

PGBOUNCER_SERVER = Server(
    name="PgBouncer",
    url="(started on first use)",
    driver="psycopg",
    extra="postgres",
    start="apt-get install pgbouncer",
    pool_mode="transaction",
    locate=lambda: pgbouncer().url,
)
"""The test PostgreSQL database through this process's PgBouncer, for ``server_store``."""


def pgbouncer() -> PgBouncer:
    """Return this test process's PgBouncer, starting it on first use."""
    global _running
    if _running is None:
        if not (Path(PGBOUNCER).is_file() and os.access(PGBOUNCER, os.X_OK)):
            unavailable(
                f"PgBouncer is not installed at {PGBOUNCER}: apt-get install pgbouncer, or "
                "point SLOTWISE_TEST_PGBOUNCER at one"
            )
        bouncer = PgBouncer(
            directory=Path(tempfile.mkdtemp(prefix="slotwise-pgbouncer-")), port=free_port()
        )
        bouncer.start()
        _running = bouncer
        atexit.register(_stop, bouncer)
    return _running


def _stop(bouncer: PgBouncer) -> None:
    """Drop the schemas made through *bouncer*, stop it and remove its directory."""
    drop_schemas(PGBOUNCER_SERVER)
    bouncer.stop()
    shutil.rmtree(bouncer.directory, ignore_errors=True)


@contextmanager
def own_pgbouncer(
    database: str | None = None, *, pool_mode: str = "transaction"
) -> Iterator[PgBouncer]:
    """Yield a PgBouncer of the caller alone (its server connections prepared nothing yet)."""
    if not Path(PGBOUNCER).is_file():
        unavailable(f"PgBouncer is not installed at {PGBOUNCER}: apt-get install pgbouncer")
    server_engine(POSTGRES)  # skip (or fail) with the server's reason when it is down
    bouncer = PgBouncer(
        directory=Path(tempfile.mkdtemp(prefix="slotwise-pgbouncer-")),
        port=free_port(),
        database=database,
        pool_mode=pool_mode,
    )
    bouncer.start()
    try:
        yield bouncer
    finally:
        bouncer.stop()
        shutil.rmtree(bouncer.directory, ignore_errors=True)
