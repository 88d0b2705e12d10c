"""
Service group operations: create, get, list, update and delete.

A service group either belongs to one location or, with ``location_id`` ``None``, to the whole
company (shown at every location).
"""

from __future__ import annotations

from typing import Any, Required, TypedDict, Unpack

import attrs

from slotwise.errors import RecordInUse
from slotwise.model import Service, ServiceGroup
from slotwise.operations._boundary import operations
from slotwise.operations._context import Context
from slotwise.paging import DEFAULT_LIMIT, Page, paginate

__all__ = ["ServiceGroupChanges", "ServiceGroupFields", "ServiceGroupOperations"]


class _ServiceGroupCommon(TypedDict, total=False):
    description: str | None
    label: str | None
    image_url: str | None


class ServiceGroupFields(_ServiceGroupCommon, total=False):
    """Fields of a new service group: ``name`` is required; ``location_id`` ``None`` = company-wide."""

    name: Required[str]
    location_id: str | None


class ServiceGroupChanges(_ServiceGroupCommon, total=False):
    """Fields a service group update may change (its location stays fixed)."""

    name: str


@operations
@attrs.frozen
class ServiceGroupOperations:
    """
    Service groups of the principal's company.

    .. versionadded:: 0.1
    """

    _ctx: Context

    def create(self, **fields: Unpack[ServiceGroupFields]) -> ServiceGroup:
        """
        Create a service group (spec: POST /setup/v1/service groups endpoints).

        Raises:
            FieldRequired: when ``name`` is missing or blank.
            FieldTooLong: when ``name`` is over 255 characters.
            NotFound, Unauthorized: when ``location_id`` names an unknown or foreign location.
            Unauthorized: when a principal limited to some locations names no location (a
                company-wide group, decision 37).
        """
        ctx = self._ctx
        location_id = fields.get("location_id")
        values: dict[str, Any] = {k: v for k, v in fields.items() if k != "location_id"}
        with ctx.store.transaction() as tx:
            if location_id is not None:
                location_id = ctx.location(tx, location_id).id
            else:
                # A group not tied to a location is company-wide (decision 37).
                ctx.require_company_wide(field="company_id", value=ctx.company_id)
            group = ServiceGroup(
                id=ctx.ids.new_id(), company_id=ctx.company_id, location_id=location_id, **values
            )
            tx.insert(group)
        return group

    def get(self, group_id: str, /) -> ServiceGroup:
        """
        Return a service group (spec: GET /consumer/v1/servicegroups/{id}).

        Raises:
            NotFound: when no group has *group_id*.
            Unauthorized: when it is not the principal's.
        """
        with self._ctx.store.read() as reader:
            return self._ctx.owned(reader, ServiceGroup, group_id, field="service_group_id")

    def list(
        self, *, location_id: str | None = None, offset: int = 0, limit: int = DEFAULT_LIMIT
    ) -> Page[ServiceGroup]:
        """
        List the service groups shown at a location, in creation order.

        Spec: GET /consumer/v1/servicegroups. The groups of the location and the company-wide
        groups are listed.

        Args:
            location_id: the location; ``None`` means the primary location (spec: Endpoints,
                "locationId filters default to the first business location").
        """
        ctx = self._ctx
        with ctx.store.read() as reader:
            location = ctx.location(reader, location_id)
            groups = [
                group
                for group in reader.find(ServiceGroup, company_id=ctx.company_id)
                if group.location_id in (None, location.id)
            ]
        return paginate(groups, url="/consumer/v1/servicegroups", offset=offset, limit=limit)

    def update(self, group_id: str, /, **changes: Unpack[ServiceGroupChanges]) -> ServiceGroup:
        """
        Change a service group; omitted fields keep their values.

        Raises:
            ValidationError: for an invalid field; nothing is changed.
        """
        ctx = self._ctx
        with ctx.store.transaction() as tx:
            group = ctx.owned(tx, ServiceGroup, group_id, field="service_group_id", change=True)
            updated = attrs.evolve(group, **changes)
            tx.update(updated)
        return updated

    def delete(self, group_id: str, /) -> ServiceGroup:
        """
        Delete a service group for good and return it as it was.

        A group still named by services is not deleted: silently ungrouping them would change
        what the booking flow shows, so the caller reassigns them first.

        Raises:
            RecordInUse: when any service of the company has this ``service_group_id``.
        """
        ctx = self._ctx
        with ctx.store.transaction() as tx:
            group = ctx.owned(tx, ServiceGroup, group_id, field="service_group_id", change=True)
            members = [
                service
                for service in tx.find(Service, company_id=ctx.company_id)
                if service.service_group_id == group.id
            ]
            if members:
                raise RecordInUse(
                    kind="ServiceGroup", record_id=group.id, used_by="services", count=len(members)
                )
            tx.delete(ServiceGroup, group.id)
        return group
