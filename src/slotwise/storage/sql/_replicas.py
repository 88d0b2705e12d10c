"""
The read replicas of ``SQLStore`` (PostgreSQL streaming replicas, decision 50): which one may
answer a read that tolerates lag, judged by the replica's own view of how far behind it is.
"""

from __future__ import annotations

import itertools
import logging
import time
from collections.abc import Callable, Sequence

import attrs
from sqlalchemy import URL, Connection, Engine, text

from slotwise.errors import InconsistentFields
from slotwise.storage.replicas import token_position

from ._operating import make_engine

__all__ = ["ReplicaSample", "ReplicaSet", "skip_reason"]

logger = logging.getLogger("slotwise.storage")

# Measured on the replica, in one round trip and before the read's snapshot is taken (the
# caller rolls back after it), so the snapshot is at least as new as what is measured here.
# The seconds behind are the replica's clock minus the commit time of the last transaction it
# replayed: both the server's own, no clock of this process is involved.
_SAMPLE = text(
    "SELECT pg_is_in_recovery(),"
    " EXISTS (SELECT 1 FROM pg_stat_wal_receiver),"
    " pg_last_wal_receive_lsn() = pg_last_wal_replay_lsn(),"
    " EXTRACT(EPOCH FROM clock_timestamp() - pg_last_xact_replay_timestamp())::float8,"
    " pg_last_wal_replay_lsn()::text"
)


@attrs.frozen(kw_only=True)
class ReplicaSample:
    """What a replica reports about itself just before a read."""

    in_recovery: bool
    """``False`` for a server that is not (or no longer) a replica: it follows no primary."""
    receiving: bool
    """Whether a WAL receiver is running (streaming from the primary)."""
    caught_up: bool
    """Whether everything received has been replayed."""
    seconds_behind: float | None
    """Replica clock minus the commit time of the last replayed transaction (``None``: none yet)."""
    replayed: str | None
    """The WAL position replayed so far."""


def skip_reason(sample: ReplicaSample, *, max_lag: float, after: int | None) -> str | None:
    """
    Return why a read may not use the replica that reported *sample*, or ``None`` when it may.

    A replica is usable when it follows a primary (in recovery, a WAL receiver running), has
    replayed position *after* (a client's consistency token), and is at most *max_lag* seconds
    behind: 0 when it has replayed all it received, else the age of the last transaction it
    replayed. A replica whose receiver is down cannot know how far behind it is: skipped.
    """
    if not sample.in_recovery:
        return "it is not a replica (promoted, or a primary given as a replica)"
    if not sample.receiving:
        return "it is not streaming from the primary"
    if after is not None and (sample.replayed is None or token_position(sample.replayed) < after):
        return f"it has not replayed the client's writes yet (at {sample.replayed})"
    if sample.caught_up:
        return None
    if sample.seconds_behind is None:
        return "it has replayed no transaction yet"
    if sample.seconds_behind > max_lag:
        return f"it is {sample.seconds_behind:.3f} s behind (max_lag {max_lag:g} s)"
    return None


class ReplicaSet:
    """
    The replicas of one store: tried in turn, a lagging one skipped for one read, one that
    cannot be reached skipped for *retry_after* seconds.
    """

    def __init__(
        self,
        engines: Sequence[Engine],
        *,
        max_lag: float,
        retry_after: float,
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        self.engines = tuple(engines)
        self.max_lag = max_lag
        self.retry_after = retry_after
        self._monotonic = monotonic
        self._turn = itertools.count()
        self._down_until = [0.0] * len(self.engines)

    def open(
        self, connect: Callable[[Engine], Connection], *, after: int | None
    ) -> tuple[int, Connection] | None:
        """
        Return (index, connection) of a replica a lag-tolerant read may use, or ``None``.

        The connection has no transaction open: the read's snapshot is taken by its first
        statement, after the replica was judged. Failures to reach a replica are logged, never
        raised: the read then goes to the primary.
        """
        count = len(self.engines)
        start = next(self._turn) % count if count else 0
        for index in [(start + offset) % count for offset in range(count)]:
            if self._down_until[index] > self._monotonic():
                continue
            try:
                conn = connect(self.engines[index])
            except Exception as error:
                self._mark_down(index, error)
                continue
            try:
                row = conn.execute(_SAMPLE).one()
                conn.rollback()
            except Exception as error:
                conn.invalidate()
                conn.close()
                self._mark_down(index, error)
                continue
            sample = ReplicaSample(
                in_recovery=bool(row[0]),
                receiving=bool(row[1]),
                caught_up=bool(row[2]),
                seconds_behind=None if row[3] is None else float(row[3]),
                replayed=row[4],
            )
            reason = skip_reason(sample, max_lag=self.max_lag, after=after)
            if reason is None:
                return index, conn
            conn.close()
            logger.info("replica %d skipped for a read: %s", index, reason)
        return None

    def _mark_down(self, index: int, error: Exception) -> None:
        self._down_until[index] = self._monotonic() + self.retry_after
        logger.warning(
            "replica %d unreachable (%s); reads go elsewhere for %g s",
            index,
            str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__,
            self.retry_after,
        )

    def dispose(self) -> None:
        """Close every replica engine's pooled connections."""
        for engine in self.engines:
            engine.dispose()


def open_replicas(
    dialect_name: str,
    replicas: Sequence[Engine | URL | str] | URL | str,
    *,
    owned: list[Engine],
    max_lag: float,
    retry_after: float,
    lock_timeout: float,
) -> ReplicaSet:
    """
    Return the replica set of a store on *dialect_name*; engines made from URLs join *owned*
    (the store disposes of them).

    Raises:
        InconsistentFields: naming ``replicas``, for a store or a replica not on PostgreSQL.
    """
    if dialect_name != "PostgreSQL":
        raise InconsistentFields(
            f"read replicas need PostgreSQL; this store is on {dialect_name}", field="replicas"
        )
    engines: list[Engine] = []
    for replica in [replicas] if isinstance(replicas, str | URL) else replicas:
        if isinstance(replica, Engine):
            engine = replica
        else:
            engine = make_engine(replica, lock_timeout)
            owned.append(engine)
        if engine.dialect.name != "postgresql":
            raise InconsistentFields(
                f"a replica of a PostgreSQL store must be PostgreSQL, not {engine.dialect.name}",
                field="replicas",
            )
        engines.append(engine)
    return ReplicaSet(engines, max_lag=max_lag, retry_after=retry_after)
