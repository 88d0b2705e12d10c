"""
Service operations: create, update, get, lists (setup and consumer) and the resources that take
a service; weekly availability, service blocks and allocations are mixed in from
:mod:`.service_hours`.

A service belongs to one location, or is company-scoped: created at the primary location and
usable at every location (spec: What the service does).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Required, TypedDict, Unpack

import attrs

from slotwise._time import utc_offset_minutes, zone
from slotwise.errors import FieldRequired, FieldTooLong, InvalidReference
from slotwise.model import (
    BookingWindow,
    Location,
    Resource,
    ResourceConsumerView,
    RoundRobin,
    Service,
    ServiceGroup,
    ServiceScope,
    ServiceType,
    WeeklyHours,
)
from slotwise.model.catalog import SERVICE_NAME_CREATE_MAX
from slotwise.operations._boundary import operations
from slotwise.operations._context import Context
from slotwise.paging import DEFAULT_LIMIT, AllPages, Page, paginate
from slotwise.storage.protocol import Reader

from ._deletion import delete_service
from ._partial import resolved
from .locations import services_at
from .service_hours import ServiceHoursOperations

__all__ = [
    "CONSUMER_MAX_LIMIT",
    "ServiceChanges",
    "ServiceFields",
    "ServiceOperations",
]

CONSUMER_MAX_LIMIT = 500
"""Largest page of GET /consumer/v1/services (decision 31; the spec names it an exception)."""


class _ServiceCommon(TypedDict, total=False):
    type: ServiceType | str
    scope: ServiceScope | str
    description: str | None
    image_url: str | None
    service_group_id: str | None
    show_online: bool
    default_service: bool
    duration_select: bool
    duration_min: int | None
    duration_max: int | None
    duration_interval: int | None
    padding: int
    consumer_padding: bool
    booking_interval: int | None
    fee_amount: float
    fee_taxable: bool
    cancellation_fee_amount: float
    cancellation_fee_taxable: bool
    non_refundable: bool
    booking_limit: int
    max_capacity: int
    max_group_size: int
    daily_booking_limit_count: int
    daily_booking_limit_minutes: int
    max_booking_limit: int
    max_resource_booking_limit: int
    round_robin: RoundRobin | str
    booking_window: BookingWindow | None
    options: Mapping[str, Any]


class ServiceFields(_ServiceCommon, total=False):
    """
    Fields of a new service: ``name``, ``duration`` and ``reason`` are required.

    ``location_id`` defaults to the primary location; ``availability`` ``None`` or omitted means
    the location's business hours (spec: Service weekly availability).
    """

    name: Required[str]
    duration: Required[int]
    reason: Required[str]
    location_id: str | None
    availability: WeeklyHours | None


class ServiceChanges(_ServiceCommon, total=False):
    """Fields a service update may change (spec: PUT /setup/v1/services/{id}); not its location."""

    name: str
    duration: int
    reason: str | None
    availability: WeeklyHours


@operations
@attrs.frozen
class ServiceOperations(ServiceHoursOperations, AllPages[Service]):
    """
    Services of the principal's company, with their availability, blocks and allocations.

    A principal limited to some locations may read company-scoped services at any location,
    but may change a service only when it may use the service's own location.

    .. versionadded:: 0.1
    """

    _ctx: Context

    def create(self, **fields: Unpack[ServiceFields]) -> Service:
        """
        Create a service (spec: POST /setup/v1/services).

        Raises:
            FieldRequired: when ``name`` or ``reason`` is missing or blank (spec: Errors 1).
            FieldTooLong: when ``name`` is over 50 characters (spec: Errors 1; updates allow 255).
            OutOfRange: when ``duration`` is not greater than 0.
            InconsistentFields: when ``max_capacity`` and ``max_group_size`` are not both 0 or
                both positive, or ``duration_max`` is not evenly divisible by ``duration_min``.
            InvalidReference: when a company-scoped service is created away from the primary
                location, or ``service_group_id`` names no group of the company or a group
                shown at another location.
            NotFound, Unauthorized: when ``location_id`` is unknown or not the principal's.
            Unauthorized: when a principal limited to some locations creates a company-scoped
                service (decision 37).
        """
        ctx = self._ctx
        name = fields.get("name")
        if isinstance(name, str) and len(name) > SERVICE_NAME_CREATE_MAX:
            raise FieldTooLong(field="name", limit=SERVICE_NAME_CREATE_MAX, requested=len(name))
        reason = fields.get("reason")
        # Spec: Errors, rule 1: "reason required" on POST /setup/v1/services.
        if reason is None or (isinstance(reason, str) and not reason.strip()):
            raise FieldRequired(field="reason")
        location_id = fields.get("location_id")
        values: dict[str, Any] = {k: v for k, v in fields.items() if k != "location_id"}
        with ctx.store.transaction() as tx:
            location = ctx.location(tx, location_id)
            if values.get("availability") is None:
                # Spec: "New services default to the location's business hours."
                values["availability"] = location.business_hours.as_weekly()
            service = Service(
                id=ctx.ids.new_id(), company_id=ctx.company_id, location_id=location.id, **values
            )
            self._check_scope(service, location)
            if service.scope is ServiceScope.COMPANY:
                ctx.require_company_wide(field="scope", value=service.scope.value)
            if service.service_group_id is not None:
                self._check_group(tx, service)
            tx.insert(service)
        return service

    def update(self, service_id: str, /, **changes: Unpack[ServiceChanges]) -> Service:
        """
        Change a service (spec: PUT /setup/v1/services/{id}); omitted fields keep their values.

        Names may be up to 255 characters here (spec: Errors 2).

        Raises:
            ValidationError: for an invalid field or combination; nothing is changed.
            InvalidReference: as in :meth:`create`, for a changed ``scope`` or group.
            Unauthorized: when the principal may not use the service's location, or is limited
                to some locations and the service is (or would become) company-scoped
                (decision 37).
        """
        ctx = self._ctx
        with ctx.store.transaction() as tx:
            service = self._writable(tx, service_id)
            updated = attrs.evolve(service, **resolved(service, changes))
            if updated.scope is not service.scope:
                location = ctx.owned(tx, Location, updated.location_id, field="location_id")
                self._check_scope(updated, location)
                if updated.scope is ServiceScope.COMPANY:
                    ctx.require_company_wide(field="scope", value=updated.scope.value)
            if (
                updated.service_group_id is not None
                and updated.service_group_id != service.service_group_id
            ):
                self._check_group(tx, updated)
            tx.update(updated)
        return updated

    def delete(self, service_id: str, /) -> Service:
        """
        Delete a service for good, with its blocks and allocations, and return it as it was.

        A slotwise extension (decision 46). A service that appointments name stays (they are the
        booking history), and so does one that resources link: a resource whose last link went
        would silently take every service.

        Raises:
            NotFound: when no service has *service_id*.
            Unauthorized: as :meth:`update`.
            RecordInUse: when appointments name the service or resources link it; nothing
                is changed.

        .. versionadded:: 0.1
        """
        with self._ctx.store.transaction() as tx:
            return delete_service(self._ctx, self._writable(tx, service_id), tx)

    def get(self, service_id: str, /) -> Service:
        """
        Return a service (spec: GET /setup/v1/services/{id}, GET /consumer/v1/services/{id}).

        Raises:
            NotFound: when no service has *service_id*.
            Unauthorized: when it is not the principal's.
        """
        return self._owned(service_id)

    def list(
        self,
        *,
        location_id: str | None = None,
        service_group_id: str | None = None,
        default_service: bool | None = None,
        offset: int = 0,
        limit: int = DEFAULT_LIMIT,
    ) -> Page[Service]:
        """
        List the services usable at a location, in creation order (spec: GET /setup/v1/services).

        The location's own services and the company-scoped ones are listed.

        Args:
            location_id: the location; ``None`` means the primary location (spec: Endpoints,
                "locationId filters default to the first business location").
            service_group_id: keeps the services of this group.
            default_service: keeps the services whose ``default_service`` equals it.
            limit: 1..100 (decision 31).
        """
        return self._list(
            location_id=location_id,
            service_group_id=service_group_id,
            default_service=default_service,
            online_only=False,
            url="/setup/v1/services",
            offset=offset,
            limit=limit,
            max_limit=100,
        )

    def list_consumer(
        self,
        *,
        location_id: str | None = None,
        service_group_id: str | None = None,
        default_service: bool | None = None,
        offset: int = 0,
        limit: int = DEFAULT_LIMIT,
    ) -> Page[Service]:
        """
        List the services customers may book at a location (spec: GET /consumer/v1/services).

        As :meth:`list`, keeping only services with ``show_online``; *limit* may be up to
        :data:`CONSUMER_MAX_LIMIT` (500, decision 31).
        """
        return self._list(
            location_id=location_id,
            service_group_id=service_group_id,
            default_service=default_service,
            online_only=True,
            url="/consumer/v1/services",
            offset=offset,
            limit=limit,
            max_limit=CONSUMER_MAX_LIMIT,
        )

    # -- resources ----------------------------------------------------------------------------

    def resources(
        self, service_id: str, /, *, offset: int = 0, limit: int = DEFAULT_LIMIT
    ) -> Page[ResourceConsumerView]:
        """
        List the resources that may be booked for a service, as consumer views.

        Spec: GET /consumer/v1/services/{id}/resources. Lists the resources that are not
        deleted, take the service (no linked services, or this one among them; decision 13) and
        work at the service's location, or, for a company-scoped service, at any location the
        principal may see. Order: ``sort_key``, then name ignoring case, then creation order
        (decision 31), as ``workspace.resources.list``.

        Raises:
            NotFound: when no service has *service_id*.
            Unauthorized: when it is not the principal's.
            OutOfRange: for an invalid ``offset`` or ``limit``.
        """
        ctx = self._ctx

        def read(reader: Reader) -> tuple[Service, list[Resource]]:
            service = ctx.owned(reader, Service, service_id, field="service_id")
            if service.scope is ServiceScope.COMPANY:
                location_ids = {location.id for location in ctx.visible_locations(reader)}
            else:
                location_ids = {service.location_id}
            return service, [
                resource
                for resource in reader.find(Resource, company_id=ctx.company_id)
                if resource.location_id in location_ids and resource.takes_service(service.id)
            ]

        service, resources = ctx.configured_read(read)
        resources.sort(key=lambda resource: (resource.options.sort_key, resource.name.casefold()))
        now = ctx.clock.now()
        views = [
            resource.consumer_view(timezone_offset=utc_offset_minutes(now, zone(resource.timezone)))
            for resource in resources
        ]
        return paginate(
            views, url=f"/consumer/v1/services/{service.id}/resources", offset=offset, limit=limit
        )

    # -- helpers ------------------------------------------------------------------------------

    def _list(
        self,
        *,
        location_id: str | None,
        service_group_id: str | None,
        default_service: bool | None,
        online_only: bool,
        url: str,
        offset: int,
        limit: int,
        max_limit: int,
    ) -> Page[Service]:
        ctx = self._ctx

        def read(reader: Reader) -> list[Service]:
            location = ctx.location(reader, location_id)
            if service_group_id is not None:
                ctx.owned(reader, ServiceGroup, service_group_id, field="service_group_id")
            return services_at(reader, location)

        # Locations, groups and services are configuration: one round trip on a warm cache.
        services = ctx.configured_read(read)
        services = [
            service
            for service in services
            if (service_group_id is None or service.service_group_id == service_group_id)
            and (default_service is None or service.default_service is default_service)
            and (service.show_online or not online_only)
        ]
        return paginate(services, url=url, offset=offset, limit=limit, max_limit=max_limit)

    def _check_scope(self, service: Service, location: Location) -> None:
        # Spec: What the service does, "company-scoped: created at the primary location".
        if service.scope is ServiceScope.COMPANY and not location.is_primary:
            raise InvalidReference(
                f"company-scoped services must belong to the primary location, not {location.id!r}",
                field="scope",
            )

    def _check_group(self, reader: Reader, service: Service) -> None:
        group_id = service.service_group_id
        assert group_id is not None
        group = reader.get(ServiceGroup, group_id)
        if group is None:
            raise InvalidReference(
                f"service_group_id {group_id!r} names no service group", field="service_group_id"
            )
        group = self._ctx.owned(reader, ServiceGroup, group_id, field="service_group_id")
        # A group shown at one location lists only services bookable there (slotwise rule).
        if (
            group.location_id is not None
            and group.location_id != service.location_id
            and service.scope is not ServiceScope.COMPANY
        ):
            raise InvalidReference(
                f"service group {group_id!r} is shown at another location than the service",
                field="service_group_id",
            )
