"""
Authentication and tenancy over HTTP (decisions 30, 37, 39): every route, every refusal 401.

Each route is called without a token, with an unknown, an expired and a revoked token (401 not
authenticated, the same body each time), with company A's token naming company B's records and
with a token limited to location L1 naming L2's records (401 unauthorized). No refusal carries
anything of the record it refused.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from slotwise.http import ROUTES, Route
from tests.boundary._tenant_world import SECRETS_OF_B, TUESDAY, at

from ._client import Service

LUNCH = {"startDate": str(TUESDAY), "endDate": str(TUESDAY), "startTime": 1200, "endTime": 1300}

BODIES: dict[str, Any] = {
    "appointments.create": {
        "startDateTime": at(1400).isoformat(),
        "endDateTime": at(1430).isoformat(),
    },
    "appointments.reschedule": {
        "startDateTime": at(1400).isoformat(),
        "endDateTime": at(1430).isoformat(),
    },
    "subscriptions.create": {"customerPlanId": "gold"},
    "resources.create_block": LUNCH,
    "resources.create_allocation": LUNCH,
    "calendars.create_block": LUNCH,
    "services.create_block": LUNCH,
    "services.create_allocation": LUNCH,
    "resources.link_services": {"serviceIds": []},
    "locations.set_holidays": {"businessHolidays": []},
}
"""Valid bodies, so that a refusal is about the caller, not about the body."""

KIND_OF: dict[str, str] = {
    "appointments": "appointment",
    "availability.for_reschedule": "appointment",
    "availability": "service",
    "subscriptions.list": "customer",
    "customers": "customer",
    "fields": "location_field",
    "subscriptions.create": "customer",
    "subscriptions": "subscription",
    "locations": "location",
    "resources.get_block": "resource_block",
    "resources.update_block": "resource_block",
    "resources.delete_block": "resource_block",
    "resources.get_allocation": "resource_allocation",
    "resources.update_allocation": "resource_allocation",
    "resources.delete_allocation": "resource_allocation",
    "resources": "resource",
    "services.get_block": "service_block",
    "services.update_block": "service_block",
    "services.update_allocation": "service_allocation",
    "services.delete_block": "service_block",
    "services.get_allocation": "service_allocation",
    "services.delete_allocation": "service_allocation",
    "services.list_allocations": "event_service",
    "services.create_allocation": "event_service",
    "services": "service",
    "calendars.get_block": "calendar_block",
    "calendars.update_block": "calendar_block",
    "calendars.delete_block": "calendar_block",
    "calendars": "calendar",
    "service_groups": "service_group",
    "resource_groups": "resource_group",
    "company": "company",
    "outbox": "event",
}
"""The kind of record a route's first path placeholder names."""


def _kind(route: Route) -> str:
    return KIND_OF.get(route.operation) or KIND_OF[route.group]


def _request(api: Service, route: Route, *, owner: str, who: str | None) -> Any:
    """Send *route* naming *owner*'s record of its kind in every placeholder."""
    values = {}
    for placeholder in re.findall(r"{(\w+)}", route.path):
        if placeholder in ("startDate", "endDate"):
            values[placeholder] = str(TUESDAY)
        elif placeholder == "emailAddress":
            values[placeholder] = "ana@example.com"
        elif placeholder == "email":
            values[placeholder] = "owner@example.com"
        elif placeholder == "settingsScope":
            values[placeholder] = "company"
        else:
            values[placeholder] = api.ids[owner][_kind(route)]
    params = None
    if route.operation == "availability.for_reschedule":
        params = {"startDate": str(TUESDAY), "endDate": str(TUESDAY)}
    if route.operation == "geography.states":
        params = {"country": "US"}
    if route.operation == "availability.explain":
        params = {"start": at(900).isoformat()}
    json = BODIES.get(route.operation, {}) if route.method in ("POST", "PUT") else None
    if route.whole_body in ("locations", "updates"):
        json = []
    return api.call(f"{route.method} {route.path}", who=who, params=params, json=json, **values)


ALL = [pytest.param(route, id=f"{route.method} {route.path}") for route in ROUTES]
WITH_IDS = [
    pytest.param(route, id=f"{route.method} {route.path}")
    for route in ROUTES
    if re.search(r"{(?!startDate|endDate|emailAddress|email|settingsScope)\w+}", route.path)
]


@pytest.mark.parametrize("route", ALL)
def test_every_route_needs_a_valid_token(api, route):
    """No token, an unknown, an expired or a revoked one: 401 not authenticated, same body."""
    answers = [_request(api, route, owner="A", who=who) for who in (None, "expired", "revoked")]
    api.tokens["unknown"] = "sw_" + "x" * 43
    answers.append(_request(api, route, owner="A", who="unknown"))

    for response in answers:
        assert 401 == response.status_code
        assert {
            "code": "NOT-AUTHENTICATED",
            "message": answers[0].json()["message"],
            "field": None,
        } == response.json()
        assert "Bearer" == response.headers["WWW-Authenticate"]


@pytest.mark.parametrize("route", WITH_IDS)
def test_another_companys_record_is_unauthorized(api, route):
    """Company A's token naming company B's record: 401 unauthorized, nothing of B shown."""
    before = api.world.records()
    response = _request(api, route, owner="B", who="a")

    assert (401, "UNAUTHORIZED") == (response.status_code, response.json()["code"]), response.text
    assert not [secret for secret in SECRETS_OF_B if secret in response.text]
    assert before == api.world.records()
    assert _placeholder(route) == response.json()["field"]


LIMITED = [
    param
    for param in WITH_IDS
    if _kind(param.values[0]) not in ("company", "customer", "subscription")
    and param.values[0].operation != "services.create_allocation"
]


@pytest.mark.parametrize("route", LIMITED)
def test_a_location_limited_token_stays_in_its_locations(api, route):
    """A token limited to L1 naming a record of L2: 401 unauthorized, nothing changes."""
    before = api.world.records()
    response = _request(api, route, owner="L2", who="a_l1")

    assert (401, "UNAUTHORIZED") == (response.status_code, response.json()["code"]), response.text
    assert before == api.world.records()
    assert _placeholder(route) == response.json()["field"]


@pytest.mark.parametrize(
    "endpoint",
    [
        "GET /consumer/v1/appointments",
        "GET /consumer/v1/resources",
        "GET /consumer/v1/services",
        "GET /setup/v1/calendars",
        "GET /setup/v1/services",
        "GET /consumer/v1/servicegroups",
        "GET /consumer/v1/resourcegroups",
        "GET /consumer/v1/appointments/customfields",
    ],
)
def test_a_filter_naming_another_companys_location_is_unauthorized(api, endpoint):
    """A list filtered by company B's location, with A's token: 401, nothing listed."""
    response = api.call(endpoint, params={"locationId": api.ids["B"]["location"]})

    assert (401, "UNAUTHORIZED") == (response.status_code, response.json()["code"])
    assert "data" not in response.json()


def test_open_paths_need_no_token(api):
    """/healthz, /openapi.json and /docs answer without a token."""
    with api.client(None) as client:
        health = client.get("/healthz")
        document = client.get("/openapi.json")
        page = client.get("/docs")

    assert (200, "ok") == (health.status_code, health.json()["status"])
    assert document.json()["openapi"].startswith("3.1")
    assert {"bearer"} == set(document.json()["components"]["securitySchemes"])
    assert (200, "text/html") == (page.status_code, page.headers["content-type"].split(";")[0])


def _placeholder(route: Route) -> str:
    """The name of the first placeholder naming a record: what a 401 names (decision 44)."""
    return re.findall(r"{(\w+)}", route.path)[0]
