"""Webhook settings over HTTP (decision 47): unsafe URLs refused with 400, minute reminders."""

from __future__ import annotations

import pytest

UNSAFE = [
    "http://hooks.example.com/booking",
    "https://127.0.0.1/hook",
    "https://169.254.169.254/latest/meta-data",
    "https://10.0.0.7/hook",
    "https://[::1]/hook",
    "https://[2002:a9fe:a9fe::1]/hook",
    "https://[64:ff9b::7f00:1]/hook",
    "https://224.0.0.1/hook",
    "https://240.0.0.1/hook",
    "https://localhost/hook",
]


class TestWebhookUrls:
    """PUT /setup/v1/company/{id} and POST /setup/v1/companies check webhook URLs when set."""

    @pytest.mark.parametrize("url", UNSAFE)
    def test_unsafe_url_is_400_naming_the_field(self, api, url):
        """Each unsafe URL: 400 UNSAFE-DESTINATION naming bookingWebhookUrl; nothing changes."""
        company = api.ids["A"]["company"]
        before = api.world.a.company.get()
        response = api.call(
            "PUT /setup/v1/company/{id}",
            id=company,
            json={"bookingWebhookUrl": url, "name": "Changed"},
        )
        body = response.json()

        assert (400, "UNSAFE-DESTINATION", "bookingWebhookUrl") == (
            response.status_code,
            body["code"],
            body["field"],
        )
        assert body["message"].startswith("bookingWebhookUrl ")
        assert before == api.world.a.company.get()

    @pytest.mark.parametrize(
        "field", ["customerWebhookUrl", "reminderWebhookUrl", "meetingWebhookUrl"]
    )
    def test_each_url_field_is_named(self, api, field):
        """The error names whichever URL field was refused, as the client wrote it."""
        response = api.call("PUT /setup/v1/companies", json={field: "https://10.1.1.1/x"})

        assert (400, field) == (response.status_code, response.json()["field"])

    def test_create_is_refused(self, api):
        """POST /setup/v1/companies with an unsafe URL is 400 and creates nothing."""
        response = api.call(
            "POST /setup/v1/companies",
            json={"name": "G", "timezone": "UTC", "bookingWebhookUrl": "https://[::1]/x"},
        )

        assert (400, "bookingWebhookUrl") == (response.status_code, response.json()["field"])
        assert [] == api.world.scheduler.companies_of_user("nobody@example.com")

    def test_public_https_is_stored(self, api):
        """An https URL naming a host is stored and returned."""
        response = api.call(
            "PUT /setup/v1/companies", json={"bookingWebhookUrl": "https://hooks.example/b"}
        )

        assert (200, "https://hooks.example/b") == (
            response.status_code,
            response.json()["bookingWebhookUrl"],
        )

    def test_malformed_whsec_key_is_400(self, api):
        """A whsec_ key that is not base64 is 400 naming webhookSignatureHash, not quoting it."""
        response = api.call(
            "PUT /setup/v1/companies", json={"webhookSignatureHash": "whsec_not*base64"}
        )
        body = response.json()

        assert (400, "webhookSignatureHash") == (response.status_code, body["field"])
        assert "not*base64" not in response.text


class TestMinuteReminders:
    """A location's reminders may be set in minutes (decision 47)."""

    def test_thirty_minutes(self, api):
        """PUT .../appointmentreminders with 30 minutes is stored and returned."""
        location = api.ids["L2"]["location"]
        changed = api.call(
            "PUT /setup/v1/locations/{id}/appointmentreminders",
            id=location,
            json={
                "emailFirst": {"unit": "hours", "value": 2},
                "emailSecond": {"unit": "minutes", "value": 30},
            },
        )
        read = api.call("GET /setup/v1/locations/{id}/appointmentreminders", id=location)

        assert 200 == changed.status_code, changed.text
        assert {"unit": "minutes", "value": 30} == read.json()["emailSecond"]

    def test_too_many_minutes(self, api):
        """1441 minutes is 400 naming the value and the range."""
        response = api.call(
            "PUT /setup/v1/locations/{id}/appointmentreminders",
            id=api.ids["L2"]["location"],
            json={"smsFirst": {"unit": "minutes", "value": 1441}},
        )

        assert (400, "OUT-OF-RANGE") == (response.status_code, response.json()["code"])
        assert "between 1 and 1440 minutes" in response.text


class TestServeSetting:
    """`slotwise serve --allow-local-webhooks` (its environment) lets loopback URLs be set."""

    @pytest.mark.parametrize(("setting", "status"), [("1", 200), (None, 400)])
    def test_loopback_url_under_the_setting(self, tmp_path, monkeypatch, setting, status):
        """With the setting, http://127.0.0.1 is stored (200); without it, 400."""
        import httpx

        from slotwise import Principal, Scheduler
        from slotwise.http import app_from_environment
        from slotwise.storage.sql import SQLStore

        from ._client import _SyncASGI

        url = f"sqlite:///{tmp_path / 'served.db'}"
        store = SQLStore(url)
        scheduler = Scheduler(store)
        company = scheduler.create_company(name="Dev", timezone="UTC")
        token = scheduler.tokens.create(Principal(company_id=company.id), label="dev").token
        store.close()
        monkeypatch.setenv("SLOTWISE_DB", url)
        if setting is None:
            monkeypatch.delenv("SLOTWISE_WEBHOOKS_ALLOW_LOCAL", raising=False)
        else:
            monkeypatch.setenv("SLOTWISE_WEBHOOKS_ALLOW_LOCAL", setting)
        app = app_from_environment()
        with httpx.Client(
            transport=_SyncASGI(app),
            base_url="http://slotwise.test",
            headers={"Authorization": f"Bearer {token}"},
        ) as client:
            response = client.put(
                "/setup/v1/companies", json={"bookingWebhookUrl": "http://127.0.0.1:9/hook"}
            )

        assert status == response.status_code, response.text
