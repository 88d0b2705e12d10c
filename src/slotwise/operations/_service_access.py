"""
What every part of ``ServiceOperations`` needs: the service the principal may read, and the one
it may change (decisions 30 and 37).
"""

from __future__ import annotations

from slotwise.errors import Unauthorized
from slotwise.model import Service
from slotwise.operations._context import Context
from slotwise.storage.protocol import Reader

__all__ = ["ServiceAccess"]


class ServiceAccess:
    """The principal's services, as the parts of ``ServiceOperations`` read them."""

    _ctx: Context

    def _owned(self, service_id: str) -> Service:
        return self._ctx.configured_read(
            lambda reader: self._ctx.owned(reader, Service, service_id, field="service_id")
        )

    def _writable(self, reader: Reader, service_id: str) -> Service:
        # change=True: a company-scoped service is company-wide, changed only by principals of
        # the whole company (decision 37).
        service = self._ctx.owned(reader, Service, service_id, field="service_id", change=True)
        # ctx.owned lets every principal of the company use company-scoped services; changing
        # one needs access to the location that owns it (decision 30).
        if not self._ctx.principal.may_use_location(service.location_id):
            raise Unauthorized(field="service_id", value=service_id)
        return service
