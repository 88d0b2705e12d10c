"""
The HTTP service on every store: the same requests, the same answers, tokens kept in the store.

The tenant world is built on a MemoryStore, a SQLite file, a PostgreSQL schema and a MariaDB
database (``tests/contract/conftest.py``'s ``store_factory``); each answers a booking flow and
refuses a revoked token and another company's record alike.
"""

from __future__ import annotations

import pytest

from tests.boundary._tenant_world import TUESDAY, at, build
from tests.contract.conftest import store_factory  # noqa: F401 -- the parametrised fixture

from ._client import serve


@pytest.fixture
def api(store_factory):  # noqa: F811 -- the fixture imported above
    """The HTTP service over the tenant world on each store."""
    return serve(build(store_factory))


def test_a_booking_flow_on_every_store(api):
    """Hold, book, read back and list over HTTP give the same answers on every store."""
    ids = api.ids["A"]
    held = api.call(
        "POST /consumer/v1/appointments",
        json={
            "serviceId": ids["service"],
            "resourceId": ids["resource"],
            "locationId": ids["location"],
            "startDateTime": at(1400).isoformat(),
            "endDateTime": at(1430).isoformat(),
        },
    ).json()
    booked = api.call(
        "PUT /consumer/v1/appointments/{id}/book",
        id=held["id"],
        json={"name": "Bo Li", "email": "bo@example.com"},
    ).json()
    listed = api.call(
        "GET /consumer/v1/appointments", params={"locationId": ids["location"], "status": "BK"}
    ).json()
    times = api.call(
        "GET /consumer/v1/availability/{serviceId}/{startDate}/{endDate}",
        serviceId=ids["service"],
        startDate=str(TUESDAY),
        endDate=str(TUESDAY),
        params={"resourceId": ids["resource"]},
    ).json()
    starts = {slot["startDateTime"] for slot in times["availableTimes"]}

    assert ("IN", "BK") == (held["status"], booked["status"])
    assert {ids["appointment"], held["id"]} == {item["id"] for item in listed["data"]}
    assert "2026-03-03T14:00:00-05:00" not in starts  # just booked
    assert "2026-03-03T15:00:00-05:00" in starts


def test_tokens_and_tenancy_on_every_store(api):
    """A revoked token is not authenticated; another company's record is unauthorized."""
    revoked = api.call("GET /setup/v1/services", who="revoked")
    other = api.call("GET /setup/v1/services/{id}", id=api.ids["B"]["service"])

    assert (401, "NOT-AUTHENTICATED") == (revoked.status_code, revoked.json()["code"])
    assert (401, "UNAUTHORIZED") == (other.status_code, other.json()["code"])
