"""
The processes of the hosts: ``slotwise serve`` and ``slotwise worker``, a webhook receiver, a
loopback relay, and clients started in several hosts and released together.

Every process runs inside its host's namespace with this interpreter and environment (in CI,
the installed slotwise; in development, ``PYTHONPATH``); the scripts (``client.py``,
``receiver.py``, ``relay.py``) run by path and import no test code.
"""

from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path
from typing import Any

import httpx

from .netns import Host

HERE = Path(__file__).resolve().parent
SERVE_PORT = 8000
RECEIVER_PORT = 9000
RELAY_PORT = 9100
READY_TIMEOUT = 60.0


def _first_line(host: Host, process: subprocess.Popen[bytes], what: str) -> str:
    """Return the first line *process* prints; raise with its error output when it exits first."""
    assert process.stdout is not None
    line = process.stdout.readline().decode().strip()
    if not line:
        process.wait(timeout=30)
        raise OSError(f"{what} exited ({process.returncode}): {host.errors(process)}")
    return line


def serve(host: Host, url: str) -> str:
    """Start ``slotwise serve`` on *url* in *host*; return its base URL once it answers."""
    process = host.python(
        "-m",
        "slotwise",
        "serve",
        "--db",
        url,
        "--host",
        host.address,
        "--port",
        str(SERVE_PORT),
        "--log-level",
        "warning",
        stdout=subprocess.DEVNULL,
    )
    base = f"http://{host.address}:{SERVE_PORT}"
    deadline = time.monotonic() + READY_TIMEOUT
    while True:
        if process.poll() is not None:
            raise OSError(f"slotwise serve exited ({process.returncode}): {host.errors(process)}")
        try:
            if httpx.get(f"{base}/openapi.json", timeout=2).status_code == 200:
                return base
        except httpx.HTTPError:
            pass
        if time.monotonic() > deadline:
            raise OSError(f"slotwise serve in {host.name} did not answer within {READY_TIMEOUT} s")
        time.sleep(0.2)


def worker(host: Host, url: str, *options: str) -> subprocess.Popen[bytes]:
    """Start ``slotwise worker`` on *url* in *host* (loopback receivers allowed: the relay)."""
    process = host.python(
        "-m",
        "slotwise",
        "worker",
        "--db",
        url,
        "--allow-local-webhooks",
        "--log-level",
        "warning",
        *options,
        stdout=subprocess.PIPE,
    )
    _first_line(host, process, "slotwise worker")  # "delivering webhooks from ..."
    return process


def worker_name(host: Host, process: subprocess.Popen[bytes]) -> str:
    """
    Return the prefix of a worker process's lease owners: its threads lease as
    ``hostname:pid:n`` (``cli.py``, ``start_workers``).
    """
    import socket

    # `ip netns exec` shares the UTS and PID namespaces: the same host name, the same pid.
    return f"{socket.gethostname()}:{process.pid}:"


def receiver(host: Host, delay: float = 0.0) -> str:
    """Start a webhook receiver in *host*; return its base URL."""
    process = host.python(
        str(HERE / "receiver.py"),
        host.address,
        str(RECEIVER_PORT),
        str(delay),
        stdout=subprocess.PIPE,
    )
    _first_line(host, process, "the receiver")
    return f"http://{host.address}:{RECEIVER_PORT}"


def received(base: str) -> list[list[Any]]:
    """Return what the receiver at *base* has recorded: ``[webhook-id, sender, path, body]``."""
    answer = httpx.get(f"{base}/received", timeout=10)
    answer.raise_for_status()
    records: list[list[Any]] = answer.json()
    return records


def relay(host: Host, target: Host) -> str:
    """Start a relay from *host*'s loopback to *target*'s receiver; return the loopback URL."""
    process = host.python(
        str(HERE / "relay.py"),
        str(RELAY_PORT),
        target.address,
        str(RECEIVER_PORT),
        stdout=subprocess.PIPE,
    )
    _first_line(host, process, "the relay")
    return f"http://127.0.0.1:{RELAY_PORT}"


def clients(plans: list[tuple[Host, dict[str, Any]]], timeout: float = 300) -> list[dict[str, Any]]:
    """
    Start a client per (host, plan), release them together once all are ready; return their
    results (``client.py``'s JSON), in order.
    """
    started = [
        host.python(
            str(HERE / "client.py"),
            json.dumps(plan),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
        )
        for host, plan in plans
    ]
    for (host, _), process in zip(plans, started, strict=True):
        _first_line(host, process, "a client")
    for process in started:
        assert process.stdin is not None
        process.stdin.write(b"go\n")
        process.stdin.close()
        process.stdin = None
    results = []
    for (host, _), process in zip(plans, started, strict=True):
        output, _ = process.communicate(timeout=timeout)
        if process.returncode != 0:
            raise OSError(f"a client failed ({process.returncode}): {host.errors(process)}")
        results.append(json.loads(output))
    return results
