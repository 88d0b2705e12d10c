"""
One signed POST to a company's URL: the destination checked, the connection pinned to the
checked address, both signatures (decision 38). The delivery worker and the meeting-link hook
send through it.
"""

from __future__ import annotations

from datetime import datetime

import httpx

from .addresses import Resolver, check_destination, pinned
from .signing import signature_headers

__all__ = ["post_signed"]


def post_signed(
    client: httpx.Client,
    url: str,
    body: bytes,
    key: str,
    *,
    message_id: str,
    timestamp: datetime,
    resolve: Resolver,
    allow_local: bool,
) -> httpx.Response:
    """
    POST the JSON *body* to *url*, signed with *key*, to the address the check approved.

    Raises:
        UnsafeDestination: when *url* may not receive deliveries (nothing is sent).
        httpx.HTTPError: when the request fails (a timeout, a refused connection).
    """
    addresses = check_destination(url, resolve=resolve, allow_local=allow_local)
    target = pinned(url, addresses[0])
    headers = signature_headers(body, key, message_id=message_id, timestamp=timestamp)
    headers["Content-Type"] = "application/json"
    headers["User-Agent"] = "slotwise-webhooks"
    headers["Host"] = target.host
    extensions = {"sni_hostname": target.sni} if target.sni else None
    return client.post(target.url, content=body, headers=headers, extensions=extensions)
