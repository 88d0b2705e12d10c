"""
Webhook signing keys (decision 47): the Standard Webhooks ``whsec_<base64>`` form, without I/O.

A key written ``whsec_<base64>`` stands for the bytes its base64 encodes, so the Standard
Webhooks reference libraries (``standardwebhooks.Webhook("whsec_...")``) verify slotwise's
deliveries as they document; any other key stands for its UTF-8 bytes.
"""

from __future__ import annotations

import base64
import binascii
from typing import Final

from slotwise.errors import InvalidFormat

__all__ = ["KEY_PREFIX", "check_signing_key", "key_bytes", "whsec_bytes"]

KEY_PREFIX: Final = "whsec_"
"""The Standard Webhooks prefix of a base64 signing key."""


def whsec_bytes(key: str) -> bytes | None:
    """
    Return the bytes of a ``whsec_<base64>`` key, or ``None`` when *key* is not of that form.

    Standard base64 (``+`` and ``/``), padded or not; an empty or undecodable remainder is not
    of that form.
    """
    if not key.startswith(KEY_PREFIX):
        return None
    encoded = key[len(KEY_PREFIX) :].rstrip("=")
    try:
        # Padding restored: the reference library accepts unpadded keys too.
        decoded = base64.b64decode(encoded + "=" * (-len(encoded) % 4), validate=True)
    except (binascii.Error, ValueError):
        return None
    return decoded or None


def key_bytes(key: str) -> bytes:
    """
    Return the HMAC key that *key* stands for.

    ``whsec_<base64>`` is the bytes the base64 encodes; any other text -- a ``whsec_`` key
    stored before decision 47 whose remainder is not base64 included -- its UTF-8 bytes.
    """
    decoded = whsec_bytes(key)
    return decoded if decoded is not None else key.encode()


def check_signing_key(key: str | None, *, field: str) -> None:
    """
    Refuse a key that starts ``whsec_`` but whose remainder is not standard base64.

    Such a key would be used as its UTF-8 bytes while a Standard Webhooks library decodes it
    (leniently, dropping what is not base64): the two would never agree. The error does not
    quote the key: it is a secret.

    Raises:
        InvalidFormat: naming *field*.
    """
    if key is None or not key.startswith(KEY_PREFIX) or whsec_bytes(key) is not None:
        return
    raise InvalidFormat(
        field=field,
        expected="whsec_ followed by standard base64 of at least one byte, or a key without"
        " the whsec_ prefix",
        value=f"a whsec_ key of {len(key)} characters",
    )
