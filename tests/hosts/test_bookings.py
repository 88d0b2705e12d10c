"""
``slotwise serve`` in separate network hosts on one PostgreSQL or MariaDB, clients in every host booking
the same last seats over HTTP (issue 24): the checks of ``tests/contract/test_sql_processes.py``
across machines. Each client sends its requests to every host's server in turn.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from slotwise.model import Appointment, AppointmentStatus
from slotwise.storage.sql import SQLStore

from . import services
from .databases import Database
from .netns import Network
from .world import LENGTH, World, seed

THREADS = 3
ATTEMPTS = 15


def _stored(world: World) -> list[Appointment]:
    """Return every stored appointment of the world's company."""
    store = SQLStore(world.url, create=False)
    try:
        with store.read() as reader:
            return reader.find(Appointment, company_id=world.company_id)
    finally:
        store.close()


def _race(network: Network, world: World, hosts: list[str], starts: int) -> list[list[Any]]:
    """Serve *world* from *hosts*; clients in each race for *starts* half hours; return outcomes."""
    bases = [services.serve(network.hosts[role], world.url) for role in hosts]
    plan = {
        "servers": bases,
        "token": world.token,
        "threads": THREADS,
        "pick": "random",
        "attempts": ATTEMPTS,
        "requests": [world.booking(0, number) for number in range(starts)],
    }
    results = services.clients(
        [(network.hosts[role], {**plan, "seed": n}) for n, role in enumerate(hosts)]
    )
    outcomes = [outcome for result in results for outcome in result["outcomes"]]
    print(f"outcomes: {Counter((status, code) for status, code, _ in outcomes)}")
    return outcomes


class TestLastSeats:
    def test_two_hosts_book_the_last_seats_exactly(self, hosts: Network, database: Database):
        """Two hosts' clients race for 3 slots x 2 seats: 6 bookings, every refusal a 409."""
        world = seed(database.database(), seats=2)

        outcomes = _race(hosts, world, ["h1", "h2"], starts=3)

        booked = [id_ for status, _, id_ in outcomes if status == 201]
        assert 2 * THREADS * ATTEMPTS == len(outcomes)
        assert [] == [(s, c) for s, c, _ in outcomes if s not in (201, 409)]
        assert {"SLOT-UNAVAILABLE"} == {c for s, c, _ in outcomes if s == 409}
        assert 6 == len(booked)
        stored = _stored(world)
        assert sorted(booked) == sorted(a.id for a in stored)
        assert {AppointmentStatus.BOOKED} == {a.status for a in stored}
        assert [2, 2, 2] == sorted(Counter(a.start for a in stored).values())
        assert {world.start(n) for n in range(3)} == {a.start for a in stored}
        assert {LENGTH} == {a.end - a.start for a in stored}
