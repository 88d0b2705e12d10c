"""External calendar authorization through the host's CalendarAuthorizer plugin."""

from __future__ import annotations

import pytest

from slotwise import (
    Company,
    InvalidChoice,
    InvalidFormat,
    ProviderNotConfigured,
    Resource,
    Scheduler,
    StateError,
)
from slotwise.storage.memory import MemoryStore
from slotwise.testing import ManualClock, SequentialIds


class RecordingAuthorizer:
    """Returns a predictable link and records what it was asked."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, str, str, str | None]] = []

    def authorization_url(
        self, *, resource: Resource, provider: str, email: str, return_url: str | None
    ) -> str:
        """Return a fake provider link naming the resource."""
        self.calls.append((resource.id, provider, email, return_url))
        return f"https://auth.example.com/{provider}/{resource.id}"


@pytest.fixture
def authorizer() -> RecordingAuthorizer:
    """A recording authorizer."""
    return RecordingAuthorizer()


@pytest.fixture
def connected(clock: ManualClock, authorizer: RecordingAuthorizer):
    """A workspace whose scheduler has the authorizer, and one resource."""
    scheduler = Scheduler(
        MemoryStore(), clock=clock, ids=SequentialIds(), calendar_authorizer=authorizer
    )
    company: Company = scheduler.create_company(name="Acme", timezone="Europe/London")
    ws = scheduler.for_company(company.id)
    ws.locations.create(name="Soho")
    resource = ws.resources.create(name="Ana", reason="staff")
    return ws, resource


class TestAuthorizeCalendar:
    def test_stores_the_plugin_link_and_waits_for_the_callback(self, connected, authorizer):
        """Starting authorization stores the plugin's link; authorized turns true on completion."""
        ws, resource = connected

        started = ws.resources.authorize_calendar(
            resource.id, "A", "ana@example.com", return_url="https://app.example.com/back"
        )
        done = ws.resources.complete_calendar_authorization(resource.id, "A")

        assert started.provider_a.auth_url == f"https://auth.example.com/A/{resource.id}"
        assert (started.provider_a.calendar_id, started.provider_a.authorized) == (
            "ana@example.com",
            False,
        )
        assert done.provider_a.authorized
        assert done.provider_b == resource.provider_b
        assert authorizer.calls == [
            (resource.id, "A", "ana@example.com", "https://app.example.com/back")
        ]

    def test_provider_must_be_a_or_b(self, connected):
        """Only providers A and B exist."""
        ws, resource = connected

        with pytest.raises(InvalidChoice):
            ws.resources.authorize_calendar(resource.id, "C", "ana@example.com")  # type: ignore[arg-type]

    def test_bad_email_changes_nothing(self, connected):
        """An invalid calendar account is refused and the resource is unchanged."""
        ws, resource = connected

        with pytest.raises(InvalidFormat):
            ws.resources.authorize_calendar(resource.id, "B", "not-an-email")

        assert ws.resources.get(resource.id) == resource

    def test_completion_needs_a_started_flow(self, connected):
        """Completing an authorization that never started is refused."""
        ws, resource = connected

        with pytest.raises(StateError):
            ws.resources.complete_calendar_authorization(resource.id, "B")

    def test_without_a_plugin_the_call_says_what_is_missing(self, ws, location):
        """With no authorizer configured the call raises ProviderNotConfigured (HTTP 501)."""
        resource = ws.resources.create(name="Ben", reason="staff")

        with pytest.raises(ProviderNotConfigured) as info:
            ws.resources.authorize_calendar(resource.id, "A", "ben@example.com")

        assert info.value.http_status == 501
        assert ws.resources.get(resource.id) == resource
