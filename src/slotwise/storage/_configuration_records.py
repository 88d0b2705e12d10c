"""
One company's configuration records as read at one version (decision 49), and the record kinds
that make a company's configuration.
"""

from __future__ import annotations

import operator
from collections.abc import Iterable, Mapping
from datetime import date
from typing import Any, Final, TypeVar

import attrs

from slotwise.model import (
    Allocation,
    Block,
    Calendar,
    Company,
    FieldDefinition,
    Location,
    Resource,
    ResourceGroup,
    Service,
    ServiceGroup,
)
from slotwise.storage.protocol import Reader

__all__ = ["CONFIGURATION_KINDS", "Configuration"]

CONFIGURATION_KINDS: Final[frozenset[type[Any]]] = frozenset(
    {
        Company,
        Location,
        Calendar,
        FieldDefinition,
        Service,
        ServiceGroup,
        Resource,
        ResourceGroup,
        Block,
        Allocation,
    }
)
"""The record kinds whose writes bump their company's configuration version (decision 49)."""

_W = TypeVar("_W", Block, Allocation)
_rank: Final = operator.itemgetter(0)
"""The rank of a (rank, record) pair: the order the store read the records in (a C-level key)."""


@attrs.frozen(kw_only=True)
class Configuration:
    """
    One company's configuration records as read at one version.

    ``records`` holds each kind's records in creation order (as ``Reader.find`` returns them);
    the other fields index them.

    .. versionadded:: 0.1
    """

    company_id: str
    version: int
    records: Mapping[type[Any], tuple[Any, ...]]
    by_id: Mapping[tuple[type[Any], str], Any]
    windows: Mapping[tuple[type[Any], str], tuple[tuple[int, Any], ...]]
    """(kind, target id) -> the target's blocks or allocations with their creation rank."""
    derived: dict[object, Any] = attrs.field(factory=dict, eq=False, repr=False)
    """
    What readers work out from these records alone (the calculator's set-ups, keyed by company
    and version): a cache's configurations share one.
    """

    @classmethod
    def read(
        cls,
        reader: Reader,
        company_id: str,
        version: int,
        *,
        derived: dict[object, Any] | None = None,
    ) -> Configuration:
        """
        Read *company_id*'s configuration from *reader*, labelled *version* (read before);
        *derived* is where readers keep what they work out from it (a cache shares one among
        the configurations it holds, so one bound covers them all), else its own.
        """
        records: dict[type[Any], tuple[Any, ...]] = {}
        by_id: dict[tuple[type[Any], str], Any] = {}
        windows: dict[tuple[type[Any], str], list[tuple[int, Any]]] = {}
        for kind in sorted(CONFIGURATION_KINDS, key=lambda kind: kind.__name__):
            found = tuple(reader.find(kind, company_id=company_id))
            records[kind] = found
            for rank, record in enumerate(found):
                by_id[(kind, record.id)] = record
                if kind is Block or kind is Allocation:
                    windows.setdefault((kind, record.target_id), []).append((rank, record))
        return cls(
            company_id=company_id,
            version=version,
            records=records,
            by_id=by_id,
            windows={key: tuple(found) for key, found in windows.items()},
            derived={} if derived is None else derived,
        )

    def touching(
        self, kind: type[_W], target_ids: Iterable[str], first: date, last: date
    ) -> list[_W]:
        """The rule of ``Reader.blocks_touching``, answered from the records held."""
        found: list[tuple[int, _W]] = []
        for target_id in set(target_ids):
            for rank, record in self.windows.get((kind, target_id), ()):
                if record.start_date <= last and record.end_date >= first:
                    found.append((rank, record))
        if not found:
            return []  # the usual case for a booking: no list to sort or unpack
        found.sort(key=_rank)
        return [record for _, record in found]
