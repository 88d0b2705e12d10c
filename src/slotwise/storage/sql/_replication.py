"""
What each database reports about its replication (decision 50): how a replica says whether it
follows a primary, how far behind it is and what it has replayed, and where the primary stands
after a commit (the consistency token). Everything is measured by the servers themselves: no
clock of this process is involved.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar, Protocol

import attrs
from sqlalchemy import Connection, text

from slotwise.storage.replicas import Position, token_position

__all__ = [
    "MariaDBReplication",
    "PostgreSQLReplication",
    "ReplicaSample",
    "Replication",
    "replication_for",
    "slaves_status_sample",
]


@attrs.frozen(kw_only=True)
class ReplicaSample:
    """What a replica reports about itself just before a read."""

    follows: bool
    """``False`` for a server that is not (or no longer) a replica: it follows no primary."""
    stopped: str | None = None
    """Why its replication is not running (``None``: it receives and replays)."""
    caught_up: bool
    """Whether it has replayed everything it knows the primary wrote."""
    seconds_behind: float | None
    """How far behind it says it is, when not caught up (``None``: it cannot tell)."""
    replayed: Position | None
    """The position replayed so far (``None``: nothing yet)."""


class Replication(Protocol):
    """One database's replication, as the replica set and the store's writes see it."""

    database: ClassVar[str]
    """The database's name (``"PostgreSQL"``)."""
    engine_names: ClassVar[tuple[str, ...]]
    """The SQLAlchemy dialect names of its engines."""

    def sample(self, conn: Connection) -> ReplicaSample:
        """Ask the replica on *conn* about itself; leave no transaction open."""
        ...

    def committed(self, conn: Connection) -> str | None:
        """Return the primary's position after the commit just made on *conn* (a token)."""
        ...


class PostgreSQLReplication:
    """
    Streaming replication: the replica is in recovery with a WAL receiver running; its lag is 0
    when it has replayed all the WAL it received, else its clock minus the commit time of the
    last transaction it replayed.
    """

    database: ClassVar[str] = "PostgreSQL"
    engine_names: ClassVar[tuple[str, ...]] = ("postgresql",)

    # One round trip, before the read's snapshot is taken (rolled back after it), so the
    # snapshot is at least as new as what is measured here.
    _SAMPLE = text(
        "SELECT pg_is_in_recovery(),"
        " EXISTS (SELECT 1 FROM pg_stat_wal_receiver),"
        " pg_last_wal_receive_lsn() = pg_last_wal_replay_lsn(),"
        " EXTRACT(EPOCH FROM clock_timestamp() - pg_last_xact_replay_timestamp())::float8,"
        " pg_last_wal_replay_lsn()::text"
    )

    def sample(self, conn: Connection) -> ReplicaSample:
        row = conn.execute(self._SAMPLE).one()
        conn.rollback()
        return ReplicaSample(
            follows=bool(row[0]),
            stopped=None if row[1] else "it is not streaming from the primary (no WAL receiver)",
            caught_up=bool(row[2]),
            seconds_behind=None if row[3] is None else float(row[3]),
            replayed=None if row[4] is None else token_position(row[4], field="replayed"),
        )

    def committed(self, conn: Connection) -> str | None:
        # The insert position is at or past the end of the commit record just written (the
        # write position may trail it under synchronous_commit = off).
        position = conn.exec_driver_sql("SELECT pg_current_wal_insert_lsn()::text").scalar()
        conn.rollback()
        return None if position is None else str(position)


class MariaDBReplication:
    """
    GTID replication (``CHANGE MASTER TO ... MASTER_USE_GTID=slave_pos``): the replica has a
    replication connection whose IO and SQL threads both run; its lag is its
    ``Seconds_Behind_Master`` (whole seconds; 0 while the SQL thread waits for events), and it
    has replayed ``@@gtid_slave_pos``.
    """

    database: ClassVar[str] = "MariaDB"
    engine_names: ClassVar[tuple[str, ...]] = ("mysql", "mariadb")

    def sample(self, conn: Connection) -> ReplicaSample:
        # SHOW ALL SLAVES STATUS also carries Gtid_Slave_Pos: one round trip. A SHOW opens no
        # InnoDB snapshot, so the read's snapshot (its first SELECT) comes after it.
        rows = [dict(row._mapping) for row in conn.exec_driver_sql("SHOW ALL SLAVES STATUS")]
        conn.rollback()
        return slaves_status_sample(rows)

    def committed(self, conn: Connection) -> str | None:
        # The GTID this session last wrote to the binary log: the commit just made, or, when it
        # wrote nothing, an earlier commit of this connection (an older token is still a true
        # one). Empty without a binary log: then no replica can have replayed anything.
        position = conn.exec_driver_sql("SELECT @@last_gtid").scalar()
        conn.rollback()
        return str(position) if position else None


def slaves_status_sample(rows: Sequence[Mapping[str, Any]]) -> ReplicaSample:
    """Return what the rows of MariaDB's ``SHOW ALL SLAVES STATUS`` say about the replica."""
    status = _followed(rows)
    if status is None:
        return ReplicaSample(follows=False, caught_up=False, seconds_behind=None, replayed=None)
    behind = status.get("Seconds_Behind_Master")
    gtids = str(status.get("Gtid_Slave_Pos") or "")
    return ReplicaSample(
        follows=True,
        stopped=_stopped(status),
        caught_up=behind == 0,
        seconds_behind=None if behind is None else float(behind),
        replayed=token_position(gtids, field="Gtid_Slave_Pos") if gtids else None,
    )


def _followed(rows: Sequence[Mapping[str, Any]]) -> Mapping[str, Any] | None:
    """Return the status of the replication connection the replica follows its primary on."""
    if len(rows) == 1:
        return rows[0]
    # Several sources (multi-source replication): the default connection is the one a plain
    # CHANGE MASTER TO configures.
    return next((row for row in rows if row.get("Connection_name") == ""), None)


def _stopped(status: Mapping[str, Any]) -> str | None:
    """Say which replication thread is not running, and its last error."""
    for thread in ("IO", "SQL"):
        state = status.get(f"Slave_{thread}_Running")
        if state != "Yes":
            error = status.get(f"Last_{thread}_Error") or ""
            shown = "not running" if state == "No" else str(state).lower()
            return f"its {thread} thread is {shown}" + (f" ({error})" if error else "")
    return None


_REPLICATIONS: tuple[type[PostgreSQLReplication] | type[MariaDBReplication], ...] = (
    PostgreSQLReplication,
    MariaDBReplication,
)


def replication_for(database: str) -> Replication | None:
    """Return the replication of the store dialect named *database*, ``None`` for SQLite."""
    for replication in _REPLICATIONS:
        if replication.database == database:
            return replication()
    return None
