"""
What a client written from the spec meets on a real ``slotwise serve`` process (eleventh
session's review): ``HEAD`` wherever ``GET`` is, bodies that are not UTF-8, JSON Patch on
every record's ``PUT``, a slot booked as availability gave it, and limited tokens creating
groups.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

pytest.importorskip("litestar")
pytest.importorskip("sqlalchemy")

from ._served import Served, served


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    """``slotwise serve`` over the demo business in a SQLite file."""
    with served(f"sqlite:///{Path(tmp_path_factory.mktemp('faces')) / 'faces.db'}") as running:
        yield running


@pytest.fixture
def client(server: Served) -> Iterator[httpx.Client]:
    """A client with the demo company's token."""
    with httpx.Client(base_url=server.base, headers=server.headers, timeout=30) as opened:
        yield opened


class TestHead:
    """RFC 9110 9.1: HEAD is answered wherever GET is, with GET's status and headers."""

    @pytest.mark.parametrize(
        "path",
        [
            "/consumer/v1/locations",
            "/consumer/v1/locations/{location}",
            "/setup/v1/services/{massage}",
            "/livez",
            "/readyz",
            "/openapi.json",
        ],
    )
    def test_head_is_get_without_its_body(self, client: httpx.Client, server: Served, path: str):
        """Status, type and length as GET's; no body."""
        path = path.format(**server.ids)
        got = client.get(path)
        head = client.head(path)

        assert (200, 200, b"") == (got.status_code, head.status_code, head.content)
        assert got.headers["content-type"] == head.headers["content-type"]
        assert got.headers["content-length"] == head.headers["content-length"]

    def test_head_of_a_missing_record_is_its_404(self, client: httpx.Client):
        """A HEAD is refused as its GET would be."""
        answer = client.head("/setup/v1/services/no-such-service")

        assert (404, b"") == (answer.status_code, answer.content)

    def test_options_and_405_name_head_beside_get(self, client: httpx.Client):
        """``Allow`` lists HEAD wherever it lists GET."""
        options = client.options("/consumer/v1/locations")
        refused = client.delete("/consumer/v1/customers")

        assert "HEAD" in [m.strip() for m in options.headers["allow"].split(",")]
        assert 405 == refused.status_code
        allowed = [m.strip() for m in refused.headers["allow"].split(",")]
        assert {"GET", "HEAD"} <= set(allowed)


@pytest.mark.parametrize("media", ["application/json", "application/json-patch+json"])
def test_a_body_that_is_not_utf8_is_400(client: httpx.Client, server: Served, media: str):
    """Latin-1 bytes in a body: 400 INVALID-FORMAT naming ``body``, and nothing changes."""
    path = f"/setup/v1/services/{server.ids['massage']}"
    before = client.get(path).json()
    text = '{"name": "Zoé"}'
    if media.endswith("patch+json"):
        text = '[{"op": "replace", "path": "/name", "value": "Zoé"}]'

    answer = client.put(path, content=text.encode("latin-1"), headers={"Content-Type": media})

    assert (400, "INVALID-FORMAT", "body") == (
        answer.status_code,
        answer.json()["code"],
        answer.json()["field"],
    )
    assert before == client.get(path).json()
