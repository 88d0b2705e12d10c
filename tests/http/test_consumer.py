"""The consumer interface over HTTP: each endpoint's status, body shape and effect."""

from __future__ import annotations

from datetime import timedelta

from tests.boundary._tenant_world import TUESDAY, at, later

from ._client import Service

APPOINTMENT_KEYS = {
    "object", "id", "locationId", "calendarId", "serviceId", "resourceId", "resourceIds",
    "customerId", "rescheduledId", "createDate", "startDateTime", "endDateTime", "date", "time",
    "duration", "timezone", "status", "confirmationNumber", "bookedBy", "onlineBooking",
    "confirmed", "email", "name", "lastname", "firstname", "phone", "phoneType", "phoneExt",
    "customerMessage", "lastModifiedOn", "lastModifiedBy", "location", "latitude", "longitude",
    "paymentChargeId", "paymentRefundId", "paymentStatus", "customFields",
    "appointmentBookingFields", "customerBookingFields", "groupSize",
}  # fmt: skip
"""The spec's Appointment fields (Resources and their fields) and the create input's extras."""

ENVELOPE_KEYS = {"object", "url", "hasMore", "count", "total", "data"}


def _hold(api: Service, hhmm: int = 1400, **extra: object) -> dict:
    ids = api.ids["A"]
    body = {
        "serviceId": ids["service"],
        "resourceId": ids["resource"],
        "locationId": ids["location"],
        "startDateTime": at(hhmm).isoformat(),
        "endDateTime": (at(hhmm) + timedelta(minutes=30)).isoformat(),
        **extra,
    }
    response = api.call("POST /consumer/v1/appointments", json=body)
    assert 201 == response.status_code, response.text
    return response.json()


class TestAppointments:
    """GET, POST, DELETE and the PUT transitions of /consumer/v1/appointments."""

    def test_list_is_an_envelope_with_the_request_url(self, api):
        """GET /consumer/v1/appointments answers the envelope, url as requested, spec fields."""
        location = api.ids["A"]["location"]
        response = api.call(
            "GET /consumer/v1/appointments", params={"locationId": location, "limit": 1}
        )
        body = response.json()

        assert 200 == response.status_code
        assert ENVELOPE_KEYS == set(body)
        assert f"/consumer/v1/appointments?locationId={location}&limit=1" == body["url"]
        assert (1, True, 2) == (body["count"], body["hasMore"], body["total"])
        assert APPOINTMENT_KEYS <= set(body["data"][0])

    def test_list_between_dates_keeps_the_dates_appointments(self, api):
        """startDate/endDate (decision 48) keep the appointments starting on those local dates."""
        location = api.ids["A"]["location"]
        day = TUESDAY.isoformat()
        following = (TUESDAY + timedelta(days=1)).isoformat()

        def listed(**dates: str) -> dict:
            response = api.call(
                "GET /consumer/v1/appointments", params={"locationId": location, **dates}
            )
            assert 200 == response.status_code, response.text
            return response.json()

        that_day = listed(startDate=day, endDate=day)
        next_day = listed(startDate=following)
        inverted = api.call(
            "GET /consumer/v1/appointments",
            params={"locationId": location, "startDate": following, "endDate": day},
        )

        assert 2 == that_day["total"]
        assert {day} == {a["date"] for a in that_day["data"]}
        assert 0 == next_day["total"]
        assert 400 == inverted.status_code

    def test_create_holds_the_slot(self, api):
        """POST /consumer/v1/appointments creates an IN hold at the requested instant."""
        created = _hold(api)
        again = api.call("GET /consumer/v1/appointments/{id}", id=created["id"]).json()

        assert "IN" == created["status"]
        assert "2026-03-03T14:00:00-05:00" == created["startDateTime"]  # New York's wall time
        assert (30, 1400, "2026-03-03", -300) == (
            created["duration"],
            created["time"],
            created["date"],
            created["timezone"],
        )
        assert created == again

    def test_create_with_complete_booking_books(self, api):
        """completeBooking=BK in the query books at once, with the customer's names split."""
        ids = api.ids["A"]
        response = api.call(
            "POST /consumer/v1/appointments",
            params={"completeBooking": "BK"},
            json={
                "serviceId": ids["service"],
                "resourceId": ids["resource"],
                "locationId": ids["location"],
                "startDateTime": at(1500).isoformat(),
                "endDateTime": at(1530).isoformat(),
                "name": "Ann Marie Smith",
                "email": "ann@example.com",
            },
        )
        body = response.json()

        assert 201 == response.status_code
        assert ("BK", "Ann", "Marie Smith") == (body["status"], body["firstname"], body["lastname"])

    def test_get_one(self, api):
        """GET /consumer/v1/appointments/{id} answers the appointment."""
        appointment = api.ids["A"]["appointment"]
        response = api.call("GET /consumer/v1/appointments/{id}", id=appointment)

        assert 200 == response.status_code
        assert (appointment, "BK", "appointment") == (
            response.json()["id"],
            response.json()["status"],
            response.json()["object"],
        )

    def test_delete_a_hold(self, api):
        """DELETE /consumer/v1/appointments/{id} removes a hold; reading it again is 404."""
        hold = api.ids["A"]["hold"]
        response = api.call("DELETE /consumer/v1/appointments/{id}", id=hold)
        after = api.call("GET /consumer/v1/appointments/{id}", id=hold)

        assert (200, hold) == (response.status_code, response.json()["id"])
        assert (404, "NOT-FOUND") == (after.status_code, after.json()["code"])

    def test_delete_a_booked_appointment_is_a_conflict(self, api):
        """DELETE of a BK appointment answers 409 INVALID-TRANSITION and changes nothing."""
        booked = api.ids["A"]["appointment"]
        response = api.call("DELETE /consumer/v1/appointments/{id}", id=booked)

        assert (409, "INVALID-TRANSITION") == (response.status_code, response.json()["code"])
        assert "BK" == api.call("GET /consumer/v1/appointments/{id}", id=booked).json()["status"]

    def test_book_a_hold(self, api):
        """PUT .../book saves the customer's details and books."""
        hold = api.ids["A"]["hold"]
        response = api.call(
            "PUT /consumer/v1/appointments/{id}/book",
            id=hold,
            json={
                "name": "Bo Li",
                "email": "bo@example.com",
                "phone": "5551234567",
                "customFields": {"field1": "window seat"},
                "appointmentBookingFields": [{"name": "notes", "value": "quiet"}],
            },
        )
        body = response.json()

        assert 200 == response.status_code, response.text
        assert ("BK", "5551234567", {"field1": "window seat"}) == (
            body["status"],
            body["phone"],
            body["customFields"],
        )
        assert [{"name": "notes", "value": "quiet"}] == body["appointmentBookingFields"]

    def test_cancel(self, api):
        """PUT .../cancel cancels a booked appointment."""
        booked = api.ids["A"]["appointment"]
        response = api.call("PUT /consumer/v1/appointments/{id}/cancel", id=booked)

        assert (200, "CN") == (response.status_code, response.json()["status"])

    def test_reschedule(self, api):
        """PUT .../reschedule answers the new BK record pointing at the old one, now RE."""
        booked = api.ids["A"]["appointment"]
        response = api.call(
            "PUT /consumer/v1/appointments/{id}/reschedule",
            id=booked,
            json={"startDateTime": at(1600).isoformat(), "endDateTime": at(1630).isoformat()},
        )
        old = api.call("GET /consumer/v1/appointments/{id}", id=booked).json()

        assert 200 == response.status_code, response.text
        assert ("BK", booked) == (response.json()["status"], response.json()["rescheduledId"])
        assert "RE" == old["status"]

    def test_no_show_after_the_start(self, api):
        """PUT .../noshow marks a started appointment NS; before its start it is 409."""
        booked = api.ids["A"]["appointment"]
        early = api.call("PUT /consumer/v1/appointments/{id}/noshow", id=booked)
        api.world.scheduler.clock.advance(timedelta(days=2))  # type: ignore[attr-defined]
        late = api.call("PUT /consumer/v1/appointments/{id}/noshow", id=booked)

        assert (409, "NOT-STARTED") == (early.status_code, early.json()["code"])
        assert (200, "NS") == (late.status_code, late.json()["status"])

    def test_reserve_then_confirm(self, api):
        """PUT .../reserve makes a hold RS; PUT .../confirm books it."""
        hold = api.ids["A"]["hold"]
        reserved = api.call(
            "PUT /consumer/v1/appointments/{id}/reserve",
            id=hold,
            json={"name": "Cy Dee", "email": "cy@example.com"},
        )
        confirmed = api.call("PUT /consumer/v1/appointments/{id}/confirm", id=hold)

        assert (200, "RS") == (reserved.status_code, reserved.json()["status"])
        assert (200, "BK", True) == (
            confirmed.status_code,
            confirmed.json()["status"],
            confirmed.json()["confirmed"],
        )

    def test_reserve_takes_the_book_body(self, api):
        """
        PUT .../reserve takes what PUT .../book takes: customer message, custom fields and
        booking-field values are kept on the reservation.
        """
        hold = api.ids["A"]["hold"]
        reserved = api.call(
            "PUT /consumer/v1/appointments/{id}/reserve",
            id=hold,
            json={
                "name": "Cy Dee",
                "email": "cy@example.com",
                "customerMessage": "ring twice",
                "customFields": {"field2": "blue"},
                "appointmentBookingFields": [{"name": "size", "value": "M"}],
            },
        )

        body = reserved.json()
        assert (200, "RS", "ring twice") == (
            reserved.status_code,
            body["status"],
            body["customerMessage"],
        ), body
        assert {"field2": "blue"} == {k: v for k, v in body["customFields"].items() if v}
        assert [{"name": "size", "value": "M"}] == body["appointmentBookingFields"]

    def test_field_definitions(self, api):
        """GET .../customfields and .../bookingfields answer the spec's list objects."""
        location = api.ids["A"]["location"]
        custom = api.call(
            "GET /consumer/v1/appointments/customfields", params={"locationId": location}
        ).json()
        booking = api.call(
            "GET /consumer/v1/appointments/bookingfields", params={"locationId": location}
        ).json()

        assert {"object", "total", "customFields"} == set(custom)
        assert ["field1"] == [field["name"] for field in custom["customFields"]]
        assert {"object", "total", "bookingFields"} == set(booking)
        assert booking["total"] == len(booking["bookingFields"])


class TestAvailability:
    """The four availability endpoints."""

    def test_times(self, api):
        """GET /consumer/v1/availability/{serviceId}/{startDate}/{endDate} lists free slots."""
        ids = api.ids["A"]
        response = api.call(
            "GET /consumer/v1/availability/{serviceId}/{startDate}/{endDate}",
            serviceId=ids["service"],
            startDate=str(TUESDAY),
            endDate=str(TUESDAY),
            params={"resourceId": ids["resource"], "tzOffset": -300},
        )
        body = response.json()
        starts = [slot["startDateTime"] for slot in body["availableTimes"]]

        assert 200 == response.status_code
        assert ("availableTimes", -300) == (body["object"], body["tzRequested"])
        assert body["url"].startswith(f"/consumer/v1/availability/{ids['service']}/")
        assert "2026-03-03T09:00:00-05:00" in starts
        assert "2026-03-03T10:00:00-05:00" not in starts  # booked
        assert "2026-03-03T12:00:00-05:00" not in starts  # lunch block
        slot = body["availableTimes"][0]
        assert {"allowableBookings", "availableBookings", "date", "time", "displayTime"} <= set(
            slot
        )

    def test_days(self, api):
        """.../days answers one element per date."""
        ids = api.ids["A"]
        response = api.call(
            "GET /consumer/v1/availability/{serviceId}/{startDate}/{endDate}/days",
            serviceId=ids["service"],
            startDate=str(TUESDAY),
            endDate=str(later(2)),
            params={"resourceId": ids["resource"]},
        )
        days = response.json()["availableDays"]

        assert 200 == response.status_code
        assert [str(TUESDAY), str(later(1)), str(later(2))] == [day["date"] for day in days]

    def test_unavailable(self, api):
        """./unavailable names the lunch block with its reason and code."""
        ids = api.ids["A"]
        response = api.call(
            "GET /consumer/v1/availability/{serviceId}/{startDate}/{endDate}/unavailable",
            serviceId=ids["service"],
            startDate=str(TUESDAY),
            endDate=str(TUESDAY),
            params={"resourceId": ids["resource"]},
        )
        reasons = {
            (item["reasonCode"], item["reason"]) for item in response.json()["unavailableTimes"]
        }

        assert 200 == response.status_code
        assert ("CB", "A1 lunch") in reasons  # the calendar block, first of the lunch blocks
        assert "unavailableTimes" == response.json()["object"]

    def test_reschedule(self, api):
        """.../{appointmentId}/reschedule offers times for the appointment's service."""
        ids = api.ids["A"]
        response = api.call(
            "GET /consumer/v1/availability/{appointmentId}/reschedule",
            appointmentId=ids["appointment"],
            params={"startDate": str(TUESDAY), "endDate": str(TUESDAY)},
        )

        assert 200 == response.status_code, response.text
        assert ids["service"] == response.json()["serviceId"]
        assert response.json()["availableTimes"]

    def test_explain(self, api):
        """.../{serviceId}/explain says why 12:00 is not offered (a slotwise extension)."""
        ids = api.ids["A"]
        response = api.call(
            "GET /consumer/v1/availability/{serviceId}/explain",
            serviceId=ids["service"],
            params={"start": at(1200).isoformat(), "resourceId": ids["resource"]},
        )
        body = response.json()

        assert (200, "explanation", False) == (
            response.status_code,
            body["object"],
            body["offered"],
        )
        assert "CB" in {reason["reasonCode"] for reason in body["reasons"]}

    def test_comma_separated_resource_ids(self, api):
        """resourceIds is a comma-separated string in the query and in the answer."""
        ids = api.ids["A"]
        response = api.call(
            "GET /consumer/v1/availability/{serviceId}/{startDate}/{endDate}",
            serviceId=ids["service"],
            startDate=str(TUESDAY),
            endDate=str(TUESDAY),
            params={"resourceIds": ids["resource"]},
        )

        assert 200 == response.status_code, response.text
        assert {ids["resource"]} == {s["resourceIds"] for s in response.json()["availableTimes"]}


class TestCustomers:
    """Subscriptions, countries and states."""

    def test_list_subscriptions(self, api):
        """GET /consumer/v1/customers/{id}/subscriptions lists the customer's plans."""
        ids = api.ids["A"]
        response = api.call("GET /consumer/v1/customers/{id}/subscriptions", id=ids["customer"])

        assert 200 == response.status_code
        assert [ids["subscription"]] == [item["id"] for item in response.json()["data"]]

    def test_create_subscription(self, api):
        """POST /consumer/v1/customers/{id}/subscriptions subscribes the customer."""
        ids = api.ids["A"]
        response = api.call(
            "POST /consumer/v1/customers/{id}/subscriptions",
            id=ids["customer"],
            json={"customerPlanId": "silver", "planStart": "2026-04-01T00:00:00+00:00"},
        )

        assert 201 == response.status_code, response.text
        assert ("silver", "subscription") == (
            response.json()["customerPlanId"],
            response.json()["object"],
        )

    def test_get_change_and_delete_a_subscription(self, api):
        """GET, PUT (a body and a JSON Patch) and DELETE /consumer/v1/customers/subscriptions/{id}."""
        subscription = api.ids["A"]["subscription"]
        read = api.call("GET /consumer/v1/customers/subscriptions/{id}", id=subscription)
        changed = api.call(
            "PUT /consumer/v1/customers/subscriptions/{id}",
            id=subscription,
            json={"customerPlanId": "platinum"},
        )
        patched = api.call(
            "PUT /consumer/v1/customers/subscriptions/{id}",
            id=subscription,
            content=b'[{"op": "replace", "path": "/customerPlanId", "value": "bronze"}]',
            headers={"Content-Type": "application/json-patch+json"},
        )
        deleted = api.call("DELETE /consumer/v1/customers/subscriptions/{id}", id=subscription)
        gone = api.call("GET /consumer/v1/customers/subscriptions/{id}", id=subscription)

        assert ("gold", "platinum") == (
            read.json()["customerPlanId"],
            changed.json()["customerPlanId"],
        )
        assert (200, "bronze") == (patched.status_code, patched.json()["customerPlanId"])
        assert 200 == deleted.status_code
        assert 404 == gone.status_code

    def test_countries_and_states(self, api):
        """GET .../countries and .../states answer ISO codes."""
        countries = api.call("GET /consumer/v1/customers/countries").json()
        states = api.call("GET /consumer/v1/customers/states", params={"country": "US"}).json()

        assert {"code": "US", "name": "United States"} in countries
        assert {"code": "NY", "name": "New York", "country": "US"} in states


class TestCatalog:
    """Locations, resources, services, groups and settings as customers see them."""

    def test_locations(self, api):
        """GET /consumer/v1/locations filters by name; GET .../{id} answers one location."""
        ids = api.ids["A"]
        listed = api.call("GET /consumer/v1/locations", params={"name": "two"}).json()
        one = api.call("GET /consumer/v1/locations/{id}", id=ids["location"]).json()

        assert ["Alpha two"] == [location["name"] for location in listed["data"]]
        assert (ids["location"], "location", ids["location"]) == (
            one["id"],
            one["object"],
            one["settings"]["businessId"],
        )
        assert {"isOpen", "startTime", "endTime", "is24Hours"} == set(one["businessHours"]["mon"])

    def test_resources(self, api):
        """GET /consumer/v1/resources and .../{id} answer consumer views."""
        ids = api.ids["A"]
        listed = api.call("GET /consumer/v1/resources", params={"locationId": ids["location"]})
        one = api.call("GET /consumer/v1/resources/{id}", id=ids["resource"]).json()

        assert [ids["resource"]] == [item["id"] for item in listed.json()["data"]]
        assert ("resource", "America/New_York") == (one["object"], one["timezoneId"])
        assert {"contact", "address", "deletedStatus", "timezoneOffset"} <= set(one)

    def test_resource_services(self, api):
        """GET /consumer/v1/resources/{id}/services lists services linked to the resource."""
        ids = api.ids["A"]
        api.world.a.resources.link_services(ids["resource"], [ids["service"]])
        response = api.call("GET /consumer/v1/resources/{id}/services", id=ids["resource"])

        assert [ids["service"]] == [item["id"] for item in response.json()["data"]]

    def test_service_groups(self, api):
        """GET /consumer/v1/servicegroups and .../{id}."""
        ids = api.ids["A"]
        listed = api.call("GET /consumer/v1/servicegroups", params={"locationId": ids["location"]})
        one = api.call("GET /consumer/v1/servicegroups/{id}", id=ids["service_group"])

        assert ids["service_group"] in [item["id"] for item in listed.json()["data"]]
        assert ("A1 group", "serviceGroup") == (one.json()["name"], one.json()["object"])

    def test_services(self, api):
        """GET /consumer/v1/services, .../{id} and .../{id}/resources."""
        ids = api.ids["A"]
        listed = api.call("GET /consumer/v1/services", params={"limit": 500}).json()
        one = api.call("GET /consumer/v1/services/{id}", id=ids["service"]).json()
        resources = api.call("GET /consumer/v1/services/{id}/resources", id=ids["service"])

        assert ids["service"] in [item["id"] for item in listed["data"]]
        assert ("A1 cut", 30) == (one["name"], one["duration"])
        assert [ids["resource"]] == [item["id"] for item in resources.json()["data"]]

    def test_settings_are_deprecated(self, api):
        """GET /consumer/v1/settings answers with a Deprecation header and businessId."""
        response = api.call("GET /consumer/v1/settings")
        entry = response.json()["data"][0]

        assert ("true", 200) == (response.headers["Deprecation"], response.status_code)
        assert entry["businessId"] == entry["locationId"]


class TestResourceGroups:
    """The consumer resource-group endpoints."""

    def test_list_create_get_change_delete(self, api):
        """GET, POST /consumer/v1/resourcegroups; GET, PUT, DELETE .../{id}."""
        location = api.ids["A"]["location"]
        listed = api.call("GET /consumer/v1/resourcegroups", params={"locationId": location})
        created = api.call(
            "POST /consumer/v1/resourcegroups", json={"name": "Night team", "locationId": location}
        ).json()
        read = api.call("GET /consumer/v1/resourcegroups/{id}", id=created["id"])
        changed = api.call(
            "PUT /consumer/v1/resourcegroups/{id}", id=created["id"], json={"name": "Late team"}
        )
        deleted = api.call("DELETE /consumer/v1/resourcegroups/{id}", id=created["id"])

        assert api.ids["A"]["resource_group"] in [g["id"] for g in listed.json()["data"]]
        assert ("Night team", "Late team") == (read.json()["name"], changed.json()["name"])
        assert 200 == deleted.status_code
        assert 404 == api.call("GET /consumer/v1/resourcegroups/{id}", id=created["id"]).status_code
