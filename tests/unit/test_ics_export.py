"""The resource feed read back by independent parsers, and by slotwise itself (issue 22)."""

from __future__ import annotations

from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo

import pytest

# The extra's libraries; the independent readers vobject and ics are test tools only (the run on
# the lowest declared versions skips the tests that need them).
recurring_ical_events = pytest.importorskip("recurring_ical_events")
icalendar = pytest.importorskip("icalendar")

from slotwise import Holiday, RepeatRule, Scheduler  # noqa: E402
from slotwise.ics import IcsBusyTime, export_appointments, export_resource  # noqa: E402
from slotwise.rules.repeat import occurrence_dates, window_instants  # noqa: E402
from slotwise.testing import ManualClock, SequentialIds  # noqa: E402

NOW = datetime(2026, 11, 23, 12, tzinfo=UTC)  # Monday 07:00 in New York
NEW_YORK = ZoneInfo("America/New_York")
TUESDAY = datetime(2026, 11, 24, 15, tzinfo=UTC)  # 10:00 in New York


def _book(ws, cut, ana, start: datetime):
    return ws.appointments.create(
        cut.id, start, start + timedelta(minutes=30), resource_id=ana.id,
        name="Ann Lee", email="ann@example.com", complete_booking="BK",
    )  # fmt: skip


def _business(timezone: str = "America/New_York", busy_provider=None):
    scheduler = Scheduler(clock=ManualClock(NOW), ids=SequentialIds(), busy_provider=busy_provider)
    company = scheduler.create_company(name="Acme", timezone=timezone)
    ws = scheduler.for_company(company.id)
    location = ws.locations.create(
        name="Downtown", address={"address_line1": "1 Main St", "city": "Springfield"}
    )
    cut = ws.services.create(name="Cut", duration=30, reason="r")
    ana = ws.resources.create(name="Ana", reason="r")
    return ws, location, cut, ana


def _instances(data: bytes, start: datetime, end: datetime, kind: str = "block"):
    calendar = icalendar.Calendar.from_ical(data)
    return sorted(
        (event.decoded("dtstart").astimezone(UTC), event.decoded("dtend").astimezone(UTC))
        for event in recurring_ical_events.of(calendar).between(start, end)
        if str(event.get("x-slotwise-kind", "")) == kind
    )


def _slotwise(ws, block, tz: ZoneInfo, first: date, last: date):
    return sorted(window_instants(block, day, tz) for day in occurrence_dates(block, first, last))


class TestRepeatingWindows:
    """A block's RRULE expands, in other readers, to exactly slotwise's occurrences."""

    def test_dtstart_is_the_first_occurrence(self):
        """A biweekly Wednesday block from a Monday starts on that Wednesday: no phantom Monday."""
        ws, _, _, ana = _business()
        block = ws.resources.create_block(
            ana.id, start_date=date(2026, 11, 23), end_date=date(2027, 2, 28), start_time=1200,
            end_time=1300, reason="Training", repeat=RepeatRule(frequency="W", weekdays="3", interval=2),
        )  # fmt: skip
        data = export_resource(ws, ana.id)
        start = datetime(2026, 11, 1, tzinfo=UTC)
        end = datetime(2027, 12, 31, tzinfo=UTC)

        expected = _slotwise(ws, block, NEW_YORK, date(2026, 11, 1), date(2027, 12, 31))
        assert expected == _instances(data, start, end)
        assert date(2026, 11, 25) == expected[0][0].astimezone(NEW_YORK).date()

    def test_until_keeps_the_last_occurrence_for_every_reader(self):
        """UNTIL is a UTC date-time; recurring-ical-events and vobject keep 23 December."""
        ws, _, _, ana = _business()
        ws.resources.create_block(
            ana.id, start_date=date(2026, 11, 23), end_date=date(2026, 12, 23), start_time=1200,
            end_time=1300, reason="Training", repeat=RepeatRule(frequency="W", weekdays="3", interval=2),
        )  # fmt: skip
        data = export_resource(ws, ana.id)
        [event] = icalendar.Calendar.from_ical(data).walk("VEVENT")
        until = event["rrule"]["until"][0]
        vobject = pytest.importorskip("vobject")
        [parsed] = vobject.readOne(data.decode()).vevent_list

        assert datetime(2026, 12, 24, 4, 59, 59, tzinfo=UTC) == until  # 23:59:59 EST
        assert [date(2026, 11, 25), date(2026, 12, 9), date(2026, 12, 23)] == [
            moment.date() for moment in parsed.getrruleset()
        ]
        assert 3 == len(
            _instances(data, datetime(2026, 11, 1, tzinfo=UTC), datetime(2027, 1, 31, tzinfo=UTC))
        )

    def test_a_range_without_a_rule_is_daily(self):
        """A block over 3 dates without a repeat rule is 3 daily instances."""
        ws, _, _, ana = _business()
        block = ws.resources.create_block(
            ana.id, start_date=date(2026, 12, 1), end_date=date(2026, 12, 3), start_time=900,
            end_time=1000, reason="Course",
        )  # fmt: skip
        data = export_resource(ws, ana.id)
        start, end = datetime(2026, 11, 1, tzinfo=UTC), datetime(2027, 1, 1, tzinfo=UTC)

        assert _slotwise(ws, block, NEW_YORK, date(2026, 11, 1), date(2027, 1, 1)) == (
            _instances(data, start, end)
        )

    @pytest.mark.parametrize(
        ("start_time", "end_time"),
        [(900, 1700), (0, 2400), (100, 400), (1800, 2400), (230, 330), (200, 300), (130, 230)],
    )
    def test_dst_days_in_amsterdam(self, start_time, end_time):
        """Daily blocks across 2023-03-26 (gap) and 2023-10-29 (fold) are where slotwise puts them.

        Edges inside the gap or fold (02:00-03:00) are placed by decision 2, not RFC 5545 3.3.5.
        """
        ws, _, _, ana = _business("Europe/Amsterdam")
        block = ws.resources.create_block(
            ana.id, start_date=date(2023, 3, 20), end_date="never", start_time=start_time,
            end_time=end_time, reason="Daily", repeat=RepeatRule(frequency="D"),
        )  # fmt: skip
        data = export_resource(ws, ana.id)
        amsterdam = ZoneInfo("Europe/Amsterdam")
        first, last = date(2023, 3, 24), date(2023, 11, 1)
        start = datetime.combine(first, time(0), amsterdam)
        end = datetime.combine(last + timedelta(days=1), time(0), amsterdam)
        # A zero-length instance (a window wholly inside the gap) takes no time.
        read = [pair for pair in _instances(data, start, end) if pair[1] > max(start, pair[0])]
        expected = [
            pair for pair in _slotwise(ws, block, amsterdam, first, last) if pair[0] < pair[1]
        ]

        assert expected == read

    def test_dst_overrides_are_read_by_vobject_and_ics(self):
        """A daily 02:30 block has one RECURRENCE-ID per spring gap to 2037 that both parsers read."""
        ws, _, _, ana = _business("Europe/Amsterdam")
        ws.resources.create_block(
            ana.id, start_date=date(2023, 3, 20), end_date="never", start_time=230,
            end_time=330, reason="Daily", repeat=RepeatRule(frequency="D"),
        )  # fmt: skip
        text = export_resource(ws, ana.id).decode()
        ics, vobject = pytest.importorskip("ics"), pytest.importorskip("vobject")
        overrides = [e for e in vobject.readOne(text).vevent_list if "recurrence-id" in e.contents]

        assert list(range(2023, 2038)) == [e.recurrence_id.value.year for e in overrides]
        assert datetime(2023, 3, 26, 1, tzinfo=UTC) == overrides[0].dtstart.value  # 03:00 CEST
        assert 16 == len(ics.Calendar(text).events)

    def test_a_window_wholly_in_the_gap_is_excluded(self):
        """02:00-03:00 daily has no instance on 2023-03-26 (EXDATE), not a zero-length one."""
        ws, _, _, ana = _business("Europe/Amsterdam")
        ws.resources.create_block(
            ana.id, start_date=date(2023, 3, 20), end_date=date(2023, 4, 2), start_time=200,
            end_time=300, reason="Night", repeat=RepeatRule(frequency="D"),
        )  # fmt: skip
        data = export_resource(ws, ana.id)
        [event] = icalendar.Calendar.from_ical(data).walk("VEVENT")
        days = [low.date() for low, _ in _instances(data, datetime(2023, 3, 20, tzinfo=UTC),
                                                    datetime(2023, 4, 3, tzinfo=UTC))]  # fmt: skip

        assert [datetime(2023, 3, 26, 2)] == [
            value.dt.replace(tzinfo=None) for value in event["exdate"].dts
        ]
        assert [date(2023, 3, d) for d in (20, 21, 22, 23, 24, 25, 27, 28, 29, 30, 31)] + [
            date(2023, 4, 1), date(2023, 4, 2)
        ] == days  # fmt: skip

    def test_every_tzid_has_its_vtimezone(self):
        """RFC 5545 3.6.5: the feed carries a VTIMEZONE for each TZID it uses."""
        ws, _, _, ana = _business("Europe/Amsterdam")
        ws.resources.create_block(
            ana.id, start_date=date(2026, 12, 1), end_date=date(2026, 12, 1), start_time=900,
            end_time=1000, reason="Course",
        )  # fmt: skip
        calendar = icalendar.Calendar.from_ical(export_resource(ws, ana.id))

        assert {"Europe/Amsterdam"} == calendar.get_used_tzids()
        assert {"Europe/Amsterdam"} == {str(tz["tzid"]) for tz in calendar.walk("VTIMEZONE")}


class TestEvents:
    """Appointments and holidays as a person's calendar shows them."""

    def test_names_and_place_read_by_the_ics_library(self):
        """The `ics` parser reads the service, customer and location of an appointment."""
        ws, _, cut, ana = _business()
        ws.appointments.create(
            cut.id, TUESDAY, TUESDAY + timedelta(minutes=30), resource_id=ana.id,
            name="Ann Lee", email="ann@example.com", complete_booking="BK",
        )  # fmt: skip
        ics = pytest.importorskip("ics")
        [event] = ics.Calendar(export_resource(ws, ana.id).decode()).events

        assert "Cut: Ann Lee" == event.name
        assert "Downtown, 1 Main St, Springfield" == event.location
        assert TUESDAY == event.begin.datetime

    def test_cancel_raises_the_sequence(self):
        """SEQUENCE is 1 after a cancel, 2 after a move and a cancel (RFC 5545 3.8.7.4)."""
        ws, _, cut, ana = _business()
        one = _book(ws, cut, ana, TUESDAY)
        two = _book(ws, cut, ana, TUESDAY + timedelta(hours=1))
        later = TUESDAY + timedelta(hours=2)
        moved = ws.appointments.reschedule(two.id, start=later, end=later + timedelta(minutes=30))
        cancelled = [ws.appointments.cancel(one.id), ws.appointments.cancel(moved.id)]
        vobject = pytest.importorskip("vobject")
        events = vobject.readOne(export_appointments(ws, cancelled).decode()).vevent_list

        assert [("CANCELLED", 1), ("CANCELLED", 2)] == [
            (event.status.value, int(event.sequence.value)) for event in events
        ]

    def test_holidays_are_all_day_events(self):
        """The location's holidays are all-day busy events that `ics` and vobject read."""
        ws, location, _, ana = _business()
        ws.locations.set_holidays(
            location.id, [Holiday(date=date(2026, 11, 26), name="Thanksgiving")]
        )
        data = export_resource(ws, ana.id)
        ics, vobject = pytest.importorskip("ics"), pytest.importorskip("vobject")
        [event] = ics.Calendar(data.decode()).events
        [parsed] = vobject.readOne(data.decode()).vevent_list

        assert ("Thanksgiving", True) == (event.name, event.all_day)
        assert date(2026, 11, 26) == parsed.dtstart.value


def _merged(pairs):
    merged: list[list[datetime]] = []
    for low, high in sorted(pairs):
        if merged and low <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], high)
        else:
            merged.append([low, high])
    return [tuple(pair) for pair in merged]


class TestRoundTrip:
    """slotwise reads its own resource feed back as the same busy time."""

    def test_the_feed_is_the_resources_busy_time(self):
        """Booked and held appointments, blocks (DST included) and holidays; not the rest."""
        provider = IcsBusyTime({}, unreadable="raise")
        ws, location, cut, ana = _business(busy_provider=provider)
        ws.locations.set_holidays(location.id, [Holiday(date=date(2026, 11, 26), name="Thanks")])
        lunch = ws.resources.create_block(
            ana.id, start_date=date(2026, 10, 26), end_date=date(2026, 12, 4), start_time=1200,
            end_time=1300, reason="Lunch", repeat=RepeatRule(frequency="W", weekdays="135"),
        )  # fmt: skip
        ws.resources.create_allocation(
            ana.id, start_date=date(2026, 11, 28), end_date=date(2026, 11, 28), start_time=900,
            end_time=1200, reason="Saturday",
        )  # fmt: skip
        start = datetime(2026, 11, 24, 15, tzinfo=UTC)
        booked = ws.appointments.create(
            cut.id, start, start + timedelta(minutes=30), resource_id=ana.id,
            name="Ann Lee", email="ann@example.com", complete_booking="BK",
        )  # fmt: skip
        hold = ws.appointments.create(cut.id, start + timedelta(hours=2),
                                      start + timedelta(hours=2, minutes=30), resource_id=ana.id)  # fmt: skip
        gone = _book(ws, cut, ana, start + timedelta(hours=4))
        ws.appointments.cancel(gone.id)
        ana = ws.resources.get(ana.id)
        provider.sources[ana.id] = export_resource(ws, ana.id)
        low, high = datetime(2026, 10, 20, tzinfo=UTC), datetime(2026, 12, 10, tzinfo=UTC)

        expected = [
            (booked.start, booked.end),
            (hold.start, hold.end),
            *_slotwise(ws, lunch, NEW_YORK, date(2026, 10, 19), date(2026, 12, 10)),
            (datetime(2026, 11, 26, 5, tzinfo=UTC), datetime(2026, 11, 27, 5, tzinfo=UTC)),
        ]
        assert _merged(expected) == _merged(provider.busy(ana, low, high))


class TestBadArguments:
    """``export_resource`` refuses what is not its arguments' kind with a typed error."""

    @pytest.mark.parametrize(
        ("since", "error"),
        [
            (datetime(2026, 11, 1), "NaiveDatetime"),
            (date(2026, 11, 1), "InvalidFormat"),
            ("2026-11-01T00:00:00Z", "InvalidFormat"),
        ],
    )
    def test_since(self, since, error):
        """A naive datetime, a date or text is refused naming ``since``."""
        from slotwise.errors import SlotwiseError

        ws, _, cut, ana = _business()
        _book(ws, cut, ana, TUESDAY)

        with pytest.raises(SlotwiseError) as refused:
            export_resource(ws, ana.id, since=since)

        assert (error, "since") == (type(refused.value).__name__, refused.value.field)

    def test_since_in_another_zone_compares_as_an_instant(self):
        """An aware ``since`` in any zone keeps the appointments that end after it."""
        ws, _, cut, ana = _business()
        _book(ws, cut, ana, TUESDAY)

        later = export_resource(
            ws, ana.id, since=(TUESDAY + timedelta(hours=1)).astimezone(NEW_YORK)
        )
        earlier = export_resource(ws, ana.id, since=TUESDAY.astimezone(NEW_YORK))

        assert (b"Cut: Ann Lee" in later, b"Cut: Ann Lee" in earlier) == (False, True)

    def test_include_windows_is_a_bool(self):
        """``include_windows="no"`` is refused, not read as true."""
        from slotwise.errors import InvalidFormat

        ws, _, _, ana = _business()

        with pytest.raises(InvalidFormat, match="include_windows"):
            export_resource(ws, ana.id, include_windows="no")
