"""
Signatures of a webhook delivery (decision 38), written and checked with the standard library.

Every attempt carries two signatures of the same body, so receivers may check either:

* ``X-Message-Signature``: the lower-case hex HMAC-SHA256 of the raw body (the spec's header,
  decision 29);
* the Standard Webhooks headers: ``webhook-id`` (the event id, the same on every retry),
  ``webhook-timestamp`` (Unix seconds of the attempt) and ``webhook-signature``:
  ``v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>">``, which also binds the id and the time
  so a captured delivery cannot be replayed later.

Both are keyed by the company's signature key (``Company.webhook_signature_hash``), as UTF-8
bytes.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
from collections.abc import Mapping
from datetime import UTC, datetime, timedelta
from typing import Final

from slotwise.errors import InvalidSignature

__all__ = ["SIGNATURE_HEADER", "signature_headers", "verify"]

SIGNATURE_HEADER: Final = "X-Message-Signature"
"""The spec's signature header: hex HMAC-SHA256 of the body."""


def _mac(key: str, message: bytes) -> bytes:
    return hmac.new(key.encode(), message, hashlib.sha256).digest()


def _signed(message_id: str, timestamp: int, body: bytes) -> bytes:
    return f"{message_id}.{timestamp}.".encode() + body


def signature_headers(
    body: bytes, key: str, *, message_id: str, timestamp: datetime
) -> dict[str, str]:
    """
    Return the signature headers of one attempt to deliver *body*.

    Args:
        body: the exact bytes sent.
        key: the company's signature key.
        message_id: the event id (``webhook-id``), the same on every attempt.
        timestamp: the attempt's time (aware); ``webhook-timestamp`` is its Unix seconds.
    """
    seconds = int(timestamp.timestamp())
    standard = base64.b64encode(_mac(key, _signed(message_id, seconds, body))).decode()
    return {
        SIGNATURE_HEADER: _mac(key, body).hex(),
        "webhook-id": message_id,
        "webhook-timestamp": str(seconds),
        "webhook-signature": f"v1,{standard}",
    }


def verify(
    body: bytes,
    headers: Mapping[str, str],
    key: str,
    *,
    now: datetime,
    tolerance: timedelta = timedelta(minutes=5),
) -> None:
    """
    Check a delivery's signatures; return quietly when it is genuine.

    Every signature present must match: ``X-Message-Signature`` over the body, and the
    Standard Webhooks ``webhook-signature`` (any of its space-separated ``v1,...`` entries) over
    id, timestamp and body, with the timestamp within *tolerance* of *now*. At least one of the
    two must be present. Comparisons take constant time.

    Args:
        body: the raw request body, exactly as received (not re-serialised JSON).
        headers: the request's headers (any mapping; names compared ignoring case).
        key: the company's signature key.
        now: the receiver's clock (aware), for the replay window.
        tolerance: how far ``webhook-timestamp`` may be from *now*.

    Raises:
        InvalidSignature: naming what failed (missing, mismatch, outside the time window).

    .. versionadded:: 0.1
    """
    found = {name.lower(): value for name, value in headers.items()}
    plain = found.get(SIGNATURE_HEADER.lower())
    standard = found.get("webhook-signature")
    if plain is None and standard is None:
        raise InvalidSignature("no signature header (X-Message-Signature or webhook-signature)")
    if plain is not None and not hmac.compare_digest(plain.strip().lower(), _mac(key, body).hex()):
        raise InvalidSignature("X-Message-Signature does not match the body")
    if standard is not None:
        _verify_standard(body, found, standard, key, now=now, tolerance=tolerance)


def _verify_standard(
    body: bytes,
    found: Mapping[str, str],
    signatures: str,
    key: str,
    *,
    now: datetime,
    tolerance: timedelta,
) -> None:
    message_id = found.get("webhook-id")
    stamp = found.get("webhook-timestamp")
    if message_id is None or stamp is None or not stamp.strip().isdigit():
        raise InvalidSignature("webhook-signature needs webhook-id and a numeric webhook-timestamp")
    seconds = int(stamp)
    sent = datetime.fromtimestamp(seconds, UTC)
    if abs(now - sent) > tolerance:
        raise InvalidSignature(f"webhook-timestamp {seconds} is outside the {tolerance} window")
    expected = base64.b64encode(_mac(key, _signed(message_id, seconds, body))).decode()
    for entry in signatures.split():
        version, _, value = entry.partition(",")
        if version == "v1" and hmac.compare_digest(value, expected):
            return
    raise InvalidSignature("webhook-signature does not match id, timestamp and body")
