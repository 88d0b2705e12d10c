"""
The shipped fuzz test (issue 9): every operation accepts only what it declares.

Every public operation of ``Workspace`` is found by introspection (``_operations.py``), so a new
operation is covered without editing this file. For each, hypothesis takes the baseline call (the
caller's own, valid records) and replaces one argument — a parameter, a key of ``**fields``, or a
keyword the operation does not declare — with a hostile value: wrong types, ``None``, huge and
negative numbers, HHMM 2360/2401/-1, dates of year 1 and 9999, naive and extreme date-times, text
with NUL or a lone surrogate, 70,000 characters, JSON nested 1,000 deep or of 200 KB, plain
dicts and strings where records belong. The outcome must be success or a ``SlotwiseError``; a
refusal leaves the store as it was; and afterwards a valid availability query and a booking still
work (nothing poisoned the store).

Profiles (``SLOTWISE_FUZZ_PROFILE``): ``ci`` (default) runs 50 examples per operation on
``MemoryStore`` and 8 per operation on an SQLite ``SQLStore``; ``deep`` runs 500 and 50.
Run with ``-s`` to print the counts: operations, examples, outcomes by class.
"""

from __future__ import annotations

import collections
import os
from collections.abc import Iterator
from datetime import UTC, date, datetime, time, timedelta, timezone
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from slotwise import MemoryStore, RepeatRule, SlotwiseError

from ._operations import Operation, baseline, operations_of
from ._tenant_world import TUESDAY, World, build

_PROFILES = {"ci": (50, 8), "deep": (500, 50)}
MEMORY_EXAMPLES, SQLITE_EXAMPLES = _PROFILES[os.environ.get("SLOTWISE_FUZZ_PROFILE", "ci")]

EXTRA = "<undeclared keyword>"


def _nested(levels: int) -> Any:
    value: Any = "leaf"
    for _ in range(levels):
        value = [value]
    return value


_FIXED: list[Any] = [
    None,
    True,
    0,
    -1,
    2360,
    2401,
    2**53 + 1,
    -(10**30),
    10**30,
    float("nan"),
    float("inf"),
    -0.5,
    "",
    " ",
    "bogus",
    "W",
    "9-5",
    "never",
    "\x00",
    "a\x00b",
    "\ud800",
    "x" * 70_000,
    b"bytes",
    object(),
    [],
    [None],
    [[["deep"]]],
    ["x"] * 1_001,
    {},
    {"k": "v"},
    {"k": _nested(1_000)},
    {"k": ["y" * 1_000] * 200},
    {1: "non-text key"},
    {"frequency": "W", "weekdays": None},
    {"frequency": "W", "weekdays": 10**30},
    {"start_time": 2401, "end_time": -1},
    {"mon": "9-5"},
    {"date": "2026-12-25"},
    date(1, 1, 1),
    date(1899, 12, 31),
    date(9999, 12, 31),
    date.max,
    datetime(2026, 3, 3, 10, 0),  # naive
    datetime.min.replace(tzinfo=UTC),
    datetime.max.replace(tzinfo=UTC),
    datetime(9999, 12, 31, 23, 30, tzinfo=timezone(timedelta(hours=-14))),
    datetime(1, 1, 1, 0, 30, tzinfo=timezone(timedelta(hours=14))),
    time(10, 0),
    timedelta(days=1),
    RepeatRule(frequency="D"),
    frozenset({"a"}),
    ("t1", "t2"),
]
"""Hostile values every argument meets (hypothesis also draws arbitrary ones below)."""

_DRAWN = st.one_of(
    st.sampled_from(_FIXED),
    st.integers(),
    st.floats(),
    st.text(max_size=30),
    st.dates(),
    st.datetimes(timezones=st.just(UTC) | st.none()),
    st.lists(st.text(max_size=5) | st.integers(), max_size=5),
    st.dictionaries(st.text(max_size=8), st.text(max_size=8) | st.integers(), max_size=4),
)


COUNTS: dict[str, collections.Counter[str]] = collections.defaultdict(collections.Counter)


def _health(world: World) -> None:
    """
    A valid listing, a valid booking and a valid list still run: nothing poisoned the store.

    Their answers may change (an accepted value may close a day or take a slot); what may not
    happen is an exception that is not a slotwise refusal.
    """
    ws, ids = world.a, world.ids["A"]
    week = ws.availability.times(ids["service"], TUESDAY, TUESDAY + timedelta(days=6))
    if week.available_times:
        slot = week.available_times[-1]
        try:
            hold = ws.appointments.create(
                ids["service"], slot.start, slot.end, resource_id=slot.resource_id
            )
        except SlotwiseError:
            pass  # a refusal is an answer; the slot may be another's by now
        else:
            ws.appointments.delete(hold.id)
    ws.appointments.list(location_id=ids["location"], limit=1)


def _check(world: World, op: Operation, name: str, value: Any, store: str) -> None:
    """Call *op* with *value* as its argument *name*; a refusal must be typed and leave no trace."""
    values = baseline(op, world.ids["A"])
    values["bogus_field" if name == EXTRA else name] = value
    before = world.records()
    counts = COUNTS[store]
    counts["examples"] += 1
    try:
        op.call(world.a, values)
    except SlotwiseError as error:
        counts[f"refused: {type(error).__name__}"] += 1
        assert before == world.records(), f"{op}({name}={value!r:.80}) changed the store"
    except Exception as error:
        raise AssertionError(
            f"{op}({name}={value!r:.80}) raised {type(error).__name__}: {error!s:.200}"
        ) from error
    else:
        counts["accepted"] += 1
    _health(world)


def _arguments(op: Operation) -> list[str]:
    return [*op.names(), EXTRA]


OPERATIONS = operations_of(build(MemoryStore).a)


@pytest.fixture
def memory_world() -> World:
    """
    Both companies on a MemoryStore of their own for each operation, shared by its examples.

    A world per operation keeps what accepted calls and health checks add (holds, audit
    entries) from piling up across operations, so each example costs the same.
    """
    return build(MemoryStore)


@pytest.fixture(scope="module")
def sqlite_world() -> Iterator[World]:
    """Both companies on one SQLite file."""
    from tests.contract.servers import sqlite_store

    with sqlite_store() as store:
        yield build(lambda: store)


_SETTINGS = {
    "deadline": None,
    "derandomize": True,
    "database": None,
    # The world is shared by an operation's examples on purpose: what one example changes is
    # what the next must survive (a poisoned store shows in the health check).
    "suppress_health_check": [
        HealthCheck.too_slow,
        HealthCheck.data_too_large,
        HealthCheck.function_scoped_fixture,
    ],
}


@pytest.mark.parametrize("op", OPERATIONS, ids=repr)
@settings(max_examples=MEMORY_EXAMPLES, **_SETTINGS)
@given(data=st.data())
def test_hostile_arguments_on_memory(memory_world: World, op: Operation, data: st.DataObject):
    """Each hostile argument is accepted or refused with a SlotwiseError, leaving no trace."""
    name = data.draw(st.sampled_from(_arguments(op)), label="argument")
    value = data.draw(_DRAWN, label="value")
    _check(memory_world, op, name, value, "MemoryStore")


@pytest.mark.parametrize("op", OPERATIONS, ids=repr)
@settings(max_examples=SQLITE_EXAMPLES, **_SETTINGS)
@given(data=st.data())
def test_hostile_arguments_on_sqlite(sqlite_world: World, op: Operation, data: st.DataObject):
    """The same on SQLite: every store refuses the same input the same way, before it sees it."""
    name = data.draw(st.sampled_from(_arguments(op)), label="argument")
    value = data.draw(_DRAWN, label="value")
    _check(sqlite_world, op, name, value, "SQLStore")


def test_fuzz_counts(capsys: pytest.CaptureFixture[str]):
    """Print what the fuzz tests ran (with ``-s``): operations, examples, outcomes by class."""
    with capsys.disabled():
        print(f"\nfuzz test ({len(OPERATIONS)} operations):")
        for store, counts in sorted(COUNTS.items()):
            print(f"  {store}:")
            for key, count in sorted(counts.items()):
                print(f"    {key}: {count}")

    assert len(OPERATIONS) > 100
