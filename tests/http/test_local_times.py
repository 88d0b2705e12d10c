"""
Local time on the wire (decision 43), through a real ``slotwise serve`` process and a client.

A New York location open every day: a 09:00 booking comes back as ``T09:00:00-05:00`` in winter
and ``-04:00`` in summer (both DST-change Sundays included), with ``date``, ``time`` 900 and
``timezone`` the offset in minutes, whatever offset the request used for the same instant.
Available times carry the location's offset, or the one ``tzOffset`` asks for.
"""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import attrs
import pytest

pytest.importorskip("sqlalchemy")
httpx = pytest.importorskip("httpx")

from slotwise import (  # noqa: E402
    BookingWindow,
    BusinessHours,
    DayHours,
    LocationSettings,
    Principal,
    Scheduler,
)
from slotwise.storage.sql import SQLStore  # noqa: E402

NEW_YORK = ZoneInfo("America/New_York")
DAYS = ("sun", "mon", "tue", "wed", "thu", "fri", "sat")


@attrs.frozen
class Served:
    """A running ``slotwise serve`` and what the test needs to call it."""

    client: Any
    location_id: str
    service_id: str
    resource_id: str


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _seed(url: str) -> tuple[str, str, str, str]:
    """A New York company open 09:00-17:00 every day, booking up to two years ahead."""
    store = SQLStore(url)
    try:
        scheduler = Scheduler(store)
        company = scheduler.create_company(name="Acme", timezone="America/New_York")
        ws = scheduler.for_company(company.id)
        every_day = DayHours(is_open=True, start_time=900, end_time=1700)
        location = ws.locations.create(
            name="Midtown",
            business_hours=BusinessHours(**dict.fromkeys(DAYS, every_day)),
            settings=LocationSettings(
                booking_window=BookingWindow(book_ahead_unit="months", book_ahead_value=24)
            ),
        )
        service = ws.services.create(name="Cut", duration=30, reason="r", location_id=location.id)
        resource = ws.resources.create(name="Ana", reason="r", location_id=location.id)
        token = scheduler.tokens.create(Principal(company_id=company.id), label="wire").token
    finally:
        store.close()
    return token, location.id, service.id, resource.id


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    """``slotwise serve`` on a SQLite file seeded with the New York company."""
    path: Path = tmp_path_factory.mktemp("local") / "served.db"
    url = f"sqlite:///{path}"
    token, location_id, service_id, resource_id = _seed(url)
    port = _free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "slotwise", "serve", "--db", url, "--port", str(port),
         "--log-level", "warning"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )  # fmt: skip
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and process.poll() is None:
        try:
            httpx.get(f"{base}/healthz", timeout=2)
            break
        except httpx.HTTPError:
            time.sleep(0.2)
    client = httpx.Client(base_url=base, headers={"Authorization": f"Bearer {token}"}, timeout=30)
    try:
        yield Served(client, location_id, service_id, resource_id)
    finally:
        client.close()
        process.terminate()
        process.communicate(timeout=30)


def _sunday(year: int, month: int, nth: int) -> date:
    first = date(year, month, 1)
    return first + timedelta(days=(6 - first.weekday()) % 7 + 7 * (nth - 1))


NEXT = datetime.now(UTC).year + 1  # a year inside the two-year booking window, all of it ahead
DATES = {
    "winter": (date(NEXT, 1, 12), -300),
    "spring-forward Sunday": (_sunday(NEXT, 3, 2), -240),
    "summer": (date(NEXT, 7, 14), -240),
    "fall-back Sunday": (_sunday(NEXT, 11, 1), -300),
}


def _text(day: date, hhmm: str, offset: int) -> str:
    return f"{day.isoformat()}T{hhmm}:00-{-offset // 60:02d}:00"


def _book(served: Served, start: str, end: str) -> Any:
    return served.client.post(
        "/consumer/v1/appointments",
        params={"completeBooking": "BK"},
        json={
            "serviceId": served.service_id,
            "resourceId": served.resource_id,
            "locationId": served.location_id,
            "startDateTime": start,
            "endDateTime": end,
            "name": "Ann Lee",
            "email": "ann@example.com",
        },
    )


class TestAppointmentsInLocalTime:
    """A booking's instants, date, time and timezone are the location's wall time."""

    @pytest.mark.parametrize("season", list(DATES))
    def test_a_nine_oclock_booking_reads_nine_oclock(self, served, season):
        """Booked with UTC ``Z`` times, answered (and read back) at 09:00 with the local offset."""
        day, offset = DATES[season]
        start = datetime.combine(day, datetime.min.time(), NEW_YORK).replace(hour=9)
        utc = start.astimezone(UTC)
        created = _book(
            served,
            utc.strftime("%Y-%m-%dT%H:%M:%SZ"),
            (utc + timedelta(minutes=30)).strftime("%Y-%m-%dT%H:%M:%SZ"),
        )
        read = served.client.get(f"/consumer/v1/appointments/{created.json()['id']}")
        expected = {
            "startDateTime": _text(day, "09:00", offset),
            "endDateTime": _text(day, "09:30", offset),
            "date": day.isoformat(),
            "time": 900,
            "timezone": offset,
        }

        assert 201 == created.status_code, created.text
        assert expected == {key: created.json()[key] for key in expected}
        assert expected == {key: read.json()[key] for key in expected}
        assert created.json()["createDate"].endswith(("-05:00", "-04:00"))

    def test_any_offset_names_the_same_instant(self, served):
        """Asked with +01:00 for 15:00 (14:00Z), the booking is 09:00-05:00, and so is its slot."""
        day = date(NEXT, 1, 13)
        created = _book(
            served, f"{day.isoformat()}T15:00:00+01:00", f"{day.isoformat()}T15:30:00+01:00"
        )
        again = _book(
            served, f"{day.isoformat()}T09:00:00-05:00", f"{day.isoformat()}T09:30:00-05:00"
        )

        assert 201 == created.status_code, created.text
        assert _text(day, "09:00", -300) == created.json()["startDateTime"]
        assert 409 == again.status_code  # the same instant: the resource is taken


class TestAvailabilityInLocalTime:
    """Available times carry the location's offset, or the zone the request names."""

    def test_slots_carry_the_location_offset(self, served):
        """A summer day's first slot is 09:00-04:00, date and time in New York."""
        day = date(NEXT, 7, 15)
        answer = served.client.get(
            f"/consumer/v1/availability/{served.service_id}/{day}/{day}",
            params={"resourceId": served.resource_id, "locationId": served.location_id},
        )
        first = answer.json()["availableTimes"][0]

        assert 200 == answer.status_code, answer.text
        assert (_text(day, "09:00", -240), day.isoformat(), 900) == (
            first["startDateTime"],
            first["date"],
            first["time"],
        )

    def test_tz_offset_asks_for_another_zone(self, served):
        """tzOffset=60 gives the same first slot as 14:00+01:00 (13:00Z in summer)."""
        day = date(NEXT, 7, 15)
        answer = served.client.get(
            f"/consumer/v1/availability/{served.service_id}/{day}/{day}",
            params={
                "resourceId": served.resource_id,
                "locationId": served.location_id,
                "tzOffset": 60,
            },
        )
        first = answer.json()["availableTimes"][0]

        assert 200 == answer.status_code, answer.text
        assert f"{day.isoformat()}T14:00:00+01:00" == first["startDateTime"]


class TestBlocksOverTheWire:
    """A block created through the served interface with the spec's request forms (decision 45)."""

    def test_a_repeating_block_from_a_date_time_start(self, served):
        """startDate as a date-time (its New York date) with repeats blocks 09:00-10:00 daily."""
        day = date(NEXT, 2, 2)
        created = served.client.post(
            f"/setup/v1/resources/{served.resource_id}/block",
            json={
                # 21:30 the evening before in Los Angeles is 00:30 on *day* in New York.
                "startDate": f"{(day - timedelta(days=1)).isoformat()}T21:30:00-08:00",
                "endDate": (day + timedelta(days=2)).isoformat(),
                "startTime": 900,
                "endTime": 1000,
                "repeats": True,
                "repeat": {"frequency": "D", "interval": 1},
            },
        )
        read = served.client.get(f"/setup/v1/resources/blocks/{created.json()['id']}")
        firsts = []
        for offset in range(3):
            one = (day + timedelta(days=offset)).isoformat()
            times = served.client.get(
                f"/consumer/v1/availability/{served.service_id}/{one}/{one}",
                params={"resourceId": served.resource_id, "locationId": served.location_id},
            ).json()["availableTimes"]
            firsts.append(times[0]["startDateTime"])

        assert 201 == created.status_code, created.text
        assert (day.isoformat(), True, served.resource_id) == (
            read.json()["startDate"],
            read.json()["repeats"],
            read.json()["resourceId"],
        )
        assert [_text(day + timedelta(days=offset), "10:00", -300) for offset in range(3)] == firsts


def test_other_located_records_carry_the_offset(api):
    """A deleted resource's deletedTime and a delivery's times are New York local (in process)."""
    deleted = api.call("DELETE /setup/v1/resources/{id}", id=api.ids["A"]["resource"])
    deliveries = api.call("GET /setup/v1/webhooks/deliveries", params={"limit": 100})
    located = [d for d in deliveries.json()["data"] if d["locationId"] is not None]

    assert 200 == deleted.status_code, deleted.text
    assert deleted.json()["deletedTime"].endswith("-05:00")
    assert located
    assert all(d["createDate"].endswith("-05:00") for d in located)
