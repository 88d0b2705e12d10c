"""
What a record's wire form reads from other records: its location's zone (decision 43) and the
names the spec shows beside ids (a service's ``serviceGroupName``, decision 45).
"""

from __future__ import annotations

from datetime import tzinfo

from slotwise._time import zone
from slotwise.model import Location, ServiceGroup
from slotwise.storage.protocol import Store

__all__ = ["StoreLookups"]


class StoreLookups:
    """
    :class:`~slotwise.http._wire.Lookups` over a store, reading each record at most once.

    Made per request (or per webhook send), so a location whose zone changed, or a renamed
    group, is read afresh the next time. A record that no longer exists gives ``None``: a
    location's records' instants then stay UTC, a group's name is null.
    """

    def __init__(self, store: Store) -> None:
        self._store = store
        self._zones: dict[str, tzinfo | None] = {}
        self._groups: dict[str, str | None] = {}

    def zone(self, location_id: str) -> tzinfo | None:
        """Return the zone of the location *location_id*."""
        if location_id not in self._zones:
            with self._store.read() as reader:
                location = reader.get(Location, location_id)
            self._zones[location_id] = None if location is None else zone(location.timezone)
        return self._zones[location_id]

    def service_group_name(self, group_id: str) -> str | None:
        """Return the name of the service group *group_id*."""
        if group_id not in self._groups:
            with self._store.read() as reader:
                group = reader.get(ServiceGroup, group_id)
            self._groups[group_id] = None if group is None else group.name
        return self._groups[group_id]
