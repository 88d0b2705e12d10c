"""
What a record's wire form reads from other records: its location's zone (decision 43) and the
names the spec shows beside ids (a service's ``serviceGroupName``, decision 45).
"""

from __future__ import annotations

from datetime import tzinfo
from typing import Any

from slotwise._time import zone
from slotwise.model import Location, ServiceGroup
from slotwise.storage.configuration import Configuration, ConfigurationCache
from slotwise.storage.protocol import Store

__all__ = ["StoreLookups"]


class StoreLookups:
    """
    :class:`~slotwise.http._wire.Lookups` over a store, reading each record at most once.

    Made per request (or per webhook send), so a location whose zone changed, or a renamed
    group, is read afresh the next time. A record that no longer exists gives ``None``: a
    location's records' instants then stay UTC, a group's name is null.

    With the process's *configuration* cache and the request's *company_id*, locations and
    service groups come from the company's configuration (decision 49): one read of its version
    however many records an answer names, instead of one read per record. Checked once, at the
    first lookup of the request, so the answer uses the configuration current when it was
    written. A record the configuration does not hold (another company's) is read from the store.
    """

    def __init__(
        self,
        store: Store,
        configuration: ConfigurationCache | None = None,
        company_id: str | None = None,
    ) -> None:
        self._store = store
        self._cache = configuration if company_id is not None else None
        self._company_id = company_id
        self._held: Configuration | None = None
        self._zones: dict[str, tzinfo | None] = {}
        self._groups: dict[str, str | None] = {}

    def zone(self, location_id: str) -> tzinfo | None:
        """Return the zone of the location *location_id*."""
        if location_id not in self._zones:
            location = self._record(Location, location_id)
            self._zones[location_id] = None if location is None else zone(location.timezone)
        return self._zones[location_id]

    def service_group_name(self, group_id: str) -> str | None:
        """Return the name of the service group *group_id*."""
        if group_id not in self._groups:
            group = self._record(ServiceGroup, group_id)
            self._groups[group_id] = None if group is None else group.name
        return self._groups[group_id]

    def _record(self, kind: type[Any], record_id: str) -> Any:
        if self._held is not None:
            held = self._held.by_id.get((kind, record_id))
            if held is not None:
                return held
        with self._store.read() as reader:
            if self._held is None and self._cache is not None and self._company_id is not None:
                self._held = self._cache.configuration(reader, self._company_id)
                self._cache = None  # checked once a request (None: the store keeps no versions)
                if self._held is not None:
                    held = self._held.by_id.get((kind, record_id))
                    if held is not None:
                        return held
            return reader.get(kind, record_id)
