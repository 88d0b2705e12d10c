"""
Error fields of routes whose body is the argument (decision 44): named from the body's root.

A route whose whole body is one argument (weekly hours, a reminder schedule, a list of records)
names a refused value by its path in the JSON the client sent: ``mon.startTime``,
``emailFirst.value``, ``[1].timezoneId`` for the second item of an array body. The word
``body`` or a Python argument (``days``, ``schedule``, ``linked_service_ids``) is no name the
client wrote.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from ._client import Service

_PYTHON: re.Pattern[str] = re.compile(
    r"\b(?:body|days\[|schedule|updates|locations|[a-z]+_[a-z_]+)\b"
)
"""Names no refusal on these routes may show: the body itself, Python arguments (``days`` only
as an argument: "30 days" is a unit)."""


def _cases(ids: dict[str, str]) -> list[tuple[str, dict[str, Any], int, str]]:
    """Return (endpoint, options, status, field) of each refusal (ids of company A)."""
    resource, service, location = ids["resource"], ids["service"], ids["location"]
    return [
        (
            "PUT /setup/v1/resources/bulk",
            {
                "json": [
                    {"id": resource, "name": "Ana"},
                    {"id": resource, "timezoneId": "Mars/Base"},
                ]
            },
            400,
            "[1].timezoneId",
        ),
        (
            "PUT /setup/v1/resources/{id}/services",
            {"id": resource, "json": {"serviceIds": ["no-such"]}},
            400,
            "serviceIds[0]",
        ),
        (
            "PUT /setup/v1/services/{id}/availability",
            {"id": service, "json": {"mon": {"startTime": 1000, "endTime": 900}}},
            400,
            "mon.startTime",
        ),
        (
            "PUT /setup/v1/resources/{id}/availability",
            {"id": resource, "json": {"tue": {"startTime": 900, "endTime": 2500}}},
            400,
            "tue.endTime",
        ),
        (
            "PUT /setup/v1/locations/{id}/appointmentreminders",
            {"id": location, "json": {"emailFirst": {"value": 0, "unit": "days"}}},
            400,
            "emailFirst.value",
        ),
        (
            "POST /setup/v1/locations/bulk",
            {"json": [{"name": "ok"}, {"name": "ok2", "timezone": "Mars/Base"}]},
            400,
            "[1].timezone",
        ),
    ]


_LABELS = [
    "resources-bulk",
    "resource-services",
    "service-availability",
    "resource-availability",
    "location-reminders",
    "locations-bulk",
]


@pytest.mark.parametrize("case", range(len(_LABELS)), ids=_LABELS)
def test_whole_body_refusal_names_the_path_the_client_wrote(api: Service, case: int):
    """A refused value of a whole-body route is named by its path in the body, message too."""
    endpoint, options, status, field = _cases(api.ids["A"])[case]

    response = api.call(endpoint, **options)
    body = response.json()

    assert (status, field) == (response.status_code, body["field"]), body
    assert re.search(rf"(?<![\w.\[]){re.escape(field)}(?![\w\[])", body["message"]), body
    assert not _PYTHON.findall(body["message"].replace(field, "")), body


def test_item_index_names_the_later_of_several_items(api: Service):
    """The second service of a link names its own index, not the first one's."""
    ids = api.ids["A"]

    response = api.call(
        "PUT /setup/v1/resources/{id}/services",
        id=ids["resource"],
        json={"serviceIds": [ids["service"], "no-such"]},
    )

    assert (400, "serviceIds[1]") == (response.status_code, response.json()["field"])


def test_nested_field_of_an_array_item_keeps_its_whole_path(api: Service):
    """A nested record's field in the second location of a bulk create is [1].settings...."""
    response = api.call(
        "POST /setup/v1/locations/bulk",
        json=[{"name": "ok"}, {"name": "ok2", "settings": {"bookingTimerMins": -3}}],
    )
    body = response.json()

    assert (400, "[1].settings.bookingTimerMins") == (response.status_code, body["field"])
    assert body["message"].startswith("[1].settings.bookingTimerMins ")


def test_id_of_a_bulk_item_is_named_by_its_key(api: Service):
    """Another company's resource in a bulk change is refused naming that item's id."""
    ids = api.ids["A"]

    response = api.call(
        "PUT /setup/v1/resources/bulk",
        json=[{"id": ids["resource"], "name": "Ana"}, {"id": api.ids["B"]["resource"]}],
    )
    body = response.json()

    assert (401, "[1].id") == (response.status_code, body["field"])
    assert "[1].id" in body["message"]


def test_decode_refusal_of_an_array_body_names_the_item_as_before(api: Service):
    """A value of the wrong type in the second item is [1].name, as the decoder names it."""
    ids = api.ids["A"]

    response = api.call(
        "PUT /setup/v1/resources/bulk",
        json=[{"id": ids["resource"], "name": "Ana"}, {"id": ids["resource"], "name": 5}],
    )

    assert (400, "[1].name") == (response.status_code, response.json()["field"])
