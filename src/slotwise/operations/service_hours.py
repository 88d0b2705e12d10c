"""
A service's time: its weekly hours (wall times in its location's zone), its blocks, and the
allocations of event-type services (a part of ``ServiceOperations``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Unpack

import attrs

from slotwise.errors import InvalidReference
from slotwise.model import (
    Allocation,
    AllocationTarget,
    Block,
    BlockTarget,
    DayWindow,
    Location,
    Service,
    ServiceScope,
    Weekday,
    WeeklyHours,
)
from slotwise.operations._boundary import operations
from slotwise.paging import DEFAULT_LIMIT, Page
from slotwise.storage.protocol import Reader

from ._service_access import ServiceAccess
from .windows import (
    AllocationChanges,
    AllocationFields,
    TargetWindows,
    WindowChanges,
    WindowFields,
)

__all__ = [
    "ServiceAllocationChanges",
    "ServiceAllocationFields",
    "ServiceBlockFields",
    "ServiceHoursOperations",
]


class ServiceBlockFields(WindowFields, total=False):
    """Fields of a new service block: a block's, plus ``location_id`` (see ``create_block``)."""

    location_id: str | None


class ServiceAllocationFields(AllocationFields, total=False):
    """
    Fields of a new service allocation: an allocation's, plus ``location_id`` and
    ``service_id`` (spec: Allocation input; when given, it must name the service allocated to).
    """

    location_id: str | None
    service_id: str


class ServiceAllocationChanges(AllocationChanges, total=False):
    """An allocation's changes, plus ``service_id``: the allocation's own service, unchanged."""

    service_id: str


@operations
class ServiceHoursOperations(ServiceAccess):
    """Weekly hours, blocks and allocations of the principal's services."""

    def _same_service(self, named: str | None, service_id: str) -> None:
        # Decision 45: the spec's request table lists serviceId; decision 35: the service an
        # allocation belongs to is placement and never changes, so only that service is
        # accepted. Another service is looked up first: one the principal may not use is
        # Unauthorized (decision 30), revealing nothing.
        if named is None or named == service_id:
            return
        self._owned(named)
        raise InvalidReference(
            f"service_id {named!r} is not the service of this allocation ({service_id!r}); "
            "an allocation stays with its service",
            field="service_id",
        )

    @property
    def _windows(self) -> TargetWindows:
        return TargetWindows(
            self._ctx,
            BlockTarget.SERVICE,
            "/setup/v1/services/{id}/block",
            allocation_target=AllocationTarget.SERVICE,
            allocation_url="/setup/v1/services/{id}/allocations",
        )

    # -- weekly availability ------------------------------------------------------------------

    def get_availability(self, service_id: str, /) -> WeeklyHours:
        """Return a service's weekly hours (wall times in its location's zone)."""
        return self._owned(service_id).availability

    def set_availability(
        self, service_id: str, /, days: Mapping[Weekday | str, DayWindow | Mapping[str, int]]
    ) -> WeeklyHours:
        """
        Replace the windows of the named days (spec: PUT /setup/v1/services/{id}/availability).

        Days not named keep their window; a window ``0, 0`` closes its day.

        Raises:
            InvalidFormat: when a key is not one of ``sun``..``sat``.
            InvalidTimeRange: when a window's start is not before its end; nothing is changed.
        """
        ctx = self._ctx
        with ctx.store.transaction() as tx:
            service = self._writable(tx, service_id)
            updated = attrs.evolve(service, availability=service.availability.with_days(days))
            tx.update(updated)
        return updated.availability

    # -- blocks -------------------------------------------------------------------------------

    def create_block(self, service_id: str, /, **fields: Unpack[ServiceBlockFields]) -> Block:
        """
        Block time of a service (spec: POST /setup/v1/services/{id}/block).

        ``location_id`` defaults as for allocations (see :meth:`create_allocation`); a
        location-scoped service may be blocked only at its own location.

        Raises:
            InvalidTimeRange: when ``start_time`` is not less than ``end_time`` (spec: Errors 6).
            InvalidDateRange: when ``start_date`` is after ``end_date``.
            InvalidReference: when ``location_id`` is a location the service is not offered at.
        """
        service, location_id = self._window_target(service_id, fields.get("location_id"))
        return self._windows.create(
            Block, target_id=service.id, location_id=location_id, fields=fields
        )

    def update_block(self, block_id: str, /, **changes: Unpack[WindowChanges]) -> Block:
        """
        Change a service block (spec: PUT /setup/v1/services/block/{id}).

        Omitted times and reason are preserved.
        """
        return self._windows.update(Block, block_id, changes)

    def get_block(self, block_id: str, /) -> Block:
        """
        Return one live service block.

        Raises:
            NotFound: when it is unknown, deleted or not a service block.
        """
        return self._windows.get(Block, block_id)

    def list_blocks(
        self, service_id: str, /, *, offset: int = 0, limit: int = DEFAULT_LIMIT
    ) -> Page[Block]:
        """Return the live blocks of a service (spec: GET /setup/v1/services/{id}/block)."""
        service = self._owned(service_id)
        return self._windows.list(Block, service.id, offset=offset, limit=limit)

    def delete_block(self, block_id: str, /) -> Block:
        """Delete a service block: it is kept with ``deleted`` true and no longer applied."""
        return self._windows.delete(Block, block_id)

    # -- allocations --------------------------------------------------------------------------

    def create_allocation(
        self, service_id: str, /, **fields: Unpack[ServiceAllocationFields]
    ) -> Allocation:
        """
        Give an event-type service time (spec: POST /setup/v1/services/{id}/allocations).

        Without ``location_id`` the primary location is assumed for a company-scoped service and
        the service's own location for a location-scoped one.

        Raises:
            InvalidReference: when the service is not an event-type service, or ``location_id``
                is a location the service is not offered at.
            InvalidTimeRange, InvalidDateRange: for invalid times or dates.
        """
        service, location_id = self._window_target(service_id, fields.get("location_id"))
        self._same_service(fields.get("service_id"), service.id)
        values = {key: value for key, value in fields.items() if key != "service_id"}
        if not service.is_event:
            # Spec: Allocation, "Allocations exist for event-type services and for resources".
            raise InvalidReference(
                f"service {service_id!r} is not an event-type service; only event-type services "
                "take allocations",
                field="service_id",
            )
        return self._windows.create(
            Allocation, target_id=service.id, location_id=location_id, fields=values
        )

    def update_allocation(
        self, allocation_id: str, /, **changes: Unpack[ServiceAllocationChanges]
    ) -> Allocation:
        """
        Change a service allocation (spec: PUT /setup/v1/services/allocations/{id}).

        ``booking_limit`` 0 is allowed and means "not set" (spec: Booking-limit related fields).
        ``service_id``, when given, must be the allocation's own service.

        Raises:
            InvalidReference: when ``service_id`` names another service; nothing changes.
        """
        values = {key: value for key, value in changes.items() if key != "service_id"}
        if "service_id" in changes:
            current = self._windows.get(Allocation, allocation_id)
            self._same_service(changes["service_id"], current.target_id)
        return self._windows.update(Allocation, allocation_id, values)  # type: ignore[arg-type]

    def get_allocation(self, allocation_id: str, /) -> Allocation:
        """
        Return one service allocation.

        Raises:
            NotFound: when it is unknown or not a service allocation.
        """
        return self._windows.get(Allocation, allocation_id)

    def list_allocations(
        self, service_id: str, /, *, offset: int = 0, limit: int = DEFAULT_LIMIT
    ) -> Page[Allocation]:
        """Return the allocations of a service, in creation order."""
        service = self._owned(service_id)
        return self._windows.list(Allocation, service.id, offset=offset, limit=limit)

    def delete_allocation(self, allocation_id: str, /) -> Allocation:
        """Delete a service allocation for good and return it as it was."""
        return self._windows.delete(Allocation, allocation_id)

    def _window_target(self, service_id: str, location_id: str | None) -> tuple[Service, str]:
        ctx = self._ctx

        def read(reader: Reader) -> tuple[Service, Location]:
            service = ctx.owned(reader, Service, service_id, field="service_id")
            # Spec: POST /setup/v1/services/{id}/allocations, "without locationId the primary
            # location is assumed for company-scoped services, the service's own location for
            # location-scoped ones"; blocks follow the same rule.
            named = location_id
            if named is None and service.scope is not ServiceScope.COMPANY:
                named = service.location_id
            return service, ctx.location(reader, named)

        service, location = ctx.configured_read(read)
        company_wide = service.scope is ServiceScope.COMPANY
        if not company_wide and location.id != service.location_id:
            raise InvalidReference(
                f"service {service_id!r} is offered only at its own location, not at "
                f"{location.id!r}",
                field="location_id",
            )
        return service, location.id
