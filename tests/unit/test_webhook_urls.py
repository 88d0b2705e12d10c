"""Webhook URLs are checked when they are set (decision 47), with the send-time rule."""

from __future__ import annotations

import pytest

from slotwise import Scheduler, UnsafeDestination, ValidationError
from slotwise.rules.destinations import check_webhook_url, literal_address
from slotwise.webhooks import check_destination

UNSAFE = [
    pytest.param("http://hooks.example.com/x", "scheme", id="http"),
    pytest.param("https://127.0.0.1/x", "loopback", id="loopback"),
    pytest.param("https://127.1/x", "loopback", id="loopback-short"),
    pytest.param("https://2130706433/x", "loopback", id="loopback-integer"),
    pytest.param("https://0x7f.0.0.1/x", "loopback", id="loopback-hex"),
    pytest.param("https://localhost:8443/x", "loopback", id="localhost"),
    pytest.param("https://api.localhost/x", "loopback", id="dot-localhost"),
    pytest.param("https://169.254.169.254/latest/meta-data", "link-local", id="metadata"),
    pytest.param("https://10.1.2.3/x", "private", id="private-10"),
    pytest.param("https://192.168.0.10/x", "private", id="private-192"),
    pytest.param("https://172.16.5.4/x", "private", id="private-172"),
    pytest.param("https://100.64.0.1/x", "not a public", id="shared-cgnat"),
    pytest.param("https://[::1]/x", "loopback", id="ipv6-loopback"),
    pytest.param("https://[::ffff:127.0.0.1]/x", "loopback", id="ipv4-mapped"),
    pytest.param("https://[2002:a9fe:a9fe::1]/x", "link-local", id="6to4-metadata"),
    pytest.param("https://[2002:7f00:1::]/x", "loopback", id="6to4-loopback"),
    pytest.param("https://[64:ff9b::7f00:1]/x", "loopback", id="nat64-loopback"),
    pytest.param("https://[64:ff9b::a9fe:a9fe]/x", "link-local", id="nat64-metadata"),
    pytest.param("https://[64:ff9b:1::1]/x", "NAT64", id="nat64-local-use"),
    pytest.param("https://[fe80::1%25eth0]/x", "link-local", id="ipv6-link-local-zone"),
    pytest.param("https://[fd00::1]/x", "private", id="ipv6-unique-local"),
    pytest.param("https://[fec0::1]/x", "site-local", id="ipv6-site-local"),
    pytest.param("https://224.0.0.1/x", "multicast", id="multicast"),
    pytest.param("https://[ff02::1]/x", "multicast", id="ipv6-multicast"),
    # 240/4 is reserved; Python's ipaddress also counts it private (either reason is right).
    pytest.param("https://240.0.0.1/x", "reserved|private", id="reserved"),
    pytest.param("https://0.0.0.0/x", "unspecified", id="unspecified"),
]

FIELDS = [
    "booking_webhook_url",
    "customer_webhook_url",
    "reminder_webhook_url",
    "meeting_webhook_url",
]


def _company(scheduler: Scheduler) -> str:
    return scheduler.create_company(name="Acme", timezone="UTC").id


class TestWhenSet:
    """Scheduler.create_company and workspace.company.update refuse unsafe webhook URLs."""

    @pytest.mark.parametrize(("url", "reason"), UNSAFE)
    def test_update_refuses_and_changes_nothing(self, url, reason):
        """Each unsafe form is refused, naming the field and why; the company is unchanged."""
        scheduler = Scheduler()
        workspace = scheduler.for_company(_company(scheduler))
        before = workspace.company.get()

        with pytest.raises(UnsafeDestination, match=reason) as info:
            workspace.company.update(booking_webhook_url=url, name="Changed")

        assert ("booking_webhook_url", 400) == (info.value.field, info.value.http_status)
        assert before == workspace.company.get()

    @pytest.mark.parametrize("field", FIELDS)
    def test_every_webhook_url_is_checked(self, field):
        """Each of the four webhook URLs is checked, and the error names it."""
        scheduler = Scheduler()
        workspace = scheduler.for_company(_company(scheduler))

        with pytest.raises(UnsafeDestination) as info:
            workspace.company.update(**{field: "https://169.254.169.254/"})

        assert field == info.value.field

    def test_other_schemes_are_refused(self):
        """An ftp URL is refused by the model's URL check, naming the field."""
        scheduler = Scheduler(allow_local_webhooks=True)
        workspace = scheduler.for_company(_company(scheduler))

        with pytest.raises(ValidationError) as info:
            workspace.company.update(reminder_webhook_url="ftp://127.0.0.1/x")

        assert "reminder_webhook_url" == info.value.field

    def test_create_refuses_and_creates_nothing(self):
        """A new company with an unsafe URL is refused and not stored."""
        scheduler = Scheduler()

        with pytest.raises(UnsafeDestination) as info:
            scheduler.create_company(
                name="Acme", timezone="UTC", customer_webhook_url="https://10.0.0.1/hook"
            )

        assert "customer_webhook_url" == info.value.field
        assert [] == scheduler.companies_of_user("nobody@example.com")
        with scheduler.store.read() as reader:
            from slotwise.model import Company

            assert [] == reader.find(Company, company_id=None)

    @pytest.mark.parametrize(
        "url",
        [
            "https://hooks.example.com/booking",
            "https://93.184.216.34:8443/x",
            "https://[2606:2800:220:1::1]/x",
            "https://[2002:5db8:d822::1]/x",  # 6to4 of a public address
            "https://[64:ff9b::5db8:d822]/x",  # NAT64 of a public address
        ],
    )
    def test_public_https_is_accepted(self, url):
        """https to a name or to a public address (6to4 and NAT64 of one too) is stored."""
        scheduler = Scheduler()
        workspace = scheduler.for_company(_company(scheduler))

        assert url == workspace.company.update(booking_webhook_url=url).booking_webhook_url

    def test_a_stored_url_does_not_block_other_changes(self):
        """Only the fields being set are checked: an old unsafe URL still allows a rename."""
        import attrs

        from slotwise.model import Company

        scheduler = Scheduler()
        company_id = _company(scheduler)
        with scheduler.store.transaction() as tx:
            company = tx.get(Company, company_id)
            assert company is not None
            tx.update(attrs.evolve(company, booking_webhook_url="http://10.0.0.1/old"))

        renamed = scheduler.for_company(company_id).company.update(name="Renamed")

        assert ("Renamed", "http://10.0.0.1/old") == (renamed.name, renamed.booking_webhook_url)


class TestDevelopmentSetting:
    """Scheduler(allow_local_webhooks=True) allows http and loopback, nothing more."""

    @pytest.mark.parametrize(
        "url",
        [
            "http://127.0.0.1:8080/hook",
            "http://localhost:8080/hook",
            "http://[::1]:8080/hook",
            "http://hooks.test:8080/hook",
            "https://127.0.0.1/hook",
        ],
    )
    def test_http_and_loopback_are_allowed(self, url):
        """http, and loopback by address or by localhost, are stored under the setting."""
        scheduler = Scheduler(allow_local_webhooks=True)
        workspace = scheduler.for_company(_company(scheduler))

        assert url == workspace.company.update(booking_webhook_url=url).booking_webhook_url

    @pytest.mark.parametrize(
        ("url", "reason"),
        [
            ("http://10.0.0.5/hook", "private"),
            ("http://169.254.169.254/latest", "link-local"),
            ("http://[2002:a9fe:a9fe::1]/x", "link-local"),
            ("http://224.0.0.1/x", "multicast"),
        ],
    )
    def test_private_and_metadata_stay_refused(self, url, reason):
        """The setting does not open private networks, metadata, multicast or other schemes."""
        scheduler = Scheduler(allow_local_webhooks=True)
        workspace = scheduler.for_company(_company(scheduler))

        with pytest.raises(UnsafeDestination, match=reason):
            workspace.company.update(booking_webhook_url=url)

    def test_the_setting_must_be_a_bool(self):
        """allow_local_webhooks="yes" is refused, naming the option."""
        from slotwise import InvalidFormat

        with pytest.raises(InvalidFormat) as info:
            Scheduler(allow_local_webhooks="yes")  # type: ignore[arg-type]

        assert "allow_local_webhooks" == info.value.field


class TestSendTime:
    """The send-time check judges 6to4 and NAT64 addresses by the IPv4 address they reach."""

    @pytest.mark.parametrize(
        ("address", "reason"),
        [
            ("2002:a9fe:a9fe::1", "link-local"),
            ("64:ff9b::7f00:1", "loopback"),
            ("64:ff9b::a00:1", "private"),
            ("fec0::1", "site-local"),
        ],
    )
    def test_embedded_ipv4_is_refused(self, address, reason):
        """A name resolving to 6to4/NAT64 forms of refused addresses is refused."""
        with pytest.raises(UnsafeDestination, match=reason):
            check_destination("https://hooks.example/x", resolve=lambda host, port: [address])


class TestLiteralAddress:
    """What counts as an address written in a URL."""

    @pytest.mark.parametrize(
        ("host", "expected"),
        [
            ("127.0.0.1", "127.0.0.1"),
            ("127.1", "127.0.0.1"),
            ("0177.0.0.1", "127.0.0.1"),
            ("2130706433", "127.0.0.1"),
            ("fe80::1%eth0", "fe80::1"),
            ("hooks.example.com", None),
            ("cafe.be", None),
            ("10.0.0.1.example", None),
        ],
    )
    def test_forms(self, host, expected):
        """Dotted, short, octal, integer and zoned forms are addresses; names are not."""
        found = literal_address(host)

        assert expected == (None if found is None else str(found))

    def test_no_host(self):
        """A URL without a host is refused."""
        with pytest.raises(UnsafeDestination, match="no host"):
            check_webhook_url("https:///path", field="booking_webhook_url")
