"""
Reads that tolerate lag on the replicas of ``SQLStore`` (decision 50), and what happens when the
replica answering one fails in the middle of it: the read runs again on another replica or the
primary, so a replica that dies costs no failed read.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Collection, Iterator
from contextlib import contextmanager, nullcontext
from typing import TYPE_CHECKING, TypeVar

from slotwise.errors import StoreUnavailable
from slotwise.storage.batched import ReadAgain
from slotwise.storage.replicas import current_consistency

from ._operating import unpinged
from ._replicas import ReplicaSet
from ._units import SQLReader

if TYPE_CHECKING:
    from ._store import SQLStore

__all__ = ["primary_view", "read_on_replicas", "replica_view"]

T = TypeVar("T")

logger = logging.getLogger("slotwise.storage")


@contextmanager
def primary_view(store: SQLStore, *, pinged: bool) -> Iterator[SQLReader]:
    """
    Yield a reader on one snapshot of the primary (a read-only transaction); with *pinged*
    ``False`` its connection is checked out of the pool without the liveness ping.
    """
    options = store._dialect.read_options(store._engine.dialect.driver)
    with nullcontext() if pinged else unpinged():
        conn = store._connect(options, "opening a read")
    reader: SQLReader | None = None
    try:
        reader = SQLReader(store, conn)
        opening = store._dialect.read_opening(conn)
        if opening:  # BEGIN rides with the first read
            reader._opening, reader._riding = opening, True
        else:
            try:
                store._dialect.begin_read(conn)
            except Exception as error:
                raise store._dialect.translate(error, "beginning a read") from error
            reader._direct = store._dialect.reads_direct(conn)
        yield reader
    finally:
        # The reader's connection: another when its first round trip found this one lost.
        if reader is not None and reader._ended:
            store._dialect.ended(reader._conn)
        store._release(conn if reader is None else reader._conn)


def read_on_replicas(
    store: SQLStore, replicas: ReplicaSet | None, read: Callable[[SQLReader], T]
) -> T:
    """
    Return ``read(reader)`` on a replica the read may use, else on the primary.

    When the replica's connection fails during the read (the replica was stopped or crashed,
    its backend terminated, the network cut: ``StoreUnavailable`` from one of its statements),
    the replica is left alone for the store's *replica_retry* seconds and *read* runs again from
    the start, on another replica or the primary. Safe because a read writes nothing; any other
    error -- ``NotFound``, a refused query, a failure of the primary -- is raised as it is.
    """
    failed: list[int] = []
    while True:
        chosen = None if replicas is None else _open(store, replicas, excluding=failed)
        if replicas is None or chosen is None:
            return _on_primary(store, read)
        index, reader = chosen
        try:
            return read(reader)
        except StoreUnavailable as error:
            if not isinstance(reader._failure, StoreUnavailable):
                raise  # not this replica's connection: the caller's own store error
            replicas.mark_down(index, error)
            failed.append(index)
            logger.warning("replica %d failed during a read; the read runs again elsewhere", index)
        finally:
            _close(store, reader)


def _on_primary(store: SQLStore, read: Callable[[SQLReader], T]) -> T:
    """
    Return ``read(reader)`` on the primary, on a pooled connection not pinged first (the ping is
    a round trip): when that connection turns out dead (``StoreUnavailable`` from one of its
    statements: the server restarted, the backend was terminated), *read* runs again from the
    start on a view ``store.read()`` opens (pinged, or where reads ride, one whose first round
    trip replaces a dead connection by a pinged one), so a connection dropped while pooled
    still costs no failed read (what the ping is for). An unreachable server fails the second
    attempt. Where the read's first round trip rides (PostgreSQL, MariaDB on the store's own
    engine), a connection found dead by that round trip is replaced below, in the unit's own
    resend (``_unit_base._reconnected``); this re-run is for a read that fails after it, or
    when that replacement cannot connect. ``ReadAgain`` (the view ended before the read did, or
    the cached configuration was older than the view's) runs it again the same way.
    """
    with primary_view(store, pinged=False) as reader:
        try:
            return read(reader)
        except ReadAgain as again:
            # The read went on after the one it announced as its last, or its cached
            # configuration turned out older than its view's: it runs again on a view that
            # reads the version first and ends as usual, so that all of it sees one snapshot.
            logger.debug("%s; the read runs again", again.message)
        except StoreUnavailable:
            if not isinstance(reader._failure, StoreUnavailable):
                raise  # not this connection's failure
            logger.info("a pooled connection failed during a read; the read runs again")
    with store.read() as reader:
        reader._may_end = False
        return read(reader)


@contextmanager
def replica_view(store: SQLStore, replicas: ReplicaSet | None) -> Iterator[SQLReader]:
    """
    Yield a reader on a replica the read may use, else on the primary: one attempt.

    A ``with`` block cannot run twice, so a replica failing during it fails the block
    (``StoreUnavailable``); the replica is then left alone for *replica_retry* seconds.
    """
    chosen = None if replicas is None else _open(store, replicas, excluding=())
    if replicas is None or chosen is None:
        with store.read() as reader:
            yield reader
        return
    index, reader = chosen
    try:
        yield reader
    except StoreUnavailable as error:
        if isinstance(reader._failure, StoreUnavailable):
            replicas.mark_down(index, error)
        raise
    finally:
        _close(store, reader)


def _open(
    store: SQLStore, replicas: ReplicaSet, *, excluding: Collection[int]
) -> tuple[int, SQLReader] | None:
    """
    Return (index, reader) on a replica that qualifies for this read, or ``None``; the replica
    set has begun the reader's read-only transaction as the store's dialect begins one.
    """
    consistency = current_consistency()
    chosen = replicas.open(
        lambda engine: store._connect(store._dialect.read_options(), "opening a read", engine),
        after=None if consistency is None else consistency.position,
        excluding=excluding,
    )
    if chosen is None:
        return None
    index, conn = chosen
    reader = SQLReader(store, conn)
    reader.served_by = f"replica {index}"
    return index, reader


def _close(store: SQLStore, reader: SQLReader) -> None:
    """End the reader's read-only transaction; a broken connection is discarded, not pooled."""
    store._release(reader._conn)
