"""
Service group operations: create, get, list, update and delete.

A service group either belongs to one location or, with ``location_id`` ``None``, to the whole
company (shown at every location).
"""

from __future__ import annotations

from typing import Required, TypedDict, Unpack

import attrs

from slotwise.errors import RecordInUse
from slotwise.model import Service, ServiceGroup
from slotwise.operations._boundary import operations
from slotwise.operations.groups import GroupKind, GroupOperationsBase
from slotwise.paging import DEFAULT_LIMIT, Page

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
class ServiceGroupOperations(GroupOperationsBase[ServiceGroup]):
    """
    Service groups of the principal's company.

    .. versionadded:: 0.1
    """

    kind = GroupKind(record=ServiceGroup, field="group_id", url="/consumer/v1/servicegroups")

    def create(self, **fields: Unpack[ServiceGroupFields]) -> ServiceGroup:
        """
        Create a service group (spec: POST /setup/v1/service groups endpoints).

        Raises:
            FieldRequired: when ``name`` is missing or blank.
            FieldTooLong: when ``name`` is over 255 characters.
            NotFound, Unauthorized: when ``location_id`` names an unknown or foreign location.
            NotFound: when a principal limited to some locations names no location and has
                none of its locations left (it gets its first permitted one, decision 42).
        """
        return self._create(fields)

    def get(self, group_id: str, /) -> ServiceGroup:
        """
        Return a service group (spec: GET /consumer/v1/servicegroups/{id}).

        Raises:
            NotFound: when no group has *group_id*.
            Unauthorized: when it is not the principal's.
        """
        return self._get(group_id)

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
        return self._list(location_id, offset, limit)

    def update(self, group_id: str, /, **changes: Unpack[ServiceGroupChanges]) -> ServiceGroup:
        """
        Change a service group; omitted fields keep their values.

        Raises:
            ValidationError: for an invalid field; nothing is changed.
        """
        return self._update(group_id, changes)

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
            group = self._to_change(tx, group_id)
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
