"""
Decision 45: the request fields the spec's tables list are accepted and applied, and a record's
GET carries the derived fields its table lists.
"""

from __future__ import annotations

from typing import Any

from ._client import Service

RESOURCE_BLOCK = "POST /setup/v1/resources/{id}/block"
AVAILABILITY = "GET /consumer/v1/availability/{service}/{start}/{end}"


def _first_times(api: Service, day: str) -> list[int]:
    ids = api.ids["A"]
    answer = api.call(
        AVAILABILITY,
        service=ids["service"],
        start=day,
        end=day,
        params={"resourceId": ids["resource"], "locationId": ids["location"]},
    )
    assert 200 == answer.status_code, answer.text
    return [slot["time"] for slot in answer.json()["availableTimes"]]


def _block(api: Service, **body: Any) -> Any:
    return api.call(RESOURCE_BLOCK, id=api.ids["A"]["resource"], json=body)


class TestRepeats:
    """``repeats`` is accepted on block and allocation bodies and decides whether they repeat."""

    def test_a_repeating_block_blocks_every_repeat(self, api):
        """repeats true with a daily repeat blocks 09:00-10:00 on each day of its range."""
        created = _block(
            api, startDate="2026-03-04", endDate="2026-03-06", startTime=900, endTime=1000,
            reason="standup", repeats=True, repeat={"frequency": "D", "interval": 1},
        )  # fmt: skip
        read = api.call("GET /setup/v1/resources/blocks/{id}", id=created.json()["id"])

        assert 201 == created.status_code, created.text
        assert (True, "D") == (read.json()["repeats"], read.json()["repeat"]["frequency"])
        for day in ("2026-03-04", "2026-03-05", "2026-03-06"):
            assert 1000 == _first_times(api, day)[0], day

    def test_repeats_false_does_not_repeat(self, api):
        """repeats false stores no repeat although a repeat object came with it."""
        created = _block(
            api, startDate="2026-03-04", endDate="2026-03-06", startTime=900, endTime=1000,
            repeats=False, repeat={"frequency": "D", "interval": 1},
        )  # fmt: skip

        assert 201 == created.status_code, created.text
        assert (False, None) == (created.json()["repeats"], created.json()["repeat"])

    def test_repeats_true_needs_a_repeat(self, api):
        """repeats true without a repeat is a 400 naming repeat; nothing is stored."""
        before = api.world.records()
        refused = _block(
            api, startDate="2026-03-04", endDate="2026-03-06", startTime=900, endTime=1000,
            repeats=True,
        )  # fmt: skip

        assert 400 == refused.status_code
        assert "repeat" == refused.json()["field"]
        assert before == api.world.records()

    def test_an_update_can_stop_the_repeat(self, api):
        """PUT with repeats false turns the world's weekly lunch block into a one-off."""
        block = api.ids["A"]["resource_block"]
        changed = api.call("PUT /setup/v1/resources/block/{id}", id=block, json={"repeats": False})

        assert 200 == changed.status_code, changed.text
        assert (False, None) == (changed.json()["repeats"], changed.json()["repeat"])

    def test_allocations_take_repeats(self, api):
        """A resource allocation and a service allocation accept repeats with their repeat."""
        ids = api.ids["A"]
        body = {
            "startDate": "2026-03-04", "endDate": "2026-03-06", "startTime": 900,
            "endTime": 1000, "repeats": True, "repeat": {"frequency": "D"},
        }  # fmt: skip
        resource = api.call(
            "POST /setup/v1/resources/{id}/allocations", id=ids["resource"], json=body
        )
        service = api.call(
            "POST /setup/v1/services/{id}/allocations", id=ids["event_service"], json=body
        )

        assert (201, 201) == (resource.status_code, service.status_code), service.text
        assert (True, True) == (resource.json()["repeats"], service.json()["repeats"])


class TestStartDateAsDateTime:
    """A block's startDate (and endDate) may be a date-time: its date in the location's zone."""

    def test_the_date_in_new_york_is_used(self, api):
        """23:30 in Los Angeles on March 4 is 02:30 on March 5 in New York: the block's date."""
        created = _block(
            api, startDate="2026-03-04T23:30:00-08:00", endDate="2026-03-05T12:00:00Z",
            startTime=900, endTime=1000,
        )  # fmt: skip

        assert 201 == created.status_code, created.text
        assert ("2026-03-05", "2026-03-05") == (
            created.json()["startDate"],
            created.json()["endDate"],
        )
        assert 1000 == _first_times(api, "2026-03-05")[0]

    def test_an_unreadable_date_time_names_the_field(self, api):
        """A startDate that is neither a date nor a date-time is a 400 naming startDate."""
        refused = _block(api, startDate="2026-03-04T25:00", endDate="2026-03-05")

        assert 400 == refused.status_code
        assert refused.json()["field"] in ("startDate", "start_date")


class TestServiceIds:
    """serviceId on service allocations and on a resource update."""

    def test_a_service_allocation_names_its_service(self, api):
        """serviceId equal to the path's service is accepted; another service is refused."""
        ids = api.ids["A"]
        body = {
            "startDate": "2026-03-04",
            "endDate": "2026-03-04",
            "startTime": 900,
            "endTime": 1000,
        }
        path = "POST /setup/v1/services/{id}/allocations"
        same = api.call(
            path, id=ids["event_service"], json={**body, "serviceId": ids["event_service"]}
        )
        other = api.call(path, id=ids["event_service"], json={**body, "serviceId": ids["service"]})

        assert 201 == same.status_code, same.text
        assert ids["event_service"] == same.json()["serviceId"]
        assert 400 == other.status_code
        # The body's serviceId and the path's {id} share the Python name service_id: the error
        # names the path placeholder (the pair disagrees; the path names the allocation's service).
        assert other.json()["field"] in ("serviceId", "id")

    def test_a_service_allocation_update_keeps_its_service(self, api):
        """PUT with the allocation's own serviceId applies; another service is refused."""
        ids = api.ids["A"]
        path = "PUT /setup/v1/services/allocations/{id}"
        kept = api.call(
            path, id=ids["service_allocation"],
            json={"serviceId": ids["event_service"], "bookingLimit": 3},
        )  # fmt: skip
        moved = api.call(path, id=ids["service_allocation"], json={"serviceId": ids["service"]})

        assert (200, 3) == (kept.status_code, kept.json()["bookingLimit"]), kept.text
        assert 400 == moved.status_code

    def test_a_resource_update_links_a_service(self, api):
        """PUT /setup/v1/resources/{id} with serviceId adds it to the linked services."""
        ids = api.ids["A"]
        changed = api.call(
            "PUT /setup/v1/resources/{id}", id=ids["resource"], json={"serviceId": ids["service"]}
        )
        linked = api.call("GET /consumer/v1/resources/{id}/services", id=ids["resource"])

        assert 200 == changed.status_code, changed.text
        assert [ids["service"]] == changed.json()["linkedServiceIds"]
        assert [ids["service"]] == [service["id"] for service in linked.json()["data"]]


class TestDerivedFields:
    """GET of a record carries the derived fields the spec's record tables list."""

    def test_a_block_names_its_resource(self, api):
        """A resource block's resourceId is the resource; a service block's is null."""
        ids = api.ids["A"]
        block = api.call("GET /setup/v1/resources/blocks/{id}", id=ids["resource_block"]).json()
        listed = api.call("GET /setup/v1/services/{id}/block", id=ids["service"]).json()

        assert ids["resource"] == block["resourceId"]
        assert [None] == [item["resourceId"] for item in listed["data"]]

    def test_a_service_names_its_group(self, api):
        """serviceGroupName is the name of the service's group, null without one."""
        ids = api.ids["A"]
        before = api.call("GET /setup/v1/services/{id}", id=ids["service"]).json()
        api.call(
            "PUT /setup/v1/services/{id}", id=ids["service"],
            json={"serviceGroupId": ids["service_group"]},
        )  # fmt: skip
        after = api.call("GET /setup/v1/services/{id}", id=ids["service"]).json()
        listed = api.call("GET /consumer/v1/services", params={"locationId": ids["location"]})

        assert (None, "A1 group") == (before["serviceGroupName"], after["serviceGroupName"])
        assert "A1 group" in [s["serviceGroupName"] for s in listed.json()["data"]]

    def test_settings_carry_their_id(self, api):
        """A location's settings record has an id (the location's, whose settings they are)."""
        ids = api.ids["A"]
        location = api.call("GET /consumer/v1/locations/{id}", id=ids["location"]).json()

        assert ids["location"] == location["settings"]["id"]
