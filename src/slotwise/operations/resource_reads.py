"""
Reading resources (a part of ``ResourceOperations``): the setup and consumer views of one, the
lists of a location, the zones a resource may use and the services linked to one.
"""

from __future__ import annotations

import builtins
from typing import Literal

from slotwise._time import available_zone_names, utc_offset_minutes, zone
from slotwise.errors import InvalidChoice
from slotwise.model import Resource, ResourceConsumerView, ResourceGroup, Service
from slotwise.operations._boundary import operations
from slotwise.paging import DEFAULT_LIMIT, Page, paginate
from slotwise.storage.protocol import Reader

from ._resource_access import ResourceAccess

__all__ = ["ResourceReadOperations", "ResourceSortOrder"]

ResourceSortOrder = Literal["sort_key", "name"]
"""Order of resource lists: ``sort_key`` (then name, decision 31) or ``name``."""

_SORT_ORDERS: tuple[str, ...] = ("sort_key", "name")


@operations
class ResourceReadOperations(ResourceAccess):
    """The reads of the principal's resources."""

    # -- reads ----------------------------------------------------------------------------------

    def get(self, resource_id: str, /) -> Resource:
        """
        Return the setup view of a resource, deleted or not.

        Raises:
            NotFound: when no resource has *resource_id*.
            Unauthorized: when it is another company's or at a location outside the principal's set.
        """
        return self._ctx.configured_read(
            lambda reader: self._ctx.owned(reader, Resource, resource_id, field="resource_id")
        )

    def get_consumer(self, resource_id: str, /) -> ResourceConsumerView:
        """
        Return the consumer view of a resource (spec: GET /consumer/v1/resources/{id}).

        ``timezone_offset`` is the resource zone's offset from UTC, in minutes, now.

        Raises:
            NotFound, Unauthorized: as :meth:`get`.
        """
        return self._consumer_view(self.get(resource_id))

    def list(
        self,
        *,
        location_id: str | None = None,
        resource_group_id: str | None = None,
        email: str | None = None,
        name: str | None = None,
        sort_order: ResourceSortOrder = "sort_key",
        include_deleted: bool = False,
        offset: int = 0,
        limit: int = DEFAULT_LIMIT,
    ) -> Page[ResourceConsumerView]:
        """
        List the resources of a location, as consumer views (spec: GET /consumer/v1/resources).

        Args:
            location_id: the location; ``None`` means the primary location (spec: Endpoints,
                "locationId filters default to the first business location").
            resource_group_id: keeps the members of this resource group.
            email: keeps resources with this e-mail address, ignoring case.
            name: keeps resources whose name contains it, ignoring case.
            sort_order: ``"sort_key"`` orders by ``options.sort_key`` then name (decision 31);
                ``"name"`` by name. Names compare ignoring case; ties keep creation order.
            include_deleted: also list soft-deleted resources.

        Raises:
            InvalidChoice: when ``sort_order`` is neither ``"sort_key"`` nor ``"name"``.
            NotFound, Unauthorized: when the location or group is unknown or not the principal's.
            OutOfRange: for an invalid ``offset`` or ``limit`` (decision 31).
        """
        resources = self._select(
            location_id, resource_group_id, email, name, sort_order, include_deleted
        )
        views = [self._consumer_view(resource) for resource in resources]
        return paginate(views, url="/consumer/v1/resources", offset=offset, limit=limit)

    def list_setup(
        self,
        *,
        location_id: str | None = None,
        resource_group_id: str | None = None,
        email: str | None = None,
        name: str | None = None,
        sort_order: ResourceSortOrder = "sort_key",
        include_deleted: bool = False,
        offset: int = 0,
        limit: int = DEFAULT_LIMIT,
    ) -> Page[Resource]:
        """List resources as setup views; filters and order as :meth:`list`."""
        resources = self._select(
            location_id, resource_group_id, email, name, sort_order, include_deleted
        )
        return paginate(resources, url="/setup/v1/resources", offset=offset, limit=limit)

    def _select(
        self,
        location_id: str | None,
        resource_group_id: str | None,
        email: str | None,
        name: str | None,
        sort_order: str,
        include_deleted: bool,
    ) -> builtins.list[Resource]:
        if sort_order not in _SORT_ORDERS:
            raise InvalidChoice(field="sort_order", allowed=_SORT_ORDERS, requested=sort_order)
        ctx = self._ctx

        def read(reader: Reader) -> builtins.list[Resource]:
            location = ctx.location(reader, location_id)
            if resource_group_id is not None:
                ctx.owned(reader, ResourceGroup, resource_group_id, field="resource_group_id")
            return reader.find(Resource, company_id=ctx.company_id, location_id=location.id)

        resources = ctx.configured_read(read)
        if not include_deleted:
            resources = [r for r in resources if not r.deleted]
        if resource_group_id is not None:
            resources = [r for r in resources if r.group_id == resource_group_id]
        if email is not None:
            wanted = email.casefold()
            resources = [r for r in resources if (r.email or "").casefold() == wanted]
        if name is not None:
            needle = name.casefold()
            resources = [r for r in resources if needle in r.name.casefold()]
        if sort_order == "name":
            resources.sort(key=lambda r: r.name.casefold())
        else:
            resources.sort(key=lambda r: (r.options.sort_key, r.name.casefold()))
        return resources

    def _consumer_view(self, resource: Resource) -> ResourceConsumerView:
        offset = utc_offset_minutes(self._ctx.clock.now(), zone(resource.timezone))
        return resource.consumer_view(timezone_offset=offset)

    def timezones(self) -> builtins.list[str]:
        """Return every IANA zone name a resource may use, sorted (spec: GET /setup/v1/resources/timezones)."""
        return available_zone_names()

    def services(
        self, resource_id: str, /, *, offset: int = 0, limit: int = DEFAULT_LIMIT
    ) -> Page[Service]:
        """
        List the services explicitly linked to a resource, in link order.

        Spec: GET /consumer/v1/resources/{id}/services. A resource with no links takes every
        service but lists none here. Links to services that no longer exist are skipped.
        """
        ctx = self._ctx

        def read(reader: Reader) -> tuple[Resource, builtins.list[Service]]:
            resource = ctx.owned(reader, Resource, resource_id, field="resource_id")
            linked = (reader.get(Service, sid) for sid in resource.linked_service_ids)
            return resource, [service for service in linked if service is not None]

        resource, services = ctx.configured_read(read)
        return paginate(
            services,
            url=f"/consumer/v1/resources/{resource.id}/services",
            offset=offset,
            limit=limit,
        )
