"""The setup interface over HTTP: each endpoint's status, body shape and effect."""

from __future__ import annotations

from tests.boundary._tenant_world import TUESDAY

from ._client import Service

WEEKLY_LUNCH = {
    "startDate": str(TUESDAY),
    "endDate": "never",
    "startTime": 1200,
    "endTime": 1300,
    "reason": "Lunch",
    "repeat": {"frequency": "W", "weekdays": "12345"},
}


def _new_resource(api: Service, **extra: object) -> dict:
    body = {"name": "Cy", "reason": "new hire", "locationId": api.ids["A"]["location"], **extra}
    response = api.call("POST /setup/v1/resources", json=body)
    assert 201 == response.status_code, response.text
    return response.json()


class TestResources:
    """The /setup/v1/resources endpoints."""

    def test_create(self, api):
        """POST /setup/v1/resources creates a resource in its own zone; the setup view answers."""
        created = _new_resource(api, timezoneId="Europe/London", options={"sortKey": 3})
        listed = api.world.a.resources.list_setup(location_id=api.ids["A"]["location"])

        assert ("resource", "Europe/London", 3) == (
            created["object"],
            created["timezoneId"],
            created["options"]["sortKey"],
        )
        assert {"providerACalendarId", "providerBCalendarAuthorized", "phone"} <= set(created)
        assert created["id"] in [resource.id for resource in listed.data]

    def test_create_without_reason_is_refused(self, api):
        """A resource without a reason answers 400 FIELD-REQUIRED naming the field."""
        response = api.call("POST /setup/v1/resources", json={"name": "Cy"})

        assert (400, "FIELD-REQUIRED", "reason") == (
            response.status_code,
            response.json()["code"],
            response.json()["field"],
        )

    def test_update_with_a_body_and_with_a_patch(self, api):
        """PUT /setup/v1/resources/{id} changes the fields sent, or applies a JSON Patch."""
        resource = api.ids["A"]["resource"]
        changed = api.call(
            "PUT /setup/v1/resources/{id}", id=resource, json={"description": "senior"}
        )
        patched = api.call(
            "PUT /setup/v1/resources/{id}",
            id=resource,
            json=[{"op": "replace", "path": "/options/sortKey", "value": 7}],
            headers={"Content-Type": "application/json-patch+json"},
        )

        assert (200, "senior") == (changed.status_code, changed.json()["description"])
        assert (200, 7, "senior") == (
            patched.status_code,
            patched.json()["options"]["sortKey"],
            patched.json()["description"],
        )

    def test_a_patch_may_not_move_the_record(self, api):
        """A JSON Patch touching the location is 400 UNEXPECTED-FIELD; nothing changes."""
        resource = api.ids["A"]["resource"]
        before = api.world.records()
        response = api.call(
            "PUT /setup/v1/resources/{id}",
            id=resource,
            json=[{"op": "replace", "path": "/locationId", "value": api.ids["L2"]["location"]}],
            headers={"Content-Type": "application/json-patch+json"},
        )

        assert (400, "UNEXPECTED-FIELD", "locationId") == (
            response.status_code,
            response.json()["code"],
            response.json()["field"],
        )
        assert before == api.world.records()

    def test_bulk_update(self, api):
        """PUT /setup/v1/resources/bulk changes several resources in one step."""
        first = api.ids["A"]["resource"]
        second = _new_resource(api)["id"]
        response = api.call(
            "PUT /setup/v1/resources/bulk",
            json=[{"id": first, "description": "one"}, {"id": second, "description": "two"}],
        )

        assert 200 == response.status_code, response.text
        assert ["one", "two"] == [item["description"] for item in response.json()]

    def test_delete_and_recover(self, api):
        """DELETE /setup/v1/resources/{id} marks it deleted; PUT .../recover brings it back."""
        resource = api.ids["A"]["resource"]
        deleted = api.call("DELETE /setup/v1/resources/{id}", id=resource).json()
        recovered = api.call("PUT /setup/v1/resources/{id}/recover", id=resource).json()

        assert (True, False) == (deleted["deletedStatus"], recovered["deletedStatus"])

    def test_timezones(self, api):
        """GET /setup/v1/resources/timezones lists IANA names."""
        response = api.call("GET /setup/v1/resources/timezones")

        assert "America/New_York" in response.json()

    def test_weekly_availability(self, api):
        """GET and PUT /setup/v1/resources/{id}/availability; omitted days keep their hours."""
        resource = api.ids["A"]["resource"]
        before = api.call("GET /setup/v1/resources/{id}/availability", id=resource).json()
        after = api.call(
            "PUT /setup/v1/resources/{id}/availability",
            id=resource,
            json={"mon": {"startTime": 700, "endTime": 1500}},
        ).json()

        assert {"startTime": 700, "endTime": 1500, "displayStartTime": "7:00 AM",
                "displayEndTime": "3:00 PM"} == after["weekdays"]["mon"]  # fmt: skip
        assert before["weekdays"]["tue"] == after["weekdays"]["tue"]

    def test_blocks(self, api):
        """POST .../{id}/block, GET .../{id}/blocks and .../blocks/{id}, PUT and DELETE .../block/{id}."""
        resource = api.ids["A"]["resource"]
        created = api.call("POST /setup/v1/resources/{id}/block", id=resource, json=WEEKLY_LUNCH)
        block = created.json()
        listed = api.call("GET /setup/v1/resources/{id}/blocks", id=resource).json()
        read = api.call("GET /setup/v1/resources/blocks/{id}", id=block["id"]).json()
        changed = api.call(
            "PUT /setup/v1/resources/block/{id}", id=block["id"], json={"endTime": 1330}
        ).json()
        deleted = api.call("DELETE /setup/v1/resources/block/{id}", id=block["id"])

        assert 201 == created.status_code
        assert ("9999-12-31", True, "12345") == (
            block["endDate"],
            block["repeats"],
            block["repeat"]["weekdays"],
        )
        assert block["id"] in [item["id"] for item in listed["data"]]
        assert block == read
        assert (1200, 1330, "Lunch") == (
            changed["startTime"],
            changed["endTime"],
            changed["reason"],
        )
        assert (200, True) == (deleted.status_code, deleted.json()["deletedStatus"])

    def test_a_block_ending_before_it_starts_is_refused(self, api):
        """startTime must be less than endTime (spec: Errors 6): 400 INVALID-TIME-RANGE."""
        resource = api.ids["A"]["resource"]
        response = api.call(
            "POST /setup/v1/resources/{id}/block",
            id=resource,
            json={**WEEKLY_LUNCH, "startTime": 1400},
        )

        assert (400, "INVALID-TIME-RANGE") == (response.status_code, response.json()["code"])

    def test_allocations(self, api):
        """POST, GET .../{id}/allocations; GET, PUT, DELETE .../allocations/{id}."""
        resource = api.ids["A"]["resource"]
        created = api.call(
            "POST /setup/v1/resources/{id}/allocations",
            id=resource,
            json={**WEEKLY_LUNCH, "bookingLimit": 2},
        )
        allocation = created.json()
        listed = api.call("GET /setup/v1/resources/{id}/allocations", id=resource).json()
        read = api.call("GET /setup/v1/resources/allocations/{id}", id=allocation["id"]).json()
        changed = api.call(
            "PUT /setup/v1/resources/allocations/{id}",
            id=allocation["id"],
            json={"bookingLimit": 0},
        ).json()
        deleted = api.call("DELETE /setup/v1/resources/allocations/{id}", id=allocation["id"])

        assert (201, 2, "allocation") == (
            created.status_code,
            allocation["bookingLimit"],
            allocation["object"],
        )
        assert allocation["id"] in [item["id"] for item in listed["data"]]
        assert allocation == read
        assert 0 == changed["bookingLimit"]
        assert 200 == deleted.status_code

    def test_link_services(self, api):
        """PUT /setup/v1/resources/{id}/services sets the services the resource takes."""
        ids = api.ids["A"]
        response = api.call(
            "PUT /setup/v1/resources/{id}/services",
            id=ids["resource"],
            json={"serviceIds": [ids["service"]]},
        )

        assert [ids["service"]] == response.json()["linkedServiceIds"]

    def test_calendar_authorization_needs_a_provider(self, api):
        """Without a calendar authorizer the provider paths answer 501, for A and B alike."""
        resource = api.ids["A"]["resource"]
        for endpoint in (
            "GET /setup/v1/resources/{id}/calendar/auth/providerA/{emailAddress}",
            "GET /setup/v1/resources/{id}/calendar/auth/providerB/{emailAddress}",
        ):
            response = api.call(endpoint, id=resource, emailAddress="ana@example.com")

            assert (501, "PROVIDER-NOT-CONFIGURED") == (
                response.status_code,
                response.json()["code"],
            )


class TestCalendarFeed:
    """GET /setup/v1/resources/{id}/calendar.ics (a slotwise extension)."""

    def test_a_resource_feed(self, api):
        """The feed is text/calendar with the resource's appointment and lunch block."""
        import icalendar

        resource = api.ids["A"]["resource"]
        response = api.call("GET /setup/v1/resources/{id}/calendar.ics", id=resource)
        events = list(icalendar.Calendar.from_ical(response.content).walk("VEVENT"))

        assert (200, "text/calendar") == (
            response.status_code,
            response.headers["content-type"].split(";")[0],
        )
        assert f"{api.ids['A']['appointment']}@slotwise" in {str(e["uid"]) for e in events}
        assert "A1 lunch" in {str(e["summary"]) for e in events}

    def test_another_companys_feed_is_unauthorized(self, api):
        """Company A's token on company B's resource: 401, no calendar."""
        response = api.call(
            "GET /setup/v1/resources/{id}/calendar.ics", id=api.ids["B"]["resource"]
        )

        assert (401, "UNAUTHORIZED") == (response.status_code, response.json()["code"])

    def test_the_feed_needs_a_token(self, api):
        """Without a token the feed is 401 not authenticated."""
        response = api.call(
            "GET /setup/v1/resources/{id}/calendar.ics", id=api.ids["A"]["resource"], who=None
        )

        assert (401, "NOT-AUTHENTICATED") == (response.status_code, response.json()["code"])


class TestCalendars:
    """The /setup/v1/calendars endpoints."""

    def test_list_get_create_and_update(self, api):
        """GET, POST /setup/v1/calendars; GET and PUT .../{id} (bookingsPerSlot)."""
        location = api.ids["A"]["location"]
        listed = api.call("GET /setup/v1/calendars", params={"locationId": location}).json()
        created = api.call(
            "POST /setup/v1/calendars", json={"name": "Rooms", "locationId": location}
        )
        calendar = created.json()
        read = api.call("GET /setup/v1/calendars/{id}", id=calendar["id"]).json()
        changed = api.call(
            "PUT /setup/v1/calendars/{id}", id=calendar["id"], json={"bookingsPerSlot": 4}
        ).json()

        assert [api.ids["A"]["calendar"]] == [item["id"] for item in listed["data"]]
        assert (201, "calendar") == (created.status_code, calendar["object"])
        assert calendar == read
        assert 4 == changed["bookingsPerSlot"]
        assert {"startTime": 0, "endTime": 2400} == calendar["availability"]["sun"]  # 24x7

    def test_blocks(self, api):
        """POST /setup/v1/calendars/{id}/blocks and PUT /setup/v1/calendars/blocks/{id}."""
        calendar = api.ids["A"]["calendar"]
        created = api.call("POST /setup/v1/calendars/{id}/blocks", id=calendar, json=WEEKLY_LUNCH)
        changed = api.call(
            "PUT /setup/v1/calendars/blocks/{id}",
            id=created.json()["id"],
            json={"reason": "Staff meeting"},
        )

        assert (201, "calendar") == (created.status_code, created.json()["target"])
        assert "Staff meeting" == changed.json()["reason"]


class TestServices:
    """The /setup/v1/services endpoints."""

    def test_list_create_get(self, api):
        """GET, POST /setup/v1/services and GET .../{id}."""
        created = api.call(
            "POST /setup/v1/services",
            json={"name": "Facial", "duration": 45, "reason": "launch", "maxCapacity": 0},
        )
        service = created.json()
        listed = api.call("GET /setup/v1/services").json()
        read = api.call("GET /setup/v1/services/{id}", id=service["id"]).json()

        assert (201, "service", 45) == (created.status_code, service["object"], service["duration"])
        assert service["id"] in [item["id"] for item in listed["data"]]
        assert service == read

    def test_name_over_50_on_create(self, api):
        """A service name of 51 characters answers 400 FIELD-TOO-LONG with the limit."""
        response = api.call(
            "POST /setup/v1/services", json={"name": "x" * 51, "duration": 30, "reason": "r"}
        )

        assert (400, "FIELD-TOO-LONG", 50, 51) == (
            response.status_code,
            response.json()["code"],
            response.json()["limit"],
            response.json()["requested"],
        )

    def test_update_and_weekly_hours(self, api):
        """PUT /setup/v1/services/{id} and PUT .../{id}/availability."""
        service = api.ids["A"]["service"]
        changed = api.call("PUT /setup/v1/services/{id}", id=service, json={"bookingLimit": 3})
        hours = api.call(
            "PUT /setup/v1/services/{id}/availability",
            id=service,
            json={"sat": {"startTime": 1000, "endTime": 1400}},
        )

        assert 3 == changed.json()["bookingLimit"]
        assert {"startTime": 1000, "endTime": 1400} == hours.json()["sat"]

    def test_blocks(self, api):
        """POST .../{id}/block and .../{id}/blocks, GET .../{id}/block, PUT .../block/{id}."""
        service = api.ids["A"]["service"]
        singular = api.call("POST /setup/v1/services/{id}/block", id=service, json=WEEKLY_LUNCH)
        plural = api.call(
            "POST /setup/v1/services/{id}/blocks",
            id=service,
            json={**WEEKLY_LUNCH, "reason": "Cleaning"},
        )
        listed = api.call("GET /setup/v1/services/{id}/block", id=service).json()
        changed = api.call(
            "PUT /setup/v1/services/block/{id}", id=singular.json()["id"], json={"allDay": True}
        ).json()

        assert (201, 201) == (singular.status_code, plural.status_code)
        assert {singular.json()["id"], plural.json()["id"]} <= {b["id"] for b in listed["data"]}
        assert (True, 0, 2400) == (changed["allDay"], changed["startTime"], changed["endTime"])

    def test_allocations(self, api):
        """POST /setup/v1/services/{id}/allocations and PUT .../allocations/{id}."""
        event = api.ids["A"]["event_service"]
        created = api.call(
            "POST /setup/v1/services/{id}/allocations",
            id=event,
            json={**WEEKLY_LUNCH, "bookingLimit": 5},
        )
        changed = api.call(
            "PUT /setup/v1/services/allocations/{id}",
            id=created.json()["id"],
            json={"bookingLimit": 8},
        )

        assert (201, 5) == (created.status_code, created.json()["bookingLimit"])
        assert 8 == changed.json()["bookingLimit"]


class TestServiceGroups:
    """The /setup/v1/servicegroups endpoints."""

    def test_list_create_get_change_delete(self, api):
        """GET, POST /setup/v1/servicegroups; GET, PUT and DELETE .../{id}."""
        listed = api.call("GET /setup/v1/servicegroups").json()
        created = api.call("POST /setup/v1/servicegroups", json={"name": "Spa days"})
        group = created.json()
        read = api.call("GET /setup/v1/servicegroups/{id}", id=group["id"]).json()
        changed = api.call(
            "PUT /setup/v1/servicegroups/{id}", id=group["id"], json={"label": "Relax"}
        ).json()
        deleted = api.call("DELETE /setup/v1/servicegroups/{id}", id=group["id"])

        assert api.ids["A"]["company_service_group"] in [g["id"] for g in listed["data"]]
        assert (201, "Spa days") == (created.status_code, read["name"])
        assert "Relax" == changed["label"]
        assert 200 == deleted.status_code


class TestLocations:
    """The /setup/v1/locations endpoints."""

    def test_create_and_update(self, api):
        """POST /setup/v1/locations; PUT /setup/v1/locations with the id in the body."""
        created = api.call(
            "POST /setup/v1/locations",
            json={"name": "Uptown", "businessHours": {"sat": {"is24Hours": True}}},
        )
        location = created.json()
        changed = api.call(
            "PUT /setup/v1/locations", json={"id": location["id"], "phone": "555-0100-22"}
        )

        assert (201, "location") == (created.status_code, location["object"])
        assert {"isOpen": True, "startTime": 0, "endTime": 2400, "is24Hours": True} == location[
            "businessHours"
        ]["sat"]
        assert (200, "555-0100-22") == (changed.status_code, changed.json()["phone"])

    def test_name_over_50_is_refused(self, api):
        """A location name over 50 characters answers 400 FIELD-TOO-LONG."""
        response = api.call("POST /setup/v1/locations", json={"name": "x" * 51})

        assert (400, "FIELD-TOO-LONG") == (response.status_code, response.json()["code"])

    def test_bulk_create(self, api):
        """POST /setup/v1/locations/bulk creates all or nothing."""
        created = api.call("POST /setup/v1/locations/bulk", json=[{"name": "E"}, {"name": "W"}])
        refused = api.call(
            "POST /setup/v1/locations/bulk", json=[{"name": "N"}, {"name": "x" * 51}]
        )
        names = [location.name for location in api.world.a.locations.list(limit=100).data]

        assert (201, ["E", "W"]) == (created.status_code, [item["name"] for item in created.json()])
        assert 400 == refused.status_code
        assert "N" not in names

    def test_holidays_scope_reminders_and_services(self, api):
        """PUT .../holidays, .../settings/scope/{settingsScope}, GET/PUT .../appointmentreminders, GET .../services."""
        location = api.ids["L2"]["location"]
        holidays = api.call(
            "PUT /setup/v1/locations/{id}/holidays",
            id=location,
            json={"businessHolidays": [{"date": "2026-12-25", "name": "Christmas"}]},
        )
        scope = api.call(
            "PUT /setup/v1/locations/{id}/settings/scope/{settingsScope}",
            id=location,
            settingsScope="company",
        )
        reminders = api.call("GET /setup/v1/locations/{id}/appointmentreminders", id=location)
        changed = api.call(
            "PUT /setup/v1/locations/{id}/appointmentreminders",
            id=location,
            json={"smsFirst": {"unit": "days", "value": 1}},
        )
        services = api.call("GET /setup/v1/locations/{id}/services", id=location)

        assert [{"date": "2026-12-25", "name": "Christmas", "publicHolidayId": None}] == (
            holidays.json()["businessHolidays"]
        )
        assert "company" == scope.json()["settingsScope"]
        assert {"emailFirst", "emailSecond", "smsFirst", "smsSecond"} == set(reminders.json())
        assert {"unit": "days", "value": 1} == changed.json()["smsFirst"]
        assert api.ids["L2"]["service"] in [item["id"] for item in services.json()["data"]]

    def test_a_reminder_schedule_put_sets_the_whole_schedule(self, api):
        """
        The body is the schedule (docs/http.md): a reminder left out is removed, and a JSON
        Patch is refused (415) with the schedule unchanged.
        """
        location = api.ids["L2"]["location"]
        path = "PUT /setup/v1/locations/{id}/appointmentreminders"
        api.call(
            path,
            id=location,
            json={
                "emailFirst": {"unit": "days", "value": 2},
                "smsFirst": {"unit": "hours", "value": 3},
            },
        )

        second = api.call(path, id=location, json={"smsFirst": {"unit": "hours", "value": 4}})
        patch = api.call(
            path,
            id=location,
            content=b'[{"op": "replace", "path": "/smsFirst/value", "value": 5}]',
            headers={"Content-Type": "application/json-patch+json"},
        )
        now = api.call("GET /setup/v1/locations/{id}/appointmentreminders", id=location).json()

        assert (None, {"unit": "hours", "value": 4}) == (
            second.json()["emailFirst"],
            second.json()["smsFirst"],
        )
        assert (415, now) == (patch.status_code, second.json())


class TestCompanies:
    """The company endpoints."""

    def test_create(self, api):
        """POST /setup/v1/companies creates a company; the signing key never comes back."""
        response = api.call(
            "POST /setup/v1/companies",
            json={"name": "Gamma", "timezone": "Europe/Paris", "webhookSignatureHash": "k" * 32},
        )

        assert (201, "Gamma", "company") == (
            response.status_code,
            response.json()["name"],
            response.json()["object"],
        )
        assert "webhookSignatureHash" not in response.json()

    def test_create_needs_an_iana_zone(self, api):
        """A company in an unknown zone answers 400 INVALID-TIMEZONE (spec: Errors 7)."""
        response = api.call("POST /setup/v1/companies", json={"name": "G", "timezone": "Mars/Base"})

        assert (400, "INVALID-TIMEZONE") == (response.status_code, response.json()["code"])

    def test_a_location_limited_token_cannot_create_companies(self, api):
        """POST /setup/v1/companies with a location-limited token is 401."""
        response = api.call(
            "POST /setup/v1/companies", who="a_l1", json={"name": "G", "timezone": "UTC"}
        )

        assert (401, "UNAUTHORIZED") == (response.status_code, response.json()["code"])

    def test_update(self, api):
        """PUT /setup/v1/companies and PUT /setup/v1/company/{id} change the caller's company."""
        company = api.ids["A"]["company"]
        webhook = "https://hooks.example/booking"
        first = api.call("PUT /setup/v1/companies", json={"website": "https://alpha.example"})
        second = api.call(
            "PUT /setup/v1/company/{id}", id=company, json={"bookingWebhookUrl": webhook}
        )
        other = api.call(
            "PUT /setup/v1/company/{id}", id=api.ids["B"]["company"], json={"name": "Mine"}
        )

        assert "https://alpha.example" == first.json()["website"]
        assert (webhook, "https://alpha.example") == (
            second.json()["bookingWebhookUrl"],
            second.json()["website"],
        )
        assert (401, "UNAUTHORIZED") == (other.status_code, other.json()["code"])
        assert "Beta" == api.world.b.company.get().name

    def test_business_users(self, api):
        """GET /setup/businessUsers/{email}/companies lists the caller's company only."""
        api.world.a.company.update(business_user_emails=["owner@example.com"])
        api.world.b.company.update(business_user_emails=["owner@example.com"])
        response = api.call("GET /setup/businessUsers/{email}/companies", email="owner@example.com")

        assert [api.ids["A"]["company"]] == [company["id"] for company in response.json()]


class TestWebhookDeliveries:
    """The delivery operations over HTTP (slotwise extensions, decision 38)."""

    def test_list_redeliver_and_enable(self, api):
        """GET .../webhooks/deliveries, PUT .../deliveries/{id}/redeliver, PUT .../webhooks/enable."""
        pending = api.call("GET /setup/v1/webhooks/deliveries", params={"status": "pending"})
        event = pending.json()["data"][0]
        again = api.call("PUT /setup/v1/webhooks/deliveries/{id}/redeliver", id=event["id"])
        gone = "https://hooks.example/booking"
        company = api.world.a.company.get()
        with api.world.scheduler.store.transaction() as tx:
            import attrs

            tx.update(attrs.evolve(company, disabled_webhook_urls=(gone,)))
        enabled = api.call("PUT /setup/v1/webhooks/enable", json={"url": gone})
        failed = api.call("GET /setup/v1/webhooks/deliveries", params={"status": "failed"})

        assert 200 == pending.status_code
        assert {"deliveryStatus", "dueAt", "attempts", "lastError"} <= set(event)
        assert all(item["deliveryStatus"] == "pending" for item in pending.json()["data"])
        assert (200, "pending", 0) == (
            again.status_code,
            again.json()["deliveryStatus"],
            again.json()["attempts"],
        )
        assert [] == enabled.json()["disabledWebhookUrls"]
        assert [] == failed.json()["data"]
