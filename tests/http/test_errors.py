"""Errors on the wire (decision 40): statuses, bodies, limits and the unexpected."""

from __future__ import annotations

import logging

import pytest

import slotwise.errors
from slotwise.errors import SlotwiseError, StoreUnavailable
from slotwise.http import DEFAULT_MAX_BODY_SIZE, create_app
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
