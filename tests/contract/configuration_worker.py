"""
The other process of ``tests/contract/test_configuration_processes.py``: one configuration
change made through its own ``SQLStore`` and ``Scheduler``, then it exits.

Run as ``python -m tests.contract.configuration_worker URL SCHEMA COMPANY RESOURCE ACTION
[BLOCK | NAME]``; ``ACTION`` is ``block`` (a block 10:00-12:00 on the test day; prints its id),
``unblock`` (deletes block ``BLOCK``) or ``rename`` (names the resource ``NAME``).
"""

from __future__ import annotations

import sys
from datetime import UTC, date, datetime

from slotwise import Scheduler
from slotwise.storage.sql import SQLStore
from slotwise.testing import ManualClock, SequentialIds

DAY = date(2026, 1, 6)
NOW = datetime(2026, 1, 5, 14, 0, tzinfo=UTC)


def main(url: str, schema: str, company_id: str, resource_id: str, action: str, *rest: str) -> None:
    """Make the change *action* names in the company's configuration."""
    store = SQLStore(url, schema=schema or None, create=False)
    try:
        scheduler = Scheduler(store, clock=ManualClock(NOW), ids=SequentialIds("other-"))
        resources = scheduler.for_company(company_id).resources
        if action == "block":
            block = resources.create_block(
                resource_id,
                start_date=DAY,
                end_date=DAY,
                start_time=1000,
                end_time=1200,
                reason="Training",
            )
            print(block.id)
        elif action == "unblock":
            resources.delete_block(rest[0])
        elif action == "rename":
            resources.update(resource_id, name=rest[0])
        else:
            raise SystemExit(f"unknown action {action!r}")
    finally:
        store.engine.dispose()


if __name__ == "__main__":
    main(*sys.argv[1:])
