"""
The shipped tenant test (issue 9): no operation lets one tenant touch another's records.

Every public operation of ``Workspace`` is found by introspection, so a new operation is covered
without editing this file. Each argument that names a record (``*_id``, ``*_ids``, and the id keys
of ``**fields``) is given, one at a time,

* company B's record, by company A's company-wide principal, and
* location L2's record, by a principal of company A limited to location L1,

on top of a baseline call that names only the caller's own records. Each such call must raise
``Unauthorized``, reveal none of B's texts in its message or attributes, and leave the store as it
was. Every operation taking ``**fields`` is also called with each identity field (decision 35):
``UnexpectedField``, nothing changed. Lists and feeds never return B's records, nor L2's to the
limited principal. The world is built on ``MemoryStore`` and on an SQLite ``SQLStore``.

Run with ``-s`` to print the counts (operations, cases, refusals by class).
"""

from __future__ import annotations

import collections
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from slotwise import (
    MemoryStore,
    NotAuthenticated,
    NotFound,
    SlotwiseError,
    Unauthorized,
    UnexpectedField,
    ValidationError,
    Workspace,
)
from slotwise.operations._inputs import IDENTITY_FIELDS

from ._operations import (
    LISTS,
    READS,
    UPDATES_KEY,
    Operation,
    baseline,
    id_arguments,
    kind_of,
    operations_of,
)
from ._tenant_world import SECRETS_OF_B, World, build

# -- the world, once per store -------------------------------------------------------------------


@pytest.fixture(scope="module", params=["memory", "sqlite"])
def world(request: pytest.FixtureRequest) -> Iterator[World]:
    """Both companies on a MemoryStore, then on an SQLite file."""
    if request.param == "memory":
        yield build(MemoryStore)
        return
    from tests.contract.servers import sqlite_store

    with sqlite_store() as store:
        yield build(lambda: store)


COUNTS: dict[str, collections.Counter[str]] = collections.defaultdict(collections.Counter)
"""Per store: what the tests ran and how each call was refused, printed with ``-s``."""


def _counts(world: World) -> collections.Counter[str]:
    return COUNTS[type(world.scheduler.store).__name__]


def _refused(world: World, call: Callable[[], Any]) -> SlotwiseError | None:
    """Run *call*; return its slotwise error, or None when it was accepted."""
    before = world.records()
    try:
        call()
    except SlotwiseError as error:
        assert before == world.records(), "a refused call changed the store"
        _counts(world)[f"refused: {type(error).__name__}"] += 1
        return error
    return None


def _reveals(error: BaseException) -> list[str]:
    """Return B's texts that *error* shows in its message or its attributes."""
    shown = f"{error} {vars(error)!r}"
    return [secret for secret in SECRETS_OF_B if secret in shown]


def _foreign_cases(
    world: World, ws: Workspace, own: str, other: str
) -> Iterator[tuple[Operation, str, dict[str, Any]]]:
    """Yield (operation, argument, call) for each argument given *other*'s record."""
    mine, theirs = world.ids[own], world.ids[other]
    for op in operations_of(ws):
        for name in id_arguments(op):
            kind = kind_of(op.group, op.name, name)
            if (op.group, op.name, name) == UPDATES_KEY:
                kind = "resource"
            assert kind is not None
            if kind not in theirs:
                continue  # nothing of that kind is the other owner's (L2 has no customers)
            values = baseline(op, mine)
            if (op.group, op.name, name) == UPDATES_KEY:
                values[name] = [(theirs["resource"], {"name": "Renamed"})]
            else:
                values[name] = [theirs[kind]] if name in LISTS else theirs[kind]
            yield op, name, values


def _check_foreign(world: World, ws: Workspace, own: str, other: str) -> None:
    failures: list[str] = []
    for op, name, values in _foreign_cases(world, ws, own, other):
        _counts(world)[f"cases: {other}'s ids"] += 1
        _counts(world)[f"operations taking {other}'s ids: {op}"] = 1
        error = _refused(world, lambda op=op, values=values: op.call(ws, values))
        if not isinstance(error, Unauthorized):
            failures.append(f"{op}({name}=<{other}'s>): {error!r}")
        elif _reveals(error):
            failures.append(f"{op}({name}=<{other}'s>) reveals {_reveals(error)}")

    assert [] == failures


def test_other_companies_records_are_refused(world: World):
    """Company A naming any of company B's records gets Unauthorized, and nothing changes."""
    _check_foreign(world, world.a, "A", "B")


def test_other_locations_records_are_refused(world: World):
    """A principal limited to L1 naming any of L2's records gets Unauthorized."""
    _check_foreign(world, world.a_l1, "A", "L2")


def test_baselines_are_within_the_callers_reach():
    """
    The baseline of every operation passes the boundary and the tenant checks.

    Without this the refusals above could come from a wrong baseline rather than the other
    tenant's id; the baselines are run on a fresh world so their writes do not matter.
    """
    failures = []
    for op in operations_of(build(MemoryStore).a_l1):
        fresh = build(MemoryStore)  # each baseline on its own world: deletes come first by name
        try:
            op.call(fresh.a_l1, baseline(op, fresh.ids["A"]))
        except (Unauthorized, UnexpectedField) as error:
            if (op.group, op.name) not in _COMPANY_WIDE:
                failures.append(f"{op}: {error!r}")
        except SlotwiseError as error:
            if isinstance(error, _BASELINE_REFUSALS):
                failures.append(f"{op}: {error!r}")

    assert [] == failures


def test_identity_fields_are_refused_on_every_operation(world: World):
    """Decision 35: each identity field an operation does not declare is UnexpectedField."""
    failures = []
    for op in operations_of(world.a):
        if not op.fields:
            continue
        for field in sorted(IDENTITY_FIELDS - set(op.names())):
            _counts(world)["cases: identity fields"] += 1
            values = baseline(op, world.ids["A"])
            values[field] = world.ids["B"].get(field.removesuffix("_id"), "x")
            error = _refused(world, lambda op=op, values=values: op.call(world.a, values))
            if not isinstance(error, UnexpectedField):
                failures.append(f"{op}({field}=...): {error!r}")

    assert [] == failures


def _walk(value: Any) -> Iterator[Any]:
    """Yield *value* and everything inside it: records, pages, sequences and mappings."""
    import attrs

    stack = [value]
    while stack:
        item = stack.pop()
        yield item
        if attrs.has(type(item)):
            stack.extend(getattr(item, field.name) for field in attrs.fields(type(item)))
        elif isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list | tuple | frozenset):
            stack.extend(item)


def _reads(ws: Workspace) -> Iterator[Operation]:
    for op in operations_of(ws):
        if op.name.startswith(READS):
            yield op


def _shown(world: World, ws: Workspace, own: str) -> Iterator[tuple[Operation, Any]]:
    """Yield every read operation's answer for the caller's own records."""
    for op in _reads(ws):
        _counts(world)["cases: reads"] += 1
        try:
            yield op, op.call(ws, baseline(op, world.ids[own]))
        except SlotwiseError as error:
            _counts(world)[f"read refused: {type(error).__name__}"] += 1


def test_lists_and_feeds_never_show_another_company(world: World):
    """No read of company A returns anything of company B."""
    theirs = set(world.ids["B"].values())
    leaks = [
        f"{op}: {item!r}"[:200]
        for op, answer in _shown(world, world.a, "A")
        for item in _walk(answer)
        if isinstance(item, str) and (item in theirs or any(s in item for s in SECRETS_OF_B))
    ]

    assert [] == leaks


def test_lists_and_feeds_never_show_another_location(world: World):
    """No read of the principal limited to L1 returns a record of L2."""
    l2 = world.ids["L2"]["location"]
    theirs = set(world.ids["L2"].values())
    leaks = [
        f"{op}: {item!r}"[:200]
        for op, answer in _shown(world, world.a_l1, "A")
        for item in _walk(answer)
        if (isinstance(item, str) and item in theirs) or getattr(item, "location_id", None) == l2
    ]

    assert [] == leaks


def test_counts(world: World, capsys: pytest.CaptureFixture[str]):
    """Print what the tenant tests ran (with ``-s``): operations, cases, refusals by class."""
    counts = _counts(world)
    counts["operations"] = len(operations_of(world.a))
    summary = collections.Counter(
        {key: count for key, count in counts.items() if not key.startswith("operations taking")}
    )
    for other in ("B", "L2"):
        prefix = f"operations taking {other}'s ids"
        summary[prefix] = sum(1 for key in counts if key.startswith(prefix + ":"))
    with capsys.disabled():
        print(f"\ntenant test on {_store_name(world)}:")
        for key, count in sorted(summary.items()):
            print(f"  {key}: {count}")

    assert counts["operations"] > 100


def _store_name(world: World) -> str:
    return type(world.scheduler.store).__name__


_COMPANY_WIDE = {
    ("company", "update"),
    ("company", "enable_webhook_url"),
    ("locations", "create"),
    ("locations", "create_many"),
    ("locations", "delete"),
    ("locations", "make_primary"),
}
"""Operations a principal limited to some locations may not run at all (decision 37)."""

_BASELINE_REFUSALS: tuple[type[SlotwiseError], ...] = (ValidationError, NotFound, NotAuthenticated)
"""What a correct baseline never meets: it names existing records with valid values."""
