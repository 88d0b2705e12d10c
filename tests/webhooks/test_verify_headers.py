"""slotwise.webhooks.verify on malformed headers: a receiver's 401, never an unexpected error."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from slotwise import InvalidSignature
from slotwise.webhooks import SIGNATURE_HEADER, signature_headers, verify

KEY = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
BODY = b'{"trigger":"BookingConfirmation","data":{"id":"apt-1"}}'
SENT = datetime(2026, 11, 23, 14, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("header", "value", "reason"),
    [
        ("webhook-timestamp", "\u00b2", "numeric"),
        ("webhook-timestamp", "\u0661\u0667\u0669\u0665", "numeric"),
        ("webhook-timestamp", "9" * 30, "outside"),
        ("webhook-timestamp", "9" * 5000, "outside"),
        ("webhook-signature", "v1,\u00e9t\u00e9", "does not match id"),
        (SIGNATURE_HEADER, "\u00e9", "X-Message-Signature does not match"),
    ],
    ids=[
        "superscript digit",
        "arabic-indic digits",
        "beyond datetime",
        "beyond int digit limit",
        "non-ascii signature",
        "non-ascii body signature",
    ],
)
def test_a_malformed_header_is_an_invalid_signature(header, value, reason):
    """Each used to escape as ValueError, OverflowError or TypeError (a receiver's 500)."""
    headers = {**signature_headers(BODY, KEY, message_id="evt-1", timestamp=SENT), header: value}

    with pytest.raises(InvalidSignature, match=reason):
        verify(BODY, headers, KEY, now=SENT)


def test_a_genuine_delivery_still_passes():
    """The same delivery with its headers as sent verifies, leading zeros in the stamp too."""
    headers = signature_headers(BODY, KEY, message_id="evt-1", timestamp=SENT)

    verify(BODY, headers, KEY, now=SENT)
    verify(
        BODY, {**headers, "webhook-timestamp": "0" + headers["webhook-timestamp"]}, KEY, now=SENT
    )
