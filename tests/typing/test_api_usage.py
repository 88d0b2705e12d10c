"""The public API used as a user would, type-checked by `mypy --strict tests/typing` in CI."""

from __future__ import annotations

from collections.abc import Collection
from contextlib import AbstractContextManager
from datetime import UTC, datetime

import pytest

import slotwise
from slotwise import MemoryStore, Reader, Scheduler, Store, Transaction
from slotwise.testing import ManualClock, SequentialIds, SequentialTokens


class MyHostStore:
    """A host application's store: conforms to the Store protocol structurally."""

    def __init__(self) -> None:
        self._inner = MemoryStore()

    def read(self) -> AbstractContextManager[Reader]:
        """Delegate reads."""
        return self._inner.read()

    def transaction(self, *, locks: Collection[str] = ()) -> AbstractContextManager[Transaction]:
        """Delegate units of work."""
        return self._inner.transaction(locks=locks)


def test_public_api_round_trip() -> None:
    """A host store, a manual clock and sequential ids drive a small setup."""
    store: Store = MyHostStore()
    default: Store = MemoryStore()
    scheduler = Scheduler(
        store, clock=ManualClock(datetime(2026, 1, 1, tzinfo=UTC)), ids=SequentialIds()
    )
    company = scheduler.create_company(name="Typed Co", timezone="Europe/Amsterdam")
    workspace = scheduler.for_company(company.id)
    location: slotwise.Location = workspace.locations.create(name="Centrum")
    page: slotwise.Page[slotwise.Location] = workspace.locations.list(name="cent")

    assert default is not store
    assert [location] == list(page.data)


def test_boundary_api() -> None:
    """make_primary, a workspace without a principal and the boundary's errors type-check."""
    scheduler = Scheduler(clock=ManualClock(datetime(2026, 1, 1, tzinfo=UTC)), ids=SequentialIds())
    company = scheduler.create_company(name="Typed Co", timezone="UTC")
    workspace = scheduler.for_company(company.id)
    workspace.locations.create(name="First")
    second = workspace.locations.create(name="Second")
    primary: slotwise.Location = workspace.locations.make_primary(second.id)
    refused: type[slotwise.ValidationError] = slotwise.UnexpectedField
    nobody = scheduler.as_principal(None)
    with pytest.raises(slotwise.NotAuthenticated):
        nobody.company.get()

    assert primary.is_primary
    assert issubclass(refused, slotwise.SlotwiseError)


def test_slots_api() -> None:
    """An answer's slots: a sequence of Slot records, slices, columns and rows type-check."""
    scheduler = Scheduler(clock=ManualClock(datetime(2026, 1, 1, tzinfo=UTC)), ids=SequentialIds())
    company = scheduler.create_company(name="Typed Co", timezone="UTC")
    workspace = scheduler.for_company(company.id)
    workspace.locations.create(name="Centrum")
    service = workspace.services.create(name="Cut", duration=60, reason="typed")
    workspace.resources.create(name="Ana", reason="typed", linked_service_ids=[service.id])
    week = workspace.availability.times(service.id, "2026-01-05", "2026-01-09")
    slots: slotwise.Slots = week.available_times
    first: slotwise.Slot = slots[0]
    later: slotwise.Slots = slots[1:]
    starts: list[datetime] = [slot.start for slot in slots]
    column: list[object] = slots.column("start")
    rows: list[dict[str, object]] = slots.records()

    assert (first.start, len(later) + 1, column) == (starts[0], len(slots), starts)
    assert rows[0]["start"] == first.start
    assert set(slots.columns("start")) == {"start"}


def test_token_api() -> None:
    """API tokens issue, authenticate and revoke with their public types."""
    scheduler = Scheduler(
        clock=ManualClock(datetime(2026, 1, 1, tzinfo=UTC)), token_source=SequentialTokens()
    )
    company = scheduler.create_company(name="Token Co", timezone="UTC")
    issued: slotwise.IssuedToken = scheduler.tokens.create(
        slotwise.Principal(company_id=company.id), label="desk"
    )
    principal: slotwise.Principal = scheduler.tokens.authenticate(issued.token)
    revoked: slotwise.ApiToken = scheduler.tokens.revoke(issued.record.id)

    assert principal.company_id == company.id
    assert revoked.revoked_at is not None


def test_webhook_api() -> None:
    """The development setting, a minute reminder and a receiver's verify type-check."""
    from slotwise.webhooks import signature_headers, verify

    scheduler = Scheduler(allow_local_webhooks=True)
    company = scheduler.create_company(
        name="Hook Co", timezone="UTC", booking_webhook_url="http://127.0.0.1:8080/hook"
    )
    reminder = slotwise.Reminder(unit="minutes", value=30)
    key = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
    body = b"{}"
    headers = signature_headers(body, key, message_id="evt", timestamp=datetime.now(UTC))
    verify(body, headers, key)
    verify(body, {"X-Message-Signature": headers["X-Message-Signature"]}, key, legacy=True)

    assert company.booking_webhook_url is not None
    assert 30 == reminder.lead_minutes


def test_calendar_api() -> None:
    """An .ics busy-time provider plugs into the scheduler; its policy and failures are typed."""
    from slotwise.ics import IcsBusyTime, Unreadable, export_resource

    policy: Unreadable = "busy"
    busy = IcsBusyTime({}, unreadable=policy)
    provider: slotwise.BusyTimeProvider = busy
    scheduler = Scheduler(
        clock=ManualClock(datetime(2026, 1, 1, tzinfo=UTC)), busy_provider=provider
    )
    company = scheduler.create_company(name="Feed Co", timezone="UTC")
    workspace = scheduler.for_company(company.id)
    workspace.locations.create(name="Main")
    resource = workspace.resources.create(name="Ana", reason="r")
    busy.sources[resource.id] = export_resource(workspace, resource.id)
    failures: dict[str, slotwise.CalendarUnreadable] = busy.failures

    assert {} == failures


def test_replica_api() -> None:
    """Lag-tolerant reads and consistency tokens type-check on any store (decision 50)."""
    from slotwise.storage.replicas import Consistency, consistent_with, lagging_read

    store: Store = MyHostStore()
    session: Consistency
    with consistent_with(None) as session:
        found: slotwise.Company | None = lagging_read(
            store, lambda reader: reader.get(slotwise.Company, "none")
        )
    token: str | None = session.token

    assert (None, None) == (found, token)


def test_hours_take_one_window_per_day() -> None:
    """WeeklyHours and BusinessHours take a day's record or a mapping; mypy refuses a list."""
    window = slotwise.DayWindow(start_time=900, end_time=1700)
    hours = slotwise.WeeklyHours(mon=window, tue={"start_time": 1000, "end_time": 1600})
    business = slotwise.BusinessHours(
        mon=slotwise.DayHours(is_open=True, start_time=800, end_time=1800),
        tue={"is_open": True, "start_time": 900, "end_time": 1700},
    )
    with pytest.raises(slotwise.InvalidFormat):
        slotwise.WeeklyHours(mon=[window])  # type: ignore[arg-type]
    with pytest.raises(slotwise.InvalidFormat):
        slotwise.BusinessHours(mon=[business.mon])  # type: ignore[arg-type]

    assert (window, 1600) == (hours.mon, hours.tue.end_time)
    assert 1700 == business.tue.end_time
