"""
External busy time: the seam where a host application plugs in its calendar provider.

Resources whose ``options.calendar_availability`` is 1 (provider A) or 2 (provider B) take busy
intervals from a :class:`BusyTimeProvider`. slotwise ships no provider client: the host implements
the protocol with its Google / Outlook free-busy call and passes it to ``Scheduler(busy_provider=...)``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from typing import Protocol

from slotwise._time import to_utc
from slotwise.errors import InvalidTimeRange
from slotwise.model import Resource

__all__ = ["BusyTimeProvider", "NoBusyTime", "fetch_busy_time", "uses_external_calendar"]

BusyIntervals = tuple[tuple[datetime, datetime], ...]


class BusyTimeProvider(Protocol):
    """
    A source of busy intervals from a resource's external calendar.

    Implementations are called once per resource and query, outside any store read, and only for
    resources whose ``options.calendar_availability`` is 1 or 2 (the provider is told which
    through ``resource.options.calendar_availability`` and the resource's ``provider_a`` /
    ``provider_b`` settings).

    .. versionadded:: 0.1
    """

    def busy(
        self, resource: Resource, start: datetime, end: datetime
    ) -> Sequence[tuple[datetime, datetime]]:
        """
        Return the resource's busy intervals that overlap ``[start, end)``.

        Args:
            resource: the resource whose external calendar is asked.
            start: the first instant asked about (aware, UTC).
            end: the first instant after the range (aware, UTC).

        Returns:
            ``(start, end)`` pairs of aware datetimes, half-open, in any order; they may overlap
            and may reach outside the range. Naive datetimes are refused with ``NaiveDatetime``.
        """
        ...


class NoBusyTime:
    """
    The default provider: no resource is ever busy outside slotwise.

    .. versionadded:: 0.1
    """

    def __repr__(self) -> str:
        return "NoBusyTime()"

    def busy(
        self, resource: Resource, start: datetime, end: datetime
    ) -> Sequence[tuple[datetime, datetime]]:
        """Return no busy time."""
        return ()


def uses_external_calendar(resource: Resource) -> bool:
    """Tell whether availability consults *resource*'s external calendar (provider 1 or 2)."""
    return resource.options.calendar_availability in (1, 2)


def fetch_busy_time(
    provider: BusyTimeProvider, resources: Iterable[Resource], start: datetime, end: datetime
) -> Mapping[str, BusyIntervals]:
    """
    Ask *provider* for the busy time of each resource that uses an external calendar.

    Args:
        provider: the host's provider.
        resources: the candidate resources; those with ``calendar_availability`` 0 are skipped.
        start: the first instant asked about.
        end: the first instant after the range.

    Returns:
        Busy intervals by resource id, as aware UTC pairs sorted by start.

    Raises:
        NaiveDatetime: when the provider returns a naive datetime.
        InvalidTimeRange: when it returns an interval whose end is before its start.
    """
    found: dict[str, BusyIntervals] = {}
    for resource in resources:
        if not uses_external_calendar(resource):
            continue
        pairs = []
        for low, high in provider.busy(resource, start, end):
            low_utc, high_utc = to_utc(low, field="busy.start"), to_utc(high, field="busy.end")
            if high_utc < low_utc:
                raise InvalidTimeRange(field="busy", start=low, end=high, names=("start", "end"))
            pairs.append((low_utc, high_utc))
        found[resource.id] = tuple(sorted(pairs))
    return found
