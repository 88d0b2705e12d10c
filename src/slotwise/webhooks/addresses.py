"""
Where a webhook may be sent (decisions 38 and 47): https, and only to public addresses.

The rule lives in :mod:`slotwise.rules.destinations`; a URL is checked when it is set (its
scheme and a literal address) and here, *at send time*, on the addresses the host name resolves
to then, so a name that later resolves elsewhere is caught on the next attempt. A development
setting allows ``http`` and loopback receivers (tests, a local receiver); private, link-local,
multicast and reserved addresses stay refused.
"""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Callable, Sequence
from typing import Any, Final, NamedTuple
from urllib.parse import urlsplit

from slotwise.errors import UnsafeDestination
from slotwise.rules.destinations import IPAddress, refusal, schemes

__all__ = ["Pinned", "Resolver", "check_destination", "pinned", "system_resolver"]

Resolver = Callable[[str, int], Sequence[str]]
"""Resolve a host name and port to IP address texts (injected in tests)."""

_DEFAULT_PORTS: Final = {"https": 443, "http": 80}


def system_resolver(host: str, port: int) -> list[str]:
    """Resolve *host* with the system's resolver (``socket.getaddrinfo``)."""
    infos: list[Any] = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return sorted({str(info[4][0]) for info in infos})


def check_destination(
    url: str, *, resolve: Resolver = system_resolver, allow_local: bool = False
) -> list[IPAddress]:
    """
    Return the addresses *url* resolves to, when every one of them may receive webhooks.

    The send-time check (decision 38); the same rule as the set-time check of decision 47
    (:func:`slotwise.rules.destinations.refusal`), applied to what the host resolves to now.

    Args:
        url: the webhook URL.
        resolve: the resolver (the system's by default).
        allow_local: the development setting: also allow ``http`` and loopback addresses.

    Raises:
        UnsafeDestination: for another scheme, no host, a name that does not resolve, or any
            resolved address that is loopback (unless *allow_local*), private, link-local,
            multicast, reserved or unspecified (an IPv6 form of an IPv4 address -- mapped,
            6to4, NAT64 -- judged by that address).
    """
    parts = urlsplit(url)
    allowed = schemes(allow_local=allow_local)
    if parts.scheme not in allowed:
        raise UnsafeDestination(url=url, reason=f"the scheme must be {' or '.join(allowed)}")
    host = parts.hostname
    if not host:
        raise UnsafeDestination(url=url, reason="it names no host")
    try:
        port = parts.port or _DEFAULT_PORTS[parts.scheme]
    except ValueError:
        raise UnsafeDestination(url=url, reason="its port is not a number") from None
    try:
        texts = resolve(host, port)
    except OSError as error:
        raise UnsafeDestination(url=url, reason=f"{host} does not resolve ({error})") from None
    if not texts:
        raise UnsafeDestination(url=url, reason=f"{host} resolves to no address")
    addresses = [ipaddress.ip_address(text.split("%")[0]) for text in texts]
    for address in addresses:
        refused = refusal(address, allow_local=allow_local)
        if refused:
            raise UnsafeDestination(url=url, reason=f"{host} resolves to {address}, {refused}")
    return addresses


class Pinned(NamedTuple):
    """A request target pinned to a checked address: what to send instead of the URL."""

    url: str
    host: str
    """The ``Host`` header: the URL's own host (and port)."""
    sni: str | None
    """The TLS server name to verify the certificate against (https only)."""


def pinned(url: str, address: IPAddress) -> Pinned:
    """
    Return *url* aimed at the checked *address*, keeping its host for ``Host`` and TLS.

    The destination check resolved the host name; connecting by name would resolve it again,
    and a name that answers a public address to the check and a private one to the connection
    (DNS rebinding) would slip through. Connecting to the checked address closes that gap; the
    certificate is still verified against the host name.
    """
    parts = urlsplit(url)
    host = parts.hostname or ""
    literal = f"[{address}]" if isinstance(address, ipaddress.IPv6Address) else str(address)
    netloc = literal if parts.port is None else f"{literal}:{parts.port}"
    # An IPv6 literal keeps its brackets in Host (RFC 9110 7.2), which urlsplit's hostname drops.
    named = f"[{host}]" if ":" in host else host
    header = named if parts.port is None else f"{named}:{parts.port}"
    target = parts._replace(netloc=netloc).geturl()
    return Pinned(url=target, host=header, sni=host if parts.scheme == "https" else None)
