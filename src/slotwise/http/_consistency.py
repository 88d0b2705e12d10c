"""
Reading your own writes over HTTP (decision 50): the ``Slotwise-Consistency`` header.

A response to a request that wrote through a store with read replicas carries
``Slotwise-Consistency: <token>`` (the primary's position after the write: a PostgreSQL WAL
position or a MariaDB GTID position, see :mod:`slotwise.storage.replicas`). A client that
sends the token back with a later request -- to any host of the service -- gets reads that come
from a replica only once it has replayed that position, else from the primary: it sees its own
booking. Without replicas no token is made and the header is ignored (after it is checked).
"""

from __future__ import annotations

from typing import Final

from litestar.enums import ScopeType
from litestar.types import ASGIApp, Message, Receive, Scope, Send

from slotwise.storage.replicas import consistent_with

__all__ = ["CONSISTENCY_HEADER", "ConsistencyTokens"]

CONSISTENCY_HEADER: Final = "Slotwise-Consistency"
"""The request and response header carrying a consistency token."""

_KEY: Final = CONSISTENCY_HEADER.lower().encode()


class ConsistencyTokens:
    """ASGI middleware: run each request inside ``consistent_with(<its header>)``, answer the token."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != ScopeType.HTTP:
            await self.app(scope, receive, send)
            return
        presented = None
        for key, value in scope.get("headers", ()):
            if key.lower() == _KEY:
                presented = value.decode("latin-1").strip()
        # A malformed token raises InvalidFormat naming the header: answered 400 by the app.
        with consistent_with(presented, field=CONSISTENCY_HEADER) as session:

            async def send_with_token(message: Message) -> None:
                if message["type"] == "http.response.start" and session.token is not None:
                    headers = list(message.get("headers", []))
                    headers.append((_KEY, session.token.encode()))
                    message["headers"] = headers
                await send(message)

            await self.app(scope, receive, send_with_token)
