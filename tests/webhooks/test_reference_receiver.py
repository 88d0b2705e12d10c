"""
A real ``slotwise worker`` process delivers to a receiver that verifies every delivery with the
Standard Webhooks reference library, exactly as docs/webhooks.md tells a user to (decision 47).
"""

from __future__ import annotations

import pathlib
import re
import signal
import subprocess
import sys
import threading
from typing import Any

from slotwise.model import OutboxEvent
from slotwise.storage.sql import SQLStore

from .conftest import Received, Receiver
from .test_worker_processes import _seed as seed
from .test_worker_processes import _wait

DOCS = pathlib.Path(__file__).resolve().parents[2] / "docs" / "webhooks.md"
EVENTS = 20


def _documented_receiver() -> dict[str, Any]:
    """Run the docs' reference-library receiver block; return its names (KEY, receive)."""
    blocks = re.findall(r"```python\n(.*?)```", DOCS.read_text(), re.DOTALL)
    (block,) = [code for code in blocks if "from standardwebhooks import Webhook" in code]
    names: dict[str, Any] = {"__name__": "__docs__"}
    exec(compile(block, str(DOCS), "exec"), names)
    return names


def _seed(url: str, receiver: Receiver, key: str) -> SQLStore:
    store = SQLStore(url)
    seed(store, receiver, EVENTS, key)
    return store


def _run_worker(url: str, receiver: Receiver, option: str) -> tuple[bool, bytes]:
    """Run ``slotwise worker <option>`` until EVENTS requests arrived; return (arrived, stderr)."""
    command = [sys.executable, "-m", "slotwise", "worker", "--db", url, option]
    process = subprocess.Popen(
        [*command, "--log-level", "warning"], stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    try:
        arrived = _wait(lambda: len(receiver.paths()) >= EVENTS, timeout=60)
    finally:
        process.send_signal(signal.SIGTERM)
        _, errors = process.communicate(timeout=60)
    assert 0 == process.returncode, errors[-500:]
    return arrived, errors


def test_reference_library_verifies_every_delivery(tmp_path, receiver: Receiver):
    """Every delivery of `slotwise worker --allow-local-webhooks` passes Webhook("whsec_...")."""
    documented = _documented_receiver()
    answers: list[int] = []
    lock = threading.Lock()

    def verify(request: Received) -> tuple[int, dict[str, str]]:
        status = documented["receive"](request.body, request.headers)
        with lock:
            answers.append(status)
        return status, {}

    receiver.answer = verify
    store = _seed(f"sqlite:///{tmp_path / 'ref.db'}", receiver, documented["KEY"])
    arrived, _ = _run_worker(f"sqlite:///{tmp_path / 'ref.db'}", receiver, "--allow-local-webhooks")
    with store.read() as reader:
        events = reader.find(OutboxEvent, company_id="co")
    store.close()

    assert documented["KEY"].startswith("whsec_")
    assert arrived
    assert [204] * EVENTS == answers
    assert EVENTS == sum(1 for event in events if event.delivered_at is not None)


def test_deprecated_allow_local_still_works_and_warns(tmp_path, receiver: Receiver):
    """`slotwise worker --allow-local` delivers like --allow-local-webhooks, with a warning."""
    store = _seed(f"sqlite:///{tmp_path / 'old.db'}", receiver, "plain-key")
    arrived, errors = _run_worker(f"sqlite:///{tmp_path / 'old.db'}", receiver, "--allow-local")
    store.close()

    assert arrived
    assert b"--allow-local is deprecated; use --allow-local-webhooks" in errors
