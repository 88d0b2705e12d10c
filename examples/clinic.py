"""
A clinic: clinicians who work from other time zones, padding after each visit, and reminders.

Riverside Clinic in Boston offers video consultations: 30 minutes, then 10 minutes of padding to
write notes. Dr. Ana Silva works from Lisbon and Dr. Ben Carter from Denver, each on their own
local hours, so the clinic's day is the union of two foreign days. The script prints Monday's
consultations in Boston time and in each clinician's own, books one, shows that the padding keeps
the next half hour free, then lets the days pass and sends the e-mail and SMS reminders that the
booking queued.

Run it: ``pip install . && python examples/clinic.py``
"""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from zoneinfo import ZoneInfo

from slotwise import (
    DayWindow,
    Reminder,
    ReminderSchedule,
    RoundRobin,
    Scheduler,
    WeeklyHours,
    Workspace,
)
from slotwise.testing import ManualClock, SequentialIds

MONDAY = date(2026, 11, 23)
BOSTON = ZoneInfo("America/New_York")


def weekdays(start_time: int, end_time: int) -> WeeklyHours:
    """Return Monday to Friday from *start_time* to *end_time* (HHMM, the clinician's own zone)."""
    day = DayWindow(start_time=start_time, end_time=end_time)
    return WeeklyHours(mon=day, tue=day, wed=day, thu=day, fri=day)


def build() -> tuple[Scheduler, Workspace, str, dict[str, tuple[str, str]]]:
    """Create the clinic: a Boston location with reminders, one service, two remote clinicians."""
    scheduler = Scheduler(
        clock=ManualClock(datetime(2026, 11, 20, 15, tzinfo=UTC)),  # Friday 10:00 in Boston
        ids=SequentialIds(),
    )
    company = scheduler.create_company(name="Riverside Clinic", timezone="America/New_York")
    clinic = scheduler.for_company(company.id)
    clinic.locations.create(
        name="Boston",
        reminders=ReminderSchedule(
            email_first=Reminder(unit="days", value=1),  # the day before
            sms_first=Reminder(unit="hours", value=2),  # two hours before
        ),
    )
    visit = clinic.services.create(
        name="Video consultation", duration=30, padding=10, reason="telehealth launch"
    )
    clinicians = {}
    for name, zone, hours in (
        ("Dr. Ana Silva", "Europe/Lisbon", weekdays(1400, 2000)),  # 09:00-15:00 in Boston
        ("Dr. Ben Carter", "America/Denver", weekdays(900, 1500)),  # 11:00-17:00 in Boston
    ):
        resource = clinic.resources.create(
            name=name,
            timezone=zone,
            weekly_hours=hours,
            reason="remote clinician",
            linked_service_ids=[visit.id],
        )
        clinicians[resource.id] = (name, zone)
    return scheduler, clinic, visit.id, clinicians


def monday(clinic: Workspace, visit_id: str, clinicians: dict[str, tuple[str, str]]) -> str:
    """Return Monday's first and last consultation per clinician, in Boston and in their zone."""
    slots = clinic.availability.times(visit_id, MONDAY, MONDAY, round_robin=RoundRobin.NONE)
    lines = [f"{slots.service_name} on {MONDAY:%a %d %b}:"]
    for resource_id, (name, zone) in clinicians.items():
        starts = [slot.start for slot in slots.available_times if slot.resource_id == resource_id]
        first, last = starts[0], starts[-1]
        own = ZoneInfo(zone)
        lines.append(
            f"  {name:<15} {len(starts)} starts, {first:%H:%M}-{last:%H:%M} Boston"
            f" = {first.astimezone(own):%H:%M}-{last.astimezone(own):%H:%M} {zone}"
        )
    return "\n".join(lines)


def main() -> None:
    """Print Monday, book a consultation, show the padding, send the reminders when due."""
    scheduler, clinic, visit_id, clinicians = build()
    ana = next(rid for rid, (name, _) in clinicians.items() if name == "Dr. Ana Silva")
    print(monday(clinic, visit_id, clinicians))

    ten = datetime(2026, 11, 23, 10, tzinfo=BOSTON)
    booked = clinic.appointments.create(
        visit_id,
        ten,
        ten + timedelta(minutes=30),
        resource_id=ana,
        name="Maria Lopez",
        email="maria@example.com",
        phone="617-555-0134",
        complete_booking="BK",
    )
    print(f"Booked Maria Lopez with Dr. Ana Silva at {booked.start.astimezone(BOSTON):%H:%M}")
    after = clinic.availability.times(visit_id, MONDAY, MONDAY, resource_id=ana)
    anas = [slot.start.astimezone(BOSTON).strftime("%H:%M") for slot in after.available_times]
    print(f"  Dr. Ana Silva is next free at {min(t for t in anas if t > '10:00')}")
    assert "10:30" not in anas, "10:00 + 30 min + 10 min padding reaches past 10:30"

    clock = scheduler.clock
    assert isinstance(clock, ManualClock)
    sent = []
    for moment in (datetime(2026, 11, 22, 10, tzinfo=BOSTON), ten - timedelta(hours=2)):
        clock.set(moment.astimezone(UTC))
        due = clinic.reminders.due()
        clinic.reminders.mark_sent([reminder.id for reminder in due])
        sent += [(moment, reminder.channel) for reminder in due]
    for moment, channel in sent:
        print(f"  {moment:%a %H:%M}: {channel} reminder sent")
    assert [channel for _, channel in sent] == ["email", "sms"]
    events = [event.trigger.value for event in clinic.outbox.undelivered()]
    print(f"Events for the webhooks: {', '.join(events)}")
    assert events[-3:] == ["BookingConfirmation", "EmailReminder", "SmsReminder"]


if __name__ == "__main__":
    main()
