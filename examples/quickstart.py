"""
Set up a small business in memory, print its catalogue and a week of availability.

Run it: ``pip install . && python examples/quickstart.py``
"""

from __future__ import annotations

from datetime import UTC, date, datetime

from slotwise import (
    BusinessHours,
    Company,
    DayHours,
    Holiday,
    RepeatRule,
    RoundRobin,
    Scheduler,
)
from slotwise.testing import ManualClock, SequentialIds


def build() -> Scheduler:
    """Create Acme Spa: one location, two services, two staff members, a few blocks."""
    scheduler = Scheduler(
        clock=ManualClock(datetime(2026, 11, 23, 14, 0, tzinfo=UTC)), ids=SequentialIds()
    )
    company = scheduler.create_company(name="Acme Spa", timezone="America/New_York")
    acme = scheduler.for_company(company.id)

    hours = BusinessHours(sat=DayHours.open(1000, 1400))  # Mon-Fri 09:00-17:00 by default
    downtown = acme.locations.create(
        name="Downtown", business_hours=hours, phone="212-555-0100", friendly_id="downtown"
    )
    acme.locations.set_holidays(downtown.id, [Holiday(date=date(2026, 12, 25), name="Christmas")])

    massage = acme.services.create(
        name="Deep-tissue massage", duration=60, padding=15, reason="launch menu"
    )
    facial = acme.services.create(name="Facial", duration=45, reason="launch menu")
    ana = acme.resources.create(
        name="Ana", reason="opening team", linked_service_ids=[massage.id, facial.id]
    )
    acme.resources.create(
        name="Ben",
        timezone="America/Chicago",
        reason="opening team",
        linked_service_ids=[massage.id],
    )
    acme.resources.create_block(
        ana.id,
        start_date=date(2026, 11, 23),
        end_date="never",
        start_time=1200,
        end_time=1300,
        reason="Lunch",
        repeat=RepeatRule(frequency="W", weekdays="12345"),
    )
    return scheduler


def catalogue(scheduler: Scheduler) -> str:
    """Return the catalogue of every company as printable text."""
    lines: list[str] = []
    with scheduler.store.read() as reader:
        companies = reader.find(Company, company_id=None)
    for company in companies:
        workspace = scheduler.for_company(company.id)
        lines.append(f"{company.name} ({company.timezone})")
        for location in workspace.locations.list().data:
            lines.append(f"  Location {location.name} [{location.friendly_id}]")
            for weekday, window in location.business_hours.as_weekly().items():
                if not window.is_closed:
                    lines.append(
                        f"    {weekday.value}: {window.start_time:04d}-{window.end_time:04d}"
                    )
            for holiday in location.holidays:
                lines.append(f"    closed {holiday.date} ({holiday.name})")
            for service in workspace.services.list(location_id=location.id).data:
                lines.append(
                    f"  Service {service.name}: {service.duration} min"
                    f" (+{service.padding} min padding)"
                )
                for resource in workspace.services.resources(service.id).data:
                    lines.append(f"    with {resource.name} ({resource.timezone_id})")
                    for block in workspace.resources.list_blocks(resource.id).data:
                        lines.append(
                            f"      blocked {block.start_time:04d}-{block.end_time:04d}"
                            f" ({block.reason})"
                        )
    return "\n".join(lines)


def week_of_availability(scheduler: Scheduler) -> str:
    """Return one week of bookable massage times, one line per day and staff member."""
    lines: list[str] = []
    with scheduler.store.read() as reader:
        companies = reader.find(Company, company_id=None)
    acme = scheduler.for_company(companies[0].id)
    massage = next(s for s in acme.services.list().data if s.name.startswith("Deep"))
    week = acme.availability.times(
        massage.id, date(2026, 11, 23), date(2026, 11, 29), round_robin=RoundRobin.NONE
    )
    lines.append(f"{week.service_name}, first available {week.first_available_date}:")
    names = {r.id: r.name for r in acme.resources.list().data}
    by_day: dict[tuple[date, str], list[str]] = {}
    for slot in week.available_times:
        key = (slot.date, names[slot.resource_id or ""])
        by_day.setdefault(key, []).append(slot.display_time)
    for (day, name), times in sorted(by_day.items()):
        lines.append(f"  {day:%a %d %b} {name:<4} {' '.join(times)}")
    return "\n".join(lines)


if __name__ == "__main__":
    business = build()
    print(catalogue(business))
    print()
    print(week_of_availability(business))
