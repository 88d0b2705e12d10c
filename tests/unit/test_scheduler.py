"""The entry object: defaults, companies, principals."""

from __future__ import annotations

import pytest

from slotwise import (
    InvalidTimeZone,
    MemoryStore,
    Principal,
    Scheduler,
    SystemClock,
    UUIDIds,
    Workspace,
)
from slotwise.errors import FieldRequired, InvalidFormat


class TestDefaults:
    def test_defaults_are_memory_system_clock_and_uuids(self):
        """Scheduler() runs on a MemoryStore with the system clock and random UUIDs."""
        scheduler = Scheduler()

        assert isinstance(scheduler.store, MemoryStore)
        assert isinstance(scheduler.clock, SystemClock)
        assert isinstance(scheduler.ids, UUIDIds)
        assert len(scheduler.ids.new_id()) == 32


class TestCompanies:
    def test_create_and_update_webhooks(self, scheduler: Scheduler):
        """A company is created with an IANA zone and updated with webhook URLs."""
        company = scheduler.create_company(name="Acme", timezone="Europe/London")
        ws = scheduler.for_company(company.id)

        updated = ws.company.update(
            booking_webhook_url="https://hooks.example.com/booking",
            customer_webhook_url="https://hooks.example.com/customer",
            reminder_webhook_url="https://hooks.example.com/reminder",
            webhook_signature_hash="secret",
            notifications_disabled=True,
        )

        assert updated == ws.company.get()
        assert updated.booking_webhook_url == "https://hooks.example.com/booking"
        assert updated.notifications_disabled

    def test_time_zone_is_required_and_iana(self, scheduler: Scheduler):
        """Company create and update refuse names that are not IANA zones (spec: Errors 7)."""
        with pytest.raises(InvalidTimeZone):
            scheduler.create_company(name="Acme", timezone="Mars/Olympus")
        company = scheduler.create_company(name="Acme", timezone="Asia/Kathmandu")
        with pytest.raises(InvalidTimeZone):
            scheduler.for_company(company.id).company.update(timezone="GMT+5")

        assert scheduler.for_company(company.id).company.get().timezone == "Asia/Kathmandu"

    def test_bad_webhook_url_changes_nothing(self, scheduler: Scheduler):
        """An invalid webhook URL is refused and the company keeps its old values."""
        company = scheduler.create_company(name="Acme", timezone="UTC")
        ws = scheduler.for_company(company.id)
        with pytest.raises(InvalidFormat):
            ws.company.update(booking_webhook_url="ftp://nope")

        assert ws.company.get() == company

    def test_companies_of_business_user(self, scheduler: Scheduler):
        """Companies are found by a business user's e-mail, ignoring case."""
        first = scheduler.create_company(
            name="A", timezone="UTC", business_user_emails=["Owner@Example.com"]
        )
        scheduler.create_company(name="B", timezone="UTC")

        assert scheduler.companies_of_user("owner@example.com") == [first]


class TestPrincipals:
    def test_workspace_runs_for_its_principal(self, scheduler: Scheduler):
        """as_principal() and for_company() give workspaces bound to that principal."""
        company = scheduler.create_company(name="C", timezone="UTC")
        principal = Principal(company_id=company.id, location_ids=["l1"])

        workspace = scheduler.as_principal(principal)

        assert isinstance(workspace, Workspace)
        assert workspace.principal == Principal(
            company_id=company.id, location_ids=frozenset({"l1"})
        )

    def test_a_workspace_is_kept_per_principal(self, scheduler: Scheduler):
        """The same principal gets the same workspace again; another principal its own."""
        company = scheduler.create_company(name="C", timezone="UTC")
        whole = Principal(company_id=company.id)

        first = scheduler.as_principal(whole)

        assert first is scheduler.as_principal(Principal(company_id=company.id))
        assert first is not scheduler.as_principal(
            Principal(company_id=company.id, location_ids=["l1"])
        )

    def test_a_changed_setting_makes_a_new_workspace(self, scheduler: Scheduler):
        """A workspace made before a setting of the scheduler changed is not given again."""
        company = scheduler.create_company(name="C", timezone="UTC")
        principal = Principal(company_id=company.id)
        before = scheduler.as_principal(principal)

        scheduler.max_query_days = 30
        after = scheduler.as_principal(principal)

        assert before is not after
        assert 30 == after.availability._ctx.max_query_days

    def test_principal_needs_a_company(self):
        """A principal without a company id is refused."""
        with pytest.raises(FieldRequired):
            Principal(company_id="")
