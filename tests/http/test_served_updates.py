"""
Updates over the wire change what they name and keep the rest (docs/http.md, "Requests"),
against a real ``slotwise serve`` process: a nested object sent in part (a location's settings,
its address, one day of hours, a resource's options) keeps the stored value's other fields.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

pytest.importorskip("litestar")
pytest.importorskip("sqlalchemy")

from ._served import Served, served


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    """``slotwise serve`` over the demo business in a SQLite file."""
    with served(f"sqlite:///{Path(tmp_path_factory.mktemp('updates')) / 'updates.db'}") as running:
        yield running


@pytest.fixture
def client(server: Served) -> Iterator[httpx.Client]:
    """A client with the demo company's token."""
    with httpx.Client(base_url=server.base, headers=server.headers, timeout=30) as opened:
        yield opened


def _put(client: httpx.Client, path: str, body: dict[str, Any]) -> dict[str, Any]:
    answer = client.put(path, json=body)
    assert 200 == answer.status_code, answer.text
    document: dict[str, Any] = answer.json()
    return document


def test_a_location_sent_in_part_keeps_what_it_leaves_out(client: httpx.Client):
    """settings.lateCancelHours, address.postalCode and Monday alone; the rest stays."""
    created = client.post(
        "/setup/v1/locations",
        json={
            "name": "Partial",
            "address": {"addressLine1": "1 Main St", "city": "Springfield", "postalCode": "12345"},
            "businessHours": {"tue": {"is24Hours": True}},
            "settings": {
                "bookingTimerMins": 5,
                "bookingPolicy": "No refunds",
                "bookingWindow": {"bookAheadUnit": "weeks", "bookAheadValue": 4},
            },
        },
    ).json()

    _put(client, "/setup/v1/locations", {"id": created["id"], "settings": {"lateCancelHours": 2}})
    _put(client, "/setup/v1/locations", {"id": created["id"], "address": {"postalCode": "99999"}})
    changed = _put(
        client,
        "/setup/v1/locations",
        {
            "id": created["id"],
            "businessHours": {"mon": {"isOpen": True, "startTime": 700, "endTime": 1700}},
        },
    )
    stored = client.get(f"/consumer/v1/locations/{created['id']}").json()

    settings = changed["settings"]
    assert (2, 5, "No refunds", 4) == (
        settings["lateCancelHours"],
        settings["bookingTimerMins"],
        settings["bookingPolicy"],
        settings["bookingWindow"]["bookAheadValue"],
    )
    assert ("1 Main St", "Springfield", "99999") == (
        changed["address"]["addressLine1"],
        changed["address"]["city"],
        changed["address"]["postalCode"],
    )
    assert (700, 1700) == (
        changed["businessHours"]["mon"]["startTime"],
        changed["businessHours"]["mon"]["endTime"],
    )
    assert created["businessHours"]["tue"] == changed["businessHours"]["tue"]
    assert changed["settings"] == stored["settings"]


def test_a_service_s_availability_in_its_update_keeps_the_other_days(
    client: httpx.Client, server: Served
):
    """PUT /setup/v1/services/{id} with availability.mon alone changes Monday only."""
    path = f"/setup/v1/services/{server.ids['massage']}"
    before = client.get(path).json()["availability"]

    changed = _put(client, path, {"availability": {"mon": {"startTime": 1000, "endTime": 1200}}})

    assert {"startTime": 1000, "endTime": 1200} == changed["availability"]["mon"]
    assert {day: before[day] for day in before if day != "mon"} == {
        day: window for day, window in changed["availability"].items() if day != "mon"
    }


def test_a_resource_s_options_in_part_keep_their_other_fields(client: httpx.Client, server: Served):
    """options.sortKey alone keeps displayColor and gender."""
    path = f"/setup/v1/resources/{server.ids['ana']}"
    _put(client, path, {"options": {"displayColor": "#ff0000", "gender": "f"}})

    changed = _put(client, path, {"options": {"sortKey": 9}})

    assert ("#ff0000", 9, "f") == (
        changed["options"]["displayColor"],
        changed["options"]["sortKey"],
        changed["options"]["gender"],
    )


def test_a_month_day_is_an_integer_in_and_a_string_out(client: httpx.Client, server: Served):
    """
    Spec (Repeat object): monthDay "integer in input, string in response"; the answer's string
    is read back too, so a JSON Patch of the repeat's interval applies to the GET form.
    """
    created = client.post(
        f"/setup/v1/resources/{server.ids['ana']}/block",
        json={
            "startDate": "2026-12-01",
            "endDate": "never",
            "startTime": 1200,
            "endTime": 1300,
            "reason": "Monthly review",
            "repeats": True,
            "repeat": {"frequency": "M", "interval": 1, "monthDay": 15, "monthType": "D"},
        },
    )
    assert 201 == created.status_code, created.text
    block = created.json()
    path = f"/setup/v1/resources/block/{block['id']}"

    patched = client.put(
        path,
        content=b'[{"op": "replace", "path": "/repeat/interval", "value": 2}]',
        headers={"Content-Type": "application/json-patch+json"},
    )
    listed = client.get(f"/setup/v1/resources/{server.ids['ana']}/blocks").json()["data"]

    assert "15" == block["repeat"]["monthDay"]
    assert 200 == patched.status_code, patched.text
    assert ("15", 2) == (patched.json()["repeat"]["monthDay"], patched.json()["repeat"]["interval"])
    assert ["15"] == [b["repeat"]["monthDay"] for b in listed if b["id"] == block["id"]]


def test_a_patch_removing_a_nested_key_clears_it(client: httpx.Client, server: Served):
    """remove /phone/mobilePhone clears that number and keeps the others (RFC 6902 remove)."""
    path = f"/setup/v1/resources/{server.ids['ben']}"
    _put(client, path, {"phone": {"mobilePhone": "+12125550100", "homePhone": "+12125550199"}})

    answer = client.put(
        path,
        content=b'[{"op": "remove", "path": "/phone/mobilePhone"}]',
        headers={"Content-Type": "application/json-patch+json"},
    )

    assert 200 == answer.status_code, answer.text
    assert (None, "+12125550199") == (
        answer.json()["phone"]["mobilePhone"],
        answer.json()["phone"]["homePhone"],
    )


def test_a_repeat_sent_in_an_update_is_the_whole_rule(client: httpx.Client, server: Served):
    """A weekly block made monthly with the spec's Repeat object: the weekdays go with the old rule."""
    created = client.post(
        f"/setup/v1/resources/{server.ids['ben']}/block",
        json={
            "startDate": "2026-12-01",
            "endDate": "never",
            "startTime": 1200,
            "endTime": 1300,
            "reason": "Lunch",
            "repeats": True,
            "repeat": {"frequency": "W", "weekdays": "135"},
        },
    ).json()

    changed = _put(
        client,
        f"/setup/v1/resources/block/{created['id']}",
        {"repeat": {"frequency": "M", "monthDay": 15}},
    )

    assert ("M", "15", "") == (
        changed["repeat"]["frequency"],
        changed["repeat"]["monthDay"],
        changed["repeat"]["weekdays"],
    )
