"""
The worker side of ``tests/contract/test_sql_processes.py``: bookings made in another OS process.

The parent starts these workers with the ``forkserver`` start method, which unpickles
:func:`book` by module name, so it lives in an importable module (not in the test file, which
pytest may import under another name). Importing this module opens nothing: every worker makes
its own ``SQLStore`` (its own engine and connections) after it has started.
"""

from __future__ import annotations

import random
import traceback
from datetime import datetime, timedelta
from multiprocessing.queues import Queue
from multiprocessing.synchronize import Barrier

import attrs

from slotwise import Scheduler
from slotwise.storage.sql import SQLStore
from slotwise.testing import ManualClock, SequentialIds


@attrs.frozen(kw_only=True)
class Plan:
    """What every worker of one race does: where the world is and which times it tries."""

    url: str
    """The database URL (password included: a child cannot share the parent's engine)."""
    schema: str | None
    company_id: str
    service_id: str
    resource_id: str
    now: datetime
    """The instant every worker's ``ManualClock`` stands at (the parent's)."""
    starts: tuple[datetime, ...]
    """The candidate start times; each attempt picks one (seeded per worker)."""
    length: timedelta
    attempts: int
    seed: int
    lock_timeout: float
    barrier_timeout: float
    pool_mode: str = "session"
    """The stores' ``pool_mode`` (``"transaction"`` through PgBouncer)."""


@attrs.frozen(kw_only=True)
class Report:
    """What one worker did: the appointments it made and every exception its calls raised."""

    worker: int
    booked: tuple[str, ...] = ()
    """Ids of the appointments its successful bookings made."""
    raised: tuple[tuple[str, datetime, str], ...] = ()
    """(qualified type name, the start tried, message) of each booking call that raised."""
    failure: str | None = None
    """A traceback when the worker failed outside a booking call (opening, the barrier)."""


def qualified(kind: type[BaseException]) -> str:
    """Return ``module.QualName`` of *kind* (the names the parent allows or refuses)."""
    return f"{kind.__module__}.{kind.__qualname__}"


def book(worker: int, plan: Plan, barrier: Barrier, reports: Queue[Report]) -> None:
    """
    Open a store, wait at *barrier* for the other workers, then make ``plan.attempts`` bookings.

    Exactly one :class:`Report` is put on *reports*, whatever happens, so the parent never
    waits for a worker that failed.
    """
    booked: list[str] = []
    raised: list[tuple[str, datetime, str]] = []
    failure = None
    try:
        store = SQLStore(
            plan.url,
            schema=plan.schema,
            create=False,
            lock_timeout=plan.lock_timeout,
            pool_mode="transaction" if plan.pool_mode == "transaction" else "session",
        )
        try:
            # Ids "p<worker>-<n>": no two processes (nor the parent's "<n>") ever make the same.
            scheduler = Scheduler(
                store, clock=ManualClock(plan.now), ids=SequentialIds(f"p{worker}-")
            )
            ws = scheduler.for_company(plan.company_id)
            # One read before the barrier, so the race starts with a connection in the pool.
            ws.appointments.list(limit=1)
            # Seeded per worker: a failing race replays with the same choices.
            choose = random.Random(plan.seed * 1000 + worker).choice
            barrier.wait()
            for attempt in range(plan.attempts):
                start = choose(plan.starts)
                try:
                    appointment = ws.appointments.create(
                        plan.service_id,
                        start,
                        start + plan.length,
                        resource_id=plan.resource_id,
                        name="Bo Li",
                        email=f"p{worker}-{attempt}@example.com",
                        complete_booking="BK",
                    )
                except Exception as error:
                    raised.append((qualified(type(error)), start, str(error)))
                else:
                    booked.append(appointment.id)
        finally:
            store.close()
    except Exception:
        failure = traceback.format_exc()
    reports.put(Report(worker=worker, booked=tuple(booked), raised=tuple(raised), failure=failure))
