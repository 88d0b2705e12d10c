"""Exported repeat rules expand, in recurring-ical-events, to slotwise's own occurrences (issue 22)."""

from __future__ import annotations

from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo

import pytest
from hypothesis import given
from hypothesis import strategies as st

recurring_ical_events = pytest.importorskip("recurring_ical_events")
icalendar = pytest.importorskip("icalendar")

from slotwise import Scheduler  # noqa: E402
from slotwise.ics import export_resource  # noqa: E402
from slotwise.model.blocks import OPEN_END  # noqa: E402
from slotwise.rules.repeat import occurrence_dates, window_instants  # noqa: E402
from slotwise.testing import ManualClock, SequentialIds  # noqa: E402
from tests import strategies  # noqa: E402

# A gap and fold every year (two hemispheres), a half-hour DST shift, and none.
ZONES = ("Europe/Amsterdam", "America/New_York", "Australia/Lord_Howe", "UTC")

_SCHEDULER = Scheduler(clock=ManualClock(datetime(2026, 1, 1, tzinfo=UTC)), ids=SequentialIds())
_WS = _SCHEDULER.for_company(_SCHEDULER.create_company(name="Acme", timezone="UTC").id)
_LOCATIONS = {name: _WS.locations.create(name=name[:50], timezone=name) for name in ZONES}


def _wall(day: date, hhmm: int, tz: ZoneInfo) -> datetime:
    return datetime.combine(day, time(0), tz) + timedelta(minutes=hhmm // 100 * 60 + hhmm % 100)


def _is_exact(moment: datetime) -> bool:
    """Tell whether a wall time names one instant (not in a DST gap or fold)."""
    earlier, later = moment.replace(fold=0), moment.replace(fold=1)
    round_trip = earlier.astimezone(UTC).astimezone(moment.tzinfo)
    return earlier.utcoffset() == later.utcoffset() and round_trip.replace(tzinfo=None) == (
        earlier.replace(tzinfo=None)
    )


@st.composite
def _windows(draw: st.DrawFn) -> dict[str, object]:
    start_date = draw(st.dates(date(2020, 1, 1), date(2030, 12, 31)))
    end_date = draw(st.just(OPEN_END) | st.dates(start_date, start_date + timedelta(days=900)))
    start = draw(st.integers(0, 95)) * 15
    end = draw(st.integers(start // 15 + 1, 96)) * 15
    return {
        "start_date": start_date,
        "end_date": end_date,
        "start_time": start // 60 * 100 + start % 60,
        "end_time": end // 60 * 100 + end % 60,
        "reason": "Block",
        "repeat": draw(
            st.none() | strategies.repeat_rules(max_interval=3) | strategies.repeat_rules()
        ),
    }


@given(
    fields=_windows(),
    zone_name=st.sampled_from(ZONES),
    offset=st.integers(0, 500),
)
def test_exported_rules_expand_to_slotwises_occurrences(fields, zone_name, offset):
    """Over a year from a random date, every exported block's instances are slotwise's own."""
    resource = _WS.resources.create(name="Ana", reason="r", location_id=_LOCATIONS[zone_name].id)
    block = _WS.resources.create_block(resource.id, **fields)
    tz = ZoneInfo(zone_name)
    first = block.start_date + timedelta(days=offset)
    last = first + timedelta(days=365)
    calendar = icalendar.Calendar.from_ical(export_resource(_WS, resource.id))
    low = datetime.combine(first, time(0), tz)
    high = datetime.combine(last + timedelta(days=1), time(0), tz)

    read = {}
    for event in recurring_ical_events.of(calendar).between(low, high):
        begin = event.decoded("dtstart")
        if first <= begin.date() <= last:
            read[begin.date()] = (begin.astimezone(UTC), event.decoded("dtend").astimezone(UTC))
    expected = {
        day: window_instants(block, day, tz) for day in occurrence_dates(block, first, last)
    }
    # RFC 5545 3.3.5 reads a wall time in a DST gap with the offset before it, and a fold's
    # with the first; slotwise (decision 2) takes the instant after a gap and a fold's later
    # instant for an end. Where an edge is such a time, only the date has to agree.
    exact = {
        day
        for day in expected
        if _is_exact(_wall(day, block.start_time, tz)) and _is_exact(_wall(day, block.end_time, tz))
    }

    assert {day for day in expected if day in exact} == {day for day in read if day in exact}
    assert {day: expected[day] for day in exact} == {day: read[day] for day in exact}
    assert set(expected) <= set(read) | {d for d in expected if expected[d][0] == expected[d][1]}
