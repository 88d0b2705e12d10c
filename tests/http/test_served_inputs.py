"""
Query values a real ``slotwise serve`` process refuses (the twelfth session's review): integer
parameters written as anything but JSON integers, comma-separated id lists with an empty
member, and coordinates off the globe. Each is 400 with the spec's code, naming the parameter
as the client wrote it.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

pytest.importorskip("litestar")
pytest.importorskip("sqlalchemy")

from ._served import Served, served


@pytest.fixture(scope="module")
def database(tmp_path_factory: pytest.TempPathFactory) -> str:
    """The SQLite file the server serves."""
    return f"sqlite:///{Path(tmp_path_factory.mktemp('inputs')) / 'inputs.db'}"


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


def _refusal(answer: httpx.Response) -> tuple[int, str, str]:
    """The status, code and field of an error answer."""
    body = answer.json()
    return answer.status_code, body["code"], body["field"]


@pytest.mark.parametrize("text", ["5.0", "1e3", "+5", "05", " 5", ""])
def test_limit_must_be_a_json_integer(client: httpx.Client, text: str):
    """``limit`` as a float, an exponent, a plus, a leading zero or blank: 400 naming limit."""
    answer = client.get("/consumer/v1/locations", params={"limit": text})

    assert (400, "INVALID-FORMAT", "limit") == _refusal(answer), answer.text
    assert "limit must be an integer" in answer.json()["message"]


@pytest.mark.parametrize(("name", "text"), [("offset", "1.0"), ("startTime", "900.0")])
def test_every_integer_parameter_is_read_alike(
    client: httpx.Client, server: Served, name: str, text: str
):
    """``offset`` of a list and ``startTime`` of an availability search refuse ``.0`` alike."""
    day = "2030-01-07"
    path = (
        "/consumer/v1/resources"
        if name == "offset"
        else f"/consumer/v1/availability/{server.ids['massage']}/{day}/{day}"
    )

    answer = client.get(path, params={name: text})

    assert (400, "INVALID-FORMAT", name) == _refusal(answer), answer.text


def test_a_json_integer_is_read(client: httpx.Client):
    """``limit=1`` and ``offset=-0`` are integers; the window works as before."""
    answer = client.get("/consumer/v1/locations", params={"limit": "1", "offset": "-0"})

    assert (200, 1) == (answer.status_code, answer.json()["count"]), answer.text


@pytest.mark.parametrize("separated", ["{ana},,", ",{ana}", "{ana},,{ben}", ""])
def test_an_id_list_with_an_empty_member_is_refused(
    client: httpx.Client, server: Served, separated: str
):
    """``resourceIds=a,,`` of an availability search: 400 naming resourceIds, not fewer ids."""
    day = "2030-01-07"
    path = f"/consumer/v1/availability/{server.ids['massage']}/{day}/{day}"

    answer = client.get(path, params={"resourceIds": separated.format(**server.ids)})

    assert (400, "INVALID-FORMAT", "resourceIds") == _refusal(answer), answer.text


def test_a_booking_body_refuses_an_empty_resource_id(client: httpx.Client, server: Served):
    """The booking's ``resourceIds`` text is read by the same rule: 400, nothing booked."""
    before = client.get("/consumer/v1/appointments").json()["total"]

    answer = client.post(
        "/consumer/v1/appointments",
        json={
            "serviceId": server.ids["massage"],
            "resourceIds": f"{server.ids['ana']},",
            "startDateTime": "2030-01-07T10:00:00Z",
            "endDateTime": "2030-01-07T11:00:00Z",
        },
    )

    assert (400, "INVALID-FORMAT", "resourceIds") == _refusal(answer), answer.text
    assert before == client.get("/consumer/v1/appointments").json()["total"]


def test_an_id_list_of_known_resources_is_read(client: httpx.Client, server: Served):
    """``resourceIds=ana, ben`` (space after the comma) searches both resources."""
    day = "2030-01-07"
    path = f"/consumer/v1/availability/{server.ids['massage']}/{day}/{day}"

    answer = client.get(path, params={"resourceIds": f"{server.ids['ana']}, {server.ids['ben']}"})

    assert 200 == answer.status_code, answer.text


@pytest.mark.parametrize(
    ("point", "code", "field"),
    [
        ("91,0", "OUT-OF-RANGE", "nearestTo[0]"),
        ("-90.5,0", "OUT-OF-RANGE", "nearestTo[0]"),
        ("0,181", "OUT-OF-RANGE", "nearestTo[1]"),
        ("nan,0", "INVALID-FORMAT", "nearestTo"),
        ("0,inf", "INVALID-FORMAT", "nearestTo"),
        ("1e400,0", "INVALID-FORMAT", "nearestTo[0]"),
        ("1,2,3", "INVALID-FORMAT", "nearestTo"),
    ],
)
def test_nearest_to_off_the_globe_is_refused(
    client: httpx.Client, point: str, code: str, field: str
):
    """``nearestTo`` with a latitude off -90..90, a longitude off -180..180 or no number: 400."""
    answer = client.get("/consumer/v1/locations", params={"nearestTo": point})

    assert (400, code, field) == _refusal(answer), answer.text


def test_nearest_to_on_the_globe_is_read(client: httpx.Client):
    """The ends of the ranges are points: ``nearestTo=-90,180`` lists the locations."""
    answer = client.get("/consumer/v1/locations", params={"nearestTo": "-90,180"})

    assert 200 == answer.status_code, answer.text


@pytest.mark.parametrize(
    ("field", "value", "allowed"),
    [("latitude", 90.5, "between -90 and 90"), ("longitude", -181, "between -180 and 180")],
)
def test_a_location_off_the_globe_is_refused(
    client: httpx.Client, server: Served, field: str, value: float, allowed: str
):
    """A location's own latitude or longitude off its range: 400 on create and on update."""
    path = f"/setup/v1/locations/{server.ids['location']}"
    before = client.get(f"/consumer/v1/locations/{server.ids['location']}").json()

    created = client.post("/setup/v1/locations", json={"name": "Atlantis", field: value})
    updated = client.put(path, json={field: value})

    for answer in (created, updated):
        assert (400, "OUT-OF-RANGE", field) == _refusal(answer), answer.text
        assert (allowed, f"{field} must be {allowed}") == (
            answer.json()["allowed"],
            answer.json()["message"].partition(",")[0],
        )
    assert before == client.get(f"/consumer/v1/locations/{server.ids['location']}").json()


def test_a_location_on_the_globe_is_kept(client: httpx.Client, server: Served):
    """Coordinates within range are stored and read back from the SQL store as sent."""
    made = client.post(
        "/setup/v1/locations", json={"name": "Cape", "latitude": -90, "longitude": 180}
    )

    assert 201 == made.status_code, made.text
    kept = client.get(f"/consumer/v1/locations/{made.json()['id']}").json()
    assert (-90, 180) == (kept["latitude"], kept["longitude"])
