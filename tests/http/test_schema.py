"""
The OpenAPI document against the service itself (Schemathesis), and against the spec's list.

Schemathesis generates requests from ``/openapi.json`` -- valid and invalid ones -- and sends
them in process with a company-wide token of the tenant world, so they get past authentication
and reach the operations. Every check runs, ``positive_data_acceptance`` included: a request the
document allows is not refused with 400. The document states the limits the server enforces
(required fields, lengths, ranges, choices, unknown fields refused; ``slotwise.http._constraints``
derives them from the validators and input rules that enforce them). Operations whose refusals
depend on rules no JSON Schema states are listed in :data:`NOT_STATED` with the rule; on those,
``positive_data_acceptance`` alone is skipped. The number of examples per operation is
``SLOTWISE_SCHEMATHESIS_EXAMPLES`` (default 50).
"""

from __future__ import annotations

import os
import pathlib
import re

import attrs
import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.checks import positive_data_acceptance

from slotwise.http import ROUTES
from slotwise.http._probes import PROBE_PATHS
from slotwise.model import Service
from slotwise.model._checks import stated
from slotwise.model.catalog import SERVICE_NAME_MAX

from ._client import serve

ROOT = pathlib.Path(__file__).resolve().parents[2]
FEEDS = {("GET", "/setup/v1/resources/{id}/calendar.ics")}
"""Paths served outside the route table: they answer iCalendar, not JSON."""
EXAMPLES = int(os.environ.get("SLOTWISE_SCHEMATHESIS_EXAMPLES", "50"))

_service = serve()
schema = schemathesis.openapi.from_asgi("/openapi.json", _service.app)


@schema.auth()
class _CompanyToken:
    """Company A's token, set as Schemathesis's own auth so negative cases may drop it."""

    def get(self, case, context):
        """Return the token."""
        return _service.tokens["a"]

    def set(self, case, data, context):
        """Put the token in the Authorization header."""
        case.headers = {**(case.headers or {}), "Authorization": f"Bearer {data}"}


_DATES = "a date or date-time within 1900..9999 (decision 36): JSON Schema has no bound on a format"
_HHMM = "an HHMM time's minutes 00..59: a rule on an integer's digits that no schema keyword states"
_REPEAT = "a repeat rule's fields depend on its frequency (monthDay only monthly, ...)"
_RANGE = "a start before its end: a rule across two fields"
_CUSTOMER = "a hold becomes an appointment only with a customer (name or e-mail), across fields"
_PATCH = "a JSON Patch's paths must name the record's fields: a path is free text in the schema"
_REMINDER = "a reminder's value range depends on its unit (1..24 hours, 1..30 days)"
_TEXT = "text whose values are a closed set not listed (ISO country codes, zone names)"
_POINT = "nearestTo's pattern states two numbers, not their ranges (-90..90, -180..180)"
_ID_ITEMS = "ids inside lists and path placeholders are read as ids (non-empty) by the operation"
_NAME = "a name the operation requires non-blank while the route declares no record to state it"
_FIELD_NAME = (
    "a custom field's name is field1..field10, a booking field's free: depends on its kind"
)
_PERSON = "a person needs a first or last name, a business a business name: a rule across fields"

NOT_STATED: dict[str, str] = {
    "GET /consumer/v1/availability/{serviceId}/{startDate}/{endDate}": _DATES,
    "GET /consumer/v1/availability/{serviceId}/{startDate}/{endDate}/days": _DATES,
    "GET /consumer/v1/availability/{serviceId}/{startDate}/{endDate}/unavailable": _DATES,
    "GET /consumer/v1/availability/{serviceId}/explain": _DATES,
    "PUT /setup/v1/locations/{id}/holidays": _DATES,
    "POST /consumer/v1/customers/{id}/subscriptions": _DATES,
    "GET /consumer/v1/appointments": _DATES,
    "POST /setup/v1/calendars": _HHMM,
    "PUT /setup/v1/calendars/{id}": _HHMM,
    "POST /setup/v1/services": _HHMM,
    "PUT /setup/v1/services/{id}": _HHMM,
    "PUT /setup/v1/services/{id}/availability": _HHMM,
    "PUT /setup/v1/resources/{id}/availability": _HHMM,
    "POST /setup/v1/calendars/{id}/blocks": _REPEAT,
    "PUT /setup/v1/calendars/blocks/{id}": _REPEAT,
    "POST /setup/v1/resources/{id}/block": _REPEAT,
    "PUT /setup/v1/resources/block/{id}": _REPEAT,
    "POST /setup/v1/resources/{id}/allocations": _REPEAT,
    "PUT /setup/v1/resources/allocations/{id}": _REPEAT,
    "POST /setup/v1/services/{id}/block": _REPEAT,
    "POST /setup/v1/services/{id}/blocks": _REPEAT,
    "PUT /setup/v1/services/block/{id}": _REPEAT,
    "POST /setup/v1/services/{id}/allocations": _REPEAT,
    "PUT /setup/v1/services/allocations/{id}": _REPEAT,
    "POST /consumer/v1/appointments": _RANGE,
    "PUT /consumer/v1/appointments/{id}/reschedule": _RANGE,
    "PUT /consumer/v1/appointments/{id}/book": _CUSTOMER,
    "PUT /consumer/v1/appointments/{id}/reserve": _CUSTOMER,
    "PUT /consumer/v1/customers/subscriptions/{id}": _PATCH,
    "PUT /consumer/v1/resourcegroups/{id}": _PATCH,
    "PUT /setup/v1/servicegroups/{id}": _PATCH,
    "PUT /setup/v1/locations": _REMINDER,
    "PUT /setup/v1/locations/{id}": _REMINDER,
    "PUT /setup/v1/company/{id}": _PATCH,
    "POST /setup/v1/locations/bulk": _REMINDER,
    "PUT /setup/v1/locations/{id}/appointmentreminders": _REMINDER,
    "GET /consumer/v1/customers/states": _TEXT,
    "GET /consumer/v1/locations": _POINT,
    "POST /setup/v1/locations": _TEXT,
    "PUT /setup/v1/locations/{id}/settings/scope/{settingsScope}": _TEXT,
    "PUT /setup/v1/resources/bulk": _ID_ITEMS,
    "PUT /setup/v1/resources/{id}": _ID_ITEMS,
    "PUT /setup/v1/resources/{id}/services": _ID_ITEMS,
    "POST /setup/v1/resources": _NAME,
    "POST /consumer/v1/resourcegroups": _NAME,
    "POST /setup/v1/servicegroups": _NAME,
    "POST /setup/v1/companies": _NAME,
    "PUT /setup/v1/companies": _NAME,
    "POST /setup/v1/fields": _FIELD_NAME,
    "PUT /setup/v1/fields/{id}": _FIELD_NAME,
    "POST /consumer/v1/customers": _PERSON,
    "PUT /consumer/v1/customers/{id}": _PERSON,
}
"""Operations on which a schema-valid request may still be refused (400), with the rule why."""


@schema.parametrize()
@settings(
    max_examples=EXAMPLES,
    suppress_health_check=list(HealthCheck),
    deadline=None,
    derandomize=True,
)
def test_every_operation_answers_as_documented(case):
    """No server error, no response off the schema, no undocumented status; valid data accepted."""
    label = f"{case.operation.method.upper()} {case.operation.path}"
    skipped = [positive_data_acceptance] if label in NOT_STATED else []
    case.call_and_validate(excluded_checks=skipped)


def test_the_exclusions_name_served_operations():
    """Every operation excused from positive_data_acceptance is served; most are not excused."""
    served = {f"{method} {path}" for method, path in _document_pairs()}

    assert set(NOT_STATED) <= served
    assert len(NOT_STATED) < len(served) / 2


def _document_pairs() -> set[tuple[str, str]]:
    document = _service.app.openapi_schema.to_schema()
    return {
        (method.upper(), path)
        for path, operations in document["paths"].items()
        for method in operations
        if path not in PROBE_PATHS
    }


def _spec_pairs() -> set[tuple[str, str]]:
    """The spec's method+path pairs (its tables and its release-notes list), as served."""
    return {(route.method, route.path) for route in ROUTES if not route.extension}


class TestEndpointLists:
    """The OpenAPI document, the route table and ``docs/endpoints.md`` list the same endpoints."""

    def test_document_lists_every_route(self):
        """/openapi.json has every method and path of the route table, and nothing else."""
        routes = {(route.method, route.path) for route in ROUTES} | FEEDS

        assert routes == _document_pairs()

    def test_the_spec_has_92_endpoints(self):
        """The route table serves the spec's 92 method+path pairs (docs/endpoints.md: reading)."""
        assert 92 == len(_spec_pairs())

    def test_every_path_the_spec_names_is_served(self):
        """Each "METHOD /path" written in the spec is a served route (when the spec is present)."""
        spec = ROOT.parent / "shared" / "spec" / "scheduling-service.md"
        if not spec.exists():  # a checkout without the shared spec beside it
            return
        named = set(re.findall(r"\b(GET|POST|PUT|DELETE) (/[\w/{}.-]+)", spec.read_text()))
        # "GET and POST /setup/v1/service groups endpoints": the natural path.
        named = {
            (m, "/setup/v1/servicegroups" if p == "/setup/v1/service" else p) for m, p in named
        }

        assert named <= _spec_pairs()

    def test_endpoints_page_lists_the_document(self):
        """docs/endpoints.md's HTTP column names exactly the document's method+path pairs."""
        text = (ROOT / "docs" / "endpoints.md").read_text()
        documented = set(re.findall(r"^\| `(GET|POST|PUT|DELETE) (/[^`]+)`", text, re.M))

        assert _document_pairs() == documented

    @pytest.mark.parametrize("route", ROUTES, ids=[f"{r.method} {r.path}" for r in ROUTES])
    def test_every_route_has_an_http_test(self, route):
        """tests/http/ sends at least one request to every route."""
        sources = "".join(p.read_text() for p in (ROOT / "tests" / "http").glob("test_*.py"))
        needle = f'"{route.method} {route.path}"'

        assert needle in sources, f"no HTTP test names {route.method} {route.path}"


def _component(name: str) -> dict:
    """The component schema *name* of the served document."""
    return _service.app.openapi_schema.to_schema()["components"]["schemas"][name]


def _string(schema: dict) -> dict:
    """The string member of a property's schema (a oneOf with null, or the schema itself)."""
    return next((m for m in schema.get("oneOf", [schema]) if m.get("type") == "string"), {})


class TestConstraints:
    """The document states the limits the server enforces, read from the same declarations."""

    def test_required_fields_are_required(self):
        """A service create requires name and duration (the operation's parameters without default)."""
        assert {"name", "duration"} <= set(_component("ServicesCreateBody")["required"])

    def test_lengths_and_ranges_come_from_the_validators(self):
        """name's maxLength is the model's limit; duration's range is check_int's."""
        body = _component("ServicesCreateBody")["properties"]
        duration = attrs.fields_dict(Service)["duration"].validator

        assert SERVICE_NAME_MAX == _string(body["name"])["maxLength"]
        assert stated(duration) == {key: body["duration"][key] for key in ("minimum", "maximum")}

    def test_unknown_fields_are_refused_in_the_document(self):
        """Generated bodies say additionalProperties: false (decision 35)."""
        assert _component("ServicesCreateBody")["additionalProperties"] is False

    def test_list_windows(self):
        """limit is 1..100, 1..500 on the consumer services list; offset at least 0."""
        paths = _service.app.openapi_schema.to_schema()["paths"]

        def bounds(path: str, name: str) -> tuple[int, int]:
            (parameter,) = [p for p in paths[path]["get"]["parameters"] if p["name"] == name]
            schema = next(m for m in parameter["schema"]["oneOf"] if m["type"] == "integer")
            return schema["minimum"], schema["maximum"]

        assert (1, 100) == bounds("/setup/v1/services", "limit")
        assert (1, 500) == bounds("/consumer/v1/services", "limit")
        assert 0 == bounds("/setup/v1/services", "offset")[0]

    @pytest.mark.parametrize(
        "body", ["LocationsCreateBody", "LocationsUpdateBody", "LocationsUpdateWithIdBody"]
    )
    def test_coordinates_are_bounded_by_the_globe(self, body: str):
        """A location's latitude is -90..90 and its longitude -180..180 (the model's validators)."""
        properties = _component(body)["properties"]

        def bounds(name: str) -> tuple[float, float]:
            schema = next(m for m in properties[name]["oneOf"] if m["type"] == "number")
            return schema["minimum"], schema["maximum"]

        assert ((-90, 90), (-180, 180)) == (bounds("latitude"), bounds("longitude"))

    def test_nearest_to_states_its_text(self):
        """nearestTo's pattern is the one its reader applies: two JSON numbers and a comma."""
        paths = _service.app.openapi_schema.to_schema()["paths"]
        (parameter,) = [
            p
            for p in paths["/consumer/v1/locations"]["get"]["parameters"]
            if p["name"] == "nearestTo"
        ]
        pattern = re.compile(_string(parameter["schema"])["pattern"])

        assert all(pattern.search(text) for text in ("52.37,-4.9", "-1e1,0", "0,180"))
        assert not any(pattern.search(text) for text in ("91", "nan,0", "+1,2", "1, 2", "1,2,3"))

    def test_error_bodies_always_have_field(self):
        """ErrorBody lists field as required (null when no field applies, decision 44)."""
        assert "field" in _component("ErrorBody")["required"]

    def test_operations_reading_a_body_document_415(self):
        """Every operation with a request body documents 415 (decision 45); none without one."""
        paths = _service.app.openapi_schema.to_schema()["paths"]
        operations = [
            operation
            for methods in paths.values()
            for method, operation in methods.items()
            if method in ("get", "post", "put", "delete")
        ]
        with_body = [o for o in operations if "requestBody" in o]

        assert with_body
        assert all("415" in o["responses"] for o in with_body)
        assert not any("415" in o["responses"] for o in operations if "requestBody" not in o)
