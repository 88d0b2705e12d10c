"""
Sizing a deployment (docs/deploy.md): how many bookings and availability requests one core of
an application host, of the primary and of a read replica answers.

Usage (Linux, PostgreSQL's server binaries installed; as root they run as ``postgres``)::

    python benchmarks/sizing.py [--bookings 400] [--seconds 8] [--threads 4]

A PostgreSQL primary and a streaming replica of it are started for the run
(``tests/contract/replication.py``), a business is set up on the primary
(``tests/hosts/world.py``: a location open around the clock, a 30-minute service, 20
resources), and one ``slotwise serve`` process (one worker) answers a client process
(``tests/hosts/client.py``, ``--threads`` connections) on loopback, three times:

``bookings``                 ``POST /consumer/v1/appointments?completeBooking=BK``, every one a
                             distinct half hour of a resource (none contends).
``availability``             a week of one resource's availability, for ``--seconds``, read
                             from the primary (no replica given to ``serve``).
``availability-replica``     the same, ``serve --replica``: the reads go to the replica.

Every process of the run shares this machine's cores, so requests per second say little about a
real deployment. What carries over is the **CPU time** each tier spends per request, read from
``/proc`` before and after each load: the ``serve`` process, and each PostgreSQL server with all
its backends (the postmaster's own time, its exited children's, and its live children's). A core
of a tier then answers ``requests / cpu_seconds`` of that load per second when it is the
bottleneck. Each figure is one JSON line::

    {"figure": "sizing", "load", "requests", "errors", "seconds", "per_second",
     "cpu_seconds": {"app", "primary", "replica"}, "per_core": {"app", "primary", "replica"}}

(``per_core`` of a tier that spent no measurable CPU is ``null``.) The client's own CPU is not
counted. Speed is never asserted (STYLE rule 35). Like ``benchmarks/hosts.py`` this imports the
servers' harness from ``tests/``.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.contract.replication import Cluster, start_cluster  # noqa: E402
from tests.hosts.world import World, seed  # noqa: E402

RESOURCES = 20
_TICKS = os.sysconf("SC_CLK_TCK")


def _times(pid: int, *, with_children_done: bool) -> float:
    """Return the CPU seconds of process *pid* (and of its waited-for children, if asked)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    # After the command's closing parenthesis: state is field 0, utime 11, stime 12, cutime 13,
    # cstime 14 (proc(5) numbers them 14-17 from the pid).
    ticks = int(fields[11]) + int(fields[12])
    if with_children_done:
        ticks += int(fields[13]) + int(fields[14])
    return ticks / _TICKS


def _children(pid: int) -> list[int]:
    """Return the live children of *pid*."""
    found: list[int] = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        with contextlib.suppress(FileNotFoundError):
            found.extend(int(child) for child in (task / "children").read_text().split())
    return found


def server_seconds(postmaster: int) -> float:
    """
    Return the CPU seconds a PostgreSQL server has used: the postmaster, the backends that have
    exited (the postmaster waits for them, so their time is in its children's totals) and the
    live ones.
    """
    total = _times(postmaster, with_children_done=True)
    for child in _children(postmaster):
        with contextlib.suppress(FileNotFoundError, ProcessLookupError):  # exited meanwhile
            total += _times(child, with_children_done=False)
    return total


def _postmaster(cluster: Cluster, data: str) -> int:
    return int((cluster.root / data / "postmaster.pid").read_text().split()[0])


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@contextlib.contextmanager
def serving(arguments: Sequence[str]) -> Iterator[tuple[str, int]]:
    """Run ``slotwise serve`` with *arguments* on a free port; yield its base URL and pid."""
    port = _free_port()
    environ = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), *sys.path])}
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "slotwise",
            "serve",
            "--port",
            str(port),
            "--log-level",
            "error",
            *list(arguments),
        ],
        env=environ,
        stdout=subprocess.DEVNULL,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(f"{base}/readyz", timeout=2).status_code == 200:
                    break
            if process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"slotwise serve did not become ready ({process.returncode})")
            time.sleep(0.2)
        yield base, process.pid
    finally:
        process.terminate()
        process.wait(timeout=30)


def _run_client(plan: dict[str, Any]) -> dict[str, Any]:
    """Run one client process with *plan*; return its result line."""
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as file:
        json.dump(plan, file)
    client = subprocess.Popen(
        [sys.executable, str(ROOT / "tests" / "hosts" / "client.py"), f"@{file.name}"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert client.stdin is not None
    assert client.stdout is not None
    if client.stdout.readline().strip() != "ready":
        raise RuntimeError("the client did not start")
    client.stdin.write("go\n")
    client.stdin.flush()
    result: dict[str, Any] = json.loads(client.stdout.readline())
    client.wait(timeout=60)
    os.unlink(file.name)
    return result


def measure(
    load: str,
    plan: dict[str, Any],
    *,
    app: int,
    primary: int,
    replica: int,
) -> dict[str, Any]:
    """Run *plan* against the server with pid *app*; return the figure of *load*."""
    before = (
        _times(app, with_children_done=True),
        server_seconds(primary),
        server_seconds(replica),
    )
    result = _run_client(plan)
    after = (
        _times(app, with_children_done=True),
        server_seconds(primary),
        server_seconds(replica),
    )
    ok = 201 if load == "bookings" else 200
    done = sum(1 for status, _, _ in result["outcomes"] if status == ok)
    seconds = result["elapsed"]
    spent = {
        tier: round(after[n] - before[n], 3) for n, tier in enumerate(("app", "primary", "replica"))
    }
    return {
        "figure": "sizing",
        "load": load,
        "requests": done,
        "errors": len(result["outcomes"]) - done,
        "seconds": round(seconds, 3),
        "per_second": round(done / seconds, 1) if seconds else 0.0,
        "cpu_seconds": spent,
        # A tier that spent less than two clock ticks is not measurably loaded by this request.
        "per_core": {
            tier: (round(done / cpu) if cpu >= 2 / _TICKS else None) for tier, cpu in spent.items()
        },
    }


def run(bookings: int, seconds: float, threads: int) -> Iterator[dict[str, Any]]:
    """Start the servers, run the three loads, stop everything; yield each figure."""
    cluster = start_cluster()
    try:
        world: World = seed(cluster.primary_url, resources=RESOURCES)
        primary = _postmaster(cluster, "primary")
        replica = _postmaster(cluster, "replica")
        plan = {"token": world.token, "threads": threads}
        with serving(["--db", cluster.primary_url]) as (base, pid):
            requests = [world.booking(n % RESOURCES, n // RESOURCES) for n in range(bookings)]
            yield (
                measure(
                    "bookings",
                    {**plan, "servers": [base], "pick": "each", "requests": requests},
                    app=pid,
                    primary=primary,
                    replica=replica,
                )
            )
            looks = [world.availability(n) for n in range(RESOURCES)]
            repeat = {**plan, "servers": [base], "pick": "repeat", "seconds": seconds}
            yield (
                measure(
                    "availability",
                    {**repeat, "requests": looks},
                    app=pid,
                    primary=primary,
                    replica=replica,
                )
            )
        with serving(["--db", cluster.primary_url, "--replica", cluster.replica_url]) as (
            base,
            pid,
        ):
            repeat = {**plan, "servers": [base], "pick": "repeat", "seconds": seconds}
            yield (
                measure(
                    "availability-replica",
                    {**repeat, "requests": looks},
                    app=pid,
                    primary=primary,
                    replica=replica,
                )
            )
    finally:
        cluster.stop()


def main(argv: Sequence[str] | None = None) -> int:
    """Print the sizing figures as JSON lines."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bookings", type=int, default=400, help="bookings to make")
    parser.add_argument("--seconds", type=float, default=8.0, help="each availability load")
    parser.add_argument("--threads", type=int, default=4, help="client connections")
    arguments = parser.parse_args(argv)
    if not Path("/proc/self/stat").exists():
        print("sizing benchmark: cannot run here: no /proc to read CPU times", file=sys.stderr)
        return 2
    for figure in run(arguments.bookings, arguments.seconds, arguments.threads):
        print(json.dumps(figure), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
