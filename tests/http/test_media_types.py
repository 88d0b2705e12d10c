"""
Request bodies are JSON, or nothing (decision 45), against a real ``slotwise serve`` process.

A body sent as text, XML, a form, multipart or without a Content-Type is 415 naming the accepted
types, and the database is unchanged; a JSON Patch is read as ``application/json-patch+json``
only where a ``PUT`` takes one.
"""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("sqlalchemy")

import httpx

from slotwise.cli import main


def _free_port() -> int:
    """A TCP port free on 127.0.0.1 now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class Served:
    """A ``slotwise serve`` process over a demo database, and a client with its token."""

    def __init__(self, base: str, token: str) -> None:
        self.base = base
        self.headers = {"Authorization": f"Bearer {token}"}

    def send(self, method: str, path: str, **options: Any) -> httpx.Response:
        """Send a request as the demo company."""
        headers = {**self.headers, **options.pop("headers", {})}
        return httpx.request(method, self.base + path, headers=headers, timeout=30, **options)

    def locations(self) -> list[dict[str, Any]]:
        """The company's locations, read back through the service."""
        answer = self.send("GET", "/consumer/v1/locations", params={"limit": 100})
        return list(answer.json()["data"])


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    """``slotwise serve`` on a SQLite file holding the demo business."""
    import io

    url = f"sqlite:///{Path(tmp_path_factory.mktemp('served')) / 'media.db'}"
    out = io.StringIO()
    assert 0 == main(["demo", "--db", url], out=out)
    token = next(
        line.split()[-1] for line in out.getvalue().splitlines() if line.startswith("token:")
    )
    port = _free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "slotwise", "serve", "--db", url, "--port", str(port)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and process.poll() is None:
        try:
            httpx.get(f"{base}/healthz", timeout=2)
            break
        except httpx.HTTPError:
            time.sleep(0.2)
    try:
        yield Served(base, token)
    finally:
        process.terminate()
        process.communicate(timeout=30)


JSON_TEXT = b'{"name": "Sent as something else"}'

REFUSED = {
    "text/plain": {"content": JSON_TEXT, "headers": {"Content-Type": "text/plain"}},
    "application/xml": {
        "content": b"<location><name>Sent as XML</name></location>",
        "headers": {"Content-Type": "application/xml"},
    },
    "form-urlencoded": {"data": {"name": "Sent as a form"}},
    "multipart": {"files": {"name": (None, "Sent as multipart")}},
    "no Content-Type": {"content": JSON_TEXT},
    "a patch where none is taken": {
        "content": JSON_TEXT,
        "headers": {"Content-Type": "application/json-patch+json"},
    },
}


@pytest.mark.parametrize("how", list(REFUSED))
def test_a_body_not_sent_as_json_is_415_and_changes_nothing(served: Served, how: str):
    """POST /setup/v1/locations with a non-JSON body: 415 naming application/json; no location."""
    before = served.locations()

    answer = served.send("POST", "/setup/v1/locations", **REFUSED[how])
    body = answer.json()

    assert (415, "UNSUPPORTED-MEDIA-TYPE", None) == (
        answer.status_code,
        body["code"],
        body["field"],
    )
    assert ["application/json"] == body["allowed"]
    assert "application/json" in body["message"]
    assert before == served.locations()


def test_json_with_a_charset_is_read(served: Served):
    """application/json; charset=utf-8 is JSON: the location is created."""
    answer = served.send(
        "POST",
        "/setup/v1/locations",
        content='{"name": "Café"}'.encode(),
        headers={"Content-Type": "application/json; charset=utf-8"},
    )

    assert (201, "Café") == (answer.status_code, answer.json()["name"])


def test_a_patch_is_read_where_a_put_takes_one(served: Served):
    """PUT /setup/v1/services/{id} reads application/json-patch+json; text/plain is 415 naming both."""
    service = served.send("GET", "/setup/v1/services").json()["data"][0]
    patch = b'[{"op": "replace", "path": "/description", "value": "patched"}]'

    patched = served.send(
        "PUT",
        f"/setup/v1/services/{service['id']}",
        content=patch,
        headers={"Content-Type": "application/json-patch+json"},
    )
    refused = served.send(
        "PUT",
        f"/setup/v1/services/{service['id']}",
        content=patch,
        headers={"Content-Type": "text/plain"},
    )
    after = served.send("GET", f"/setup/v1/services/{service['id']}").json()

    assert (200, "patched") == (patched.status_code, patched.json()["description"])
    assert (415, ["application/json", "application/json-patch+json"]) == (
        refused.status_code,
        refused.json()["allowed"],
    )
    assert "patched" == after["description"]


def test_the_content_type_decides_what_a_put_body_is(served: Served):
    """
    A patch array sent as application/json, or an object sent as application/json-patch+json,
    is 400 naming the body (decision 45: the type says which it is), and nothing changes.
    """
    service = served.send("GET", "/setup/v1/services").json()["data"][0]
    path = f"/setup/v1/services/{service['id']}"
    before = served.send("GET", path).json()

    patch_as_json = served.send(
        "PUT",
        path,
        content=b'[{"op": "replace", "path": "/name", "value": "a patch sent as JSON"}]',
        headers={"Content-Type": "application/json"},
    )
    object_as_patch = served.send(
        "PUT",
        path,
        content=b'{"name": "an object sent as a patch"}',
        headers={"Content-Type": "application/json-patch+json"},
    )

    for answer in (patch_as_json, object_as_patch):
        assert (400, "INVALID-FORMAT", "body") == (
            answer.status_code,
            answer.json()["code"],
            answer.json()["field"],
        )
    assert before == served.send("GET", path).json()


@pytest.mark.parametrize("depth", [40, 1_000, 100_000])
def test_a_body_nested_too_deep_is_400_not_a_server_error(served: Served, depth: int):
    """JSON nested past decision 36's 32 levels is 400 OUT-OF-RANGE, however deep; nothing is made."""
    before = served.send("GET", "/setup/v1/services").json()["total"]
    nested = b"[" * depth + b"]" * depth
    body = b'{"name": "Deep", "duration": 30, "reason": "r", "options": {"x": ' + nested + b"}}"

    answer = served.send(
        "POST", "/setup/v1/services", content=body, headers={"Content-Type": "application/json"}
    )

    assert (400, "OUT-OF-RANGE") == (answer.status_code, answer.json()["code"])
    assert answer.json()["field"] in ("options", "body")
    assert before == served.send("GET", "/setup/v1/services").json()["total"]


def test_a_patch_that_does_not_apply_is_told_in_wire_terms(served: Served):
    """A failed ``test`` or a missing path is 400 naming the operation; no Python text leaks."""
    service = served.send("GET", "/setup/v1/services").json()["data"][0]
    path = f"/setup/v1/services/{service['id']}"
    patches = [
        b'[{"op": "test", "path": "/name", "value": "not its name"}]',
        b'[{"op": "replace", "path": "/nosuch/x", "value": 1}]',
    ]

    for patch in patches:
        answer = served.send(
            "PUT", path, content=patch, headers={"Content-Type": "application/json-patch+json"}
        )
        body = answer.json()

        assert (400, "INVALID-FORMAT", "body") == (answer.status_code, body["code"], body["field"])
        assert "operation 1" in body["message"]
        for python in ("<class", "None", "True", "'"):
            assert python not in str(body.get("value")), body
