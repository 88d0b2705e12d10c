"""
The hosts harness's fixtures: a network of a db host and three application hosts, with a
PostgreSQL of its own in the db host, made once per module and removed afterwards (also when a
test fails). Where namespaces cannot be made (not root, no ``ip``) or PostgreSQL's binaries are
missing, the tests skip saying why; with ``SLOTWISE_REQUIRE_SERVERS=1`` (``.ci/run``) they fail.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.contract.servers import unavailable

from . import netns
from . import postgres as pg

HOSTS = ("h1", "h2", "h3")


def require_harness() -> None:
    """Skip (or, with ``SLOTWISE_REQUIRE_SERVERS=1``, fail) when the harness cannot run here."""
    reason = netns.unavailable_reason() or pg.unavailable_reason()
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


@pytest.fixture
def hosts(network: netns.Network) -> Iterator[netns.Network]:
    """The network; after the test, what it started in the application hosts is ended."""
    yield network
    for role in HOSTS:
        network.hosts[role].stop()
