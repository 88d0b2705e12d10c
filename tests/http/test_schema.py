"""
The OpenAPI document against the service itself (Schemathesis), and against the spec's list.

Schemathesis generates requests from ``/openapi.json`` -- valid and invalid ones -- and sends
them in process with a company-wide token of the tenant world, so they get past authentication
and reach the operations. Every check runs but one: ``positive_data_acceptance`` assumes that a
request the schema allows must succeed, and the operations refuse schema-valid requests by rules
no schema states (a name over 50 characters on create, a start after its end, an id of no
record); those refusals are 400s and 404s that the document lists. The number of examples per
operation is ``SLOTWISE_SCHEMATHESIS_EXAMPLES`` (default 50).
"""

from __future__ import annotations

import os
import pathlib
import re

import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.checks import positive_data_acceptance

from slotwise.http import ROUTES

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


@schema.parametrize()
@settings(
    max_examples=EXAMPLES,
    suppress_health_check=list(HealthCheck),
    deadline=None,
    derandomize=True,
)
def test_every_operation_answers_as_documented(case):
    """No server error, no response off the schema, no undocumented status, for any request."""
    case.call_and_validate(excluded_checks=[positive_data_acceptance])


def _document_pairs() -> set[tuple[str, str]]:
    document = _service.app.openapi_schema.to_schema()
    return {
        (method.upper(), path)
        for path, operations in document["paths"].items()
        for method in operations
        if path != "/healthz"
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
