"""
Two companies with every kind of record, for the tenant test (``test_tenants.py``).

Company A has locations L1 (primary) and L2; company B has one location. Each location holds a
calendar with a block, a location-scoped service with a block and an allocation, a resource with
a block and an allocation, a service group, a resource group and a booking field definition;
each company also has a company-scoped service, customers, a subscription, a field definition,
booked appointments with reminders, and the events those produced. :func:`build` records every id by owner (``A`` for L1
and company-wide records of A, ``L2`` for A's records at L2, ``B``) and by kind.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, date, datetime, time, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import attrs

from slotwise import (
    Principal,
    Reminder,
    ReminderSchedule,
    RepeatRule,
    Scheduler,
    Store,
    Workspace,
)
from slotwise.model import RECORD_KINDS, OutboxEvent, QueuedReminder
from slotwise.testing import ManualClock, SequentialIds

NOW = datetime(2026, 3, 2, 8, 0, tzinfo=UTC)
"""Monday 2026-03-02, 03:00 in New York: the whole week ahead is bookable."""
TUESDAY = date(2026, 3, 3)
ZONE = ZoneInfo("America/New_York")

SECRETS_OF_B = (
    "Beta",
    "Bravo",
    "beta.example",
    "B cut",
    "B class",
    "B Bea",
    "B Bo Customer",
    "B lunch",
    "B notes",
    "staff@b.example",
)
"""Texts only company B's records hold: no refusal may show one of them."""


def at(hhmm: int, day: date = TUESDAY) -> datetime:
    """Return *hhmm* on *day* in New York."""
    return datetime.combine(day, time(hhmm // 100, hhmm % 100), ZONE)


@attrs.frozen
class World:
    """The schedulers' view of the two companies and the ids of everything they hold."""

    scheduler: Scheduler
    a: Workspace
    a_l1: Workspace
    """A principal of company A limited to location L1."""
    b: Workspace
    ids: dict[str, dict[str, str]]
    """``ids[owner][kind]``: owner ``A`` (L1 and company-wide), ``L2`` or ``B``."""

    def records(self) -> str:
        """Every record of every kind as text: equal text means an unchanged store."""
        with self.scheduler.store.read() as reader:
            return repr([reader.find(kind, company_id=None) for kind in RECORD_KINDS])


def _location(ws: Workspace, name: str, owner: dict[str, str], prefix: str) -> None:
    """Fill one location with its calendar, service, resource, groups, blocks and allocations."""
    location = ws.locations.create(
        name=name, reminders=ReminderSchedule(email_first=Reminder(unit="hours", value=2))
    )
    owner["location"] = location.id
    calendar = ws.calendars.list(location_id=location.id).data[0]
    owner["calendar"] = calendar.id
    service = ws.services.create(
        name=f"{prefix} cut", duration=30, reason="r", location_id=location.id
    )
    owner["service"] = service.id
    event = ws.services.create(
        name=f"{prefix} class", duration=30, reason="r", type="event", location_id=location.id
    )
    owner["event_service"] = event.id
    owner["service_group"] = ws.service_groups.create(
        name=f"{prefix} group", location_id=location.id
    ).id
    owner["resource_group"] = ws.resource_groups.create(
        name=f"{prefix} team", location_id=location.id
    ).id
    resource = ws.resources.create(
        name=f"{prefix} Bea" if prefix == "B" else f"{prefix} Ana",
        reason="r",
        location_id=location.id,
        email=f"staff@{prefix.lower()}.example",
    )
    owner["resource"] = resource.id
    weekly = RepeatRule(frequency="W", weekdays="12345")
    window: dict[str, Any] = {
        "start_date": TUESDAY,
        "end_date": "never",
        "start_time": 1200,
        "end_time": 1300,
        "reason": f"{prefix} lunch",
        "repeat": weekly,
    }
    owner["calendar_block"] = ws.calendars.create_block(calendar.id, **window).id
    owner["service_block"] = ws.services.create_block(service.id, **window).id
    owner["resource_block"] = ws.resources.create_block(resource.id, **window).id
    owner["service_allocation"] = ws.services.create_allocation(event.id, **window).id
    owner["resource_allocation"] = ws.resources.create_allocation(resource.id, **window).id
    owner["location_field"] = ws.fields.define(
        kind="booking", name="size", label=f"{prefix} size", location_id=location.id
    ).id
    booked = ws.appointments.create(
        service.id,
        at(1000),
        at(1030),
        location_id=location.id,
        resource_id=resource.id,
        name=f"{prefix} Bo Customer" if prefix == "B" else f"{prefix} Ann Customer",
        email="bo@beta.example" if prefix == "B" else f"ann@{prefix.lower()}.example",
        complete_booking="BK",
    )
    owner["appointment"] = booked.id
    hold = ws.appointments.create(
        service.id, at(1100), at(1130), location_id=location.id, resource_id=resource.id
    )
    owner["hold"] = hold.id


def build(make_store: Callable[[], Store]) -> World:
    """Build both companies on a fresh store from *make_store*."""
    scheduler = Scheduler(make_store(), clock=ManualClock(NOW), ids=SequentialIds(prefix="t"))
    company_a = scheduler.create_company(name="Alpha", timezone="America/New_York")
    company_b = scheduler.create_company(name="Beta", timezone="America/New_York")
    a, b = scheduler.for_company(company_a.id), scheduler.for_company(company_b.id)
    ids: dict[str, dict[str, str]] = {"A": {"company": company_a.id}, "L2": {}, "B": {}}
    ids["B"]["company"] = company_b.id
    _location(a, "Alpha one", ids["A"], "A1")
    _location(a, "Alpha two", ids["L2"], "A2")
    _location(b, "Bravo", ids["B"], "B")
    for owner, ws, first in (("A", a, "Ann"), ("B", b, "Bo")):
        ids[owner]["company_service"] = ws.services.create(
            name=f"{owner} company-wide cut" if owner == "A" else "B cut wide",
            duration=30,
            reason="r",
            scope="company",
        ).id
        ids[owner]["company_service_group"] = ws.service_groups.create(name=f"{owner} all").id
        ids[owner]["company_resource_group"] = ws.resource_groups.create(name=f"{owner} all").id
        customer = ws.customers.create(
            first_name=first,
            email="bo.two@beta.example" if owner == "B" else "ann.two@alpha.example",
        )
        ids[owner]["customer"] = customer.id
        ids[owner]["subscription"] = ws.subscriptions.create(
            customer.id, customer_plan_id="gold"
        ).id
        ids[owner]["field"] = ws.fields.define(name="field1", label=f"{owner} notes").id
    with scheduler.store.read() as reader:
        for owner, key in (("A", "A"), ("B", "B")):
            company_id = ids[key]["company"]
            events = reader.find(OutboxEvent, company_id=company_id)
            reminders = reader.find(QueuedReminder, company_id=company_id)
            ids[owner]["event"] = next(
                e.id for e in events if e.location_id == ids[owner]["location"]
            )
            ids[owner]["company_event"] = next(e.id for e in events if e.location_id is None)
            ids[owner]["reminder"] = next(
                r.id for r in reminders if r.location_id == ids[owner]["location"]
            )
            if owner == "A":
                ids["L2"]["event"] = next(
                    e.id for e in events if e.location_id == ids["L2"]["location"]
                )
                ids["L2"]["reminder"] = next(
                    r.id for r in reminders if r.location_id == ids["L2"]["location"]
                )
    a_l1 = scheduler.as_principal(
        Principal(company_id=company_a.id, location_ids=frozenset({ids["A"]["location"]}))
    )
    return World(scheduler=scheduler, a=a, a_l1=a_l1, b=b, ids=ids)


def later(days: int) -> date:
    """Return the date *days* after Tuesday."""
    return TUESDAY + timedelta(days=days)
