"""
A webhook exchange ends within its time in all (decision 38: 15 s; the meeting link: 5 s),
however slowly a receiver answers, and a receiver at an IPv6 literal gets a valid ``Host``.

httpx's timeouts bound each step, so a receiver trickling its answer a byte at a time stayed
within every one of them while holding a worker (past its lease) or a booking call.
"""

from __future__ import annotations

import ipaddress
import shutil
import socket
import ssl
import subprocess
import threading
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import httpx
import pytest

from slotwise.webhooks import sender
from slotwise.webhooks.addresses import pinned
from slotwise.webhooks.posting import ExchangeTooLong, post_signed

from .conftest import KEY, Business


class _Trickler:
    """A receiver on 127.0.0.1: reads a request, sends *head* at once, then *trickled* slowly."""

    def __init__(
        self, head: bytes, trickled: bytes, pause: float, tls: ssl.SSLContext | None = None
    ) -> None:
        self.head, self.trickled, self.pause, self.tls = head, trickled, pause, tls
        self.server = socket.create_server(("127.0.0.1", 0))
        self.port = self.server.getsockname()[1]
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while True:
            try:
                connection, _ = self.server.accept()
            except OSError:
                return
            threading.Thread(target=self._answer, args=(connection,), daemon=True).start()

    def _answer(self, connection: socket.socket) -> None:
        if self.tls is not None:
            try:
                connection = self.tls.wrap_socket(connection, server_side=True)
            except OSError:
                return
        with connection:
            data = b""
            while b"\r\n\r\n" not in data:
                data += connection.recv(65536)
            try:
                connection.sendall(self.head)
                for byte in self.trickled:
                    time.sleep(self.pause)
                    connection.sendall(bytes([byte]))
            except OSError:
                pass  # the client gave up: what this receiver is here to show


_HEAD = b"HTTP/1.1 200 OK\r\nContent-Length: 22\r\nContent-Type: application/json\r\n\r\n"
_BODY = b'{"meetingUrl": "x:/y"}'


@pytest.fixture
def trickling_body() -> Iterator[_Trickler]:
    """Answers its head at once, then its 22-byte body a byte every 0.2 s."""
    receiver = _Trickler(_HEAD, _BODY, 0.2)
    yield receiver
    receiver.server.close()


@pytest.fixture
def trickling_head() -> Iterator[_Trickler]:
    """Answers its status line and headers too a byte every 0.1 s (about 9 s in all)."""
    receiver = _Trickler(b"", _HEAD + _BODY, 0.1)
    yield receiver
    receiver.server.close()


@pytest.fixture
def trickling_tls(tmp_path: Path) -> Iterator[tuple[_Trickler, ssl.SSLContext]]:
    """The trickling-body receiver over TLS (a certificate for localhost made with openssl)."""
    if shutil.which("openssl") is None:
        pytest.skip("openssl makes the test's certificate")
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
         "-keyout", str(key), "-out", str(cert), "-subj", "/CN=localhost",
         "-addext", "subjectAltName=DNS:localhost"],
        check=True, capture_output=True,
    )  # fmt: skip
    server_side = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    server_side.load_cert_chain(cert, key)
    receiver = _Trickler(_HEAD, _BODY, 0.2, tls=server_side)
    yield receiver, ssl.create_default_context(cafile=str(cert))
    receiver.server.close()


def _post(
    port: int,
    *,
    total: float,
    read_body: bool = True,
    scheme: str = "http",
    verify: ssl.SSLContext | bool = True,
) -> httpx.Response:
    return post_signed(
        httpx.Client(timeout=httpx.Timeout(5.0), follow_redirects=False, verify=verify),
        f"{scheme}://localhost:{port}/hook",
        b"{}",
        KEY,
        message_id="msg_1",
        timestamp=datetime(2026, 3, 2, 13, tzinfo=UTC),
        resolve=lambda host, port: ["127.0.0.1"],
        allow_local=True,
        total=total,
        read_body=read_body,
    )


def test_a_trickled_body_ends_at_the_limit(trickling_body: _Trickler):
    """Each byte within httpx's 5 s read timeout, 22 of them: the exchange stops at 1 s."""
    began = time.monotonic()

    with pytest.raises(ExchangeTooLong) as stopped:
        _post(trickling_body.port, total=1.0)

    assert time.monotonic() - began < 2.5
    assert "within 1 s" in str(stopped.value)


def test_a_trickled_body_over_tls_ends_at_the_limit(
    trickling_tls: tuple[_Trickler, ssl.SSLContext],
):
    """Over HTTPS (what production receivers are) the limit holds too."""
    receiver, trusted = trickling_tls
    began = time.monotonic()

    with pytest.raises(ExchangeTooLong):
        _post(receiver.port, total=1.0, scheme="https", verify=trusted)

    assert time.monotonic() - began < 2.5


def test_a_trickled_head_ends_at_the_limit(trickling_head: _Trickler):
    """The status line itself a byte at a time: stopped at the limit, body or no body."""
    began = time.monotonic()

    with pytest.raises(ExchangeTooLong):
        _post(trickling_head.port, total=1.0, read_body=False)

    assert time.monotonic() - began < 2.5


def test_an_answer_within_the_limit_is_read_whole(trickling_body: _Trickler):
    """The same receiver, with time enough: the body arrives whole."""
    answer = _post(trickling_body.port, total=20.0)

    assert (200, _BODY) == (answer.status_code, answer.content)


def test_a_delivery_needs_only_the_answer_s_head(
    business: Business, trickling_body: _Trickler, monkeypatch: pytest.MonkeyPatch
):
    """A 200 whose body trickles is a delivery, recorded at once (the body is not waited for)."""
    url = f"http://127.0.0.1:{trickling_body.port}/customer"
    business.workspace.company.update(customer_webhook_url=url)
    business.workspace.customers.create(first_name="Ann", last_name="Lee", email="a@example.com")
    began = time.monotonic()

    report = business.worker().run_once()

    assert time.monotonic() - began < 2.5
    assert report.delivered >= 1


def test_a_delivery_to_a_receiver_too_slow_is_a_failed_attempt(
    business: Business, trickling_head: _Trickler, monkeypatch: pytest.MonkeyPatch
):
    """Past the exchange's time in all the attempt fails (and is retried), holding no worker."""
    monkeypatch.setattr(sender, "TOTAL", 1.0)
    url = f"http://127.0.0.1:{trickling_head.port}/customer"
    business.workspace.company.update(customer_webhook_url=url)
    business.workspace.customers.create(first_name="Ann", last_name="Lee", email="a@example.com")
    began = time.monotonic()

    report = business.worker().run_once()
    (delivery,) = [d for d in business.workspace.outbox.deliveries().data if d.delivered_at is None]

    assert time.monotonic() - began < 3.5
    assert report.failed_attempts >= 1
    assert "ExchangeTooLong" in (delivery.last_error or "")


@pytest.mark.parametrize(
    ("url", "address", "host"),
    [
        ("http://[::1]:8080/hook", "::1", "[::1]:8080"),
        ("https://[2001:db8::1]/hook", "2001:db8::1", "[2001:db8::1]"),
        ("https://hooks.example.com/x", "203.0.113.9", "hooks.example.com"),
    ],
)
def test_the_host_header_keeps_an_ipv6_literal_s_brackets(url: str, address: str, host: str):
    """RFC 9110: ``Host: [::1]:8080``, not ``::1:8080``."""
    assert host == pinned(url, ipaddress.ip_address(address)).host
