"""
Who an operation runs for: a company, optionally limited to some of its locations; and the API
tokens that stand for such a principal over HTTP (decision 39).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from datetime import datetime
from typing import Any

import attrs

from slotwise.errors import FieldRequired, InvalidFormat

from ._checks import as_utc, check_aware, check_text

__all__ = ["ApiToken", "Principal"]

_SHA256_HEX = re.compile(r"[0-9a-f]{64}")


def _location_ids(value: Iterable[str] | None) -> frozenset[str] | None:
    # A lone string would otherwise become a set of its characters.
    if isinstance(value, str):
        raise InvalidFormat(field="location_ids", expected="a set of location ids", value=value)
    return None if value is None else frozenset(value)


@attrs.frozen(kw_only=True)
class Principal:
    """
    The caller of an operation (decision 30).

    ``location_ids`` ``None`` means every location of the company; a set limits the caller to
    those locations (records of other locations raise ``Unauthorized``).

    .. versionadded:: 0.1
    """

    company_id: str
    location_ids: frozenset[str] | None = attrs.field(default=None, converter=_location_ids)
    user: str | None = None
    """Who acts, recorded as ``last_modified_by`` on appointment changes."""

    def __attrs_post_init__(self) -> None:
        if not self.company_id:
            raise FieldRequired(field="company_id")

    def may_use_location(self, location_id: str) -> bool:
        """Tell whether this principal may touch records of *location_id*."""
        return self.location_ids is None or location_id in self.location_ids


def _check_hash(_instance: object, _attribute: attrs.Attribute[Any], value: Any) -> None:
    if not isinstance(value, str) or not _SHA256_HEX.fullmatch(value):
        raise InvalidFormat(
            field="token_hash", expected="a SHA-256 digest in lower-case hex", value=value
        )


@attrs.frozen(kw_only=True)
class ApiToken:
    """
    A bearer token of the HTTP service, as the store keeps it (decision 39).

    The token itself is shown once, when it is created; the store keeps only ``token_hash``, the
    lower-case hex SHA-256 of it, so a copy of the store holds no usable token. The token stands
    for a principal of ``company_id`` (limited to ``location_ids`` when set) until
    ``expires_at`` or until it is revoked (``revoked_at``).

    .. versionadded:: 0.1
    """

    id: str
    company_id: str
    location_ids: frozenset[str] | None = attrs.field(default=None, converter=_location_ids)
    label: str = attrs.field(validator=check_text(max_len=255, required=True))
    token_hash: str = attrs.field(validator=_check_hash)
    created_at: datetime = attrs.field(converter=as_utc, validator=check_aware)
    expires_at: datetime | None = attrs.field(default=None, converter=as_utc, validator=check_aware)
    revoked_at: datetime | None = attrs.field(default=None, converter=as_utc, validator=check_aware)

    @property
    def principal(self) -> Principal:
        """Return the principal the token stands for (its label names the acting user)."""
        return Principal(
            company_id=self.company_id, location_ids=self.location_ids, user=self.label
        )

    def is_active(self, now: datetime) -> bool:
        """Tell whether the token authenticates at *now*: not revoked, not expired."""
        return self.revoked_at is None and (self.expires_at is None or now < self.expires_at)
