"""
Dates given as text (availability's path dates, the appointment list's ``start_date`` and
``end_date``): ``YYYY-MM-DD`` or a whole ISO 8601 date-time with its offset, nothing else.

They were read from their first ten characters, so ``2026-11-24garbage`` searched the 24th and
a date-time without an offset was taken without a word.
"""

from __future__ import annotations

from datetime import UTC, date, datetime

import pytest

from slotwise import InvalidFormat, NaiveDatetime, Service, Workspace


@pytest.fixture
def service(ws: Workspace, location) -> Service:
    """A 30-minute service with one resource."""
    created = ws.services.create(name="Cut", duration=30, reason="launch")
    ws.resources.create(name="Ana", reason="hire")
    return created


@pytest.mark.parametrize(
    ("text", "day"),
    [
        ("2026-01-07", date(2026, 1, 7)),
        ("2026-01-07T00:00:00-05:00", date(2026, 1, 7)),
        ("2026-01-07T23:00:00Z", date(2026, 1, 7)),  # the date as written
        ("2026-01-07 10:00:00+01:00", date(2026, 1, 7)),
    ],
)
def test_a_date_or_a_whole_date_time(ws: Workspace, service: Service, text: str, day: date):
    """Each form searches the date it writes."""
    found = ws.availability.times(service.id, text, text)

    assert {day} == {slot.date for slot in found.available_times}


@pytest.mark.parametrize(
    ("text", "error"),
    [
        ("2026-01-07garbage", InvalidFormat),
        ("2026-01-07T", InvalidFormat),
        ("20260107", InvalidFormat),
        ("2026-13-01", InvalidFormat),
        ("2026-01-07T10:00:00", NaiveDatetime),
    ],
)
def test_anything_else_is_refused_naming_the_argument(
    ws: Workspace, service: Service, text: str, error: type[Exception]
):
    """Trailing text, a bad date or a date-time without an offset: refused, naming the field."""
    with pytest.raises(error) as refused:
        ws.availability.times(service.id, text, "2026-01-08")
    with pytest.raises(error) as listed:
        ws.appointments.list(start_date=text)

    assert ("start_date", "start_date") == (
        refused.value.field,  # type: ignore[attr-defined]
        listed.value.field,  # type: ignore[attr-defined]
    )


def test_python_datetimes_keep_their_own_wall_date(ws: Workspace, service: Service):
    """An aware datetime object is its own wall date (a Python caller's convenience)."""
    evening = datetime(2026, 1, 7, 23, tzinfo=UTC)
    found = ws.availability.times(service.id, evening, evening)

    assert {date(2026, 1, 7)} == {slot.date for slot in found.available_times}
