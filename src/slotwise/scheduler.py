"""
The entry object: ``Scheduler`` wires a store, a clock and an id source, and hands out a
``Workspace`` of operations for a principal.
"""

from __future__ import annotations

import functools
import threading
from datetime import timedelta
from typing import Any, Unpack

from slotwise.availability.authorization import CalendarAuthorizer, NoCalendarAuthorizer
from slotwise.availability.busy import BusyTimeProvider, NoBusyTime
from slotwise.booking.service import AppointmentOperations, OutboxOperations, ReminderOperations
from slotwise.clock import Clock, IdGenerator, SystemClock, UUIDIds
from slotwise.errors import InvalidFormat, NotFound, OutOfRange
from slotwise.model import Company, Principal
from slotwise.operations._boundary import declared
from slotwise.operations._context import DEFAULT_MAX_QUERY_DAYS, MAX_QUERY_DAYS_LIMIT, Context
from slotwise.operations.availability import AvailabilityOperations
from slotwise.operations.calendars import CalendarOperations
from slotwise.operations.companies import (
    CompanyFields,
    CompanyOperations,
    companies_of_user,
    create_company,
)
from slotwise.operations.customers import CustomerOperations, SubscriptionOperations
from slotwise.operations.fields import FieldOperations
from slotwise.operations.geography import GeographyOperations
from slotwise.operations.locations import LocationOperations
from slotwise.operations.meetings import MeetingLinkProvider, NoMeetingLinks
from slotwise.operations.resource_groups import ResourceGroupOperations
from slotwise.operations.resources import ResourceOperations
from slotwise.operations.service_groups import ServiceGroupOperations
from slotwise.operations.services import ServiceOperations
from slotwise.operations.tokens import (
    DEFAULT_TOKEN_CACHE,
    TokenOperations,
    TokenSource,
    random_token,
)
from slotwise.storage.configuration import ConfigurationCache
from slotwise.storage.memory import MemoryStore
from slotwise.storage.protocol import Store

__all__ = ["Scheduler", "Workspace"]

_WORKSPACES_MOST = 10_000
"""Workspaces kept at most (one per principal served; the oldest goes first)."""


class Scheduler:
    """
    slotwise's entry point.

    Args:
        store: where records live; defaults to a new :class:`~slotwise.MemoryStore`.
        clock: the source of "now"; defaults to :class:`~slotwise.SystemClock`.
        ids: the source of new record ids; defaults to :class:`~slotwise.UUIDIds`.
        busy_provider: external busy time of resources with an external calendar; defaults
            to :class:`~slotwise.availability.busy.NoBusyTime`.
        calendar_authorizer: makes external calendar authorization links; defaults to
            :class:`~slotwise.availability.authorization.NoCalendarAuthorizer`.
        max_query_days: the most dates one availability search may span (decision 36;
            default 366). It bounds the work a single call can ask for.
        meeting_links: makes meeting links of booked appointments for companies with a
            ``meeting_webhook_url`` (spec: Events 3); defaults to none
            (:class:`~slotwise.operations.meetings.NoMeetingLinks`).
        token_source: makes the secrets of new API tokens; defaults to
            :func:`~slotwise.operations.tokens.random_token` (32 random bytes, decision 39).
        allow_local_webhooks: the development setting (decision 47): webhook URLs may be set
            to ``http`` and loopback receivers (``http://127.0.0.1:8080/hook``). Off, a URL must
            be ``https``; private, link-local, multicast and reserved addresses are refused
            either way. ``slotwise serve --allow-local-webhooks`` turns it on.
        cache_configuration: keep each company's configuration between availability reads,
            read again only when the store's configuration version changed (decision 49; the
            default). Turn it off when something other than slotwise writes configuration
            records to the store (the version would not change).
        token_cache: how long an API token record read from the store is trusted (default 5
            seconds, at most an hour, ``timedelta(0)`` never): a token revoked through another
            process stops working here within it (decision 39's tokens, issue 23).

    Platform-level calls (:meth:`create_company`, :meth:`companies_of_user` and the API tokens of
    :attr:`tokens`) need no principal; everything else runs in a :class:`Workspace` from
    :meth:`as_principal`.

    One scheduler, and the workspaces it hands out, may be shared by any number of threads (the
    HTTP service runs every request's operation on a worker thread over one scheduler): what
    two operations may interleave is the store's to decide, and both stores are thread-safe
    (a ``SQLStore`` holds one pooled connection per running operation; size its pool to the
    threads). The scheduler owns no connection; close a ``SQLStore`` you made from a URL with
    its ``close()`` when your application stops.

    .. versionadded:: 0.1
    """

    def __init__(
        self,
        store: Store | None = None,
        *,
        clock: Clock | None = None,
        ids: IdGenerator | None = None,
        busy_provider: BusyTimeProvider | None = None,
        calendar_authorizer: CalendarAuthorizer | None = None,
        max_query_days: int = DEFAULT_MAX_QUERY_DAYS,
        token_source: TokenSource | None = None,
        meeting_links: MeetingLinkProvider | None = None,
        allow_local_webhooks: bool = False,
        cache_configuration: bool = True,
        token_cache: timedelta = DEFAULT_TOKEN_CACHE,
    ) -> None:
        if (
            not isinstance(max_query_days, int)
            or isinstance(max_query_days, bool)
            or not 1 <= max_query_days <= MAX_QUERY_DAYS_LIMIT
        ):
            raise OutOfRange(
                field="max_query_days",
                allowed=f"between 1 and {MAX_QUERY_DAYS_LIMIT}",
                requested=max_query_days,
            )
        self.max_query_days = max_query_days
        if not isinstance(allow_local_webhooks, bool):
            raise InvalidFormat(
                field="allow_local_webhooks", expected="True or False", value=allow_local_webhooks
            )
        self.allow_local_webhooks = allow_local_webhooks
        """The development setting of decision 47 (http and loopback webhook URLs)."""
        self.store: Store = store if store is not None else MemoryStore()
        self.clock: Clock = clock if clock is not None else SystemClock()
        self.ids: IdGenerator = ids if ids is not None else UUIDIds()
        self.busy_provider: BusyTimeProvider = (
            busy_provider if busy_provider is not None else NoBusyTime()
        )
        self.calendar_authorizer: CalendarAuthorizer = (
            calendar_authorizer if calendar_authorizer is not None else NoCalendarAuthorizer()
        )
        self.meeting_links: MeetingLinkProvider = (
            meeting_links if meeting_links is not None else NoMeetingLinks()
        )
        if not isinstance(cache_configuration, bool):
            raise InvalidFormat(
                field="cache_configuration", expected="true or false", value=cache_configuration
            )
        self.configuration_cache: ConfigurationCache | None = (
            ConfigurationCache() if cache_configuration else None
        )
        """
        This scheduler's copy of each company's configuration, checked against the store's
        configuration version on every availability read (decision 49).
        """
        self.tokens = TokenOperations(
            self.store,
            self.clock,
            self.ids,
            token_source if token_source is not None else random_token,
            remember_for=token_cache,
        )
        """The API tokens of the HTTP service (decision 39): create, list, revoke, authenticate."""
        self._workspaces: dict[Principal | None, tuple[dict[str, Any], Workspace]] = {}
        self._workspaces_lock = threading.Lock()

    def __repr__(self) -> str:
        return f"Scheduler({self.store!r}, clock={self.clock!r}, ids={self.ids!r})"

    @functools.partial(declared, principal=False)
    def create_company(self, **fields: Unpack[CompanyFields]) -> Company:
        """
        Create a company (spec: POST /setup/v1/companies); see :class:`~slotwise.Company`.

        Raises:
            InvalidTimeZone: when ``timezone`` is not an IANA zone name.
            UnsafeDestination: when a webhook URL is not https or names a refused address
                (decision 47).
        """
        return create_company(
            self.store, self.ids, allow_local_webhooks=self.allow_local_webhooks, **fields
        )

    @functools.partial(declared, principal=False)
    def companies_of_user(self, email: str) -> list[Company]:
        """
        Return the companies a business user belongs to (spec: GET /setup/businessUsers/{email}/companies).
        """
        return companies_of_user(self.store, email)

    @functools.partial(declared, principal=False)
    def as_principal(self, principal: Principal | None) -> Workspace:
        """
        Return the operations available to *principal*.

        Without a principal (``None``) every operation of the workspace raises
        :class:`~slotwise.NotAuthenticated` (decision 37). A workspace holds no state of its
        own, so the same principal gets the same workspace again while the scheduler's
        settings are unchanged.

        Raises:
            NotFound: when the principal's company does not exist, so no operation can write
                records of a company that is not there.
        """
        if principal is not None:
            with self.store.read() as reader:
                if reader.get(Company, principal.company_id) is None:
                    raise NotFound(kind="Company", record_id=principal.company_id)
        return self._workspace(principal)

    @functools.partial(declared, principal=False)
    def for_token(self, token: str) -> Workspace:
        """
        Return the operations available to the principal of the API token *token*.

        The HTTP service's way in: one read of the store (the token's hash). The company is not
        read again as :meth:`as_principal` does: a token is issued only for a company that
        exists, and companies are never deleted.

        Raises:
            NotAuthenticated: when the token is unknown, expired or revoked (decision 39).

        .. versionadded:: 0.1
        """
        return self._workspace(self.tokens.authenticate(token))

    def _workspace(self, principal: Principal | None) -> Workspace:
        # A workspace holds nothing but these and the principal, so one is kept per principal
        # (the HTTP service asks for one per request: 16 operation groups, 17 us on the
        # development machine); a setting changed on the scheduler since makes a new one.
        settings: dict[str, Any] = {
            "store": self.store,
            "clock": self.clock,
            "ids": self.ids,
            "busy_provider": self.busy_provider,
            "calendar_authorizer": self.calendar_authorizer,
            "max_query_days": self.max_query_days,
            "meeting_links": self.meeting_links,
            "configuration": self.configuration_cache,
            "allow_local_webhooks": self.allow_local_webhooks,
        }
        kept = self._workspaces.get(principal)
        if kept is not None and kept[0] == settings:
            return kept[1]
        workspace = Workspace(Context(caller=principal, **settings))
        with self._workspaces_lock:  # operations run on many threads (the HTTP service)
            if len(self._workspaces) >= _WORKSPACES_MOST:
                del self._workspaces[next(iter(self._workspaces))]
            self._workspaces[principal] = (settings, workspace)
        return workspace

    @functools.partial(declared, principal=False)
    def for_company(
        self, company_id: str, *, location_ids: frozenset[str] | None = None
    ) -> Workspace:
        """Shortcut for ``as_principal(Principal(company_id=..., location_ids=...))``."""
        return self.as_principal(Principal(company_id=company_id, location_ids=location_ids))


class Workspace:
    """
    Every setup, catalogue, availability and appointment operation, run for one principal.

    Operations are grouped like the spec's endpoints: ``workspace.locations.create(...)``,
    ``workspace.services.list(...)``.

    .. versionadded:: 0.1
    """

    def __init__(self, context: Context) -> None:
        self.principal = context.caller
        self.company = CompanyOperations(context)
        self.locations = LocationOperations(context)
        self.resources = ResourceOperations(context)
        self.resource_groups = ResourceGroupOperations(context)
        self.calendars = CalendarOperations(context)
        self.services = ServiceOperations(context)
        self.service_groups = ServiceGroupOperations(context)
        self.customers = CustomerOperations(context)
        self.subscriptions = SubscriptionOperations(context)
        self.fields = FieldOperations(context)
        self.geography = GeographyOperations(context)
        self.availability = AvailabilityOperations(context)
        self.appointments = AppointmentOperations(context)
        self.outbox = OutboxOperations(context)
        self.reminders = ReminderOperations(context)

    def __repr__(self) -> str:
        return f"Workspace({self.principal!r})"
