"""
The database servers the harness can run in its ``db`` host, by name: ``postgresql``
(:mod:`.postgres`) and ``mariadb`` (:mod:`.mariadb`). Both listen on the bridge, make a database
per scenario and hand out the URL the hosts use (``postgresql+psycopg://...``,
``mysql+pymysql://...``); the tests and ``benchmarks/hosts.py`` choose one by name.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Protocol

from . import mariadb, postgres
from .netns import Host, Network

KINDS = ("postgresql", "mariadb")
"""The servers' names, as the tests' ids and ``benchmarks/hosts.py --database`` spell them."""


class Database(Protocol):
    """A server of the harness's own, running in its ``db`` host."""

    host: Host

    def database(self) -> str:
        """Create an empty database; return its URL."""
        ...


def unavailable_reason(kind: str) -> str | None:
    """Return why the harness cannot run the server *kind* here, or ``None``."""
    if kind == "postgresql":
        return postgres.unavailable_reason()
    if kind == "mariadb":
        return mariadb.unavailable_reason()
    raise ValueError(f"the hosts harness runs {' or '.join(KINDS)}, not {kind!r}")


@contextlib.contextmanager
def server(kind: str, network: Network, host: Host) -> Iterator[Database]:
    """Run a fresh server *kind* in *host*, reachable from *network*; remove it on exit."""
    made: contextlib.AbstractContextManager[Database]
    if kind == "postgresql":
        made = postgres.postgres(network, host)
    elif kind == "mariadb":
        made = mariadb.mariadb(network, host)
    else:
        raise ValueError(f"the hosts harness runs {' or '.join(KINDS)}, not {kind!r}")
    with made as running:
        yield running
