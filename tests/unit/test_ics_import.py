"""Busy time from real calendars: Google, Outlook/Exchange and RFC 5545 examples (issue 22)."""

from __future__ import annotations

import logging
from datetime import UTC, date, datetime, timedelta
from itertools import pairwise
from pathlib import Path

import pytest

# An extra: the run on the lowest declared versions has only the core installed.
pytest.importorskip("recurring_ical_events")

from slotwise import CalendarUnreadable, InvalidFormat, Scheduler
from slotwise.ics import IcsBusyTime
from slotwise.model import Resource
from slotwise.testing import ManualClock, SequentialIds
from slotwise.testing.samples import sample_resource

FIXTURES = Path(__file__).parent.parent / "fixtures" / "ics"


def _resource(timezone: str, email: str | None = "ana@example.com") -> Resource:
    return sample_resource(id="r1", company_id="c", location_id="l", timezone=timezone, email=email)


def _utc(*parts: int) -> datetime:
    return datetime(*parts, tzinfo=UTC)  # type: ignore[misc]


def _busy(name: str, resource: Resource, start: datetime, end: datetime):
    provider = IcsBusyTime({resource.id: FIXTURES / name}, unreadable="raise")
    return sorted(provider.busy(resource, start, end))


class TestGoogleCalendar:
    """Google's private address export: overrides, all-day rules, invitations, X-WR-TIMEZONE."""

    @pytest.fixture
    def week(self):
        """Busy time of Mon 23 to Fri 27 November 2026 (New York days) for a resource in Amsterdam."""
        resource = _resource("Europe/Amsterdam")
        return _busy("google.ics", resource, _utc(2026, 11, 23, 5), _utc(2026, 11, 28, 5))

    def test_the_whole_week(self, week):
        """Exactly: the all-day course, the moved training, the unanswered invitation."""
        assert [
            (_utc(2026, 11, 24, 5), _utc(2026, 11, 25, 5)),  # course day, a New York date
            (_utc(2026, 11, 25, 19), _utc(2026, 11, 25, 20)),  # training moved to 14:00
            (_utc(2026, 11, 26, 17), _utc(2026, 11, 26, 18)),  # NEEDS-ACTION stays busy
        ] == week

    def test_a_cancelled_instance_is_free(self, week):
        """Monday's training was cancelled by a RECURRENCE-ID override with STATUS:CANCELLED."""
        assert all(low.date() != date(2026, 11, 23) for low, _ in week)

    def test_a_moved_instance_is_busy_only_at_its_new_time(self, week):
        """Wednesday's training moved from 10:00 to 14:00 New York time."""
        assert (_utc(2026, 11, 25, 15), _utc(2026, 11, 25, 16)) not in week

    def test_an_all_day_rule_with_a_date_until_keeps_its_last_day(self):
        """FREQ=WEEKLY;UNTIL=20261124 on an all-day DTSTART reads (no ValueError), 24th included."""
        resource = _resource("America/New_York")

        busy = _busy("google.ics", resource, _utc(2026, 11, 1, 5), _utc(2026, 12, 10, 5))
        days = [low for low, high in busy if high - low == timedelta(days=1)]

        assert [_utc(2026, 11, d, 5) for d in (3, 10, 17, 24)] == days

    def test_a_declined_invitation_is_free(self, week):
        """PARTSTAT=DECLINED on the resource's own ATTENDEE frees the time."""
        assert (_utc(2026, 11, 26, 15), _utc(2026, 11, 26, 16)) not in week

    def test_the_declined_invitation_is_busy_for_someone_else(self):
        """Another address's declined entry does not free a resource with no matching attendee."""
        resource = _resource("America/New_York", email="ben@example.com")

        busy = _busy("google.ics", resource, _utc(2026, 11, 26, 5), _utc(2026, 11, 27, 5))

        assert (_utc(2026, 11, 26, 15), _utc(2026, 11, 26, 16)) in busy

    def test_a_rule_across_the_dst_change_keeps_its_wall_time(self):
        """The Monday 10:00 training is 14:00 UTC before 1 November (EDT) and 15:00 after (EST)."""
        resource = _resource("America/New_York")

        busy = _busy("google.ics", resource, _utc(2026, 10, 26, 4), _utc(2026, 11, 3, 5))

        assert (_utc(2026, 11, 2, 15), _utc(2026, 11, 2, 16)) in busy


class TestOutlookCalendar:
    """Exchange's published calendar: Windows zone names, busy status, EXDATE, overrides."""

    @pytest.fixture
    def weeks(self):
        """Busy time of 9 to 28 November 2026 for a resource in London."""
        resource = _resource("Europe/London")
        return _busy("outlook.ics", resource, _utc(2026, 11, 9), _utc(2026, 11, 28))

    def test_the_whole_range(self, weeks):
        """Exactly: moved sync, tentative lunch, vendor call, out of office, the 24th's sync."""
        assert [
            (_utc(2026, 11, 10, 18), _utc(2026, 11, 10, 19)),
            (_utc(2026, 11, 12, 17), _utc(2026, 11, 12, 18)),
            (_utc(2026, 11, 12, 18), _utc(2026, 11, 12, 19)),
            (_utc(2026, 11, 13), _utc(2026, 11, 14)),
            (_utc(2026, 11, 24, 15), _utc(2026, 11, 24, 16)),
        ] == weeks

    def test_windows_zone_names_place_events(self, weeks):
        """TZID=Eastern Standard Time (with VTIMEZONE) and Pacific Standard Time (without)."""
        assert (_utc(2026, 11, 24, 15), _utc(2026, 11, 24, 16)) in weeks  # 10:00 Eastern
        assert (_utc(2026, 11, 12, 18), _utc(2026, 11, 12, 19)) in weeks  # 10:00 Pacific

    def test_exdate_removes_an_instance(self, weeks):
        """EXDATE;TZID=Eastern Standard Time removes 17 November's sync."""
        assert all(low.date() != date(2026, 11, 17) for low, _ in weeks)

    def test_busy_status_free_is_free_and_tentative_and_oof_are_busy(self, weeks):
        """X-MICROSOFT-CDO-BUSYSTATUS: FREE frees an OPAQUE all-day event; TENTATIVE, OOF block."""
        assert all(low.date() != date(2026, 11, 26) for low, _ in weeks)
        assert (_utc(2026, 11, 12, 17), _utc(2026, 11, 12, 18)) in weeks
        assert (_utc(2026, 11, 13), _utc(2026, 11, 14)) in weeks

    def test_the_utc_until_keeps_the_last_instance(self):
        """UNTIL=20261215T150000Z equals the last instance's start and includes it."""
        resource = _resource("Europe/London")

        busy = _busy("outlook.ics", resource, _utc(2026, 12, 14), _utc(2026, 12, 31))

        assert [(_utc(2026, 12, 15, 15), _utc(2026, 12, 15, 16))] == busy


class TestRfc5545Examples:
    """The RFC's own examples: VFREEBUSY, floating times, RRULE/RDATE/EXDATE/RECURRENCE-ID."""

    def test_published_free_busy_periods(self):
        """VFREEBUSY periods are busy, FBTYPE=FREE ones are not (RFC 5545 3.6.4, 3.8.2.6)."""
        resource = _resource("UTC")

        busy = _busy("rfc5545_freebusy.ics", resource, _utc(1998, 3, 13), _utc(1998, 4, 10))

        assert [
            (_utc(1998, 3, 14, 23, 30), _utc(1998, 3, 15, 0, 30)),
            (_utc(1998, 3, 16, 15, 30), _utc(1998, 3, 16, 16, 30)),
            (_utc(1998, 3, 18, 3), _utc(1998, 3, 18, 4)),
            (_utc(1998, 3, 19, 8), _utc(1998, 3, 19, 16, 30)),
            (_utc(1998, 3, 20, 12), _utc(1998, 3, 20, 13)),
            (_utc(1998, 3, 20, 15), _utc(1998, 3, 20, 15, 30)),
        ] == busy

    def test_floating_time_is_the_resources_wall_time(self):
        """DTSTART:19980118T230000 (form 1) is 23:00 in the resource's zone (Tokyo: 14:00 UTC)."""
        resource = _resource("Asia/Tokyo")

        busy = _busy("rfc5545_rules.ics", resource, _utc(1998, 1, 18), _utc(1998, 1, 20))

        assert [(_utc(1998, 1, 18, 14), _utc(1998, 1, 18, 15, 30))] == busy

    def test_daily_until_a_utc_midnight(self):
        """FREQ=DAILY;UNTIL=19971224T000000Z with DURATION: the 23rd (EST) is the last day."""
        resource = _resource("UTC")

        busy = _busy("rfc5545_rules.ics", resource, _utc(1997, 12, 22), _utc(1997, 12, 26))

        assert [
            (_utc(1997, 12, 22, 14), _utc(1997, 12, 22, 15)),
            (_utc(1997, 12, 23, 14), _utc(1997, 12, 23, 15)),
            (_utc(1997, 12, 23, 14), _utc(1997, 12, 23, 15)),  # the open fortnightly rule
        ] == busy

    def test_rdate_exdate_and_a_moved_instance(self):
        """Every other Tuesday: the 16th excluded, the 17th added, the 30th moved to 15:00."""
        resource = _resource("UTC")

        busy = _busy("rfc5545_rules.ics", resource, _utc(1997, 9, 1), _utc(1997, 10, 1))
        daily = [(_utc(1997, 9, d, 13), _utc(1997, 9, d, 14)) for d in range(2, 31)]
        fortnightly = [
            (_utc(1997, 9, 2, 13), _utc(1997, 9, 2, 14)),
            (_utc(1997, 9, 17, 13), _utc(1997, 9, 17, 14)),
            (_utc(1997, 9, 30, 19), _utc(1997, 9, 30, 20)),
        ]

        assert sorted(daily + fortnightly) == busy


X_WR = b"""BEGIN:VCALENDAR\r
VERSION:2.0\r
PRODID:-//Google Inc//Google Calendar 70.9054//EN\r
X-WR-TIMEZONE:Europe/Amsterdam\r
BEGIN:VEVENT\r
UID:weekly-utc@google.com\r
DTSTAMP:20230301T000000Z\r
DTSTART:20230320T080000Z\r
DTEND:20230320T090000Z\r
RRULE:FREQ=WEEKLY;COUNT=2\r
END:VEVENT\r
BEGIN:VEVENT\r
UID:floating@example.com\r
DTSTAMP:20230301T000000Z\r
DTSTART:20230321T120000\r
DTEND:20230321T130000\r
END:VEVENT\r
END:VCALENDAR\r
"""


class TestXWrTimezone:
    """Google's X-WR-TIMEZONE: UTC rules repeat in that zone; floating times are its wall time."""

    def test_a_utc_rule_follows_the_calendar_zone_across_dst(self):
        """09:00 Amsterdam on 20 March (08:00Z) is 09:00 on the 27th too, after DST (07:00Z)."""
        resource = _resource("America/New_York")
        provider = IcsBusyTime({resource.id: X_WR}, unreadable="raise")

        busy = sorted(provider.busy(resource, _utc(2023, 3, 19), _utc(2023, 3, 29)))

        assert [
            (_utc(2023, 3, 20, 8), _utc(2023, 3, 20, 9)),
            (_utc(2023, 3, 21, 11), _utc(2023, 3, 21, 12)),  # floating 12:00 Amsterdam
            (_utc(2023, 3, 27, 7), _utc(2023, 3, 27, 8)),
        ] == busy


# A feed no calendar app writes but any server may serve: a reminder every minute since 2020.
EVERY_MINUTE = b"""BEGIN:VCALENDAR\r
VERSION:2.0\r
PRODID:-//example//hand-written feed//EN\r
BEGIN:VEVENT\r
UID:every-minute@example.com\r
DTSTAMP:20200101T000000Z\r
DTSTART:20200101T000000Z\r
DURATION:PT1M\r
RRULE:FREQ=MINUTELY\r
END:VEVENT\r
END:VCALENDAR\r
"""


class TestExpansionBound:
    """A rule too costly to expand up to the range fails its calendar instead of the process."""

    def test_a_minutely_rule_since_2020_is_refused_before_it_is_expanded(self):
        """About 3.6 million instances to 2026: unreadable, naming the event, busy for the range."""
        resource = _resource("UTC")
        provider = IcsBusyTime({resource.id: EVERY_MINUTE})
        start, end = _utc(2026, 11, 24), _utc(2026, 11, 25)

        busy = provider.busy(resource, start, end)

        assert [(start, end)] == busy
        assert "'every-minute@example.com'" in provider.failures[resource.id].reason
        assert "FREQ=MINUTELY" in provider.failures[resource.id].reason

    def test_the_same_rule_with_a_count_is_expanded(self):
        """COUNT=90 bounds the rule: its first hour and a half is busy minute by minute."""
        resource = _resource("UTC")
        counted = EVERY_MINUTE.replace(b"FREQ=MINUTELY", b"FREQ=MINUTELY;COUNT=90")
        provider = IcsBusyTime({resource.id: counted}, unreadable="raise")

        busy = sorted(provider.busy(resource, _utc(2020, 1, 1), _utc(2020, 1, 2)))

        minutes = [_utc(2020, 1, 1) + timedelta(minutes=m) for m in range(91)]
        assert list(pairwise(minutes)) == busy

    def test_a_daily_rule_since_1900_is_expanded(self):
        """About 46,000 instances to 2026 are within the bound: every day stays busy."""
        resource = _resource("UTC")
        daily = EVERY_MINUTE.replace(b"FREQ=MINUTELY", b"FREQ=DAILY").replace(
            b"DTSTART:20200101", b"DTSTART:19000101"
        )
        provider = IcsBusyTime({resource.id: daily}, unreadable="raise")

        busy = provider.busy(resource, _utc(2026, 11, 24), _utc(2026, 11, 25))

        assert [(_utc(2026, 11, 24), _utc(2026, 11, 24, 0, 1))] == busy


BROKEN = b"BEGIN:VCALENDAR\r\nVERSION:2.0\r\nBEGIN:VEVENT\r\nDTSTART:garbage\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"
NOW = datetime(2026, 11, 23, 12, tzinfo=UTC)


def _two_stylists(provider: IcsBusyTime):
    scheduler = Scheduler(clock=ManualClock(NOW), ids=SequentialIds(), busy_provider=provider)
    company = scheduler.create_company(name="Acme", timezone="America/New_York")
    ws = scheduler.for_company(company.id)
    ws.locations.create(name="Downtown")
    cut = ws.services.create(name="Cut", duration=30, reason="r")
    synced = {"calendar_availability": 1}
    ana = ws.resources.create(name="Ana", reason="r", options=synced)
    ben = ws.resources.create(name="Ben", reason="r", options=synced)
    return ws, cut, ana, ben


class TestFreshData:
    """A calendar is parsed once per content; new content is read on the next query."""

    def test_a_callable_source_is_read_again(self):
        """The callable's new calendar replaces the one parsed before; the same bytes reuse it."""
        resource = _resource("UTC")
        outlook, google = (
            (FIXTURES / "outlook.ics").read_bytes(),
            (FIXTURES / "google.ics").read_bytes(),
        )
        feeds = [outlook, outlook, google]
        provider = IcsBusyTime({resource.id: lambda: feeds.pop(0)}, unreadable="raise")
        start, end = _utc(2026, 11, 24), _utc(2026, 11, 25)

        first, again, changed = (sorted(provider.busy(resource, start, end)) for _ in range(3))

        assert [(_utc(2026, 11, 24, 15), _utc(2026, 11, 24, 16))] == first == again
        assert [(_utc(2026, 11, 24, 5), _utc(2026, 11, 25, 5))] == changed


class TestUnreadableCalendars:
    """One calendar that cannot be read fails only its resource, with a typed, logged error."""

    @pytest.mark.parametrize(
        "source",
        [b"not a calendar", BROKEN, lambda: (_ for _ in ()).throw(OSError("feed unreachable"))],
        ids=["not-ics", "bad-dtstart", "fetch-fails"],
    )
    def test_other_resources_stay_available(self, source, caplog):
        """Ana's broken calendar makes Ana busy all day; Ben's slots are all still offered."""
        provider = IcsBusyTime({})
        ws, cut, ana, ben = _two_stylists(provider)
        provider.sources[ana.id] = source
        provider.sources[ben.id] = FIXTURES / "rfc5545_freebusy.ics"  # busy only in 1998

        with caplog.at_level(logging.WARNING, logger="slotwise.ics"):
            times = ws.availability.times(cut.id, date(2026, 11, 24), date(2026, 11, 24))
        owners = {rid for slot in times.available_times for rid in slot.resource_ids}
        [record] = [r for r in caplog.records if r.name == "slotwise.ics"]

        assert {ben.id} == owners
        assert times.available_times
        assert ana.id == record.resource_id
        assert isinstance(provider.failures[ana.id], CalendarUnreadable)
        assert ana.id == provider.failures[ana.id].resource_id

    def test_the_failure_clears_when_the_calendar_reads_again(self):
        """failures keeps the last error only until the resource's calendar is readable."""
        provider = IcsBusyTime({})
        ws, cut, ana, _ = _two_stylists(provider)
        provider.sources[ana.id] = b"not a calendar"
        ws.availability.times(cut.id, date(2026, 11, 24), date(2026, 11, 24))
        provider.sources[ana.id] = FIXTURES / "google.ics"

        ws.availability.times(cut.id, date(2026, 11, 24), date(2026, 11, 24))

        assert {} == provider.failures

    def test_the_host_hears_once_per_failure(self, caplog):
        """A repeated failure logs WARNING once, DEBUG after; reading again logs INFO."""
        provider = IcsBusyTime({})
        ws, cut, ana, _ = _two_stylists(provider)
        provider.sources[ana.id] = b"not a calendar"

        with caplog.at_level(logging.DEBUG, logger="slotwise.ics"):
            for _ in range(2):
                ws.availability.times(cut.id, date(2026, 11, 24), date(2026, 11, 24))
            provider.sources[ana.id] = FIXTURES / "google.ics"
            ws.availability.times(cut.id, date(2026, 11, 24), date(2026, 11, 24))
        levels = [r.levelname for r in caplog.records if r.name == "slotwise.ics"]

        assert ["WARNING", "DEBUG", "INFO"] == levels

    def test_free_ignores_the_calendar(self):
        """unreadable="free": the resource is available as if it had no calendar."""
        provider = IcsBusyTime({}, unreadable="free")
        ws, cut, ana, _ = _two_stylists(provider)
        provider.sources[ana.id] = b"not a calendar"

        times = ws.availability.times(cut.id, date(2026, 11, 24), date(2026, 11, 24))

        assert ana.id in {rid for slot in times.available_times for rid in slot.resource_ids}

    def test_raise_surfaces_the_typed_error(self):
        """unreadable="raise": CalendarUnreadable (an InvalidFormat) names the resource."""
        provider = IcsBusyTime({}, unreadable="raise")
        ws, cut, ana, _ = _two_stylists(provider)
        provider.sources[ana.id] = BROKEN

        with pytest.raises(InvalidFormat, match=f"calendar of resource '{ana.id}'") as caught:
            ws.availability.times(cut.id, date(2026, 11, 24), date(2026, 11, 24))

        assert isinstance(caught.value, CalendarUnreadable)
        assert 502 == caught.value.http_status
        assert caught.value.__cause__ is not None

    def test_an_unknown_policy_is_refused(self):
        """The policy is one of busy, free, raise."""
        from slotwise import InvalidChoice

        with pytest.raises(InvalidChoice, match="unreadable"):
            IcsBusyTime({}, unreadable="maybe")  # type: ignore[arg-type]
