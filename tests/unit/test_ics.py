"""iCalendar export and busy time from .ics (slotwise.ics, issues 14 and 22)."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

import pytest

# An extra: the run on the lowest declared versions has only the core installed.
icalendar = pytest.importorskip("icalendar")

from slotwise import RepeatRule, Scheduler  # noqa: E402 -- after the extra's check
from slotwise.ics import IcsBusyTime, export_appointments, export_resource  # noqa: E402
from slotwise.testing import ManualClock, SequentialIds  # noqa: E402

NOW = datetime(2026, 11, 23, 12, tzinfo=UTC)  # Monday 07:00 in New York


def _business(busy_provider=None):
    scheduler = Scheduler(clock=ManualClock(NOW), ids=SequentialIds(), busy_provider=busy_provider)
    company = scheduler.create_company(name="Acme", timezone="America/New_York")
    ws = scheduler.for_company(company.id)
    ws.locations.create(name="Downtown")
    cut = ws.services.create(name="Cut", duration=30, reason="r")
    ana = ws.resources.create(name="Ana", reason="r")
    return ws, cut, ana


def _at(day: int, hour: int, minute: int = 0) -> datetime:
    """November *day*, 2026, *hour*:*minute* in New York (UTC-5), as UTC."""
    return datetime(2026, 11, day, hour + 5, minute, tzinfo=UTC)


def _events(data: bytes) -> list[icalendar.Event]:
    return list(icalendar.Calendar.from_ical(data).walk("VEVENT"))


class TestExport:
    """Appointments, blocks and allocations as RFC 5545 events."""

    def test_uid_survives_a_reschedule(self):
        """The moved appointment keeps its first record's UID; SEQUENCE counts the moves."""
        ws, cut, ana = _business()
        booked = ws.appointments.create(
            cut.id, _at(24, 10), _at(24, 10, 30), resource_id=ana.id,
            name="Ann Lee", email="ann@example.com", complete_booking="BK",
        )  # fmt: skip
        moved = ws.appointments.reschedule(booked.id, start=_at(24, 11), end=_at(24, 11, 30))
        [before] = _events(export_appointments(ws, [booked]))
        [after] = _events(export_appointments(ws, [moved, ws.appointments.get(booked.id)]))

        assert f"{booked.id}@slotwise" == str(before["uid"]) == str(after["uid"])
        assert (0, 1) == (before["sequence"], after["sequence"])
        assert _at(24, 11) == after.decoded("dtstart")
        assert "Cut: Ann Lee" == str(after["summary"])

    def test_cancelled_appointments_are_cancelled_events(self):
        """A cancelled appointment is STATUS:CANCELLED, a hold TENTATIVE."""
        ws, cut, ana = _business()
        booked = ws.appointments.create(
            cut.id, _at(24, 10), _at(24, 10, 30), resource_id=ana.id,
            name="Ann Lee", email="ann@example.com", complete_booking="BK",
        )  # fmt: skip
        hold = ws.appointments.create(cut.id, _at(24, 12), _at(24, 12, 30), resource_id=ana.id)
        cancelled = ws.appointments.cancel(booked.id)
        events = _events(export_appointments(ws, [cancelled, hold]))

        assert ["CANCELLED", "TENTATIVE"] == [str(event["status"]) for event in events]

    def test_a_resource_feed_has_blocks_with_their_rules(self):
        """export_resource writes appointments and the weekly lunch block with its RRULE."""
        ws, cut, ana = _business()
        ws.resources.create_block(
            ana.id, start_date=date(2026, 11, 23), end_date="never", start_time=1200,
            end_time=1300, reason="Lunch", repeat=RepeatRule(frequency="W", weekdays="12345"),
        )  # fmt: skip
        ws.appointments.create(
            cut.id, _at(24, 10), _at(24, 10, 30), resource_id=ana.id,
            name="Ann Lee", email="ann@example.com", complete_booking="BK",
        )  # fmt: skip
        events = _events(export_resource(ws, ana.id))
        lunch = next(event for event in events if str(event["summary"]) == "Lunch")

        assert 2 == len(events)
        assert b"FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR" == lunch["rrule"].to_ical()
        assert datetime(2026, 11, 23, 12, tzinfo=lunch.decoded("dtstart").tzinfo) == (
            lunch.decoded("dtstart")
        )


BUSY = b"""BEGIN:VCALENDAR
VERSION:2.0
PRODID:-//test//test//EN
BEGIN:VEVENT
UID:dentist@example
DTSTAMP:20261101T000000Z
DTSTART:20261124T150000Z
DTEND:20261124T160000Z
SUMMARY:Dentist
END:VEVENT
BEGIN:VEVENT
UID:standup@example
DTSTAMP:20261101T000000Z
DTSTART;TZID=America/New_York:20261123T090000
DTEND;TZID=America/New_York:20261123T093000
RRULE:FREQ=DAILY;COUNT=5
SUMMARY:Stand-up
END:VEVENT
BEGIN:VEVENT
UID:free@example
DTSTAMP:20261101T000000Z
DTSTART:20261124T200000Z
DTEND:20261124T210000Z
TRANSP:TRANSPARENT
SUMMARY:Free
END:VEVENT
END:VCALENDAR
"""


class TestIcsBusyTime:
    """An .ics calendar removes the times it is busy."""

    @pytest.fixture
    def day(self):
        """Tuesday's offered starts (New York hours) for Ana, who reads BUSY as her calendar."""
        provider = IcsBusyTime({})
        ws, cut, ana = _business(provider)
        ws.resources.update(ana.id, options={"calendar_availability": 1})
        provider.sources[ana.id] = BUSY
        times = ws.availability.times(
            cut.id, date(2026, 11, 24), date(2026, 11, 24), resource_id=ana.id
        )
        return {slot.start.astimezone(UTC) - timedelta(hours=5) for slot in times.available_times}

    def test_a_single_event_blocks_its_hour(self, day):
        """The dentist 10:00-11:00 (15:00-16:00 UTC) removes the starts that overlap it."""
        assert datetime(2026, 11, 24, 10, tzinfo=UTC) not in day
        assert datetime(2026, 11, 24, 10, 30, tzinfo=UTC) not in day
        assert datetime(2026, 11, 24, 11, tzinfo=UTC) in day

    def test_a_daily_event_blocks_every_day(self, day):
        """The daily stand-up 09:00-09:30 (RRULE) blocks Tuesday's 09:00 too."""
        assert datetime(2026, 11, 24, 9, tzinfo=UTC) not in day
        assert datetime(2026, 11, 24, 9, 30, tzinfo=UTC) in day

    def test_transparent_events_are_free(self, day):
        """A TRANSP:TRANSPARENT event blocks nothing."""
        assert datetime(2026, 11, 24, 15, tzinfo=UTC) in day

    def test_unreadable_data_names_the_resource(self):
        """Data that is not iCalendar: with "raise", InvalidFormat naming the resource's calendar."""
        from slotwise import InvalidFormat
        from slotwise.model import Resource
        from slotwise.testing.samples import sample_resource

        provider = IcsBusyTime({"r1": b"not a calendar"}, unreadable="raise")
        resource: Resource = sample_resource(id="r1", company_id="c", location_id="l")

        with pytest.raises(InvalidFormat, match="calendar of resource 'r1'"):
            provider.busy(resource, NOW, NOW + timedelta(days=1))

    def test_unreadable_data_is_busy_by_default(self):
        """By default an unreadable calendar makes its resource busy for the whole range."""
        from slotwise.testing.samples import sample_resource

        provider = IcsBusyTime({"r1": b"not a calendar"})
        resource = sample_resource(id="r1", company_id="c", location_id="l")

        assert [(NOW, NOW + timedelta(days=1))] == provider.busy(
            resource, NOW, NOW + timedelta(days=1)
        )
