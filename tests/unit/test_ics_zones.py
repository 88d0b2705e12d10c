"""
Each calendar is read with its own time zones, whatever was read before it in the process.

icalendar remembers a ``VTIMEZONE`` by its ``TZID`` process-wide (first definition wins), and
Outlook calls every custom zone ``Customized Time Zone``: one company's calendar must never
place another company's events. An unknown ``X-WR-TIMEZONE`` is ignored, not fatal.
"""

from __future__ import annotations

import logging
from datetime import UTC, datetime

import pytest

pytest.importorskip("recurring_ical_events")

from slotwise.ics import IcsBusyTime
from slotwise.ics._zones import own_zones
from slotwise.model import Resource
from slotwise.testing.samples import sample_resource

CENTRAL_EUROPE = [
    "BEGIN:STANDARD",
    "DTSTART:16010101T030000",
    "TZOFFSETFROM:+0200",
    "TZOFFSETTO:+0100",
    "RRULE:FREQ=YEARLY;BYDAY=-1SU;BYMONTH=10",
    "END:STANDARD",
    "BEGIN:DAYLIGHT",
    "DTSTART:16010101T020000",
    "TZOFFSETFROM:+0100",
    "TZOFFSETTO:+0200",
    "RRULE:FREQ=YEARLY;BYDAY=-1SU;BYMONTH=3",
    "END:DAYLIGHT",
]
US_EASTERN = [
    "BEGIN:STANDARD",
    "DTSTART:16010101T020000",
    "TZOFFSETFROM:-0400",
    "TZOFFSETTO:-0500",
    "RRULE:FREQ=YEARLY;BYDAY=1SU;BYMONTH=11",
    "END:STANDARD",
    "BEGIN:DAYLIGHT",
    "DTSTART:16010101T020000",
    "TZOFFSETFROM:-0500",
    "TZOFFSETTO:-0400",
    "RRULE:FREQ=YEARLY;BYDAY=2SU;BYMONTH=3",
    "END:DAYLIGHT",
]
# Eastern time as it was before 2007: summer time ends on the last Sunday of October.
OLD_EASTERN = [
    *US_EASTERN[:4],
    "RRULE:FREQ=YEARLY;BYDAY=-1SU;BYMONTH=10",
    *US_EASTERN[5:10],
    "RRULE:FREQ=YEARLY;BYDAY=1SU;BYMONTH=4",
    "END:DAYLIGHT",
]


def _calendar(tzid: str, rules: list[str] | None, day: str, *header: str) -> bytes:
    """An Outlook-style calendar: one 09:00-10:00 event on *day* in *tzid*, CRLF, folded."""
    zone = ["BEGIN:VTIMEZONE", f"TZID:{tzid}", *rules, "END:VTIMEZONE"] if rules else []
    lines = [
        "BEGIN:VCALENDAR",
        "PRODID:-//Microsoft Corporation//Outlook 16.0 MIMEDIR//EN",
        "VERSION:2.0",
        *header,
        *zone,
        "BEGIN:VEVENT",
        "UID:meeting",
        "DTSTAMP:20261001T000000Z",
        f'DTSTART;TZID="{tzid}":{day}T090000',
        # Folded inside the parameter, as Outlook folds long lines.
        f'DTEND;TZID="{tzid[:5]}\r\n {tzid[5:]}":{day}T100000',
        "X-MICROSOFT-CDO-BUSYSTATUS:BUSY",
        "END:VEVENT",
        "END:VCALENDAR",
        "",
    ]
    return "\r\n".join(lines).encode()


def _resource(resource_id: str, timezone: str) -> Resource:
    return sample_resource(id=resource_id, company_id="c", location_id="l", timezone=timezone)


def _read(resource: Resource, data: bytes) -> list[tuple[datetime, datetime]]:
    provider = IcsBusyTime({resource.id: data}, unreadable="raise")
    return provider.busy(
        resource, datetime(2026, 10, 20, tzinfo=UTC), datetime(2026, 11, 20, tzinfo=UTC)
    )


def _at(day: int, month: int, hour: int) -> tuple[datetime, datetime]:
    return (
        datetime(2026, month, day, hour, tzinfo=UTC),
        datetime(2026, month, day, hour + 1, tzinfo=UTC),
    )


@pytest.mark.parametrize("paris_first", [True, False])
def test_one_custom_zone_name_with_two_definitions(paris_first: bool):
    """Two companies' "Customized Time Zone": each calendar reads with its own rules, in any order."""
    paris = (
        _resource("claire", "Europe/Paris"),
        _calendar("Customized Time Zone", CENTRAL_EUROPE, "20261110"),
    )
    new_york = (
        _resource("dan", "America/New_York"),
        _calendar("Customized Time Zone", US_EASTERN, "20261110"),
    )
    order = [paris, new_york] if paris_first else [new_york, paris]

    read = {resource.id: _read(resource, data) for resource, data in order}

    assert {"claire": [_at(10, 11, 8)], "dan": [_at(10, 11, 14)]} == read


@pytest.mark.parametrize("defined_first", [True, False])
def test_a_windows_name_defined_by_one_calendar_only(defined_first: bool):
    """
    A calendar that defines "Eastern Standard Time" with old rules is read by them; one that only
    names it reads America/New_York (30 October 2026: EST by the old rules, EDT by today's).
    """
    defined = (
        _resource("ana", "America/New_York"),
        _calendar("Eastern Standard Time", OLD_EASTERN, "20261030"),
    )
    named = (
        _resource("ben", "America/New_York"),
        _calendar("Eastern Standard Time", None, "20261030"),
    )
    order = [defined, named] if defined_first else [named, defined]

    read = {resource.id: _read(resource, data) for resource, data in order}

    assert {"ana": [_at(30, 10, 14)], "ben": [_at(30, 10, 13)]} == read


@pytest.mark.parametrize("name", ["Mars/Olympus", "Eastern Standard Time"])
def test_an_unknown_x_wr_timezone_is_ignored(name: str, caplog: pytest.LogCaptureFixture):
    """The calendar still reads: its events by their TZID, the name logged at INFO."""
    resource = _resource("ana", "America/New_York")
    data = _calendar("Customized Time Zone", US_EASTERN, "20261110", f"X-WR-TIMEZONE:{name}")

    with caplog.at_level(logging.INFO, logger="slotwise.ics"):
        busy = _read(resource, data)

    assert [_at(10, 11, 14)] == busy
    assert any(name in record.getMessage() for record in caplog.records)


def test_a_calendar_defining_only_iana_zones_is_read_as_sent():
    """Google's VTIMEZONE of an IANA name: nothing renamed, the bytes handed on as they are."""
    data = _calendar("America/New_York", US_EASTERN, "20261110")

    assert data == own_zones(data)
    assert [_at(10, 11, 14)] == _read(_resource("ana", "Europe/Paris"), data)


def test_renaming_keeps_every_other_line_and_reads_lowercase_parameters():
    """Only TZIDs change: the rename reaches a lowercase ``tzid=`` and leaves other lines alone."""
    data = _calendar("Customized Time Zone", US_EASTERN, "20261110").replace(
        b"DTSTART;TZID", b"DTSTART;tzid"
    )

    renamed = own_zones(data).decode()

    assert "Customized Time Zone" not in renamed
    assert renamed.count("slotwise-vtimezone-") == 3
    assert "X-MICROSOFT-CDO-BUSYSTATUS:BUSY" in renamed.splitlines()
    assert [_at(10, 11, 14)] == _read(_resource("ana", "Europe/Paris"), data)


def test_a_name_defined_twice_in_one_calendar_stays_in_that_calendar():
    """
    A calendar defining one TZID twice is read by its first definition (icalendar's choice),
    and another calendar with only the second definition still reads its own.
    """
    twice = _calendar("Customized Time Zone", CENTRAL_EUROPE, "20261110").replace(
        b"BEGIN:VEVENT",
        "\r\n".join(
            ["BEGIN:VTIMEZONE", "TZID:Customized Time Zone", *US_EASTERN, "END:VTIMEZONE", ""]
        ).encode()
        + b"BEGIN:VEVENT",
        1,
    )
    once = _calendar("Customized Time Zone", US_EASTERN, "20261110")

    first = _read(_resource("claire", "Europe/Paris"), twice)
    second = _read(_resource("dan", "America/New_York"), once)

    assert ([_at(10, 11, 8)], [_at(10, 11, 14)]) == (first, second)


@pytest.mark.parametrize("tzid", ["America", "Etc", "x" * 300])
def test_a_name_the_database_cannot_look_up_is_the_calendar_s_own(tzid: str):
    """A directory of the zone database, or a name too long for a path: read by its VTIMEZONE."""
    data = _calendar(tzid, US_EASTERN, "20261110")

    assert [_at(10, 11, 14)] == _read(_resource("ana", "Europe/Paris"), data)
