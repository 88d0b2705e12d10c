"""
A busy-time provider for tests: fixed busy intervals per resource, and a record of the calls.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime

from slotwise._time import to_utc
from slotwise.model import Resource

__all__ = ["StaticBusyTime"]


class StaticBusyTime:
    """
    A :class:`~slotwise.availability.busy.BusyTimeProvider` that returns fixed intervals.

    Each resource id maps to ``(start, end)`` pairs of aware datetimes. ``calls`` records every
    ``(resource_id, start, end)`` the calculator asked about, so a test can check that only
    resources with an external calendar were asked.

    Example::

        busy = StaticBusyTime({"r1": [(datetime(2026, 3, 2, 15, tzinfo=UTC),
                                        datetime(2026, 3, 2, 16, tzinfo=UTC))]})
        scheduler = Scheduler(busy_provider=busy)

    .. versionadded:: 0.1
    """

    def __init__(
        self, intervals: Mapping[str, Iterable[tuple[datetime, datetime]]] | None = None
    ) -> None:
        self._intervals = {
            resource_id: tuple(
                (to_utc(start, field="start"), to_utc(end, field="end")) for start, end in pairs
            )
            for resource_id, pairs in (intervals or {}).items()
        }
        self.calls: list[tuple[str, datetime, datetime]] = []

    def __repr__(self) -> str:
        return f"StaticBusyTime({self._intervals!r})"

    def busy(
        self, resource: Resource, start: datetime, end: datetime
    ) -> Sequence[tuple[datetime, datetime]]:
        """Return the resource's intervals that overlap ``[start, end)``."""
        self.calls.append((resource.id, start, end))
        return [
            (low, high)
            for low, high in self._intervals.get(resource.id, ())
            if low < end and high > start
        ]
