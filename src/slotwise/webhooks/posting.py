"""
One signed POST to a company's URL: the destination checked, the connection pinned to the
checked address, both signatures (decision 38), and a limit on the whole exchange. The delivery
worker and the meeting-link hook send through it.

httpx's timeouts bound each step (connecting, each read), not the exchange: a receiver that
answers one byte every few seconds would hold a worker past its lease (and another worker would
send the event again) or a booking call for as long as it liked. :class:`_Deadline` shuts the
connection's socket when the exchange's time is up, which ends a read blocked on it; each POST
has a connection of its own (``Connection: close``), so the socket is known from its connect (or,
over TLS, its handshake). A client with a transport of its own, which opens no socket through
httpcore, is bounded by its own timeouts only.
"""

from __future__ import annotations

import contextlib
import socket
import threading
from datetime import datetime
from typing import Any

import httpx

from .addresses import Resolver, check_destination, pinned
from .signing import signature_headers

__all__ = ["ExchangeTooLong", "post_signed"]


class ExchangeTooLong(httpx.TimeoutException):
    """The receiver did not finish answering within the exchange's time in all."""


class _Deadline:
    """Shut the exchange's socket *seconds* after it starts (httpcore's trace hook finds it)."""

    def __init__(self, seconds: float) -> None:
        self.expired = False
        self._socket: socket.socket | None = None
        self._lock = threading.Lock()
        self._timer = threading.Timer(seconds, self._expire)
        self._timer.daemon = True

    def trace(self, name: str, info: dict[str, Any]) -> None:
        """httpcore's trace extension: keep the socket of the exchange's connection."""
        # Over TLS the connected socket is wrapped (and detached): the TLS stream's is kept.
        if name in ("connection.connect_tcp.complete", "connection.start_tls.complete"):
            stream = info.get("return_value")
            found = stream.get_extra_info("socket") if stream is not None else None
            with self._lock:
                self._socket = found if isinstance(found, socket.socket) else None
                if self.expired:
                    self._shut()

    def __enter__(self) -> _Deadline:
        self._timer.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._timer.cancel()

    def _expire(self) -> None:
        with self._lock:
            self.expired = True
            self._shut()

    def _shut(self) -> None:
        if self._socket is not None:
            # shutdown, not close: it wakes a recv blocked in another thread (an OSError: the
            # socket is closed already, the exchange has ended).
            with contextlib.suppress(OSError):
                self._socket.shutdown(socket.SHUT_RDWR)


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
    total: float,
    read_body: bool = True,
) -> httpx.Response:
    """
    POST the JSON *body* to *url*, signed with *key*, to the address the check approved.

    The exchange (connecting, sending, the answer's head and, with *read_body*, its body) ends
    within *total* seconds. Without *read_body* the answer's body is not read (a delivery needs
    only its status and headers).

    Raises:
        UnsafeDestination: when *url* may not receive deliveries (nothing is sent).
        ExchangeTooLong: when the receiver has not answered within *total* seconds.
        httpx.HTTPError: when the request fails otherwise (a timeout, a refused connection).
    """
    addresses = check_destination(url, resolve=resolve, allow_local=allow_local)
    target = pinned(url, addresses[0])
    headers = signature_headers(body, key, message_id=message_id, timestamp=timestamp)
    headers["Content-Type"] = "application/json"
    headers["User-Agent"] = "slotwise-webhooks"
    headers["Host"] = target.host
    headers["Connection"] = "close"
    with _Deadline(total) as deadline:
        extensions: dict[str, Any] = {"trace": deadline.trace}
        if target.sni:
            extensions["sni_hostname"] = target.sni
        request = client.build_request(
            "POST", target.url, content=body, headers=headers, extensions=extensions
        )
        try:
            response = client.send(request, stream=True)
            try:
                if read_body:
                    response.read()
            finally:
                response.close()
        except httpx.HTTPError as error:
            if deadline.expired:
                raise ExchangeTooLong(
                    f"no whole answer within {total:g} s", request=request
                ) from error
            raise
    return response
