"""
Error messages as the client wrote the request (decisions 43 and 44): the other field a
message names in its wire name, and the keys of the nested object an unknown key was sent in.
"""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

from slotwise.errors import UnexpectedField
from slotwise.http._body_paths import keys_at


class _Day(msgspec.Struct, forbid_unknown_fields=True):
    """A day's hours, as a body's nested object."""

    start_time: int = msgspec.field(name="startTime")
    end_time: int = msgspec.field(name="endTime")


class _Item(msgspec.Struct, forbid_unknown_fields=True):
    """A body item holding a day, a list of days and a mapping of days."""

    id: str
    day: _Day | None = None
    days: list[_Day] = []
    by_name: dict[str, _Day] = msgspec.field(default_factory=dict, name="byName")


@pytest.mark.parametrize(
    ("body", "path", "keys"),
    [
        (dict[str, _Day], "mon", ["startTime", "endTime"]),
        (_Item, "", ["id", "day", "days", "byName"]),
        (_Item, "day", ["startTime", "endTime"]),
        (list[_Item], "[3].days[0]", ["startTime", "endTime"]),
        (_Item, "byName.x", ["startTime", "endTime"]),
        (_Item, "id", None),
        (_Item, "nope", None),
        (list[_Item], "[0].byName", None),
        (Any, "a", None),
    ],
)
def test_keys_at_finds_the_nested_objects_keys(body: Any, path: str, keys: list[str] | None):
    """Optional members, list items and mapping values are followed; anything else is None."""
    assert keys == keys_at(body, path)


def test_an_unknown_nested_key_is_matched_by_its_own_name():
    """``mon.startTim`` suggests ``startTime`` from the day's keys."""
    error = UnexpectedField(field="mon.startTim", allowed=["endTime", "startTime"])

    assert "did you mean 'startTime'?" in error.message


def test_hours_out_of_order_name_both_times_on_the_wire(api):
    """A day's ``startTime`` after its ``endTime``: both named as the client sent them."""
    service = api.world.ids["A"]["service"]

    answer = api.call(
        "PUT /setup/v1/services/{id}/availability",
        id=service,
        json={"mon": {"startTime": 1000, "endTime": 900}},
    )

    body = answer.json()
    assert (400, "INVALID-TIME-RANGE", "mon.startTime") == (
        answer.status_code,
        body["code"],
        body["field"],
    )
    assert "mon.startTime (1000) must be less than endTime (900)" == body["message"]


def test_a_block_out_of_order_names_start_and_end_time(api):
    """A block whose end time is before its start time: camelCase names, HHMM values."""
    calendar = api.world.ids["A"]["calendar"]

    answer = api.call(
        "POST /setup/v1/calendars/{id}/blocks",
        id=calendar,
        json={
            "startDate": "2026-04-01",
            "endDate": "2026-04-01",
            "startTime": 1300,
            "endTime": 1200,
            "reason": "lunch",
        },
    )

    body = answer.json()
    assert (400, "INVALID-TIME-RANGE") == (answer.status_code, body["code"])
    assert "startTime (1300) must be less than endTime (1200)" == body["message"]


@pytest.mark.parametrize(
    ("endpoint", "field", "request_options"),
    [
        (
            "POST /setup/v1/calendars/{id}/blocks",
            "startDate",
            {"json": {"startDate": "2026-04-02", "endDate": "2026-04-01"}},
        ),
        (
            "GET /consumer/v1/appointments",
            "endDate",
            {"params": {"startDate": "2026-04-02", "endDate": "2026-04-01"}},
        ),
    ],
)
def test_dates_out_of_order_name_each_date_once(api, endpoint, field, request_options):
    """A start date after its end date: ``startDate (...) must not be after endDate (...)``."""
    answer = api.call(endpoint, id=api.world.ids["A"]["calendar"], **request_options)

    body = answer.json()
    assert (400, "INVALID-DATE-RANGE", field) == (answer.status_code, body["code"], body["field"])
    assert "startDate (2026-04-02) must not be after endDate (2026-04-01)" == body["message"]
