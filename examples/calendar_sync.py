"""
Calendar sync: a stylist's Google Calendar removes her busy time, and her bookings go back out as a feed.

Ana at Studio Cuts keeps her life in Google Calendar and her lunch as a block in slotwise. Google exports it as an ``.ics`` file (the
calendar's "secret address in iCal format" serves the same text): a team huddle every Monday,
Wednesday and Friday at 09:00 (skipped once), a dentist appointment, Thanksgiving as an all-day
event, "focus time" marked free and a cancelled lunch. slotwise reads it as Ana's busy time, so
only the hours she really has are offered; then a customer books, and Ana's feed (her bookings
and her lunch block as iCalendar, for any calendar app to subscribe to) is written next to it.

Run it: ``pip install '.[ics]' && python examples/calendar_sync.py [OUTPUT_FOLDER]``. It writes
``google-export.ics`` (the input) and ``ana-feed.ics`` (the published feed) to the folder, a new
temporary one by default.
"""

from __future__ import annotations

import pathlib
import sys
import tempfile
from datetime import UTC, date, datetime, timedelta
from zoneinfo import ZoneInfo

import icalendar

from slotwise import RepeatRule, RoundRobin, Scheduler, Workspace
from slotwise.ics import IcsBusyTime, export_resource
from slotwise.testing import ManualClock, SequentialIds

MONDAY = date(2026, 11, 23)
CHICAGO = ZoneInfo("America/Chicago")

# What Google Calendar exports: CRLF line ends, its PRODID and X-WR- headers, the calendar's zone
# as a VTIMEZONE, repeating events in that zone (TZID) with EXDATEs, one-off events in UTC, all-day
# events as dates, free time as TRANSP:TRANSPARENT and cancelled events kept with their status.
GOOGLE_EXPORT = "\r\n".join(
    [
        "BEGIN:VCALENDAR",
        "PRODID:-//Google Inc//Google Calendar 70.9054//EN",
        "VERSION:2.0",
        "CALSCALE:GREGORIAN",
        "METHOD:PUBLISH",
        "X-WR-CALNAME:Ana Novak",
        "X-WR-TIMEZONE:America/Chicago",
        "BEGIN:VTIMEZONE",
        "TZID:America/Chicago",
        "X-LIC-LOCATION:America/Chicago",
        "BEGIN:DAYLIGHT",
        "TZOFFSETFROM:-0600",
        "TZOFFSETTO:-0500",
        "TZNAME:CDT",
        "DTSTART:19700308T020000",
        "RRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=2SU",
        "END:DAYLIGHT",
        "BEGIN:STANDARD",
        "TZOFFSETFROM:-0500",
        "TZOFFSETTO:-0600",
        "TZNAME:CST",
        "DTSTART:19701101T020000",
        "RRULE:FREQ=YEARLY;BYMONTH=11;BYDAY=1SU",
        "END:STANDARD",
        "END:VTIMEZONE",
        "BEGIN:VEVENT",
        "DTSTART;TZID=America/Chicago:20261102T090000",
        "DTEND;TZID=America/Chicago:20261102T093000",
        "RRULE:FREQ=WEEKLY;WKST=SU;BYDAY=FR,MO,WE",
        "EXDATE;TZID=America/Chicago:20261125T090000",
        "DTSTAMP:20261120T160000Z",
        "UID:4kq1v0f3hq5q9f2d7l3o8m1b2c@google.com",
        "CREATED:20261028T151002Z",
        "LAST-MODIFIED:20261119T090411Z",
        "SEQUENCE:1",
        "STATUS:CONFIRMED",
        "SUMMARY:Team huddle",
        "TRANSP:OPAQUE",
        "END:VEVENT",
        "BEGIN:VEVENT",
        "DTSTART:20261124T190000Z",
        "DTEND:20261124T200000Z",
        "DTSTAMP:20261120T160000Z",
        "UID:2b9d0c7e1f6a4e8b9c3d5f7a1b2c3d4e@google.com",
        "CREATED:20261110T121500Z",
        "LAST-MODIFIED:20261110T121500Z",
        "SEQUENCE:0",
        "STATUS:CONFIRMED",
        "SUMMARY:Dentist",
        "TRANSP:OPAQUE",
        "END:VEVENT",
        "BEGIN:VEVENT",
        "DTSTART;VALUE=DATE:20261126",
        "DTEND;VALUE=DATE:20261127",
        "DTSTAMP:20261120T160000Z",
        "UID:0c1d2e3f4a5b6c7d8e9f0a1b2c3d4e5f@google.com",
        "CREATED:20261001T080000Z",
        "LAST-MODIFIED:20261001T080000Z",
        "SEQUENCE:0",
        "STATUS:CONFIRMED",
        "SUMMARY:Thanksgiving",
        "TRANSP:OPAQUE",
        "END:VEVENT",
        "BEGIN:VEVENT",
        "DTSTART:20261124T160000Z",
        "DTEND:20261124T180000Z",
        "DTSTAMP:20261120T160000Z",
        "UID:7e6d5c4b3a291807f6e5d4c3b2a19080@google.com",
        "CREATED:20261118T100000Z",
        "LAST-MODIFIED:20261118T100000Z",
        "SEQUENCE:0",
        "STATUS:CONFIRMED",
        "SUMMARY:Focus time",
        "TRANSP:TRANSPARENT",
        "END:VEVENT",
        "BEGIN:VEVENT",
        "DTSTART:20261127T210000Z",
        "DTEND:20261127T220000Z",
        "DTSTAMP:20261120T160000Z",
        "UID:9a8b7c6d5e4f30211203f4e5d6c7b8a9@google.com",
        "CREATED:20261112T093000Z",
        "LAST-MODIFIED:20261119T170000Z",
        "SEQUENCE:2",
        "STATUS:CANCELLED",
        "SUMMARY:Lunch with Sam",
        "TRANSP:OPAQUE",
        "END:VEVENT",
        "END:VCALENDAR",
        "",
    ]
)


def build(google_export: pathlib.Path) -> tuple[Workspace, str, str]:
    """Create Studio Cuts with Ana, whose busy time comes from her Google Calendar export."""
    busy = IcsBusyTime({})
    scheduler = Scheduler(
        clock=ManualClock(datetime(2026, 11, 22, 16, tzinfo=UTC)),  # Sunday 10:00 in Chicago
        ids=SequentialIds(),
        busy_provider=busy,
    )
    company = scheduler.create_company(name="Studio Cuts", timezone="America/Chicago")
    salon = scheduler.for_company(company.id)
    salon.locations.create(name="Wicker Park")  # Mon-Fri 09:00-17:00
    haircut = salon.services.create(name="Haircut", duration=60, reason="menu")
    ana = salon.resources.create(
        name="Ana Novak",
        reason="stylist",
        linked_service_ids=[haircut.id],
        options={"calendar_availability": 1},  # consult her calendar's busy time
    )
    salon.resources.create_block(
        ana.id, start_date=MONDAY, end_date="never", start_time=1200, end_time=1230,
        reason="Lunch", repeat=RepeatRule(frequency="W", weekdays="12345"),
    )  # fmt: skip
    busy.sources[ana.id] = google_export  # read again for every query: a fresh export counts
    return salon, haircut.id, ana.id


def week(salon: Workspace, haircut_id: str) -> dict[date, list[str]]:
    """Return the week's haircut start times (HH:MM in Chicago) per day."""
    times = salon.availability.times(
        haircut_id, MONDAY, MONDAY + timedelta(days=4), round_robin=RoundRobin.NONE
    )
    days: dict[date, list[str]] = {MONDAY + timedelta(days=n): [] for n in range(5)}
    for slot in times.available_times:
        days[slot.date].append(f"{slot.start.astimezone(CHICAGO):%H:%M}")
    return days


def main(folder: pathlib.Path) -> None:
    """Read Ana's busy time, print her week, book a haircut and publish her feed."""
    folder.mkdir(parents=True, exist_ok=True)
    google_export = folder / "google-export.ics"
    google_export.write_bytes(GOOGLE_EXPORT.encode())
    salon, haircut_id, ana_id = build(google_export)

    days = week(salon, haircut_id)
    print("Haircuts with Ana Novak, her Google Calendar's busy time removed:")
    for day, starts in days.items():
        shown = f"{starts[0]}-{starts[-1]}, {len(starts)} starts" if starts else "none (busy)"
        print(f"  {day:%a %d %b}  {shown}")
    mon, tue, wed, thu, fri = days.values()
    assert "09:00" not in mon  # the huddle, 09:00-09:30
    assert "09:30" in mon
    assert "09:00" in wed  # that huddle was skipped (EXDATE)
    assert "12:30" not in tue  # the dentist, 13:00-14:00 (a haircut takes an hour)
    assert "13:00" not in tue
    assert "10:00" in tue  # focus time is free (TRANSPARENT)
    assert thu == []  # Thanksgiving, all day
    assert "15:00" in fri  # the lunch was cancelled

    tuesday_ten = datetime(2026, 11, 24, 10, tzinfo=CHICAGO)
    salon.appointments.create(
        haircut_id,
        tuesday_ten,
        tuesday_ten + timedelta(hours=1),
        resource_id=ana_id,
        name="Lena Fischer",
        email="lena@example.com",
        complete_booking="BK",
    )
    feed = folder / "ana-feed.ics"
    feed.write_bytes(export_resource(salon, ana_id))
    events = icalendar.Calendar.from_ical(feed.read_bytes()).walk("VEVENT")
    booked = [event for event in events if event.decoded("dtstart") == tuesday_ten]
    print(f"Booked Lena Fischer on {tuesday_ten:%a %d %b %H:%M}; published {feed.name}:")
    for event in events:
        start = event.decoded("dtstart").astimezone(CHICAGO)
        repeat = f" ({event['rrule'].to_ical().decode()})" if "rrule" in event else ""
        print(f"  {start:%a %d %b %H:%M}  {event['summary']}{repeat}")
    assert len(booked) == 1
    assert str(booked[0]["uid"]).endswith("@slotwise")  # stable across reschedules
    assert [str(event["summary"]) for event in events] == ["Haircut: Lena Fischer", "Lunch"]


if __name__ == "__main__":
    main(pathlib.Path(sys.argv[1]) if len(sys.argv) > 1 else pathlib.Path(tempfile.mkdtemp()))
