"""
What every operation needs: the store, the clock, the id source and the principal, plus the
tenant checks that guard every record an operation touches (decision 30).
"""

from __future__ import annotations

from typing import Any

import attrs

from slotwise.availability.authorization import CalendarAuthorizer, NoCalendarAuthorizer
from slotwise.availability.busy import BusyTimeProvider, NoBusyTime
from slotwise.clock import Clock, IdGenerator
from slotwise.errors import NotAuthenticated, NotFound, Unauthorized
from slotwise.model import Location, Principal, Service, ServiceScope
from slotwise.storage.protocol import R, Reader, Store

__all__ = ["DEFAULT_MAX_QUERY_DAYS", "MAX_QUERY_DAYS_LIMIT", "Context"]

DEFAULT_MAX_QUERY_DAYS = 366
"""The most dates one availability search spans unless the scheduler says otherwise (decision 36)."""
MAX_QUERY_DAYS_LIMIT = 3_660
"""The largest ``max_query_days`` a scheduler may be given (ten years of dates)."""


@attrs.frozen(kw_only=True)
class Context:
    """The store, clock, id source, principal and busy-time provider one operation runs with."""

    store: Store
    clock: Clock
    ids: IdGenerator
    caller: Principal | None
    """Who runs the operations; ``None`` when nobody authenticated (see :attr:`principal`)."""
    busy_provider: BusyTimeProvider = attrs.field(factory=NoBusyTime)
    calendar_authorizer: CalendarAuthorizer = attrs.field(factory=NoCalendarAuthorizer)
    max_query_days: int = DEFAULT_MAX_QUERY_DAYS

    @property
    def principal(self) -> Principal:
        """
        Return the principal operations run for.

        Raises:
            NotAuthenticated: when there is none (decision 37).
        """
        if self.caller is None:
            raise NotAuthenticated()
        return self.caller

    @property
    def company_id(self) -> str:
        """Return the principal's company id."""
        return self.principal.company_id

    def owned(self, reader: Reader, kind: type[R], record_id: str, *, field: str) -> R:
        """
        Return the record the principal may use, named by the caller as *field*.

        Raises:
            NotFound: when no such record exists.
            Unauthorized: when it belongs to another company or to a location outside the
                principal's set. The message names only what the caller sent.
        """
        record = reader.get(kind, record_id)
        if record is None:
            raise NotFound(kind=kind.__name__, record_id=record_id)
        if record.company_id != self.company_id:
            raise Unauthorized(field=field, value=record_id)
        # A location is guarded by its own id; other records by the location they belong to.
        location_id: Any = (
            record.id if isinstance(record, Location) else getattr(record, "location_id", None)
        )
        if location_id is not None and not self._may_use(record, location_id):
            raise Unauthorized(field=field, value=record_id)
        return record

    def _may_use(self, record: object, location_id: str) -> bool:
        if self.principal.may_use_location(location_id):
            return True
        # Company-scoped services live at the primary location and serve every location.
        return isinstance(record, Service) and record.scope is ServiceScope.COMPANY

    def location(self, reader: Reader, location_id: str | None) -> Location:
        """
        Return the named location, or the company's primary location when *location_id* is None.

        Raises:
            NotFound: when the company has no location yet (or the named one does not exist).
            Unauthorized: as :meth:`owned`.
        """
        if location_id is not None:
            return self.owned(reader, Location, location_id, field="location_id")
        for location in reader.find(Location, company_id=self.company_id):
            if location.is_primary:
                return self.owned(reader, Location, location.id, field="location_id")
        raise NotFound(kind="Location", record_id="(primary)")

    def visible_locations(self, reader: Reader) -> list[Location]:
        """Return the locations the principal may see, in creation order."""
        return [
            location
            for location in reader.find(Location, company_id=self.company_id)
            if self.principal.may_use_location(location.id)
        ]
