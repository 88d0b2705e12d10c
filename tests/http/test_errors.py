"""Errors on the wire (decision 40): statuses, bodies, limits and the unexpected."""

from __future__ import annotations

import logging
import re
from typing import Any

import pytest

import slotwise.errors
from slotwise.errors import InvalidFormat, SlotwiseError, StoreUnavailable
from slotwise.http import DEFAULT_MAX_BODY_SIZE, create_app
from slotwise.http._handlers import operation_of
from slotwise.http._plan import Plan, integer_text
from slotwise.http._routes import ROUTES
from slotwise.operations.resources import ResourceOperations

from ._client import Service

ERROR_CLASSES = [
    getattr(slotwise.errors, name)
    for name in slotwise.errors.__all__
    if isinstance(getattr(slotwise.errors, name), type)
    and issubclass(getattr(slotwise.errors, name), SlotwiseError)
]


def _instance(kind: type[SlotwiseError]) -> SlotwiseError:
    """Return an error of *kind* with a message and a field, whatever its constructor takes."""
    error = kind.__new__(kind)
    SlotwiseError.__init__(error, f"{kind.__name__} happened")
    error.field = "someField"  # type: ignore[attr-defined]
    return error


@pytest.mark.parametrize("kind", ERROR_CLASSES, ids=[kind.__name__ for kind in ERROR_CLASSES])
def test_every_error_class_answers_its_status_and_code(api, monkeypatch, kind):
    """Each SlotwiseError answers its class's http_status with {code, message, field}."""
    error = _instance(kind)

    def fail(self):
        raise error

    monkeypatch.setattr(ResourceOperations, "timezones", fail)
    response = api.call("GET /setup/v1/resources/timezones")
    body = response.json()

    assert kind.http_status == response.status_code
    assert (kind.code, f"{kind.__name__} happened") == (body["code"], body["message"])
    if response.status_code != 401 or kind.__name__ == "Unauthorized":
        assert "someField" == body["field"]


def test_data_of_an_error_is_in_the_body(api):
    """A capacity refusal carries its figures: BOOKING-408 with requested and allowed."""
    ids = api.ids["A"]
    response = api.call(
        "POST /consumer/v1/appointments",
        json={
            "serviceId": ids["service"],
            "resourceId": ids["resource"],
            "startDateTime": "2026-03-03T14:00:00-05:00",
            "endDateTime": "2026-03-03T14:30:00-05:00",
            "groupSize": 3,
        },
    )

    assert 400 == response.status_code
    assert {"code": "BOOKING-408", "requested": 3, "allowed": 1} == {
        key: response.json()[key] for key in ("code", "requested", "allowed")
    }


def test_error_fields_use_the_wire_names(api):
    """An operation's refusal names the field as the request did: bookingsPerSlot, not snake."""
    response = api.call(
        "PUT /setup/v1/calendars/{id}", id=api.ids["A"]["calendar"], json={"bookingsPerSlot": 50}
    )
    body = response.json()

    assert (400, "OUT-OF-RANGE", "bookingsPerSlot") == (
        response.status_code,
        body["code"],
        body["field"],
    )
    assert body["message"].startswith("bookingsPerSlot")


def test_a_limit_naming_another_field_uses_its_wire_name(api):
    """A range over 366 days is refused with a limit naming startDate, not start_date."""
    response = api.call(
        "GET /consumer/v1/availability/{serviceId}/{startDate}/{endDate}",
        serviceId=api.ids["A"]["service"],
        startDate="2026-11-30",
        endDate="2028-12-30",
    )
    body = response.json()

    assert (400, "OUT-OF-RANGE", "endDate") == (response.status_code, body["code"], body["field"])
    assert "startDate 2026-11-30" in body["allowed"]
    assert "start_date" not in body["allowed"] + body["message"]


class TestRefusedBeforeAnyOperation:
    """What Litestar refuses answers in the same shape."""

    def test_unknown_json_field(self, api):
        """An unknown body field is 400 UNEXPECTED-FIELD naming it."""
        response = api.call("POST /setup/v1/locations", json={"name": "X", "colour": "red"})

        assert (400, "UNEXPECTED-FIELD", "colour") == (
            response.status_code,
            response.json()["code"],
            response.json()["field"],
        )

    def test_unknown_nested_field(self, api):
        """An unknown field inside a nested object is named with its path."""
        response = api.call(
            "POST /setup/v1/locations", json={"name": "X", "address": {"planet": "Mars"}}
        )

        assert (400, "address.planet") == (response.status_code, response.json()["field"])

    def test_unknown_query_parameter(self, api):
        """A query parameter the operation does not declare is 400, listing the accepted ones."""
        response = api.call("GET /setup/v1/services", params={"locationID": "x"})

        assert (400, "UNEXPECTED-FIELD", "locationID") == (
            response.status_code,
            response.json()["code"],
            response.json()["field"],
        )
        assert "locationId" in response.json()["allowed"]

    def test_wrong_json_type(self, api):
        """A value of the wrong JSON type is 400 INVALID-FORMAT naming the field."""
        response = api.call("POST /setup/v1/services", json={"name": "X", "duration": "long"})

        assert (400, "INVALID-FORMAT", "duration") == (
            response.status_code,
            response.json()["code"],
            response.json()["field"],
        )

    def test_malformed_json(self, api):
        """A body that is not JSON is 400 INVALID-FORMAT."""
        response = api.call(
            "POST /setup/v1/services", content=b"{", headers={"Content-Type": "application/json"}
        )

        assert (400, "INVALID-FORMAT") == (response.status_code, response.json()["code"])

    @pytest.mark.parametrize("media", ["application/json", "application/json-patch+json"])
    def test_body_not_utf8(self, api, media):
        """A body whose bytes are not UTF-8 (latin-1 text) is 400 INVALID-FORMAT, not a 500."""
        service_id = api.ids["A"]["service"]
        body = (
            '{"name": "Zoé"}'
            if media == "application/json"
            else '[{"op": "replace", "path": "/name", "value": "Zoé"}]'
        )
        response = api.call(
            f"PUT /setup/v1/services/{service_id}",
            content=body.encode("latin-1"),
            headers={"Content-Type": media},
        )

        assert (400, "INVALID-FORMAT", "body") == (
            response.status_code,
            response.json()["code"],
            response.json()["field"],
        )
        assert "not UTF-8" in response.json()["message"], response.json()

    def test_missing_query_parameter(self, api):
        """A required query parameter missing is 400 FIELD-REQUIRED naming it."""
        response = api.call("GET /consumer/v1/customers/states")

        assert (400, "FIELD-REQUIRED", "country") == (
            response.status_code,
            response.json()["code"],
            response.json()["field"],
        )

    def test_naive_date_time(self, api):
        """A date-time without an offset is 400 NAIVE-DATETIME (decision 22)."""
        ids = api.ids["A"]
        response = api.call(
            "POST /consumer/v1/appointments",
            json={
                "serviceId": ids["service"],
                "startDateTime": "2026-03-03T14:00:00",
                "endDateTime": "2026-03-03T14:30:00",
            },
        )

        assert (400, "NAIVE-DATETIME") == (response.status_code, response.json()["code"])

    def test_body_over_the_limit(self, api):
        """A body over 1 MiB is 413 before it is read as JSON; the store is unchanged."""
        before = api.world.records()
        body = b'{"name": "' + b"x" * DEFAULT_MAX_BODY_SIZE + b'"}'
        response = api.call(
            "POST /setup/v1/locations", content=body, headers={"Content-Type": "application/json"}
        )

        assert (413, "PAYLOAD-TOO-LARGE") == (response.status_code, response.json()["code"])
        assert before == api.world.records()

    def test_unknown_path_and_method(self, api):
        """An unknown path is 404; a known path with another method is 405 with Allow."""
        missing = api.call("GET /consumer/v1/nothing")
        wrong = api.call("PATCH /consumer/v1/appointments")

        assert (404, "NOT-FOUND") == (missing.status_code, missing.json()["code"])
        assert (405, "METHOD-NOT-ALLOWED") == (wrong.status_code, wrong.json()["code"])
        assert {"GET", "POST"} <= set(wrong.headers["Allow"].replace(" ", "").split(","))


class TestUnexpected:
    """A failure nobody planned for: 500, an error id, the traceback only in the log."""

    def test_500_carries_an_error_id_that_is_logged(self, api, monkeypatch, caplog):
        """The body has code SERVER-ERROR and the error id; the log has the id and traceback."""

        def crash(self):
            raise RuntimeError("secret internals")

        monkeypatch.setattr(ResourceOperations, "timezones", crash)
        with caplog.at_level(logging.ERROR, logger="slotwise.http"):
            response = api.call("GET /setup/v1/resources/timezones")
        body = response.json()

        assert (500, "SERVER-ERROR") == (response.status_code, body["code"])
        assert body["errorId"] == response.headers["X-Request-Id"]
        assert "secret internals" not in response.text
        assert "Traceback" not in response.text
        assert any(body["errorId"] in record.getMessage() for record in caplog.records)
        assert any(record.exc_info for record in caplog.records)

    def test_store_unavailable_is_503(self, api: Service, monkeypatch):
        """/healthz answers 503 STORE-UNAVAILABLE when the store cannot be reached."""
        store = api.world.scheduler.store

        def down(*args, **kwargs):
            raise StoreUnavailable("database is down")

        monkeypatch.setattr(store, "read", down)
        app = create_app(api.world.scheduler)
        response = Service(world=api.world, app=app, tokens=api.tokens).call("GET /healthz")

        assert (503, "STORE-UNAVAILABLE") == (response.status_code, response.json()["code"])

    def test_every_answer_has_a_request_id(self, api):
        """Each response carries X-Request-Id; two requests get two ids."""
        first = api.call("GET /setup/v1/resources/timezones")
        second = api.call("GET /setup/v1/resources/timezones")

        assert first.headers["X-Request-Id"] != second.headers["X-Request-Id"]


_SNAKE = re.compile(r"(?<![\w'\"])[a-z][a-z0-9]*(?:_[a-z0-9]+)+(?![\w'\"])")

_START = "2026-03-03T14:00:00-05:00"
_END = "2026-03-03T14:30:00-05:00"


def _refusals(ids: dict[str, dict[str, str]]) -> list[tuple[str, dict[str, Any], int]]:
    """(endpoint, call options, status) of refusals of every kind the issue lists, and more."""
    a, b = ids["A"], ids["B"]
    booking = {"serviceId": a["service"], "resourceId": a["resource"]}
    return [
        ("GET /setup/v1/services", {"who": None}, 401),
        ("GET /setup/v1/services/{id}", {"id": "nope"}, 404),
        ("GET /consumer/v1/appointments/{id}", {"id": "nope"}, 404),
        ("GET /consumer/v1/nothing", {}, 404),
        ("PATCH /consumer/v1/appointments", {}, 405),
        (
            "POST /consumer/v1/appointments",
            {
                "params": {"completeBooking": "BK"},
                "json": {
                    **booking,
                    "name": "Cy Lee",
                    "email": "cy@a.example",
                    "startDateTime": "2026-03-03T10:00:00-05:00",
                    "endDateTime": "2026-03-03T10:30:00-05:00",
                },
            },
            409,
        ),
        ("PUT /consumer/v1/appointments/{id}/book", {"id": a["appointment"], "json": {}}, 409),
        (
            "POST /setup/v1/locations",
            {
                "content": b'{"name": "' + b"x" * DEFAULT_MAX_BODY_SIZE + b'"}',
                "headers": {"Content-Type": "application/json"},
            },
            413,
        ),
        (
            "POST /setup/v1/locations",
            {"content": b'{"name": "X"}', "headers": {"Content-Type": "text/plain"}},
            415,
        ),
        ("GET /setup/v1/services", {"params": {"limit": "abc"}}, 400),
        ("GET /setup/v1/services", {"params": {"limit": "1000"}}, 400),
        ("GET /setup/v1/services", {"params": {"offset": "-1"}}, 400),
        ("GET /consumer/v1/appointments", {"params": {"status": "XX"}}, 400),
        (
            "POST /consumer/v1/appointments",
            {
                "params": {"completeBooking": "ZZ"},
                "json": {**booking, "startDateTime": _START, "endDateTime": _END},
            },
            400,
        ),
        ("GET /setup/v1/services/{id}", {"id": b["service"]}, 401),
        ("GET /consumer/v1/locations/{id}", {"id": b["location"]}, 401),
        ("GET /setup/v1/services", {"params": {"locationId": b["location"]}}, 401),
        (
            "GET /consumer/v1/customers/subscriptions/{id}",
            {"id": b["subscription"]},
            401,
        ),
        ("PUT /setup/v1/company/{id}", {"id": b["company"], "json": {}}, 401),
        (
            "POST /consumer/v1/appointments",
            {"json": {"serviceId": b["service"], "startDateTime": _START, "endDateTime": _END}},
            401,
        ),
        (
            "POST /consumer/v1/appointments",
            {
                "json": {
                    **booking,
                    "customerId": b["customer"],
                    "startDateTime": _START,
                    "endDateTime": _END,
                }
            },
            401,
        ),
        (
            "PUT /setup/v1/resources/{id}",
            {"id": a["resource"], "json": {"timezoneId": "Mars/X"}},
            400,
        ),
        ("PUT /setup/v1/locations", {"json": {"name": "X"}}, 400),
        ("PUT /consumer/v1/appointments/{id}/reserve", {"id": a["hold"]}, 400),
        (
            "POST /setup/v1/services",
            {"json": {"name": "X", "duration": "30", "reason": "r"}},
            400,
        ),
        ("POST /setup/v1/services", {"json": {"duration": 30, "reason": "r"}}, 400),
        ("POST /setup/v1/services", {"json": {"name": "X", "duration": 0, "reason": "r"}}, 400),
        (
            "POST /setup/v1/services",
            {"json": {"name": "X", "duration": 30, "reason": "r", "type": "zzz"}},
            400,
        ),
        (
            "POST /setup/v1/services",
            {
                "json": {
                    "name": "X",
                    "duration": 30,
                    "reason": "r",
                    "durationMin": 90,
                    "durationMax": 30,
                    "durationSelect": True,
                }
            },
            400,
        ),
        (
            "POST /setup/v1/resources/{id}/block",
            {
                "id": a["resource"],
                "json": {
                    "startDate": "2026-03-05",
                    "endDate": "2026-03-01",
                    "startTime": 900,
                    "endTime": 1000,
                },
            },
            400,
        ),
        (
            "POST /setup/v1/resources/{id}/block",
            {
                "id": a["resource"],
                "json": {
                    "startDate": "2026-03-05",
                    "endDate": "2026-03-05",
                    "startTime": 900,
                    "endTime": 1000,
                    "repeat": {"frequency": "M", "monthDay": 40},
                },
            },
            400,
        ),
        (
            "PUT /setup/v1/calendars/{id}",
            {"id": a["calendar"], "json": {"bookingsPerSlot": 50}},
            400,
        ),
        ("POST /setup/v1/locations", {"json": {"name": "X", "colour": "red"}}, 400),
        ("GET /consumer/v1/customers/states", {}, 400),
    ]


def _written(endpoint: str, options: dict[str, Any]) -> set[str]:
    """Every name the request wrote: path placeholders, query parameters, body keys (paths)."""
    names = set(re.findall(r"{(\w+)}", endpoint)) | set(options.get("params") or {}) | {"body"}

    def walk(value: Any, prefix: str) -> None:
        if isinstance(value, dict):
            for key, item in value.items():
                names.add(prefix + key)
                walk(item, prefix + key + ".")

    walk(options.get("json"), "")
    return names


def test_every_refusal_names_what_the_client_wrote(api):
    """Each refusal's body has field (null or a name the request wrote), no Python name anywhere."""
    seen = []
    for endpoint, options, status in _refusals(api.ids):
        response = api.call(endpoint, **options)
        body = response.json()
        written = _written(endpoint, options)
        label = f"{endpoint} {options.get('params') or ''}"

        assert status == response.status_code, (label, response.text)
        assert "field" in body, (label, body)
        # A missing field is one the request did not write: its wire name, then.
        missing = body["code"] == "FIELD-REQUIRED" and not _SNAKE.search(body["field"])
        # A nested record's own check names its field without the path (repeat.monthDay).
        leaves = {name.rpartition(".")[2] for name in written}
        assert body["field"] in {None, *written, *leaves} or missing, (label, body)
        assert not _SNAKE.findall(body["message"]), (label, body["message"])
        assert "datetime" not in body["message"], (label, body)
        assert "q_" not in response.text, (label, body)
        seen.append(body["code"])

    # The sweep covers every family of refusal (a guard against a sweep of one kind).
    assert {
        "NOT-AUTHENTICATED", "NOT-FOUND", "METHOD-NOT-ALLOWED", "SLOT-UNAVAILABLE",
        "INVALID-TRANSITION", "PAYLOAD-TOO-LARGE", "UNSUPPORTED-MEDIA-TYPE", "UNAUTHORIZED",
        "INVALID-FORMAT", "INVALID-CHOICE", "OUT-OF-RANGE", "FIELD-REQUIRED", "UNEXPECTED-FIELD",
    } <= set(seen)  # fmt: skip


@pytest.mark.parametrize(
    ("endpoint", "options", "field"),
    [
        ("GET /setup/v1/services/{id}", {"id": "B:service"}, "id"),
        ("GET /setup/v1/services", {"params": {"locationId": "B:location"}}, "locationId"),
        ("GET /consumer/v1/customers/subscriptions/{id}", {"id": "B:subscription"}, "id"),
        ("PUT /setup/v1/company/{id}", {"id": "B:company", "json": {}}, "id"),
        ("PUT /setup/v1/resources/{id}", {"id": "A:resource", "json": {"timezoneId": "X/Y"}}, "timezoneId"),
        ("PUT /setup/v1/locations", {"json": {"name": "X"}}, "id"),
        ("GET /setup/v1/services", {"params": {"limit": "abc"}}, "limit"),
        ("GET /consumer/v1/appointments", {"params": {"status": "XX"}}, "status"),
        ("GET /setup/v1/services/{id}", {"id": "nope"}, "id"),
    ],
)  # fmt: skip
def test_the_field_is_the_wire_name(api, endpoint, options, field):
    """Cross-tenant ids, a resource's zone, a location's id and query values: the wire name."""
    for key in ("id",):
        if ":" in str(options.get(key, "")):
            owner, kind = options[key].split(":")
            options = {**options, key: api.ids[owner][kind]}
    params = options.get("params") or {}
    if ":" in str(params.get("locationId", "")):
        owner, kind = params["locationId"].split(":")
        options = {**options, "params": {"locationId": api.ids[owner][kind]}}

    body = api.call(endpoint, **options).json()

    assert field == body["field"], body
    if body["code"] != "NOT-FOUND":  # a not-found message names the record, not the input
        assert field in body["message"], body


def test_a_string_for_an_integer_is_refused(api):
    """duration "30" on a service create is 400 INVALID-FORMAT naming duration (strict types)."""
    before = api.world.records()

    response = api.call(
        "POST /setup/v1/services", json={"name": "X", "duration": "30", "reason": "r"}
    )

    assert (400, "INVALID-FORMAT", "duration") == (
        response.status_code,
        response.json()["code"],
        response.json()["field"],
    )
    assert "an integer" in response.json()["message"]
    assert before == api.world.records()


def test_reserve_without_a_body_is_reserve_with_no_fields(api):
    """PUT .../reserve with no body reads as {}: the hold's own refusal, no dictionary key."""
    response = api.call("PUT /consumer/v1/appointments/{id}/reserve", id=api.ids["A"]["hold"])

    assert "'data'" not in response.text
    assert response.json()["field"] != "body"


class TestIntegerQueryText:
    """An integer query parameter is an integer as JSON writes one, on every route."""

    @pytest.mark.parametrize(
        "text", ["5.0", "1e3", "+5", "05", "0x5", "5_0", " 5", "5 ", "", "\u0665", "abc"]
    )
    def test_anything_else_is_invalid_format(self, api, text):
        """``limit`` that Litestar would read leniently (5.0, 1e3) or not at all: 400 naming it."""
        response = api.call("GET /setup/v1/services", params={"limit": text})

        assert (400, "INVALID-FORMAT", "limit", text) == (
            response.status_code,
            response.json()["code"],
            response.json()["field"],
            response.json()["value"],
        )
        assert "limit must be an integer: decimal digits" in response.json()["message"]

    def test_every_integer_parameter_of_every_route(self, api):
        """Each integer query parameter of the route table refuses ``1.0``, naming itself."""
        probe = api.world.scheduler.as_principal(None)
        checked = []
        for route in ROUTES:
            plan = Plan(route, operation_of(route, probe))
            path = re.sub(r"{\w+}", "x", route.path)
            for wire in plan.integers:
                response = api.call(f"{route.method} {path}", params={wire: "1.0"})

                assert (400, "INVALID-FORMAT", wire) == (
                    response.status_code,
                    response.json()["code"],
                    response.json()["field"],
                ), (route.method, route.path, response.text)
                checked.append(wire)

        assert {"limit", "offset", "startTime", "duration", "tzOffset"} <= set(checked)

    def test_more_digits_than_any_accepted_integer_is_out_of_range(self, api):
        """A 5,000-digit ``limit`` is 400 OUT-OF-RANGE (decision 36), not a converter's failure."""
        response = api.call("GET /setup/v1/services", params={"limit": "9" * 5000})

        assert (400, "OUT-OF-RANGE", "limit") == (
            response.status_code,
            response.json()["code"],
            response.json()["field"],
        )

    @pytest.mark.parametrize(("text", "value"), [("0", 0), ("-0", 0), ("7", 7), ("-12", -12)])
    def test_integer_text_reads_json_integers(self, text, value):
        """``integer_text`` passes the integers of RFC 8259 through unchanged."""
        assert value == int(integer_text(text, field="limit"))

    @pytest.mark.parametrize("text", ["1.", ".5", "1e3", "+1", "007", "-", "1\n"])
    def test_integer_text_refuses_the_rest(self, text):
        """``integer_text`` refuses what is not a JSON integer, naming the field."""
        with pytest.raises(InvalidFormat) as refused:
            integer_text(text, field="limit")

        assert ("limit", text) == (refused.value.field, refused.value.value)
