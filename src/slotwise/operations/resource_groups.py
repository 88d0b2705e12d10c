"""
Resource group operations: create, get, list, update and delete.

Resource groups organise resources for internal management and narrow availability searches
(decision 13). A group either belongs to one location or, with ``location_id`` ``None``, to the
whole company; a resource may join a group of its own location or a company-wide one.
"""

from __future__ import annotations

from typing import Required, TypedDict, Unpack

import attrs

from slotwise.errors import RecordInUse
from slotwise.model import Resource, ResourceGroup
from slotwise.operations._boundary import operations
from slotwise.operations.groups import GroupKind, GroupOperationsBase
from slotwise.paging import DEFAULT_LIMIT, Page

__all__ = ["ResourceGroupChanges", "ResourceGroupFields", "ResourceGroupOperations"]


class ResourceGroupFields(TypedDict, total=False):
    """Fields of a new resource group: ``name`` is required; ``location_id`` ``None`` = company-wide."""

    name: Required[str]
    location_id: str | None
    description: str | None


class ResourceGroupChanges(TypedDict, total=False):
    """Fields a resource group update may change (its location stays fixed)."""

    name: str
    description: str | None


@operations
@attrs.frozen
class ResourceGroupOperations(GroupOperationsBase[ResourceGroup]):
    """
    Resource groups of the principal's company (spec: consumer resource-group endpoints).

    .. versionadded:: 0.1
    """

    kind = GroupKind(record=ResourceGroup, field="group_id", url="/consumer/v1/resourcegroups")

    def create(self, **fields: Unpack[ResourceGroupFields]) -> ResourceGroup:
        """
        Create a resource group.

        Raises:
            FieldRequired: when ``name`` is missing or blank.
            FieldTooLong: when ``name`` is over 255 characters.
            NotFound, Unauthorized: when ``location_id`` names an unknown or foreign location.
            NotFound: when a principal limited to some locations names no location and has
                none of its locations left (it gets its first permitted one, decision 42).
        """
        return self._create(fields)

    def get(self, group_id: str, /) -> ResourceGroup:
        """
        Return a resource group.

        Raises:
            NotFound: when no group has *group_id*.
            Unauthorized: when it is another company's or at a location outside the principal's set.
        """
        return self._get(group_id)

    def list(
        self, *, location_id: str | None = None, offset: int = 0, limit: int = DEFAULT_LIMIT
    ) -> Page[ResourceGroup]:
        """
        List the resource groups usable at a location: its own and the company-wide ones.

        Order: creation order.

        Args:
            location_id: the location; ``None`` means the primary location (spec: Endpoints,
                "locationId filters default to the first business location").

        Raises:
            NotFound, Unauthorized: when the location is unknown or not the principal's.
        """
        return self._list(location_id, offset, limit)

    def update(self, group_id: str, /, **changes: Unpack[ResourceGroupChanges]) -> ResourceGroup:
        """
        Change a resource group; omitted fields keep their values.

        Raises:
            ValidationError: for an invalid field; nothing is changed.
        """
        return self._update(group_id, changes)

    def delete(self, group_id: str, /) -> ResourceGroup:
        """
        Delete a resource group for good and return it as it was.

        A group that active resources still belong to is not deleted: silently ungrouping them
        would change which resources a group-narrowed availability search finds, so the caller
        moves them first. Soft-deleted members do not hold the group; they leave it (their
        ``group_id`` is cleared in the same step), so a later recovery finds no dangling group.

        Raises:
            RecordInUse: when an active resource has this ``group_id``.
        """
        ctx = self._ctx
        with ctx.store.transaction() as tx:
            group = self._to_change(tx, group_id)
            members = [
                resource
                for resource in tx.find(Resource, company_id=ctx.company_id)
                if resource.group_id == group.id
            ]
            active = [resource for resource in members if not resource.deleted]
            if active:
                raise RecordInUse(
                    kind="ResourceGroup", record_id=group.id, used_by="resources", count=len(active)
                )
            for resource in members:
                tx.update(attrs.evolve(resource, group_id=None))
            tx.delete(ResourceGroup, group.id)
        return group
