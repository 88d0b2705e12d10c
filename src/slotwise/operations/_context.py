"""
What every operation needs: the store, the clock, the id source and the principal, plus the
tenant checks that guard every record an operation touches (decision 30).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any, TypeVar

import attrs

from slotwise.availability.authorization import CalendarAuthorizer, NoCalendarAuthorizer
from slotwise.availability.busy import BusyTimeProvider, NoBusyTime
from slotwise.clock import Clock, IdGenerator
from slotwise.errors import NotAuthenticated, NotFound, Unauthorized
from slotwise.model import Company, Location, OutboxEvent, Principal, Service, ServiceScope
from slotwise.storage.batched import ReadAgain, last_read
from slotwise.storage.configuration import ConfigurationCache, confirmed
from slotwise.storage.protocol import R, Reader, Store, Transaction

from .meetings import MeetingLinkProvider, NoMeetingLinks

__all__ = ["DEFAULT_MAX_QUERY_DAYS", "MAX_QUERY_DAYS_LIMIT", "Context"]

_T = TypeVar("_T")

logger = logging.getLogger("slotwise.storage")

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
    meeting_links: MeetingLinkProvider = attrs.field(factory=NoMeetingLinks)
    configuration: ConfigurationCache | None = None
    """The process's configuration cache (decision 49); ``None`` reads everything from the store."""
    allow_local_webhooks: bool = False
    """The development setting: webhook URLs may use http and loopback (decision 47)."""

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

    def configured(self, reader: Reader, *, checked_later: bool = False) -> Reader:
        """
        Return *reader* with the principal's company configuration answered from the cache.

        Only for read-only views (``store.read()``): see :meth:`ConfigurationCache.reader`
        (*checked_later*: only for a read that is run again on ``ReadAgain`` -- by
        ``lagging_read`` or :meth:`configured_read` -- and returns through
        :func:`slotwise.storage.configuration.confirmed`).
        """
        if self.configuration is None:
            return reader
        return self.configuration.reader(reader, self.company_id, checked_later=checked_later)

    def configured_read(self, read: Callable[[Reader], _T]) -> _T:
        """
        Return ``read(reader)`` on one view of the store (the primary, never a replica), the
        principal's company configuration answered from the cache (decision 49).

        *read* must only read, and may run twice. On a warm cache the version is asked for
        ahead, so it rides with the view's one round trip, and the view's ``ROLLBACK`` with it
        (PostgreSQL, MariaDB): a read answered from the configuration alone costs one round trip.
        When the version that arrives is not the held configuration's, *read* runs once more
        on a view that reads the version first: a record changed before the read began is
        never answered from the older configuration, nor an error decided on it.
        """
        if self.configuration is None:
            with self.store.read() as reader:
                return read(reader)
        try:
            return self._configured_view(read, ahead=True)
        except ReadAgain as again:
            logger.debug("%s; the read runs again", again.message)
            return self._configured_view(read, ahead=False)

    def _configured_view(self, read: Callable[[Reader], _T], *, ahead: bool) -> _T:
        with self.store.read() as store_reader:
            reader = self.configured(store_reader, checked_later=ahead)

            def answered() -> _T:
                found = read(reader)
                if ahead:
                    last_read(reader)  # the version still to come ends the view
                return found

            return confirmed(reader, answered)

    def configured_unit(self, tx: Transaction) -> Transaction:
        """
        Return *tx* with the principal's company configuration answered from the cache, for a
        unit of work that writes no configuration; call it before the unit writes anything.
        """
        if self.configuration is None:
            return tx
        return self.configuration.unit(tx, self.company_id)

    @property
    def company_id(self) -> str:
        """Return the principal's company id."""
        principal = self.caller
        if principal is None:
            raise NotAuthenticated()
        return principal.company_id

    @property
    def location_ids(self) -> frozenset[str] | None:
        """
        Return the locations the principal is limited to, or ``None`` for the whole company.

        What the feeds (events, reminders, expired holds) pass to the store, so they are
        filtered by the read itself (decision 37).
        """
        return self.principal.location_ids

    def require_company_wide(self, *, field: str, value: str) -> None:
        """
        Refuse a change of a company-wide record by a principal limited to some locations.

        Company-wide records are the company itself, its set of locations and which one is
        primary, company-scoped services and groups not tied to a location (decision 37).

        Raises:
            NotAuthenticated: when there is no principal.
            Unauthorized: naming *field* and *value* (what the caller sent), when the
                principal is limited to some locations.
        """
        if self.principal.location_ids is not None:
            raise Unauthorized(field=field, value=value)

    def owned(
        self, reader: Reader, kind: type[R], record_id: str, *, field: str, change: bool = False
    ) -> R:
        """
        Return the record the principal may use, named by the caller as *field*.

        With *change* the caller is about to change (or delete) the record: a company-wide
        record (see :meth:`require_company_wide`) is then refused to a principal limited to
        some locations. An outbox event without a location is company-wide too, and is
        refused to such a principal even to read.

        Raises:
            NotAuthenticated: when there is no principal.
            NotFound: when no such record exists.
            Unauthorized: when it belongs to another company or to a location outside the
                principal's set. The message names only what the caller sent.
        """
        principal = self.caller
        if principal is None:
            raise NotAuthenticated()
        record = reader.get(kind, record_id)
        if record is None:
            raise NotFound(kind=kind.__name__, record_id=record_id)
        if record.company_id != principal.company_id:
            raise Unauthorized(field=field, value=record_id)
        if principal.location_ids is None:
            return record  # the whole company's principal may use every record of it
        if _company_wide(record, change=change):
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
        Return the named location, or the default one when *location_id* is None.

        The default is the company's primary location; for a principal limited to some
        locations it is the first of them in creation order (decision 42), whether or not the
        primary location is among them.

        Raises:
            NotAuthenticated: when there is no principal.
            NotFound: when the company has no location yet, the limited principal has none of
                its locations (``"(first permitted)"``), or the named one does not exist.
            Unauthorized: as :meth:`owned`.
        """
        if location_id is not None:
            return self.owned(reader, Location, location_id, field="location_id")
        principal = self.principal
        locations = reader.find(Location, company_id=principal.company_id)
        if principal.location_ids is not None:
            for location in locations:
                if location.id in principal.location_ids:
                    return location
            raise NotFound(kind="Location", record_id="(first permitted)")
        for location in locations:
            if location.is_primary:
                return location
        raise NotFound(kind="Location", record_id="(primary)")

    def service_location(
        self, reader: Reader, service: Service, location_id: str | None
    ) -> Location:
        """
        Return the location a query of *service* runs at (decision 46).

        The named location when *location_id* is given; otherwise a location-scoped service's
        own location (it is bookable nowhere else), and for a company-scoped service the
        default of :meth:`location`. *service* must already be one the principal may use.

        Raises:
            NotFound, Unauthorized: as :meth:`location`.
        """
        if location_id is None and service.scope is ServiceScope.LOCATION:
            return self.owned(reader, Location, service.location_id, field="service_id")
        return self.location(reader, location_id)

    def visible_locations(self, reader: Reader) -> list[Location]:
        """Return the locations the principal may see, in creation order."""
        return [
            location
            for location in reader.find(Location, company_id=self.company_id)
            if self.principal.may_use_location(location.id)
        ]


def _company_wide(record: object, *, change: bool) -> bool:
    """Tell whether *record* belongs to the whole company rather than to one location."""
    if isinstance(record, OutboxEvent):
        # Company-wide events are not even shown to a limited principal (decision 37).
        return record.location_id is None
    if not change:
        return False
    if isinstance(record, Company):
        return True
    if isinstance(record, Service):
        return record.scope is ServiceScope.COMPANY
    # Groups not tied to a location; records without a location field (customers,
    # subscriptions) are shared by every location and stay usable.
    return hasattr(record, "location_id") and record.location_id is None
