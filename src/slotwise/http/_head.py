"""
``HEAD`` on every path that answers ``GET`` (RFC 9110 9.1: a general-purpose server supports
both), and ``HEAD`` named in ``Allow`` wherever ``GET`` is.

Litestar routes ``HEAD`` only to handlers declared for it; load balancers and uptime checks probe
with ``HEAD``. The request runs as the ``GET`` it stands for, so its status and headers (its
``Content-Length`` too) are the ``GET``'s, and the body is dropped.
"""

from __future__ import annotations

from litestar.enums import ScopeType
from litestar.types import ASGIApp, Message, Receive, Scope, Send

__all__ = ["HeadAsGet", "with_head_allowed"]


def with_head_allowed(headers: list[tuple[bytes, bytes]]) -> list[tuple[bytes, bytes]]:
    """Return *headers* with ``HEAD`` added to an ``Allow`` that names ``GET`` without it."""
    changed = []
    for name, value in headers:
        if name.lower() == b"allow":
            methods = [method.strip() for method in value.split(b",")]
            if b"GET" in methods and b"HEAD" not in methods:
                value = b", ".join([*methods, b"HEAD"])
        changed.append((name, value))
    return changed


class HeadAsGet:
    """ASGI middleware: a ``HEAD`` request is served as ``GET`` and answered without a body."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != ScopeType.HTTP or scope["method"] != "HEAD":
            await self.app(scope, receive, send)
            return

        async def headers_only(message: Message) -> None:
            if message["type"] == "http.response.body":
                if message.get("more_body", False):
                    return  # the GET's body, chunk by chunk: none of it is sent
                message = {"type": "http.response.body", "body": b"", "more_body": False}
            await send(message)

        await self.app({**scope, "method": "GET"}, receive, headers_only)
