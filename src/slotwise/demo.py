"""
A small business to try slotwise with: ``slotwise demo`` and ``slotwise serve --demo``.

:func:`seed` creates Acme Spa -- one location in New York open Monday to Saturday, a massage
and a facial, Ana (who takes a lunch break on weekdays) and Ben (who works in Chicago hours) --
starting from the scheduler's own clock, so its availability is always in the coming week.

.. versionadded:: 0.1
"""

from __future__ import annotations

import attrs

from slotwise.model import BusinessHours, DayHours, Principal, RepeatRule
from slotwise.scheduler import Scheduler

__all__ = ["DemoBusiness", "seed"]


@attrs.frozen(kw_only=True)
class DemoBusiness:
    """The ids of the demo business, and a company-wide API token for it."""

    company_id: str
    location_id: str
    massage_id: str
    facial_id: str
    ana_id: str
    ben_id: str
    token: str


def seed(scheduler: Scheduler) -> DemoBusiness:
    """Create Acme Spa in *scheduler*'s store and issue it a token (printed by the command)."""
    company = scheduler.create_company(name="Acme Spa", timezone="America/New_York")
    acme = scheduler.for_company(company.id)
    downtown = acme.locations.create(
        name="Downtown",
        business_hours=BusinessHours(sat=DayHours.open(1000, 1400)),
        phone="212-555-0100",
        friendly_id="downtown",
    )
    massage = acme.services.create(
        name="Deep-tissue massage", duration=60, padding=15, reason="demo"
    )
    facial = acme.services.create(name="Facial", duration=45, reason="demo")
    ana = acme.resources.create(
        name="Ana", reason="demo", linked_service_ids=[massage.id, facial.id]
    )
    ben = acme.resources.create(
        name="Ben", timezone="America/Chicago", reason="demo", linked_service_ids=[massage.id]
    )
    acme.resources.create_block(
        ana.id,
        start_date=scheduler.clock.now().date(),
        end_date="never",
        start_time=1200,
        end_time=1300,
        reason="Lunch",
        repeat=RepeatRule(frequency="W", weekdays="12345"),
    )
    issued = scheduler.tokens.create(Principal(company_id=company.id), label="demo")
    return DemoBusiness(
        company_id=company.id,
        location_id=downtown.id,
        massage_id=massage.id,
        facial_id=facial.id,
        ana_id=ana.id,
        ben_id=ben.id,
        token=issued.token,
    )
