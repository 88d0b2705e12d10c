"""
A resource's time: its weekly hours (wall times in its own zone, decision 1), and its blocks and
allocations (a part of ``ResourceOperations``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Unpack

import attrs

from slotwise._time import clock_text, utc_offset_minutes, zone
from slotwise.errors import InvalidFormat
from slotwise.model import (
    Allocation,
    AllocationTarget,
    Block,
    BlockTarget,
    DayWindow,
    Resource,
    Trigger,
    Weekday,
    WeeklyHours,
)
from slotwise.operations._boundary import operations
from slotwise.paging import DEFAULT_LIMIT, Page

from ._resource_access import ResourceAccess, resource_event
from .windows import AllocationChanges, AllocationFields, TargetWindows, WindowChanges, WindowFields

__all__ = ["ResourceHoursOperations", "ResourceWeeklyAvailability"]


@attrs.frozen(kw_only=True)
class ResourceWeeklyAvailability:
    """
    A resource's weekly hours as the setup availability endpoints show them.

    ``business_id`` is the resource's location id (the spec's name); ``resource_tzo`` is the
    resource zone's offset from UTC in minutes at the moment of the read; ``weekdays`` are wall
    times in the resource's own zone.

    .. versionadded:: 0.1
    """

    business_id: str
    resource_id: str
    resource_name: str
    resource_tzo: int
    ignore_business_hours: bool
    weekdays: WeeklyHours

    def display_times(self, day: Weekday | str, /) -> tuple[str, str]:
        """
        Return the day's start and end as 12-hour clock text, such as ``("9:00 AM", "5:00 PM")``.

        ``0`` and ``2400`` both read ``"12:00 AM"`` (midnight); a closed day reads
        ``("12:00 AM", "12:00 AM")``.
        """
        name = day.value if isinstance(day, Weekday) else day
        if name not in Weekday._value2member_map_:
            raise InvalidFormat(field="day", expected="one of sun..sat", value=day)
        window = self.weekdays.on(Weekday(name))
        return clock_text(*divmod(window.start_time, 100)), clock_text(
            *divmod(window.end_time, 100)
        )


@operations
class ResourceHoursOperations(ResourceAccess):
    """Weekly hours, blocks and allocations of the principal's resources."""

    @property
    def _windows(self) -> TargetWindows:
        return TargetWindows(
            self._ctx,
            BlockTarget.RESOURCE,
            "/setup/v1/resources/{id}/blocks",
            allocation_target=AllocationTarget.RESOURCE,
            allocation_url="/setup/v1/resources/{id}/allocations",
        )

    # -- weekly availability --------------------------------------------------------------------

    def get_availability(self, resource_id: str, /) -> ResourceWeeklyAvailability:
        """
        Return a resource's weekly hours (spec: GET /setup/v1/resources/{id}/availability).

        Raises:
            NotFound, Unauthorized: as :meth:`get`.
        """
        return self._availability(self._owned(resource_id))

    def set_availability(
        self,
        resource_id: str,
        /,
        days: Mapping[Weekday | str, DayWindow | Mapping[str, int]],
    ) -> ResourceWeeklyAvailability:
        """
        Replace the windows of the named days (spec: PUT /setup/v1/resources/{id}/availability).

        Days left out of *days* keep their window. A day with start 0 and end 0 is closed;
        2400 is the end of the day (decision 4). Times are wall times in the resource's zone.

        Raises:
            ResourceDeleted: when the resource is soft-deleted.
            InvalidTimeOfDay, InvalidTimeRange, InvalidFormat: for an invalid day or window;
                nothing is changed.
        """
        with self._ctx.store.transaction() as tx:
            resource = self._live(tx, resource_id)
            updated = attrs.evolve(resource, weekly_hours=resource.weekly_hours.with_days(days))
            tx.update(updated)
            resource_event(self._ctx, tx, updated, Trigger.RESOURCE_UPDATED)
        return self._availability(updated)

    def _availability(self, resource: Resource) -> ResourceWeeklyAvailability:
        return ResourceWeeklyAvailability(
            business_id=resource.location_id,
            resource_id=resource.id,
            resource_name=resource.name,
            resource_tzo=utc_offset_minutes(self._ctx.clock.now(), zone(resource.timezone)),
            ignore_business_hours=resource.options.ignore_business_hours,
            weekdays=resource.weekly_hours,
        )

    # -- blocks -----------------------------------------------------------------------------------

    def create_block(self, resource_id: str, /, **fields: Unpack[WindowFields]) -> Block:
        """
        Block time of a resource (spec: POST /setup/v1/resources/{id}/block).

        Raises:
            ResourceDeleted: when the resource is soft-deleted.
            InvalidTimeRange: when ``start_time`` is not less than ``end_time`` (spec: Errors 6).
            InvalidDateRange: when ``start_date`` is after ``end_date``.
            NotFound, Unauthorized: as :meth:`get`.
        """
        resource = self._live_resource(resource_id)
        return self._windows.create(
            Block, target_id=resource.id, location_id=resource.location_id, fields=fields
        )

    def update_block(self, block_id: str, /, **changes: Unpack[WindowChanges]) -> Block:
        """
        Change a resource block (spec: PUT /setup/v1/resources/block/{id}).

        Omitted ``start_time``, ``end_time`` and ``reason`` are preserved.

        Raises:
            NotFound: when the block is unknown, deleted or not a resource block.
            ValidationError: for invalid dates or times; nothing is changed.
        """
        return self._windows.update(Block, block_id, changes)

    def get_block(self, block_id: str, /) -> Block:
        """
        Return one live resource block (spec: GET /setup/v1/resources/blocks/{id}).

        Raises:
            NotFound: when it is unknown, deleted or not a resource block.
        """
        return self._windows.get(Block, block_id)

    def list_blocks(
        self, resource_id: str, /, *, offset: int = 0, limit: int = DEFAULT_LIMIT
    ) -> Page[Block]:
        """Return the live blocks of a resource, in creation order (spec: GET /setup/v1/resources/{id}/blocks)."""
        resource = self._owned(resource_id)
        return self._windows.list(Block, resource.id, offset=offset, limit=limit)

    def delete_block(self, block_id: str, /) -> Block:
        """
        Delete a resource block: kept with ``deleted`` true, no longer applied.

        Spec: DELETE /setup/v1/resources/block/{id}.

        Raises:
            NotFound: when it is unknown, already deleted or not a resource block.
        """
        return self._windows.delete(Block, block_id)

    # -- allocations ------------------------------------------------------------------------------

    def create_allocation(
        self, resource_id: str, /, **fields: Unpack[AllocationFields]
    ) -> Allocation:
        """
        Give a resource time (spec: POST /setup/v1/resources/{id}/allocations).

        Allocations are the resource's open time when ``recurring_availability`` is false
        (decision 5); a resource with recurring availability may keep them for later.

        Raises:
            ResourceDeleted: when the resource is soft-deleted.
            InvalidTimeRange, InvalidDateRange: as :meth:`create_block`.
            OutOfRange: when ``booking_limit`` is outside 0..1000.
        """
        resource = self._live_resource(resource_id)
        return self._windows.create(
            Allocation, target_id=resource.id, location_id=resource.location_id, fields=fields
        )

    def list_allocations(
        self, resource_id: str, /, *, offset: int = 0, limit: int = DEFAULT_LIMIT
    ) -> Page[Allocation]:
        """Return a resource's allocations, in creation order (spec: GET /setup/v1/resources/{id}/allocations)."""
        resource = self._owned(resource_id)
        return self._windows.list(Allocation, resource.id, offset=offset, limit=limit)

    def get_allocation(self, allocation_id: str, /) -> Allocation:
        """
        Return one resource allocation (spec: GET /setup/v1/resources/allocations/{id}).

        Raises:
            NotFound: when it is unknown or not a resource allocation.
        """
        return self._windows.get(Allocation, allocation_id)

    def update_allocation(
        self, allocation_id: str, /, **changes: Unpack[AllocationChanges]
    ) -> Allocation:
        """
        Change a resource allocation; omitted fields keep their values.

        Spec: PUT /setup/v1/resources/allocations/{id}.
        """
        return self._windows.update(Allocation, allocation_id, changes)

    def delete_allocation(self, allocation_id: str, /) -> Allocation:
        """
        Delete a resource allocation for good and return it as it was.

        Spec: DELETE /setup/v1/resources/allocations/{id}.
        """
        return self._windows.delete(Allocation, allocation_id)
