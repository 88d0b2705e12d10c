"""
slotwise's extensions over HTTP (decision 46): customers, field definitions, deletes, reads.

Each route's happy path through the app, a refusal naming its field or its reason, 404 for an
unknown id, and its place in the OpenAPI document under the tag ``slotwise extensions``;
``test_auth.py`` refuses every one of them another tenant's ids. The last test runs a customer's
whole life through a real ``slotwise serve`` process.
"""

from __future__ import annotations

import io
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from slotwise.http import ROUTES
from slotwise.model import Subscription
from tests.boundary._tenant_world import TUESDAY

from ._client import items

EXTENSIONS = [route for route in ROUTES if route.extension]
WITH_ID = [
    pytest.param(route, id=f"{route.method} {route.path}")
    for route in EXTENSIONS
    if "{id}" in route.path and not route.company_in_path
]


def _refusal(response: httpx.Response) -> tuple[int, str, str | None]:
    body = response.json()
    return response.status_code, body["code"], body.get("field")


class TestDocument:
    """The extensions in /openapi.json."""

    def test_every_extension_is_tagged_and_no_spec_route_is(self, api):
        """Each extension row is under the tag `slotwise extensions`; the spec's routes are not."""
        with api.client() as client:
            document = client.get("/openapi.json").json()
        tagged = {
            (method.upper(), path)
            for path, operations in document["paths"].items()
            for method, operation in operations.items()
            if "slotwise extensions" in operation.get("tags", ())
        }

        assert {(route.method, route.path) for route in EXTENSIONS} == tagged
        assert {
            ("GET", "/consumer/v1/customers"),
            ("POST", "/consumer/v1/customers"),
            ("DELETE", "/consumer/v1/customers/{id}"),
            ("POST", "/setup/v1/fields"),
            ("DELETE", "/setup/v1/locations/{id}"),
            ("DELETE", "/setup/v1/services/{id}"),
            ("DELETE", "/setup/v1/calendars/{id}"),
            ("DELETE", "/setup/v1/calendars/blocks/{id}"),
            ("DELETE", "/setup/v1/services/block/{id}"),
            ("GET", "/setup/v1/services/block/{id}"),
            ("GET", "/setup/v1/calendars/blocks/{id}"),
            ("GET", "/setup/v1/calendars/{id}/blocks"),
            ("GET", "/setup/v1/services/allocations/{id}"),
            ("GET", "/setup/v1/services/{id}/allocations"),
            ("DELETE", "/setup/v1/services/allocations/{id}"),
            ("GET", "/setup/v1/company/{id}"),
            ("GET", "/setup/v1/resources/{id}"),
        } <= tagged

    def test_the_customer_body_is_documented_with_wire_names(self, api):
        """POST /consumer/v1/customers documents its body: firstname, lastname, email, ..."""
        with api.client() as client:
            document = client.get("/openapi.json").json()
        schema = document["components"]["schemas"]["CustomersCreateBody"]

        assert {"firstname", "lastname", "businessName", "email", "phone"} <= set(
            schema["properties"]
        )


@pytest.mark.parametrize("route", WITH_ID)
def test_an_unknown_id_is_404(api, route):
    """Every extension naming a record by {id}: an id of no record answers 404, nothing changes."""
    before = api.world.records()
    json = {} if route.method in ("POST", "PUT") else None
    response = api.call(f"{route.method} {route.path}", id="no-such-record", json=json)

    assert (404, "NOT-FOUND") == (response.status_code, response.json()["code"]), response.text
    assert before == api.world.records()


class TestCustomers:
    """GET, POST /consumer/v1/customers; GET, PUT, DELETE /consumer/v1/customers/{id}."""

    def test_create_get_list_update_delete(self, api):
        """A customer's whole life over HTTP, with its subscription deleted alongside."""
        created = api.call(
            "POST /consumer/v1/customers",
            json={"firstname": "Cy", "lastname": "Ng", "email": "cy@alpha.example"},
        )
        customer = created.json()
        read = api.call("GET /consumer/v1/customers/{id}", id=customer["id"]).json()
        listed = api.call("GET /consumer/v1/customers", params={"email": "CY@alpha.example"})
        changed = api.call(
            "PUT /consumer/v1/customers/{id}", id=customer["id"], json={"phone": "5550100"}
        ).json()
        patched = api.call(
            "PUT /consumer/v1/customers/{id}",
            id=customer["id"],
            content=b'[{"op": "replace", "path": "/lastname", "value": "Lee"}]',
            headers={"Content-Type": "application/json-patch+json"},
        ).json()
        api.call(
            "POST /consumer/v1/customers/{id}/subscriptions",
            id=customer["id"],
            json={"customerPlanId": "gold"},
        )
        deleted = api.call("DELETE /consumer/v1/customers/{id}", id=customer["id"])
        gone = api.call("GET /consumer/v1/customers/{id}", id=customer["id"])

        assert (201, "customer", "Cy") == (
            created.status_code,
            customer["object"],
            read["firstname"],
        )
        assert [customer["id"]] == [c["id"] for c in items(listed)]
        assert ("5550100", "Lee") == (changed["phone"], patched["lastname"])
        assert (200, customer["id"]) == (deleted.status_code, deleted.json()["id"])
        assert 404 == gone.status_code
        with api.world.scheduler.store.read() as reader:
            subscriptions = reader.find(Subscription, company_id=api.ids["A"]["company"])
        assert customer["id"] not in [s.customer_id for s in subscriptions]

    def test_a_bad_email_is_refused_naming_the_field(self, api):
        """POST /consumer/v1/customers with an e-mail that is not one: 400 naming `email`."""
        before = api.world.records()
        response = api.call(
            "POST /consumer/v1/customers", json={"firstname": "Cy", "email": "not an address"}
        )

        assert (400, "INVALID-FORMAT", "email") == _refusal(response)
        assert before == api.world.records()

    def test_a_taken_email_is_refused_on_update(self, api):
        """PUT /consumer/v1/customers/{id} taking another customer's e-mail: refused, unchanged."""
        response = api.call(
            "PUT /consumer/v1/customers/{id}",
            id=api.ids["A"]["customer"],
            json={"email": "ann@a1.example"},
        )

        assert (409, "DUPLICATE", "email") == _refusal(response)
        assert "ann.two@alpha.example" == api.world.a.customers.get(api.ids["A"]["customer"]).email

    def test_a_customer_with_appointments_is_not_deleted(self, api):
        """DELETE of a customer that appointments name: 409 IN-USE, the customer stays."""
        booked = api.world.a.appointments.get(api.ids["A"]["appointment"])
        response = api.call("DELETE /consumer/v1/customers/{id}", id=booked.customer_id)

        assert (409, "IN-USE") == _refusal(response)[:2]
        assert booked.customer_id == api.world.a.customers.get(booked.customer_id).id

    def test_a_list_window_out_of_range_names_limit(self, api):
        """GET /consumer/v1/customers?limit=0: 400 naming `limit`."""
        response = api.call("GET /consumer/v1/customers", params={"limit": 0})

        assert (400, "OUT-OF-RANGE", "limit") == _refusal(response)


class TestFieldDefinitions:
    """POST /setup/v1/fields; GET, PUT, DELETE /setup/v1/fields/{id}."""

    def test_define_read_change_delete(self, api):
        """A booking field defined, read, renamed and deleted; the consumer list follows."""
        location = api.ids["A"]["location"]
        created = api.call(
            "POST /setup/v1/fields",
            json={"locationId": location, "kind": "booking", "name": "shoe", "label": "Shoe"},
        )
        field = created.json()
        read = api.call("GET /setup/v1/fields/{id}", id=field["id"]).json()
        changed = api.call(
            "PUT /setup/v1/fields/{id}", id=field["id"], json={"label": "Shoe size"}
        ).json()
        shown = api.call(
            "GET /consumer/v1/appointments/bookingfields", params={"locationId": location}
        ).json()
        deleted = api.call("DELETE /setup/v1/fields/{id}", id=field["id"])
        after = api.call(
            "GET /consumer/v1/appointments/bookingfields", params={"locationId": location}
        ).json()

        assert (201, "shoe") == (created.status_code, read["name"])
        assert "Shoe size" == changed["label"]
        assert field["id"] in [f["id"] for f in shown["bookingFields"]]
        assert 200 == deleted.status_code
        assert field["id"] not in [f["id"] for f in after["bookingFields"]]

    def test_a_custom_field_name_outside_field1_to_10_is_refused(self, api):
        """POST /setup/v1/fields naming a custom field `field11`: 400 naming `name`."""
        before = api.world.records()
        response = api.call("POST /setup/v1/fields", json={"name": "field11", "label": "x"})

        assert (400, "name") == (response.status_code, response.json()["field"])
        assert before == api.world.records()

    def test_an_unknown_type_is_refused_on_update(self, api):
        """PUT /setup/v1/fields/{id} with a type that is none: 400 naming `type`, unchanged."""
        response = api.call(
            "PUT /setup/v1/fields/{id}", id=api.ids["A"]["location_field"], json={"type": "bogus"}
        )

        assert (400, "type") == (response.status_code, response.json()["field"])
        assert "text" == api.world.a.fields.get(api.ids["A"]["location_field"]).type.value


class TestDeletes:
    """DELETE of locations, services, calendars, calendar and service blocks, allocations."""

    def test_a_spare_location_goes_with_what_only_it_owns(self, api):
        """DELETE /setup/v1/locations/{id}: its calendar, groups and fields go with it."""
        ws = api.world.a
        spare = ws.locations.create(name="Spare")
        ws.service_groups.create(name="Spare group", location_id=spare.id)
        ws.fields.define(name="field1", label="Spare notes", location_id=spare.id)
        response = api.call("DELETE /setup/v1/locations/{id}", id=spare.id)
        gone = api.call("GET /consumer/v1/locations/{id}", id=spare.id)

        assert (200, spare.id) == (response.status_code, response.json()["id"])
        assert 404 == gone.status_code
        assert spare.id not in api.world.records()

    def test_the_primary_location_and_one_in_use_stay(self, api):
        """DELETE of the primary location or of one with services: 409 IN-USE, nothing changes."""
        before = api.world.records()
        primary = api.call("DELETE /setup/v1/locations/{id}", id=api.ids["A"]["location"])
        in_use = api.call("DELETE /setup/v1/locations/{id}", id=api.ids["L2"]["location"])

        assert (409, "IN-USE") == _refusal(primary)[:2]
        assert (409, "IN-USE") == _refusal(in_use)[:2]
        assert before == api.world.records()

    def test_a_location_limited_token_cannot_delete_its_location(self, api):
        """The set of locations is company-wide (decision 37): 401 for a token limited to L1."""
        response = api.call(
            "DELETE /setup/v1/locations/{id}", who="a_l1", id=api.ids["A"]["location"]
        )

        assert (401, "UNAUTHORIZED") == _refusal(response)[:2]

    def test_a_service_goes_with_its_blocks(self, api):
        """DELETE /setup/v1/services/{id} of an unused service; then DELETE of a booked one: 409."""
        created = api.call(
            "POST /setup/v1/services", json={"name": "Trim", "duration": 30, "reason": "new"}
        ).json()
        block = api.call(
            "POST /setup/v1/services/{id}/block",
            id=created["id"],
            json={"startDate": str(TUESDAY), "endDate": str(TUESDAY)},
        ).json()
        deleted = api.call("DELETE /setup/v1/services/{id}", id=created["id"])
        refused = api.call("DELETE /setup/v1/services/{id}", id=api.ids["A"]["service"])

        assert 200 == deleted.status_code
        assert block["id"] not in api.world.records()
        assert (409, "IN-USE") == _refusal(refused)[:2]
        assert "appointments" in refused.json()["message"]

    def test_a_service_a_resource_links_stays(self, api):
        """A service a resource links is not deleted: the resource would take every service."""
        ws = api.world.a
        service = ws.services.create(name="Linked", duration=30, reason="r")
        ws.resources.link_services(api.ids["A"]["resource"], [service.id])
        response = api.call("DELETE /setup/v1/services/{id}", id=service.id)

        assert (409, "IN-USE") == _refusal(response)[:2]
        assert "resources" in response.json()["message"]

    def test_a_calendar_and_its_block(self, api):
        """DELETE /setup/v1/calendars/blocks/{id}, then .../calendars/{id}; the primary stays."""
        calendar = api.call("POST /setup/v1/calendars", json={"name": "Extra"}).json()
        block = api.call(
            "POST /setup/v1/calendars/{id}/blocks",
            id=calendar["id"],
            json={"startDate": str(TUESDAY), "endDate": str(TUESDAY)},
        ).json()
        block_deleted = api.call("DELETE /setup/v1/calendars/blocks/{id}", id=block["id"])
        deleted = api.call("DELETE /setup/v1/calendars/{id}", id=calendar["id"])
        primary = api.call("DELETE /setup/v1/calendars/{id}", id=api.ids["A"]["calendar"])

        assert (200, True) == (block_deleted.status_code, block_deleted.json()["deletedStatus"])
        assert (200, 404) == (
            deleted.status_code,
            api.call("GET /setup/v1/calendars/{id}", id=calendar["id"]).status_code,
        )
        assert (409, "IN-USE") == _refusal(primary)[:2]

    def test_a_service_block(self, api):
        """DELETE /setup/v1/services/block/{id} marks the block deleted."""
        response = api.call(
            "DELETE /setup/v1/services/block/{id}", id=api.ids["A"]["service_block"]
        )

        assert (200, True) == (response.status_code, response.json()["deletedStatus"])
        assert () == api.world.a.services.list_blocks(api.ids["A"]["service"]).data


class TestServiceAllocations:
    """GET, DELETE /setup/v1/services/allocations/{id}; GET /setup/v1/services/{id}/allocations."""

    def test_get_list_delete(self, api):
        """An event service's allocation read, listed and deleted."""
        allocation = api.ids["A"]["service_allocation"]
        read = api.call("GET /setup/v1/services/allocations/{id}", id=allocation)
        listed = api.call(
            "GET /setup/v1/services/{id}/allocations", id=api.ids["A"]["event_service"]
        )
        deleted = api.call("DELETE /setup/v1/services/allocations/{id}", id=allocation)
        again = api.call("GET /setup/v1/services/allocations/{id}", id=allocation)

        assert (200, allocation) == (read.status_code, read.json()["id"])
        assert [allocation] == [a["id"] for a in items(listed)]
        assert 200 == deleted.status_code
        assert 404 == again.status_code

    def test_a_list_window_out_of_range_names_offset(self, api):
        """GET /setup/v1/services/{id}/allocations?offset=-1: 400 naming `offset`."""
        response = api.call(
            "GET /setup/v1/services/{id}/allocations",
            id=api.ids["A"]["event_service"],
            params={"offset": -1},
        )

        assert (400, "offset") == (response.status_code, response.json()["field"])


class TestReads:
    """GET of the company, a resource's setup view, calendar blocks and a service block."""

    def test_the_company(self, api):
        """The caller's company, by its own path or by id; another company's id is 401."""
        company = api.ids["A"]["company"]
        own = api.call("GET /setup/v1/companies").json()
        by_id = api.call("GET /setup/v1/company/{id}", id=company).json()
        other = api.call("GET /setup/v1/company/{id}", id=api.ids["B"]["company"])

        assert ("company", company, "Alpha") == (own["object"], own["id"], own["name"])
        assert own == by_id
        assert "webhookSignatureHash" not in own
        assert (401, "UNAUTHORIZED") == _refusal(other)[:2]

    def test_a_resource_setup_view(self, api):
        """GET /setup/v1/resources/{id}: the setup record (reason, weekly hours, calendars)."""
        response = api.call("GET /setup/v1/resources/{id}", id=api.ids["A"]["resource"])
        resource = response.json()

        assert (200, "resource", "r") == (
            response.status_code,
            resource["object"],
            resource["reason"],
        )
        assert {"weeklyHours", "providerACalendarId", "timezoneId"} <= set(resource)

    def test_a_calendar_block_is_read_and_listed(self, api):
        """GET /setup/v1/calendars/blocks/{id} and /setup/v1/calendars/{id}/blocks: live blocks."""
        calendar, block = api.ids["A"]["calendar"], api.ids["A"]["calendar_block"]
        other = api.call(
            "POST /setup/v1/calendars/{id}/blocks",
            id=calendar,
            json={"startDate": str(TUESDAY), "endDate": str(TUESDAY), "reason": "Inventory"},
        ).json()
        read = api.call("GET /setup/v1/calendars/blocks/{id}", id=block)
        page = api.call(
            "GET /setup/v1/calendars/{id}/blocks", id=calendar, params={"limit": 1, "offset": 1}
        )
        api.call("DELETE /setup/v1/calendars/blocks/{id}", id=block)
        gone = api.call("GET /setup/v1/calendars/blocks/{id}", id=block)
        left = api.call("GET /setup/v1/calendars/{id}/blocks", id=calendar)

        assert (200, block, "calendar") == (
            read.status_code,
            read.json()["id"],
            read.json()["target"],
        )
        assert (2, 1, False, [other["id"]]) == (
            page.json()["total"],
            page.json()["count"],
            page.json()["hasMore"],
            [item["id"] for item in items(page)],
        )
        assert f"/setup/v1/calendars/{calendar}/blocks?limit=1&offset=1" == page.json()["url"]
        assert (404, "id") == (gone.status_code, gone.json()["field"])
        assert [other["id"]] == [item["id"] for item in items(left)]

    def test_a_service_block_is_read(self, api):
        """GET /setup/v1/services/block/{id}: the block as PUT on the same path answers it."""
        block = api.ids["A"]["service_block"]
        read = api.call("GET /setup/v1/services/block/{id}", id=block)
        changed = api.call("PUT /setup/v1/services/block/{id}", id=block, json={"reason": "Prep"})

        assert (200, block, "service") == (
            read.status_code,
            read.json()["id"],
            read.json()["target"],
        )
        assert {**read.json(), "reason": "Prep"} == changed.json()
        assert changed.json() == api.call("GET /setup/v1/services/block/{id}", id=block).json()

    def test_a_block_of_another_kind_is_not_found(self, api):
        """A resource block's id on the calendar or service block path: 404 naming `id`."""
        block = api.ids["A"]["resource_block"]
        answers = [
            api.call("GET /setup/v1/calendars/blocks/{id}", id=block),
            api.call("GET /setup/v1/services/block/{id}", id=block),
        ]

        assert [(404, "NOT-FOUND", "id")] * 2 == [_refusal(answer) for answer in answers]

    def test_an_unknown_query_parameter_is_refused(self, api):
        """GET /setup/v1/resources/{id}?verbose=1: 400 naming `verbose`."""
        response = api.call(
            "GET /setup/v1/resources/{id}", id=api.ids["A"]["resource"], params={"verbose": 1}
        )

        assert (400, "UNEXPECTED-FIELD", "verbose") == _refusal(response)


def _times(api, service: str, location: str | None = None) -> httpx.Response:
    """Tuesday's availability of *service*, at *location* (none: the query names no location)."""
    return api.call(
        "GET /consumer/v1/availability/{serviceId}/{startDate}/{endDate}",
        params=None if location is None else {"locationId": location},
        serviceId=service,
        startDate=str(TUESDAY),
        endDate=str(TUESDAY),
    )


def _starts(response: httpx.Response) -> list[str]:
    return [slot["startDateTime"] for slot in response.json()["availableTimes"]]


class TestAvailabilityLocation:
    """Decision 46: a query without locationId searches a location-scoped service's own location."""

    def test_a_service_of_another_location_is_searched_where_it_lives(self, api):
        """An L2 service without locationId answers L2's times, as with locationId=L2."""
        implied = _times(api, api.ids["L2"]["service"])
        named = _times(api, api.ids["L2"]["service"], api.ids["L2"]["location"])

        assert 200 == implied.status_code, implied.text
        assert _starts(named) == _starts(implied)
        assert _starts(implied)

    def test_a_company_scoped_service_is_searched_at_the_primary(self, api):
        """A company-scoped service without locationId answers the primary location's times."""
        implied = _times(api, api.ids["A"]["company_service"])
        named = _times(api, api.ids["A"]["company_service"], api.ids["A"]["location"])

        assert named.json()["availableTimes"] == implied.json()["availableTimes"]


# -- end to end: a real `slotwise serve` process ---------------------------------------------


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_a_customer_round_trip_through_slotwise_serve(tmp_path: Path):
    """`slotwise serve`: a customer created, read, changed and deleted by an HTTP client."""
    pytest.importorskip("sqlalchemy")
    from slotwise.cli import main

    url = f"sqlite:///{tmp_path / 'served.db'}"
    out = io.StringIO()
    assert 0 == main(["demo", "--db", url], out=out)
    token = next(line.split()[-1] for line in out.getvalue().splitlines() if "token:" in line)
    port = _free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "slotwise", "serve", "--db", url, "--port", str(port)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    headers = {"Authorization": f"Bearer {token}"}
    try:
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", headers=headers) as client:
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline and process.poll() is None:
                try:
                    client.get("/healthz", timeout=2)
                    break
                except httpx.HTTPError:
                    time.sleep(0.2)
            created = client.post(
                "/consumer/v1/customers",
                json={"firstname": "Dee", "email": "dee@example.com"},
            )
            customer_id = created.json()["id"]
            read = client.get(f"/consumer/v1/customers/{customer_id}")
            changed = client.put(
                f"/consumer/v1/customers/{customer_id}", json={"lastname": "Okafor"}
            )
            deleted = client.delete(f"/consumer/v1/customers/{customer_id}")
            gone = client.get(f"/consumer/v1/customers/{customer_id}")
    finally:
        process.terminate()
        process.communicate(timeout=30)

    assert (201, "Dee") == (created.status_code, created.json()["firstname"])
    assert (200, "dee@example.com") == (read.status_code, read.json()["email"])
    assert (200, "Okafor") == (changed.status_code, changed.json()["lastname"])
    assert (200, customer_id) == (deleted.status_code, deleted.json()["id"])
    assert (404, "NOT-FOUND") == (gone.status_code, gone.json()["code"])
