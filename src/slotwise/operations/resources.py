"""
Resource operations: create, update (one or in bulk), soft delete and recover, the setup and
consumer reads and linked services; with weekly hours, blocks and allocations
(:mod:`.resource_hours`) and external calendars (:mod:`.resource_calendars`) mixed in.

A resource belongs to one location for life; its ``weekly_hours`` are wall times in its own zone
(decision 1), which may differ from the location's.
"""

from __future__ import annotations

import builtins
from collections.abc import Iterable, Sequence
from typing import Any, Required, TypedDict, Unpack

import attrs

from slotwise.errors import (
    FieldRequired,
    InvalidFormat,
    InvalidReference,
    SlotwiseError,
)
from slotwise.model import (
    Address,
    CalendarProvider,
    PhoneNumbers,
    Resource,
    ResourceConsumerView,
    ResourceGroup,
    ResourceOptions,
    Service,
    ServiceScope,
    Trigger,
    WeeklyHours,
)
from slotwise.operations._boundary import operations
from slotwise.operations._context import Context
from slotwise.paging import AllPages
from slotwise.storage.protocol import Reader, Transaction

from ._partial import renamed, resolved
from ._resource_access import resource_event
from .resource_calendars import ResourceCalendarOperations
from .resource_hours import ResourceHoursOperations
from .resource_reads import ResourceReadOperations, ResourceSortOrder

__all__ = [
    "ResourceChanges",
    "ResourceFields",
    "ResourceOperations",
    "ResourceSortOrder",
]


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
    """
    Fields a resource update may change; the location stays fixed. ``service_id`` links one
    more service (spec: PUT /setup/v1/resources/{id}, "serviceId link"): it is added to
    ``linked_service_ids``.
    """

    name: str
    reason: str | None
    service_id: str


@operations
@attrs.frozen
class ResourceOperations(
    ResourceReadOperations,
    ResourceHoursOperations,
    ResourceCalendarOperations,
    AllPages[ResourceConsumerView],
):
    """
    Resources of the principal's locations.

    Their reads are in :mod:`.resource_reads`, their weekly hours, blocks and allocations in
    :mod:`.resource_hours`, the connection of their external calendars in
    :mod:`.resource_calendars`; all are part of this class.

    .. versionadded:: 0.1
    """

    _ctx: Context

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
            resource_event(ctx, tx, resource, Trigger.RESOURCE_CREATED)
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
            the errors of :meth:`update`, for the first update that fails, naming its place:
                ``updates[1][0]`` for the second update's id, ``updates[1][1].timezone`` for a
                field of its changes.
        """
        keys = ResourceChanges.__required_keys__ | ResourceChanges.__optional_keys__
        changed: builtins.list[Resource] = []
        with self._ctx.store.transaction() as tx:
            for index, (resource_id, changes) in enumerate(updates):
                try:
                    changed.append(self._update(tx, resource_id, changes))
                except SlotwiseError as error:
                    # An update checked after the call boundary names its place as the
                    # boundary's own checks do (``updates[1][1].name``).
                    place = f"updates[{index}]"
                    heads = {key: f"{place}[1].{key}" for key in keys}
                    raise renamed(
                        error, {**heads, "resource_id": f"{place}[0]"}
                    ) from error.__cause__
        return changed

    def _update(
        self,
        tx: Transaction,
        resource_id: str,
        changes: ResourceChanges,
        *,
        linked_as: str = "linked_service_ids",
    ) -> Resource:
        ctx = self._ctx
        resource = self._live(tx, resource_id)
        values: dict[str, Any] = resolved(resource, changes)
        for provider in ("provider_a", "provider_b"):
            if provider in values:
                values[provider] = _from_caller(values[provider], getattr(resource, provider))
        if "linked_service_ids" in values:
            values["linked_service_ids"] = _linkable_services(
                ctx, tx, values["linked_service_ids"], resource.location_id, field=linked_as
            )
        if "service_id" in values:
            # Decision 45: the spec's "serviceId link" adds that service to the linked ones
            # (a resource linked to none takes every service; linking one restricts it).
            (linked,) = _linkable_services(
                ctx,
                tx,
                [values.pop("service_id")],
                resource.location_id,
                field="service_id",
                each=False,
            )
            kept = values.get("linked_service_ids", resource.linked_service_ids)
            values["linked_service_ids"] = tuple(dict.fromkeys((*kept, linked)))
        if "group_id" in values:
            _check_group(ctx, tx, values["group_id"], resource.location_id)
        updated = attrs.evolve(resource, **values)
        tx.update(updated)
        resource_event(ctx, tx, updated, Trigger.RESOURCE_UPDATED)
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
            resource_event(ctx, tx, deleted, Trigger.RESOURCE_UPDATED)
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
            resource_event(ctx, tx, recovered, Trigger.RESOURCE_UPDATED)
        return recovered

    # -- linked services ------------------------------------------------------------------------

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

        A refused service is named by its place in *service_ids* (``service_ids[1]``).
        """
        with self._ctx.store.transaction() as tx:
            changes: ResourceChanges = {"linked_service_ids": tuple(service_ids)}
            return self._update(tx, resource_id, changes, linked_as="service_ids")


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
    ctx: Context,
    reader: Reader,
    service_ids: Iterable[str],
    location_id: str,
    *,
    field: str = "linked_service_ids",
    each: bool = True,
) -> tuple[str, ...]:
    """
    Return *service_ids* without repeats, each checked to be usable at *location_id*.

    A refused id is named by its place in the list *field* (``linked_service_ids[1]``), as the
    call boundary names an item; without *each*, *field* is the one id's own name.
    """
    if isinstance(service_ids, str):
        # One id passed as a string would otherwise be split into characters.
        raise InvalidFormat(
            field=field,
            expected="a sequence of ids, not one string",
            value=service_ids,
        )
    checked: dict[str, None] = {}
    for index, service_id in enumerate(service_ids):
        named = f"{field}[{index}]" if each else field
        if reader.get(Service, service_id) is None:
            raise InvalidReference(
                f"{named}: service {service_id!r} does not exist",
                field=named,
            )
        service = ctx.owned(reader, Service, service_id, field=named)
        if not _usable_at(service, location_id):
            raise InvalidReference(
                f"{named}: service {service_id!r} is not offered at the resource's location",
                field=named,
            )
        checked[service_id] = None
    return tuple(checked)


def _usable_at(service: Service, location_id: str) -> bool:
    # Company-scoped services live at the primary location and serve every location.
    return service.location_id == location_id or service.scope is ServiceScope.COMPANY
