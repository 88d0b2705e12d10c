"""
Resource operations: create, update (one or in bulk), soft delete and recover, the setup and
consumer reads, weekly availability, linked services, and resource blocks and allocations.

A resource belongs to one location for life; its ``weekly_hours`` are wall times in its own zone
(decision 1), which may differ from the location's.
"""

from __future__ import annotations

import builtins
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Literal, Required, TypedDict, Unpack

import attrs

from slotwise._time import available_zone_names, clock_text, utc_offset_minutes, zone
from slotwise.availability.authorization import CalendarProviderName
from slotwise.errors import (
    FieldRequired,
    InvalidChoice,
    InvalidFormat,
    InvalidReference,
    ResourceDeleted,
    StateError,
)
from slotwise.model import (
    Address,
    Allocation,
    AllocationTarget,
    Block,
    BlockTarget,
    CalendarProvider,
    DayWindow,
    PhoneNumbers,
    Resource,
    ResourceConsumerView,
    ResourceGroup,
    ResourceOptions,
    Service,
    ServiceScope,
    Trigger,
    Weekday,
    WeeklyHours,
)
from slotwise.operations._boundary import operations
from slotwise.operations._context import Context
from slotwise.paging import DEFAULT_LIMIT, Page, paginate
from slotwise.storage.outbox import append_event, resource_data
from slotwise.storage.protocol import Reader, Transaction

from .windows import (
    AllocationChanges,
    AllocationFields,
    TargetWindows,
    WindowChanges,
    WindowFields,
)

__all__ = [
    "ResourceChanges",
    "ResourceFields",
    "ResourceOperations",
    "ResourceSortOrder",
    "ResourceWeeklyAvailability",
]

ResourceSortOrder = Literal["sort_key", "name"]
"""Order of resource lists: ``sort_key`` (then name, decision 31) or ``name``."""

_SORT_ORDERS: tuple[str, ...] = ("sort_key", "name")


class _ResourceCommon(TypedDict, total=False):
    timezone: str
    email: str | None
    group_id: str | None
    description: str | None
    image_url: str | None
    skype_name: str | None
    phone: PhoneNumbers
    address: Address
    options: ResourceOptions
    provider_a: CalendarProvider
    provider_b: CalendarProvider
    recurring_availability: bool
    weekly_hours: WeeklyHours
    linked_service_ids: Sequence[str]


class ResourceFields(_ResourceCommon, total=False):
    """
    Fields of a new resource: ``name`` and ``reason`` are required (spec: Errors 1 and 2).

    ``location_id`` defaults to the primary location, ``timezone`` to the location's zone and
    ``weekly_hours`` to the location's business hours.
    """

    name: Required[str]
    reason: Required[str]
    location_id: str | None


class ResourceChanges(_ResourceCommon, total=False):
    """Fields a resource update may change; the location stays fixed."""

    name: str
    reason: str | None


_CREATE_KEYS = ResourceFields.__required_keys__ | ResourceFields.__optional_keys__
_CHANGE_KEYS = ResourceChanges.__required_keys__ | ResourceChanges.__optional_keys__


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
@attrs.frozen
class ResourceOperations:
    """
    Resources of the principal's locations.

    .. versionadded:: 0.1
    """

    _ctx: Context

    @property
    def _windows(self) -> TargetWindows:
        return TargetWindows(
            self._ctx,
            BlockTarget.RESOURCE,
            "/setup/v1/resources/{id}/blocks",
            allocation_target=AllocationTarget.RESOURCE,
            allocation_url="/setup/v1/resources/{id}/allocations",
        )

    # -- create, update, delete, recover ------------------------------------------------------

    def create(self, **fields: Unpack[ResourceFields]) -> Resource:
        """
        Create a resource (spec: POST /setup/v1/resources).

        Defaults: ``location_id`` the primary location; ``timezone`` the location's zone
        (decision 1); ``weekly_hours`` the location's business hours, with the same HHMM values
        read as wall times in the resource's own zone (so a New York resource at a London
        location defaults to 09:00-17:00 New York time); ``recurring_availability`` true.
        ``reason`` is stored on the resource.

        Raises:
            FieldRequired: when ``name`` or ``reason`` is missing or blank.
            FieldTooLong: when ``name`` is over 255 characters.
            InvalidTimeZone: when ``timezone`` is not an IANA zone name.
            InvalidReference: when ``group_id`` names no resource group or one of another
                location, or a linked service does not exist or is not usable at the location.
            NotFound: when ``location_id`` names no location (or the company has none).
            Unauthorized: when the location, group or a linked service is not the principal's.
        """
        _check_keys(fields, _CREATE_KEYS, "create")
        reason = fields.get("reason")
        if reason is None or not reason.strip():
            # Spec: Errors, rule 1: reason is required for POST /setup/v1/resources too.
            raise FieldRequired(field="reason")
        ctx = self._ctx
        values: dict[str, Any] = {k: v for k, v in fields.items() if k != "location_id"}
        with ctx.store.transaction() as tx:
            location = ctx.location(tx, fields.get("location_id"))
            values.setdefault("timezone", location.timezone)
            values.setdefault("weekly_hours", location.business_hours.as_weekly())
            for provider in ("provider_a", "provider_b"):
                if provider in values:
                    values[provider] = _from_caller(values[provider], CalendarProvider())
            if "linked_service_ids" in values:
                values["linked_service_ids"] = _linkable_services(
                    ctx, tx, values["linked_service_ids"], location.id
                )
            _check_group(ctx, tx, values.get("group_id"), location.id)
            resource = Resource(
                id=ctx.ids.new_id(), company_id=ctx.company_id, location_id=location.id, **values
            )
            tx.insert(resource)
            _resource_event(ctx, tx, resource, Trigger.RESOURCE_CREATED)
        return resource

    def update(self, resource_id: str, /, **changes: Unpack[ResourceChanges]) -> Resource:
        """
        Change fields of a resource; omitted fields keep their values.

        Spec: PUT /setup/v1/resources/{id}. Only the changed ``group_id`` and
        ``linked_service_ids`` are checked again, so a later change elsewhere cannot make an
        unrelated update fail. ``auth_url`` and ``authorized`` of a calendar provider are kept
        from the stored record (only the authorization flow sets them); a new ``calendar_id``
        clears them.

        Raises:
            ResourceDeleted: when the resource is soft-deleted; recover it first.
            InvalidReference, Unauthorized: as :meth:`create`, for ``group_id`` and
                ``linked_service_ids``.
            ValidationError: for an invalid field; nothing is changed.
        """
        with self._ctx.store.transaction() as tx:
            return self._update(tx, resource_id, changes)

    def update_many(
        self, updates: Iterable[tuple[str, ResourceChanges]], /
    ) -> builtins.list[Resource]:
        """
        Change several resources in one atomic step (spec: PUT /setup/v1/resources/bulk).

        Either every update applies or, when one fails, none does. Updates apply in order, so a
        resource named twice ends with both sets of changes.

        Raises:
            the errors of :meth:`update`, for the first update that fails.
        """
        with self._ctx.store.transaction() as tx:
            return [self._update(tx, resource_id, changes) for resource_id, changes in updates]

    def _update(self, tx: Transaction, resource_id: str, changes: ResourceChanges) -> Resource:
        _check_keys(changes, _CHANGE_KEYS, "update")
        ctx = self._ctx
        resource = self._live(tx, resource_id)
        values: dict[str, Any] = dict(changes)
        for provider in ("provider_a", "provider_b"):
            if provider in values:
                values[provider] = _from_caller(values[provider], getattr(resource, provider))
        if "linked_service_ids" in values:
            values["linked_service_ids"] = _linkable_services(
                ctx, tx, values["linked_service_ids"], resource.location_id
            )
        if "group_id" in values:
            _check_group(ctx, tx, values["group_id"], resource.location_id)
        updated = attrs.evolve(resource, **values)
        tx.update(updated)
        _resource_event(ctx, tx, updated, Trigger.RESOURCE_UPDATED)
        return updated

    def delete(self, resource_id: str, /) -> Resource:
        """
        Soft-delete a resource (spec: DELETE /setup/v1/resources/{id}).

        The record is kept with ``deleted`` true and ``deleted_time`` now; it takes no services
        and is left out of lists until recovered. Deleting a deleted resource changes nothing
        and returns it (the first ``deleted_time`` is kept), as HTTP DELETE is idempotent.

        Returns:
            The resource as stored after the call.
        """
        ctx = self._ctx
        with ctx.store.transaction() as tx:
            resource = ctx.owned(tx, Resource, resource_id, field="resource_id")
            if resource.deleted:
                return resource
            deleted = attrs.evolve(resource, deleted=True, deleted_time=ctx.clock.now())
            tx.update(deleted)
            _resource_event(ctx, tx, deleted, Trigger.RESOURCE_UPDATED)
        return deleted

    def recover(self, resource_id: str, /) -> Resource:
        """
        Bring back a soft-deleted resource (spec: PUT /setup/v1/resources/{id}/recover).

        Clears ``deleted`` and ``deleted_time``. Recovering an active resource changes nothing
        and returns it (HTTP PUT is idempotent).
        """
        ctx = self._ctx
        with ctx.store.transaction() as tx:
            resource = ctx.owned(tx, Resource, resource_id, field="resource_id")
            if not resource.deleted:
                return resource
            recovered = attrs.evolve(resource, deleted=False, deleted_time=None)
            tx.update(recovered)
            _resource_event(ctx, tx, recovered, Trigger.RESOURCE_UPDATED)
        return recovered

    # -- reads ----------------------------------------------------------------------------------

    def get(self, resource_id: str, /) -> Resource:
        """
        Return the setup view of a resource, deleted or not.

        Raises:
            NotFound: when no resource has *resource_id*.
            Unauthorized: when it is another company's or at a location outside the principal's set.
        """
        with self._ctx.store.read() as reader:
            return self._ctx.owned(reader, Resource, resource_id, field="resource_id")

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
        with ctx.store.read() as reader:
            location = ctx.location(reader, location_id)
            if resource_group_id is not None:
                ctx.owned(reader, ResourceGroup, resource_group_id, field="resource_group_id")
            resources = reader.find(Resource, company_id=ctx.company_id, location_id=location.id)
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

    # -- weekly availability --------------------------------------------------------------------

    def get_availability(self, resource_id: str, /) -> ResourceWeeklyAvailability:
        """
        Return a resource's weekly hours (spec: GET /setup/v1/resources/{id}/availability).

        Raises:
            NotFound, Unauthorized: as :meth:`get`.
        """
        return self._availability(self.get(resource_id))

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
            _resource_event(self._ctx, tx, updated, Trigger.RESOURCE_UPDATED)
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

    # -- linked services ------------------------------------------------------------------------

    def services(
        self, resource_id: str, /, *, offset: int = 0, limit: int = DEFAULT_LIMIT
    ) -> Page[Service]:
        """
        List the services explicitly linked to a resource, in link order.

        Spec: GET /consumer/v1/resources/{id}/services. A resource with no links takes every
        service but lists none here. Links to services that no longer exist are skipped.
        """
        ctx = self._ctx
        with ctx.store.read() as reader:
            resource = ctx.owned(reader, Resource, resource_id, field="resource_id")
            services = [
                service
                for service in (reader.get(Service, sid) for sid in resource.linked_service_ids)
                if service is not None
            ]
        return paginate(
            services,
            url=f"/consumer/v1/resources/{resource.id}/services",
            offset=offset,
            limit=limit,
        )

    def link_services(self, resource_id: str, /, service_ids: Iterable[str]) -> Resource:
        """
        Replace the services a resource may be booked for (spec: PUT /setup/v1/resources/{id}/services).

        An empty list removes every link, so the resource takes every service again.
        A service named twice is linked once.

        Raises:
            ResourceDeleted: when the resource is soft-deleted.
            InvalidReference: when a service does not exist or is not usable at the resource's
                location (its own or a company-scoped one).
            Unauthorized: when a service is not the principal's.
        """
        return self.update(resource_id, linked_service_ids=tuple(service_ids))

    # -- external calendar authorization ------------------------------------------------------

    def authorize_calendar(
        self,
        resource_id: str,
        /,
        provider: CalendarProviderName,
        email: str,
        *,
        return_url: str | None = None,
    ) -> Resource:
        """
        Start connecting a resource's external calendar.

        Spec: GET /setup/v1/resources/{id}/calendar/auth/providerA|providerB/{emailAddress}.
        The host's ``calendar_authorizer`` makes the authorization link, stored as the provider's
        ``auth_url`` with ``calendar_id`` = *email*, ``auth_return_url`` = *return_url* and
        ``authorized`` false until :meth:`complete_calendar_authorization`.

        Raises:
            InvalidChoice: when *provider* is not ``"A"`` or ``"B"``.
            InvalidFormat: when *email*, *return_url* or the authorizer's link is malformed.
            ProviderNotConfigured: when the scheduler has no calendar authorizer.
            ResourceDeleted: when the resource is soft-deleted.
        """
        field = _provider_field(provider)
        ctx = self._ctx
        with ctx.store.transaction() as tx:
            resource = self._live(tx, resource_id)
            pending = CalendarProvider(calendar_id=email, auth_return_url=return_url)
            link = ctx.calendar_authorizer.authorization_url(
                resource=resource, provider=provider, email=email, return_url=return_url
            )
            updated = _with_provider(
                resource, field, attrs.evolve(pending, auth_url=link, authorized=False)
            )
            tx.update(updated)
            _resource_event(ctx, tx, updated, Trigger.RESOURCE_UPDATED)
        return updated

    def complete_calendar_authorization(
        self, resource_id: str, /, provider: CalendarProviderName
    ) -> Resource:
        """
        Record that the provider granted access (the host calls this from its OAuth callback).

        Raises:
            StateError: when authorization was never started for that provider.
        """
        field = _provider_field(provider)
        ctx = self._ctx
        with ctx.store.transaction() as tx:
            resource = self._live(tx, resource_id)
            current: CalendarProvider = getattr(resource, field)
            if current.auth_url is None:
                raise StateError(
                    f"calendar authorization for provider {provider} was not started on "
                    f"resource {resource_id!r}"
                )
            updated = _with_provider(resource, field, attrs.evolve(current, authorized=True))
            tx.update(updated)
            _resource_event(ctx, tx, updated, Trigger.RESOURCE_UPDATED)
        return updated

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
        resource = self.get(resource_id)
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
        resource = self.get(resource_id)
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

    # -- helpers ----------------------------------------------------------------------------------

    def _live(self, reader: Reader, resource_id: str) -> Resource:
        resource = self._ctx.owned(reader, Resource, resource_id, field="resource_id")
        if resource.deleted:
            raise ResourceDeleted(resource_id=resource.id)
        return resource

    def _live_resource(self, resource_id: str) -> Resource:
        with self._ctx.store.read() as reader:
            return self._live(reader, resource_id)


def _resource_event(ctx: Context, tx: Transaction, resource: Resource, trigger: Trigger) -> None:
    # Decision 27: the event joins the change's own unit of work.
    append_event(
        tx,
        ids=ctx.ids,
        now=ctx.clock.now(),
        company_id=resource.company_id,
        location_id=resource.location_id,
        trigger=trigger,
        entity_id=resource.id,
        payload={"resource": resource_data(resource)},
    )


def _check_keys(values: Mapping[str, object], allowed: frozenset[str], operation: str) -> None:
    # The TypedDicts guard type-checked callers; this guards the rest, so that fields such as
    # ``id``, ``deleted`` or (on update) ``location_id`` cannot be set through keywords.
    for key in values:
        if key not in allowed:
            raise TypeError(f"{operation}() got an unexpected keyword argument {key!r}")


def _provider_field(provider: object) -> str:
    if provider == "A":
        return "provider_a"
    if provider == "B":
        return "provider_b"
    raise InvalidChoice(field="provider", allowed=("A", "B"), requested=provider)


def _with_provider(resource: Resource, field: str, value: CalendarProvider) -> Resource:
    if field == "provider_a":
        return attrs.evolve(resource, provider_a=value)
    return attrs.evolve(resource, provider_b=value)


def _from_caller(given: CalendarProvider, stored: CalendarProvider) -> CalendarProvider:
    # auth_url and authorized are written by the authorization flow only (spec: "authorization
    # link created by the service", "true when authorization succeeded"); a caller cannot set them.
    if given.calendar_id != stored.calendar_id:
        return attrs.evolve(given, auth_url=None, authorized=False)
    return attrs.evolve(given, auth_url=stored.auth_url, authorized=stored.authorized)


def _check_group(ctx: Context, reader: Reader, group_id: str | None, location_id: str) -> None:
    """Check that *group_id* names a resource group a resource at *location_id* may join."""
    if group_id is None:
        return
    if reader.get(ResourceGroup, group_id) is None:
        raise InvalidReference(f"group_id {group_id!r} names no resource group", field="group_id")
    group = ctx.owned(reader, ResourceGroup, group_id, field="group_id")
    if group.location_id is not None and group.location_id != location_id:
        raise InvalidReference(
            f"resource group {group_id!r} belongs to another location", field="group_id"
        )


def _linkable_services(
    ctx: Context, reader: Reader, service_ids: Iterable[str], location_id: str
) -> tuple[str, ...]:
    """Return *service_ids* without repeats, each checked to be usable at *location_id*."""
    if isinstance(service_ids, str):
        # One id passed as a string would otherwise be split into characters.
        raise InvalidFormat(
            field="linked_service_ids",
            expected="a sequence of ids, not one string",
            value=service_ids,
        )
    checked: dict[str, None] = {}
    for service_id in service_ids:
        if reader.get(Service, service_id) is None:
            raise InvalidReference(
                f"linked_service_ids: service {service_id!r} does not exist",
                field="linked_service_ids",
            )
        service = ctx.owned(reader, Service, service_id, field="linked_service_ids")
        if not _usable_at(service, location_id):
            raise InvalidReference(
                f"linked_service_ids: service {service_id!r} is not offered at the resource's "
                "location",
                field="linked_service_ids",
            )
        checked[service_id] = None
    return tuple(checked)


def _usable_at(service: Service, location_id: str) -> bool:
    # Company-scoped services live at the primary location and serve every location.
    return service.location_id == location_id or service.scope is ServiceScope.COMPANY
