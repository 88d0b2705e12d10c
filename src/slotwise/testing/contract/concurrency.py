"""
Part of :class:`~slotwise.testing.StoreContract`. Threads: common locks never interleave, readers never see half a unit, no deadlocks.
"""

from __future__ import annotations

import functools
import threading
import time
from collections.abc import Callable

from slotwise.model import (
    Customer,
)
from slotwise.testing.samples import (
    sample_company,
    sample_customer,
)

from ._base import (
    ContractBase,
    _add_one,
    _Boom,
    _insert_pair,
    _raises,
    _retry_conflicts,
    _run_threads,
    _shows,
)
from ._world import (
    CO_A,
)


class ConcurrencyContract(ContractBase):
    """Threads: common locks never interleave, readers never see half a unit, no deadlocks."""

    # -- threads ---------------------------------------------------------------------------

    def test_units_of_work_on_a_common_lock_never_interleave(self) -> None:
        """Concurrent read-modify-write units of work holding one lock lose no update."""
        store = self._store(
            sample_company(id=CO_A), sample_customer(id="counter", company_id=CO_A, notes="0")
        )
        threads, increments = self.thread_count, self.increments_per_thread
        barrier = threading.Barrier(threads, timeout=self.thread_timeout)

        def increment() -> None:
            barrier.wait()
            for _ in range(increments):
                _retry_conflicts(lambda: _add_one(store))

        _run_threads([increment] * threads, timeout=self.thread_timeout)

        with store.read() as reader:
            counter = reader.get(Customer, "counter")
        count = counter.notes if counter is not None else None
        assert str(threads * increments) == count, _shows(str(threads * increments), count)

    def test_readers_never_see_half_a_unit_of_work(self) -> None:
        """A reader sees both or neither of two records inserted by one unit of work."""
        store = self._store(
            sample_company(id=CO_A), sample_customer(id="tally", company_id=CO_A, notes="0")
        )
        pairs = 100
        writer_done = threading.Event()
        barrier = threading.Barrier(1 + max(1, self.thread_count - 1), timeout=self.thread_timeout)

        def write() -> None:
            barrier.wait()
            try:
                for number in range(pairs):
                    _retry_conflicts(functools.partial(_insert_pair, store, number))
            finally:
                writer_done.set()

        def read() -> None:
            barrier.wait()
            while True:
                last_round = writer_done.is_set()
                with store.read() as reader:
                    customers = reader.find(Customer, company_id=CO_A)
                    tally = reader.get(Customer, "tally")
                    halves = {
                        record.id: reader.get(Customer, record.id) for record in customers[-2:]
                    }
                counts: dict[str, int] = {}
                for record in customers:
                    if record.id.startswith("pair-"):
                        counts[record.id[:-2]] = counts.get(record.id[:-2], 0) + 1
                torn = sorted(pair for pair, count in counts.items() if count != 2)
                assert not torn, f"a reader saw half of the units of work {torn}"
                assert tally is not None
                assert str(len(counts)) == tally.notes, _shows(str(len(counts)), tally.notes)
                assert None not in halves.values(), f"find() and get() disagree: {halves}"
                if last_round:
                    assert len(counts) == pairs, _shows(pairs, len(counts))
                    return
                # Let the writer in: a store whose readers block writers must not starve it.
                time.sleep(0.001)

        readers = [read] * max(1, self.thread_count - 1)
        _run_threads([write, *readers], timeout=self.thread_timeout)

    def test_rolled_back_writes_are_never_seen_by_another_thread(self) -> None:
        """A record inserted by a unit of work that then raises is invisible to other threads."""
        store = self._store(sample_company(id=CO_A))
        inserted, looked = threading.Event(), threading.Event()
        seen: list[object] = []

        def write() -> None:
            with _raises(_Boom), store.transaction() as tx:
                tx.insert(sample_customer(id="cus-ghost", company_id=CO_A))
                inserted.set()
                # A store whose readers wait for writers lets this wait run out; one that
                # reads a snapshot answers at once. Either way the reader must not see the ghost.
                looked.wait(timeout=0.2)
                raise _Boom

        def read() -> None:
            assert inserted.wait(timeout=self.thread_timeout), "the writer never inserted"
            with store.read() as reader:
                seen.append(reader.get(Customer, "cus-ghost"))
                seen.append(len(reader.find(Customer, company_id=CO_A)))
            looked.set()

        _run_threads([write, read], timeout=self.thread_timeout)

        assert [None, 0] == seen, _shows([None, 0], seen)

    def test_opposite_lock_orders_do_not_deadlock(self) -> None:
        """Units of work naming the same locks in opposite orders all finish (locks are sorted)."""
        store = self._store(
            sample_company(id=CO_A), sample_customer(id="counter", company_id=CO_A, notes="0")
        )
        rounds = self.increments_per_thread
        barrier = threading.Barrier(2, timeout=self.thread_timeout)

        def worker(locks: tuple[str, ...]) -> Callable[[], None]:
            def run() -> None:
                barrier.wait()
                for _ in range(rounds):
                    _retry_conflicts(lambda: _add_one(store, locks=locks))

            return run

        _run_threads(
            [worker(("lock:a", "lock:b")), worker(("lock:b", "lock:a"))],
            timeout=self.thread_timeout,
        )

        with store.read() as reader:
            counter = reader.get(Customer, "counter")
        count = counter.notes if counter is not None else None
        assert str(2 * rounds) == count, _shows(str(2 * rounds), count)
