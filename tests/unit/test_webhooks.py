"""Webhook signing, verification, the retry schedule and the destination check (decision 38)."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from slotwise import InvalidFormat, InvalidSignature, UnsafeDestination
from slotwise.rules.signing_keys import key_bytes
from slotwise.webhooks import (
    RETRY_DELAYS,
    SIGNATURE_HEADER,
    check_destination,
    next_attempt_at,
    signature_headers,
    verify,
)
from slotwise.webhooks.addresses import pinned

KEY = "company-signing-key"
BODY = b'{"trigger": "BookingConfirmation", "data": {"id": "a1"}}'
SENT = datetime(2026, 11, 23, 14, 0, tzinfo=UTC)


def _headers() -> dict[str, str]:
    return signature_headers(BODY, KEY, message_id="evt_1", timestamp=SENT)


class TestSignatureHeaders:
    """The headers of one attempt, checked with independent code."""

    def test_spec_header_is_hex_hmac_of_the_body(self):
        """X-Message-Signature is the lower-case hex HMAC-SHA256 of the raw body."""
        expected = hmac.new(KEY.encode(), BODY, hashlib.sha256).hexdigest()

        assert expected == _headers()[SIGNATURE_HEADER]

    def test_standard_webhooks_headers(self):
        """webhook-id, webhook-timestamp and v1,base64(HMAC of id.timestamp.body)."""
        stamp = str(int(SENT.timestamp()))
        mac = hmac.new(KEY.encode(), f"evt_1.{stamp}.".encode() + BODY, hashlib.sha256)
        expected = {
            "webhook-id": "evt_1",
            "webhook-timestamp": stamp,
            "webhook-signature": "v1," + base64.b64encode(mac.digest()).decode(),
        }

        assert expected.items() <= _headers().items()


class TestVerify:
    """slotwise.webhooks.verify for receivers."""

    def test_genuine_delivery_passes(self):
        """Headers as sent, any letter case, within the window: no error."""
        headers = {name.upper(): value for name, value in _headers().items()}

        verify(BODY, headers, KEY, now=SENT + timedelta(minutes=4))

    @pytest.mark.parametrize(
        ("change", "reason"),
        [
            (lambda h, b: (h, b + b" "), "does not match"),
            (lambda h, b: ({**h, "webhook-id": "evt_2"}, b), "does not match id"),
            (lambda h, b: ({}, b), "no signature header"),
            (lambda h, b: ({k: v for k, v in h.items() if k != "webhook-id"}, b), "needs"),
        ],
        ids=["body changed", "id changed", "no headers", "no id"],
    )
    def test_tampering_is_refused(self, change, reason):
        """A changed body or id, or missing headers, raise InvalidSignature saying what failed."""
        headers, body = change(_headers(), BODY)

        with pytest.raises(InvalidSignature, match=reason):
            verify(body, headers, KEY, now=SENT)

    def test_wrong_key(self):
        """Another company's key does not verify."""
        with pytest.raises(InvalidSignature):
            verify(BODY, _headers(), "another-key", now=SENT)

    def test_replay_outside_the_window(self):
        """A genuine delivery replayed ten minutes later is refused (5-minute tolerance)."""
        with pytest.raises(InvalidSignature, match="outside"):
            verify(BODY, _headers(), KEY, now=SENT + timedelta(minutes=10))

    def test_stripped_standard_signature_is_refused(self):
        """Without webhook-signature, X-Message-Signature alone is refused by default (47)."""
        stripped = {SIGNATURE_HEADER: _headers()[SIGNATURE_HEADER]}

        with pytest.raises(InvalidSignature, match="legacy=True"):
            verify(BODY, stripped, KEY, now=SENT)

    def test_stripped_replay_an_hour_later_under_another_id_is_refused(self):
        """A captured delivery, stripped, replayed an hour later as another event: refused."""
        replayed = {
            SIGNATURE_HEADER: _headers()[SIGNATURE_HEADER],
            "webhook-id": "evt_other",
            "webhook-timestamp": str(int((SENT + timedelta(hours=1)).timestamp())),
        }

        with pytest.raises(InvalidSignature, match="no webhook-signature"):
            verify(BODY, replayed, KEY, now=SENT + timedelta(hours=1))

    def test_legacy_accepts_the_spec_header_alone(self):
        """With legacy=True, X-Message-Signature alone verifies (the replayable opt-in)."""
        verify(BODY, {SIGNATURE_HEADER: _headers()[SIGNATURE_HEADER]}, KEY, now=SENT, legacy=True)

    def test_legacy_still_checks_the_spec_header(self):
        """With legacy=True, a spec header that does not match the body is refused."""
        with pytest.raises(InvalidSignature, match="does not match the body"):
            verify(
                BODY + b" ",
                {SIGNATURE_HEADER: _headers()[SIGNATURE_HEADER]},
                KEY,
                now=SENT,
                legacy=True,
            )

    def test_legacy_still_checks_the_standard_signature_when_present(self):
        """legacy=True does not relax a webhook-signature that is there: an old one is refused."""
        with pytest.raises(InvalidSignature, match="outside"):
            verify(BODY, _headers(), KEY, now=SENT + timedelta(hours=1), legacy=True)

    def test_now_defaults_to_the_system_clock(self):
        """Without now, a delivery signed just now passes and one signed an hour ago does not."""
        sent = datetime.now(UTC)
        fresh = signature_headers(BODY, KEY, message_id="evt_1", timestamp=sent)
        stale = signature_headers(
            BODY, KEY, message_id="evt_1", timestamp=sent - timedelta(hours=1)
        )

        verify(BODY, fresh, KEY)
        with pytest.raises(InvalidSignature, match="outside"):
            verify(BODY, stale, KEY)


SECRET = bytes(range(24))
WHSEC = "whsec_" + base64.b64encode(SECRET).decode()


class TestKeys:
    """whsec_<base64> keys are their bytes; any other key its UTF-8 (decision 47)."""

    def test_whsec_key_signs_with_the_decoded_bytes(self):
        """Both signatures of a whsec_ key are keyed by the bytes the base64 encodes."""
        headers = signature_headers(BODY, WHSEC, message_id="evt_1", timestamp=SENT)
        stamp = str(int(SENT.timestamp()))
        mac = hmac.new(SECRET, f"evt_1.{stamp}.".encode() + BODY, hashlib.sha256)

        assert "v1," + base64.b64encode(mac.digest()).decode() == headers["webhook-signature"]
        assert hmac.new(SECRET, BODY, hashlib.sha256).hexdigest() == headers[SIGNATURE_HEADER]

    def test_unpadded_whsec_key_is_the_same_key(self):
        """A whsec_ key written without its base64 padding is the same bytes as the padded one."""
        padded = "whsec_" + base64.b64encode(b"ten bytes!").decode()

        assert padded.endswith("==")
        assert b"ten bytes!" == key_bytes(padded) == key_bytes(padded.rstrip("="))

    def test_other_keys_are_utf8(self):
        """A key without the prefix, or a whsec_ key whose rest is not base64, is its UTF-8."""
        assert (KEY.encode(), b"whsec_not base64!") == (
            key_bytes(KEY),
            key_bytes("whsec_not base64!"),
        )

    @pytest.mark.parametrize("key", ["whsec_not base64!", "whsec_", "whsec_-_-_", "whsec_QUJD*"])
    def test_malformed_whsec_keys_are_refused_when_set(self, key):
        """Setting a whsec_ key that is not standard base64 is refused, without quoting it."""
        from slotwise import Scheduler

        scheduler = Scheduler()
        company = scheduler.create_company(name="Acme", timezone="UTC")
        workspace = scheduler.for_company(company.id)

        with pytest.raises(InvalidFormat) as info:
            workspace.company.update(webhook_signature_hash=key)

        assert "webhook_signature_hash" == info.value.field
        assert key == "whsec_" or key not in info.value.message
        assert workspace.company.get().webhook_signature_hash is None


class TestReferenceLibrary:
    """The Standard Webhooks reference library and slotwise agree, both ways (decision 47)."""

    def test_reference_verifies_what_slotwise_signs(self):
        """standardwebhooks.Webhook("whsec_...") verifies slotwise's headers as documented."""
        from standardwebhooks import Webhook

        headers = signature_headers(BODY, WHSEC, message_id="evt_1", timestamp=datetime.now(UTC))

        assert json.loads(BODY) == Webhook(WHSEC).verify(BODY, headers)

    def test_slotwise_verifies_what_the_reference_signs(self):
        """slotwise.webhooks.verify accepts a message the reference library signed."""
        from standardwebhooks import Webhook

        sent = datetime.now(UTC)
        signature = Webhook(WHSEC).sign("msg_1", sent, BODY.decode())
        headers = {
            "webhook-id": "msg_1",
            "webhook-timestamp": str(int(sent.timestamp())),
            "webhook-signature": signature,
        }

        verify(BODY, headers, WHSEC)
        with pytest.raises(InvalidSignature):
            verify(BODY, headers, "whsec_" + base64.b64encode(b"another key").decode())

    def test_reference_refuses_a_tampered_delivery(self):
        """The reference library refuses slotwise's headers on a changed body."""
        from standardwebhooks import Webhook
        from standardwebhooks.webhooks import WebhookVerificationError

        headers = signature_headers(BODY, WHSEC, message_id="evt_1", timestamp=datetime.now(UTC))

        with pytest.raises(WebhookVerificationError):
            Webhook(WHSEC).verify(BODY + b" ", headers)


class TestSchedule:
    """When a failed delivery is tried again."""

    def test_eight_attempts_then_failed(self):
        """After the eighth attempt there is no next one."""
        assert next_attempt_at(8, SENT, event_id="e") is None
        assert next_attempt_at(7, SENT, event_id="e") is not None

    @given(attempts=st.integers(1, 7), event_id=st.text(max_size=20))
    def test_within_twenty_percent_of_the_schedule(self, attempts, event_id):
        """Each wait is the schedule's delay +-20%, and the same inputs give the same time."""
        at = next_attempt_at(attempts, SENT, event_id=event_id)
        delay = RETRY_DELAYS[attempts]

        assert at is not None
        assert delay * 0.8 <= at - SENT <= delay * 1.2
        assert at == next_attempt_at(attempts, SENT, event_id=event_id)

    def test_retry_after_is_honoured_when_longer(self):
        """Retry-After of an hour after the first failure waits the hour (not 5 s)."""
        at = next_attempt_at(1, SENT, event_id="e", retry_after=timedelta(hours=1))

        assert SENT + timedelta(hours=1) == at

    def test_retry_after_is_capped_at_a_day(self):
        """A Retry-After of a week waits one day."""
        at = next_attempt_at(1, SENT, event_id="e", retry_after=timedelta(days=7))

        assert SENT + timedelta(days=1) == at


def _resolving(*addresses: str):
    return lambda host, port: list(addresses)


class TestDestination:
    """Only https URLs resolving to public addresses receive webhooks."""

    def test_public_https_passes(self):
        """An https URL resolving to a public address returns that address."""
        found = check_destination("https://hooks.example/x", resolve=_resolving("93.184.216.34"))

        assert ["93.184.216.34"] == [str(a) for a in found]

    @pytest.mark.parametrize(
        ("address", "reason"),
        [
            ("127.0.0.1", "loopback"),
            ("::1", "loopback"),
            ("169.254.169.254", "link-local"),
            ("10.0.0.5", "private"),
            ("192.168.1.1", "private"),
            ("::ffff:127.0.0.1", "loopback"),
            ("224.0.0.1", "multicast"),
            ("0.0.0.0", "unspecified"),
        ],
    )
    def test_non_public_addresses_are_refused(self, address, reason):
        """Loopback, metadata, private, mapped, multicast and unspecified addresses are refused."""
        with pytest.raises(UnsafeDestination, match=reason):
            check_destination("https://hooks.example/x", resolve=_resolving(address))

    def test_one_bad_address_among_good_ones_is_refused(self):
        """A name resolving to a public and a private address is refused."""
        with pytest.raises(UnsafeDestination, match="private"):
            check_destination(
                "https://hooks.example/x", resolve=_resolving("93.184.216.34", "10.1.2.3")
            )

    def test_http_is_refused_unless_developing(self):
        """http is refused; the development setting allows http and loopback."""
        with pytest.raises(UnsafeDestination, match="scheme"):
            check_destination("http://hooks.example/x", resolve=_resolving("93.184.216.34"))

        found = check_destination(
            "http://127.0.0.1:8080/x", resolve=_resolving("127.0.0.1"), allow_local=True
        )

        assert ["127.0.0.1"] == [str(a) for a in found]

    def test_development_still_refuses_private_and_metadata(self):
        """allow_local does not open private networks or the metadata address."""
        with pytest.raises(UnsafeDestination, match="link-local"):
            check_destination(
                "http://meta/x", resolve=_resolving("169.254.169.254"), allow_local=True
            )

    def test_unresolvable_name(self):
        """A name that does not resolve is refused, saying so."""

        def fails(host, port):
            raise OSError("Name or service not known")

        with pytest.raises(UnsafeDestination, match="does not resolve"):
            check_destination("https://nowhere.invalid/x", resolve=fails)


class TestPinned:
    """A checked address replaces the host in the URL; Host and TLS keep the name."""

    def test_https_with_port(self):
        """The URL names the address; Host and the TLS name are the URL's host."""
        import ipaddress

        target = pinned("https://hooks.example:8443/x?y=1", ipaddress.ip_address("93.184.216.34"))

        assert ("https://93.184.216.34:8443/x?y=1", "hooks.example:8443", "hooks.example") == (
            target.url,
            target.host,
            target.sni,
        )

    def test_ipv6_is_bracketed(self):
        """An IPv6 address is written in brackets; http has no TLS name."""
        import ipaddress

        target = pinned("http://hooks.example/x", ipaddress.ip_address("2606:2800:220:1::1"))

        assert ("http://[2606:2800:220:1::1]/x", "hooks.example", None) == tuple(target)
