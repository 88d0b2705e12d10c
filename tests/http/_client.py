"""
The HTTP service over the tenant world, for the HTTP tests: an app, tokens and a client.

Company A (locations L1 and L2) and company B come from ``tests/boundary/_tenant_world.py``;
each test gets them fresh. Tokens: ``a`` (company-wide), ``a_l1`` (limited to L1), ``b``,
``expired`` and ``revoked`` (both of company A).
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import attrs
import httpx

from slotwise import Principal
from slotwise.http import create_app
from slotwise.storage.memory import MemoryStore
from tests.boundary._tenant_world import NOW, World, build


@attrs.frozen
class Service:
    """A world, its app and a token per principal."""

    world: World
    app: Any
    tokens: dict[str, str]

    def client(self, who: str | None = "a") -> httpx.Client:
        """Return a client calling the app in process, with *who*'s token (``None``: none)."""
        headers = {"Authorization": f"Bearer {self.tokens[who]}"} if who else {}
        return httpx.Client(
            transport=_SyncASGI(self.app), base_url="http://slotwise.test", headers=headers
        )

    def call(
        self,
        endpoint: str,
        *,
        who: str | None = "a",
        params: dict[str, Any] | None = None,
        json: Any = None,
        content: bytes | None = None,
        headers: dict[str, str] | None = None,
        **path: str,
    ) -> httpx.Response:
        """
        Send ``"METHOD /path/{placeholder}"`` with *path* values filled in, as *who*.
        """
        method, _, template = endpoint.partition(" ")
        url = template.format(**path)
        with self.client(who) as client:
            return client.request(
                method, url, params=params, json=json, content=content, headers=headers
            )

    @property
    def ids(self) -> dict[str, dict[str, str]]:
        """The world's ids by owner and kind."""
        return self.world.ids


def serve(world: World | None = None) -> Service:
    """Return the HTTP service over *world* (a fresh tenant world on a MemoryStore)."""
    world = world or build(MemoryStore)
    scheduler = world.scheduler
    a, b = world.ids["A"]["company"], world.ids["B"]["company"]
    l1 = world.ids["A"]["location"]
    tokens = {
        "a": scheduler.tokens.create(Principal(company_id=a), label="A").token,
        "a_l1": scheduler.tokens.create(
            Principal(company_id=a, location_ids=frozenset({l1})), label="A at L1"
        ).token,
        "b": scheduler.tokens.create(Principal(company_id=b), label="B").token,
        "expired": scheduler.tokens.create(
            Principal(company_id=a), label="old", expires_at=NOW + timedelta(minutes=1)
        ).token,
    }
    revoked = scheduler.tokens.create(Principal(company_id=a), label="gone")
    scheduler.tokens.revoke(revoked.record.id)
    tokens["revoked"] = revoked.token
    scheduler.clock.advance(timedelta(minutes=2))  # type: ignore[attr-defined]
    return Service(world=world, app=create_app(scheduler), tokens=tokens)


class _SyncASGI(httpx.BaseTransport):
    """httpx's ASGI transport driven synchronously (one event loop per request)."""

    def __init__(self, app: Any) -> None:
        self._transport = httpx.ASGITransport(app=app)

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        import asyncio

        async def call() -> httpx.Response:
            body = request.read()
            forwarded = httpx.Request(
                request.method, request.url, headers=request.headers, content=body
            )
            response = await self._transport.handle_async_request(forwarded)
            content = await response.aread()
            return httpx.Response(
                response.status_code, headers=response.headers, content=content, request=request
            )

        return asyncio.run(call())


def items(response: httpx.Response) -> Iterator[dict[str, Any]]:
    """Yield the records of a list response."""
    yield from response.json()["data"]
