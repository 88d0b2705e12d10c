"""
Reads that tolerate lag, and reading your own writes (decision 50).

Not part of the storage protocol: a store that has read replicas (``SQLStore`` given
*replicas*) offers ``replica_read()``, a read-only view that may come from a replica no further
behind than the store's *max_lag*. :func:`lagging_read` uses it, and on any other store falls
back to ``store.read()``. Only reads whose answer may be a little old use it -- availability and
lists -- because a booking re-checks its slot on the primary in its own unit of work: a stale
replica can show a slot that is already taken, and the booking is then refused with 409, never
overbooked.

**Consistency tokens.** A write answers with the primary's position after its commit (for
PostgreSQL its WAL position, ``"0/16B3748"``). Run calls inside :func:`consistent_with`: the
writes made there raise :attr:`Consistency.token` to their position, and the reads made there
come from a replica only once it has replayed that position (else from the primary). A client
keeps the token and presents it with its next request (HTTP: the ``Slotwise-Consistency``
header), so it sees its own booking even when its next request lands on another host.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from contextvars import ContextVar

import attrs

from slotwise.errors import InvalidFormat
from slotwise.storage.protocol import Reader, Store

__all__ = [
    "Consistency",
    "consistent_with",
    "current_consistency",
    "lagging_read",
    "token_position",
]

_TOKEN = re.compile(r"\A([0-9A-Fa-f]{1,8})/([0-9A-Fa-f]{1,8})\Z")


def token_position(token: str, *, field: str = "token") -> int:
    """
    Return the position a consistency token names, as a number that orders positions.

    Raises:
        InvalidFormat: naming *field*, when *token* is not ``"<hex>/<hex>"`` (at most 8 digits
            each: a PostgreSQL WAL position).
    """
    matched = _TOKEN.match(token)
    if matched is None:
        raise InvalidFormat(field=field, expected="a WAL position such as 0/16B3748", value=token)
    return (int(matched[1], 16) << 32) | int(matched[2], 16)


@attrs.define(kw_only=True)
class Consistency:
    """
    What one client has written, so its reads see it: the newest position it must read at.

    ``token`` is ``None`` until a write (or the token the client presented) names a position.

    .. versionadded:: 0.1
    """

    token: str | None = None

    @property
    def position(self) -> int | None:
        """Return :attr:`token` as a number (``None`` without a token)."""
        return None if self.token is None else token_position(self.token)

    def written(self, token: str) -> None:
        """Raise :attr:`token` to *token* when that is newer (stores call this after a commit)."""
        position = token_position(token)
        held = self.position
        if held is None or position > held:
            self.token = token


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


def lagging_read(store: Store) -> AbstractContextManager[Reader]:
    """
    Open a read whose answer may lag the primary by up to the store's *max_lag*.

    A store with read replicas answers from one that is close enough behind (and, inside
    :func:`consistent_with`, has replayed its token); any other store gives ``store.read()``.
    Never use it for a read that decides a write: those belong in the unit of work.
    """
    read_replica = getattr(store, "replica_read", None)
    if read_replica is not None:
        view: AbstractContextManager[Reader] = read_replica()
        return view
    return store.read()
