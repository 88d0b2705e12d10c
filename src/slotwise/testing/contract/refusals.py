"""
The refusal part of :class:`~slotwise.testing.StoreContract`: the same invalid input is refused
the same way on every store, before the store sees it, and leaves the store as it was
(decision 36).

A store never has to cope with a NUL in a name, a 5,000-digit number or an instant in year 1:
the operations refuse them first. These cases prove it on the host's own store, so a store
that would have refused such a value with its own driver error (an HTTP 500 to be) never gets
the chance.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from datetime import UTC, date, datetime, timedelta
from typing import Any

from slotwise.errors import SlotwiseError, StoreError
from slotwise.model import RECORD_KINDS, RepeatRule
from slotwise.scheduler import Scheduler, Workspace
from slotwise.storage.protocol import Store
from slotwise.testing.clocks import ManualClock, SequentialIds

from ._base import ContractBase

__all__ = ["RefusalContract"]

_NOW = datetime(2026, 3, 9, 8, 0, tzinfo=UTC)
_SLOT = datetime(2026, 3, 10, 10, 0, tzinfo=UTC)


def _deep(levels: int) -> Any:
    value: Any = "leaf"
    for _ in range(levels):
        value = [value]
    return value


# (what, the operation, the error code every store must give); a case receives the workspace
# and the ids of the records it may name.
_Case = tuple[str, Callable[[Workspace, dict[str, str]], object], str]

_CASES: tuple[_Case, ...] = (
    (
        "NUL in a name",
        lambda ws, ids: ws.services.create(name="Cut\x00", duration=30, reason="r"),
        "INVALID-FORMAT",
    ),
    (
        "lone surrogate in a reason",
        lambda ws, ids: ws.resources.create(name="Ana", reason="r\ud800"),
        "INVALID-FORMAT",
    ),
    (
        "5,000-digit integer",
        lambda ws, ids: ws.services.create(name="Cut", duration=10**5000, reason="r"),
        "OUT-OF-RANGE",
    ),
    (
        "options nested 100 deep",
        lambda ws, ids: ws.services.create(
            name="Cut", duration=30, reason="r", options={"k": _deep(100)}
        ),
        "OUT-OF-RANGE",
    ),
    (
        "options of 200 KiB",
        lambda ws, ids: ws.services.create(
            name="Cut", duration=30, reason="r", options={"k": ["x" * 1024] * 200}
        ),
        "OUT-OF-RANGE",
    ),
    (
        "id of 300 characters",
        lambda ws, ids: ws.services.get("s" * 300),
        "FIELD-TOO-LONG",
    ),
    (
        "block from year 1",
        lambda ws, ids: ws.resources.create_block(
            ids["resource"],
            start_date=date(1, 1, 1),
            end_date="never",
            repeat=RepeatRule(frequency="W", weekdays="2"),
        ),
        "OUT-OF-RANGE",
    ),
    (
        "appointment in year 9999",
        lambda ws, ids: ws.appointments.create(
            ids["service"],
            datetime(9999, 12, 31, 10, tzinfo=UTC),
            datetime(9999, 12, 31, 10, 30, tzinfo=UTC),
        ),
        "OUT-OF-RANGE",
    ),
    (
        "update moving a service to another id",
        lambda ws, ids: ws.services.update(ids["service"], id="elsewhere"),  # type: ignore[call-arg]
        "UNEXPECTED-FIELD",
    ),
    (
        "id given as a list",
        lambda ws, ids: ws.customers.get([ids["customer"]]),  # type: ignore[arg-type]
        "INVALID-FORMAT",
    ),
)


class RefusalContract(ContractBase):
    """
    Invalid input is refused alike on every store, before the store, leaving no trace.

    .. versionadded:: 0.1
    """

    def test_invalid_input_is_refused_alike_and_leaves_no_trace(self) -> None:
        """Each invalid input raises the same slotwise code on this store; nothing changes."""
        scheduler = Scheduler(
            self._store(), clock=ManualClock(_NOW), ids=SequentialIds(prefix="rf-")
        )
        company = scheduler.create_company(name="Refusals", timezone="UTC")
        ws = scheduler.for_company(company.id)
        ws.locations.create(name="Main")
        ids = {
            "service": ws.services.create(name="Cut", duration=30, reason="r").id,
            "resource": ws.resources.create(name="Ana", reason="r").id,
            "customer": ws.customers.create(first_name="Al", email="al@example.com").id,
        }
        for what, call, code in _CASES:
            before = _everything(scheduler.store)
            got = _refusal_code(what, functools.partial(call, ws, ids))
            assert code == got, f"{what}: expected {code}, got {got}"
            assert before == _everything(scheduler.store), f"{what}: changed the store"
        # Not poisoned: the store still answers and books.
        held = ws.appointments.create(ids["service"], _SLOT, _SLOT + timedelta(minutes=30))
        assert held == ws.appointments.get(held.id)


def _refusal_code(what: str, call: Callable[[], object]) -> str:
    """Return the code of the slotwise error *call* raises; anything else fails."""
    try:
        call()
    except StoreError as exc:
        raise AssertionError(f"{what}: reached the store ({exc!r})") from exc
    except SlotwiseError as exc:
        return exc.code
    raise AssertionError(f"{what}: was accepted")


def _everything(store: Store) -> str:
    with store.read() as reader:
        return repr([reader.find(kind, company_id=None) for kind in RECORD_KINDS])
