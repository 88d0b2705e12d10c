"""
External calendar authorization: the seam where a host application plugs in its provider's
OAuth flow (spec: GET /setup/v1/resources/{id}/calendar/auth/providerA|providerB/{emailAddress}).

slotwise keeps the resource's provider fields (``calendar_id``, ``auth_return_url``,
``auth_url``, ``authorized``); the host's :class:`CalendarAuthorizer` makes the authorization
link and, when the provider calls back, the host reports success with
``workspace.resources.complete_calendar_authorization``.
"""

from __future__ import annotations

from typing import Literal, Protocol

from slotwise.errors import ProviderNotConfigured
from slotwise.model import Resource

__all__ = ["CalendarAuthorizer", "CalendarProviderName", "NoCalendarAuthorizer"]

CalendarProviderName = Literal["A", "B"]
"""The two supported external calendar providers (spec: provider A and provider B)."""


class CalendarAuthorizer(Protocol):
    """
    Makes the authorization link of an external calendar provider.

    .. versionadded:: 0.1
    """

    def authorization_url(
        self,
        *,
        resource: Resource,
        provider: CalendarProviderName,
        email: str,
        return_url: str | None,
    ) -> str:
        """
        Return the http(s) URL the resource's owner opens to grant calendar access.

        Args:
            resource: the resource being connected.
            provider: ``"A"`` or ``"B"``.
            email: the calendar account to connect.
            return_url: where the provider should send the user back, as the caller gave it.
        """
        ...


class NoCalendarAuthorizer:
    """
    The default: no provider is configured, so authorization raises ``ProviderNotConfigured``.

    .. versionadded:: 0.1
    """

    def authorization_url(
        self,
        *,
        resource: Resource,
        provider: CalendarProviderName,
        email: str,
        return_url: str | None,
    ) -> str:
        """Refuse: the host application passed no authorizer to ``Scheduler``."""
        raise ProviderNotConfigured(provider=provider)

    def __repr__(self) -> str:
        return "NoCalendarAuthorizer()"
