"""
The hosts harness's fixtures: a network of a db host and three application hosts, with a
database server of its own in the db host (PostgreSQL, and MariaDB for the tests that take
``database``), made once per module and removed afterwards (also when a test fails). Where
namespaces cannot be made (not root, no ``ip``) or a server's binaries are missing, the tests
skip saying why; with ``SLOTWISE_REQUIRE_SERVERS=1`` (``.ci/run``) they fail.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.contract.servers import unavailable

from . import databases, netns
from . import mariadb as mdb
from . import postgres as pg

HOSTS = ("h1", "h2", "h3")


def require_harness(kind: str = "postgresql") -> None:
    """
    Skip (or, with ``SLOTWISE_REQUIRE_SERVERS=1``, fail) when the harness cannot run here with
    the server *kind*.
    """
    reason = netns.unavailable_reason() or databases.unavailable_reason(kind)
    if reason:
        unavailable(f"the hosts harness cannot run here: {reason}")


@pytest.fixture(scope="module")
def network() -> Iterator[netns.Network]:
    """A bridge with a ``db`` host and the application hosts ``h1``-``h3``."""
    require_harness()
    with netns.network("db", *HOSTS) as made:
        yield made


@pytest.fixture(scope="module")
def postgres(network: netns.Network) -> Iterator[pg.Postgres]:
    """PostgreSQL in the ``db`` host, listening on the bridge."""
    with pg.postgres(network, network.hosts["db"]) as server:
        yield server


@pytest.fixture(scope="module")
def mariadb(network: netns.Network) -> Iterator[mdb.MariaDB]:
    """MariaDB in the ``db`` host, listening on the bridge (beside PostgreSQL: another port)."""
    require_harness("mariadb")
    with mdb.mariadb(network, network.hosts["db"]) as server:
        yield server


@pytest.fixture(scope="module", params=databases.KINDS)
def database(request: pytest.FixtureRequest) -> databases.Database:
    """Each server in turn: the test runs once on PostgreSQL and once on MariaDB."""
    fixture = {"postgresql": "postgres", "mariadb": "mariadb"}[request.param]
    server: databases.Database = request.getfixturevalue(fixture)
    return server


@pytest.fixture
def hosts(network: netns.Network) -> Iterator[netns.Network]:
    """The network; after the test, what it started in the application hosts is ended."""
    yield network
    for role in HOSTS:
        network.hosts[role].stop()
