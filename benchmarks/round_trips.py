"""
Count round trips between a client and a database server: a TCP relay that sees every byte.

A round trip is the client sending after the server last sent (or first of all): the client
spoke, then waited for the answer before it spoke again. Counting on the wire, not in the
driver, counts everything the driver does on its own (``BEGIN``, a pool's ping, ``COMMIT``). A
client that sends more while answers are already arriving (a pipeline) is counted once per
burst it sends after an answer arrived, which can only over-count.

Used by ``sql_stores.py --figures statements``; ``tests/contract/test_sql_round_trips.py``
holds a copy (tests never import from ``benchmarks/``).
"""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager, suppress

__all__ = ["RoundTrips", "relay"]


class RoundTrips:
    """The round trips counted on every connection through one relay."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.count = 0
        self._last: dict[int, str] = {}

    def _saw(self, connection: int, side: str) -> None:
        with self._lock:
            if side == "client" and self._last.get(connection) != "client":
                self.count += 1
            self._last[connection] = side


def _pump(
    source: socket.socket, sink: socket.socket, trips: RoundTrips, key: int, side: str
) -> None:
    try:
        while data := source.recv(65536):
            trips._saw(key, side)
            sink.sendall(data)
    except OSError:
        pass
    finally:
        for end in (source, sink):
            with suppress(OSError):
                end.shutdown(socket.SHUT_RDWR)


@contextmanager
def relay(host: str, port: int) -> Iterator[tuple[int, RoundTrips]]:
    """Yield (a local port relaying to *host*:*port*, its round-trip counter)."""
    listener = socket.create_server(("127.0.0.1", 0))
    trips = RoundTrips()
    threads: list[threading.Thread] = []
    sockets: list[socket.socket] = []

    def accept() -> None:
        while True:
            try:
                client, _ = listener.accept()
            except OSError:
                return
            server = socket.create_connection((host, port))
            for end in (client, server):
                end.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            sockets.extend((client, server))
            key = client.fileno()
            for source, sink, side in ((client, server, "client"), (server, client, "server")):
                thread = threading.Thread(
                    target=_pump, args=(source, sink, trips, key, side), daemon=True
                )
                thread.start()
                threads.append(thread)

    acceptor = threading.Thread(target=accept, daemon=True)
    acceptor.start()
    try:
        yield listener.getsockname()[1], trips
    finally:
        listener.close()
        for end in sockets:
            with suppress(OSError):
                end.close()
