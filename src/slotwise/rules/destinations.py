"""
Which addresses may receive webhooks (decisions 38 and 47): the rule, without any I/O.

A company sets its webhook URLs; without a check, a URL naming ``127.0.0.1``, a private network
or the cloud metadata address (``169.254.169.254``) would let whoever edits the company make the
server call its own neighbours (server-side request forgery). Two checks share this rule:

* when a URL is *set* (:func:`check_webhook_url`): the scheme, and a host written as an address
  (or ``localhost``) -- no name is resolved, since what a name resolves to can change;
* when a delivery is *sent* (``slotwise.webhooks.check_destination``): every address the host
  resolves to at that moment.

An IPv6 address that carries an IPv4 address (IPv4-mapped ``::ffff:a.b.c.d``, 6to4
``2002:AABB:CCDD::``, NAT64 ``64:ff9b::a.b.c.d``) is judged by the IPv4 address it reaches.
The development setting (*allow_local*) allows ``http`` and loopback receivers (tests, a local
receiver); private, link-local, multicast and reserved addresses stay refused.
"""

from __future__ import annotations

import ipaddress
import re
import socket
from typing import Final
from urllib.parse import urlsplit

from slotwise.errors import UnsafeDestination

__all__ = ["IPAddress", "check_webhook_url", "literal_address", "refusal", "schemes"]

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address

_NAT64: Final = ipaddress.IPv6Network("64:ff9b::/96")
"""The well-known NAT64 prefix (RFC 6052): the last 32 bits are the IPv4 address reached."""
_LOCAL_NAT64: Final = ipaddress.IPv6Network("64:ff9b:1::/48")
"""Local-use NAT64 (RFC 8215): a network's own translator, never a public destination."""
_LEGACY_IPV4: Final = re.compile(r"[0-9a-fA-FxX.]+")
"""What ``inet_aton`` may read as an IPv4 address (``127.1``, ``0x7f000001``, ``2130706433``)."""
_CHECKS: Final = (
    ("is_unspecified", "an unspecified address"),
    ("is_link_local", "a link-local address (cloud metadata lives there)"),
    ("is_multicast", "a multicast address"),
    ("is_private", "a private address"),
    ("is_reserved", "a reserved address"),
)


def schemes(*, allow_local: bool) -> tuple[str, ...]:
    """Return the URL schemes a webhook may use: https, and http under the development setting."""
    return ("https", "http") if allow_local else ("https",)


def _embedded(address: IPAddress) -> ipaddress.IPv4Address | None:
    """Return the IPv4 address an IPv6 *address* reaches through mapping, 6to4 or NAT64."""
    if not isinstance(address, ipaddress.IPv6Address):
        return None
    if address.ipv4_mapped is not None:
        return address.ipv4_mapped
    if address.sixtofour is not None:
        return address.sixtofour
    if address in _NAT64:
        return ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
    return None


def refusal(address: IPAddress, *, allow_local: bool) -> str | None:
    """
    Return why *address* may not receive webhooks, or ``None`` when it may.

    Refused: loopback (unless *allow_local*), unspecified, link-local, multicast, private,
    reserved, site-local and any other address that is not globally reachable; an IPv6 form of
    an IPv4 address is judged by that address.
    """
    inner = _embedded(address)
    if inner is not None:
        reason = refusal(inner, allow_local=allow_local)
        return None if reason is None else f"{reason} ({address} reaches {inner})"
    if address.is_loopback:
        return None if allow_local else "a loopback address"
    if isinstance(address, ipaddress.IPv6Address):
        if address in _LOCAL_NAT64:
            return "a local-use NAT64 address"
        if address.is_site_local:
            return "a site-local address"
    for attribute, text in _CHECKS:
        if getattr(address, attribute):
            return text
    if not address.is_global:
        return "not a public address"
    return None


def literal_address(host: str) -> IPAddress | None:
    """
    Return the address *host* spells, or ``None`` when it is a name.

    IPv6 may carry a zone (``fe80::1%eth0``); IPv4 may be written in the short, octal, hex or
    integer forms that resolvers still accept (``127.1``, ``0x7f.0.0.1``, ``2130706433``), which
    reach the same address as the dotted form.
    """
    text = host.split("%", 1)[0]
    try:
        return ipaddress.ip_address(text)
    except ValueError:
        pass
    if _LEGACY_IPV4.fullmatch(text) and not text.endswith("."):
        try:
            return ipaddress.IPv4Address(socket.inet_aton(text))
        except OSError:
            return None
    return None


def check_webhook_url(url: str, *, field: str, allow_local: bool = False) -> None:
    """
    Refuse a webhook URL when it is set, if it can be seen to be unsafe without resolving it.

    Args:
        url: the URL being set.
        field: the setting's name (``booking_webhook_url``), named by the error.
        allow_local: the development setting: also allow ``http`` and loopback.

    Raises:
        UnsafeDestination: naming *field*, for another scheme, no host, or a host written as a
            refused address (see :func:`refusal`) or named ``localhost`` (unless *allow_local*).
    """
    parts = urlsplit(url)
    allowed = schemes(allow_local=allow_local)
    if parts.scheme.lower() not in allowed:
        reason = f"the scheme must be {' or '.join(allowed)}"
        raise UnsafeDestination(url=url, reason=reason, field=field)
    host = (parts.hostname or "").rstrip(".")
    if not host:
        raise UnsafeDestination(url=url, reason="it names no host", field=field)
    if host == "localhost" or host.endswith(".localhost"):
        # RFC 6761: localhost names always resolve to loopback.
        if allow_local:
            return
        raise UnsafeDestination(url=url, reason=f"{host} is a loopback name", field=field)
    address = literal_address(host)
    if address is not None:
        refused = refusal(address, allow_local=allow_local)
        if refused is not None:
            raise UnsafeDestination(url=url, reason=f"{host} is {refused}", field=field)
