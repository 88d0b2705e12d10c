"""
A unit of work left idle holding its locks (its process stalled, or its host cut off) is ended
by the database after the store's ``idle_timeout``, so another unit takes the lock without
waiting for the idle one: PostgreSQL's ``idle_in_transaction_session_timeout`` and MariaDB's
``idle_transaction_timeout``. Nothing the idle unit wrote is kept.

Deterministic, not timed: the idle unit sleeps until the other unit has finished (or 60 s); the
other can only finish in that time if the database ended the idle unit.
"""

from __future__ import annotations

import threading
from typing import Any

import pytest

from slotwise import Company
from slotwise.errors import StoreUnavailable

from .servers import MARIADB, POSTGRES, Server, server_store


@pytest.mark.external_service
@pytest.mark.parametrize("server", [POSTGRES, MARIADB], ids=lambda server: server.name)
def test_an_idle_unit_is_ended_and_its_lock_taken_by_another(server: Server):
    """The idle unit fails with StoreUnavailable, writes nothing; the other took the lock."""
    with server_store(server, idle_timeout=1, lock_timeout=20) as store:
        company = Company(id="idle-co", name="Idle", timezone="UTC")
        held = threading.Event()
        done = threading.Event()
        outcome: list[Any] = []

        def idle_unit() -> None:
            try:
                with store.transaction(locks=["company:idle-co"]) as tx:
                    tx.get(Company, "-")  # the unit has begun and holds its lock
                    tx.insert(company)
                    held.set()
                    done.wait(timeout=60)
                    tx.get(Company, "-")
                outcome.append("committed")
            except BaseException as error:
                outcome.append(error)

        idle = threading.Thread(target=idle_unit)
        idle.start()
        try:
            assert held.wait(timeout=60)
            with store.transaction(locks=["company:idle-co"]) as tx:
                tx.get(Company, "-")
        finally:
            done.set()
            idle.join(timeout=60)
        (result,) = outcome
        assert isinstance(result, StoreUnavailable), result
        with store.read() as reader:
            assert reader.get(Company, "idle-co") is None
