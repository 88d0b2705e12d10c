"""
API tokens of the HTTP service (decision 39): created, listed, revoked and checked by Python call.

A token is an opaque random string of at least 32 bytes, shown once when it is created; the store
keeps only its SHA-256 (``ApiToken.token_hash``), so a copy of the store holds no usable token.
Each token stands for a principal (a company, optionally limited to some of its locations),
carries a label (recorded as the acting user) and may expire. Missing, unknown, expired and
revoked tokens all fail :meth:`TokenOperations.authenticate` alike, with ``NotAuthenticated``
and nothing more said, so a caller cannot tell which.

These are platform-level calls, like ``Scheduler.create_company``: the host (its command line,
its admin screen) decides who may issue tokens.
"""

from __future__ import annotations

import functools
import hashlib
import hmac
import secrets
import threading
from collections.abc import Callable
from datetime import datetime, timedelta

import attrs

from slotwise.clock import Clock, IdGenerator
from slotwise.errors import InvalidReference, NotAuthenticated, NotFound, OutOfRange, StateError
from slotwise.model import ApiToken, Company, Location, Principal
from slotwise.operations._boundary import declared
from slotwise.storage.protocol import Store

__all__ = [
    "TOKEN_BYTES",
    "IssuedToken",
    "TokenOperations",
    "TokenSource",
    "hash_token",
    "random_token",
]

DEFAULT_TOKEN_CACHE = timedelta(seconds=5)
"""How long a process trusts a token record it read (a revocation elsewhere takes effect within it)."""
_TOKEN_CACHE_MOST = timedelta(hours=1)
_REMEMBERED_MOST = 10_000
"""Tokens remembered at most; the oldest is forgotten first."""

TOKEN_BYTES = 32
"""The random bytes of a token (decision 39: at least 32)."""

_TOKEN_MIN_LENGTH = 32

TokenSource = Callable[[], str]
"""Where new tokens come from: :func:`random_token` unless a test injects its own."""


def random_token() -> str:
    """Return a new token: ``sw_`` and 32 random bytes from :mod:`secrets`, URL-safe base64."""
    return "sw_" + secrets.token_urlsafe(TOKEN_BYTES)


def hash_token(token: str) -> str:
    """Return the lower-case hex SHA-256 of *token*, the only form a store keeps."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


@attrs.frozen(kw_only=True)
class IssuedToken:
    """
    A token just created: the secret (shown this once) and the record the store keeps.

    .. versionadded:: 0.1
    """

    token: str = attrs.field(repr=lambda _: "'<shown once>'")
    record: ApiToken


@attrs.frozen
class TokenOperations:
    """
    The API tokens of every company (``Scheduler.tokens``).

    .. versionadded:: 0.1
    """

    _store: Store
    _clock: Clock
    _ids: IdGenerator
    _source: TokenSource
    _remember_for: timedelta = attrs.field(default=DEFAULT_TOKEN_CACHE, kw_only=True)
    """How long :meth:`authenticate` trusts a token record it read (``timedelta(0)``: never)."""
    _remembered: dict[str, tuple[ApiToken, datetime]] = attrs.field(
        factory=dict, init=False, repr=False, eq=False
    )
    _lock: threading.Lock = attrs.field(factory=threading.Lock, init=False, repr=False, eq=False)

    def __attrs_post_init__(self) -> None:
        remember_for = self._remember_for
        if not isinstance(remember_for, timedelta) or not (
            timedelta(0) <= remember_for <= _TOKEN_CACHE_MOST
        ):
            raise OutOfRange(
                field="token_cache",
                allowed=f"a timedelta between 0 and {_TOKEN_CACHE_MOST}",
                requested=remember_for,
            )

    @functools.partial(declared, principal=False)
    def create(
        self, principal: Principal, /, *, label: str, expires_at: datetime | None = None
    ) -> IssuedToken:
        """
        Issue a token standing for *principal* until *expires_at* (or until revoked).

        Returns:
            The token (shown this once: the store keeps only its hash) and its record.

        Raises:
            NotFound: when the principal's company does not exist.
            InvalidReference: when one of its ``location_ids`` is not a location of the company.
            FieldRequired, FieldTooLong: when *label* is blank or over 255 characters.
            OutOfRange: when *expires_at* is not after now.
        """
        now = self._clock.now()
        if expires_at is not None and expires_at <= now:
            # ISO 8601 in the message: a repr (datetime.datetime(...)) reads as Python, not time.
            raise OutOfRange(
                field="expires_at",
                allowed=f"after now ({now.isoformat()})",
                requested=expires_at.isoformat(),
            )
        token = self._source()
        if not isinstance(token, str) or len(token) < _TOKEN_MIN_LENGTH:
            raise StateError("the token source made a token shorter than 32 characters")
        with self._store.transaction() as tx:
            if tx.get(Company, principal.company_id) is None:
                raise NotFound(kind="Company", record_id=principal.company_id)
            for location_id in sorted(principal.location_ids or ()):
                location = tx.get(Location, location_id)
                if location is None or location.company_id != principal.company_id:
                    raise InvalidReference(
                        f"location_ids: {location_id!r} is not a location of the company",
                        field="location_ids",
                    )
            record = ApiToken(
                id=self._ids.new_id(),
                company_id=principal.company_id,
                location_ids=principal.location_ids,
                label=label,
                token_hash=hash_token(token),
                created_at=now,
                expires_at=expires_at,
            )
            tx.insert(record)
        return IssuedToken(token=token, record=record)

    @functools.partial(declared, principal=False)
    def list(self, company_id: str, /) -> list[ApiToken]:
        """
        Return the company's tokens in creation order, revoked and expired ones included.

        Raises:
            NotFound: when the company does not exist (as :meth:`create` does): a mistyped id
                is refused, not answered with no tokens.
        """
        with self._store.read() as reader:
            if reader.get(Company, company_id) is None:
                raise NotFound(kind="Company", record_id=company_id)
            return reader.find(ApiToken, company_id=company_id)

    @functools.partial(declared, principal=False)
    def revoke(self, token_id: str, /) -> ApiToken:
        """
        Revoke a token for good; revoking a revoked token changes nothing.

        Raises:
            NotFound: when no token has *token_id*.
        """
        with self._store.transaction() as tx:
            record = tx.get(ApiToken, token_id)
            if record is None:
                raise NotFound(kind="ApiToken", record_id=token_id)
            if record.revoked_at is not None:
                return record
            revoked = attrs.evolve(record, revoked_at=self._clock.now())
            tx.update(revoked)
        with self._lock:  # this process stops trusting it at once; others within remember_for
            self._remembered.pop(revoked.token_hash, None)
        return revoked

    @functools.partial(declared, principal=False)
    def authenticate(self, token: str, /) -> Principal:
        """
        Return the principal *token* stands for.

        A token record read from the store is trusted for ``token_cache`` (5 seconds by
        default, a ``Scheduler`` setting): a revocation made in another process takes effect
        here within that time, one made through this scheduler at once; expiry is checked on
        every call. Unknown tokens are never remembered.

        Raises:
            NotAuthenticated: when the token is unknown, expired or revoked (one error for all,
                so a caller learns nothing about which).
        """
        digest = hash_token(token)
        now = self._clock.now()
        record = self._recall(digest, now)
        if record is None:
            with self._store.read() as reader:
                record = reader.token_by_hash(digest)
            if record is not None:
                self._remember(digest, record, now)
        # The lookup is by hash; comparing in constant time keeps it from being a timing oracle.
        if (
            record is None
            or not hmac.compare_digest(record.token_hash, digest)
            or not record.is_active(now)
        ):
            raise NotAuthenticated()
        return record.principal

    def _recall(self, digest: str, now: datetime) -> ApiToken | None:
        with self._lock:
            entry = self._remembered.get(digest)
            if entry is None:
                return None
            record, until = entry
            if now < until:
                return record
            del self._remembered[digest]
            return None

    def _remember(self, digest: str, record: ApiToken, now: datetime) -> None:
        if not self._remember_for:
            return
        with self._lock:
            if len(self._remembered) >= _REMEMBERED_MOST:
                del self._remembered[next(iter(self._remembered))]
            self._remembered[digest] = (record, now + self._remember_for)
