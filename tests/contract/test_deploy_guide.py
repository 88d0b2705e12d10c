"""
docs/deploy.md's walkthrough, run as written: a primary, a replica made with ``pg_basebackup``,
PgBouncer in transaction mode, ``slotwise serve`` and ``slotwise worker`` configured from the
environment, a booking through them, and a graceful stop of everything.

The block after the page's marker is extracted (so the page and the test cannot drift) and run
with ``bash -euo pipefail`` on free ports, with ``slotwise`` on the ``PATH`` as this interpreter's
module. It needs root (PostgreSQL's programs run as ``postgres`` through ``runuser``),
PostgreSQL's server binaries and PgBouncer; without them the test skips, or fails under
``SLOTWISE_REQUIRE_SERVERS=1`` as in CI.
"""

from __future__ import annotations

import glob
import json
import os
import re
import shutil
import socket
import stat
import subprocess
import sys
from pathlib import Path

from .servers import unavailable

GUIDE = Path(__file__).resolve().parents[2] / "docs" / "deploy.md"
MARKER = "<!-- tests/contract/test_deploy_guide.py runs the next block as written -->"
BLOCK = re.compile(r"```bash\n(?P<body>.*?)```", re.DOTALL)

# Whatever the walkthrough leaves running when a step fails is stopped: its background jobs,
# PgBouncer and both PostgreSQL servers (their directory is the walkthrough's $DATA).
_CLEANUP = """\
cleanup() {
  kill $(jobs -p) 2> /dev/null || true
  if [ -n "${DATA:-}" ] && [ -d "$DATA" ]; then
    [ -f "$DATA/pgbouncer.pid" ] && kill -INT "$(cat "$DATA/pgbouncer.pid")" 2> /dev/null
    for data in replica primary; do
      [ -f "$DATA/$data/postmaster.pid" ] &&
        runuser -u postgres -- "$PGBIN/pg_ctl" -D "$DATA/$data" -m immediate stop > /dev/null 2>&1
    done
    rm -rf "$DATA"
  fi
  return 0
}
trap cleanup EXIT
"""


def _walkthrough() -> str:
    """Return the bash block after the marker in docs/deploy.md."""
    text = GUIDE.read_text()
    at = text.index(MARKER)
    found = BLOCK.search(text, at)
    assert found is not None, "docs/deploy.md has no bash block after the walkthrough marker"
    return found["body"]


def _free_ports(count: int) -> list[int]:
    """Return *count* distinct TCP ports of 127.0.0.1 that nothing listens on now."""
    sockets = [socket.socket() for _ in range(count)]
    try:
        for probe in sockets:
            probe.bind(("127.0.0.1", 0))
        return [probe.getsockname()[1] for probe in sockets]
    finally:
        for probe in sockets:
            probe.close()


def _require_tools() -> None:
    """Skip (or fail in CI) unless root, PostgreSQL's server programs and PgBouncer are here."""
    if os.geteuid() != 0:
        unavailable("the deploy walkthrough runs PostgreSQL as the postgres user: needs root")
    if not glob.glob("/usr/lib/postgresql/*/bin/pg_basebackup"):
        unavailable("the deploy walkthrough needs PostgreSQL's server binaries (postgresql)")
    for program in ("/usr/sbin/pgbouncer", "runuser", "curl"):
        if shutil.which(program) is None:
            unavailable(f"the deploy walkthrough needs {program}")


def test_the_deploy_walkthrough_runs_as_written_and_books_through_the_replica_setup(tmp_path):
    """
    Every command of the walkthrough succeeds; readiness answers ready, the booking read back
    with its consistency token is booked, and serve and worker exit 0 on SIGTERM.
    """
    _require_tools()
    shim = tmp_path / "bin" / "slotwise"
    shim.parent.mkdir()
    shim.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m slotwise "$@"\n')
    shim.chmod(shim.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    primary, replica, bouncer, port = _free_ports(4)
    environ = {
        **os.environ,
        "PATH": f"{shim.parent}{os.pathsep}{os.environ['PATH']}",
        "PYTHONPATH": os.pathsep.join(sys.path),
        "PRIMARY_PORT": str(primary),
        "REPLICA_PORT": str(replica),
        "BOUNCER_PORT": str(bouncer),
        "PORT": str(port),
    }
    for name in list(environ):  # the walkthrough sets its own; the caller's must not leak in
        if name.startswith("SLOTWISE_") and name != "SLOTWISE_REQUIRE_SERVERS":
            del environ[name]
    script = tmp_path / "walkthrough.sh"
    script.write_text(_CLEANUP + _walkthrough())
    finished = subprocess.run(
        ["bash", "-euo", "pipefail", str(script)],
        env=environ,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert finished.returncode == 0, finished.stdout + finished.stderr
    lines = [line for line in finished.stdout.splitlines() if line.startswith("{")]
    ready, booking = json.loads(lines[0]), json.loads(lines[-1])
    assert ready["status"] == "ok", ready
    assert booking["status"] == "BK", booking
