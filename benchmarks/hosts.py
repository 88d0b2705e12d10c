"""
Separate network hosts on one PostgreSQL or MariaDB (issue 24): bookings and availability
requests per second with 1, 2 and 4 application hosts.

Usage (as root, on Linux: the hosts are network namespaces)::

    python benchmarks/hosts.py [--database postgresql|mariadb] [--hosts 1 2 4] [--bookings 150]
                               [--seconds 5] [--threads 2]

For each host count a network is made with the test harness (``tests/hosts``: a bridge, a
``db`` host running a PostgreSQL -- or with ``--database mariadb`` a MariaDB -- of its own, and
the application hosts), a business is set up
(``tests/hosts/world.py``: a location open around the clock, a 30-minute service, 20 resources),
``slotwise serve`` (one worker process) starts in every host, and a client process in every
host with ``--threads`` connections, each sending request *n* to host ``n mod N``'s server:

``bookings``      ``POST /consumer/v1/appointments?completeBooking=BK``, ``--bookings`` per host,
                  every one a distinct half hour of a resource (none contends).
``availability``  ``GET /consumer/v1/availability/...`` of one resource's week, for ``--seconds``.

Each figure is one JSON line: ``{"figure": "hosts", "database", "hosts", "endpoint",
"threads", "requests", "seconds", "per_second", "errors"}``, where ``seconds`` is the slowest client's
(they start together) and ``errors`` counts answers other than 201 (bookings) or 200. Every
host and the database share this machine's cores, so the figures show what more server
processes on one primary do, not what more machines would. Speed is never asserted
(STYLE rule 35).

Unlike the other benchmarks this one imports from ``tests/``: the namespaces harness is
several hundred lines that the tests own, and a copy would drift.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.hosts import databases, netns, services
from tests.hosts.world import seed

RESOURCES = 20


def _figure(
    database: str, hosts: int, endpoint: str, threads: int, results: list[dict[str, Any]]
) -> dict[str, Any]:
    """Return the JSON figure of one endpoint's run from the clients' *results*."""
    ok = 201 if endpoint == "bookings" else 200
    outcomes = [outcome for result in results for outcome in result["outcomes"]]
    seconds = max(result["elapsed"] for result in results)
    done = sum(1 for status, _, _ in outcomes if status == ok)
    return {
        "figure": "hosts",
        "database": database,
        "hosts": hosts,
        "endpoint": endpoint,
        "threads": threads,
        "requests": done,
        "seconds": round(seconds, 3),
        "per_second": round(done / seconds, 1) if seconds else 0.0,
        "errors": len(outcomes) - done,
    }


def measure(
    database: str, hosts: int, bookings: int, seconds: float, threads: int
) -> list[dict[str, Any]]:
    """Run both loads with *hosts* application hosts on the server *database*; return figures."""
    roles = [f"h{n + 1}" for n in range(hosts)]
    with (
        netns.network("db", *roles) as network,
        databases.server(database, network, network.hosts["db"]) as db,
    ):
        world = seed(db.database(), resources=RESOURCES)
        apps = [network.hosts[role] for role in roles]
        bases = [services.serve(host, world.url) for host in apps]
        plan = {"servers": bases, "token": world.token, "threads": threads}
        requests = [world.booking(n % RESOURCES, n // RESOURCES) for n in range(bookings * hosts)]
        booked = services.clients(
            [
                (host, {**plan, "pick": "each", "requests": requests[n::hosts]})
                for n, host in enumerate(apps)
            ]
        )
        looked = services.clients(
            [
                (
                    host,
                    {
                        **plan,
                        "pick": "repeat",
                        "seconds": seconds,
                        "requests": [world.availability(n % RESOURCES)],
                    },
                )
                for n, host in enumerate(apps)
            ]
        )
        return [
            _figure(database, hosts, "bookings", threads, booked),
            _figure(database, hosts, "availability", threads, looked),
        ]


def main(argv: Sequence[str] | None = None) -> int:
    """Print the figures for each host count."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--database", choices=databases.KINDS, default="postgresql")
    parser.add_argument("--hosts", type=int, nargs="+", default=[1, 2, 4])
    parser.add_argument("--bookings", type=int, default=150, help="bookings per host")
    parser.add_argument("--seconds", type=float, default=5.0, help="availability load time")
    parser.add_argument("--threads", type=int, default=2, help="connections per client host")
    arguments = parser.parse_args(argv)
    reason = netns.unavailable_reason() or databases.unavailable_reason(arguments.database)
    if reason:
        print(f"hosts benchmark: cannot run here: {reason}", file=sys.stderr)
        return 2
    for hosts in arguments.hosts:
        figures = measure(
            arguments.database, hosts, arguments.bookings, arguments.seconds, arguments.threads
        )
        for figure in figures:
            print(json.dumps(figure), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
