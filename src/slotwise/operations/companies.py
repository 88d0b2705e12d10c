"""
Company operations: create (platform level), get and update (webhook URLs included).
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import Final, Required, TypedDict, Unpack

import attrs

from slotwise.clock import IdGenerator
from slotwise.model import Company
from slotwise.operations._boundary import operations
from slotwise.operations._context import Context
from slotwise.rules.destinations import check_webhook_url
from slotwise.rules.signing_keys import check_signing_key
from slotwise.storage.protocol import Store

from ._partial import resolved

__all__ = [
    "WEBHOOK_URL_FIELDS",
    "CompanyChanges",
    "CompanyFields",
    "CompanyOperations",
    "check_webhook_settings",
    "create_company",
]


class _CompanyCommon(TypedDict, total=False):
    email: str | None
    phone: str | None
    website: str | None
    booking_webhook_url: str | None
    customer_webhook_url: str | None
    reminder_webhook_url: str | None
    meeting_webhook_url: str | None
    webhook_signature_hash: str | None
    notifications_disabled: bool
    business_user_emails: Sequence[str]


class CompanyFields(_CompanyCommon, total=False):
    """Fields of a new company: ``name`` and ``timezone`` are required."""

    name: Required[str]
    timezone: Required[str]


class CompanyChanges(_CompanyCommon, total=False):
    """Fields a company update may change."""

    name: str
    timezone: str


WEBHOOK_URL_FIELDS: Final = (
    "booking_webhook_url",
    "customer_webhook_url",
    "reminder_webhook_url",
    "meeting_webhook_url",
)
"""The company's fields that slotwise posts to (decision 47 checks them when they are set)."""


def check_webhook_settings(
    company: Company, changed: Collection[str], *, allow_local_webhooks: bool
) -> None:
    """
    Refuse webhook URLs among the *changed* fields that may not receive deliveries, and a
    ``whsec_`` signing key that is not base64 (decision 47).

    Only the fields being set are checked: a URL stored before the check existed does not block
    an unrelated change (the send-time check still refuses it).

    Raises:
        UnsafeDestination: naming the URL's field.
        InvalidFormat: naming ``webhook_signature_hash``.
    """
    for name in WEBHOOK_URL_FIELDS:
        url = getattr(company, name)
        if name in changed and url is not None:
            check_webhook_url(url, field=name, allow_local=allow_local_webhooks)
    if "webhook_signature_hash" in changed:
        check_signing_key(company.webhook_signature_hash, field="webhook_signature_hash")


def create_company(
    store: Store,
    ids: IdGenerator,
    /,
    *,
    allow_local_webhooks: bool = False,
    **fields: Unpack[CompanyFields],
) -> Company:
    """
    Create a company (spec: POST /setup/v1/companies).

    Args:
        allow_local_webhooks: the development setting of decision 47 (http and loopback URLs).

    Raises:
        InvalidTimeZone: when ``timezone`` is missing or not an IANA name.
        UnsafeDestination: when a webhook URL may not receive deliveries (decision 47).
        ValidationError: for any other invalid field.
    """
    company = Company(id=ids.new_id(), **fields)
    check_webhook_settings(company, fields.keys(), allow_local_webhooks=allow_local_webhooks)
    with store.transaction() as tx:
        tx.insert(company)
    return company


def companies_of_user(store: Store, email: str) -> list[Company]:
    """Return the companies whose business users include *email* (case-insensitive)."""
    wanted = email.strip().lower()
    with store.read() as reader:
        return [
            company
            for company in reader.find(Company, company_id=None)
            if any(user.lower() == wanted for user in company.business_user_emails)
        ]


@operations
@attrs.frozen
class CompanyOperations:
    """
    The principal's own company.

    .. versionadded:: 0.1
    """

    _ctx: Context

    def get(self) -> Company:
        """Return the principal's company."""
        return self._ctx.configured_read(
            lambda reader: self._ctx.owned(
                reader, Company, self._ctx.company_id, field="company_id"
            )
        )

    def of_business_user(self, email: str, /) -> list[Company]:
        """
        Return the principal's company when *email* is one of its business users, else nothing.

        The principal-scoped form of :meth:`slotwise.Scheduler.companies_of_user` (spec: GET
        /setup/businessUsers/{email}/companies): a caller learns nothing about other companies.

        .. versionadded:: 0.1
        """
        wanted = email.strip().lower()
        company = self.get()
        if any(user.lower() == wanted for user in company.business_user_emails):
            return [company]
        return []

    def enable_webhook_url(self, url: str, /) -> Company:
        """
        Send webhooks to *url* again after it answered 410 Gone (decision 38).

        Events that failed because of it stay failed: redeliver them by call
        (``workspace.outbox.redeliver``). A URL that is not disabled changes nothing.

        Raises:
            Unauthorized: when the principal is limited to some locations (decision 37).

        .. versionadded:: 0.1
        """
        ctx = self._ctx
        with ctx.store.transaction() as tx:
            company = ctx.owned(tx, Company, ctx.company_id, field="company_id", change=True)
            if url not in company.disabled_webhook_urls:
                return company
            remaining = tuple(u for u in company.disabled_webhook_urls if u != url)
            updated = attrs.evolve(company, disabled_webhook_urls=remaining)
            tx.update(updated)
        return updated

    def update(self, **changes: Unpack[CompanyChanges]) -> Company:
        """
        Change fields of the company, webhook URLs included (spec: PUT /setup/v1/company/{id}).

        A webhook URL must be ``https`` and may not name a loopback, private, link-local,
        multicast or reserved address (decision 47; the scheduler's ``allow_local_webhooks``
        allows ``http`` and loopback).

        Raises:
            UnsafeDestination: when a webhook URL may not receive deliveries; nothing is changed.
            ValidationError: for an invalid field; nothing is changed.
            Unauthorized: when the principal is limited to some locations (decision 37).
        """
        ctx = self._ctx
        with ctx.store.transaction() as tx:
            company = ctx.owned(tx, Company, ctx.company_id, field="company_id", change=True)
            updated = attrs.evolve(company, **resolved(company, changes))
            check_webhook_settings(
                updated, changes.keys(), allow_local_webhooks=ctx.allow_local_webhooks
            )
            tx.update(updated)
        return updated
