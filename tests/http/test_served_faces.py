"""
What a client written from the spec meets on a real ``slotwise serve`` process (eleventh
session's review): ``HEAD`` wherever ``GET`` is, bodies that are not UTF-8, JSON Patch on
every record's ``PUT``, a slot booked as availability gave it, and limited tokens creating
groups.
"""

from __future__ import annotations

import re
import subprocess
import sys
from collections.abc import Iterator
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import httpx
import pytest

pytest.importorskip("litestar")
pytest.importorskip("sqlalchemy")

from ._served import Served, child_environment, served


@pytest.fixture(scope="module")
def database(tmp_path_factory: pytest.TempPathFactory) -> str:
    """The SQLite file the server serves (the command line writes tokens into it)."""
    return f"sqlite:///{Path(tmp_path_factory.mktemp('faces')) / 'faces.db'}"


@pytest.fixture(scope="module")
def server(database: str) -> Iterator[Served]:
    """``slotwise serve`` over the demo business in a SQLite file."""
    with served(database) as running:
        yield running


@pytest.fixture
def client(server: Served) -> Iterator[httpx.Client]:
    """A client with the demo company's token."""
    with httpx.Client(base_url=server.base, headers=server.headers, timeout=30) as opened:
        yield opened


class TestHead:
    """RFC 9110 9.1: HEAD is answered wherever GET is, with GET's status and headers."""

    @pytest.mark.parametrize(
        "path",
        [
            "/consumer/v1/locations",
            "/consumer/v1/locations/{location}",
            "/setup/v1/services/{massage}",
            "/livez",
            "/readyz",
            "/openapi.json",
        ],
    )
    def test_head_is_get_without_its_body(self, client: httpx.Client, server: Served, path: str):
        """Status, type and length as GET's; no body."""
        path = path.format(**server.ids)
        got = client.get(path)
        head = client.head(path)

        assert (200, 200, b"") == (got.status_code, head.status_code, head.content)
        assert got.headers["content-type"] == head.headers["content-type"]
        assert got.headers["content-length"] == head.headers["content-length"]

    def test_head_of_a_missing_record_is_its_404(self, client: httpx.Client):
        """A HEAD is refused as its GET would be."""
        answer = client.head("/setup/v1/services/no-such-service")

        assert (404, b"") == (answer.status_code, answer.content)

    def test_options_and_405_name_head_beside_get(self, client: httpx.Client):
        """``Allow`` lists HEAD wherever it lists GET."""
        options = client.options("/consumer/v1/locations")
        refused = client.delete("/consumer/v1/customers")

        assert "HEAD" in [m.strip() for m in options.headers["allow"].split(",")]
        assert 405 == refused.status_code
        allowed = [m.strip() for m in refused.headers["allow"].split(",")]
        assert {"GET", "HEAD"} <= set(allowed)


@pytest.mark.parametrize("media", ["application/json", "application/json-patch+json"])
def test_a_body_that_is_not_utf8_is_400(client: httpx.Client, server: Served, media: str):
    """Latin-1 bytes in a body: 400 INVALID-FORMAT naming ``body``, and nothing changes."""
    path = f"/setup/v1/services/{server.ids['massage']}"
    before = client.get(path).json()
    text = '{"name": "Zoé"}'
    if media.endswith("patch+json"):
        text = '[{"op": "replace", "path": "/name", "value": "Zoé"}]'

    answer = client.put(path, content=text.encode("latin-1"), headers={"Content-Type": media})

    assert (400, "INVALID-FORMAT", "body") == (
        answer.status_code,
        answer.json()["code"],
        answer.json()["field"],
    )
    assert before == client.get(path).json()


def _weekday_ahead(days: int) -> date:
    """A weekday at least *days* from today (the served process books by the system clock)."""
    day = datetime.now(UTC).date() + timedelta(days=days)
    while day.weekday() >= 5:
        day += timedelta(days=1)
    return day


def test_a_slot_is_booked_as_availability_gave_it(client: httpx.Client, server: Served):
    """
    A location-scoped service at a second location: availability without ``locationId``
    searches the service's own location (decision 46), and booking a slot exactly as it came
    (spec: Create rule 5), again without ``locationId``, books it there.
    """
    uptown = client.post("/setup/v1/locations", json={"name": "Uptown"}).json()["id"]
    service = client.post(
        "/setup/v1/services",
        json={"name": "Uptown massage", "duration": 60, "reason": "r", "locationId": uptown},
    ).json()["id"]
    resource = client.post(
        "/setup/v1/resources", json={"name": "Cleo", "reason": "r", "locationId": uptown}
    ).json()["id"]
    day = _weekday_ahead(2)
    listed = client.get(
        f"/consumer/v1/availability/{service}/{day}/{day}", params={"resourceId": resource}
    ).json()
    slot = listed["availableTimes"][0]

    booked = client.post(
        "/consumer/v1/appointments",
        json={
            "serviceId": service,
            "resourceId": slot["resourceId"],
            "startDateTime": slot["startDateTime"],
            "endDateTime": slot["endDateTime"],
        },
    )

    assert (uptown, 201) == (listed["locationId"], booked.status_code), booked.text
    assert (uptown, slot["startDateTime"]) == (
        booked.json()["locationId"],
        booked.json()["startDateTime"],
    )


_LOCATION_PUT = "PUT /setup/v1/locations/{id}"
"""The extension path that changes a location named in its path (fields or a patch)."""


class TestPatchEveryRecord:
    """Every record's ``PUT`` takes a JSON Patch (docs/http.md): the company and a location too."""

    _PATCH = {"Content-Type": "application/json-patch+json"}

    @pytest.mark.parametrize("path", ["/setup/v1/companies", "/setup/v1/company/{company}"])
    def test_the_company(self, client: httpx.Client, server: Served, path: str):
        """Both company paths apply a patch to the company as GET shows it; null is no patch."""
        patch = [{"op": "replace", "path": "/website", "value": f"https://example.com{len(path)}"}]

        answer = client.put(path.format(**server.ids), json=patch, headers=self._PATCH)

        assert 200 == answer.status_code, answer.text
        assert patch[0]["value"] == client.get("/setup/v1/companies").json()["website"]
        nothing = client.put(path.format(**server.ids), content=b"null", headers=self._PATCH)
        assert (400, "body") == (nothing.status_code, nothing.json()["field"])

    def test_a_location_by_its_path(self, client: httpx.Client, server: Served):
        """``PUT /setup/v1/locations/{id}`` takes fields or a patch; a nested key is patched alone."""
        method, _, path = _LOCATION_PUT.partition(" ")
        path = path.format(id=server.ids["location"])
        before = client.get(f"/consumer/v1/locations/{server.ids['location']}").json()
        patch = [{"op": "replace", "path": "/settings/lateCancelHours", "value": 3}]

        patched = client.request(method, path, json=patch, headers=self._PATCH)
        named = client.request(method, path, json={"phone": "212-555-0199"})

        assert (200, 200) == (patched.status_code, named.status_code), patched.text + named.text
        after = named.json()
        assert (3, "212-555-0199") == (after["settings"]["lateCancelHours"], after["phone"])
        assert before["settings"]["bookingWindow"] == after["settings"]["bookingWindow"]

    def test_the_location_path_refuses_an_id_in_the_body(
        self, client: httpx.Client, server: Served
    ):
        """The record is the path's: an ``id`` in the body is an unexpected field."""
        answer = client.put(
            f"/setup/v1/locations/{server.ids['location']}", json={"id": "other", "name": "X"}
        )

        assert (400, "UNEXPECTED-FIELD", "id") == (
            answer.status_code,
            answer.json()["code"],
            answer.json()["field"],
        )


def test_a_limited_token_creates_groups_at_its_location(
    client: httpx.Client, server: Served, database: str
):
    """
    Decision 42: a token limited to one location that names none creates its groups there
    (was 401 naming ``companyId``, a field the client never sent).
    """
    uptown = client.post("/setup/v1/locations", json={"name": "Uptown desk"}).json()["id"]
    made = subprocess.run(
        [sys.executable, "-m", "slotwise", "tokens", "create", "--db", database,
         "--company", server.ids["company"], "--location", uptown, "--label", "uptown desk"],
        capture_output=True, text=True, env=child_environment(), timeout=120, check=True,
    )  # fmt: skip
    token = re.search(r"^token:\s+(\S+)", made.stdout, re.MULTILINE)
    assert token is not None, made.stdout
    desk = {"Authorization": f"Bearer {token.group(1)}"}

    staff = client.post("/consumer/v1/resourcegroups", json={"name": "Staff"}, headers=desk)
    menu = client.post("/setup/v1/servicegroups", json={"name": "Menu"}, headers=desk)

    assert (201, 201) == (staff.status_code, menu.status_code), staff.text + menu.text
    assert (uptown, uptown) == (staff.json()["locationId"], menu.json()["locationId"])


class TestMessagesAsTheClientWroteThem:
    """
    Refusals name the fields the client sent and quote times as the wire shows them: in the
    location's wall time (decisions 43 and 44).
    """

    def _create(self, client: httpx.Client, server: Served, start: str, end: str) -> httpx.Response:
        return client.post(
            "/consumer/v1/appointments",
            json={
                "serviceId": server.ids["massage"],
                "resourceId": server.ids["ana"],
                "startDateTime": start,
                "endDateTime": end,
            },
        )

    def test_a_time_range_refusal_quotes_both_times_as_sent(
        self, client: httpx.Client, server: Served
    ):
        """An end before the start names ``startDateTime`` and ``endDateTime``, not UTC."""
        day = _weekday_ahead(2)
        answer = self._create(client, server, f"{day}T11:00:00-05:00", f"{day}T10:00:00-05:00")

        body = answer.json()
        assert (400, "INVALID-TIME-RANGE", "endDateTime") == (
            answer.status_code,
            body["code"],
            body["field"],
        )
        assert body["message"] == (
            f"startDateTime ({day}T11:00:00-05:00) must be less than "
            f"endDateTime ({day}T10:00:00-05:00)"
        )

    def test_a_past_start_is_quoted_in_the_locations_wall_time(
        self, client: httpx.Client, server: Served
    ):
        """A start sent in UTC is refused in New York's time, with the verb of the request."""
        start = datetime.now(UTC).replace(microsecond=0, second=0) - timedelta(days=2)
        answer = self._create(
            client,
            server,
            start.isoformat().replace("+00:00", "Z"),
            (start + timedelta(minutes=60)).isoformat().replace("+00:00", "Z"),
        )

        wall = start.astimezone(ZoneInfo("America/New_York")).isoformat()
        body = answer.json()
        assert (409, "PAST-APPOINTMENT") == (answer.status_code, body["code"])
        assert body["message"].startswith(f"cannot hold an appointment starting {wall}:")
        assert "+00:00" not in body["message"]

    def test_a_slot_of_another_length_names_its_end(self, client: httpx.Client, server: Served):
        """A 75-minute slot of the 60-minute massage: 400 naming ``endDateTime``, not ``duration``."""
        day = _weekday_ahead(2)
        answer = self._create(client, server, f"{day}T10:00:00-05:00", f"{day}T11:15:00-05:00")

        body = answer.json()
        assert (400, "INCONSISTENT-FIELDS", "endDateTime") == (
            answer.status_code,
            body["code"],
            body["field"],
        )
        assert "a slot of 75 minutes" in body["message"]
        assert "fixed duration of 60 minutes" in body["message"]

    def test_a_bulk_update_naming_an_unknown_resource_names_its_item(
        self, client: httpx.Client, server: Served
    ):
        """404 with ``field`` ``[1].id``; the first item's change is not kept either."""
        path = f"/setup/v1/resources/{server.ids['ana']}"
        before = client.get(path).json()

        answer = client.put(
            "/setup/v1/resources/bulk",
            json=[
                {"id": server.ids["ana"], "name": "Ana Renamed"},
                {"id": "no-such-resource", "name": "Nobody"},
            ],
        )

        assert (404, "NOT-FOUND", "[1].id") == (
            answer.status_code,
            answer.json()["code"],
            answer.json()["field"],
        )
        assert before == client.get(path).json()

    def test_an_unknown_key_inside_a_day_lists_the_days_keys(
        self, client: httpx.Client, server: Served
    ):
        """``mon.startTim``: the keys a day takes are listed, with the near one suggested."""
        answer = client.put(
            f"/setup/v1/services/{server.ids['massage']}/availability",
            json={"mon": {"startTim": 900, "endTime": 1700}},
        )

        body = answer.json()
        assert (400, "UNEXPECTED-FIELD", "mon.startTim") == (
            answer.status_code,
            body["code"],
            body["field"],
        )
        assert ["endTime", "startTime"] == body["allowed"]
        assert "did you mean 'startTime'?" in body["message"]


def test_a_calendar_block_is_found_again_by_its_calendar(client: httpx.Client, server: Served):
    """
    Decision 46: a calendar block made over HTTP is read back by its id and in its calendar's
    list (local dates and times), and deleted; it was creatable but not readable before.
    """
    location = client.get(f"/consumer/v1/locations/{server.ids['location']}").json()
    calendar = location["primaryCalendarId"]
    day = _weekday_ahead(9)
    made = client.post(
        f"/setup/v1/calendars/{calendar}/blocks",
        json={
            "startDate": str(day),
            "endDate": str(day),
            "startTime": 1200,
            "endTime": 1300,
            "reason": "staff meeting",
        },
    ).json()

    one = client.get(f"/setup/v1/calendars/blocks/{made['id']}")
    listed = client.get(f"/setup/v1/calendars/{calendar}/blocks").json()
    deleted = client.delete(f"/setup/v1/calendars/blocks/{made['id']}")

    assert (200, "staff meeting", 1200) == (
        one.status_code,
        one.json()["reason"],
        one.json()["startTime"],
    )
    assert made["id"] in [block["id"] for block in listed["data"]]
    assert (200, 404) == (
        deleted.status_code,
        client.get(f"/setup/v1/calendars/blocks/{made['id']}").status_code,
    )
