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


@st.composite
def _windows(draw: st.DrawFn) -> dict[str, object]:
    start_date = draw(st.dates(date(2020, 1, 1), date(2030, 12, 31)))
    end_date = draw(st.just(OPEN_END) | st.dates(start_date, start_date + timedelta(days=900)))
    if draw(st.booleans()):
        start = draw(st.integers(0, 95)) * 15
        end = draw(st.integers(start // 15 + 1, 96)) * 15
    else:
        # Edges near the hours where the four zones change their clocks (gaps and folds).
        start = draw(st.integers(4, 12)) * 15
        end = draw(st.integers(start // 15 + 1, 16)) * 15
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
    """Over a year from a random date, every exported block's instances are slotwise's own.

    DST gaps and folds included: where RFC 5545 would place an edge elsewhere (decision 2), the
    export writes that instance (RECURRENCE-ID), or excludes it (EXDATE) when slotwise reads it
    as empty.
    """
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
        begin = event.decoded("dtstart").astimezone(tz)
        finish = event.decoded("dtend").astimezone(UTC)
        # A zero-length instance (a window wholly inside a DST gap) takes no time.
        if first <= begin.date() <= last and begin < finish:
            read[begin.date()] = (begin.astimezone(UTC), finish)
    expected = {
        day: instants
        for day in occurrence_dates(block, first, last)
        if (instants := window_instants(block, day, tz))[0] < instants[1]
    }

    assert expected == read
