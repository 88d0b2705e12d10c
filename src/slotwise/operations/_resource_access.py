"""
What every part of ``ResourceOperations`` needs: the live resource the principal may change, and
the event that joins each change's unit of work (decision 27).
"""

from __future__ import annotations

from slotwise.errors import ResourceDeleted
from slotwise.model import Resource, Trigger
from slotwise.operations._context import Context
from slotwise.storage.outbox import append_event, resource_data
from slotwise.storage.protocol import Reader, Transaction

__all__ = ["ResourceAccess", "resource_event"]


class ResourceAccess:
    """The principal's resources, as the parts of ``ResourceOperations`` read them."""

    _ctx: Context

    def _owned(self, resource_id: str) -> Resource:
        return self._ctx.configured_read(
            lambda reader: self._ctx.owned(reader, Resource, resource_id, field="resource_id")
        )

    def _live(self, reader: Reader, resource_id: str) -> Resource:
        resource = self._ctx.owned(reader, Resource, resource_id, field="resource_id")
        if resource.deleted:
            raise ResourceDeleted(resource_id=resource.id)
        return resource

    def _live_resource(self, resource_id: str) -> Resource:
        return self._ctx.configured_read(lambda reader: self._live(reader, resource_id))


def resource_event(ctx: Context, tx: Transaction, resource: Resource, trigger: Trigger) -> None:
    """Append *trigger* for *resource* to the outbox of *tx* (decision 27: same unit of work)."""
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
