"""
Connecting a resource's external calendar (providers A and B): the host's authorizer makes the
link, the host's OAuth callback completes it (a part of ``ResourceOperations``).
"""

from __future__ import annotations

import attrs

from slotwise.availability.authorization import CalendarProviderName
from slotwise.errors import InvalidChoice, StateError
from slotwise.model import CalendarProvider, Resource, Trigger
from slotwise.operations._boundary import operations

from ._resource_access import ResourceAccess, resource_event

__all__ = ["ResourceCalendarOperations"]


@operations
class ResourceCalendarOperations(ResourceAccess):
    """External calendar authorization of the principal's resources."""

    # -- external calendar authorization ------------------------------------------------------

    def authorize_calendar(
        self,
        resource_id: str,
        /,
        provider: CalendarProviderName,
        email: str,
        *,
        return_url: str | None = None,
    ) -> Resource:
        """
        Start connecting a resource's external calendar.

        Spec: GET /setup/v1/resources/{id}/calendar/auth/providerA|providerB/{emailAddress}.
        The host's ``calendar_authorizer`` makes the authorization link, stored as the provider's
        ``auth_url`` with ``calendar_id`` = *email*, ``auth_return_url`` = *return_url* and
        ``authorized`` false until :meth:`complete_calendar_authorization`.

        Raises:
            InvalidChoice: when *provider* is not ``"A"`` or ``"B"``.
            InvalidFormat: when *email*, *return_url* or the authorizer's link is malformed.
            ProviderNotConfigured: when the scheduler has no calendar authorizer.
            ResourceDeleted: when the resource is soft-deleted.
        """
        field = _provider_field(provider)
        ctx = self._ctx
        with ctx.store.transaction() as tx:
            resource = self._live(tx, resource_id)
            pending = CalendarProvider(calendar_id=email, auth_return_url=return_url)
            link = ctx.calendar_authorizer.authorization_url(
                resource=resource, provider=provider, email=email, return_url=return_url
            )
            updated = _with_provider(
                resource, field, attrs.evolve(pending, auth_url=link, authorized=False)
            )
            tx.update(updated)
            resource_event(ctx, tx, updated, Trigger.RESOURCE_UPDATED)
        return updated

    def complete_calendar_authorization(
        self, resource_id: str, /, provider: CalendarProviderName
    ) -> Resource:
        """
        Record that the provider granted access (the host calls this from its OAuth callback).

        Raises:
            StateError: when authorization was never started for that provider.
        """
        field = _provider_field(provider)
        ctx = self._ctx
        with ctx.store.transaction() as tx:
            resource = self._live(tx, resource_id)
            current: CalendarProvider = getattr(resource, field)
            if current.auth_url is None:
                raise StateError(
                    f"calendar authorization for provider {provider} was not started on "
                    f"resource {resource_id!r}"
                )
            updated = _with_provider(resource, field, attrs.evolve(current, authorized=True))
            tx.update(updated)
            resource_event(ctx, tx, updated, Trigger.RESOURCE_UPDATED)
        return updated


def _provider_field(provider: object) -> str:
    if provider == "A":
        return "provider_a"
    if provider == "B":
        return "provider_b"
    raise InvalidChoice(field="provider", allowed=("A", "B"), requested=provider)


def _with_provider(resource: Resource, field: str, value: CalendarProvider) -> Resource:
    if field == "provider_a":
        return attrs.evolve(resource, provider_a=value)
    return attrs.evolve(resource, provider_b=value)
