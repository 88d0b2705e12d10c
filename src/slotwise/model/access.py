"""
Who an operation runs for: a company, optionally limited to some of its locations.
"""

from __future__ import annotations

from collections.abc import Iterable

import attrs

from slotwise.errors import FieldRequired, InvalidFormat

__all__ = ["Principal"]


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
