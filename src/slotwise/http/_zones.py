"""
The zone of each location, for giving located records' instants in local time (decision 43).
"""

from __future__ import annotations

from datetime import tzinfo

from slotwise._time import zone
from slotwise.model import Location
from slotwise.storage.protocol import Store

from ._wire import Zones

__all__ = ["location_zones"]


def location_zones(store: Store) -> Zones:
    """
    Return a lookup of location id -> zone over *store*, reading each location at most once.

    Made per request (or per webhook send), so a location whose zone changed is read afresh the
    next time; a location that no longer exists gives ``None`` (its records' instants stay UTC).
    """
    cache: dict[str, tzinfo | None] = {}

    def zone_of(location_id: str) -> tzinfo | None:
        if location_id not in cache:
            with store.read() as reader:
                location = reader.get(Location, location_id)
            cache[location_id] = None if location is None else zone(location.timezone)
        return cache[location_id]

    return zone_of
