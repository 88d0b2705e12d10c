"""
Part of :class:`~slotwise.testing.StoreContract`. The feeds: event sequence numbers, undelivered events, due reminders, reminders and audit.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Collection
from datetime import datetime
from typing import Any

from slotwise.errors import OutOfRange
from slotwise.model import (
    Appointment,
    OutboxEvent,
    QueuedReminder,
)
from slotwise.testing.samples import (
    sample_audit_entry,
    sample_company,
    sample_outbox_event,
    sample_queued_reminder,
)

from ._base import (
    ContractBase,
    _Boom,
    _insert,
    _raises,
    _run_threads,
    _shows,
)
from ._world import (
    _COMPANY_OF,
    CO_A,
    CO_B,
    LOC_A1,
    LOC_A2,
    LOC_B1,
    _appointment,
    _at,
    _bare_world,
)


class FeedContract(ContractBase):
    """The feeds: event sequence numbers, undelivered events, due reminders, reminders and audit."""

    # -- outbox, reminders, audit ----------------------------------------------------------

    def test_next_sequence_strictly_increases_and_is_never_reused(self) -> None:
        """next_sequence() gives numbers >= 1 that only go up, rolled-back units of work included."""
        store = self._store(sample_company(id=CO_A))
        numbers: list[int] = []

        with store.transaction() as tx:
            numbers += [tx.next_sequence(), tx.next_sequence()]
        with _raises(_Boom), store.transaction() as tx:
            numbers.append(tx.next_sequence())
            raise _Boom
        with store.transaction() as tx:
            numbers.append(tx.next_sequence())

        assert numbers[0] >= 1, _shows(">= 1", numbers[0])
        assert numbers == sorted(set(numbers)), f"not strictly increasing: {numbers}"

    def test_next_sequence_is_unique_across_threads(self) -> None:
        """Threads drawing sequence numbers at once never get the same number twice."""
        store = self._store(sample_company(id=CO_A))
        threads, rounds = self.thread_count, self.increments_per_thread
        barrier = threading.Barrier(threads, timeout=self.thread_timeout)
        drawn: list[list[int]] = [[] for _ in range(threads)]

        def draw(mine: list[int]) -> Callable[[], None]:
            def run() -> None:
                barrier.wait()
                for _ in range(rounds):
                    with store.transaction(locks=("outbox",)) as tx:
                        mine.append(tx.next_sequence())

            return run

        _run_threads([draw(mine) for mine in drawn], timeout=self.thread_timeout)

        everything = [number for mine in drawn for number in mine]
        assert len(everything) == len(set(everything)), "a sequence number was handed out twice"
        for mine in drawn:
            assert mine == sorted(mine), f"one thread's numbers went down: {mine}"

    def test_undelivered_events_by_sequence(self) -> None:
        """Undelivered events come by sequence (not insert order), per company or all, up to limit."""

        def event(record_id: str, sequence: int, company_id: str = CO_A, **changes: Any) -> Any:
            return sample_outbox_event(
                id=record_id,
                company_id=company_id,
                entity_id="apt",
                sequence=sequence,
                **{"delivered_at": None, **changes},
            )

        delivered = _at(12)
        store = self._store(
            sample_company(id=CO_A),
            sample_company(id=CO_B),
            event("ev-3", 3),
            event("ev-1", 1),
            event("ev-2", 2, company_id=CO_B),
            event("ev-4", 4, delivered_at=delivered),
            event("ev-5", 5),
        )

        def undelivered(company_id: str | None, limit: int = 100) -> list[str]:
            with store.read() as reader:
                found = reader.undelivered_events(company_id=company_id, limit=limit)
            return [record.id for record in found]

        seen = (undelivered(CO_A), undelivered(None), undelivered(None, limit=2), undelivered(CO_B))
        with store.transaction() as tx:
            tx.update(event("ev-1", 1, delivered_at=delivered))
            tx.update(event("ev-4", 4))
            tx.delete(OutboxEvent, "ev-5")
        after = undelivered(CO_A)

        expected = (
            ["ev-1", "ev-3", "ev-5"],
            ["ev-1", "ev-2", "ev-3", "ev-5"],
            ["ev-1", "ev-2"],
            ["ev-2"],
        )
        assert expected == seen, _shows(expected, seen)
        assert ["ev-3", "ev-4"] == after, _shows(["ev-3", "ev-4"], after)
        with _raises(OutOfRange), store.read() as reader:
            reader.undelivered_events(company_id=None, limit=0)

    def test_reminders_due_boundary_order_company_and_limit(self) -> None:
        """Unsent reminders due at or before the instant, by due time then id, up to limit."""

        def reminder(
            record_id: str, due: datetime, location_id: str = LOC_A1, **changes: Any
        ) -> QueuedReminder:
            return sample_queued_reminder(
                id=record_id,
                company_id=_COMPANY_OF[location_id],
                location_id=location_id,
                appointment_id="apt",
                due_at=due,
                **{"sent_at": None, **changes},
            )

        store = self._store(
            *_bare_world(),
            _appointment("apt", _at(15), _at(16)),
            reminder("r-late", _at(10, 1)),
            reminder("r-b", _at(10)),
            reminder("r-a", _at(10)),
            reminder("r-sent", _at(8), sent_at=_at(8)),
            reminder("r-early", _at(9)),
            reminder("r-other", _at(9, 30), location_id=LOC_B1),
        )

        def due(company_id: str | None, before: datetime, limit: int = 100) -> list[str]:
            with store.read() as reader:
                found = reader.reminders_due(company_id=company_id, before=before, limit=limit)
            return [record.id for record in found]

        seen = (
            due(CO_A, _at(10)),
            due(CO_A, _at(9, 59)),
            due(None, _at(10)),
            due(None, _at(23), limit=2),
            due(CO_B, _at(23)),
        )
        with store.transaction() as tx:
            tx.update(reminder("r-a", _at(10), sent_at=_at(10)))
            tx.update(reminder("r-late", _at(8)))
            tx.delete(QueuedReminder, "r-early")
        after = due(CO_A, _at(10))

        expected = (
            ["r-early", "r-a", "r-b"],
            ["r-early"],
            ["r-early", "r-other", "r-a", "r-b"],
            ["r-early", "r-other"],
            ["r-other"],
        )
        assert expected == seen, _shows(expected, seen)
        assert ["r-late", "r-b"] == after, _shows(["r-late", "r-b"], after)
        with _raises(OutOfRange), store.read() as reader:
            reader.reminders_due(company_id=None, before=_at(10), limit=0)

    def test_reminders_and_audit_of_an_appointment_in_creation_order(self) -> None:
        """reminders_of() and audit_of() list one appointment's records in creation order."""
        where: dict[str, Any] = {"company_id": CO_A, "location_id": LOC_A1}
        store = self._store(
            *_bare_world(),
            _appointment("apt-1", _at(15), _at(16)),
            _appointment("apt-2", _at(15), _at(16)),
            sample_queued_reminder(id="rem-z", appointment_id="apt-1", **where),
            sample_queued_reminder(id="rem-a", appointment_id="apt-1", **where),
            sample_queued_reminder(id="rem-x", appointment_id="apt-2", **where),
            sample_audit_entry(id="aud-z", appointment_id="apt-1", **where),
            sample_audit_entry(id="aud-x", appointment_id="apt-2", **where),
            sample_audit_entry(id="aud-a", appointment_id="apt-1", **where),
        )
        _insert(store, sample_queued_reminder(id="rem-m", appointment_id="apt-1", **where))

        def listed() -> tuple[list[str], list[str], list[str]]:
            with store.read() as reader:
                return (
                    [record.id for record in reader.reminders_of("apt-1")],
                    [record.id for record in reader.audit_of("apt-1")],
                    [record.id for record in reader.audit_of("apt-missing")],
                )

        before = listed()
        with store.transaction() as tx:
            tx.delete(QueuedReminder, "rem-a")
            tx.update(
                sample_queued_reminder(id="rem-z", appointment_id="apt-1", ordinal=1, **where)
            )
        # Audit entries outlive their appointment (a deleted hold keeps its history).
        with store.transaction() as tx:
            for reminder in ("rem-z", "rem-m"):
                tx.delete(QueuedReminder, reminder)
            tx.delete(Appointment, "apt-1")
        after = listed()

        expected_before: object = (["rem-z", "rem-a", "rem-m"], ["aud-z", "aud-a"], [])
        assert expected_before == before, _shows(expected_before, before)
        assert ([], ["aud-z", "aud-a"], []) == after, _shows(([], ["aud-z", "aud-a"], []), after)


class LocatedFeedContract(ContractBase):
    """The feeds filtered by location: events and reminders of some locations only (decision 37)."""

    def test_undelivered_events_by_location(self) -> None:
        """location_ids keeps those locations' events (never company-wide ones) before the limit."""

        def event(record_id: str, sequence: int, location_id: str | None, **changes: Any) -> Any:
            company_id = CO_A if location_id is None else _COMPANY_OF[location_id]
            return sample_outbox_event(
                id=record_id,
                company_id=company_id,
                location_id=location_id,
                entity_id="apt",
                sequence=sequence,
                **{"delivered_at": None, **changes},
            )

        store = self._store(
            *_bare_world(),
            event("ev-a2-1", 1, LOC_A2),
            event("ev-co-2", 2, None),
            event("ev-a1-3", 3, LOC_A1),
            event("ev-b1-4", 4, LOC_B1),
            event("ev-a2-5", 5, LOC_A2),
            event("ev-a1-6", 6, LOC_A1, delivered_at=_at(12)),
            event("ev-a1-7", 7, LOC_A1),
        )

        def undelivered(
            company_id: str | None, location_ids: Collection[str] | None, limit: int = 100
        ) -> list[str]:
            with store.read() as reader:
                found = reader.undelivered_events(
                    company_id=company_id, location_ids=location_ids, limit=limit
                )
            return [record.id for record in found]

        seen = (
            undelivered(CO_A, [LOC_A1]),
            undelivered(CO_A, [LOC_A1], limit=1),
            undelivered(CO_A, [LOC_A1, LOC_A2]),
            undelivered(CO_A, [LOC_A2, LOC_A1], limit=3),
            undelivered(CO_A, None),
            undelivered(CO_A, []),
            undelivered(CO_A, [LOC_B1]),
            undelivered(None, [LOC_B1, LOC_A2]),
        )
        with store.transaction() as tx:
            tx.update(event("ev-a1-3", 3, LOC_A1, delivered_at=_at(12)))
            tx.update(event("ev-a1-6", 6, LOC_A1))
            tx.update(event("ev-a2-5", 5, LOC_A1))
            tx.delete(OutboxEvent, "ev-a1-7")
        after = (undelivered(CO_A, [LOC_A1]), undelivered(CO_A, [LOC_A2]))

        expected: tuple[list[str], ...] = (
            ["ev-a1-3", "ev-a1-7"],
            ["ev-a1-3"],
            ["ev-a2-1", "ev-a1-3", "ev-a2-5", "ev-a1-7"],
            ["ev-a2-1", "ev-a1-3", "ev-a2-5"],
            ["ev-a2-1", "ev-co-2", "ev-a1-3", "ev-a2-5", "ev-a1-7"],
            [],
            [],
            ["ev-a2-1", "ev-b1-4", "ev-a2-5"],
        )
        assert expected == seen, _shows(expected, seen)
        expected_after = (["ev-a2-5", "ev-a1-6"], ["ev-a2-1"])
        assert expected_after == after, _shows(expected_after, after)

    def test_reminders_due_by_location(self) -> None:
        """location_ids keeps those locations' due reminders, by due time then id, before the limit."""

        def reminder(record_id: str, due: datetime, location_id: str, **changes: Any) -> Any:
            return sample_queued_reminder(
                id=record_id,
                company_id=_COMPANY_OF[location_id],
                location_id=location_id,
                appointment_id="apt",
                due_at=due,
                **{"sent_at": None, **changes},
            )

        store = self._store(
            *_bare_world(),
            _appointment("apt", _at(15), _at(16)),
            reminder("r-a2-early", _at(8), LOC_A2),
            reminder("r-a1-sent", _at(8, 30), LOC_A1, sent_at=_at(8)),
            reminder("r-a1", _at(9), LOC_A1),
            reminder("r-b1", _at(9), LOC_B1),
            reminder("r-a2", _at(9, 30), LOC_A2),
            reminder("r-a1-late", _at(11), LOC_A1),
        )

        def due(
            company_id: str | None, location_ids: Collection[str] | None, limit: int = 100
        ) -> list[str]:
            with store.read() as reader:
                found = reader.reminders_due(
                    company_id=company_id, location_ids=location_ids, before=_at(10), limit=limit
                )
            return [record.id for record in found]

        seen = (
            due(CO_A, [LOC_A1]),
            due(CO_A, [LOC_A1], limit=1),
            due(CO_A, [LOC_A1, LOC_A2]),
            due(CO_A, [LOC_A1, LOC_A2], limit=2),
            due(CO_A, []),
            due(CO_A, [LOC_B1]),
            due(None, [LOC_B1, LOC_A1]),
        )

        expected: tuple[list[str], ...] = (
            ["r-a1"],
            ["r-a1"],
            ["r-a2-early", "r-a1", "r-a2"],
            ["r-a2-early", "r-a1"],
            [],
            [],
            ["r-a1", "r-b1"],
        )
        assert expected == seen, _shows(expected, seen)
