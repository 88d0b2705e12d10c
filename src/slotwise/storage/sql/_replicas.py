"""
The read replicas of ``SQLStore`` (PostgreSQL streaming replicas, MariaDB GTID replicas;
decision 50): which one may answer a read that tolerates lag, judged by the replica's own view of
how far behind it is (``_replication.py`` asks each database).
"""

from __future__ import annotations

import itertools
import logging
import time
from collections.abc import Callable, Collection, Sequence

from sqlalchemy import URL, Connection, Engine

from slotwise.errors import InconsistentFields
from slotwise.storage.replicas import Position

from ._dialects import Dialect
from ._operating import make_engine
from ._replication import PostgreSQLReplication, ReplicaSample, Replication, replication_for

__all__ = ["ReplicaSample", "ReplicaSet", "open_replicas", "skip_reason"]

logger = logging.getLogger("slotwise.storage")


def skip_reason(sample: ReplicaSample, *, max_lag: float, after: Position | None) -> str | None:
    """
    Return why a read may not use the replica that reported *sample*, or ``None`` when it may.

    A replica is usable when it follows a primary with its replication running, has replayed
    position *after* (a client's consistency token), and is at most *max_lag* seconds behind:
    0 when it has replayed all it knows of, else what it reports. A replica whose replication
    is stopped cannot know how far behind it is: skipped.
    """
    if not sample.follows:
        return "it is not a replica (promoted, or a primary given as a replica)"
    if sample.stopped is not None:
        return sample.stopped
    if after is not None and (sample.replayed is None or not sample.replayed.covers(after)):
        if sample.replayed is not None and type(sample.replayed) is not type(after):
            return f"the client's token {after} is not a position of this database"
        return f"it has not replayed the client's writes yet (at {sample.replayed})"
    if sample.caught_up:
        return None
    if sample.seconds_behind is None:
        # PostgreSQL: no transaction replayed yet since it started.
        return "it cannot tell how far behind it is"
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
        replication: Replication | None = None,
        begin_read: Callable[[Connection], None] | None = None,
    ) -> None:
        self.engines = tuple(engines)
        self.replication: Replication = replication or PostgreSQLReplication()
        self._begin_read = begin_read
        self.max_lag = max_lag
        self.retry_after = retry_after
        self._monotonic = monotonic
        self._turn = itertools.count()
        self._down_until = [0.0] * len(self.engines)

    def open(
        self,
        connect: Callable[[Engine], Connection],
        *,
        after: Position | None,
        excluding: Collection[int] = (),
    ) -> tuple[int, Connection] | None:
        """
        Return (index, connection) of a replica a lag-tolerant read may use, or ``None``.

        The connection has no transaction open (the next one is set up as the store's reads
        are): the read's snapshot is taken by its first statement, after the replica was judged.
        Failures to reach a replica are logged, never raised: the read then goes to the primary.
        The replicas *excluding* names (those that failed this read already) are not tried.
        """
        count = len(self.engines)
        start = next(self._turn) % count if count else 0
        for index in [(start + offset) % count for offset in range(count)]:
            if index in excluding or self._down_until[index] > self._monotonic():
                continue
            try:
                conn = connect(self.engines[index])
            except Exception as error:
                self.mark_down(index, error)
                continue
            try:
                sample = self.replication.sample(conn)
                reason = skip_reason(sample, max_lag=self.max_lag, after=after)
                if reason is None and self._begin_read is not None:
                    self._begin_read(conn)
            except Exception as error:
                conn.invalidate()
                conn.close()
                self.mark_down(index, error)
                continue
            if reason is None:
                return index, conn
            conn.close()
            logger.info("replica %d skipped for a read: %s", index, reason)
        return None

    def mark_down(self, index: int, error: Exception) -> None:
        """Leave replica *index* alone for *retry_after* seconds: *error* showed it down."""
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
    dialect: Dialect,
    replicas: Sequence[Engine | URL | str] | URL | str,
    *,
    owned: list[Engine],
    max_lag: float,
    retry_after: float,
    lock_timeout: float,
) -> ReplicaSet:
    """
    Return the replica set of a store on *dialect*; engines made from URLs join *owned* (the
    store disposes of them).

    Raises:
        InconsistentFields: naming ``replicas``, for a store on SQLite, or a replica on another
            database than the store's.
    """
    replication = replication_for(dialect.name)
    if replication is None:
        raise InconsistentFields(
            f"read replicas need PostgreSQL or MariaDB; this store is on {dialect.name}",
            field="replicas",
        )
    engines: list[Engine] = []
    for replica in [replicas] if isinstance(replicas, str | URL) else replicas:
        if isinstance(replica, Engine):
            engine = replica
        else:
            engine = make_engine(replica, lock_timeout, field="replicas")
            owned.append(engine)
        if engine.dialect.name not in replication.engine_names:
            raise InconsistentFields(
                f"a replica of a {dialect.name} store must be {dialect.name}, not "
                f"{engine.dialect.name}",
                field="replicas",
            )
        engines.append(engine)
    return ReplicaSet(
        engines,
        max_lag=max_lag,
        retry_after=retry_after,
        replication=replication,
        begin_read=dialect.begin_read,
    )
