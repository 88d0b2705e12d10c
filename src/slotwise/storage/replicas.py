"""
Reads that tolerate lag, and reading your own writes (decision 50).

Not part of the storage protocol: a store that has read replicas (``SQLStore`` given
*replicas*) offers ``replica_read(read)``, which runs a read on a replica no further behind than
the store's *max_lag* (and again elsewhere when that replica fails during it).
:func:`lagging_read` uses it, and on any other store falls back to ``store.read()``. Only
reads whose answer may be a little old use it -- availability and lists -- because a booking
re-checks its slot on the primary in its own unit of work: a stale replica can show a slot that
is already taken, and the booking is then refused with 409, never overbooked.

**Consistency tokens.** A write answers with the primary's position after its commit. Run calls
inside :func:`consistent_with`: the writes made there raise :attr:`Consistency.token` to their
position, and the reads made there come from a replica only once it has replayed that position
(else from the primary). A client keeps the token and presents it with its next request (HTTP:
the ``Slotwise-Consistency`` header), so it sees its own booking even when its next request
lands on another host. A token is one of:

* **PostgreSQL**: a WAL position, ``"<hex>/<hex>"`` (``"0/16B3748"``, at most 8 hexadecimal
  digits each side), as ``pg_current_wal_insert_lsn()`` prints it.
* **MariaDB**: a GTID position, ``"<domain>-<server>-<sequence>"`` in decimal (``"0-1-42"``),
  or one such GTID per replication domain joined by commas (``"0-1-42,1-2-7"``, each domain
  once), as ``@@gtid_slave_pos`` prints it. Within a domain, the higher sequence number is the
  later position; the server id only says which primary wrote it.

The two shapes cannot be mistaken for each other (``/`` against ``-``). A token of the other
database is well formed but names no position of this store's primary: no replica has replayed
it, so the reads go to the primary, and the next write replaces it.
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from contextvars import ContextVar
from typing import TypeAlias, TypeVar, overload

import attrs

from slotwise.errors import InvalidFormat
from slotwise.storage.batched import ReadAgain
from slotwise.storage.protocol import Reader, Store

__all__ = [
    "Consistency",
    "GTIDPosition",
    "Position",
    "WALPosition",
    "consistent_with",
    "current_consistency",
    "lagging_read",
    "token_position",
]

T = TypeVar("T")

_WAL = re.compile(r"\A([0-9A-Fa-f]{1,8})/([0-9A-Fa-f]{1,8})\Z")
_GTID = re.compile(r"\A([0-9]{1,10})-([0-9]{1,10})-([0-9]{1,20})\Z")
_ID_LIMIT = 1 << 32  # domain and server ids are 32-bit unsigned; sequence numbers 64-bit
_SEQUENCE_LIMIT = 1 << 64
_EXPECTED = (
    "a consistency token: a PostgreSQL WAL position such as 0/16B3748, or a MariaDB GTID "
    "position such as 0-1-42 (domain-server-sequence, one per domain, comma-separated)"
)


@attrs.frozen
class WALPosition:
    """
    A PostgreSQL WAL position (a token ``"0/16B3748"``).

    .. versionadded:: 0.1
    """

    lsn: int
    """The position as one number: the high word times 2**32 plus the low word."""

    def covers(self, other: Position) -> bool:
        """Tell whether a server at this position has everything up to *other*."""
        return isinstance(other, WALPosition) and self.lsn >= other.lsn

    def newest(self, other: Position) -> Position:
        """Return the later of this position and *other* (*other* if they are not comparable)."""
        return self if isinstance(other, WALPosition) and self.lsn >= other.lsn else other

    def __str__(self) -> str:
        return f"{self.lsn >> 32:X}/{self.lsn & 0xFFFFFFFF:X}"


@attrs.frozen
class GTIDPosition:
    """
    A MariaDB GTID position (a token ``"0-1-42"``): the last GTID of each replication domain.

    .. versionadded:: 0.1
    """

    gtids: tuple[tuple[int, int, int], ...]
    """``(domain, server id, sequence number)`` per domain, in domain order, each domain once."""

    def covers(self, other: Position) -> bool:
        """
        Tell whether a server at this position has everything up to *other*: in every domain of
        *other*, a sequence number at least as high (MariaDB orders a domain by sequence alone).
        """
        if not isinstance(other, GTIDPosition):
            return False
        mine = {domain: sequence for domain, _, sequence in self.gtids}
        return all(
            domain in mine and mine[domain] >= sequence for domain, _, sequence in other.gtids
        )

    def newest(self, other: Position) -> Position:
        """Return the per-domain latest of both (*other* if it is not a GTID position)."""
        if not isinstance(other, GTIDPosition):
            return other
        latest = {gtid[0]: gtid for gtid in self.gtids}
        for gtid in other.gtids:
            held = latest.get(gtid[0])
            if held is None or gtid[2] > held[2]:
                latest[gtid[0]] = gtid
        return GTIDPosition(tuple(sorted(latest.values())))

    def __str__(self) -> str:
        return ",".join(f"{domain}-{server}-{sequence}" for domain, server, sequence in self.gtids)


Position: TypeAlias = WALPosition | GTIDPosition
"""The position a consistency token names, on PostgreSQL or on MariaDB."""


def token_position(token: str, *, field: str = "token") -> Position:
    """
    Return the position a consistency token names.

    Raises:
        InvalidFormat: naming *field*, when *token* is neither a PostgreSQL WAL position
            (``"<hex>/<hex>"``, at most 8 digits each) nor a MariaDB GTID position
            (``"<domain>-<server>-<sequence>"``, decimal, domain and server below 2**32,
            sequence below 2**64, comma-separated, each domain once).
    """
    wal = _WAL.match(token)
    if wal is not None:
        return WALPosition((int(wal[1], 16) << 32) | int(wal[2], 16))
    gtids: dict[int, tuple[int, int, int]] = {}
    for part in token.split(","):
        matched = _GTID.match(part)
        if matched is None:
            raise InvalidFormat(field=field, expected=_EXPECTED, value=token)
        domain, server, sequence = int(matched[1]), int(matched[2]), int(matched[3])
        if domain >= _ID_LIMIT or server >= _ID_LIMIT or sequence >= _SEQUENCE_LIMIT:
            raise InvalidFormat(
                field=field,
                expected=_EXPECTED + "; domain and server ids below 2**32, sequences below 2**64",
                value=token,
            )
        if domain in gtids:
            raise InvalidFormat(
                field=field, expected=_EXPECTED + f"; domain {domain} named twice", value=token
            )
        gtids[domain] = (domain, server, sequence)
    return GTIDPosition(tuple(sorted(gtids.values())))


@attrs.define(kw_only=True)
class Consistency:
    """
    What one client has written, so its reads see it: the newest position it must read at.

    ``token`` is ``None`` until a write (or the token the client presented) names a position.

    .. versionadded:: 0.1
    """

    token: str | None = None

    @property
    def position(self) -> Position | None:
        """Return :attr:`token` as a position (``None`` without a token)."""
        return None if self.token is None else token_position(self.token)

    def written(self, token: str) -> None:
        """
        Raise :attr:`token` to *token* when that is newer (stores call this after a commit).

        A held token of the other database (a client's PostgreSQL token meeting a MariaDB
        store, or the reverse) is replaced: it names nothing on this store's primary.
        """
        position = token_position(token)
        held = self.position
        if held is None:
            self.token = token
            return
        newest = held.newest(position)
        if newest != held:
            self.token = token if newest == position else str(newest)


_CURRENT: ContextVar[Consistency | None] = ContextVar("slotwise_consistency", default=None)


@contextmanager
def consistent_with(token: str | None = None, *, field: str = "token") -> Iterator[Consistency]:
    """
    Run the block's reads at or after *token*, and collect the block's writes' positions.

    Yields the :class:`Consistency` whose ``token`` is, after the block, the newest of *token*
    and the positions of the writes made in it: hand it to the client for its next request.

    Raises:
        InvalidFormat: naming *field*, for a *token* that is not a consistency token.

    .. versionadded:: 0.1
    """
    if token is not None:
        token_position(token, field=field)
    session = Consistency(token=token)
    reset = _CURRENT.set(session)
    try:
        yield session
    finally:
        _CURRENT.reset(reset)


def current_consistency() -> Consistency | None:
    """Return the :class:`Consistency` of the innermost :func:`consistent_with`, if any."""
    return _CURRENT.get()


@overload
def lagging_read(store: Store, read: Callable[[Reader], T], /) -> T: ...


@overload
def lagging_read(store: Store, /) -> AbstractContextManager[Reader]: ...


def lagging_read(
    store: Store, read: Callable[[Reader], T] | None = None, /
) -> T | AbstractContextManager[Reader]:
    """
    Return ``read(reader)`` on a reader whose answers may lag the primary by the store's *max_lag*.

    A store with read replicas answers from one that is close enough behind (and, inside
    :func:`consistent_with`, has replayed its token); any other store from ``store.read()``. When
    the replica fails during the read (stopped, crashed, cut off), *read* runs again from the
    start on another replica or the primary: the caller sees no failure. So *read* must only
    read, and return what it needs (the reader is closed afterwards). Never use it for a read
    that decides a write: those belong in the unit of work.

    Raises:
        SlotwiseError: whatever *read* raises (a failing replica's ``StoreUnavailable`` only
            when the primary fails too).

    .. versionadded:: 0.1
    .. deprecated:: 0.1
       ``with lagging_read(store) as reader:`` (without *read*): a ``with`` block cannot be run
       again, so a replica failing during it fails the block. Pass the read as a callable.
    """
    if read is None:
        warnings.warn(
            "lagging_read(store) as a context manager is deprecated: a replica failing during "
            "the block fails it; pass the read instead: lagging_read(store, read)",
            DeprecationWarning,
            stacklevel=2,
        )
        view = getattr(store, "replica_view", None)
        opened: AbstractContextManager[Reader] = store.read() if view is None else view()
        return opened
    read_replica = getattr(store, "replica_read", None)
    if read_replica is not None:
        answer: T = read_replica(read)
        return answer
    with store.read() as reader:
        try:
            return read(reader)
        except ReadAgain:
            pass  # the view ended early, or its cached configuration was older: once more
    with store.read() as reader:
        return read(reader)
