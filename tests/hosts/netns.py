"""
Hosts as Linux network namespaces on this machine, joined by a bridge (issue 24).

A :class:`Network` is a bridge with an address of its own in the root namespace (where the test
process runs, so it can reach every host) and one namespace per :class:`Host`, each joined to the
bridge by a veth pair and given the next address of a private /24. Nothing is routed: the hosts
have no default route, so they reach the bridge's addresses and nothing else.

Every name carries a per-run suffix (``sw<pid hex>``), so parallel runs never collide; the subnet
is ``10.231.N.0/24`` with ``N`` the first that no interface of this machine already uses (chosen
under a lock file, so parallel runs take turns).
:meth:`Network.close` ends every process a host started (their process groups), deletes the
namespaces, the veth pairs and the bridge, and runs even when a test fails (the context manager
and the fixtures call it). Making namespaces needs root and ``ip``: :func:`unavailable_reason`
says why they cannot be made here.
"""

from __future__ import annotations

import contextlib
import fcntl
import ipaddress
import itertools
import os
import shutil
import signal
import subprocess
import sys
import tempfile
from collections.abc import Iterator, Sequence
from typing import Any

import attrs

_runs = itertools.count()
_LOCK = os.path.join(tempfile.gettempdir(), "slotwise-hosts-subnets.lock")


def unavailable_reason() -> str | None:
    """Return why network namespaces cannot be made on this machine, or ``None`` when they can."""
    if sys.platform != "linux":
        return f"network namespaces are Linux's ({sys.platform})"
    if os.geteuid() != 0:
        return "making network namespaces needs root (ip netns add)"
    if shutil.which("ip") is None:
        return "the ip command (iproute2) is not installed"
    probe = f"swprobe{os.getpid():x}"
    made = subprocess.run(["ip", "netns", "add", probe], capture_output=True, text=True)
    if made.returncode != 0:
        return f"ip netns add failed: {made.stderr.strip()}"
    subprocess.run(["ip", "netns", "del", probe], capture_output=True)
    return None


def ip(*arguments: str, namespace: str | None = None) -> str:
    """Run ``ip`` (inside *namespace* when given); return its output; raise when it fails."""
    command = ["ip", *arguments] if namespace is None else ["ip", "-n", namespace, *arguments]
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        raise OSError(f"{' '.join(command)}: {done.stderr.strip()}")
    return done.stdout


def _free_subnet() -> ipaddress.IPv4Network:
    """Return the first 10.231.N.0/24 that no address of this machine falls in."""
    used = ip("-4", "-o", "addr", "show")
    taken = [
        ipaddress.ip_interface(field).network
        for line in used.splitlines()
        for field in line.split()[3:4]
    ]
    for number in range(16, 250):
        candidate = ipaddress.IPv4Network(f"10.231.{number}.0/24")
        if not any(candidate.overlaps(network) for network in taken):
            return candidate
    raise OSError("no free 10.231.N.0/24 subnet")


@attrs.define
class Host:
    """One network namespace on the bridge: its name, address and the root side of its link."""

    name: str
    """The namespace's name (``ip netns``)."""
    address: str
    """Its address on the bridge."""
    link: str
    """The root namespace's end of its veth pair: down cuts the host off."""
    processes: list[subprocess.Popen[bytes]] = attrs.field(factory=list)
    logs: dict[int, Any] = attrs.field(factory=dict)
    """Per process id, the temporary file its standard error goes to (a pipe could fill up)."""

    def popen(self, command: Sequence[str], **options: Any) -> subprocess.Popen[bytes]:
        """
        Start *command* inside this host (its own process group); the network ends it on close.

        The environment passes through (the same interpreter and ``PYTHONPATH``); standard error
        goes to a temporary file (:meth:`errors`) unless *options* say otherwise.
        """
        options.setdefault("env", dict(os.environ))
        log = None
        if "stderr" not in options:
            log = options["stderr"] = tempfile.TemporaryFile()  # noqa: SIM115 - closed by stop()
        process = subprocess.Popen(
            ["ip", "netns", "exec", self.name, *command], start_new_session=True, **options
        )
        self.processes.append(process)
        if log is not None:
            self.logs[process.pid] = log
        return process

    def errors(self, process: subprocess.Popen[bytes]) -> str:
        """Return the last of what *process* wrote to standard error (for failure messages)."""
        log = self.logs.get(process.pid)
        if log is None:
            return ""
        log.seek(0)
        return str(log.read().decode(errors="replace")[-1500:])

    def python(self, *arguments: str, **options: Any) -> subprocess.Popen[bytes]:
        """Start this interpreter with *arguments* inside this host."""
        return self.popen([sys.executable, *arguments], **options)

    def cut(self) -> None:
        """Take the host's link down: packets to and from it are dropped, nothing is reset."""
        ip("link", "set", self.link, "down")

    def restore(self) -> None:
        """Bring the host's link back up."""
        ip("link", "set", self.link, "up")

    def stop(self, timeout: float = 20.0) -> None:
        """End every process this host started: SIGTERM to its group, then SIGKILL."""
        for process in self.processes:
            if process.poll() is None:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(process.pid, signal.SIGTERM)
        for process in self.processes:
            try:
                process.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(process.pid, signal.SIGKILL)
                process.wait()
            for stream in (process.stdin, process.stdout, process.stderr):
                if stream is not None:
                    stream.close()
        for log in self.logs.values():
            log.close()
        self.logs.clear()
        self.processes.clear()


@attrs.define
class Network:
    """A bridge with an address in the root namespace and host namespaces on it."""

    suffix: str
    subnet: ipaddress.IPv4Network
    bridge: str
    hosts: dict[str, Host] = attrs.field(factory=dict)

    @property
    def gateway(self) -> str:
        """The bridge's own address (the root namespace, where the test process runs)."""
        return str(self.subnet.network_address + 1)

    def add(self, role: str) -> Host:
        """Make a host named *role* (``db``, ``h1``, ...) on the bridge and return it."""
        number = len(self.hosts)
        name = f"sw{self.suffix}-{role}"
        link = f"sw{self.suffix}v{number}"
        peer = f"sw{self.suffix}p{number}"
        address = str(self.subnet.network_address + 10 + number)
        host = Host(name=name, address=address, link=link)
        self.hosts[role] = host  # recorded first, so close() removes a half-made host too
        ip("netns", "add", name)
        ip("link", "add", link, "type", "veth", "peer", "name", peer)
        ip("link", "set", peer, "netns", name)
        ip("link", "set", link, "master", self.bridge, "up")
        ip("link", "set", "lo", "up", namespace=name)
        ip("link", "set", peer, "name", "eth0", namespace=name)
        ip("addr", "add", f"{address}/{self.subnet.prefixlen}", "dev", "eth0", namespace=name)
        ip("link", "set", "eth0", "up", namespace=name)
        return host

    def close(self) -> None:
        """End the hosts' processes; delete the namespaces, links and the bridge (idempotent)."""
        for host in self.hosts.values():
            host.stop()
        for host in self.hosts.values():
            with contextlib.suppress(OSError):
                ip("netns", "del", host.name)
            with contextlib.suppress(OSError):
                ip("link", "del", host.link)
        with contextlib.suppress(OSError):
            ip("link", "del", self.bridge)
        self.hosts.clear()


@contextlib.contextmanager
def network(*roles: str) -> Iterator[Network]:
    """Yield a network with a host per role; everything is removed on exit, also on failure."""
    suffix = f"{os.getpid() % 0xFFFF:x}{next(_runs)}"
    bridge = f"sw{suffix}br"
    with open(_LOCK, "a") as lock:
        # Parallel runs (pytest-xdist workers) choose a subnet one at a time.
        fcntl.flock(lock, fcntl.LOCK_EX)
        subnet = _free_subnet()
        made = Network(suffix=suffix, subnet=subnet, bridge=bridge)
        try:
            ip("link", "add", bridge, "type", "bridge")
            ip("addr", "add", f"{made.gateway}/{subnet.prefixlen}", "dev", bridge)
        except OSError:
            made.close()
            raise
    try:
        ip("link", "set", bridge, "up")
        for role in roles:
            made.add(role)
        yield made
    finally:
        made.close()
