"""What slotwise logs (issue 14): operations that change state, appointment changes."""

from __future__ import annotations

import logging
from datetime import UTC, datetime, timedelta

from slotwise import Scheduler
from slotwise.testing import ManualClock, SequentialIds


def test_changes_are_logged_and_reads_are_not(caplog):
    """Creating a service logs its id; booking logs the status change; a list logs nothing."""
    scheduler = Scheduler(
        clock=ManualClock(datetime(2026, 11, 23, 12, tzinfo=UTC)), ids=SequentialIds()
    )
    company = scheduler.create_company(name="Acme", timezone="America/New_York")
    ws = scheduler.for_company(company.id)
    ws.locations.create(name="Downtown")
    with caplog.at_level(logging.INFO, logger="slotwise"):
        cut = ws.services.create(name="Cut", duration=30, reason="r")
        ana = ws.resources.create(name="Ana", reason="r")
        start = datetime(2026, 11, 24, 15, tzinfo=UTC)
        booked = ws.appointments.create(
            cut.id, start, start + timedelta(minutes=30), resource_id=ana.id,
            name="Ann Lee", email="ann@example.com", complete_booking="BK",
        )  # fmt: skip
        before = len(caplog.records)
        ws.services.list()
        after = len(caplog.records)
    messages = [record.getMessage() for record in caplog.records]

    assert f"ServiceOperations.create -> {cut.id}" in messages
    assert any(m.startswith(f"appointment {booked.id}: create_booked - -> BK") for m in messages)
    assert before == after


def test_checking_a_token_logs_nothing(caplog):
    """Authenticating (every HTTP request does) writes no INFO line (issue 21)."""
    from slotwise import Principal

    scheduler = Scheduler(
        clock=ManualClock(datetime(2026, 11, 23, 12, tzinfo=UTC)), ids=SequentialIds()
    )
    company = scheduler.create_company(name="Acme", timezone="America/New_York")
    issued = scheduler.tokens.create(Principal(company_id=company.id), label="desk")
    with caplog.at_level(logging.INFO, logger="slotwise"):
        scheduler.for_token(issued.token)

    assert [] == caplog.records
