"""
Operating ``slotwise serve`` (issue 24): a real server process behind a real PgBouncer in
transaction mode, configured from the environment, whose readiness follows the store while its
liveness does not.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import httpx
import pytest
from sqlalchemy import create_engine, text

from slotwise.storage.sql import SCHEMA_VERSION, SQLStore

from .pooler import free_port, own_pgbouncer
from .servers import POSTGRES, server_engine, unique_name

STARTUP = 60.0
"""Seconds a starting server may take to answer (an import-heavy start on a busy machine)."""


@contextmanager
def _database() -> Iterator[str]:
    """Yield the name of a new, empty PostgreSQL database; drop it afterwards."""
    name = unique_name()
    admin = server_engine(POSTGRES).execution_options(isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.exec_driver_sql(f'CREATE DATABASE "{name}"')
    try:
        yield name
    finally:
        with admin.connect() as conn:
            conn.exec_driver_sql(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@contextmanager
def _serve(argv: list[str], environ: dict[str, str]) -> Iterator[subprocess.Popen[bytes]]:
    """Run ``python -m slotwise serve *argv*`` with *environ* added; stop it afterwards."""
    process = subprocess.Popen(
        [sys.executable, "-m", "slotwise", "serve", *argv],
        env={**os.environ, **environ},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        yield process
    finally:
        process.terminate()
        try:
            process.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.communicate()


def _get(base: str, path: str) -> httpx.Response:
    return httpx.get(f"{base}{path}", timeout=30)


def _wait_until_serving(process: subprocess.Popen[bytes], base: str) -> None:
    """Poll /livez until the server answers (fails when it exits or never answers)."""
    deadline = time.monotonic() + STARTUP
    while time.monotonic() < deadline:
        if process.poll() is not None:
            errors = process.stderr.read().decode() if process.stderr else ""
            pytest.fail(f"slotwise serve exited with {process.returncode}: {errors}")
        try:
            _get(base, "/livez")
        except httpx.HTTPError:
            time.sleep(0.2)
            continue
        return
    pytest.fail(f"slotwise serve did not answer within {STARTUP} s")


def _status(base: str) -> dict[str, Any]:
    """(path -> (status, code or status field)) of the three probes."""
    answers = {path: _get(base, path) for path in ("/livez", "/readyz", "/healthz")}
    return {
        path: (answer.status_code, answer.json().get("code") or answer.json().get("status"))
        for path, answer in answers.items()
    }


@pytest.mark.external_service
def test_readiness_follows_the_store_through_pgbouncer_and_liveness_does_not():
    """
    serve, configured by SLOTWISE_* variables and --port, behind PgBouncer: ready; PgBouncer
    stopped: /readyz and /healthz 503 STORE-UNAVAILABLE, /livez 200; PgBouncer back: ready;
    tables at a newer schema version compatible with it: ready, naming the versions; newer and
    incompatible: 503 STORE; back at the current one: ready.
    """
    port, ignored_port = free_port(), free_port()
    with _database() as database, own_pgbouncer(database) as bouncer:
        environ = {
            "SLOTWISE_DB": bouncer.url,
            "SLOTWISE_POOL_MODE": "transaction",
            "SLOTWISE_HOST": "127.0.0.1",
            "SLOTWISE_PORT": str(ignored_port),  # the command line's --port wins
            "SLOTWISE_LOG_LEVEL": "warning",
        }
        base = f"http://127.0.0.1:{port}"
        seen: dict[str, Any] = {}
        with _serve(["--port", str(port)], environ) as process:
            _wait_until_serving(process, base)
            seen["up"] = _status(base)
            with pytest.raises(httpx.ConnectError):
                _get(f"http://127.0.0.1:{ignored_port}", "/livez")
            bouncer.stop()
            seen["pooler stopped"] = _status(base)
            bouncer.start()
            seen["pooler back"] = _status(base)
            direct = create_engine(server_engine(POSTGRES).url.set(database=database))
            move = text("UPDATE slotwise_schema_version SET version = :v, compatible_since = :s")
            try:
                with direct.begin() as conn:
                    conn.execute(move, {"v": SCHEMA_VERSION + 1, "s": SCHEMA_VERSION})
                seen["newer, compatible tables"] = _status(base)
                seen["schema"] = _get(base, "/readyz").json()["schema"]
                with direct.begin() as conn:
                    conn.execute(move, {"v": SCHEMA_VERSION + 1, "s": SCHEMA_VERSION + 1})
                seen["newer, incompatible tables"] = _status(base)
                with direct.begin() as conn:
                    conn.execute(move, {"v": SCHEMA_VERSION, "s": SCHEMA_VERSION})
            finally:
                direct.dispose()
            seen["tables current"] = _status(base)

    ready = {"/livez": (200, "ok"), "/readyz": (200, "ok"), "/healthz": (200, "ok")}
    assert {
        "up": ready,
        "pooler stopped": {
            "/livez": (200, "ok"),
            "/readyz": (503, "STORE-UNAVAILABLE"),
            "/healthz": (503, "STORE-UNAVAILABLE"),
        },
        "pooler back": ready,
        "newer, compatible tables": ready,
        "schema": {
            "code": SCHEMA_VERSION,
            "tables": SCHEMA_VERSION + 1,
            "compatibleSince": SCHEMA_VERSION,
        },
        "newer, incompatible tables": {
            "/livez": (200, "ok"),
            "/readyz": (503, "STORE"),
            "/healthz": (503, "STORE"),
        },
        "tables current": ready,
    } == seen


def test_check_names_a_missing_table_and_another_version(tmp_path):
    """SQLStore.check(): passes on current tables, StoreError for an older version or none."""
    from slotwise.errors import StoreError

    url = f"sqlite:///{tmp_path / 'checked.db'}"
    store = SQLStore(url)
    try:
        store.check()
        with store.engine.begin() as conn:
            conn.execute(text("UPDATE slotwise_schema_version SET version = 1"))
        with pytest.raises(StoreError, match="schema version 1"):
            store.check()
        with store.engine.begin() as conn:
            conn.execute(text("DROP TABLE slotwise_schema_version"))
        with pytest.raises(StoreError, match="checking its tables"):
            store.check()
    finally:
        store.close()
