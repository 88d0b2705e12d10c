"""
Signatures of a webhook delivery (decisions 38 and 47), written and checked with the standard
library.

Every attempt carries two signatures of the same body:

* the Standard Webhooks headers: ``webhook-id`` (the event id, the same on every retry),
  ``webhook-timestamp`` (Unix seconds of the attempt) and ``webhook-signature``:
  ``v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>">``, which also binds the id and the time
  so a captured delivery cannot be replayed later or under another id;
* ``X-Message-Signature``: the lower-case hex HMAC-SHA256 of the raw body (the spec's header,
  decision 29). It binds neither id nor time: a receiver that trusts it alone accepts a replay.

Both are keyed by the company's signature key (``Company.webhook_signature_hash``). A key written
``whsec_<base64>`` is used as the bytes the base64 encodes -- the Standard Webhooks convention, so
the reference libraries (``standardwebhooks.Webhook("whsec_...")``) verify slotwise's deliveries
as they document; any other key as its UTF-8 bytes (decision 47).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
from collections.abc import Mapping
from datetime import UTC, datetime, timedelta
from typing import Final

from slotwise.errors import InvalidSignature
from slotwise.rules.signing_keys import key_bytes

__all__ = ["SIGNATURE_HEADER", "signature_headers", "verify"]

SIGNATURE_HEADER: Final = "X-Message-Signature"
"""The spec's signature header: hex HMAC-SHA256 of the body."""


def _mac(key: bytes, message: bytes) -> bytes:
    return hmac.new(key, message, hashlib.sha256).digest()


def _signed(message_id: str, timestamp: int, body: bytes) -> bytes:
    return f"{message_id}.{timestamp}.".encode() + body


def signature_headers(
    body: bytes, key: str, *, message_id: str, timestamp: datetime
) -> dict[str, str]:
    """
    Return the signature headers of one attempt to deliver *body*.

    Args:
        body: the exact bytes sent.
        key: the company's signature key (``whsec_<base64>`` or any text, decision 47).
        message_id: the event id (``webhook-id``), the same on every attempt.
        timestamp: the attempt's time (aware); ``webhook-timestamp`` is its Unix seconds.
    """
    secret = key_bytes(key)
    seconds = int(timestamp.timestamp())
    standard = base64.b64encode(_mac(secret, _signed(message_id, seconds, body))).decode()
    return {
        SIGNATURE_HEADER: _mac(secret, body).hex(),
        "webhook-id": message_id,
        "webhook-timestamp": str(seconds),
        "webhook-signature": f"v1,{standard}",
    }


def verify(
    body: bytes,
    headers: Mapping[str, str],
    key: str,
    *,
    now: datetime | None = None,
    tolerance: timedelta = timedelta(minutes=5),
    legacy: bool = False,
) -> None:
    """
    Check a delivery's signatures; return quietly when it is genuine.

    The Standard Webhooks ``webhook-signature`` (any of its space-separated ``v1,...`` entries)
    must match id, timestamp and body, with ``webhook-timestamp`` within *tolerance* of *now*;
    an ``X-Message-Signature`` that is present must match the body too. Comparisons take
    constant time.

    Only with *legacy* is ``X-Message-Signature`` alone enough (decision 47). That header signs
    the body only: whoever captured one delivery can replay it at any later time and under any
    ``webhook-id`` (a receiver deduplicating by id is fooled too). slotwise always sends both, so
    a delivery without ``webhook-signature`` was stripped on the way, unless a sender of the
    spec's header alone is expected.

    Args:
        body: the raw request body, exactly as received (not re-serialised JSON).
        headers: the request's headers (any mapping; names compared ignoring case).
        key: the company's signature key (``whsec_<base64>`` or any text, decision 47).
        now: the receiver's clock (aware), for the replay window; default: the system clock
            (a receiver's convenience; slotwise's own code passes its injected clock).
        tolerance: how far ``webhook-timestamp`` may be from *now*.
        legacy: also accept a delivery signed only by ``X-Message-Signature`` (replayable).

    Raises:
        InvalidSignature: naming what failed (missing, mismatch, outside the time window).

    .. versionadded:: 0.1
    .. versionchanged:: 0.1
       ``webhook-signature`` is required unless *legacy*; *now* defaults to the system clock.
    """
    secret = key_bytes(key)
    found = {name.lower(): value for name, value in headers.items()}
    plain = found.get(SIGNATURE_HEADER.lower())
    standard = found.get("webhook-signature")
    if standard is None and not (legacy and plain is not None):
        raise InvalidSignature(
            "no webhook-signature header (X-Message-Signature alone is accepted only with"
            " legacy=True: it can be replayed)"
            if plain is not None
            else "no signature header (webhook-signature, or X-Message-Signature with legacy=True)"
        )
    if plain is not None and not _same(plain.strip().lower(), _mac(secret, body).hex()):
        raise InvalidSignature("X-Message-Signature does not match the body")
    if standard is not None:
        when = now if now is not None else datetime.now(UTC)  # clock-ok: decision 47
        _verify_standard(body, found, standard, secret, now=when, tolerance=tolerance)


def _verify_standard(
    body: bytes,
    found: Mapping[str, str],
    signatures: str,
    key: bytes,
    *,
    now: datetime,
    tolerance: timedelta,
) -> None:
    message_id = found.get("webhook-id")
    stamp = found.get("webhook-timestamp")
    digits = stamp.strip() if stamp is not None else ""
    if message_id is None or not (digits.isascii() and digits.isdigit()):
        raise InvalidSignature("webhook-signature needs webhook-id and a numeric webhook-timestamp")
    # Compared as numbers: a forged timestamp beyond datetime's range (or int()'s digit limit) is
    # merely outside the window.
    if len(digits) > 19 or abs(now.timestamp() - int(digits)) > tolerance.total_seconds():
        raise InvalidSignature(f"webhook-timestamp {digits:.19} is outside the {tolerance} window")
    seconds = int(digits)
    expected = base64.b64encode(_mac(key, _signed(message_id, seconds, body))).decode()
    for entry in signatures.split():
        version, _, value = entry.partition(",")
        if version == "v1" and _same(value, expected):
            return
    raise InvalidSignature("webhook-signature does not match id, timestamp and body")


def _same(received: str, expected: str) -> bool:
    # hmac.compare_digest raises TypeError on non-ASCII text; a header is the sender's to write,
    # so compare bytes (latin-1 keeps every header character) and let a mismatch be a mismatch.
    return hmac.compare_digest(received.encode("latin-1", "replace"), expected.encode())
