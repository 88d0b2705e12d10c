"""
Company operations: create (platform level), get and update (webhook URLs included).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Required, TypedDict, Unpack

import attrs

from slotwise.clock import IdGenerator
from slotwise.model import Company
from slotwise.operations._boundary import operations
from slotwise.operations._context import Context
from slotwise.storage.protocol import Store

__all__ = ["CompanyChanges", "CompanyFields", "CompanyOperations", "create_company"]


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


def create_company(store: Store, ids: IdGenerator, /, **fields: Unpack[CompanyFields]) -> Company:
    """
    Create a company (spec: POST /setup/v1/companies).

    Raises:
        InvalidTimeZone: when ``timezone`` is missing or not an IANA name.
        ValidationError: for any other invalid field.
    """
    company = Company(id=ids.new_id(), **fields)
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
        with self._ctx.store.read() as reader:
            return self._ctx.owned(reader, Company, self._ctx.company_id, field="company_id")

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

        Raises:
            ValidationError: for an invalid field; nothing is changed.
            Unauthorized: when the principal is limited to some locations (decision 37).
        """
        ctx = self._ctx
        with ctx.store.transaction() as tx:
            company = ctx.owned(tx, Company, ctx.company_id, field="company_id", change=True)
            updated = attrs.evolve(company, **changes)
            tx.update(updated)
        return updated
