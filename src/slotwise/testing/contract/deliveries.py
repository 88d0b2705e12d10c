"""
Part of :class:`~slotwise.testing.StoreContract`. Claiming events for delivery (decision 38).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from datetime import timedelta
from typing import Any

import attrs

from slotwise.errors import OutOfRange
from slotwise.model import OutboxEvent
from slotwise.storage.protocol import Store
from slotwise.testing.samples import sample_company, sample_outbox_event

from ._base import ContractBase, _Boom, _raises, _run_threads, _shows
from ._world import CO_A, CO_B, _at


def _event(record_id: str, sequence: int, company_id: str = CO_A, **changes: Any) -> OutboxEvent:
    return sample_outbox_event(
        id=record_id,
        company_id=company_id,
        entity_id="apt",
        sequence=sequence,
        **{"delivered_at": None, "created_at": _at(8), **changes},
    )


def _claim(store: Store, owner: str, now_hour: float, limit: int = 100) -> list[str]:
    now = _at(8) + timedelta(hours=now_hour - 8)
    with store.transaction() as tx:
        claimed = tx.claim_deliveries(
            owner=owner, now=now, lease_until=now + timedelta(minutes=5), limit=limit
        )
    return [event.id for event in claimed]


class DeliveryContract(ContractBase):
    """Claiming events for delivery: what is due, in which order, and leases that hold."""

    def test_claim_takes_due_events_oldest_due_first(self) -> None:
        """Due events of every company come by due time then sequence; delivered and failed never."""
        store = self._store(
            sample_company(id=CO_A),
            sample_company(id=CO_B),
            _event("ev-3", 3),
            _event("ev-1", 1, next_attempt_at=_at(9)),
            _event("ev-2", 2, company_id=CO_B),
            _event("ev-4", 4, delivered_at=_at(8)),
            _event("ev-5", 5, failed_at=_at(8)),
            _event("ev-6", 6, next_attempt_at=_at(11)),
        )

        first = _claim(store, "w1", now_hour=10, limit=2)
        rest = _claim(store, "w1", now_hour=10)

        assert ["ev-2", "ev-3"] == first, _shows(["ev-2", "ev-3"], first)
        assert ["ev-1"] == rest, _shows(["ev-1"], rest)

    def test_a_lease_holds_until_it_runs_out(self) -> None:
        """A claimed event is not claimed again while leased; after lease_until it is."""
        store = self._store(sample_company(id=CO_A), _event("ev-1", 1))

        first = _claim(store, "w1", now_hour=8)
        during = _claim(store, "w2", now_hour=8.05)
        after = _claim(store, "w2", now_hour=8.1)
        with store.read() as reader:
            stored = reader.get(OutboxEvent, "ev-1")

        assert (["ev-1"], [], ["ev-1"]) == (first, during, after), _shows(
            (["ev-1"], [], ["ev-1"]), (first, during, after)
        )
        assert stored is not None
        assert ("w2", _at(8) + timedelta(minutes=11)) == (stored.lease_owner, stored.lease_until)

    def test_recorded_outcomes_leave_the_queue(self) -> None:
        """Marked delivered or failed, an event is never claimed; rescheduled, it waits."""
        store = self._store(
            sample_company(id=CO_A), _event("ev-1", 1), _event("ev-2", 2), _event("ev-3", 3)
        )
        _claim(store, "w1", now_hour=8)
        with store.transaction() as tx:
            for event_id, changes in (
                ("ev-1", {"delivered_at": _at(8)}),
                ("ev-2", {"failed_at": _at(8)}),
                ("ev-3", {"next_attempt_at": _at(12), "attempts": 1}),
            ):
                event = tx.get(OutboxEvent, event_id)
                assert event is not None
                tx.update(attrs.evolve(event, lease_owner=None, lease_until=None, **changes))

        soon = _claim(store, "w1", now_hour=9)
        later = _claim(store, "w1", now_hour=12)

        assert ([], ["ev-3"]) == (soon, later), _shows(([], ["ev-3"]), (soon, later))

    def test_a_rolled_back_claim_leases_nothing(self) -> None:
        """A claim inside a unit of work that fails is undone: the events stay claimable."""
        store = self._store(sample_company(id=CO_A), _event("ev-1", 1))
        with _raises(_Boom), store.transaction() as tx:
            tx.claim_deliveries(owner="w1", now=_at(8), lease_until=_at(9), limit=10)
            raise _Boom

        again = _claim(store, "w2", now_hour=8)

        assert ["ev-1"] == again, _shows(["ev-1"], again)

    def test_claim_refuses_a_limit_below_one(self) -> None:
        """limit 0 is OutOfRange."""
        store = self._store(sample_company(id=CO_A))
        with _raises(OutOfRange), store.transaction() as tx:
            tx.claim_deliveries(owner="w1", now=_at(8), lease_until=_at(9), limit=0)

    def test_concurrent_claims_never_share_an_event(self) -> None:
        """Threads claiming at once get disjoint events, and together every due event."""
        events = [_event(f"ev-{n:03}", n) for n in range(1, 61)]
        store = self._store(sample_company(id=CO_A), *events)
        threads = min(self.thread_count, 6)
        barrier = threading.Barrier(threads, timeout=self.thread_timeout)
        taken: list[list[str]] = [[] for _ in range(threads)]

        def claimer(number: int) -> Callable[[], None]:
            def run() -> None:
                barrier.wait()
                while True:
                    got = _claim(store, f"w{number}", now_hour=8, limit=4)
                    if not got:
                        return
                    taken[number].extend(got)

            return run

        _run_threads([claimer(n) for n in range(threads)], timeout=self.thread_timeout)
        every = [event_id for mine in taken for event_id in mine]

        assert len(every) == len(set(every)), "an event was claimed twice while leased"
        assert sorted(every) == [event.id for event in events], _shows(60, len(every))
