"""Delivery operations: list by status, redeliver, re-enable a URL (decision 38)."""

from __future__ import annotations

from datetime import timedelta

import attrs
import pytest

from slotwise import Unauthorized
from slotwise.model import Company, OutboxEvent
from slotwise.storage.memory import MemoryStore
from tests.boundary._tenant_world import build


@pytest.fixture
def world():
    """Two companies with events (tests/boundary/_tenant_world.py)."""
    return build(MemoryStore)


def _fail(world, event_id: str) -> None:
    with world.scheduler.store.transaction() as tx:
        event = tx.get(OutboxEvent, event_id)
        tx.update(attrs.evolve(event, attempts=8, failed_at=world.scheduler.clock.now()))


class TestDeliveries:
    """ws.outbox.deliveries, ws.outbox.redeliver and ws.company.enable_webhook_url."""

    def test_list_by_status_newest_first(self, world):
        """Pending and failed events are listed apart, newest (highest sequence) first."""
        event_id = world.ids["A"]["event"]
        _fail(world, event_id)
        pending = world.a.outbox.deliveries(status="pending", limit=100).data
        failed = world.a.outbox.deliveries(status="failed").data

        assert [event_id] == [event.id for event in failed]
        assert event_id not in [event.id for event in pending]
        sequences = [event.sequence for event in pending]
        assert sorted(sequences, reverse=True) == sequences

    def test_a_limited_principal_sees_its_locations_only(self, world):
        """The L1 principal lists no L2 event and no company-wide one (decision 37)."""
        listed = world.a_l1.outbox.deliveries(limit=100).data

        assert {world.ids["A"]["location"]} == {event.location_id for event in listed}

    def test_redeliver_makes_a_failed_event_due_now(self, world):
        """A failed event is pending again, attempts reset, due at once; the id is kept."""
        event_id = world.ids["A"]["event"]
        _fail(world, event_id)
        world.scheduler.clock.advance(timedelta(minutes=3))
        again = world.a.outbox.redeliver(event_id)

        assert (event_id, "pending", 0) == (again.id, again.delivery_status, again.attempts)
        assert world.scheduler.clock.now() == again.due_at

    def test_redeliver_another_companys_event_is_unauthorized(self, world):
        """Company B may not redeliver company A's event; nothing changes."""
        before = world.records()

        with pytest.raises(Unauthorized):
            world.b.outbox.redeliver(world.ids["A"]["event"])

        assert before == world.records()

    def test_enable_a_disabled_url(self, world):
        """enable_webhook_url removes the URL from the disabled ones; others stay."""
        company = world.a.company.get()
        gone, other = "https://a.example/hook", "https://b.example/hook"
        with world.scheduler.store.transaction() as tx:
            tx.update(attrs.evolve(company, disabled_webhook_urls=(gone, other)))
        enabled = world.a.company.enable_webhook_url(gone)

        assert (other,) == enabled.disabled_webhook_urls
        with world.scheduler.store.read() as reader:
            assert (other,) == reader.get(Company, company.id).disabled_webhook_urls

    def test_a_limited_principal_cannot_enable(self, world):
        """Re-enabling changes the company: not for a principal limited to locations."""
        with pytest.raises(Unauthorized):
            world.a_l1.company.enable_webhook_url("https://a.example/hook")
